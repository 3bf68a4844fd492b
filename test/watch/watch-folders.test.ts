import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  watchContent,
  type ContentChange,
  type ContentWatcher,
  type LocalContentWatcher,
  type WatchContentOptions,
} from '../../src/watch/watch-content.js';
import { waitUntil } from './helpers.js';

// A worker thread runs compiled JavaScript: the watcher off the main thread is tested as built.
const { watchContentOffThread } = (await import(
  new URL('../../dist/watch/watch-off-thread.js', import.meta.url).href
)) as typeof import('../../src/watch/watch-off-thread.js');

/** The inotify watches this process holds, from /proc (Linux). */
function inotifyWatches(): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fdinfo'))
    try {
      count += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('inotify wd:')).length;
    } catch {
      // Closed since the listing.
    }
  return count;
}

const ownWatches = (ownWatchFrom: number) => (options: WatchContentOptions) =>
  watchContent({ ...options, ownWatchFrom });

describe.each([
  { where: 'in this thread', start: watchContent, own: [] },
  { where: 'in a worker thread', start: watchContentOffThread, own: undefined },
  // articles/ (12 files) and articles/2026/ (20) by watches of their own, under content/ by chokidar;
  // articles/2027/, made later in articles/, by a chokidar watcher of its own.
  {
    where: 'folders of many files by watches of their own',
    start: ownWatches(10),
    own: ['articles', 'articles/2026'],
  },
  {
    where: 'every folder by a watch of its own',
    start: ownWatches(0),
    own: ['', 'articles', 'articles/2026'],
  },
])('watching content/ by its folders, $where', ({ start, own }) => {
  let dir: string;
  let contentDir: string;
  let watcher: ContentWatcher;
  let watchesBefore = 0;
  /** What was reported, with the step it was reported in. */
  const changes: Array<ContentChange & { step: number }> = [];
  let step = 0;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-watch-folders-'));
    contentDir = path.join(dir, 'content');
    await mkdir(path.join(contentDir, 'articles/2026'), { recursive: true });
    for (let i = 0; i < 20; i += 1) await writeFile(at(`articles/2026/s${i}.md`), `# ${i}\n`);
    for (let i = 0; i < 12; i += 1) await writeFile(at(`articles/a${i}.md`), `# A${i}\n`);
    watchesBefore = process.platform === 'linux' ? inotifyWatches() : 0;
    watcher = await start({
      contentDir,
      onChange: (c) => changes.push({ ...c, step }),
      onError: () => {},
    } satisfies WatchContentOptions);
  });
  afterAll(async () => {
    await watcher.close();
    await rm(dir, { recursive: true, force: true });
  });

  function at(file: string): string {
    return path.join(contentDir, file);
  }

  /** Starts the next step once `count` changes of this one were reported. */
  async function reported(count: number, what: string): Promise<void> {
    await waitUntil(() => changes.filter((c) => c.step === step).length >= count, what);
    step += 1;
  }

  it.runIf(own !== undefined)('watches a folder of many files by a watch of its own', () => {
    expect((watcher as LocalContentWatcher).ownWatched()).toEqual(own);
  });

  it.runIf(process.platform === 'linux')('holds one watch per folder, none per file', () => {
    // content/, articles/, articles/2026/: 20 files there must not cost 20 more.
    expect(inotifyWatches() - watchesBefore).toBe(3);
  });

  it('sees what a writer and an editor do to files it does not watch one by one', async () => {
    await writeFile(at('articles/2026/s1.md'), '# One, edited\n');
    await reported(1, 'the save');

    // An editor's atomic save: the new text goes to a temporary file that is renamed over the old one.
    await writeFile(at('articles/2026/s2.md.tmp'), '# Two, saved atomically\n');
    await rename(at('articles/2026/s2.md.tmp'), at('articles/2026/s2.md'));
    await reported(1, 'the atomic save');

    // An editor that moves the old file away, then writes the new one and removes the backup.
    await rename(at('articles/2026/s3.md'), at('articles/2026/s3.md~'));
    await writeFile(at('articles/2026/s3.md'), '# Three, saved by a backup-first editor\n');
    await unlink(at('articles/2026/s3.md~'));
    await reported(1, 'the backup-first save');

    await rename(at('articles/2026/s4.md'), at('articles/2026/s4-renamed.md'));
    await reported(2, 'the rename');

    await unlink(at('articles/2026/s5.md'));
    await reported(1, 'the removal');

    // Written at once, before the new folders could be watched: found by listing them.
    await mkdir(at('articles/2027/jan'), { recursive: true });
    await writeFile(at('articles/2027/jan/new.md'), '# New\n');
    await reported(1, 'the file in a new subfolder');
    await writeFile(at('articles/2027/jan/new.md'), '# New, edited\n');
    await reported(1, 'its save');

    await rename(at('articles/2027'), at('articles/2028'));
    await reported(2, 'the move of its folder');

    await rm(at('articles/2028'), { recursive: true });
    await reported(1, 'the removal of its folder');

    // A folder with a file's name is followed as a folder.
    await mkdir(at('articles/2026/odd.md'));
    await writeFile(at('articles/2026/odd.md/inner.md'), '# Inner\n');
    await reported(1, 'the file in a folder with a file’s name');

    // Nothing more comes of any of it (a late removal of a saved file, a second add).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const byStep = (n: number) =>
      changes
        .filter((c) => c.step === n)
        .map(({ file, kind }) => `${kind} ${file}`)
        .sort();
    expect(Array.from({ length: step + 1 }, (_, n) => byStep(n))).toEqual([
      ['change articles/2026/s1.md'],
      ['change articles/2026/s2.md'],
      ['change articles/2026/s3.md'],
      ['add articles/2026/s4-renamed.md', 'unlink articles/2026/s4.md'],
      ['unlink articles/2026/s5.md'],
      ['add articles/2027/jan/new.md'],
      ['change articles/2027/jan/new.md'],
      ['add articles/2028/jan/new.md', 'unlink articles/2027/jan/new.md'],
      ['unlink articles/2028/jan/new.md'],
      ['add articles/2026/odd.md/inner.md'],
      [],
    ]);
  });
});

describe('a folder watched by chokidar or by a watch of its own, under one chokidar follows', () => {
  // Each in a folder of its own, so the two wait side by side.
  it.concurrent.each([
    { by: 'chokidar', ownWatchFrom: undefined, own: [] },
    { by: 'a watch of its own', ownWatchFrom: 3, own: ['news'] },
  ])(
    'watched by $by: reports what it held when it is moved or removed, and what a new one holds',
    async ({ ownWatchFrom, own }) => {
      const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-watch-big-'));
      const contentDir = path.join(dir, 'content');
      const at = (file: string) => path.join(contentDir, file);
      const changes: ContentChange[] = [];
      const seen = () => changes.map(({ file, kind }) => `${kind} ${file}`).sort();
      const names = (folder: string) => [0, 1, 2].map((i) => `${folder}/n${i}.md`);
      let watcher: LocalContentWatcher | undefined;
      try {
        await mkdir(at('news'), { recursive: true });
        for (const file of names('news')) await writeFile(at(file), `# ${file}\n`);
        watcher = await watchContent({
          contentDir,
          ownWatchFrom,
          onChange: (c) => changes.push(c),
          onError: () => {},
        });
        expect(watcher.ownWatched()).toEqual(own);

        await rename(at('news'), at('old-news'));
        await waitUntil(() => changes.length >= 6, 'the move of the folder');
        expect(seen()).toEqual([
          ...names('old-news').map((f) => `add ${f}`),
          ...names('news').map((f) => `unlink ${f}`),
        ]);

        // Removed and made again at once: the new folder is followed, not the old one's watch.
        await rm(at('old-news'), { recursive: true });
        await mkdir(at('old-news'));
        for (const file of names('old-news')) await writeFile(at(file), `# ${file}, again\n`);
        await waitUntil(() => changes.filter((c) => c.kind === 'add').length >= 6, 'the folder made again');
        await new Promise((resolve) => setTimeout(resolve, 150));
        changes.length = 0;
        await writeFile(at('old-news/n2.md'), '# Saved in the folder made again\n');
        await waitUntil(() => changes.length >= 1, 'a save in the folder made again');
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(seen()).toEqual(['change old-news/n2.md']);

        changes.length = 0;
        await rm(at('old-news'), { recursive: true });
        await waitUntil(() => changes.length >= 3, 'the removal of the folder');

        // A new folder, and the one removed made once more.
        await mkdir(at('fresh'));
        for (const file of names('fresh')) await writeFile(at(file), `# ${file}\n`);
        await mkdir(at('old-news'));
        await writeFile(at('old-news/n0.md'), '# Back\n');
        await waitUntil(() => changes.length >= 7, 'the files of new folders');
        await writeFile(at('fresh/n1.md'), '# Saved\n');
        await writeFile(at('old-news/n0.md'), '# Back, saved\n');
        await waitUntil(() => changes.length >= 9, 'saves in the new folders');
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(seen()).toEqual([
          ...names('fresh').map((f) => `add ${f}`),
          'add old-news/n0.md',
          'change fresh/n1.md',
          'change old-news/n0.md',
          ...names('old-news').map((f) => `unlink ${f}`),
        ]);

        // content/ itself removed and made again (a generator that writes it anew).
        changes.length = 0;
        await rm(contentDir, { recursive: true });
        await mkdir(at('fresh/deeper'), { recursive: true });
        await writeFile(at('fresh/n0.md'), '# content/ made again\n');
        await waitUntil(
          () => changes.some((c) => c.kind === 'add' && c.file === 'fresh/n0.md'),
          'content/ made again',
        );
        await new Promise((resolve) => setTimeout(resolve, 150));
        changes.length = 0;
        await writeFile(at('fresh/n0.md'), '# Saved in content/ made again\n');
        await writeFile(at('fresh/deeper/d.md'), '# New\n');
        await waitUntil(() => changes.length >= 2, 'saves in content/ made again');
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(seen()).toEqual(['add fresh/deeper/d.md', 'change fresh/n0.md']);
      } finally {
        await watcher?.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('the watcher in a worker thread', () => {
  it('opens no watch in this thread: what a save costs the watcher is not spent on the sync’s thread', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-watch-thread-'));
    const watches = () => process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;
    try {
      await mkdir(path.join(dir, 'content/articles'), { recursive: true });
      await writeFile(path.join(dir, 'content/articles/a.md'), '# A\n');
      const before = watches();
      const changes: ContentChange[] = [];
      const watcher = await watchContentOffThread({
        contentDir: path.join(dir, 'content'),
        onChange: (c) => changes.push(c),
        onError: () => {},
      });
      try {
        expect(watches()).toBe(before);
        await writeFile(path.join(dir, 'content/articles/a.md'), '# A, saved\n');
        await waitUntil(() => changes.length > 0, 'the save to be posted');
        expect(changes).toEqual([{ file: 'articles/a.md', kind: 'change' }]);
      } finally {
        await watcher.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
