import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../e2e/harness.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Runs the CLI with its stdout closed by the reader before anything is written (`| head -0`). */
function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('the cms-sync process', () => {
  it('ends quietly when the reader of its output goes away (cms-sync plan --help | head -3)', async () => {
    for (let i = 0; i < 3; i += 1) {
      const result = await runWithClosedStdout(['plan', '--help']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    }
  }, 60_000);

  it('says so, and exits 1, when the command can never finish (a config that never resolves)', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-drain-'));
    await writeFile(path.join(dir, 'sync.config.mjs'), 'export default new Promise(() => {});\n');
    const result = await runCli(['--cwd', dir, 'plan'], {
      PATH: process.env.PATH,
      CMS_SYNC_CONFIG_TIMEOUT_MS: '1500',
    });
    expect(result.code).toBe(1);
    // The config loader's own timeout names the file; main's guard for a drained event loop is
    // the fallback for anything else left waiting on nothing.
    expect(result.stderr).toContain(
      'sync.config.mjs did not finish loading within 1.5 s: its default export, or something it awaits, is a promise ' +
        'that has not settled.',
    );
  }, 60_000);
});
