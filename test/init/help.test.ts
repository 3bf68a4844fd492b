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
