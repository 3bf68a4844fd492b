import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { runCli } from '../e2e/harness.js';

it('--version prints the version in package.json, and nothing else', async () => {
  const manifest = await readFile(new URL('../../package.json', import.meta.url), 'utf8');
  const { version } = JSON.parse(manifest) as { version: string };
  for (const flag of ['--version', '-V']) {
    const result = await runCli([flag], { PATH: process.env.PATH });
    expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  }
});
