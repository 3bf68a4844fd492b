import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentChange, ContentWatcher } from '../../src/watch/watch-content.js';
import { waitUntil } from './helpers.js';

// A worker thread runs compiled JavaScript: the watcher off the main thread is tested as built.
const { watchContentOffThread } = (await import(
  new URL('../../dist/watch/watch-off-thread.js', import.meta.url).href
)) as typeof import('../../src/watch/watch-off-thread.js');

describe('the file watcher in a worker thread, when that thread dies after it started', () => {
  let dir: string;
  let contentDir: string;
  let watcher: ContentWatcher;
  let worker: Worker | undefined;
  const changes: ContentChange[] = [];
  const errors: string[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-watch-off-thread-'));
    contentDir = path.join(dir, 'content');
    await mkdir(path.join(contentDir, 'articles'), { recursive: true });
    await writeFile(path.join(contentDir, 'articles/a.md'), '# A\n');
    watcher = await watchContentOffThread(
      { contentDir, onChange: (c) => changes.push(c), onError: (e) => errors.push(e.message) },
      { started: (w) => (worker = w) },
    );
  });
  afterAll(async () => {
    await watcher.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('says so, and a save made afterwards is still reported, from this thread', async () => {
    expect(worker).toBeDefined();
    await worker?.terminate();
    await waitUntil(() => errors.length > 0, 'the watcher to report its thread stopped');
    expect(errors).toEqual([
      expect.stringMatching(/the file watcher's thread stopped \(.*\); watching goes on/),
    ]);
    expect(changes).toEqual([]);
    // The watch in this thread is being set up: a save before it is open goes unseen, so the file is saved
    // again until one is reported.
    let version = 0;
    await waitUntil(async () => {
      if (changes.length > 0) return true;
      version += 1;
      await writeFile(path.join(contentDir, 'articles/a.md'), `# A, saved ${version}\n`);
      await new Promise((resolve) => setTimeout(resolve, 250));
      return changes.length > 0;
    }, 'a save after the thread stopped to be reported');
    expect(changes[0]).toEqual({ file: 'articles/a.md', kind: 'change' });
    expect(errors).toHaveLength(1);
  });
});
