import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProject, dynamicBlock, png, SECRET_TOKEN, type Project } from '../e2e/harness.js';
import { FIXTURES } from './helpers.js';
import { readState } from '../helpers/state.js';

// The old site's media: a loopback server, so the local CMS really downloads what apply uploads.
let media: Server;
let mediaUrl: string;
const served: string[] = [];
beforeAll(async () => {
  media = createServer((req, res) => {
    served.push(req.url ?? '');
    if (!req.url?.endsWith('.png')) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png' }).end(png(req.url.length));
  });
  await new Promise<void>((resolve) => media.listen(0, '127.0.0.1', resolve));
  mediaUrl = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => media.close(() => resolve())));

let project: Project | undefined;
afterEach(async () => {
  if (project) expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project?.close();
  project = undefined;
});

/** Problems plan printed that are errors (warnings about extra front matter are expected). */
function errorsIn(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trim() !== '' && !/: warning: /.test(line));
}

async function fixture(name: string): Promise<string> {
  return (await readFile(path.join(FIXTURES, name), 'utf8')).replaceAll('{{MEDIA}}', mediaUrl);
}

describe('import, then plan and apply against the local CMS', () => {
  it('WordPress: plan has no errors, apply uploads each image once, a second apply writes nothing', async () => {
    project = await createProject({ 'export.xml': await fixture('wordpress/export.xml') });
    // In this process: the import is what plan and apply start from (its CLI is tested in wordpress.test.ts).
    expect((await project.importInProcess({ source: 'wordpress', file: 'export.xml' })).failures).toEqual([]);

    const plan = await project.run(['plan']);
    expect(errorsIn(plan.stderr)).toEqual([]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Plan: 10 to create, 0 to update, 0 to delete, 2 to upload, 0 unchanged.');

    const apply = await project.run(['apply']);
    expect(errorsIn(apply.stderr)).toEqual([]);
    expect(apply.code).toBe(0);
    expect(project.cms.stats().byAction['media.upload_from_url']).toBe(2);

    const articles = await project.records('article');
    const flood = articles.find((a) => a.slug === 'flood-warning');
    const categories = await project.records('category');
    expect(flood).toMatchObject({
      title: 'Flood warning for the valley – what you need to know',
      status: 1,
      created_at: '2024-03-01T08:30:00.000Z',
    });
    expect(flood!.category_id).toBe(categories.find((c) => c.slug === 'local')!.id);
    expect(flood!.body).toMatch(
      /^<p>The river rose <strong>two metres<\/strong> overnight.<br>\nResidents were told to stay home.<\/p>\n<dynamic-block data-id="\d+" data-type="media" data-size="large" contenteditable="false"><\/dynamic-block>/,
    );
    expect(articles.find((a) => a.slug === 'ünïcödé-draft-with-no-slug-yet')).toMatchObject({ status: 0 });
    expect((await project.records('user')).map((u) => u.slug).sort()).toEqual(['anna', 'bob']);

    project.cms.resetStats();
    const again = await project.run(['apply']);
    expect(again.code).toBe(0);
    expect(project.cms.stats().writes).toBe(0);
    expect(again.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete, 0 to upload, 10 unchanged.');
  });

  it('Ghost: with --ghost-url the images upload from the old site, and a second apply writes nothing', async () => {
    project = await createProject({ 'ghost.json': await fixture('ghost/export.json') });
    const imported = await project.importInProcess({
      source: 'ghost',
      file: 'ghost.json',
      ghostUrl: mediaUrl,
    });
    expect(imported.failures).toEqual([]);
    const plan = await project.run(['plan']);
    expect(errorsIn(plan.stderr)).toEqual([]);
    expect(plan.code).toBe(0);
    const apply = await project.run(['apply']);
    expect(apply.code).toBe(0);
    expect(served).toContain('/content/images/2024/03/bridge.png');
    project.cms.resetStats();
    const again = await project.run(['apply']);
    expect(again.code).toBe(0);
    expect(project.cms.stats().writes).toBe(0);
  });
});

describe('pull from a CMS seeded over the API', () => {
  async function seed(p: Project): Promise<{ mediaId: number }> {
    const politics = await p.api({
      resource: 'category',
      action: 'add',
      data: { name: 'Politics', slug: 'politics', description: 'Parliament' },
    });
    await p.api({
      resource: 'category',
      action: 'add',
      data: { name: 'Local politics', slug: 'local-politics', parent_id: politics.id },
    });
    const upload = await p.api({
      resource: 'media',
      action: 'upload_from_url',
      data: { url: `${mediaUrl}/seed/map.png` },
    });
    const mediaId = Number(upload.id ?? upload.media_id);
    await p.api({
      resource: 'article',
      action: 'add',
      data: {
        title: 'Budget: the vote',
        slug: 'budget-vote',
        status: 1,
        created_at: '2026-11-20T09:30:00.000Z',
        category_id: politics.id,
        body:
          `<p>The budget passed <strong>by two ` +
          `votes</strong>.</p>\n${dynamicBlock(mediaId, 'large')}\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>`,
      },
    });
    await p.api({
      resource: 'page',
      action: 'add',
      data: { title: 'About us', slug: 'about', content: '<p>We report on the valley.</p>' },
    });
    await p.api({
      resource: 'breaking',
      action: 'add',
      data: {
        title: 'Storm closes the bridge',
        slug: 'storm',
        url: 'https://example.com/live/storm',
        status: 1,
      },
    });
    await p.api({
      resource: 'user',
      action: 'add',
      data: {
        name: 'Anna Field',
        slug: 'anna',
        email: 'anna@example.com',
        role: 'editor',
        bio: 'Covers politics.',
      },
    });
    return { mediaId };
  }

  it('writes the files, adopts every record, and a plan right after shows zero changes', async () => {
    project = await createProject({});
    const { mediaId } = await seed(project);
    const pull = await project.run(['pull']);
    expect(pull.stderr).toBe('');
    expect(pull.code).toBe(0);
    expect(pull.stdout).toContain(
      'Adopted 6 records; 6 round-trip exactly (their files render to what the CMS holds).\n',
    );
    expect(await project.read('content/articles/budget-vote.md')).toBe(
      [
        '---',
        "title: 'Budget: the vote'",
        'date: 2026-11-20T09:30:00.000Z',
        'status: 1',
        'category: politics',
        '---',
        '',
        'The budget passed **by two votes**.',
        '',
        `![](cms-media:${mediaId} "large")`,
        '',
        '- one',
        '- two',
        '',
      ].join('\n'),
    );
    // A category's parent is a relation: written back by slug.
    expect(await project.read('content/categories/local-politics.md')).toBe(
      '---\nname: Local politics\nparent: politics\n---\n',
    );
    expect(await project.read('content/breaking/storm.md')).toBe(
      "---\ntitle: Storm closes the bridge\nurl: 'https://example.com/live/storm'\nstatus: 1\n---\n",
    );
    expect(await project.read('content/pages/about.md')).toBe(
      '---\ntitle: About us\nstatus: 0\n---\n\nWe report on the valley.\n',
    );
    expect(await project.read('content/users/anna.md')).toBe(
      '---\nname: Anna Field\nemail: anna@example.com\nrole: editor\nbio: Covers politics.\n---\n',
    );
    const state = readState(project.dir);
    expect(state.records['article/budget-vote']).toMatchObject({
      owner: 'adopted',
      file: 'content/articles/budget-vote.md',
    });

    project.cms.resetStats();
    const plan = await project.run(['plan', '--detailed-exitcode']);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete, 0 to upload, 6 unchanged.');
    expect(project.cms.stats().writes).toBe(0);
  });

  it('adopts a record whose HTML its file does not reproduce, says so, and the next plan updates it', async () => {
    project = await createProject({});
    // Markdown renders the same text with other entity forms, which plan compares as written.
    await project.api({
      resource: 'page',
      action: 'add',
      data: { title: 'Odd', slug: 'odd', content: '<p>Tom&nbsp;&amp; Jerry</p>' },
    });
    const pull = await project.run(['pull']);
    expect(pull.code).toBe(0);
    expect(pull.stdout).toContain(
      'Adopted 1 record; 0 round-trip exactly (their files render to what the CMS holds).\n1 differ: the next apply ' +
        'updates them with what their files render to:\n  page/odd (content)\n',
    );
    const plan = await project.run(['plan', '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete, 0 to upload, 0 unchanged.');
  });

  it('never overwrites an existing file without --force', async () => {
    project = await createProject({ 'content/pages/about.md': '---\ntitle: Mine\n---\n' });
    await project.api({
      resource: 'page',
      action: 'add',
      data: { title: 'About us', slug: 'about', content: '<p>Theirs</p>' },
    });
    const pull = await project.run(['pull']);
    expect(pull.stdout).toContain(
      'Not overwritten (1 existing file; --force overwrites):\n  content/pages/about.md\n',
    );
    expect(await project.read('content/pages/about.md')).toBe('---\ntitle: Mine\n---\n');
    await project.run(['pull', '--force']);
    expect(await project.read('content/pages/about.md')).toBe(
      '---\ntitle: About us\nstatus: 0\n---\n\nTheirs\n',
    );
  });
});
