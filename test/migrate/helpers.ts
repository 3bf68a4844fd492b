import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/migrate/', import.meta.url));

/** A written file's Markdown: what follows its front matter, without the blank line after it. */
export function bodyOf(text: string): string {
  return text.slice(text.indexOf('\n---\n', 4) + 5).replace(/^\n/, '');
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in this process, in `dir`, with no CMS configured. */
export async function runInProcess(dir: string, args: string[]): Promise<Run> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  const code = await main(['--cwd', dir, ...args], {
    stdout,
    stderr,
    env: { PATH: process.env.PATH },
    cwd: dir,
    interrupted: new Promise(() => {}),
  });
  return { code, stdout: out, stderr: err };
}

/** A temp project holding a fixture export, its `{{MEDIA}}` replaced by `media`. */
export async function projectWith(
  fixture: string,
  name: string,
  media = 'http://media.test',
): Promise<{ dir: string; read: (file: string) => Promise<string>; close: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-migrate-'));
  const text = await readFile(path.join(FIXTURES, fixture), 'utf8');
  await writeFile(path.join(dir, name), text.replaceAll('{{MEDIA}}', media));
  return {
    dir,
    read: (file) => readFile(path.join(dir, file), 'utf8'),
    close: () => rm(dir, { recursive: true, force: true }),
  };
}
