import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, SECRET_TOKEN, type Project } from '../e2e/harness.js';
import { SITES } from './hugo-and-jekyll-helpers.js';

let project: Project | undefined;
afterEach(async () => {
  if (project) expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project?.close();
  project = undefined;
});

/** Lines of a plan or apply that are errors (warnings about keys the CMS is not sent are expected). */
function errorsIn(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trim() !== '' && !/: warning: /.test(line));
}

const BLOCK =
  /<dynamic-block data-id="\d+" data-type="media" data-size="medium" contenteditable="false"><\/dynamic-block>/;

// Five runs of the real CLI each, on a machine that may be shared: a generous time limit.
describe('import jekyll, then plan and apply against the local CMS', () => {
  it('Jekyll: drafts stay drafts, dates hold, images upload; the one missing image is found at its line', async () => {
    project = await createProject({});
    const imported = await project.run(['import', 'jekyll', path.join(SITES, 'jekyll')]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(
      /_posts\/2024-05-01-city-news\.md:7: image `\/assets\/img\/missing\.png`/,
    );

    // The report's missing image is what plan refuses, at its line in the written file.
    const first = await project.run(['plan']);
    expect(errorsIn(first.stderr)).toEqual([
      expect.stringMatching(
        /^content\/articles\/city-news\.md:9:1: image `\/assets\/img\/missing\.png` not found/,
      ),
    ]);
    expect(first.code).toBe(1);
    // The writer acts on the report: the reference goes.
    const cityNews = await project.read('content/articles/city-news.md');
    await project.write(
      'content/articles/city-news.md',
      cityNews.replace(/\n!\[Missing picture\][^\n]*\n/, ''),
    );

    const plan = await project.run(['plan']);
    expect(errorsIn(plan.stderr)).toEqual([]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Plan: 15 to create, 0 to update, 0 to delete, 3 to upload, 0 unchanged.');
    expect(plan.stderr).toContain(
      'content/articles/harbour-walk.md:26:1: warning: `{% include %}` of `newsletter.html`',
    );

    const apply = await project.run(['apply']);
    expect(errorsIn(apply.stderr)).toEqual([]);
    expect(apply.code).toBe(0);
    expect(project.cms.stats().byAction['media.upload_from_url']).toBe(3);

    const articles = await project.records('article');
    const bySlug = (slug: string) => articles.find((a) => a.slug === slug)!;
    expect(articles.map((a) => a.slug).sort()).toEqual([
      'city-news',
      'harbour-walk',
      'harbour-walk-es',
      'hello',
      'hello-2024',
      'undated-in-front-matter',
      'unpublished',
      'work-in-progress',
    ]);
    const categories = await project.records('category');
    const id = (slug: string) => categories.find((c) => c.slug === slug)!.id;
    expect(bySlug('harbour-walk')).toMatchObject({
      status: 1,
      created_at: '2024-02-10T13:15:00.000Z',
      category_id: id('travel'),
    });
    expect(bySlug('harbour-walk').body).toMatch(BLOCK);
    expect(bySlug('harbour-walk').body).toContain(
      '<code class="language-ruby">puts "A walk round the harbour"',
    );
    // `{% raw %}` kept by the import is read by sync as Jekyll reads it: shown, not expanded, not warned about.
    expect(bySlug('harbour-walk').body).toContain('<p>In prose: {{ site.title }} and {% if x %}.</p>');
    expect(plan.stderr).not.toMatch(/harbour-walk\.md:\d+:\d+: warning: Liquid/);
    expect(bySlug('harbour-walk-es')).toMatchObject({
      title: 'Un paseo por el puerto',
      category_id: id('travel'),
    });
    expect(bySlug('undated-in-front-matter')).toMatchObject({ created_at: '2024-03-05T05:00:00.000Z' });
    expect(bySlug('undated-in-front-matter').body).toMatch(BLOCK);
    expect(bySlug('unpublished')).toMatchObject({ status: 0 });
    expect(bySlug('work-in-progress')).toMatchObject({ status: 0 });
    expect(bySlug('city-news')).toMatchObject({
      category_id: id('news'),
      created_at: '2024-05-01T12:00:00.000Z',
    });
    expect(bySlug('hello')).toMatchObject({ created_at: '2021-06-01T04:00:00.000Z' });
    expect(bySlug('hello-2024')).toMatchObject({ title: 'Hello again' });
    const pages = await project.records('page');
    expect(pages.map((p) => p.slug).sort()).toEqual(['about', 'contact']);
    // Each page's image is uploaded and bound, the HTML page's too.
    for (const page of pages) expect(page.content).toMatch(BLOCK);
    expect((await project.records('user')).map((u) => u.slug).sort()).toEqual(['ana', 'tom-weller']);

    const again = await project.run(['plan', '--detailed-exitcode']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete, 0 to upload, 15 unchanged.');
  }, 120_000);

  it('Eleventy: posts and pages, the photo (also in {% image %}) uploaded once, a rerun plans nothing', async () => {
    project = await createProject({});
    expect((await project.run(['import', 'jekyll', path.join(SITES, 'eleventy')])).code).toBe(0);
    const apply = await project.run(['apply']);
    expect(errorsIn(apply.stderr)).toEqual([]);
    expect(apply.code).toBe(0);
    expect(project.cms.stats().byAction['media.upload_from_url']).toBe(1);
    const articles = await project.records('article');
    expect(articles.map((a) => [a.slug, a.status, a.created_at]).sort()).toEqual([
      ['first-note', 1, '2024-08-01T00:00:00.000Z'],
      ['second-note', 0, '2024-09-01T00:00:00.000Z'],
    ]);
    // The Markdown image and the `{% image %}` shortcode name one file: one media record, shown twice.
    const ids = [...String(articles.find((a) => a.slug === 'first-note')!.body).matchAll(/data-id="(\d+)"/g)];
    expect(ids.map((m) => m[1])).toEqual([ids[0]![1], ids[0]![1]]);
    expect((await project.records('page')).map((p) => p.slug)).toEqual(['about']);
    const again = await project.run(['plan', '--detailed-exitcode']);
    expect(again.code).toBe(0);
  }, 120_000);
});
