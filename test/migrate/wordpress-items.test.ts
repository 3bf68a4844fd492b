import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyOf, runInProcess } from './helpers.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

interface Post {
  id: number;
  slug: string;
  title?: string;
  content?: string;
  excerpt?: string;
  /** The permalink (the old site's `<link>`). */
  link?: string;
  /** `wp:post_date`, the site-local date permalinks are made of. */
  date?: string;
  meta?: Record<string, string | string[]>;
}

function post(p: Post): string {
  const meta = Object.entries(p.meta ?? {})
    .flatMap(([key, values]) => (Array.isArray(values) ? values : [values]).map((v) => [key, v]))
    .map(
      ([key, value]) =>
        `<wp:postmeta><wp:meta_key>${key}</wp:meta_key>` +
        `<wp:meta_value><![CDATA[${value}]]></wp:meta_value></wp:postmeta>`,
    )
    .join('');
  return `<item><title>${p.title ?? p.slug}</title><link>${p.link ?? `https://blog.example.org/${p.slug}/`}</link>
<dc:creator>admin</dc:creator><guid isPermaLink="false">https://blog.example.org/?p=${p.id}</guid>
<content:encoded><![CDATA[${p.content ?? ''}]]></content:encoded>
<excerpt:encoded><![CDATA[${p.excerpt ?? ''}]]></excerpt:encoded>
<wp:post_id>${p.id}</wp:post_id><wp:post_date_gmt>2015-01-02 03:04:05</wp:post_date_gmt>
<wp:post_date>${p.date ?? '2015-01-02 04:04:05'}</wp:post_date><wp:post_name>${p.slug}</wp:post_name>
<wp:status>publish</wp:status><wp:post_type>post</wp:post_type>${meta}</item>`;
}

/** An attachment of post `parent`: its file's name, and optionally its MIME type and menu order. */
function attachment(id: number, parent: number, file: string, extra = ''): string {
  return `<item><title>${file}</title><wp:post_id>${id}</wp:post_id><wp:post_name>${file.replace(/\W/g, '-')}</wp:post_name>
<wp:status>inherit</wp:status><wp:post_parent>${parent}</wp:post_parent><wp:post_type>attachment</wp:post_type>
<wp:attachment_url>https://blog.example.org/wp-content/uploads/${file}</wp:attachment_url>${extra}</item>`;
}

async function importItems(
  items: string[],
): Promise<{ read: (slug: string) => Promise<string>; stdout: string }> {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-wp-items-'));
  await writeFile(
    path.join(dir, 'export.xml'),
    `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Blog</title><link>https://blog.example.org</link><wp:wxr_version>1.2</wp:wxr_version>
${items.join('\n')}
</channel></rss>`,
  );
  const run = await runInProcess(dir, ['import', 'wordpress', 'export.xml']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const at = dir;
  return {
    read: async (slug) => readFile(path.join(at, 'content/articles', `${slug}.md`), 'utf8'),
    stdout: run.stdout,
  };
}

/** The images of each gallery list in a body, by file name. */
function galleries(body: string): string[][] {
  return body
    .split(/\n\n+/)
    .filter((block) => /^[-*] !\[/.test(block))
    .map((block) => [...block.matchAll(/uploads\/([^)\s]+)/g)].map((m) => m[1]!));
}

describe('import wordpress: [gallery] chooses its images as WordPress did', () => {
  it('honours ids (in order), include, exclude, id and order, and shows images only', async () => {
    const { read } = await importItems([
      post({
        id: 10,
        slug: 'race',
        content: [
          '[gallery]',
          '[gallery include="504,503"]',
          '[gallery exclude="502"]',
          '[gallery id="20"]',
          '[gallery ids="504,505,501"]',
          '[gallery order="DESC"]',
          '[gallery ids="503,501" orderby="ID"]',
        ].join('\n\n'),
      }),
      post({ id: 20, slug: 'last-year', content: 'Text.' }),
      attachment(502, 10, 'blurry.jpg'),
      attachment(501, 10, 'start.jpg'),
      attachment(503, 10, 'finish.JPEG'),
      attachment(504, 10, 'podium', '<wp:post_mime_type>image/png</wp:post_mime_type>'),
      attachment(505, 10, 'results.pdf'),
      attachment(506, 10, 'interview.mp3'),
      attachment(507, 10, 'fake.jpg', '<wp:post_mime_type>application/pdf</wp:post_mime_type>'),
      attachment(508, 10, 'first.jpg', '<wp:menu_order>-1</wp:menu_order>'),
      attachment(601, 20, '2023-start.jpg'),
    ]);
    expect(galleries(bodyOf(await read('race')))).toEqual([
      ['first.jpg', 'start.jpg', 'blurry.jpg', 'finish.JPEG', 'podium'],
      ['finish.JPEG', 'podium'],
      ['first.jpg', 'start.jpg', 'finish.JPEG', 'podium'],
      ['2023-start.jpg'],
      ['podium', 'start.jpg'],
      ['podium', 'finish.JPEG', 'blurry.jpg', 'start.jpg', 'first.jpg'],
      ['start.jpg', 'finish.JPEG'],
    ]);
  });
});

describe('import wordpress: links the old site redirected to a post', () => {
  it("rewrites links to a post's old slugs and dates, and to its bare /<slug>/, as WordPress did", async () => {
    const { read, stdout } = await importItems([
      post({
        id: 10,
        slug: 'second-trip',
        link: 'https://blog.example.org/2024/03/second-trip/',
        content: [
          '<a href="https://blog.example.org/2023/05/our-first-trip/">old slug</a>',
          '<a href="https://blog.example.org/2023/05/iceland/">first old slug</a>',
          '<a href="https://blog.example.org/2023/04/our-first-trip/#map">old date and slug</a>',
          '<a href="https://blog.example.org/2023/04/iceland-2023/">old date</a>',
          '<a href="/iceland-2023/">bare slug</a>',
          '<a href="https://blog.example.org/iceland/">bare old slug</a>',
          '<a href="https://blog.example.org/first-trip/">bare slug of another post</a>',
          '<a href="https://blog.example.org/2023/05/never-was/">missing</a>',
        ].join(' '),
      }),
      post({
        id: 11,
        slug: 'iceland-2023',
        link: 'https://blog.example.org/2023/05/iceland-2023/',
        date: '2023-05-01 10:00:00',
        meta: { _wp_old_slug: ['iceland', 'our-first-trip', 'first-trip'], _wp_old_date: '2023-04-30' },
      }),
      post({ id: 12, slug: 'first-trip', link: 'https://blog.example.org/2020/01/first-trip/' }),
    ]);
    expect(bodyOf(await read('second-trip')).trim()).toBe(
      [
        '[old slug](/articles/iceland-2023/)',
        '[first old slug](/articles/iceland-2023/)',
        '[old date and slug](/articles/iceland-2023/#map)',
        '[old date](/articles/iceland-2023/)',
        '[bare slug](/articles/iceland-2023/)',
        '[bare old slug](/articles/iceland-2023/)',
        '[bare slug of another post](/articles/first-trip/)',
        '[missing](https://blog.example.org/2023/05/never-was/)',
      ].join(' '),
    );
    expect(stdout).toContain(
      "Links to the old site's posts and pages: 7 rewritten to their new paths, 1 left as they were",
    );
    expect(stdout).toContain('post 10 "second-trip": https://blog.example.org/2023/05/never-was/');
  });
});

describe('import wordpress: links to a page of a post split by <!--nextpage-->', () => {
  it('lead to the post, which is one page here; an archive of the same year is no page of a post', async () => {
    const { read, stdout } = await importItems([
      post({
        id: 20,
        slug: 'guide',
        link: 'https://blog.example.org/2023/05/guide/',
        content: '<p>Part one.</p><!--nextpage--><p>Part two.</p><!--nextpage--><p>Part three.</p>',
      }),
      post({ id: 21, slug: '2023', link: 'https://blog.example.org/2023/' }),
      post({
        id: 22,
        slug: 'links',
        content: [
          '<a href="https://blog.example.org/2023/05/guide/2/">page two</a>',
          '<a href="https://blog.example.org/2023/05/guide/3/#step">page three</a>',
          '<a href="https://blog.example.org/?p=20&amp;page=2">plain page two</a>',
          '<a href="https://blog.example.org/2023/05/">archive</a>',
        ].join(' '),
      }),
    ]);
    expect(bodyOf(await read('guide'))).toBe('Part one.\n\nPart two.\n\nPart three.\n');
    expect(bodyOf(await read('links')).trim()).toBe(
      [
        '[page two](/articles/guide/)',
        '[page three](/articles/guide/#step)',
        '[plain page two](/articles/guide/)',
        '[archive](https://blog.example.org/2023/05/)',
      ].join(' '),
    );
    expect(stdout).toContain(
      "Links to the old site's posts and pages: 3 rewritten to their new paths, 1 left as they were",
    );
  });
});

/** A published page, child of `parent` (a post id, 0 for none). */
function page(id: number, slug: string, parent: number, link: string): string {
  return `<item><title>${slug}</title><link>${link}</link><dc:creator>admin</dc:creator>
<content:encoded><![CDATA[<p>${slug}.</p>]]></content:encoded><wp:post_id>${id}</wp:post_id>
<wp:post_name>${slug}</wp:post_name><wp:status>publish</wp:status><wp:post_parent>${parent}</wp:post_parent>
<wp:post_type>page</wp:post_type></item>`;
}

describe('import wordpress: the tree of pages', () => {
  it("keeps a page's parent page as `parent` (its slug), and links to its nested address lead to it", async () => {
    const { stdout } = await importItems([
      page(31, 'team', 30, 'https://blog.example.org/about/team/'),
      page(30, 'about', 0, 'https://blog.example.org/about/'),
      page(32, 'orphan', 99, 'https://blog.example.org/gone/orphan/'),
      post({ id: 33, slug: 'hello', content: '<a href="https://blog.example.org/about/team/">our team</a>' }),
    ]);
    const pages = path.join(dir!, 'content/pages');
    expect(await readFile(path.join(pages, 'team.md'), 'utf8')).toBe(
      '---\ntitle: team\nparent: about\n---\n\nteam.\n',
    );
    expect(await readFile(path.join(pages, 'about.md'), 'utf8')).toBe('---\ntitle: about\n---\n\nabout.\n');
    // Its parent is not in the export: no key.
    expect(await readFile(path.join(pages, 'orphan.md'), 'utf8')).toBe(
      '---\ntitle: orphan\n---\n\norphan.\n',
    );
    expect(stdout).toContain("Links to the old site's posts and pages: 1 rewritten to their new paths");
  });
});

describe('import wordpress: a post without a title (an aside, a status)', () => {
  it('is titled with the first sentence or words of its text, and reported; with no text, its slug', async () => {
    const long =
      'Reading on the train this morning and thinking about how much the city has changed since we ' +
      'moved here';
    const { read, stdout } = await importItems([
      post({ id: 40, slug: '40', title: '', content: '<p>Just landed in Paris! More soon.</p>' }),
      post({ id: 41, slug: '41', title: '', content: `[gallery ids="1,2"]<p>${long}</p>` }),
      post({
        id: 42,
        slug: '42',
        title: '',
        content: '<p><img src="https://blog.example.org/a.jpg" alt=""></p>',
      }),
    ]);
    expect(await read('40')).toMatch(/^---\ntitle: Just landed in Paris!\n/);
    expect(await read('41')).toMatch(
      /^---\ntitle: Reading on the train this morning and thinking about how…\n/,
    );
    expect(await read('42')).toMatch(/^---\ntitle: '42'\n/);
    expect(stdout).toContain(
      'Warning: post 40 "" has no title; titled with the first words of its text: "Just landed in Paris!"',
    );
  });
});

describe('import wordpress: a title with inline HTML', () => {
  it('is written as its text, entities decoded once, and reported', async () => {
    const { read, stdout } = await importItems([
      post({ id: 1, slug: 'review', title: '<![CDATA[Review: <em>The Left Hand of Darkness</em>]]>' }),
      post({
        id: 2,
        slug: 'water',
        title: '<![CDATA[Why H<sub>2</sub>O &lt;3 &amp; CO<sub>2</sub> matter]]>',
      }),
      post({
        id: 3,
        slug: 'tags',
        title: '<![CDATA[Writing &lt;em&gt; in <b class="x">HTML</b><br />today]]>',
      }),
      post({ id: 4, slug: 'plain', title: 'Fish &amp; chips &lt;3' }),
      post({ id: 5, slug: '', title: '<![CDATA[A <i>slug</i> from the text]]>' }),
    ]);
    expect(await read('review')).toContain("title: 'Review: The Left Hand of Darkness'\n");
    expect(await read('water')).toContain('title: Why H2O <3 & CO2 matter\n');
    expect(await read('tags')).toContain('title: Writing <em> in HTML today\n');
    expect(await read('plain')).toContain('title: Fish & chips <3\n');
    expect(await read('a-slug-from-the-text')).toContain('title: A slug from the text\n');
    expect(stdout).toContain(
      '       4  HTML markup in titles (a title is text here: written without its tags): ' +
        'post 1 "Review: The Left Hand of Darkness", post 2 "Why H2O <3 & CO2 matter", ' +
        'post 3 "Writing <em> in HTML today", post 5 "A slug from the text"',
    );
  });
});

describe('import wordpress: [playlist]', () => {
  it('becomes each track title and its player, in order, of the type asked; a missing track is reported', async () => {
    const { read, stdout } = await importItems([
      post({
        id: 10,
        slug: 'album',
        content: [
          'Album:',
          '[playlist ids="703,701,799,704"]',
          'Video:',
          '[playlist type="video" ids="704"]',
          'All of it:',
          '[playlist]',
        ].join('\n\n'),
      }),
      attachment(701, 10, '01-intro.mp3'),
      attachment(702, 10, '02-river.ogg', '<wp:menu_order>5</wp:menu_order>'),
      attachment(703, 10, '03-home.mp3').replace(
        '<title>03-home.mp3</title>',
        '<title>Home &amp; away</title>',
      ),
      attachment(704, 10, 'making-of.mp4'),
      attachment(705, 10, 'cover.jpg'),
    ]);
    const player = (file: string, tag = 'audio') =>
      `<${tag} controls src="https://blog.example.org/wp-content/uploads/${file}">\n</${tag}>`;
    expect(bodyOf(await read('album')).trim()).toBe(
      [
        'Album:',
        'Home & away',
        player('03-home.mp3'),
        '01-intro.mp3',
        player('01-intro.mp3'),
        'Video:',
        'making-of.mp4',
        player('making-of.mp4', 'video'),
        'All of it:',
        '01-intro.mp3',
        player('01-intro.mp3'),
        'Home & away',
        player('03-home.mp3'),
        '02-river.ogg',
        player('02-river.ogg'),
      ].join('\n\n'),
    );
    expect(stdout).toContain(
      '       1  playlist tracks whose attachment is not in the export: post 10 "album"',
    );
    expect(stdout).not.toContain('unknown shortcode');
  });
});

describe('import wordpress: wptexturize', () => {
  it("gives posts, titles and excerpts WordPress's quotes, dashes and ellipses, code as typed, counted", async () => {
    const { read, stdout } = await importItems([
      post({
        id: 1,
        slug: 'party',
        title: "Party's back",
        excerpt: 'The "best" one...',
        content:
          '<p>Don\'t miss it -- the \'90s party is back... "Tickets" 3x4.</p>\n<pre><code>a -- "b"...</code></pre>',
      }),
    ]);
    const text = await read('party');
    expect(text).toContain('title: Party\u2019s back\n');
    expect(text).toContain('excerpt: The \u201cbest\u201d one\u2026\n');
    expect(bodyOf(text).trim()).toBe(
      'Don\u2019t miss it \u2014 the \u201990s party is back\u2026 \u201cTickets\u201d 3\u00d74.\n\n' +
        '```\na -- "b"...\n```',
    );
    expect(stdout).toContain('Converted as the old site showed them: typographic punctuation x11');
  });
});
