import { describe, expect, it } from 'vitest';
import { runCli } from '../e2e/harness.js';

const COMMANDS = [
  'plan',
  'apply',
  'watch',
  'import',
  'pull',
  'serve',
  'start',
  'unlock',
  'init',
  'ci-report',
];

describe('cms-sync <command> --help', () => {
  for (const command of COMMANDS) {
    it(`${command}: lists its flags and shows an example`, async () => {
      const help = await runCli([command, '--help'], { PATH: process.env.PATH, NO_COLOR: '1' });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: cms-sync ${command}\\b`, 'm'));
      expect(help.stdout).toMatch(/^Options:\n(\s+-.*\n)+/m);
      expect(help.stdout).toMatch(/^Examples?:$/m);
      expect(help.stdout).toMatch(new RegExp(`^\\s+(\\$ )?(\\S+=\\S+ )*cms-sync ${command}\\b`, 'm'));
    });
  }
});

describe('cms-sync --help', () => {
  it('lists the environment variables, the exit codes and a worked example', async () => {
    const help = await runCli(['--help'], { PATH: process.env.PATH, NO_COLOR: '1' });
    expect(help.code).toBe(0);
    const section = (name: string) => help.stdout.split(`\n${name}:\n`)[1]?.split('\n\n')[0] ?? '';
    for (const variable of ['CMS_BASE_URL', 'CMS_API_TOKEN', 'CMS_MEDIA_BASE_URL', 'CMS_SYNC_LOCAL', 'CI'])
      expect(section('Environment')).toMatch(new RegExp(`^\\s+${variable}\\b`, 'm'));
    for (const code of ['0', '1', '2', '3', '130'])
      expect(section('Exit codes')).toMatch(new RegExp(`\\b${code} \\w`));
    expect(section('Example')).toMatch(/\$ cms-sync init[\s\S]*\$ cms-sync plan[\s\S]*cms-sync apply/);
  });
});
