import type { Stats } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HASH_CACHE_FILE, openHashCache, RACY_MS } from '../../src/source/hash-cache.js';
import { makeProject } from './helpers.js';

const NOW = 1_800_000_000_000;
const old = NOW - RACY_MS - 1;

function stat(over: Partial<Pick<Stats, 'size' | 'mtimeMs' | 'ctimeMs' | 'ino'>> = {}, isFile = true): Stats {
  return { size: 120, mtimeMs: old, ctimeMs: old, ino: 42, isFile: () => isFile, ...over } as Stats;
}

// The cache lives in a project's state folder; an empty project stands for it.
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeProject({}));
});
afterEach(() => cleanup());

describe('the hash cache: a file whose stat is unchanged need not be read again', () => {
  it('vouches for a file across runs only while size, mtime, ctime and inode all match', () => {
    const first = openHashCache(dir, () => NOW);
    expect(first.get('content/a.md', stat())).toBeUndefined();
    first.set('content/a.md', stat(), 'sha-a');
    expect(first.hashed).toBe(1);
    first.save();

    const next = openHashCache(dir, () => NOW);
    expect(next.get('content/a.md', stat())).toBe('sha-a');
    expect(next.hashed).toBe(0);
    // Any one of them changed is a miss: an edit of the same size, a restored mtime (touch -d,
    // rsync -t: ctime still moves), a file replaced by another (new inode).
    expect(next.get('content/a.md', stat({ size: 121 }))).toBeUndefined();
    expect(next.get('content/a.md', stat({ mtimeMs: old + 1 }))).toBeUndefined();
    expect(next.get('content/a.md', stat({ ctimeMs: old + 0.5 }))).toBeUndefined();
    expect(next.get('content/a.md', stat({ ino: 43 }))).toBeUndefined();
    expect(next.get('content/b.md', stat())).toBeUndefined();
  });

  it('does not trust the stat of a file changed within the last two seconds (racily clean)', () => {
    const cache = openHashCache(dir, () => NOW);
    cache.set('content/fresh.md', stat({ mtimeMs: NOW - 500, ctimeMs: NOW - 500 }), 'sha-1');
    // A second save within the same timestamp tick could keep these very times with other bytes.
    expect(cache.get('content/fresh.md', stat({ mtimeMs: NOW - 500, ctimeMs: NOW - 500 }))).toBeUndefined();
    // ctime alone is enough to distrust it (mtime can be set back, ctime cannot).
    cache.set('content/touched.md', stat({ ctimeMs: NOW - 10 }), 'sha-2');
    expect(cache.get('content/touched.md', stat({ ctimeMs: NOW - 10 }))).toBeUndefined();
    // And a file recorded earlier that is now fresh is forgotten, not kept with its old hash.
    cache.set('content/a.md', stat(), 'sha-a');
    cache.set('content/a.md', stat({ mtimeMs: NOW, ctimeMs: NOW }), 'sha-b');
    expect(cache.get('content/a.md', stat())).toBeUndefined();
  });

  it('forgets files not seen in a complete scan, and keeps them after a partial one (--only)', () => {
    const first = openHashCache(dir, () => NOW);
    first.set('content/a.md', stat(), 'sha-a');
    first.set('content/b.md', stat({ ino: 7 }), 'sha-b');
    first.save();

    const partial = openHashCache(dir, () => NOW);
    expect(partial.get('content/a.md', stat())).toBe('sha-a');
    partial.save({ complete: false });
    expect(openHashCache(dir, () => NOW).get('content/b.md', stat({ ino: 7 }))).toBe('sha-b');

    const complete = openHashCache(dir, () => NOW);
    expect(complete.get('content/a.md', stat())).toBe('sha-a');
    complete.save({ complete: true });
    expect(openHashCache(dir, () => NOW).get('content/b.md', stat({ ino: 7 }))).toBeUndefined();
  });

  it('treats a damaged or foreign cache file as empty: the files are read, nothing fails', async () => {
    const cacheFile = path.join(dir, HASH_CACHE_FILE);
    const good = openHashCache(dir, () => NOW);
    good.set('content/a.md', stat(), 'sha-a');
    good.save();
    const text = await readFile(cacheFile, 'utf8');
    expect(openHashCache(dir, () => NOW).get('content/a.md', stat())).toBe('sha-a');
    // Cut short, of another version (an earlier one was an object by name), or a line that is not an entry.
    for (const damaged of [
      text.slice(0, -4),
      text.replace('"version":2', '"version":9'),
      JSON.stringify({ version: 1, files: { 'content/a.md': [120, old, old, 42, 'sha-a'] } }),
      text.replace('"content/a.md"]', '"content/a.md"'),
      text.replace('[', '[\n["x"],\n'),
    ]) {
      await writeFile(cacheFile, damaged);
      expect(openHashCache(dir, () => NOW).get('content/a.md', stat())).toBeUndefined();
    }
  });

  it('keeps files whose names JSON escapes', () => {
    const names = [
      'content/a "quoted", name.md',
      'content/back\\slash.md',
      'content/été.md',
      'content/tab\t.md',
    ];
    const first = openHashCache(dir, () => NOW);
    names.forEach((name, i) => first.set(name, stat({ ino: i }), `sha-${i}`));
    first.save();
    const next = openHashCache(dir, () => NOW);
    expect(names.map((name, i) => next.get(name, stat({ ino: i })))).toEqual([
      'sha-0',
      'sha-1',
      'sha-2',
      'sha-3',
    ]);
  });

  it('writes nothing when nothing changed, and a sorted file when something did', async () => {
    const cache = openHashCache(dir, () => NOW);
    cache.save();
    await expect(readFile(path.join(dir, HASH_CACHE_FILE))).rejects.toThrow(/ENOENT/);
    cache.set('content/z.md', stat({ ino: 1 }), 'sha-z');
    cache.set('content/a.md', stat({ ino: 2 }), 'sha-a');
    cache.save();
    // Plain JSON, one file per line, sorted: a tool can read it, and a run need not parse it whole.
    const text = await readFile(path.join(dir, HASH_CACHE_FILE), 'utf8');
    const saved = JSON.parse(text) as { version: number; files: unknown[][] };
    expect(saved.version).toBe(2);
    expect(saved.files.map((entry) => entry[5])).toEqual(['content/a.md', 'content/z.md']);
    expect(saved.files[0]).toEqual([120, old, old, 2, 'sha-a', 'content/a.md']);
    expect(text.split('\n')).toHaveLength(5);
  });
});
