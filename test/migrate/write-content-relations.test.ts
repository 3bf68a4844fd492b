import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MigrationReport } from '../../src/migrate/report.js';
import { ContentWriter, folderOf } from '../../src/migrate/write-content.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the importers’ writer and the resource table', () => {
  it('writes each resource to its folder, and warns of a relation naming a record no file is written for', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-writer-'));
    dirs.push(dir);
    const report = new MigrationReport();
    const contentDir = path.join(dir, 'content');
    const writer = new ContentWriter({
      projectDir: dir,
      contentDir,
      force: false,
      report,
      exists: existsSync,
    });
    expect(folderOf('user')).toBe('users');
    await writer.write(
      folderOf('article'),
      'post',
      { title: 'P', author: 'jane', authors: ['jane', 'ghost'] },
      '',
      'post 1',
    );
    await writer.write(
      folderOf('category'),
      'news',
      { name: 'News', parent: 'world' },
      '',
      'category `news`',
    );
    await writer.write(folderOf('user'), 'jane', { name: 'Jane' }, '', 'author jane');
    await writer.flush();
    expect(report.warnings).toEqual([
      'post 1: its `authors` names user `ghost`, which the export does not have: add content/users/ghost.md ' +
        '(plan reports it as an error until then)',
      'category `news`: its `parent` names category `world`, which the export does not have: add ' +
        'content/categories/world.md (plan reports it as an error until then)',
    ]);
    expect(await readFile(path.join(contentDir, 'articles/post.md'), 'utf8')).toContain(
      'authors:\n  - jane\n  - ghost\n',
    );
  });
});
