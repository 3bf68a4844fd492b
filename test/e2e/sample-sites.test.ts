import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project } from './harness.js';

/**
 * Two small sites written as writers coming from Hugo and Jekyll write them, in cms-sync's own
 * layout (test/fixtures/sample-content/): synced as they are, end to end against the local CMS.
 */
const FIXTURES = fileURLToPath(new URL('../fixtures/sample-content/', import.meta.url));

async function site(name: string): Promise<Record<string, Buffer>> {
  const root = path.join(FIXTURES, name);
  const files: Record<string, Buffer> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const abs = path.join(entry.parentPath, entry.name);
    files[path.relative(root, abs).split(path.sep).join('/')] = await readFile(abs);
  }
  return files;
}

const BLOCK = /<dynamic-block data-id="(\d+)" data-type="media" data-size="(\w+)" contenteditable="false">/g;

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('sample sites synced as written', () => {
  it('Hugo-like: a bundle, its translation, TOML, shortcodes built in and custom, authors, a page draft', async () => {
    project = await createProject(await site('hugo'));
    const apply = await project.run(['apply']);
    expect(apply.code, apply.stderr).toBe(0);
    // The bundle's other Markdown file is a resource of the bundle, said once; nothing else is wrong.
    expect(apply.stderr).toMatch(/notes\.md/);
    expect(apply.stderr).not.toMatch(/error/i);

    const articles = await project.records('article');
    const bySlug = (slug: string) => articles.find((a) => a.slug === slug)!;
    expect(articles.map((a) => a.slug).sort()).toEqual(['2026-01-05-undated', 'first-trip', 'first-trip-es']);
    const users = await project.records('user');
    const user = (slug: string) => users.find((u) => u.slug === slug)!.id;
    const categories = await project.records('category');
    const category = (slug: string) => categories.find((c) => c.slug === slug)!;
    expect(category('travel').parent_id).toBe(category('news').id);

    const trip = bySlug('first-trip');
    expect(trip).toMatchObject({
      title: 'Our first trip',
      created_at: '2024-03-01T09:00:00.000Z',
      status: 1,
      author_ids: [user('jane'), user('bob')],
      category_id: category('travel').id,
    });
    const [, figureId] = [...String(trip.body).matchAll(BLOCK)][0]!;
    expect(trip.body).toContain('<p class="caption">Arriving in <em>Madrid</em></p>');
    expect(trip.body).toContain('<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ"');
    expect(trip.body).toContain('<aside class="notice">Book early.</aside>');
    expect(trip.body).not.toContain('{{');
    const media = await project.records('media');
    expect(media.find((m) => m.id === Number(figureId))).toMatchObject({ alt: 'The train at dawn' });

    // The translation: its own record, keyed <slug>-es, the same image uploaded once.
    const tripEs = bySlug('first-trip-es');
    expect(tripEs).toMatchObject({ author_id: user('jane'), created_at: '2024-03-02T00:00:00.000Z' });
    expect([...String(tripEs.body).matchAll(BLOCK)][0]![1]).toBe(figureId);
    expect(media).toHaveLength(2);

    // Undated: the file name's date; Hugo's param and highlight expanded.
    expect(bySlug('2026-01-05-undated')).toMatchObject({
      created_at: '2026-01-05T00:00:00.000Z',
      author_id: user('bob'),
    });
    expect(bySlug('2026-01-05-undated').body).toContain('News from the valley');
    expect((await project.records('page'))[0]).toMatchObject({ slug: 'about', status: 0 });

    project.cms.resetStats();
    expect((await project.run(['apply'])).code).toBe(0);
    expect(project.cms.stats().writes).toBe(0);
  });

  it('Jekyll-like: dated file names, published: false, Liquid, baseurl links, an author', async () => {
    project = await createProject(await site('jekyll'));
    const apply = await project.run(['apply']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).not.toMatch(/error/i);

    const articles = await project.records('article');
    const walk = articles.find((a) => a.slug === '2024-02-10-harbour-walk')!;
    const ana = (await project.records('user')).find((u) => u.slug === 'ana')!;
    expect(walk).toMatchObject({ created_at: '2024-02-10T00:00:00.000Z', status: 1, author_id: ana.id });
    expect(walk.body).toContain('Liquid such as {{ page.title }} stays as written.');
    expect(walk.body).toMatch(/<pre><code class="language-ruby">puts "hello"/);
    expect(walk.body).toContain('<a href="/archive/">Archive</a>');
    expect(walk.body).toMatch(BLOCK);
    expect(walk.body).toContain('<p class="caption">Noon</p>');
    expect(articles.find((a) => a.slug === '2024-03-01-unpublished')).toMatchObject({ status: 0 });
    expect((await project.records('page'))[0]).toMatchObject({ slug: 'contact', status: 1 });

    project.cms.resetStats();
    expect((await project.run(['apply'])).code).toBe(0);
    expect(project.cms.stats().writes).toBe(0);
  });
});
