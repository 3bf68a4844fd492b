import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchContent, type ContentChange } from '../../src/watch/watch-content.js';
import { waitUntil } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each([
  { by: 'chokidar', ownWatchFrom: undefined },
  { by: 'watches of their own', ownWatchFrom: 0 },
])('watching content/ with symbolic links in it, its folders by $by', ({ ownWatchFrom }) => {
  /** Watches `contentDir` until the test ends; what it reports, as it reports it. */
  async function watched(contentDir: string): Promise<ContentChange[]> {
    const changes: ContentChange[] = [];
    const watcher = await watchContent({
      contentDir,
      ownWatchFrom,
      onChange: (c) => changes.push(c),
      onError: () => {},
    });
    cleanups.push(() => watcher.close());
    return changes;
  }

  it(
    'follows no link: not two links back up the tree (a loop), not one out of content/',
    { timeout: 30_000 },
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-watch-links-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const contentDir = path.join(dir, 'content');
      await mkdir(path.join(contentDir, 'articles'), { recursive: true });
      await mkdir(path.join(dir, 'outside'));
      await writeFile(path.join(contentDir, 'articles/a.md'), '# A\n');
      await symlink('..', path.join(contentDir, 'articles/up1'));
      await symlink('..', path.join(contentDir, 'articles/up2'));
      await symlink(path.join(dir, 'outside'), path.join(contentDir, 'articles/out'));

      const changes = await watched(contentDir);
      await writeFile(path.join(contentDir, 'articles/b.md'), '# B\n');
      await writeFile(path.join(dir, 'outside/secret.md'), '# Secret\n');
      await waitUntil(() => changes.some((c) => c.file === 'articles/b.md'), 'the new file to be reported');
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Followed links would report the file again as articles/up1/articles/b.md, and so on.
      expect(changes).toEqual([{ file: 'articles/b.md', kind: 'add' }]);
    },
  );

  it('follows content/ that is itself a link to a folder, as the scan reads it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-watch-root-link-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await mkdir(path.join(dir, 'shared/articles'), { recursive: true });
    await writeFile(path.join(dir, 'shared/articles/a.md'), '# A\n');
    const contentDir = path.join(dir, 'content');
    await symlink(path.join(dir, 'shared'), contentDir);

    const changes = await watched(contentDir);
    await writeFile(path.join(contentDir, 'articles/a.md'), '# A, saved\n');
    await writeFile(path.join(contentDir, 'articles/b.md'), '# B\n');
    await waitUntil(() => changes.length >= 2, 'the save and the new file');
    expect(changes.sort((a, b) => a.file.localeCompare(b.file))).toEqual([
      { file: 'articles/a.md', kind: 'change' },
      { file: 'articles/b.md', kind: 'add' },
    ]);
  });
});
