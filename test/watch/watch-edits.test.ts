import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createProject,
  dynamicBlock,
  png,
  SECRET_TOKEN,
  type LiveRun,
  type Project,
} from '../e2e/harness.js';
import { article, record, startWatch } from './helpers.js';
import { readState } from '../helpers/state.js';

let project: Project | undefined;
let watcher: LiveRun | undefined;
afterEach(async () => {
  if (watcher) {
    const result = await watcher.stop();
    expect(result.code).toBe(0);
  }
  if (project) expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project?.close();
  project = watcher = undefined;
});

const writes = (p: Project, action: string) => p.cms.stats().writeLog.filter((w) => w.action === action);

describe('cms-sync watch: what a writer saves reaches the CMS', () => {
  it('applies once at start, then sends an edited file as one edit', async () => {
    project = await createProject({ 'content/articles/budget.md': article('Budget passes') });
    watcher = await startWatch(project);
    expect(watcher.stdoutLines[0]).toMatch(/^Target: http:\/\/127\.0\.0\.1:\d+$/);
    expect(watcher.stdoutLines[1]).toMatch(
      /^\d\d:\d\d:\d\d first sync → \+ article\/budget \(1 write, \d+ ms\)$/,
    );
    const { id } = (await record(project, 'article', 'budget'))!;
    project.cms.resetStats();

    await project.write(
      'content/articles/budget.md',
      article('Budget passes after a late vote', 'The vote was **close**.'),
    );
    const line = await watcher.waitForLine(/articles\/budget\.md →/);
    expect(line).toMatch(/^\d\d:\d\d:\d\d articles\/budget\.md → ~ article\/budget \(1 write, \d+ ms\)$/);
    expect(await record(project, 'article', 'budget')).toMatchObject({
      id,
      title: 'Budget passes after a late vote',
      body: '<p>The vote was <strong>close</strong>.</p>',
    });
    expect(writes(project, 'edit')).toHaveLength(1);
    expect(project.cms.stats().writes).toBe(1);
  });

  it('adds a new file as a new record', async () => {
    project = await createProject({ 'content/articles/budget.md': article('Budget passes') });
    watcher = await startWatch(project);
    await project.write('content/articles/flood.md', article('Flood warning'));
    await watcher.waitForLine(/articles\/flood\.md → \+ article\/flood \(1 write, \d+ ms\)$/);
    expect(await record(project, 'article', 'flood')).toMatchObject({ title: 'Flood warning' });
  });

  it('uploads a changed image again and updates every record that embeds it', async () => {
    project = await createProject({
      'content/images/map.png': png(1),
      'content/articles/a.md': article('A', '![Map](../images/map.png)'),
      'content/articles/b.md': article('B', '![Map](../images/map.png "large")'),
      'content/articles/c.md': article('C', 'No image here.'),
    });
    watcher = await startWatch(project);
    expect(await project.records('media')).toHaveLength(1);
    project.cms.resetStats();

    await project.write('content/images/map.png', png(2));
    const line = await watcher.waitForLine(/images\/map\.png →/);
    expect(line).toMatch(
      /images\/map\.png → \^ images\/map\.png, ~ article\/a, ~ article\/b \(3 writes, \d+ ms\)$/,
    );
    const media = await project.records('media');
    expect(media).toHaveLength(2);
    const newId = media[1]!.id as number;
    expect((await record(project, 'article', 'a'))!.body).toBe(dynamicBlock(newId));
    expect((await record(project, 'article', 'b'))!.body).toBe(dynamicBlock(newId, 'large'));
    expect(
      project.cms
        .stats()
        .writeLog.map((w) => `${w.resource}.${w.action}`)
        .sort(),
    ).toEqual(['article.edit', 'article.edit', 'media.upload_from_url']);
  });

  it('reports a removed file and keeps its record when pruning is off', async () => {
    project = await createProject({
      'content/articles/a.md': article('A'),
      'content/articles/gone.md': article('Gone'),
    });
    watcher = await startWatch(project);
    await project.remove('content/articles/gone.md');
    const line = await watcher.waitForLine(/articles\/gone\.md →/);
    expect(line).toMatch(
      /articles\/gone\.md → · article\/gone kept: file removed; run with --prune to delete it from the CMS \(0 writes, \d+ ms\)$/,
    );
    expect(await record(project, 'article', 'gone')).toBeDefined();
    expect(writes(project, 'delete')).toHaveLength(0);
  });

  it('deletes the record of a removed file with --prune', async () => {
    project = await createProject({
      'content/articles/a.md': article('A'),
      'content/articles/gone.md': article('Gone'),
    });
    watcher = await startWatch(project, ['--prune']);
    await project.remove('content/articles/gone.md');
    await watcher.waitForLine(/articles\/gone\.md → - article\/gone \(1 write, \d+ ms\)$/);
    expect(await record(project, 'article', 'gone')).toBeUndefined();
    expect(await record(project, 'article', 'a')).toBeDefined();
  });

  it('takes a renamed file with the same slug as an edit: same id, no delete, even with --prune', async () => {
    project = await createProject({
      'content/articles/budget.md': article('Budget passes', 'Text.', 'slug: budget\n'),
    });
    watcher = await startWatch(project, ['--prune']);
    const { id } = (await record(project, 'article', 'budget'))!;
    project.cms.resetStats();

    await mkdir(path.join(project.dir, 'content/articles/2026'));
    await rename(
      path.join(project.dir, 'content/articles/budget.md'),
      path.join(project.dir, 'content/articles/2026/budget-vote.md'),
    );
    await watcher.waitForLine(/> article\/budget now from articles\/2026\/budget-vote\.md/);
    // The rename and an edit right after it: still the same record.
    await project.write(
      'content/articles/2026/budget-vote.md',
      article('Budget passes, renamed', 'Text.', 'slug: budget\n'),
    );
    await watcher.waitForLine(/articles\/2026\/budget-vote\.md → ~ article\/budget \(1 write, \d+ ms\)$/);
    const articles = await project.records('article');
    expect(articles).toHaveLength(1);
    expect(articles[0]).toMatchObject({ id, slug: 'budget', title: 'Budget passes, renamed' });
    expect(project.cms.stats().writeLog.map((w) => w.action)).toEqual(['edit']);
    const state = readState(project.dir);
    expect(state.records['article/budget']).toMatchObject({
      id,
      file: 'content/articles/2026/budget-vote.md',
    });
  });

  it(
    "takes editors' saves by rename as edits, even with --prune: write-temp-then-rename, and " +
      'move-away-then-write',
    async () => {
      project = await createProject({ 'content/articles/a.md': article('A') });
      watcher = await startWatch(project, ['--prune']);
      const { id } = (await record(project, 'article', 'a'))!;
      project.cms.resetStats();
      const file = path.join(project.dir, 'content/articles/a.md');

      // VS Code, JetBrains, most atomic writers: a temp file renamed over the original.
      await writeFile(`${file}.tmp-8f3a`, article('A, saved atomically'));
      await rename(`${file}.tmp-8f3a`, file);
      await watcher.waitForLine(/articles\/a\.md → ~ article\/a \(1 write, \d+ ms\)$/);
      // Vim (backupcopy=no): the original moved to a backup, a new file written, the backup removed.
      const linesSoFar = watcher.stdoutLines.length;
      await rename(file, `${file}~`);
      await writeFile(file, article('A, saved by vim'));
      await rm(`${file}~`);
      await watcher.waitForLine(/articles\/a\.md → ~ article\/a \(1 write, \d+ ms\)$/, { after: linesSoFar });

      expect(await project.records('article')).toMatchObject([{ id, title: 'A, saved by vim' }]);
      expect(project.cms.stats().writeLog.map((w) => w.action)).toEqual(['edit', 'edit']);
    },
  );

  it('ignores editor swap, backup and temp files', async () => {
    project = await createProject({ 'content/articles/a.md': article('A') });
    watcher = await startWatch(project);
    for (const junk of ['.a.md.swp', 'a.md~', '.#a.md', '4913', 'a.md.tmp', '#a.md#'])
      await project.write(`content/articles/${junk}`, 'junk');
    // A real save after the junk: its line must be the first and only one since start.
    await project.write('content/articles/a.md', article('A, edited'));
    await watcher.waitForLine(/articles\/a\.md → ~ article\/a/);
    const passLines = watcher.stdoutLines.filter((l) => /^\d\d:\d\d:\d\d /.test(l));
    expect(passLines).toHaveLength(2);
    expect(passLines[1]).toMatch(/^\d\d:\d\d:\d\d articles\/a\.md → ~ article\/a \(1 write, \d+ ms\)$/);
    expect(watcher.stderrLines).toEqual([]);
  });
});
