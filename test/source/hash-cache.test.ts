import type { Stats } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HASH_CACHE_FILE, loadCacheLines, openHashCache, RACY_MS } from '../../src/source/hash-cache.js';
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
      text.replace('"version":3', '"version":9'),
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
    // A header, then one JSON array per line, sorted: a tool can read it, and a run need not parse it whole.
    const text = await readFile(path.join(dir, HASH_CACHE_FILE), 'utf8');
    const [header, ...lines] = text.split('\n');
    expect(JSON.parse(header!)).toEqual({ version: 3 });
    const entries = lines.map((line) => JSON.parse(line) as unknown[]);
    expect(entries.map((entry) => entry[5])).toEqual(['content/a.md', 'content/z.md']);
    expect(entries[0]).toEqual([120, old, old, 2, 'sha-a', 'content/a.md']);
  });

  it('adds only the lines that changed, and writes the file anew once most of its lines are stale', async () => {
    const file = path.join(dir, HASH_CACHE_FILE);
    const first = openHashCache(dir, () => NOW);
    for (let i = 0; i < 2000; i++) first.set(`content/f${i}.md`, stat({ ino: i }), `sha-${i}`);
    first.save();
    const before = await readFile(file, 'utf8');
    // One file changed, one gone in a complete scan: two lines added, nothing else written.
    const next = openHashCache(dir, () => NOW);
    for (let i = 1; i < 2000; i++) expect(next.get(`content/f${i}.md`, stat({ ino: i }))).toBe(`sha-${i}`);
    next.set('content/f1.md', stat({ ino: 1, size: 7 }), 'sha-new');
    next.save({ complete: true });
    const text = await readFile(file, 'utf8');
    expect(text.slice(0, before.length)).toBe(before);
    expect(
      text
        .slice(before.length)
        .split('\n')
        .slice(1)
        .map((line) => JSON.parse(line) as unknown[]),
    ).toEqual([
      [7, old, old, 1, 'sha-new', 'content/f1.md'],
      [0, 0, 0, 0, '', 'content/f0.md'],
    ]);
    const after = openHashCache(dir, () => NOW);
    expect(after.get('content/f1.md', stat({ ino: 1, size: 7 }))).toBe('sha-new');
    expect(after.get('content/f1.md', stat({ ino: 1 }))).toBeUndefined();
    expect(after.get('content/f0.md', stat({ ino: 0 }))).toBeUndefined();
    // Every line replaced, round after round: added while at most half the lines are stale, then
    // the file is written anew with one line per file.
    const lines: number[] = [];
    for (const round of [1, 2, 3]) {
      const cache = openHashCache(dir, () => NOW);
      for (let i = 1; i < 2000; i++)
        cache.set(`content/f${i}.md`, stat({ ino: i, size: round }), `sha-${round}`);
      cache.save();
      lines.push((await readFile(file, 'utf8')).split('\n').length - 1);
    }
    expect(lines).toEqual([1999, 3998, 1999]);
    expect(openHashCache(dir, () => NOW).get('content/f5.md', stat({ ino: 5, size: 3 }))).toBe('sha-3');
  });

  it('passes over a line cut short by a crash, and keeps the lines after it', async () => {
    const file = path.join(dir, HASH_CACHE_FILE);
    const cache = openHashCache(dir, () => NOW);
    cache.set('content/a.md', stat({ ino: 1 }), 'sha-a');
    cache.save();
    // An append that died halfway, then the next run's.
    await writeFile(file, (await readFile(file, 'utf8')) + '\n[120,1799997997999,17999979');
    const next = openHashCache(dir, () => NOW);
    next.set('content/b.md', stat({ ino: 2 }), 'sha-b');
    next.save();
    const after = openHashCache(dir, () => NOW);
    expect(after.get('content/a.md', stat({ ino: 1 }))).toBe('sha-a');
    expect(after.get('content/b.md', stat({ ino: 2 }))).toBe('sha-b');
  });

  it('reads a cache of the version before (one JSON document), and writes it anew at the next save', async () => {
    const file = path.join(dir, HASH_CACHE_FILE);
    const line = (ino: number, sha: string, name: string) => JSON.stringify([120, old, old, ino, sha, name]);
    await writeFile(
      file,
      `{"version":2,"files":[\n${line(1, 'sha-a', 'content/a.md')},\n${line(2, 'sha-b', 'content/b.md')}\n]}\n`,
    );
    const cache = openHashCache(dir, () => NOW);
    expect(cache.get('content/a.md', stat({ ino: 1 }))).toBe('sha-a');
    cache.set('content/c.md', stat({ ino: 3 }), 'sha-c');
    cache.save();
    expect((await readFile(file, 'utf8')).startsWith('{"version":3}\n')).toBe(true);
    const next = openHashCache(dir, () => NOW);
    expect(next.get('content/b.md', stat({ ino: 2 }))).toBe('sha-b');
    expect(next.get('content/c.md', stat({ ino: 3 }))).toBe('sha-c');
  });

  it('with appends, goes on in memory where it cannot write (a read-only checkout)', async () => {
    // A state folder that is a file: nothing can be written under it.
    const blocked = path.join(dir, 'not-a-folder');
    await writeFile(blocked, '');
    const cache = openHashCache(blocked, () => NOW, { appends: true });
    for (let i = 0; i < 5000; i++) cache.set(`content/f${i}.md`, stat({ ino: i }), `sha-${i}`);
    cache.save({ complete: true });
    expect(cache.get('content/f4999.md', stat({ ino: 4999 }))).toBe('sha-4999');
    expect(cache.hashed).toBe(5000);
  });

  it('with appends, writes lines as it goes instead of holding them all until the save', async () => {
    const file = path.join(dir, HASH_CACHE_FILE);
    const cache = openHashCache(dir, () => NOW, { appends: true });
    for (let i = 0; i < 3000; i++) cache.set(`content/f${i}.md`, stat({ ino: i }), `sha-${i}`);
    // Before the save, most lines are in the file already.
    expect((await readFile(file, 'utf8')).split('\n').length).toBeGreaterThan(2000);
    cache.save({ complete: true });
    const next = openHashCache(dir, () => NOW);
    for (const i of [0, 1500, 2999]) expect(next.get(`content/f${i}.md`, stat({ ino: i }))).toBe(`sha-${i}`);
    expect((await readFile(file, 'utf8')).split('\n')).toHaveLength(3001);
  });

  it('with appends, a complete save keeps every line the run made and forgets held files not seen', () => {
    const first = openHashCache(dir, () => NOW);
    first.set('content/kept.md', stat({ ino: 1 }), 'sha-kept');
    first.set('content/gone.md', stat({ ino: 2 }), 'sha-gone');
    first.save();
    // More new files than are held before a write: most of their lines are written, then let go.
    const cache = openHashCache(dir, () => NOW, { appends: true });
    expect(cache.get('content/kept.md', stat({ ino: 1 }))).toBe('sha-kept');
    for (let i = 0; i < 2500; i++) cache.set(`content/n${i}.md`, stat({ ino: 10 + i }), `sha-${i}`);
    cache.save({ complete: true });
    const next = openHashCache(dir, () => NOW);
    expect(next.get('content/kept.md', stat({ ino: 1 }))).toBe('sha-kept');
    expect(next.get('content/gone.md', stat({ ino: 2 }))).toBeUndefined();
    for (const i of [0, 1023, 1024, 2499])
      expect(next.get(`content/n${i}.md`, stat({ ino: 10 + i }))).toBe(`sha-${i}`);
  });

  it('answers from an excerpt another thread read, and reads the file only for a file outside it', async () => {
    const first = openHashCache(dir, () => NOW);
    for (const f of ['a', 'b', 'c']) first.set(`content/${f}.md`, stat({ ino: f.charCodeAt(0) }), `sha-${f}`);
    first.save();
    const file = path.join(dir, HASH_CACHE_FILE);
    const lines = loadCacheLines(file).entries;

    const cache = openHashCache(dir, () => NOW);
    cache.useExcerpt({
      lines: new Map([
        ['content/a.md', lines.get('content/a.md')!],
        ['content/z.md', null],
      ]),
      size: 3,
      stale: 0,
      format: 'lines',
    });
    // The file is not read for what the excerpt covers: were it, it would now read as empty.
    const text = await readFile(file, 'utf8');
    await writeFile(file, 'not a cache');
    expect(cache.get('content/a.md', stat({ ino: 97 }))).toBe('sha-a');
    expect(cache.get('content/z.md', stat())).toBeUndefined();
    cache.set('content/z.md', stat({ ino: 122 }), 'sha-z');
    // A file outside it: the file is read after all, and what this run set stands above it.
    await writeFile(file, text);
    expect(cache.get('content/b.md', stat({ ino: 98 }))).toBe('sha-b');
    expect(cache.get('content/z.md', stat({ ino: 122 }))).toBe('sha-z');
    cache.useExcerpt({ lines: new Map(), size: 0, stale: 0, format: 'none' });
    expect(cache.get('content/c.md', stat({ ino: 99 }))).toBe('sha-c');
    cache.save();

    const next = openHashCache(dir, () => NOW);
    for (const f of ['a', 'b', 'c', 'z'])
      expect(next.get(`content/${f}.md`, stat({ ino: f.charCodeAt(0) }))).toBe(`sha-${f}`);
  });

  it('with an excerpt, adds its new lines to the file without reading it', async () => {
    const first = openHashCache(dir, () => NOW);
    first.set('content/a.md', stat(), 'sha-a');
    first.save();
    const file = path.join(dir, HASH_CACHE_FILE);
    const before = await readFile(file, 'utf8');
    const cache = openHashCache(dir, () => NOW);
    cache.useExcerpt({ lines: new Map([['content/n.md', null]]), size: 1, stale: 0, format: 'lines' });
    cache.set('content/n.md', stat({ ino: 7 }), 'sha-n');
    cache.save();
    const after = await readFile(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length).split('\n')).toHaveLength(2);
    const next = openHashCache(dir, () => NOW);
    expect(next.get('content/a.md', stat())).toBe('sha-a');
    expect(next.get('content/n.md', stat({ ino: 7 }))).toBe('sha-n');
  });

  it('reads the cache as the file says, line by line: a later line replaces or forgets an earlier one', async () => {
    const cache = openHashCache(dir, () => NOW, { appends: true });
    // Names out of ASCII, and lines appended later that replace or remove earlier ones.
    const name = (i: number) => `content/articles/${i % 7 === 0 ? 'été-日本' : 'plain'}-${i}.md`;
    for (let i = 0; i < 3000; i++) cache.set(name(i), stat({ ino: i }), `sha-${i}`);
    cache.save();
    cache.set(name(10), stat({ ino: 10_000 }), 'sha-again');
    cache.save();
    const file = path.join(dir, HASH_CACHE_FILE);
    // A line that forgets a file (an empty sha256), as a complete save writes for a file gone.
    await writeFile(file, `${await readFile(file, 'utf8')}\n[0,0,0,0,"","${name(20)}"]`);

    const { entries, format, stale } = loadCacheLines(file);
    expect(format).toBe('lines');
    // As the file says, line by line, in one piece.
    const text = await readFile(file, 'utf8');
    const expected = new Map<string, string>();
    for (const line of text.split('\n').slice(1)) {
      const parsed = JSON.parse(line) as [number, number, number, number, string, string];
      if (parsed[4] === '') expected.delete(parsed[5]);
      else expected.set(parsed[5], line);
    }
    expect(entries).toEqual(expected);
    expect(entries.size).toBe(2999);
    expect(expected.has(name(20))).toBe(false);
    // name(10)'s first line, and name(20)'s line and the line that forgets it.
    expect(stale).toBe(3);
  });
});
