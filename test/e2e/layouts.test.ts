import { afterEach, describe, expect, it } from 'vitest';
import { createProject, png, type Project } from './harness.js';

const doc = (frontMatter: string, body = '') => `---\n${frontMatter}\n---\n\n${body}\n`;

/** A Hugo-like site: page bundles with their images, translations, list pages, a bundle's own Markdown. */
const site = (config = "export default { languages: { default: 'en', field: 'lang' } };\n") => ({
  'sync.config.ts': config,
  'content/articles/trip/index.md': doc('title: Trip', '![The river](river.png)'),
  'content/articles/trip/index.es.md': doc('title: Viaje', '![El río](river.png)'),
  'content/articles/trip/river.png': png(1),
  'content/articles/trip/notes.md': 'Notes for the trip: {{ a template }}\n',
  'content/articles/trip/data/day1.md': doc('title: Day one'),
  'content/articles/2024/hello.md': doc('title: Hello'),
  'content/articles/2024/hello.pt-br.md': doc('title: Olá'),
  'content/articles/bonjour.md': doc('title: Bonjour\nlang: fr'),
  'content/articles/my.post.md': doc('title: Dots'),
  'content/articles/tech/_index.md': doc('title: Tech'),
  'content/articles/tech/post.md': doc('title: Post'),
  'content/categories/travel/_index.md': doc('name: Travel'),
});

interface JsonRun {
  source: { documents: number; rendered: number };
  plan: { changes: Array<{ action: string; key: string }> };
}

describe('site layouts as writers have them', () => {
  let project: Project | undefined;
  afterEach(async () => {
    await project?.close();
    project = undefined;
  });

  it(
    'syncs page bundles by folder name with their images, translations under their own keys, and not a ' +
      'bundle’s other Markdown files',
    { timeout: 180_000 },
    async () => {
      project = await createProject(site());
      const result = await project.run(['apply']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/also claimed by/);
      expect(result.stderr).toContain(
        'content/articles/trip/index.md:1:1: warning: is a page bundle, so the other Markdown files in its folder ' +
          '(data/day1.md, notes.md) are its resources, not records; move them out of articles/trip/ to sync them on ' +
          'their own',
      );
      expect(result.stderr).toContain(
        'content/articles/tech/_index.md:1:1: warning: is a Hugo list page (`_index.md`), which has no record',
      );

      const articles = Object.fromEntries((await project.records('article')).map((r) => [r.slug, r]));
      expect(Object.keys(articles).sort()).toEqual([
        'bonjour-fr',
        'hello',
        'hello-pt-br',
        'my.post',
        'post',
        'trip',
        'trip-es',
      ]);
      expect(articles.trip!.title).toBe('Trip');
      expect(articles['trip-es']!.title).toBe('Viaje');
      expect([articles.trip!.lang, articles['trip-es']!.lang, articles['bonjour-fr']!.lang]).toEqual([
        'en',
        'es',
        'fr',
      ]);
      // The bundle's image, used by both translations: one upload.
      const media = await project.records('media');
      expect(media).toHaveLength(1);
      for (const slug of ['trip', 'trip-es'])
        expect(String(articles[slug]!.body)).toContain(
          `<dynamic-block data-id="${media[0]!.id}" data-type="media"`,
        );
      expect((await project.records('category')).map((c) => [c.slug, c.name])).toEqual([
        ['travel', 'Travel'],
      ]);

      const rerun = JSON.parse((await project.run(['apply', '--json'])).stdout) as JsonRun;
      expect(rerun.source).toMatchObject({ rendered: 0 });
      expect(rerun.plan.changes.filter((c) => c.action !== 'unchanged')).toEqual([]);

      // Another default language re-keys files whose bytes did not change: index.md, naming no language,
      // is now Spanish like index.es.md, and two files claim one key; hello.md is in Spanish.
      await project.write(
        'sync.config.ts',
        "export default { languages: { default: 'es', field: 'lang' } };\n",
      );
      const planned = await project.run(['plan', '--json']);
      expect(planned.code).toBe(1);
      expect(planned.stderr).toContain(
        'content/articles/trip/index.es.md:1:1: key "article/trip" is also claimed by content/articles/trip/index.md',
      );
      const plan = JSON.parse(planned.stdout) as JsonRun;
      const changed = plan.plan.changes.filter((c) => c.action !== 'unchanged').map((c) => [c.action, c.key]);
      expect(changed).toEqual(
        expect.arrayContaining([
          ['update', 'article/hello'],
          ['update', 'article/my.post'],
        ]),
      );
      // Neither file wins the key, and nothing is deleted.
      expect(changed.filter(([, key]) => key!.startsWith('article/trip')).sort()).toEqual([
        ['keep', 'article/trip'],
        ['keep', 'article/trip-es'],
      ]);
    },
  );
});
