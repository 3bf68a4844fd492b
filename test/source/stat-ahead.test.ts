import { statSync, type Stats } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HASH_CACHE_FILE, loadCacheLines, openHashCache } from '../../src/source/hash-cache.js';
import { Ahead } from '../../src/source/stat-ahead.js';
import { makeProject } from './helpers.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** The stamp Ahead took of `name`, or undefined when it took none. */
function taken(ahead: Ahead, name: string) {
  const numbers = new Float64Array(8);
  return ahead.fill(name, 1, numbers) !== undefined ? [...numbers.subarray(4, 8)] : undefined;
}

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
  it('takes the stamps of plain documents in content/, and reads the whole cache', async () => {
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
    const ahead = new Ahead(where, cacheFile);
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
    expect(ahead.cache()).toEqual(loadCacheLines(cacheFile));
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
    const ahead = new Ahead(where, cacheFile);
    await ahead.ended;
    expect(names.map((name) => taken(ahead, name) !== undefined)).toEqual([false, false, false, true]);
  });

  it('takes every stamp through a content/ that is itself a link', async () => {
    const { dir, contentDir, cacheFile, where } = await project({ 'real/articles/a.md': 'a' }, [
      'content/articles/a.md',
    ]);
    await symlink(path.join(dir, 'real'), contentDir);
    const ahead = new Ahead(where, cacheFile);
    await ahead.ended;
    expect(taken(ahead, 'content/articles/a.md')).toEqual(stampOf(path.join(dir, 'real/articles/a.md')));
  });

  it('stops statting once the cache is asked for, and reads it without content/', async () => {
    const { dir, contentDir, cacheFile, where } = await project({ 'content/articles/a.md': 'a' }, [
      'content/articles/a.md',
    ]);
    const asked = new Ahead(where, cacheFile);
    expect(asked.cache()).toEqual(loadCacheLines(cacheFile));
    await asked.ended;
    expect(taken(asked, 'content/articles/a.md')).toBeUndefined();

    await rm(contentDir, { recursive: true });
    await mkdir(path.join(dir, 'elsewhere'));
    await writeFile(path.join(dir, 'elsewhere/a.md'), 'a');
    const none = new Ahead(where, cacheFile);
    await none.ended;
    expect(taken(none, 'content/articles/a.md')).toBeUndefined();
    expect(none.cache().entries.size).toBe(1);
  });

  it('compares each stamp with its line, and again with a later line that replaces or forgets it', async () => {
    const files: Record<string, string> = {};
    const name = (i: number) => `content/articles/doc-${i}.md`;
    for (let i = 0; i < 600; i++) files[name(i)] = `doc ${i}`;
    const made = await makeProject(files);
    cleanup = made.cleanup;
    const stateDir = path.join(made.dir, '.cms-sync');
    const cacheFile = path.join(stateDir, HASH_CACHE_FILE);
    const real = (i: number) => statSync(path.join(made.dir, name(i)));
    const other = { ...real(0), size: 999, isFile: () => true } as Stats;
    const cache = openHashCache(stateDir, () => Date.now() + 60_000, { appends: true });
    for (let i = 0; i < 600; i++) cache.set(name(i), i === 2 ? other : real(i), `sha-${i}`);
    cache.save();
    // Later lines: doc-1's forgotten, doc-2's right after a wrong one, doc-0's wrong after a right one.
    const later = openHashCache(stateDir, () => Date.now() + 60_000, { appends: true });
    later.get(name(0), real(0));
    later.set(name(2), real(2), 'sha-2');
    later.set(name(0), other, 'sha-0');
    later.save();
    await writeFile(cacheFile, `${await readFile(cacheFile, 'utf8')}\n[0,0,0,0,"","${name(1)}"]`);

    const ahead = new Ahead(where(made.contentDir), cacheFile);
    await ahead.ended;
    expect([0, 1, 2, 3, 599].map((i) => ahead.same(name(i)))).toEqual([false, false, true, true, true]);

    // Asked for the cache after one turn: what it read then is compared again with what it reads after.
    const asked = new Ahead(where(made.contentDir), cacheFile);
    await new Promise((resolve) => setImmediate(resolve));
    asked.cache();
    expect([0, 1, 2, 3, 599].map((i) => asked.same(name(i)))).toEqual([false, false, true, true, undefined]);
  });
});
