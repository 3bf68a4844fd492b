import { statSync } from 'node:fs';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HASH_CACHE_FILE, loadCacheLines, openHashCache } from '../../src/source/hash-cache.js';
import type { UntouchedFiles } from '../../src/source/scan-content.js';
import { makeProject } from './helpers.js';

// A worker thread runs compiled JavaScript: statting on two threads is tested as built.
const { statOnTwoThreads } = (await import(
  new URL('../../dist/source/stat-many.js', import.meta.url).href
)) as typeof import('../../src/source/stat-many.js');
const { scanContent } = (await import(
  new URL('../../dist/source/scan-content.js', import.meta.url).href
)) as typeof import('../../src/source/scan-content.js');

/** Enough documents that each thread claims several chunks of them. */
const MANY = 1000;
/** Where the documents of the project at `dir` are (`skip`: those not to stat). */
const where = (dir: string, skip: number[] = []) => ({
  contentDir: path.join(dir, 'content'),
  prefixLength: 'content/'.length,
  sep: path.sep,
  skip,
});
/** Where the worker finds the documents to stat before it is asked. */
const ahead = (dir: string) => ({ contentDir: path.join(dir, 'content'), prefix: 'content/', sep: path.sep });
const name = (i: number) => `content/articles/doc-${String(i).padStart(4, '0')}.md`;

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** A project of MANY documents and an image, each in the hash cache as it is now. */
async function project() {
  const files: Record<string, string> = { 'content/images/x.png': 'png' };
  for (let i = 0; i < MANY; i++) files[name(i)] = `---\ntitle: Doc ${i}\n---\nBody ${i}\n`;
  const made = await makeProject(files);
  cleanup = made.cleanup;
  const stateDir = path.join(made.dir, '.cms-sync');
  // A clock well after the files were made: none of them is too recent to be vouched for.
  const cache = openHashCache(stateDir, () => Date.now() + 60_000);
  for (const file of [...Object.keys(files)])
    cache.set(file, statSync(path.join(made.dir, file)), `sha-${file}`);
  cache.save();
  return { ...made, stateDir, cacheFile: path.join(stateDir, HASH_CACHE_FILE), names: Object.keys(files) };
}

describe('statting documents on two threads', () => {
  /**
   * Stats the project's documents on two threads, asking the worker `after` ms after it is started,
   * checks every stamp and comparison, and tells how many the worker had taken before it was asked.
   */
  async function statAndCheck(dir: string, cacheFile: string, after: number): Promise<number | undefined> {
    const names = Array.from({ length: MANY }, (_, i) => name(i));
    names.push('content/articles/new.md', 'content/articles/refused.md');
    const paths = names.map((n) => (n.endsWith('refused.md') ? '' : path.join(dir, n)));
    const lines = loadCacheLines(cacheFile).entries;

    const twice = statOnTwoThreads(cacheFile, ahead(dir), Infinity);
    if (after > 0) await new Promise((resolve) => setTimeout(resolve, after));
    twice.stat(names, where(dir, [names.length - 1]), [
      name(30),
      'content/images/x.png',
      'content/images/gone.png',
    ]);
    const statted = await twice.finish();

    const changed = new Set([name(10), name(20), 'content/articles/new.md', 'content/articles/refused.md']);
    expect(statted.same).toBeDefined();
    for (let i = 0; i < names.length; i++) {
      expect(statted.same![i], names[i]).toBe(changed.has(names[i]!) ? 0 : 1);
      const stamp = statted.stampOf(i);
      const real = paths[i] === '' ? undefined : statSync(paths[i]!, { throwIfNoEntry: false });
      expect(stamp.isFile(), names[i]).toBe(real?.isFile() ?? false);
      if (real)
        expect([stamp.size, stamp.mtimeMs, stamp.ctimeMs, stamp.ino]).toEqual([
          real.size,
          real.mtimeMs,
          real.ctimeMs,
          real.ino,
        ]);
    }
    // The cache's lines of what this thread will read, and of the files asked for: no more.
    expect(statted.excerpt).toBeDefined();
    expect(Object.fromEntries(statted.excerpt!.lines)).toEqual({
      [name(10)]: lines.get(name(10)),
      [name(20)]: lines.get(name(20)),
      'content/articles/new.md': null,
      'content/articles/refused.md': null,
      [name(30)]: lines.get(name(30)),
      'content/images/x.png': lines.get('content/images/x.png'),
      'content/images/gone.png': null,
    });
    expect(statted.excerpt).toMatchObject({ size: MANY + 1, stale: 0, format: 'lines' });
    return statted.ahead;
  }

  /** One document edited (another size), one deleted, one new (not in the cache). */
  async function changeSome(dir: string) {
    await writeFile(path.join(dir, name(10)), 'edited, and longer than it was\n');
    await rm(path.join(dir, name(20)));
    await writeFile(path.join(dir, 'content/articles/new.md'), 'new\n');
  }

  it('stamps every path, and finds as unchanged exactly those whose stamp is the cache’s', async () => {
    const { dir, cacheFile } = await project();
    await changeSome(dir);
    await statAndCheck(dir, cacheFile, 0);
  });

  it('finds the same with the stamps the worker took before it was asked', async () => {
    const { dir, cacheFile } = await project();
    await changeSome(dir);
    // Every document the cache names and that is still there: the new one is statted when asked.
    const present = MANY - 1;
    // Asked ever later, until the worker has had the time to stat them all.
    let ahead: number | undefined;
    for (let after = 100; after <= 3200 && ahead !== present; after *= 2)
      ahead = await statAndCheck(dir, cacheFile, after);
    expect(ahead).toBe(present);
  });

  it('tells of a document changed since the last run, as soon as a stamp shows it', async () => {
    const { dir, cacheFile } = await project();
    const names = Array.from({ length: MANY }, (_, i) => name(i));
    const calls = async (after: number, lastRun: number) => {
      const twice = statOnTwoThreads(cacheFile, ahead(dir), lastRun);
      await new Promise((resolve) => setTimeout(resolve, after));
      twice.stat(names, where(dir), []);
      let told = 0;
      const statted = await twice.finish(() => told++);
      return { told, ahead: statted.ahead, seen: twice.changeSeen() };
    };
    const before = Date.now() + 1;
    // Nothing changed since the last run: never told.
    expect(await calls(0, before)).toMatchObject({ told: 0, seen: false });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await writeFile(path.join(dir, name(700)), '---\ntitle: Edited\n---\n');
    // Once the worker has statted every document before it is asked, the change is told before
    // this thread stats anything, whatever the timing.
    let outcome = await calls(100, before);
    for (let after = 200; after <= 3200 && outcome.ahead !== MANY; after *= 2)
      outcome = await calls(after, before);
    expect(outcome).toEqual({ told: 1, ahead: MANY, seen: true });
    // A run that ended after the edit saw it: not told again. Nor when there was no last run.
    expect(await calls(100, statSync(path.join(dir, name(700))).ctimeMs + 1)).toMatchObject({
      told: 0,
      seen: false,
    });
    expect(await calls(100, Infinity)).toMatchObject({ told: 0, seen: false });
  });

  it('stats and compares on this thread alone when the worker cannot start', async () => {
    const { dir, cacheFile } = await project();
    const names = Array.from({ length: MANY }, (_, i) => name(i));
    const paths = names.map((n) => path.join(dir, n));
    const twice = statOnTwoThreads(
      cacheFile,
      ahead(dir),
      Infinity,
      new URL('./no-such-worker.js', import.meta.url),
    );
    twice.stat(names, where(dir), []);
    const statted = await twice.finish();
    expect(statted.same).toBeUndefined();
    expect(statted.excerpt).toBeUndefined();
    for (let i = 0; i < names.length; i += 97) {
      const real = statSync(paths[i]!);
      const stamp = statted.stampOf(i);
      expect([stamp.isFile(), stamp.size, stamp.mtimeMs, stamp.ino]).toEqual([
        true,
        real.size,
        real.mtimeMs,
        real.ino,
      ]);
    }
  });

  it('lets a scan pass over the same documents on two threads as on one', async () => {
    const { dir, contentDir, stateDir } = await project();
    await writeFile(path.join(dir, name(5)), '---\ntitle: Edited\n---\nNew body\n');
    // Documents reached through a link to a folder inside content/ (statted where the link leads),
    // and a link that leads out of it (refused, never statted).
    await mkdir(path.join(contentDir, 'old'));
    await writeFile(path.join(contentDir, 'old/kept.md'), '---\ntitle: Kept\n---\n');
    await writeFile(path.join(contentDir, 'old/changed.md'), '---\ntitle: Changed\n---\n');
    await symlink(path.join(contentDir, 'old'), path.join(contentDir, 'articles/old'));
    await symlink(path.join(dir, 'outside.md'), path.join(contentDir, 'articles/escape.md'));
    await writeFile(path.join(dir, 'outside.md'), '---\ntitle: Outside\n---\n');
    const cache = openHashCache(stateDir, () => Date.now() + 60_000);
    for (const file of ['kept.md', 'changed.md'])
      cache.set(`content/articles/old/${file}`, statSync(path.join(contentDir, 'old', file)), `sha-${file}`);
    cache.save();
    await writeFile(path.join(contentDir, 'old/changed.md'), '---\ntitle: Changed again\n---\n');
    const scan = async (expected: number) => {
      const hashCache = openHashCache(stateDir, () => Date.now() + 60_000);
      const untouched: UntouchedFiles = {
        listed: () => true,
        // One document to look at again, however it stands.
        mayPassOver: (file) => file !== name(7),
        expected,
      };
      const result = await scanContent({ projectDir: dir, contentDir, hashCache, untouched });
      return {
        untouched: result.untouched,
        read: result.documents.map((d) => d.file).sort(),
        failed: result.failedFiles,
        hashed: hashCache.hashed,
      };
    };
    const one = await scan(0);
    const two = await scan(100_000);
    // The listing of the CMS says every file must be read (it was listed in full): none is passed
    // over, on one thread or two, though the stats were taken while it was awaited.
    const whole = async (expected: number) => {
      const hashCache = openHashCache(stateDir, () => Date.now() + 60_000);
      const untouched: UntouchedFiles = {
        listed: () => true,
        mayPassOver: () => true,
        ready: async () => false,
        expected,
      };
      const result = await scanContent({ projectDir: dir, contentDir, hashCache, untouched });
      return { untouched: result.untouched, read: result.documents.length };
    };
    for (const expected of [0, 100_000])
      expect(await whole(expected)).toEqual({ untouched: undefined, read: MANY + 2 });
    expect(one).toEqual({
      untouched: MANY - 2 + 1,
      read: [name(5), name(7), 'content/articles/old/changed.md'],
      failed: ['content/articles/escape.md'],
      hashed: 3,
    });
    expect(two).toEqual(one);
  });
});
