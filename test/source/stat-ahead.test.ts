import { statSync } from 'node:fs';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CacheBytes } from '../../src/source/cache-bytes.js';
import { HASH_CACHE_FILE, openHashCache } from '../../src/source/hash-cache.js';
import { Ahead, type AheadOf } from '../../src/source/stat-ahead.js';
import { makeProject } from './helpers.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** The stamp Ahead took of `name`, or undefined when it took none. */
function taken(ahead: Ahead, name: string) {
  const numbers = new Float64Array(8);
  return ahead.fill(name, 1, numbers) ? [...numbers.subarray(4, 8)] : undefined;
}

/** Ahead of the names of the cache at `cacheFile`, as the stat worker starts it. */
const aheadOf = (where: AheadOf, cacheFile: string) => new Ahead(where, CacheBytes.read(cacheFile).names());

const stampOf = (file: string) => {
  const info = statSync(file);
  return [info.size, info.mtimeMs, info.ctimeMs, info.ino];
};

/** A project of `files`, with a hash cache that names each of `named` (a file or not). */
async function project(files: Record<string, string>, named: string[]) {
  const made = await makeProject({ ...files, 'seed.txt': 'a stamp for every line' });
  cleanup = made.cleanup;
  const stateDir = path.join(made.dir, '.cms-sync');
  const cache = openHashCache(stateDir, () => Date.now() + 60_000);
  const someStat = statSync(path.join(made.dir, 'seed.txt'));
  for (const name of named) cache.set(name, someStat, `sha-${name}`);
  cache.save();
  return { ...made, cacheFile: path.join(stateDir, HASH_CACHE_FILE), where: where(made.contentDir) };
}

const where = (contentDir: string) => ({ contentDir, prefix: 'content/', sep: path.sep });

describe('statting the documents the hash cache names as the cache is read', () => {
  it('takes the stamps of plain documents in content/ that the cache names', async () => {
    const { contentDir, cacheFile, where } = await project(
      {
        'content/articles/a.md': 'a',
        'content/articles/2024/b.md': 'bb',
        'content/images/x.png': 'png',
        'notes.md': 'outside content/',
      },
      [
        'content/articles/a.md',
        'content/articles/2024/b.md',
        'content/articles/gone.md',
        'content/images/x.png',
        'notes.md',
      ],
    );
    const ahead = aheadOf(where, cacheFile);
    await ahead.ended;

    expect(taken(ahead, 'content/articles/a.md')).toEqual(stampOf(path.join(contentDir, 'articles/a.md')));
    expect(taken(ahead, 'content/articles/2024/b.md')).toEqual(
      stampOf(path.join(contentDir, 'articles/2024/b.md')),
    );
    // Gone, not a document, outside content/, or never named by the cache: nothing taken.
    for (const name of [
      'content/articles/gone.md',
      'content/images/x.png',
      'notes.md',
      'content/articles/new.md',
    ])
      expect(taken(ahead, name), name).toBeUndefined();
    expect(ahead.taken).toBe(2);
  });

  it('follows no link: a document now a link, or in a folder reached through one, is left to the request', async () => {
    const names = [
      'content/articles/escape.md',
      'content/articles/away/inner.md',
      'content/articles/old/kept.md',
      'content/articles/plain.md',
    ];
    const { dir, contentDir, cacheFile, where } = await project(
      {
        'content/old/kept.md': 'kept',
        'content/articles/plain.md': 'plain',
        'outside/secret.md': 'secret',
        'outside/folder/inner.md': 'inner',
      },
      names,
    );
    await symlink(path.join(dir, 'outside/secret.md'), path.join(contentDir, 'articles/escape.md'));
    await symlink(path.join(dir, 'outside/folder'), path.join(contentDir, 'articles/away'));
    await symlink(path.join(contentDir, 'old'), path.join(contentDir, 'articles/old'));
    const ahead = aheadOf(where, cacheFile);
    await ahead.ended;
    expect(names.map((name) => taken(ahead, name) !== undefined)).toEqual([false, false, false, true]);
  });

  it('takes every stamp through a content/ that is itself a link', async () => {
    const { dir, contentDir, cacheFile, where } = await project({ 'real/articles/a.md': 'a' }, [
      'content/articles/a.md',
    ]);
    await symlink(path.join(dir, 'real'), contentDir);
    const ahead = aheadOf(where, cacheFile);
    await ahead.ended;
    expect(taken(ahead, 'content/articles/a.md')).toEqual(stampOf(path.join(dir, 'real/articles/a.md')));
  });

  it('stops statting once stopped, and stats nothing without content/', async () => {
    const { dir, contentDir, cacheFile, where } = await project({ 'content/articles/a.md': 'a' }, [
      'content/articles/a.md',
    ]);
    const asked = aheadOf(where, cacheFile);
    asked.stop();
    await asked.ended;
    expect(taken(asked, 'content/articles/a.md')).toBeUndefined();

    await rm(contentDir, { recursive: true });
    await mkdir(path.join(dir, 'elsewhere'));
    await writeFile(path.join(dir, 'elsewhere/a.md'), 'a');
    const none = aheadOf(where, cacheFile);
    await none.ended;
    expect(taken(none, 'content/articles/a.md')).toBeUndefined();
  });

  it('takes a name told again once, and stops between two turns when stopped', async () => {
    const files: Record<string, string> = {};
    const name = (i: number) => `content/articles/doc-${String(i).padStart(4, '0')}.md`;
    for (let i = 0; i < 600; i++) files[name(i)] = `doc ${i}`;
    const made = await makeProject(files);
    cleanup = made.cleanup;
    const names = [name(0), ...Object.keys(files), name(0), name(5)];
    const all = new Ahead(where(made.contentDir), names.values());
    await all.ended;
    expect(all.taken).toBe(600);
    expect(taken(all, name(599))).toEqual(stampOf(path.join(made.dir, name(599))));
    // Stopped after one turn of its event loop: some names are taken, not all.
    const stopped = new Ahead(where(made.contentDir), names.values());
    await new Promise((resolve) => setImmediate(resolve));
    stopped.stop();
    await stopped.ended;
    expect(stopped.taken).toBeGreaterThan(0);
    expect(stopped.taken).toBeLessThan(600);
  });
});
