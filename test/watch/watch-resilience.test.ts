import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, SECRET_TOKEN, type LiveRun, type Project } from '../e2e/harness.js';
import { article, record, startWatch, waitForQuiet, waitUntil } from './helpers.js';
import { readState } from '../helpers/state.js';

let project: Project | undefined;
let watcher: LiveRun | undefined;
afterEach(async () => {
  await watcher?.stop();
  if (project) expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project?.close();
  project = watcher = undefined;
});

describe('cms-sync watch: nothing a writer does kills the watcher', () => {
  it('turns 100 rapid saves of one file into at most 2 writes, and the last content wins', async () => {
    project = await createProject({ 'content/articles/live.md': article('Live blog', 'Version 0') });
    watcher = await startWatch(project);
    project.cms.resetStats();

    const file = path.join(project.dir, 'content/articles/live.md');
    for (let i = 1; i <= 100; i += 1) await writeFile(file, article('Live blog', `Version ${i}`));
    await waitUntil(
      async () => (await record(project!, 'article', 'live'))?.body === '<p>Version 100</p>',
      'the last save in the CMS',
    );
    await waitForQuiet(watcher);
    const { writes, writeLog } = project.cms.stats();
    expect(writes).toBeGreaterThanOrEqual(1);
    expect(writes).toBeLessThanOrEqual(2);
    expect(writeLog.every((w) => w.action === 'edit')).toBe(true);
    expect((await record(project, 'article', 'live'))!.body).toBe('<p>Version 100</p>');
  });

  it('reports a broken save at its position, leaves the record alone, and takes the next good save', async () => {
    project = await createProject({ 'content/articles/x.md': article('Good title', 'Good body') });
    watcher = await startWatch(project);
    const before = (await record(project, 'article', 'x'))!;

    await project.write('content/articles/x.md', '---\ntitle: [unclosed\n---\n\nHalf-typed body\n');
    await watcher.waitForLine(/^\d\d:\d\d:\d\d articles\/x\.md: error \(see above\)$/);
    expect(await watcher.waitForLine(/^content\/articles\/x\.md:\d+:\d+: /, { stream: 'stderr' })).toMatch(
      /^content\/articles\/x\.md:2:17: front matter is not valid YAML/,
    );

    const errorsSoFar = watcher.stdoutLines.length;
    await project.write(
      'content/articles/x.md',
      article('Good title', 'Good body', '') + '\n![Map](../images/missing.png)\n',
    );
    await watcher.waitForLine(/^\d\d:\d\d:\d\d articles\/x\.md: error \(see above\)$/, {
      after: errorsSoFar,
    });
    await watcher.waitForLine(/^content\/articles\/x\.md:\d+:\d+: .*missing\.png/, { stream: 'stderr' });
    expect(await record(project, 'article', 'x')).toEqual(before);

    await project.write('content/articles/x.md', article('Fixed title', 'Fixed body'));
    await watcher.waitForLine(/articles\/x\.md → ~ article\/x \(1 write, \d+ ms\)$/);
    expect(await record(project, 'article', 'x')).toMatchObject({
      id: before.id,
      title: 'Fixed title',
      body: '<p>Fixed body</p>',
    });
  });

  it(
    'survives the CMS going away: reports the failed sync, retries on a timer, catches up when it is ' +
      'back',
    async () => {
      project = await createProject({
        'content/articles/a.md': article('A'),
        // One retry of a call, not five with their backoff: the pass still fails at run level, and the
        // retry on a timer is the watcher's own.
        'sync.config.ts': 'export default { sync: { retry: { maxAttempts: 2 } } };\n',
      });
      watcher = await startWatch(project);
      await project.stopCms();

      await project.write('content/articles/a.md', article('A, written while the CMS was down'));
      await watcher.waitForLine(/^\d\d:\d\d:\d\d articles\/a\.md: error \(see above\); retrying in 2 s$/, {
        timeoutMs: 20_000,
      });
      expect(watcher.stderrLines.join('\n')).toMatch(/Could not read the \w+ records of the CMS/);
      await project.startCms();

      // No further save: the timed retry brings the CMS up to date.
      await watcher.waitForLine(/^\d\d:\d\d:\d\d articles\/a\.md → ~ article\/a \(1 write, \d+ ms\)$/, {
        timeoutMs: 20_000,
      });
      expect(await record(project, 'article', 'a')).toMatchObject({
        title: 'A, written while the CMS was down',
      });
    },
    45_000,
  );

  it('stops with exit 1 when the CMS refuses the token, saying to check it', async () => {
    project = await createProject({ 'content/articles/a.md': article('A') });
    watcher = await startWatch(project);
    await project.stopCms();
    await project.startCms({ token: 'tok_rotated_by_an_admin' });

    await project.write('content/articles/a.md', article('A, edited'));
    const result = await watcher.exited;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/HTTP 401\).*check the API token \(CMS_API_TOKEN\)/);
    expect(result.stdout).toMatch(/articles\/a\.md: error \(see above\); stopped watching\n$/);
    watcher = undefined;
  });

  it('on Ctrl-C lets the write in flight finish, saves state, releases the lock and exits 0', async () => {
    project = await createProject({ 'content/articles/a.md': article('A') });
    watcher = await startWatch(project);
    // A slow CMS, so the interrupt lands while the sync is in flight.
    await project.stopCms();
    await project.startCms({ latencyMs: 300 });
    const requestsBefore = project.cms.stats().requests;

    await project.write('content/articles/a.md', article('A, saved just before Ctrl-C'));
    await waitUntil(() => project!.cms.stats().requests > requestsBefore, 'the sync to start');
    const result = await watcher.stop();
    watcher = undefined;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Stopping: finishing the sync in flight…/);
    expect(await record(project, 'article', 'a')).toMatchObject({ title: 'A, saved just before Ctrl-C' });
    const state = readState(project.dir);
    expect(state.records['article/a']).toBeDefined();

    // The lock is gone and the state matches the CMS: a plain apply has nothing to do.
    project.cms.resetStats();
    const again = await project.run(['apply']);
    expect(again.code).toBe(0);
    expect(project.cms.stats().writes).toBe(0);
  });

  it('with --json prints one JSON object per sync on stdout, and nothing else there', async () => {
    project = await createProject({
      'content/articles/a.md': article('A'),
      'content/articles/c.md': article('C'),
      'content/pages/about.md': article('About'),
    });
    watcher = await startWatch(project, ['--json']);
    await project.write('content/articles/b.md', article('B'));
    await watcher.waitForLine((l) => l.includes('"articles/b.md"'));
    await project.write('content/articles/b.md', '---\ntitle: [\n---\n');
    await watcher.waitForLine((l) => l.includes('"errorFiles":["articles/b.md"]'));
    const result = await watcher.stop();
    watcher = undefined;
    expect(result.code).toBe(0);
    const records = result.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(3);
    expect(records[0]).toMatchObject({ trigger: 'start', documents: 3, rendered: 3, writes: 3 });
    expect(records[0].changes.map((c: { key: string }) => c.key)).toEqual([
      'article/a',
      'article/c',
      'page/about',
    ]);
    // Every document is read and hashed again; only the saved one is rendered.
    expect(records[1]).toMatchObject({
      trigger: 'change',
      files: ['articles/b.md'],
      documents: 4,
      rendered: 1,
      writes: 1,
      changes: [{ action: 'create', key: 'article/b', file: 'articles/b.md' }],
      errorFiles: [],
    });
    expect(records[2]).toMatchObject({
      files: ['articles/b.md'],
      writes: 0,
      errorFiles: ['articles/b.md'],
      problems: [{ file: 'articles/b.md', line: 2, severity: 'error' }],
    });
    expect(result.stderr).toMatch(/^Target: /);
  });
});
