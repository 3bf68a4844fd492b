import { afterEach, describe, expect, it } from 'vitest';
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createProject, dynamicBlock, png, SECRET_TOKEN, type Project } from './harness.js';

/** A small newsroom: two categories, three articles sharing one map image, a page, a breaking item. */
function newsroom(): Record<string, string | Buffer> {
  return {
    'content/categories/politics.md': '---\nname: Politics\ndescription: Parliament and government\n---\n',
    'content/categories/climate.md': '---\nname: Climate\n---\n',
    'content/images/map.png': png(1),
    'content/images/chart.png': png(2),
    'content/articles/budget-vote.md': [
      '---',
      'title: Budget passes after late-night vote',
      'date: 2026-11-20',
      'category: politics',
      '---',
      '',
      'The budget passed **by two votes**.',
      '',
      '![Map of the districts](../images/map.png "large")',
      '',
    ].join('\n'),
    'content/articles/flood-warning.md': [
      '---',
      'title: Flood warning for the river valley',
      'category: climate',
      'draft: true',
      '---',
      '',
      'Water levels are rising.',
      '',
      '![Map][map]',
      '',
      '<img src="../images/chart.png" data-size="small">',
      '',
      '[map]: ../images/map.png',
      '',
    ].join('\n'),
    'content/articles/election-night.md':
      '---\ntitle: Election night, live\ncategory: politics\n---\n\n![](/images/map.png)\n\n```md\n![not an ' +
      'image](nope.png)\n```\n',
    'content/pages/about.md': '---\ntitle: About us\n---\n\nWe report on the valley.\n',
    'content/breaking/storm.md':
      '---\ntitle: Storm closes the bridge\nurl: https://example.com/live/storm\n---\n',
  };
}

/** One listing page per record resource: what every run reads. */
function listCalls(): Record<string, number> {
  return { 'article.get': 1, 'breaking.get': 1, 'category.get': 1, 'page.get': 1, 'user.get': 1 };
}

let project: Project | undefined;
afterEach(async () => {
  if (project) expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project?.close();
  project = undefined;
});

describe('apply, end to end against the local CMS', () => {
  it('creates everything on the first run, with exact dynamic-blocks and one upload per image', async () => {
    project = await createProject(newsroom());
    const first = await project.run(['apply']);
    // Only this: one file, two alts (the CMS keeps the first record's; the block has no room for another).
    expect(first.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^content\/articles\/flood-warning\.md:9:1: warning: image .* has alt "Map" here/,
      ),
    ]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('+ article/budget-vote\n');
    expect(first.stdout).toMatch(/^Target: http:\/\/127\.0\.0\.1:\d+\n/);
    expect(first.stdout).toContain(
      'Applied: 7 created, 0 updated, 0 deleted, 2 uploaded, 0 adopted, 0 unchanged',
    );

    const media = await project.records('media');
    expect(media).toHaveLength(2); // three articles use map.png: one upload
    const mapId = media.find((m) => m.source_url.endsWith('/images/map.png'))!.id as number;
    const chartId = media.find((m) => m.source_url.endsWith('/images/chart.png'))!.id as number;

    const categories = await project.records('category');
    const politics = categories.find((c) => c.slug === 'politics')!;
    expect(politics).toMatchObject({ name: 'Politics', description: 'Parliament and government' });

    const articles = await project.records('article');
    const bySlug = Object.fromEntries(articles.map((a) => [a.slug, a]));
    expect(bySlug['budget-vote']).toMatchObject({
      title: 'Budget passes after late-night vote',
      status: 1,
      category_id: politics.id,
      created_at: '2026-11-20T00:00:00.000Z',
    });
    expect(bySlug['budget-vote']!.body).toBe(
      `<p>The budget passed <strong>by two votes</strong>.</p>\n${dynamicBlock(mapId, 'large')}`,
    );
    expect(bySlug['flood-warning']!.status).toBe(0);
    expect(bySlug['flood-warning']!.body).toContain(dynamicBlock(mapId, 'medium'));
    expect(bySlug['flood-warning']!.body).toContain(dynamicBlock(chartId, 'small'));
    // Image syntax inside code is text, not an image.
    expect(bySlug['election-night']!.body).toContain('![not an image](nope.png)');
    expect((await project.records('page'))[0]).toMatchObject({
      title: 'About us',
      content: '<p>We report on the valley.</p>',
    });
    expect((await project.records('breaking'))[0]).toMatchObject({
      title: 'Storm closes the bridge',
      url: 'https://example.com/live/storm',
      slug: 'storm',
    });
  });

  it('makes zero write calls on a second run, and exactly one edit after one file changes', async () => {
    project = await createProject(newsroom());
    expect((await project.run(['apply'])).code).toBe(0);

    project.cms.resetStats();
    const second = await project.run(['apply']);
    expect(second.code).toBe(0);
    expect(project.cms.stats().writes).toBe(0);
    expect(second.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete, 0 to upload, 7 unchanged.');

    await project.write(
      'content/pages/about.md',
      '---\ntitle: About the Valley Times\n---\n\nWe report on the valley.\n',
    );
    project.cms.resetStats();
    const third = await project.run(['apply']);
    expect(third.code).toBe(0);
    expect(third.stdout).toContain('~ page/about  (title)');
    expect(project.cms.stats().byAction).toMatchObject({ 'page.edit': 1 });
    expect(project.cms.stats().writes).toBe(1);
    expect((await project.records('page'))[0]!.title).toBe('About the Valley Times');
  });

  it('renders nothing again on a rerun, and uploads an image again when its file changes', async () => {
    project = await createProject(newsroom());
    await project.run(['apply']);
    const rerun = JSON.parse((await project.run(['apply', '--json'])).stdout) as {
      source: { documents: number; rendered: number };
    };
    expect(rerun.source).toMatchObject({ documents: 7, rendered: 0 });

    await project.write('content/images/chart.png', png(3));
    project.cms.resetStats();
    const result = await project.run(['apply', '--json']);
    const doc = JSON.parse(result.stdout) as {
      source: { rendered: number };
      plan: { changes: Array<{ action: string; key: string; fields?: string[] }> };
    };
    expect(doc.source.rendered).toBe(1);
    expect(doc.plan.changes.filter((c) => c.action === 'update')).toEqual([
      expect.objectContaining({ key: 'article/flood-warning', fields: ['body'] }),
    ]);
    // The new content is unknown to state: the media library is read once before uploading.
    expect(project.cms.stats().byAction).toEqual({
      'media.get': 1,
      'media.upload_from_url': 1,
      'article.edit': 1,
      ...listCalls(),
    });
    const media = await project.records('media');
    const flood = (await project.records('article')).find((a) => a.slug === 'flood-warning')!;
    expect(flood.body).toContain(dynamicBlock(media.at(-1)!.id as number, 'small'));
  });

  it('loads unified and its plugins only when something must be rendered', async () => {
    project = await createProject(newsroom());
    await project.run(['apply']);
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
    // Files changed in the last 2 s are always read again (their times could hide a second save).
    await new Promise((resolve) => setTimeout(resolve, 2100));
    // plan writes nothing anywhere, not even the cache: only apply does.
    expect((await project.run(['plan'])).code).toBe(0);
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
    expect(rerun.source).toEqual({ documents: 7, rendered: 0, hashed: 0 });

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
    'indexes the state on a run with nothing to write, and reads state.json as it is once git changes ' +
      'it',
    async () => {
      project = await createProject(newsroom());
      const index = path.join(project.dir, '.cms-sync/state-index.json');
      const stateFile = path.join(project.dir, '.cms-sync/state.json');
      expect((await project.run(['apply'])).code).toBe(0);
      // A run that wrote state.json leaves indexing it to the next run that writes nothing.
      await expect(stat(index)).rejects.toThrow(/ENOENT/);
      expect((await project.run(['apply'])).code).toBe(0);
      await expect(stat(index)).resolves.toBeDefined();

      // A teammate's state.json comes in (a pull, a merge): the same records, but the about page's
      // inputs recorded differently. The index no longer matches it and must not stand for it.
      const state = JSON.parse(await readFile(stateFile, 'utf8')) as {
        records: Record<string, { input: { hash: string } }>;
      };
      state.records['page/about']!.input.hash = 'written-by-another-version';
      await writeFile(stateFile, `${JSON.stringify(state, null, 2)}\n`);
      const plan = JSON.parse((await project.run(['plan', '--json'])).stdout) as {
        source: Record<string, number>;
      };
      expect(plan.source).toMatchObject({ documents: 7, rendered: 1 });

      // plan wrote nothing (the old index is still there). apply reads state.json in full and
      // records the page's inputs; the run after it, with nothing to write, indexes the new state.json.
      const stale = await readFile(index, 'utf8');
      expect((await project.run(['apply'])).code).toBe(0);
      expect(await readFile(index, 'utf8')).toBe(stale);
      const rerun = JSON.parse((await project.run(['apply', '--json'])).stdout) as {
        source: Record<string, number>;
        result: Record<string, number>;
      };
      expect(rerun.source).toMatchObject({ documents: 7, rendered: 0 });
      expect(rerun.result).toMatchObject({ created: 0, updated: 0, deleted: 0 });
      expect(await readFile(index, 'utf8')).not.toBe(stale);
    },
  );

  it('still makes zero writes on a rerun when the CMS normalises the HTML it stores', async () => {
    project = await createProject(newsroom(), { normalizeHtml: true });
    expect((await project.run(['apply'])).code).toBe(0);
    const stored = (await project.records('article')).find((a) => a.slug === 'budget-vote')!;
    expect(stored.body).not.toContain('\n'); // the CMS really did change what we sent
    project.cms.resetStats();
    expect((await project.run(['apply'])).code).toBe(0);
    expect(project.cms.stats().writes).toBe(0);
  });

  it('plan shows the changes, writes nothing, and --detailed-exitcode exits 2', async () => {
    project = await createProject(newsroom());
    const plan = await project.run(['plan', '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('+ category/politics');
    expect(plan.stdout).toContain('^ upload content/images/map.png  (used by 3)');
    expect(plan.stdout).toContain('Plan: 7 to create, 0 to update, 0 to delete, 2 to upload, 0 unchanged.');
    expect(project.cms.stats().writes).toBe(0);
    expect(await project.records('article')).toEqual([]);

    await project.run(['apply']);
    expect((await project.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('--json leaves stdout to one JSON document', async () => {
    project = await createProject(newsroom());
    const result = await project.run(['apply', '--json']);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as {
      mode: string;
      plan: { counts: Record<string, number> };
      result: { created: number };
    };
    expect(doc.mode).toBe('apply');
    expect(doc.plan.counts).toMatchObject({ create: 7, upload: 2 });
    expect(doc.result.created).toBe(7);
    expect(result.stderr).toContain('Target: ');
  });

  it('deletes a record whose file is gone only with --prune, and never one made by someone else', async () => {
    project = await createProject(newsroom());
    await project.run(['apply']);
    const byHand = await project.api({
      resource: 'page',
      action: 'add',
      data: { title: 'Made in the dashboard', slug: 'by-hand' },
    });

    await project.remove('content/pages/about.md');
    const kept = await project.run(['apply']);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain(
      'page/about  kept: file removed; run with --prune to delete it from the CMS',
    );
    expect((await project.records('page')).map((p) => p.slug)).toEqual(['about', 'by-hand']);

    project.cms.resetStats();
    const pruned = await project.run(['apply', '--prune']);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toContain('- page/about');
    expect(project.cms.stats().byAction).toMatchObject({ 'page.delete': 1 });
    expect((await project.records('page')).map((p) => p.id)).toEqual([byHand.id]);
  });

  it('aborts with exit 3 before any call when more deletes are planned than --max-deletes', async () => {
    project = await createProject(newsroom());
    await project.run(['apply']);
    await project.remove('content/pages/about.md');
    await project.remove('content/breaking/storm.md');
    // A new image too: uploads that start while rendering must not start in a run that aborts.
    await project.write('content/images/new.png', png(9));
    await project.write('content/articles/new-story.md', '---\ntitle: New\n---\n\n![](../images/new.png)\n');
    project.cms.resetStats();
    const result = await project.run(['apply', '--prune', '--max-deletes', '1']);
    expect(result.code).toBe(3);
    expect(result.stdout).toContain(
      'The plan deletes 2 records, more than --max-deletes 1. Nothing was changed.',
    );
    expect(project.cms.stats().writes).toBe(0);
  });

  it('reports broken front matter at its position and leaves that record as it was', async () => {
    project = await createProject(newsroom());
    await project.run(['apply']);
    const before = (await project.records('article')).find((a) => a.slug === 'flood-warning');

    await project.write(
      'content/articles/flood-warning.md',
      '---\ntitle: Flood warning\ntitle: Flood warning, updated\n---\n\nText.\n',
    );
    project.cms.resetStats();
    const result = await project.run(['apply', '--prune']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^content\/articles\/flood-warning\.md:3:1: front matter is not valid YAML: duplicated mapping key/m,
    );
    expect(project.cms.stats().writes).toBe(0);
    expect((await project.records('article')).find((a) => a.slug === 'flood-warning')).toEqual(before);
  });

  it('names file, line and what to do for a missing image, before any call', async () => {
    project = await createProject(newsroom());
    await project.write(
      'content/articles/missing.md',
      '---\ntitle: Missing picture\n---\n\nText.\n\n![Lost](../images/lost.png)\n',
    );
    const result = await project.run(['apply', '--strict']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'content/articles/missing.md:7:1: image `../images/lost.png` not found (looked for content/images/lost.png): ' +
        'fix the path or add the file',
    );
    expect(project.cms.stats().requests).toBe(0);
  });

  it('adopts records by slug when the state is lost, creating nothing twice', async () => {
    project = await createProject(newsroom());
    await project.run(['apply']);
    await project.remove('.cms-sync/state.json');
    project.cms.resetStats();
    const result = await project.run(['apply']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('0 created');
    // Nor uploading twice: the images are found in the library before any upload starts.
    expect(result.stdout).toContain('0 uploaded');
    expect(project.cms.stats().byAction['media.upload_from_url']).toBeUndefined();
    expect(await project.records('media')).toHaveLength(2);
    for (const resource of ['article', 'category', 'page', 'breaking']) {
      const slugs = (await project.records(resource)).map((r) => r.slug);
      expect(new Set(slugs).size).toBe(slugs.length);
    }
  });

  it('says what to check when the CMS refuses the token', async () => {
    project = await createProject(newsroom());
    const result = await project.run(['plan'], { env: { CMS_API_TOKEN: 'wrong-token' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'check the API token (CMS_API_TOKEN) and that the API is enabled in the dashboard settings',
    );
    expect(result.stderr).not.toContain('wrong-token');
  });
});

describe('--refresh=false', () => {
  it('trusts the state: a no-op run makes no call at all, and a changed file makes only its write', async () => {
    project = await createProject({
      'content/pages/about.md': '---\ntitle: About\n---\n\nUs.\n',
      'content/pages/contact.md': '---\ntitle: Contact\n---\n\nWrite to us.\n',
    });
    expect((await project.run(['apply'])).code).toBe(0);
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
    // Enough documents for the worker pool and a rendering phase of a second or more.
    for (let i = 0; i < 300; i++) {
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
    expect(doc.source.rendered).toBe(300);
    expect(doc.result).toMatchObject({ created: 300, uploaded: 300 });
    const uploads = project.cms
      .stats()
      .writeLog.filter((w) => w.action === 'upload_from_url')
      .map((w) => w.at);
    expect(uploads).toHaveLength(300);
    const renderedAt = doc.timings.startedAt + doc.timings.read;
    // Not two phases: the CMS got uploads before the last document was rendered.
    expect(Math.min(...uploads)).toBeLessThan(renderedAt);
    expect(uploads.filter((at) => at < renderedAt).length).toBeGreaterThan(0);

    project.cms.resetStats();
    const rerun = await project.run(['apply', '--json']);
    expect(JSON.parse(rerun.stdout).result).toMatchObject({ created: 0, updated: 0, uploaded: 0 });
    expect(project.cms.stats().writes).toBe(0);
    expect((await project.api({ resource: 'media', action: 'get', limit: 1 })).total).toBe(300);
  });

  it(
    'killed halfway, leaves open only the writes it had in progress, not one per record, and the rerun ' +
      'completes',
    async () => {
      const files: Record<string, string | Buffer> = {
        'content/categories/news.md': '---\nname: News\n---\n',
      };
      for (let i = 0; i < 200; i++)
        files[`content/articles/story-${i}.md`] =
          `---\ntitle: Story ${i}\ncategory: news\n---\n\nParagraph ${i}.\n`;
      // A slow CMS: 200 creates take seconds, and the run is killed once the first has landed.
      project = await createProject(files, { latencyMs: 20 });
      const run = project.spawn(['apply', '--concurrency', '4']);
      await run.waitForLine(/^\+ article\//, { timeoutMs: 30_000 });
      await run.stop({ signal: 'SIGKILL' });

      // Each write is journaled as an intent before it is sent and closed by its record once
      // confirmed: what is still open is what the next run must check in the CMS before it
      // sends anything again. A run that journaled all 200 up front would leave nearly all open.
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
      const pages = [0, 100, 200].map((offset) =>
        project!.api({ resource: 'article', action: 'get', limit: 100, offset, order_by: 'id ASC' }),
      );
      const slugs = (await Promise.all(pages)).flatMap((page: { items: Array<{ slug: string }> }) =>
        page.items.map((a) => a.slug),
      );
      expect(slugs).toHaveLength(200);
      expect(new Set(slugs).size).toBe(200);
    },
  );
});
