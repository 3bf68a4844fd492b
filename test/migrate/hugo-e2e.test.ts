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
  /<dynamic-block data-id="(\d+)" data-type="media" data-size="(\w+)" contenteditable="false"><\/dynamic-block>/g;

// Five runs of the real CLI each, on a machine that may be shared: a generous time limit.
describe('import hugo, then plan and apply against the local CMS', () => {
  it('creates posts, translations, pages, categories, users; one upload per image; a rerun plans nothing', async () => {
    project = await createProject({});
    const imported = await project.run(['import', 'hugo', path.join(SITES, 'hugo')]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('  media           5 copied');

    const plan = await project.run(['plan']);
    expect(errorsIn(plan.stderr)).toEqual([]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Plan: 15 to create, 0 to update, 0 to delete, 5 to upload, 0 unchanged.');
    // What the importer left as text is still said at its line, now in content/.
    expect(plan.stderr).toContain('content/articles/shortcodes-tour.md:37:1: warning: shortcode `timeline`');

    const apply = await project.run(['apply']);
    expect(errorsIn(apply.stderr)).toEqual([]);
    expect(apply.code).toBe(0);
    expect(project.cms.stats().byAction['media.upload_from_url']).toBe(5);

    const articles = await project.records('article');
    const bySlug = (slug: string) => articles.find((a) => a.slug === slug);
    expect(articles.map((a) => a.slug).sort()).toEqual([
      'dated-by-name',
      'draft-idea',
      'first-trip',
      'first-trip-es',
      'hello-world',
      'hello-world-2023',
      'no-date',
      'shortcodes-tour',
    ]);
    const categories = await project.records('category');
    const travel = categories.find((c) => c.slug === 'travel-stories');
    expect(travel).toMatchObject({ name: 'Travel Stories' });
    expect(bySlug('first-trip')).toMatchObject({
      title: 'Our first trip',
      status: 1,
      created_at: '2024-03-01T09:00:00.000Z',
      category_id: travel!.id,
    });
    // Authors are users, and the articles name them by id (relations: author, authors).
    const users = await project.records('user');
    const userId = (slug: string) => users.find((u) => u.slug === slug)!.id;
    expect(users.map((u) => u.slug).sort()).toEqual(['bob', 'jane']);
    expect(bySlug('first-trip')).toMatchObject({ author_ids: [userId('jane'), userId('bob')] });
    expect(bySlug('first-trip-es')).toMatchObject({ author_id: userId('jane') });
    expect(bySlug('shortcodes-tour')).toMatchObject({ author_id: userId('bob') });
    // The translation is a record of its own, with the same image (one upload).
    const trip = bySlug('first-trip')!;
    const tripEs = bySlug('first-trip-es')!;
    expect(tripEs).toMatchObject({ title: 'Nuestro primer viaje', created_at: '2024-03-02T09:00:00.000Z' });
    expect(tripEs.id).not.toBe(trip.id);
    const tripImages = [...String(trip.body).matchAll(BLOCK)].map((m) => [m[1], m[2]]);
    const tripEsImages = [...String(tripEs.body).matchAll(BLOCK)].map((m) => m[1]);
    expect(tripImages).toHaveLength(2);
    expect(tripImages[1]![1]).toBe('large');
    expect(tripEsImages).toEqual([tripImages[0]![0]]);
    // The figure's caption stays in the body, after the media block (markdown.captions: 'paragraph').
    expect(trip.body).toContain('<p class="caption">Arriving in <em>Madrid</em></p>');

    expect(bySlug('draft-idea')).toMatchObject({ status: 0 });
    expect(bySlug('dated-by-name')).toMatchObject({ created_at: '2022-07-03T22:00:00.000Z', status: 1 });
    expect(bySlug('hello-world')).toMatchObject({ created_at: '2019-05-06T07:30:00.000Z' });
    expect(bySlug('hello-world-2023')).toMatchObject({ created_at: '2023-01-15T08:00:00.000Z' });
    const tour = String(bySlug('shortcodes-tour')!.body);
    expect(tour).toContain('<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ"');
    expect(tour).toContain('<script src="https://gist.github.com/jane/7896402.js"></script>');
    expect(tour).toContain('<a href="/articles/first-trip/">our first trip</a>');
    expect([...tour.matchAll(BLOCK)]).toHaveLength(2);

    const pages = await project.records('page');
    expect(pages.map((p) => p.slug).sort()).toEqual(['about', 'about-es', 'contact']);
    expect(pages.find((p) => p.slug === 'about-es')).toMatchObject({ title: 'Sobre nosotros' });
    expect(pages.find((p) => p.slug === 'contact')).toMatchObject({ status: 0 });
    expect(pages.find((p) => p.slug === 'about')).toMatchObject({ status: 1 });
    expect((await project.records('user')).map((u) => u.slug).sort()).toEqual(['bob', 'jane']);
    expect(categories.map((c) => c.slug).sort()).toEqual(['guides', 'travel-stories']);

    const again = await project.run(['plan', '--detailed-exitcode']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete, 0 to upload, 15 unchanged.');
  }, 120_000);
});
