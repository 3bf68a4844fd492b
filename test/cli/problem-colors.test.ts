import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

// A test plans more than once: every project it made is removed.
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function plan(tty: boolean): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-colors-'));
  dirs.push(dir);
  await mkdir(path.join(dir, 'content/articles'), { recursive: true });
  await writeFile(path.join(dir, 'content/articles/ok.md'), '---\ntitle: Fine\nmood: calm\n---\nBody\n');
  await writeFile(path.join(dir, 'content/articles/bad.md'), '---\ntitle: [oops\n---\nBody\n');
  let stderr = '';
  const sink = (capture: boolean) =>
    Object.assign(
      new Writable({ write: (chunk, _encoding, done) => ((stderr += capture ? String(chunk) : ''), done()) }),
      { isTTY: tty },
    );
  const io: CliIO = {
    stdout: sink(false),
    stderr: sink(true),
    env: {},
    cwd: dir,
    interrupted: new Promise<void>(() => {}),
  };
  expect(await main(['plan'], io)).toBe(1);
  return stderr;
}

describe('problems on a terminal', () => {
  it('shows errors in red and warnings in yellow, and plain text when stderr is not a terminal', async () => {
    const colored = await plan(true);
    const ESC = '\u001b';
    expect(colored).toContain(`${ESC}[31mcontent/articles/bad.md:2:`);
    expect(colored).toContain(`${ESC}[33mcontent/articles/ok.md:3:1: warning: front matter \`mood\``);
    const plain = await plan(false);
    expect(plain).toContain('content/articles/bad.md:2:');
    expect(plain).not.toContain('\u001b[');
  });
});
