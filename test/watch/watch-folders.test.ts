import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  watchContent,
  type ContentChange,
  type ContentWatcher,
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

describe.each([
  { where: 'in this thread', start: watchContent },
  { where: 'in a worker thread', start: watchContentOffThread },
])('watching content/ by its folders, $where', ({ start }) => {
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
      [],
    ]);
  });
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
