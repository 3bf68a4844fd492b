import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CacheBytes } from '../../src/source/cache-bytes.js';
import { loadCacheLines, stampIsLine } from '../../src/source/hash-cache.js';
import type { Stamp } from '../../src/source/stamp-table.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-cache-bytes-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A small seeded generator: each case is the same on every run. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
  return { next, pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]! };
}

/**
 * Names that sort apart only in some orders: a file beside a folder of its stem, a hyphen, a dot,
 * capitals, non-ASCII letters (é as one or two code points, a CJK name, an emoji's surrogate pair,
 * a character above the surrogates), and names JSON must escape (quote, backslash, a control).
 */
const POOL = [
  'content/articles/a.md',
  'content/articles/a/x.md',
  'content/articles/a-b.md',
  'content/articles/a.b.md',
  'content/articles/A.md',
  'content/articles/2024/01/post.md',
  'content/articles/caf\u00e9.md',
  'content/articles/cafe\u0301.md',
  'content/articles/\u65b0\u95fb.md',
  'content/articles/\u{1f600}.md',
  'content/articles/\uff21.md',
  'content/articles/say "hi".md',
  'content/articles/back\\slash.md',
  'content/articles/tab\there.md',
  'content/images/photo.png',
  'content/images/\u00e9t\u00e9.jpg',
  'content/pages/about.md',
  'notes.md',
  ...Array.from({ length: 40 }, (_, i) => `content/articles/story-${i}.md`),
];

const stampLine = (size: number, time: number, ino: number, sha: string, name: string) =>
  JSON.stringify([size, time, time, ino, sha, name]);

/** A stamp of `size`, `time` and `ino`, of a plain file or not. */
const stampOf = (size: number, time: number, ino: number, isFile = true): Stamp => ({
  isFile: () => isFile,
  size,
  mtimeMs: time,
  ctimeMs: time,
  ino,
});

/**
 * A cache file as runs leave it: the names' lines sorted (a rewrite), then lines appended in any
 * order (a name's new line, a removal, a line cut short by a crash, a line that is not ours).
 */
function cacheText(rng: ReturnType<typeof random>): string {
  const lines: string[] = [];
  const base = POOL.filter(() => rng.next() < 0.6).sort();
  for (const name of base)
    lines.push(stampLine(10, 1_700_000_000_000.123, base.indexOf(name), 'a'.repeat(64), name));
  const appended = Math.floor(rng.next() * 12);
  for (let k = 0; k < appended; k++) {
    const name = rng.pick(POOL);
    const kind = rng.next();
    if (kind < 0.45) lines.push(stampLine(20 + k, 1_700_000_100_000.5, 900 + k, 'b'.repeat(64), name));
    else if (kind < 0.65) lines.push(stampLine(0, 0, 0, '', name));
    else if (kind < 0.75) lines.push(stampLine(30, 1.5, 7, 'c'.repeat(64), name).slice(0, 20));
    else if (kind < 0.8) lines.push('');
    else if (kind < 0.85) lines.push('[1,2,3,4,"sha","bad \\q escape"]');
    else if (kind < 0.9) lines.push('not a line of ours');
    else lines.push(`[1,2,3,4,"sha","${name.replaceAll('"', '')}"`);
  }
  return `{"version":3}${lines.map((line) => `\n${line}`).join('')}`;
}

/** Checks what CacheBytes finds for `names` against what loadCacheLines reads. */
function checkAgainstMap(file: string, names: readonly string[]) {
  const reference = loadCacheLines(file);
  const lookup = CacheBytes.read(file).lookup(names);
  expect({ size: lookup.size, stale: lookup.stale, format: lookup.format }).toEqual({
    size: reference.entries.size,
    stale: reference.stale,
    format: reference.format,
  });
  names.forEach((name, i) => {
    const line = reference.entries.get(name);
    expect(lookup.lineOf(i), name).toBe(line ?? null);
    // The line's own stamp, another, and the same numbers of a file that is not plain.
    const numbers = line === undefined ? [10, 1_700_000_000_000.123, 0] : (JSON.parse(line) as number[]);
    const own = stampOf(numbers[0]!, numbers[1]!, numbers[3] ?? 0);
    const others = [
      own,
      stampOf(numbers[0]! + 1, numbers[1]!, numbers[3] ?? 0),
      stampOf(numbers[0]!, numbers[1]! + 0.001, numbers[3] ?? 0),
      stampOf(numbers[0]!, numbers[1]!, (numbers[3] ?? 0) + 1),
      stampOf(numbers[0]!, numbers[1]!, numbers[3] ?? 0, false),
    ];
    for (const stamp of others) expect(lookup.same(i, stamp), name).toBe(stampIsLine(line, stamp));
  });
  for (const name of [...POOL, 'content/articles/never.md'])
    expect(lookup.lineNamed(name), name).toBe(reference.entries.get(name) ?? null);
}

describe('finding the hash cache lines of listed names in its bytes', () => {
  it('finds what reading the cache into a map finds, through 150 caches runs could leave', async () => {
    const file = path.join(dir, 'file-hashes.json');
    for (let seed = 1; seed <= 150; seed++) {
      const rng = random(seed);
      await writeFile(file, cacheText(rng));
      // Names as a listing gives them (sorted by code unit, some the cache never held), or not sorted.
      const sorted = POOL.filter(() => rng.next() < 0.7);
      sorted.push('content/articles/new.md');
      sorted.sort();
      const names = rng.next() < 0.1 ? [...sorted].reverse() : sorted;
      checkAgainstMap(file, names);
    }
  });

  it('reads an earlier version, an absent, foreign or empty file as loadCacheLines does', async () => {
    const file = path.join(dir, 'file-hashes.json');
    const names = ['content/articles/a.md', 'content/articles/b.md'];
    const line = stampLine(3, 1_700_000_000_000.5, 4, 'd'.repeat(64), names[0]!);
    checkAgainstMap(file, names);
    for (const text of [
      `{"version":2,"files":[\n${line}\n]}\n`,
      '{"version":4}\n' + line,
      '{"version":3}x\n' + line,
      '{"version":3}',
      '',
    ]) {
      await writeFile(file, text);
      checkAgainstMap(file, names);
    }
    await writeFile(file, `{"version":2,"files":[\n${line}\n]}\n`);
    expect(CacheBytes.read(file).lookup(names).format).toBe('v2');
  });

  it('tells the names of its lines in order, removals included, and none of a foreign file', async () => {
    const file = path.join(dir, 'file-hashes.json');
    const lines = [
      stampLine(1, 2, 3, 'e'.repeat(64), 'content/articles/b.md'),
      'cut sh',
      stampLine(0, 0, 0, '', 'content/articles/say "hi".md'),
      stampLine(1, 2, 3, 'e'.repeat(64), 'content/articles/a.md'),
    ];
    await writeFile(file, `{"version":3}\n${lines.join('\n')}`);
    expect([...CacheBytes.read(file).names()]).toEqual([
      'content/articles/b.md',
      'content/articles/say "hi".md',
      'content/articles/a.md',
    ]);
    await writeFile(file, `{"version":2,"files":[\n${lines[0]}\n]}\n`);
    expect([...CacheBytes.read(file).names()]).toEqual([]);
  });
});
