import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readDocument } from '../../src/source/read-document.js';
import { readRegularSync, readScratch } from '../../src/source/open-regular.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function files(entries: Record<string, string | Buffer>): Promise<string> {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-open-regular-'));
  for (const [name, bytes] of Object.entries(entries)) await writeFile(path.join(dir, name), bytes);
  return dir;
}

describe('readRegularSync with a scratch buffer', () => {
  it('reads each file whole into one buffer, grown for a file larger than it', async () => {
    const big = Buffer.alloc(200 * 1024, 'b');
    const at = await files({ 'a.md': 'first', 'big.md': big, 'c.md': 'third' });
    const scratch = readScratch();
    const first = readRegularSync(path.join(at, 'a.md'), Infinity, undefined, scratch).bytes!;
    expect(first.toString()).toBe('first');
    const second = readRegularSync(path.join(at, 'big.md'), Infinity, undefined, scratch).bytes!;
    expect(second.equals(big)).toBe(true);
    expect(scratch.buffer.length).toBeGreaterThanOrEqual(big.length);
    const grown = scratch.buffer;
    const third = readRegularSync(path.join(at, 'c.md'), Infinity, undefined, scratch).bytes!;
    expect(third.toString()).toBe('third');
    // The same memory, read over: a caller is done with one file's bytes before it reads the next.
    expect(third.buffer).toBe(grown.buffer);
  });

  it('reads a file over 1 MiB into a buffer of its own, and the scratch stays small', async () => {
    const huge = Buffer.alloc(1024 * 1024 + 1, 'h');
    const at = await files({ 'huge.md': huge });
    const scratch = readScratch();
    const small = scratch.buffer;
    const bytes = readRegularSync(path.join(at, 'huge.md'), Infinity, undefined, scratch).bytes!;
    expect(bytes.equals(huge)).toBe(true);
    expect(bytes.buffer).not.toBe(small.buffer);
    expect(scratch.buffer).toBe(small);
  });
});

describe('readDocument', () => {
  it('gives each file its own text though the bytes of the next overwrite those of the last', async () => {
    const at = await files({
      'one.md': '---\ntitle: One\n---\nThe first body, longer than the second.\n',
      'two.md': '---\ntitle: Two\n---\nSecond.\n',
    });
    const read = (name: string) =>
      readDocument(path.join(at, name), {
        projectDir: at,
        resource: 'article',
        file: `content/articles/${name}`,
      });
    const one = read('one.md');
    const two = read('two.md');
    expect(one).toMatchObject({
      frontMatter: { title: 'One' },
      body: 'The first body, longer than the second.\n',
    });
    expect(two).toMatchObject({ frontMatter: { title: 'Two' }, body: 'Second.\n' });
    expect(String((one as { body: unknown }).body)).toBe('The first body, longer than the second.\n');
  });
});
