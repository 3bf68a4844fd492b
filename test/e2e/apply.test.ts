import { afterEach, describe, expect, it } from 'vitest';
import { createProject, dynamicBlock, png, SECRET_TOKEN, type Project } from './harness.js';
import { listCalls, newsroom } from './newsroom.js';
import { removeState } from '../helpers/state.js';

// A test's first apply, when it only sets the scene, runs in this process (applyInProcess); the first
// test runs it as a user does, and the CLI runs after it are what each test checks.
let project: Project | undefined;
afterEach(async () => {
  if (project) expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project?.close();
  project = undefined;
});

describe('apply, end to end against the local CMS', () => {
  it('creates everything on the first run, with exact dynamic-blocks and one upload per image', async () => {
    project = await createProject(newsroom());
    const first = await project.run(['apply', '--verbose']);
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
    expect((await project.applyInProcess()).exitCode).toBe(0);

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
    await project.applyInProcess();
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

  it('still makes zero writes on a rerun when the CMS normalises the HTML it stores', async () => {
    project = await createProject(newsroom(), { normalizeHtml: true });
    expect((await project.applyInProcess()).exitCode).toBe(0);
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

    await project.applyInProcess();
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
    await project.applyInProcess();
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
    await project.applyInProcess();
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
    await project.applyInProcess();
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
    await project.applyInProcess();
    await removeState(project.dir);
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
