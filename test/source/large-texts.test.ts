import { Hash } from 'node:crypto';
import { closeSync, openSync, type Stats } from 'node:fs';
import { mkdir, open, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { digest, listedDigest } from '../../src/digest.js';
import { FOLDER_CACHE_FILE } from '../../src/source/folder-cache.js';
import { HASH_CACHE_FILE, openHashCache } from '../../src/source/hash-cache.js';
import { scanContent } from '../../src/source/scan-content.js';
import {
  columnsOf,
  listingCacheFile,
  loadListingCache,
  rowOf,
  saveListingCache,
  type CachedRecord,
  type ListingCache,
} from '../../src/remote/listing-cache.js';
import { JsonPieces, jsonParts } from '../../src/json-parts.js';
import { evenPieces } from '../../src/text-pieces.js';
import { writeText, writeTextSync, type TextParts } from '../../src/write-text.js';
import { makeProject } from './helpers.js';

// Texts that grow with the archive (every file's name, every file's hash) are handed to Node a
// few KiB at a time. Node encodes a string it writes or hashes into one malloc'd buffer; freeing
// one larger than glibc's mmap threshold raises the malloc thresholds for the rest of the process,
// and every thread's arena then keeps that much more memory (README, "Memory of a cold apply").

/**
 * The pieces writeTextSync encodes, in bytes, seen through TextEncoder's prototype (a module mock
 * of node:fs would not reach a module another test file already loaded in the same worker).
 */
let pieces: number[] = [];
beforeEach(() => {
  pieces = [];
  const encodeInto = TextEncoder.prototype.encodeInto;
  vi.spyOn(TextEncoder.prototype, 'encodeInto').mockImplementation(function (
    this: InstanceType<typeof TextEncoder>,
    text: string,
    into: Uint8Array,
  ) {
    const result = encodeInto.call(this, text, into);
    pieces.push(result.written);
    return result;
  });
});

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const PIECE = 64 * 1024;

describe('writeTextSync and writeText', () => {
  const writers: Array<[string, (file: string, text: TextParts) => Promise<number>]> = [
    [
      'writeTextSync',
      async (file, text) => {
        const fd = openSync(file, 'w');
        try {
          return writeTextSync(fd, text);
        } finally {
          closeSync(fd);
        }
      },
    ],
    [
      'writeText',
      async (file, text) => {
        const handle = await open(file, 'w');
        try {
          return await writeText(handle, text);
        } finally {
          await handle.close();
        }
      },
    ],
  ];

  it.each(writers)(
    '%s writes the UTF-8 of the text, a piece at a time, never cutting a character',
    async (name, write) => {
      const dir = await realpath(tmpdir());
      const file = path.join(dir, `${name}-${process.pid}-${Date.now()}.txt`);
      cleanups.push(() => rm(file, { force: true }));
      // Characters of 1 to 4 bytes, placed so that some straddle the pieces' ends, and lone surrogates.
      const parts = ['a', 'é', '日', '🎉', '\ud800', '\udc00x'];
      const text = Array.from({ length: 90_000 }, (_, i) => parts[(i * 7) % parts.length]).join('');
      for (const t of [text, '', 'plain', 'x'.repeat(PIECE - 1) + '🎉' + 'y'.repeat(10)]) {
        const bytes = await write(file, t);
        const written = await readFile(file);
        expect(written.equals(Buffer.from(t, 'utf8'))).toBe(true);
        expect(bytes).toBe(written.length);
      }
      expect(pieces.length).toBeGreaterThan(3);
      expect(Math.max(...pieces)).toBeLessThanOrEqual(PIECE);
    },
  );

  it.each(writers)('%s writes a text given in parts as the parts joined', async (name, write) => {
    const dir = await realpath(tmpdir());
    const file = path.join(dir, `${name}-parts-${process.pid}-${Date.now()}.txt`);
    cleanups.push(() => rm(file, { force: true }));
    // Parts of every size, whose characters do not fit what is left of the buffer at many places:
    // small ones packed together, one longer than the buffer, empty ones.
    const kinds = ['a', 'é', '日本', '🎉', '', 'x'.repeat(PIECE + 5), '日'.repeat(1000)];
    const parts = Array.from({ length: 3_000 }, (_, i) => kinds[(i * 5) % kinds.length]!.repeat(1 + (i % 4)));
    const text = parts.join('');
    const bytes = await write(file, parts);
    const written = await readFile(file);
    expect(written.equals(Buffer.from(text, 'utf8'))).toBe(true);
    expect(bytes).toBe(written.length);
    expect(await write(file, [])).toBe(0);
    expect((await readFile(file)).length).toBe(0);
  });
});

describe('the caches of every file', () => {
  it('hash cache: written a piece at a time, read back whole', async () => {
    const made = await makeProject({});
    cleanups.push(made.cleanup);
    const now = 1_800_000_000_000;
    const stat = (i: number) =>
      ({ size: i, mtimeMs: now - 60_000, ctimeMs: now - 60_000, ino: i, isFile: () => true }) as Stats;
    const names = Array.from({ length: 5_000 }, (_, i) => `content/articles/a-long-enough-name-${i}.md`);
    const first = openHashCache(made.dir, () => now);
    for (const [i, name] of names.entries()) first.set(name, stat(i), `sha-${i}`);
    first.save({ complete: true });
    // Every byte of the file went through pieces of at most 64 KiB.
    const written = await readFile(path.join(made.dir, HASH_CACHE_FILE));
    expect(pieces.length).toBeGreaterThan(3);
    expect(Math.max(...pieces)).toBeLessThanOrEqual(PIECE);
    expect(pieces.reduce((a, b) => a + b, 0)).toBe(written.length);
    const next = openHashCache(made.dir, () => now);
    for (const [i, name] of names.entries()) expect(next.get(name, stat(i))).toBe(`sha-${i}`);
  });

  it('folder cache: written a piece at a time, reused by the next scan', async () => {
    const made = await makeProject({});
    cleanups.push(made.cleanup);
    const dir = await realpath(made.dir);
    const folder = path.join(dir, 'content', 'articles');
    await mkdir(folder, { recursive: true });
    const count = 2_000; // names of ~50 characters: about 100,000 characters in all
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        writeFile(path.join(folder, `an-article-with-a-rather-long-name-${i}.md`), '# A\n'),
      ),
    );
    const scan = () =>
      scanContent({
        projectDir: dir,
        contentDir: path.join(dir, 'content'),
        folderCache: {
          file: path.join(dir, '.cms-sync', FOLDER_CACHE_FILE),
          save: true,
          now: () => Date.now() + 10_000,
        },
      });
    const first = await scan();
    expect(first.folders).toEqual({ reused: 0, read: 2 });
    const written = await readFile(path.join(dir, '.cms-sync', FOLDER_CACHE_FILE));
    expect(pieces.length).toBeGreaterThan(1);
    expect(Math.max(...pieces)).toBeLessThanOrEqual(PIECE);
    expect(pieces.reduce((a, b) => a + b, 0)).toBe(written.length);
    const again = await scan();
    expect(again.folders).toEqual({ reused: 2, read: 0 });
    expect(again.documents.map((d) => d.file)).toEqual(first.documents.map((d) => d.file));
  });
});

describe('the listing cache', () => {
  it('is written a piece at a time and read back whole', async () => {
    const made = await makeProject({});
    cleanups.push(made.cleanup);
    const file = listingCacheFile(made.dir, 'https://cms.example.com');
    const marker = (i: number) => new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString();
    const rows: CachedRecord[] = Array.from({ length: 5_000 }, (_, i) => [i + 1, `a-story-${i}`, marker(i)]);
    const cache: ListingCache = {
      version: 3,
      target: 'https://cms.example.com',
      lineage: 'L1',
      resources: {
        article: { fields: ['id', 'slug', 'updated_at'], fullAt: 0, runs: 0, records: columnsOf(rows) },
      },
    };
    // Every JSON text made on the way is small: the cache is never one string.
    const stringify = JSON.stringify;
    const texts: number[] = [];
    const spy = vi.spyOn(JSON, 'stringify').mockImplementation((...args: Parameters<typeof stringify>) => {
      const text = stringify(...args);
      texts.push(text?.length ?? 0);
      return text;
    });
    await saveListingCache(file, cache);
    spy.mockRestore();
    expect(texts.length).toBeGreaterThan(1);
    expect(Math.max(...texts)).toBeLessThan(32 * 1024);
    const written = await readFile(file);
    expect(written.toString('utf8')).toBe(JSON.stringify(cache));
    expect(written.length).toBeGreaterThan(200_000);
    expect(pieces.length).toBeGreaterThan(2);
    expect(Math.max(...pieces)).toBeLessThanOrEqual(PIECE);
    expect(pieces.reduce((a, b) => a + b, 0)).toBe(written.length);
    const back = (await loadListingCache(file, 'https://cms.example.com', 'L1')).resources.article!.records;
    expect(back.ids).toEqual(rows.map((r) => r[0]));
    expect(rows.every((r, i) => rowOf(back, i)[1] === r[1] && rowOf(back, i)[2] === r[2])).toBe(true);
  });
});

describe('listedDigest', () => {
  const sameAsJoined = (names: string[]) => expect(listedDigest(names)).toBe(digest(names.join('\n')));

  it('is the digest of the names joined by newlines, whatever the names hold', () => {
    sameAsJoined([]);
    sameAsJoined(['']);
    sameAsJoined(['articles/a.md']);
    sameAsJoined([
      'a "quoted" name.md',
      'back\\slash.md',
      'tab\there.md',
      'line\nbreak.md',
      '\u0001\u001f.md',
    ]);
    sameAsJoined([
      'café/naïve.md',
      '日本語/記事.md',
      'emoji 🎉.md',
      'lone \ud800 high.md',
      'lone \udc00 low.md',
    ]);
    sameAsJoined(['ends high \ud83c', '\udf89 starts low']);
  });

  it('is the same across the pieces it is hashed in', () => {
    sameAsJoined(Array.from({ length: 5000 }, (_, i) => `articles/${i % 7 ? 'plain' : 'qu"ote\\é'}-${i}.md`));
    // One name longer than a piece, and names that end a piece exactly.
    sameAsJoined(['x'.repeat(40_000), 'y']);
    for (let n = 16_380; n < 16_390; n++) sameAsJoined(['a'.repeat(n), 'b', 'c']);
  });

  it('hands the hash the listing a few KiB at a time', () => {
    const update = vi.spyOn(Hash.prototype, 'update');
    try {
      const names = Array.from({ length: 100_000 }, (_, i) => `articles/a-long-enough-file-name-${i}.md`);
      const value = listedDigest(names);
      const pieces = update.mock.calls.map(([data]) => (data as string).length);
      expect(pieces.length).toBeGreaterThan(100);
      expect(Math.max(...pieces)).toBeLessThan(32 * 1024);
      expect(value).toBe(digest(names.join('\n')));
    } finally {
      update.mockRestore();
    }
  });
});

describe('jsonParts', () => {
  const joined = (value: unknown) => [...jsonParts(value)].join('');

  it('is the text of JSON.stringify, with each streamed value in its place', () => {
    const odd = [
      'quote "',
      'back\\slash',
      'line\nbreak',
      '\u0000\u001f',
      '\u2028',
      '🎉',
      'lone \ud800',
      '\udc00',
    ];
    const values: unknown[] = [
      { a: 1, list: odd, b: [null, true, { c: 'd' }], e: undefined },
      [],
      odd,
      'plain',
      7,
      null,
      { nested: { deeper: [odd, { x: odd }] } },
    ];
    for (const value of values) {
      expect(joined(value)).toBe(JSON.stringify(value));
      // The same value with every array of plain values streamed as a list, and with every string
      // streamed as a text.
      const plain = (item: unknown) => item === null || typeof item !== 'object';
      const lists = JSON.parse(JSON.stringify(value), (_key, item: unknown) =>
        Array.isArray(item) && item.every(plain) ? JsonPieces.list(item) : item,
      ) as unknown;
      expect(joined(lists)).toBe(JSON.stringify(value));
      const texts = JSON.parse(JSON.stringify(value), (_key, item: unknown) =>
        typeof item === 'string' ? JsonPieces.text(() => [item.slice(0, 3), item.slice(3)]) : item,
      ) as unknown;
      expect(joined(texts)).toBe(JSON.stringify(value));
    }
    expect(joined({ a: JsonPieces.list([]), b: JsonPieces.text(() => []) })).toBe('{"a":[],"b":""}');
    // A list's items are stringified as JSON.stringify would in an array.
    expect(joined(JsonPieces.list([undefined, () => 1, 'x']))).toBe('[null,null,"x"]');
    expect(joined(JsonPieces.list([JsonPieces.list([1, 2]), JsonPieces.text(() => ['a', 'b'])]))).toBe(
      '[[1,2],"ab"]',
    );
  });

  it('gives a long list or text in parts of about 16 K characters, read back as the value', () => {
    const keys = Array.from({ length: 50_000 }, (_, i) => `article/a-story-${i}-🎉-"q"`);
    const text = keys.join('\n');
    const value = {
      users: JsonPieces.list(keys),
      column: JsonPieces.text(() => text.match(/[^]{1,999}/gu)!),
    };
    const parts = [...jsonParts(value)];
    expect(parts.length).toBeGreaterThan(100);
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThan(20 * 1024);
    expect(JSON.parse(parts.join(''))).toEqual({ users: keys, column: text });
    // A surrogate pair cut between two pieces of a text is read back whole.
    const cut = [...jsonParts(JsonPieces.text(() => ['a\ud83c', '\udf89b']))].join('');
    expect(JSON.parse(cut)).toBe('a🎉b');
  });
});

describe('evenPieces', () => {
  it('gives the parts joined in pieces of one size, a surrogate pair never cut', () => {
    const parts = ['', 'ab', '🎉'.repeat(10), 'c', 'x'.repeat(25), '', 'é🎉', 'end'];
    for (const size of [2, 3, 7, 16, 1000]) {
      const pieces = [...evenPieces(parts, size)];
      expect(pieces.join('')).toBe(parts.join(''));
      for (const [i, piece] of pieces.entries()) {
        expect(piece.length).toBeLessThanOrEqual(size);
        // Only the last piece is short, or one that stopped before a pair, which starts the next.
        if (i < pieces.length - 1 && piece.length < size)
          expect(pieces[i + 1]!.charCodeAt(0) & 0xfc00).toBe(0xd800);
        expect(piece.charCodeAt(piece.length - 1) & 0xfc00).not.toBe(0xd800);
      }
    }
    expect([...evenPieces([], 4)]).toEqual([]);
    expect([...evenPieces(['', ''], 4)]).toEqual([]);
  });
});
