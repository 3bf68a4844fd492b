import { afterEach, describe, expect, it } from 'vitest';
import { rewriteUrls } from '../../src/migrate/markdown-urls.js';
import {
  eleventyAddresses,
  hugoAddresses,
  jekyllAddresses,
  type PageFacts,
} from '../../src/migrate/site-addresses.js';
import { bodyOf, runInProcess } from './helpers.js';
import { projectWithSite } from './hugo-and-jekyll-helpers.js';

let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** The body of a written file, trimmed. */
const body = async (file: string) => bodyOf(await project!.read(file)).trim();

function page(facts: Partial<PageFacts> & { place: string }): PageFacts {
  return {
    data: {},
    title: 'Hello, World',
    nameSlug: 'hello',
    date: new Date('2024-01-02T03:30:00Z'),
    categories: [],
    lang: undefined,
    folder: 'articles',
    ...facts,
  };
}

describe('addresses of a page on the old site', () => {
  it("Hugo: a section's permalink pattern, its default, url, aliases, languages, ugly URLs", () => {
    const plain = hugoAddresses({}, 'en', 'UTC');
    expect(plain(page({ place: 'posts/hello.md' }))).toEqual(['/posts/hello/']);
    expect(plain(page({ place: 'posts/2024/hello/index.md' }))).toEqual(['/posts/2024/hello/']);
    expect(plain(page({ place: 'about.md', folder: 'pages', nameSlug: 'about' }))).toEqual(['/about/']);
    // A date in the name stays in Hugo's default address, unless the site takes it out.
    expect(plain(page({ place: 'posts/2024-01-02-hello.md' }))).toEqual([
      '/posts/2024-01-02-hello/',
      '/posts/hello/',
    ]);
    expect(plain(page({ place: 'posts/hello.md', data: { slug: 'hi' } }))).toEqual(['/posts/hi/']);
    expect(
      plain(page({ place: 'posts/hello.md', data: { url: '/custom/path/', aliases: ['/old/', 'older'] } })),
    ).toEqual(['/custom/path/', '/old/', '/posts/older']);
    expect(plain(page({ place: 'posts/hello.es.md', lang: 'es' }))).toEqual(['/es/posts/hello/']);

    const patterned = hugoAddresses(
      { permalinks: { posts: '/:year/:month/:slug/', page: { news: '/:section/:day/:filename/' } } },
      'en',
      // 03:30 UTC on 2 January is still 1 January in New York.
      'America/New_York',
    );
    expect(patterned(page({ place: 'posts/hello.md' }))).toEqual(['/2024/01/hello-world/']);
    expect(patterned(page({ place: 'news/hello/index.md' }))).toEqual(['/news/01/hello/']);

    const ugly = hugoAddresses({ uglyURLs: true, defaultContentLanguageInSubdir: true }, 'en', 'UTC');
    expect(ugly(page({ place: 'posts/hello.md', lang: 'en' }))).toEqual(['/en/posts/hello.html']);
  });

  it("Jekyll: each permalink style, a pattern, a post's own permalink, pages as .html and folders", () => {
    const facts = page({ place: '_posts/2024-01-02-hello.md', categories: ['News', 'Local News'] });
    const address = (permalink?: string, more: Partial<PageFacts> = {}) =>
      jekyllAddresses(permalink ? { permalink } : {}, 'UTC')({ ...facts, ...more });
    expect(address()).toEqual(['/news/local news/2024/01/02/hello.html']);
    expect(address('pretty')).toEqual(['/news/local news/2024/01/02/hello/']);
    expect(address('ordinal')).toEqual(['/news/local news/2024/002/hello.html']);
    expect(address('weekdate')).toEqual(['/news/local news/2024/W01/Tue/hello.html']);
    expect(address('none')).toEqual(['/news/local news/hello.html']);
    expect(address('/blog/:year/:slugified_categories/:title/')).toEqual([
      '/blog/2024/news/local-news/hello/',
    ]);
    expect(address(undefined, { data: { permalink: '/special/' } })).toEqual(['/special/']);
    expect(address(undefined, { data: { slug: 'hi' }, categories: [] })).toEqual(['/2024/01/02/hi.html']);
    // The site's time zone decides the day.
    expect(jekyllAddresses({}, 'America/New_York')({ ...facts, categories: [] })).toEqual([
      '/2024/01/01/hello.html',
    ]);

    const pages = jekyllAddresses({}, 'UTC');
    expect(pages(page({ place: 'about.md', folder: 'pages' }))).toEqual(['/about/', '/about.html']);
    expect(pages(page({ place: 'docs/index.md', folder: 'pages' }))).toEqual(['/docs/']);
    expect(
      pages(page({ place: 'contact.html', folder: 'pages', data: { permalink: '/contact/index.html' } })),
    ).toEqual(['/contact/']);
  });

  it('Eleventy: a plain permalink, else the file as a folder; a templated permalink is not known', () => {
    const address = eleventyAddresses();
    expect(address(page({ place: 'posts/2024-01-02-hello.md' }))).toEqual(['/posts/2024-01-02-hello/']);
    expect(address(page({ place: 'posts/index.md' }))).toEqual(['/posts/']);
    expect(address(page({ place: 'about.md', data: { permalink: '/about-us/' } }))).toEqual(['/about-us/']);
    expect(address(page({ place: 'x.md', data: { permalink: '/{{ title | slugify }}/' } }))).toEqual(['/x/']);
  });
});

describe('rewriteUrls: links', () => {
  const to = (url: string) => (url.startsWith('/old/') ? `/new/${url.slice(5)}` : undefined);

  it('rewrites inline, reference-style, HTML and autolinks; images, code and the rest stay as they were', () => {
    const source = [
      '[a](/old/a "Title") [![pic](/old/pic.png)](/old/b) [c](<(/old/c)>) [kept](/elsewhere/)',
      '',
      'See [the post][p] and ![logo][p2], or <https://x.example/> and </old/auto>.',
      '',
      '[p]: /old/p',
      '[p2]: /old/logo.png',
      '',
      '<p><a class="x" href=\'/old/html\'>html</a></p>',
      '',
      '    [indented code](/old/code)',
      '',
      'Inline `[code](/old/inline)` too.',
    ].join('\n');
    expect(rewriteUrls(source, { link: to })).toBe(
      [
        '[a](/new/a "Title") [![pic](/old/pic.png)](/new/b) [c](<(/old/c)>) [kept](/elsewhere/)',
        '',
        'See [the post][p] and ![logo][p2], or <https://x.example/> and </old/auto>.',
        '',
        '[p]: /new/p',
        '[p2]: /old/logo.png',
        '',
        '<p><a class="x" href="/new/html">html</a></p>',
        '',
        '    [indented code](/old/code)',
        '',
        'Inline `[code](/old/inline)` too.',
      ].join('\n'),
    );
    expect(rewriteUrls('<https://old.example/a/>', { link: () => '/articles/a/' })).toBe(
      '[https://old.example/a/](/articles/a/)',
    );
  });
});

describe('import: links to the old site become the new paths', () => {
  it('Hugo: permalinks, base path, site URL, relative links, files, translations; the rest reported', async () => {
    project = await projectWithSite('hugo');
    await project.site('links', {
      'hugo.toml': [
        'baseURL = "https://www.example.org/blog/"',
        'defaultContentLanguage = "en"',
        '[permalinks]',
        '  posts = "/:year/:month/:slug/"',
        '[languages.en]',
        '[languages.es]',
      ].join('\n'),
      'content/about.md': '---\ntitle: About\naliases: ["/who-we-are/"]\n---\nHi.\n',
      'content/about.es.md': '---\ntitle: Acerca\n---\nHola.\n',
      'content/posts/first/index.md': '---\ntitle: First\ndate: 2024-03-05\n---\nOne.\n',
      'content/posts/second.md': [
        '---',
        'title: Second post',
        'date: 2024-04-06T10:00:00Z',
        '---',
        'Root-relative with the base path: [first](/blog/2024/03/first/#part).',
        'On the site: [about](https://example.org/blog/about/), [alias](/blog/who-we-are).',
        'Relative: [first again](../../03/first/). By file: [about](../about.md) and [es](../about.es.md).',
        'Translation: [acerca](/blog/es/about/). [Tags](/blog/tags/go/) were not imported.',
        'Elsewhere: [other](https://other.example/blog/about/), [mail](mailto:a@b.c), [top](#top).',
        'A file: [slides](/blog/files/talk.pdf).',
        '',
        '```',
        '[in code](/blog/2024/03/first/)',
        '```',
      ].join('\n'),
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'links']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      [
        "Links to the old site's posts and pages: 7 rewritten to their new paths, 1 left as they were (no " +
          'imported post or page there):',
        '  links/content/posts/second.md:8: /blog/tags/go/',
      ].join('\n'),
    );
    expect(await body('content/articles/second.md')).toBe(
      [
        'Root-relative with the base path: [first](/articles/first/#part).',
        'On the site: [about](/pages/about/), [alias](/pages/about/).',
        'Relative: [first again](/articles/first/). By file: [about](/pages/about/) and [es](/pages/about-es/).',
        'Translation: [acerca](/pages/about-es/). [Tags](/blog/tags/go/) were not imported.',
        'Elsewhere: [other](https://other.example/blog/about/), [mail](mailto:a@b.c), [top](#top).',
        'A file: [slides](/blog/files/talk.pdf).',
        '',
        '```',
        '[in code](/blog/2024/03/first/)',
        '```',
      ].join('\n'),
    );
  });

  it("Jekyll: the site's permalink style, categories, baseurl in Liquid, .html pages, --link-path", async () => {
    project = await projectWithSite('jekyll');
    await project.site('j', {
      '_config.yml': 'url: https://j.example\nbaseurl: /news\ntimezone: Europe/Madrid\n',
      'about.md': '---\ntitle: About\n---\nHi.\n',
      'local/_posts/2023-12-31-late.md':
        '---\ntitle: Late\ndate: 2023-12-31 23:30:00 +0000\ncategories: [City Hall]\n---\nLate.\n',
      '_posts/2024-02-01-links.md': [
        '---',
        'title: Links',
        '---',
        // New Year in Madrid: the address has 2024/01/01, as Jekyll wrote it.
        '[late]({{ site.baseurl }}/local/city%20hall/2024/01/01/late.html) ' +
          '[about](https://j.example/news/about.html) [about too]({{ "/about/" | relative_url }})',
        '',
        '[self]({% post_url 2024-02-01-links %}) [gone](/news/2020/01/01/gone.html)',
      ].join('\n'),
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'j', '--link-path', '/{slug}/']);
    expect(run.code).toBe(0);
    expect(await body('content/articles/links.md')).toBe(
      [
        '[late](/late/) [about](/about/) [about too](/about/)',
        '',
        '[self](/links/) [gone](/news/2020/01/01/gone.html)',
      ].join('\n'),
    );
    expect(run.stdout).toContain(
      "Links to the old site's posts and pages: 3 rewritten to their new paths, 1 left as they were",
    );
    expect(run.stdout).toContain('  j/_posts/2024-02-01-links.md:6: /news/2020/01/01/gone.html');
  });

  it('lists the first ten unmatched links of a file by line, and counts the rest', async () => {
    project = await projectWithSite('hugo');
    const links = Array.from({ length: 12 }, (_, n) => `[tag ${n}](/tags/t${n}/)`).join('\n');
    await project.site('many', {
      'hugo.toml': 'baseURL = "https://m.example/"\n',
      'content/posts/p.md': `---\ntitle: P\n---\n${links}\n`,
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'many']);
    expect(run.stdout).toContain('0 rewritten to their new paths, 12 left as they were');
    expect(run.stdout).toContain(
      '  many/content/posts/p.md:13: /tags/t9/\n  many/content/posts/p.md: and 2 more\n',
    );
  });

  it('a relative link the URL parser refuses is left as it was, and the import goes on', async () => {
    project = await projectWithSite('hugo');
    await project.site('odd', {
      'hugo.toml': 'baseURL = "https://o.example/"\n',
      // Backslashes read as slashes: `\\[x` is a host named `[x`, which no URL may have.
      'content/posts/p.md': '---\ntitle: P\n---\n<a href="\\\\[x">odd</a> and [next](/posts/q/).\n',
      'content/posts/q.md': '---\ntitle: Q\n---\nQ.\n',
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'odd']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(await body('content/articles/p.md')).toBe('<a href="\\\\[x">odd</a> and [next](/articles/q/).');
  });

  it('a site address that is not a URL is passed over, and the import goes on', async () => {
    project = await projectWithSite('hugo');
    await project.site('badbase', {
      'hugo.toml': 'baseURL = "https://bad host/blog/"\n',
      'content/posts/p.md': '---\ntitle: P\n---\n[next](/posts/q/) ![x](https://bad host/x.png)\n',
      'content/posts/q.md': '---\ntitle: Q\n---\nQ.\n',
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'badbase']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(await body('content/articles/p.md')).toContain('[next](/articles/q/)');
  });

  it('Jekyll: collections with output are pages at their permalink, `include`d folders are read', async () => {
    project = await projectWithSite('jekyll');
    await project.site('c', {
      '_config.yml': [
        'include: [_pages]',
        'collections_dir: my',
        'collections:',
        '  projects: { output: true, permalink: "/work/:path/" }',
        '  talks: { output: true }',
        '  notes: { output: false }',
      ].join('\n'),
      '_pages/about.md': '---\ntitle: About me\npermalink: /about/\n---\nHi.\n',
      'my/_projects/alpha.md': '---\ntitle: Alpha\n---\nA project.\n',
      'my/_talks/2023-05-01-lisbon.md': '---\ntitle: Lisbon\n---\nA talk.\n',
      'my/_notes/private.md': '---\ntitle: Private\n---\nNot published.\n',
      '_posts/2024-01-01-p.md':
        '---\ntitle: P\n---\n[a](/work/alpha/) [t](/talks/2023-05-01-lisbon.html) [me](/about/)\n',
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'c']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '       1  collections without `output: true` (`_notes/`: Jekyll writes no pages for them)',
    );
    expect(run.stdout).toContain("Links to the old site's posts and pages: 3 rewritten to their new paths\n");
    expect(await project.files()).toEqual([
      'content/articles/p.md',
      'content/pages/about.md',
      'content/pages/alpha.md',
      'content/pages/lisbon.md',
    ]);
    expect(await body('content/articles/p.md')).toBe(
      '[a](/pages/alpha/) [t](/pages/lisbon/) [me](/pages/about/)',
    );
  });
});

describe('import: the base path before a link already made new', () => {
  it("Jekyll's {{ site.baseurl }}{% post_url %} and {% link %}, also after the site's url", async () => {
    project = await projectWithSite('jekyll');
    await project.site('b', {
      '_config.yml': 'baseurl: /blog\nurl: https://me.example\n',
      '_posts/2024-01-01-world.md': '---\ntitle: World\n---\nW.\n',
      'about.md': '---\ntitle: About\n---\nA.\n',
      '_posts/2024-01-02-hello.md': [
        '---',
        'title: Hello',
        '---',
        '[next]({{ site.baseurl }}{% post_url 2024-01-01-world %}), [about]({{ site.baseurl }}{% link about.md %}),',
        '[full]({{ site.url }}{{ site.baseurl }}{% post_url 2024-01-01-world %}#top).',
      ].join('\n'),
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'b']);
    expect(await body('content/articles/hello.md')).toBe(
      '[next](/articles/world/), [about](/pages/about/),\n[full](/articles/world/#top).',
    );
    expect(run.stdout).not.toContain('left as they were');
  });
});

describe('import: jekyll-redirect-from', () => {
  it('a link to a redirect_from address reaches the post; a redirect_to page is counted as skipped', async () => {
    project = await projectWithSite('jekyll');
    await project.site('r', {
      '_config.yml': 'title: R\n',
      '_posts/2024-01-01-new-name.md':
        '---\ntitle: New\nredirect_from: [/old-name/, /2019/old.html]\n---\nN.\n',
      '_posts/2024-01-02-links.md': '---\ntitle: Links\n---\n[a](/old-name/) and [b](/2019/old.html)\n',
      'elsewhere.md': '---\ntitle: Moved\nredirect_to: https://other.example/\n---\n',
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'r']);
    expect(await body('content/articles/links.md')).toBe(
      '[a](/articles/new-name/) and [b](/articles/new-name/)',
    );
    expect(run.stdout).toContain('pages that only redirect elsewhere (`redirect_to`)');
    expect(await project.files()).not.toContain('content/pages/elsewhere.md');
  });
});
