import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** `cms-sync serve` in-process until its startup lines are out, then stopped as by Ctrl-C. */
async function serve(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-serve-token-'));
  await writeFile(path.join(dir, 'token.txt'), 'file-token_7f3a\n');
  let stdout = '';
  let stderr = '';
  let stop: () => void = () => {};
  const out = new PassThrough().on('data', (c: Buffer) => {
    stdout += c.toString();
    if (stdout.includes('Press Ctrl-C')) stop();
  });
  const err = new PassThrough().on('data', (c: Buffer) => (stderr += c.toString()));
  const interrupted = new Promise<void>((resolve) => (stop = resolve));
  const code = await main(['--cwd', dir, 'serve', '--port', '0', ...args], {
    stdout: out,
    stderr: err,
    env: {},
    cwd: dir,
    interrupted,
  });
  return { code, stdout, stderr };
}

describe('cms-sync serve: the token without putting it in ps', () => {
  it('takes it from --token-file (its trailing line break is not part of it), and never prints it', async () => {
    const run = await serve(['--token-file', 'token.txt']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Token: the one in token.txt\n');
    expect(run.stdout + run.stderr).not.toContain('file-token_7f3a');
  });

  it('refuses a --token with a line break, saying why', async () => {
    const run = await serve(['--token', 'abc\ndef']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'The --token value contains a line break or another control character, which cannot be sent in an HTTP header: ' +
        'copy the token again, as one line.\n',
    );
  });
});
