import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultLanguage, itemLanguage } from '../../src/migrate/wp-languages.js';
import { bodyOf, runInProcess } from './helpers.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

interface Item {
  id: number;
  type?: 'post' | 'page';
  slug: string;
  title: string;
  /** Polylang's language slug, and the translation group. */
  lang?: string;
  group?: string;
  /** The language as WPML's Export and Import add-on writes it (post meta). */
  wpml?: string;
  link: string;
  content?: string;
}

// As Polylang exports them: the language and the translation group are terms of the item.
function item(p: Item): string {
  const terms =
    (p.lang ? `<category domain="language" nicename="${p.lang}"><![CDATA[${p.lang}]]></category>` : '') +
    (p.group
      ? `<category domain="post_translations" nicename="${p.group}"><![CDATA[${p.group}]]></category>`
      : '') +
    (p.type === 'page' ? '' : '<category domain="category" nicename="news"><![CDATA[News]]></category>');
  return `<item><title>${p.title}</title><link>${p.link}</link>
<dc:creator>admin</dc:creator><guid isPermaLink="false">https://site.example/?p=${p.id}</guid>
<content:encoded><![CDATA[${p.content ?? `<p>${p.title}.</p>`}]]></content:encoded>
<excerpt:encoded><![CDATA[]]></excerpt:encoded>
<wp:post_id>${p.id}</wp:post_id><wp:post_date_gmt>2021-03-04 05:06:07</wp:post_date_gmt>
<wp:post_date>2021-03-04 06:06:07</wp:post_date><wp:post_name>${p.slug}</wp:post_name>
<wp:status>publish</wp:status><wp:post_type>${p.type ?? 'post'}</wp:post_type>${terms}${
    p.wpml
      ? '<wp:postmeta><wp:meta_key>_wpml_import_language_code</wp:meta_key>' +
        `<wp:meta_value><![CDATA[${p.wpml}]]></wp:meta_value></wp:postmeta>`
      : ''
  }</item>`;
}

// Polylang's own taxonomies, as the channel lists them.
const TERMS = ['language', 'post_translations', 'term_language']
  .map(
    (taxonomy, i) =>
      `<wp:term><wp:term_id>${i + 10}</wp:term_id><wp:term_taxonomy>${taxonomy}</wp:term_taxonomy>` +
      `<wp:term_slug>t${i}</wp:term_slug><wp:term_name><![CDATA[t${i}]]></wp:term_name></wp:term>`,
  )
  .join('\n');

async function importExport(language: string, items: string[]): Promise<{ stdout: string; files: string[] }> {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-wp-polylang-'));
  await writeFile(
    path.join(dir, 'export.xml'),
    `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Site</title><link>https://site.example</link><language>${language}</language>
<wp:wxr_version>1.2</wp:wxr_version>
<wp:author><wp:author_login>admin</wp:author_login>
<wp:author_display_name>Admin</wp:author_display_name></wp:author>
<wp:category><wp:term_id>2</wp:term_id><wp:category_nicename>news</wp:category_nicename>
<wp:cat_name>News</wp:cat_name></wp:category>
${TERMS}
<wp:term><wp:term_id>30</wp:term_id><wp:term_taxonomy>genre</wp:term_taxonomy><wp:term_slug>g</wp:term_slug>
<wp:term_name>G</wp:term_name></wp:term>
${items.join('\n')}
</channel></rss>`,
  );
  const run = await runInProcess(dir, ['import', 'wordpress', 'export.xml']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const files = [];
  for (const folder of ['articles', 'pages'])
    for (const name of (await readdir(path.join(dir, 'content', folder)).catch(() => [])).sort())
      files.push(`${folder}/${name}`);
  return { stdout: run.stdout, files };
}

const read = (file: string) => readFile(path.join(dir!, 'content', file), 'utf8');

describe('import wordpress: Polylang languages', () => {
  it('writes each post and page in another language than the default as its translation', async () => {
    const { stdout, files } = await importExport('fr-FR', [
      item({
        id: 1,
        slug: 'bonjour',
        title: 'Bonjour',
        lang: 'fr',
        group: 'pll_a',
        link: 'https://site.example/bonjour/',
      }),
      item({
        id: 2,
        slug: 'hello',
        title: 'Hello',
        lang: 'en',
        group: 'pll_a',
        link: 'https://site.example/en/hello/',
        content: '<p>Also <a href="https://site.example/bonjour/">en français</a>.</p>',
      }),
      // Polylang lets translations share a slug: each keeps it, with its language.
      item({
        id: 3,
        type: 'page',
        slug: 'contact',
        title: 'Contact',
        lang: 'fr',
        link: 'https://site.example/contact/',
      }),
      item({
        id: 4,
        type: 'page',
        slug: 'contact',
        title: 'Contact us',
        lang: 'en',
        link: 'https://site.example/en/contact/',
      }),
      item({ id: 5, slug: 'ola', title: 'Olá', lang: 'pt-BR', link: 'https://site.example/pt/ola/' }),
      // A link to a translation is rewritten to its new address.
      item({
        id: 6,
        slug: 'liens',
        title: 'Liens',
        lang: 'fr',
        link: 'https://site.example/liens/',
        content: '<p><a href="https://site.example/en/hello/">In English</a></p>',
      }),
    ]);
    expect(files).toEqual([
      'articles/bonjour.md',
      'articles/hello-en.md',
      'articles/liens.md',
      'articles/ola-pt-br.md',
      'pages/contact-en.md',
      'pages/contact.md',
    ]);
    expect(await read('articles/bonjour.md')).toBe(
      '---\ntitle: Bonjour\ndate: 2021-03-04T05:06:07.000Z\ncategory: news\nauthor: admin\n---\n\nBonjour.\n',
    );
    expect(await read('articles/hello-en.md')).toBe(
      '---\ntitle: Hello\nslug: hello\nlang: en\ndate: 2021-03-04T05:06:07.000Z\ncategory: news\n' +
        'author: admin\n---\n\nAlso [en français](/articles/bonjour/).\n',
    );
    expect(await read('pages/contact-en.md')).toBe(
      '---\ntitle: Contact us\nslug: contact\nlang: en\n---\n\nContact us.\n',
    );
    expect(await read('articles/ola-pt-br.md')).toContain('slug: ola\nlang: pt-br\n');
    expect(bodyOf(await read('articles/liens.md'))).toBe('[In English](/articles/hello-en/)\n');
    // The site's default language is French: sync must know it to key the translations.
    expect(stdout).toContain(
      "Warning: the site's default language is `fr`: set `languages: { default: 'fr' }` in sync.config.ts, so " +
        'that its translations keep their keys',
    );
    expect(stdout).toContain(
      'Converted as the old site showed them: translations (Polylang, WPML) out of the default language `fr`, ' +
        'written with `lang:` (sync keys each `<slug>-<lang>`) x3\n',
    );
    // Polylang's taxonomies are read, not skipped as custom ones (the `genre` term is).
    expect(stdout).toMatch(/\n +1 +terms of custom taxonomies \(wp:term\)\n/);
    expect(stdout).not.toContain('post terms of other taxonomies');
  });

  it('plan keys the translations `<slug>-<lang>` (an English site: nothing to configure)', async () => {
    await importExport('en-US', [
      item({ id: 1, slug: 'hello', title: 'Hello', lang: 'en', link: 'https://site.example/hello/' }),
      item({ id: 2, slug: 'hallo', title: 'Hallo', lang: 'de', link: 'https://site.example/de/hallo/' }),
      item({
        id: 3,
        type: 'page',
        slug: 'about',
        title: 'About',
        lang: 'en',
        link: 'https://site.example/about/',
      }),
      item({
        id: 4,
        type: 'page',
        slug: 'about',
        title: 'Über uns',
        lang: 'de',
        link: 'https://site.example/de/about/',
      }),
    ]);
    const plan = await runInProcess(dir!, ['plan']);
    expect(plan.stderr).toBe('');
    for (const key of ['article/hello', 'article/hallo-de', 'page/about', 'page/about-de'])
      expect(plan.stdout).toContain(`+ ${key} `);
  });

  it("reads the language WPML's Export and Import add-on writes", async () => {
    const { stdout, files } = await importExport('es-ES', [
      item({ id: 1, slug: 'hola', title: 'Hola', wpml: 'es', link: 'https://site.example/hola/' }),
      item({ id: 2, slug: 'hello', title: 'Hello', wpml: 'en', link: 'https://site.example/en/hello/' }),
    ]);
    expect(files).toEqual(['articles/hello-en.md', 'articles/hola.md']);
    expect(await read('articles/hello-en.md')).toContain('title: Hello\nslug: hello\nlang: en\n');
    expect(stdout).toContain("set `languages: { default: 'es' }`");
  });

  it('imports a language whose slug is no language tag without a language, and says so', async () => {
    const { stdout, files } = await importExport('en-US', [
      item({ id: 1, slug: 'hello', title: 'Hello', lang: 'english', link: 'https://site.example/hello/' }),
      item({ id: 2, slug: 'hallo', title: 'Hallo', lang: 'de', link: 'https://site.example/de/hallo/' }),
    ]);
    expect(files).toEqual(['articles/hallo.md', 'articles/hello.md']);
    expect(stdout).toContain(
      'Warning: language `english` is not a language tag such as en or pt-br: its post or page is imported ' +
        'without a language',
    );
  });

  it('a site without Polylang is imported as before', async () => {
    const { stdout, files } = await importExport('en-US', [
      item({ id: 1, slug: 'hello', title: 'Hello', link: 'https://site.example/hello/' }),
    ]);
    expect(files).toEqual(['articles/hello.md']);
    expect(stdout).not.toContain('Polylang');
  });
});

describe("WordPress languages: the default one, and an item's", () => {
  it("is the export's <language> when items have it, else the most used", () => {
    const counts = new Map([
      ['en', 3],
      ['fr', 5],
      ['pt-br', 1],
    ]);
    expect(defaultLanguage(counts, 'en-US')).toBe('en');
    expect(defaultLanguage(counts, 'pt_BR')).toBe('pt-br');
    expect(defaultLanguage(counts, 'de-DE')).toBe('fr');
    expect(defaultLanguage(counts, '')).toBe('fr');
    expect(defaultLanguage(new Map(), 'en-US')).toBeUndefined();
  });

  it("reads an item's language term", () => {
    expect(
      itemLanguage({ terms: [{ domain: 'language', slug: 'pt-BR', name: 'Português' }], meta: {} }),
    ).toEqual({
      lang: 'pt-br',
    });
    expect(
      itemLanguage({ terms: [{ domain: 'language', slug: 'english', name: 'English' }], meta: {} }),
    ).toEqual({
      invalid: 'english',
    });
    expect(
      itemLanguage({ terms: [{ domain: 'category', slug: 'fr', name: 'fr' }], meta: {} }),
    ).toBeUndefined();
    // WPML's Export and Import add-on.
    expect(itemLanguage({ terms: [], meta: { _wpml_import_language_code: 'zh-hans' } })).toEqual({
      lang: 'zh-hans',
    });
  });
});
