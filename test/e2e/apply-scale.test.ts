import { afterEach, describe, expect, it } from 'vitest';
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readState, writeState } from '../helpers/state.js';
import { createProject, png, SECRET_TOKEN, type Project } from './harness.js';
import { newsroom } from './newsroom.js';

/**
 * Reruns that read and render nothing, and cold syncs of many documents: apart from apply.test.ts
 * so the two files run side by side.
 */

let project: Project | undefined;
afterEach(async () => {
  if (project) expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project?.close();
  project = undefined;
});

describe('reruns that read and render nothing', () => {
  it('loads unified and its plugins only when something must be rendered', async () => {
    project = await createProject(newsroom());
    await project.applyInProcess();
    const register = new URL('../fixtures/module-log/register.mjs', import.meta.url).href;
    // Which modules an apply loads, and whether one of them holds the Markdown parser.
    const loadsParser = async (name: string) => {
      const log = path.join(project!.dir, `${name}.modules`);
      const run = await project!.run(['apply'], {
        env: { NODE_OPTIONS: `--import ${register}`, CMS_SYNC_TEST_MODULE_LOG: log },
      });
      expect(run.code, run.stderr).toBe(0);
      const urls = (await readFile(log, 'utf8')).split('\n').filter((url) => url.startsWith('file:'));
      expect(urls.some((url) => url.endsWith('/dist/bundle/main.js'))).toBe(true);
      const sources = await Promise.all(urls.map((url) => readFile(fileURLToPath(url), 'utf8')));
      return sources.some((source) => source.includes('micromark'));
    };
    expect(await loadsParser('no-op')).toBe(false);
    await project.write(
      'content/articles/budget-vote.md',
      (await project.read('content/articles/budget-vote.md')).replace('two votes', 'three votes'),
    );
    expect(await loadsParser('one-change')).toBe(true);
  });

  it('reads no unchanged file on a rerun, yet sees an edit that kept the size and set the mtime back', async () => {
    project = await createProject(newsroom());
    // Whole seconds, so that the edit below can put the very same mtime back.
    const anHourAgo = Math.floor(Date.now() / 1000) - 3600;
    const file = path.join(project.dir, 'content/pages/about.md');
    await utimes(file, anHourAgo, anHourAgo);
    // Files changed in the last 2 s are always read again (their times could hide a second save):
    // the plan, which does not depend on that, runs while they age.
    const [plan] = await Promise.all([
      project.run(['plan']),
      new Promise((resolve) => setTimeout(resolve, 2100)),
    ]);
    // plan writes nothing anywhere, not even the cache: only apply does.
    expect(plan.code).toBe(0);
    await expect(stat(path.join(project.dir, '.cms-sync/file-hashes.json'))).rejects.toThrow(/ENOENT/);
    const first = JSON.parse((await project.run(['apply', '--json'])).stdout) as {
      source: { hashed: number };
    };
    expect(first.source.hashed).toBe(9); // 7 documents, 2 images
    expect((await stat(path.join(project.dir, '.cms-sync/file-hashes.json'))).isFile()).toBe(true);
    const rerun = JSON.parse((await project.run(['apply', '--json'])).stdout) as {
      source: Record<string, number>;
      result: { updated: number };
    };
    // Passed over unread: the files and state are as the clean apply before left them, but for the
    // live blog, whose image without alt text is warned about on every run (vouched for by its stat).
    expect(rerun.source).toEqual({ documents: 7, rendered: 0, hashed: 0, untouched: 6 });

    // Same length, mtime restored (as `touch -d` or `rsync -t` would): only its ctime tells.
    const before = await stat(file);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('We report on the valley.', 'We report on the VALLEY.'));
    await utimes(file, anHourAgo, anHourAgo);
    const after = await stat(file);
    expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino]);
    project.cms.resetStats();
    const edited = JSON.parse((await project.run(['apply', '--json'])).stdout) as {
      source: Record<string, number>;
      result: { updated: number };
    };
    expect(edited.source).toMatchObject({ rendered: 1, hashed: 1 });
    expect(edited.result.updated).toBe(1);
    expect((await project.records('page'))[0]!.content).toContain('We report on the VALLEY.');
  });

  it(
    'commits a one-file change as under 1 KiB appended to the state log, writes nothing on a no-op, and reads ' +
      'a state git changed as it is',
    async () => {
      project = await createProject(newsroom());
      const base = path.join(project.dir, '.cms-sync/state.jsonl');
      const log = path.join(project.dir, '.cms-sync/state.log.jsonl');
      // The first apply only sets the scene: the runs after it are what is checked.
      expect((await project.applyInProcess()).exitCode).toBe(0);
      const written = { base: await readFile(base), log: await readFile(log), stat: await stat(base) };
      expect((await project.run(['apply'])).code).toBe(0);
      expect((await stat(base)).mtimeMs).toBe(written.stat.mtimeMs);
      expect((await readFile(log)).equals(written.log)).toBe(true);

      await project.write('content/pages/about.md', '---\ntitle: About\n---\n\nWe report on the hills.\n');
      expect((await project.run(['apply'])).code).toBe(0);
      expect((await readFile(base)).equals(written.base)).toBe(true);
      const appended = (await readFile(log)).subarray(written.log.length);
      expect(appended.length).toBeGreaterThan(0);
      expect(appended.length).toBeLessThan(1024);
      expect(appended.toString('utf8')).toContain('"page/about"');

      // A teammate's state comes in (a pull, a merge): the same records, but the about page's
      // inputs recorded differently. It is read as it is: the page is rendered again.
      const state = readState(project.dir);
      state.records['page/about'].input.hash = 'written-by-another-version';
      await writeState(project.dir, state);
      const plan = JSON.parse((await project.run(['plan', '--json'])).stdout) as {
        source: Record<string, number>;
      };
      expect(plan.source).toMatchObject({ documents: 7, rendered: 1 });
      expect((await project.run(['apply'])).code).toBe(0);
      const rerun = JSON.parse((await project.run(['apply', '--json'])).stdout) as {
        source: Record<string, number>;
        result: Record<string, number>;
      };
      expect(rerun.source).toMatchObject({ documents: 7, rendered: 0 });
      expect(rerun.result).toMatchObject({ created: 0, updated: 0, deleted: 0 });
    },
  );
});

describe('--refresh=false', () => {
  it('trusts the state: a no-op run makes no call at all, and a changed file makes only its write', async () => {
    project = await createProject({
      'content/pages/about.md': '---\ntitle: About\n---\n\nUs.\n',
      'content/pages/contact.md': '---\ntitle: Contact\n---\n\nWrite to us.\n',
    });
    expect((await project.applyInProcess()).exitCode).toBe(0);
    project.cms.resetStats();
    const noop = await project.run(['apply', '--refresh=false', '--json']);
    expect(noop.code).toBe(0);
    expect(project.cms.stats().requests).toBe(0);

    await project.write('content/pages/about.md', '---\ntitle: About the paper\n---\n\nUs.\n');
    const one = await project.run(['apply', '--refresh=false']);
    expect(one.code).toBe(0);
    expect(project.cms.stats().byAction).toEqual({ 'page.edit': 1 });

    // A new image: uploaded (ahead of the plan) and its page edited, still without reading anything.
    await project.write('content/images/team.png', png(7));
    await project.write(
      'content/pages/contact.md',
      '---\ntitle: Contact\n---\n\nWrite to us.\n\n![The team](../images/team.png)\n',
    );
    project.cms.resetStats();
    const withImage = await project.run(['apply', '--refresh=false']);
    expect(withImage.code).toBe(0);
    expect(project.cms.stats().byAction).toEqual({ 'media.upload_from_url': 1, 'page.edit': 1 });
  });

  it('refuses to run without a state to trust', async () => {
    project = await createProject({ 'content/pages/about.md': '---\ntitle: About\n---\n' });
    const result = await project.run(['apply', '--refresh=false']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--refresh=false trusts the state, but there is none yet');
  });
});

describe('a cold sync of many documents', () => {
  it('uploads images while documents are still being rendered, each once, and nothing twice on a rerun', async () => {
    const files: Record<string, string | Buffer> = {};
    const paragraph =
      'The council met on Tuesday to discuss the **budget**, with members divided over ' +
      '[transport](https://example.com/t) spending. ';
    // Enough documents for the worker pool (200 and more are rendered on worker threads), and a
    // rendering phase long enough for uploads to start within it.
    for (let i = 0; i < 200; i++) {
      files[`content/images/photo-${i}.png`] = png(1000 + i);
      files[`content/articles/story-${i}.md`] =
        `---\ntitle: Story ${i}\n---\n\n![Photo ` +
        `${i}](../images/photo-${i}.png)\n\n${`## Part\n\n${paragraph.repeat(6)}\n\n- one\n- two\n\n`.repeat(8)}`;
    }
    project = await createProject(files);
    const run = await project.run(['apply', '--json']);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as {
      source: { rendered: number };
      result: { created: number; uploaded: number };
      timings: { startedAt: number; read: number };
    };
    expect(doc.source.rendered).toBe(200);
    expect(doc.result).toMatchObject({ created: 200, uploaded: 200 });
    const uploads = project.cms
      .stats()
      .writeLog.filter((w) => w.action === 'upload_from_url')
      .map((w) => w.at);
    expect(uploads).toHaveLength(200);
    const renderedAt = doc.timings.startedAt + doc.timings.read;
    // Not two phases: the CMS got uploads before the last document was rendered.
    expect(Math.min(...uploads)).toBeLessThan(renderedAt);
    expect(uploads.filter((at) => at < renderedAt).length).toBeGreaterThan(0);

    project.cms.resetStats();
    const rerun = await project.run(['apply', '--json']);
    expect(JSON.parse(rerun.stdout).result).toMatchObject({ created: 0, updated: 0, uploaded: 0 });
    expect(project.cms.stats().writes).toBe(0);
    expect((await project.api({ resource: 'media', action: 'get', limit: 1 })).total).toBe(200);
  });

  it(
    'killed halfway, leaves open only the writes it had in progress, not one per record, and the rerun ' +
      'completes',
    async () => {
      const files: Record<string, string | Buffer> = {
        'content/categories/news.md': '---\nname: News\n---\n',
      };
      for (let i = 0; i < 100; i++)
        files[`content/articles/story-${i}.md`] =
          `---\ntitle: Story ${i}\ncategory: news\n---\n\nParagraph ${i}.\n`;
      // A slow CMS: 100 creates take a second or more, and the run is killed once the first has landed.
      project = await createProject(files, { latencyMs: 20 });
      const run = project.spawn(['apply', '--concurrency', '4', '--verbose']);
      await run.waitForLine(/^\+ article\//, { timeoutMs: 30_000 });
      await run.stop({ signal: 'SIGKILL' });

      // Each write is journaled as an intent before it is sent and closed by its record once
      // confirmed: what is still open is what the next run must check in the CMS before it
      // sends anything again. A run that journaled all 100 up front would leave nearly all open.
      const journal = (await project.read('.cms-sync/journal.jsonl'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { t: string; key?: string });
      const open = new Set<string>();
      for (const entry of journal) {
        if (entry.t === 'intent') open.add(entry.key!);
        if (entry.t === 'record') open.delete(entry.key!);
      }
      expect(journal.some((e) => e.t === 'record' && e.key?.startsWith('article/'))).toBe(true);
      expect(open.size).toBeGreaterThan(0);
      expect(open.size).toBeLessThanOrEqual(32);

      const rerun = await project.run(['apply', '--concurrency', '4']);
      expect(rerun.code, rerun.stderr).toBe(0);
      const pages = [0, 100].map((offset) =>
        project!.api({ resource: 'article', action: 'get', limit: 100, offset, order_by: 'id ASC' }),
      );
      const slugs = (await Promise.all(pages)).flatMap((page: { items: Array<{ slug: string }> }) =>
        page.items.map((a) => a.slug),
      );
      expect(slugs).toHaveLength(100);
      expect(new Set(slugs).size).toBe(100);
    },
  );
});
