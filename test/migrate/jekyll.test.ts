import { afterEach, describe, expect, it } from 'vitest';
import { protectRaw } from '../../src/migrate/site-raw.js';
import { expandTemplates } from '../../src/render/templates/expand-templates.js';
import { createProject } from '../e2e/harness.js';
import { runInProcess } from './helpers.js';
import { projectWithSite, summary } from './hugo-and-jekyll-helpers.js';

let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('import jekyll', () => {
  it('maps _posts, _drafts, published: false, pages, Liquid and assets; reports what it left', async () => {
    project = await projectWithSite('jekyll');
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'site']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(summary(run.stdout)).toBe(
      [
        'Imported Jekyll/Eleventy site site into content/ in Xs:',
        '  articles        8 written',
        '  pages           2 written',
        '  categories      3 written',
        '  breaking        0 written',
        '  users           2 written',
        '  media           3 copied',
        'Skipped:',
        '       1  folders starting with `_`, neither a collection nor under `include` (`_recipes/`: Jekyll does ' +
          'not publish them)',
        "       2  HTML pages the site's templates build (`{% for %}`, `{% if %}`, the home page, 404)",
        '       1  the home page (index.md with no text of its own: its layout builds it)',
        '       1  Markdown files without front matter (Jekyll serves them as they are)',
        '       1  categories beyond the first of a post (the CMS takes one; added to its tags)',
        "Links to the old site's posts and pages: 2 rewritten to their new paths",
        "Warning: site/_posts/2024-06-01-hello.md: its slug `hello` is also site/_posts/2021-06-01-hello.md's; " +
          'written as `hello-2024`',
        'Warning: site/_posts/2024-02-10-harbour-walk.md:24:1: `{% include %}` of `newsletter.html` is left as ' +
          "text: it runs one of the site's templates, which cms-sync cannot; map `include` under " +
          '`markdown.shortcodes` in sync.config.ts (args[0] is the file), or write the content into the file',
        'Warning: site/news/_posts/2024-05-01-city-news.md:7: image `/assets/img/missing.png` is not in the site ' +
          '(looked in site/assets/img/missing.png); left as written: plan reports it until the file is added or the ' +
          'reference removed',
        'Warning: front matter `permalink` is not imported (1 file): site/about.md:4',
        'Next: `cms-sync plan` shows what apply would send.',
        '',
      ].join('\n'),
    );
    expect(await project.files()).toEqual([
      'content/articles/city-news.md',
      'content/articles/harbour-walk-es.md',
      'content/articles/harbour-walk.md',
      'content/articles/hello-2024.md',
      'content/articles/hello.md',
      'content/articles/undated-in-front-matter.md',
      'content/articles/unpublished.md',
      'content/articles/work-in-progress.md',
      'content/categories/maps.md',
      'content/categories/news.md',
      'content/categories/travel.md',
      'content/media/assets/img/harbour.png',
      'content/media/assets/img/map.png',
      'content/media/images/team.png',
      'content/pages/about.md',
      'content/pages/contact.md',
      'content/users/ana.md',
      'content/users/tom-weller.md',
    ]);
    // Jekyll's `-0500`-style offset; {{ site.baseurl }} and relative_url resolved; raw kept, for sync to read.
    expect(await project.read('content/articles/harbour-walk.md')).toBe(
      [
        '---',
        'title: A walk round the harbour',
        'date: 2024-02-10T13:15:00.000Z',
        'category: travel',
        'tags:',
        '  - harbour',
        '  - walking',
        'author: ana',
        'description: An early walk',
        '---',
        '',
        'We started at dawn.',
        '',
        '![Harbour at dawn](../media/assets/img/harbour.png)',
        '',
        '```ruby',
        // Liquid runs before Markdown in Jekyll, in code too: the page's own title.
        'puts "A walk round the harbour"',
        '```',
        '',
        'The template shows {% raw %}`{{ page.title }}`{% endraw %} literally.',
        '',
        '{% raw %}',
        'In prose: {{ site.title }} and {% if x %}.',
        '{% endraw %}',
        '',
        '{% include newsletter.html %}',
        '',
        'Back to [about](/pages/about/).',
        '',
      ].join('\n'),
    );
    // `lang: es` makes a translation; an offset-less date is read in _config.yml's timezone (New York).
    expect(await project.read('content/articles/harbour-walk-es.md')).toContain(
      'slug: harbour-walk\ndate: 2024-02-11T13:15:00.000Z\ncategory: travel\nauthor: ana\nlang: es\n',
    );
    // Undated in front matter: the file name's date, at midnight in New York.
    expect(await project.read('content/articles/undated-in-front-matter.md')).toBe(
      [
        '---',
        'title: Undated in front matter',
        'date: 2024-03-05T05:00:00.000Z',
        'category: travel',
        'tags:',
        '  - maps',
        '  - harbour',
        '---',
        '',
        '<img src="../media/assets/img/map.png" alt="A map of the harbour">',
        '',
        'The date comes from the file name.',
        '',
      ].join('\n'),
    );
    expect(await project.read('content/articles/unpublished.md')).toContain('draft: true\n');
    expect(await project.read('content/articles/work-in-progress.md')).toBe(
      '---\ntitle: Work in progress\ndraft: true\n---\n\nA draft in _drafts.\n',
    );
    expect(await project.read('content/articles/city-news.md')).toContain(
      'category: news\n---\n\nPosted in the news folder, so its category is news. See /articles/harbour-walk/.\n',
    );
    expect(await project.read('content/articles/hello-2024.md')).toContain(
      'authors:\n  - ana\n  - tom-weller\n',
    );
    expect(await project.read('content/users/ana.md')).toBe(
      '---\nname: Ana Ruiz\nemail: ana@example.com\nbio: Harbour pilot and writer.\n---\n',
    );
    expect(await project.read('content/users/tom-weller.md')).toBe('---\nname: Tom Weller\n---\n');
    // An HTML page of text, made Markdown; its image copied like a post's.
    expect(await project.read('content/pages/contact.md')).toBe(
      '---\ntitle: Contact\n---\n\nWrite to [the desk](mailto:desk@example.com), or call us.\n\n' +
        '![Our office by the harbour](../media/assets/img/harbour.png)\n',
    );
    expect(await project.read('content/pages/about.md')).toBe(
      '---\ntitle: About the journal\n---\n\n![The team](../media/images/team.png)\n\n' +
        'We write about the harbour. Read [the latest post](/articles/harbour-walk/).\n',
    );
  });

  it('reads an Eleventy site: input and posts folders, collection tags, passthrough assets, {% image %}', async () => {
    project = await projectWithSite('eleventy');
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'site']);
    expect(run.code).toBe(0);
    expect(summary(run.stdout)).toContain(
      [
        '  articles        2 written',
        '  pages           1 written',
        '  categories      0 written',
        '  breaking        0 written',
        '  users           0 written',
        '  media           1 copied',
        'Skipped:',
        '       1  files with `permalink: false` (Eleventy writes no page for them)',
        "Links to the old site's posts and pages: 1 rewritten to their new paths",
        // Eleventy's front matter is the page's data (`title`); its `page` is computed, not known here.
        'Warning: site/src/posts/2024-08-01-first-note.md:9:32: Liquid output `{{ page.url }}` is left as text: ' +
          '`page.url` is not a value cms-sync knows; cms-sync knows `site.baseurl`, `site.url`, `site.<param>`, ' +
          "the page's front matter and the `url`, `relative_url` and `absolute_url` filters",
        'Warning: site/src/posts/second-note.md:8:1: Liquid tag `callout` ' +
          '(`{% callout "Drafts are not published" %}`) is neither built in nor mapped, so it is left as text',
      ].join('\n'),
    );
    expect(await project.files()).toEqual([
      'content/articles/first-note.md',
      'content/articles/second-note.md',
      'content/media/assets/photo.png',
      'content/pages/about.md',
    ]);
    expect(await project.read('content/articles/first-note.md')).toBe(
      [
        '---',
        'title: First note',
        'date: 2024-08-01T00:00:00.000Z',
        'tags:',
        '  - notes',
        '---',
        '',
        'A photo: ![A small photo](../media/assets/photo.png)',
        '',
        '<img src="../media/assets/photo.png" alt="A photo with the image shortcode">',
        '',
        'This note is “First note”, at {{ page.url }}.',
        '',
      ].join('\n'),
    );
    expect(await project.read('content/articles/second-note.md')).toBe(
      '---\ntitle: Second note\ndate: 2024-09-01T00:00:00.000Z\ndraft: true\n---\n\n' +
        'Back to the [about page](/pages/about/).\n\n{% callout "Drafts are not published" %}\n',
    );
  });

  it('makes a file tagged `posts` in its own front matter a post, wherever it lies', async () => {
    project = await projectWithSite('eleventy');
    await project.site('t', {
      '.eleventy.js': 'module.exports = () => ({});\n',
      'trip.md': '---\ntitle: Trip\ndate: 2024-01-01\ntags: [posts, travel]\n---\nA trip.\n',
      'notes/note.md': '---\ntitle: Note\ndate: 2024-02-01\ntags: post\n---\nA note.\n',
      'about.md': '---\ntitle: About\ntags: travel\n---\nUs.\n',
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 't']);
    expect(run.code).toBe(0);
    expect(await project.files()).toEqual([
      'content/articles/note.md',
      'content/articles/trip.md',
      'content/pages/about.md',
    ]);
    expect(await project.read('content/articles/trip.md')).toBe(
      '---\ntitle: Trip\ndate: 2024-01-01T00:00:00.000Z\ntags:\n  - travel\n---\n\nA trip.\n',
    );
  });

  it("reads a folder's .11tydata.js, .cjs, .mjs as text: `tags` make posts; what it cannot read, it says", async () => {
    project = await projectWithSite('eleventy');
    const essay = (title: string) => `---\ntitle: ${title}\ndate: 2024-01-01\n---\nAn essay.\n`;
    await project.site('e', {
      '.eleventy.js':
        'module.exports = function (eleventyConfig) {\n  return { dir: { input: "src" } };\n};\n',
      'src/writing/writing.11tydata.js':
        'module.exports = {\n  tags: ["posts"],\n  layout: "layouts/post.njk",\n};\n',
      'src/writing/on-gardens.md': essay('On gardens'),
      'src/notes/notes.11tydata.mjs': 'export default () => ({ tags: "posts", layout: "note.njk" });\n',
      'src/notes/a-note.md': essay('A note'),
      // Data that only running the file gives: reported, and its files stay pages.
      'src/essays/essays.11tydata.cjs': 'module.exports = require("../shared.js")("posts");\n',
      'src/essays/long-read.md': essay('Long read'),
      'src/drafts/drafts.11tydata.js': 'const tags = ["posts"];\nmodule.exports = { tags };\n',
      'src/drafts/maybe.md': essay('Maybe'),
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'e']);
    expect(run.code).toBe(0);
    expect(await project.read('content/articles/on-gardens.md')).toBe(
      '---\ntitle: On gardens\ndate: 2024-01-01T00:00:00.000Z\n---\n\nAn essay.\n',
    );
    expect(await project.read('content/articles/a-note.md')).toContain('date: 2024-01-01T00:00:00.000Z');
    expect(await project.read('content/pages/long-read.md')).toContain('title: Long read');
    expect(await project.read('content/pages/maybe.md')).toContain('title: Maybe');
    expect(run.stdout).toContain(
      'Warning: e/src/essays/essays.11tydata.cjs: what it exports is not an object written out as a literal, so ' +
        "its data is not read (a data file is never run); its folder's files are posts only by their own `tags`: " +
        'put its keys in `essays.11tydata.json`\n',
    );
    expect(run.stdout).toContain(
      'Warning: e/src/drafts/drafts.11tydata.js: its `tags` are not written out as plain values, so they are not ' +
        'read (a data file is never run): put its keys in `drafts.11tydata.json`\n',
    );
  });

  it('refuses a folder that is no Jekyll or Eleventy site, and a file', async () => {
    project = await projectWithSite('hugo');
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'site']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'site: no _config.yml, _posts/ or eleventy.config.js: is this the root of a Jekyll or Eleventy site?',
    );
    const file = await runInProcess(project.dir, ['import', 'jekyll', 'site/hugo.toml']);
    expect(file.code).toBe(1);
    expect(file.stderr).toContain('site/hugo.toml: no such folder');
  });
});

describe('import jekyll: kramdown', () => {
  it('removes attribute lists, the table of contents and heading ids, says where; later lines stay right', async () => {
    project = await projectWithSite('hugo');
    await project.site('kd', {
      '_config.yml': 'title: Blog\n',
      '_posts/2020-05-01-styled.md': [
        '---', // 1
        'title: Styled', // 2
        '---', // 3
        'Lead paragraph.', // 4
        '{: .lead}', // 5
        '', // 6
        '* TOC', // 7
        '{:toc}', // 8
        '', // 9
        '## Setup {#setup}', // 10
        '', // 11
        'Run `make`{: .cmd} now.', // 12
        '', // 13
        '{{ page.nothing }}', // 14
        '',
      ].join('\n'),
      '_posts/2020-05-02-plain.md': '---\ntitle: Plain\n---\nNo attributes {here}.\n',
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'kd']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(await project.read('content/articles/styled.md')).toBe(
      [
        '---',
        'title: Styled',
        'date: 2020-05-01T00:00:00.000Z',
        '---',
        '',
        'Lead paragraph.',
        '',
        '## Setup {#setup}',
        '',
        'Run `make` now.',
        '',
        '{{ page.nothing }}',
        '',
      ].join('\n'),
    );
    expect(await project.read('content/articles/plain.md')).toContain('No attributes {here}.');
    const warnings = run.stdout.split('\n').filter((line) => line.startsWith('Warning:'));
    expect(warnings).toEqual([
      // A template after the removed lines is told at its line in the file.
      expect.stringMatching(
        /^Warning: kd\/_posts\/2020-05-01-styled\.md:14:1: Liquid output `\{\{ page\.nothing \}\}`/,
      ),
      'Warning: kramdown attribute lists (`{: .class}`, `{: width="200"}`) removed: the CMS takes no classes or ' +
        'attributes from Markdown (kd/_posts/2020-05-01-styled.md:5, kd/_posts/2020-05-01-styled.md:12)',
      'Warning: tables of contents (`* TOC` and `{:toc}`, `{% include toc %}`) removed: the CMS does not make ' +
        'them (kd/_posts/2020-05-01-styled.md:7)',
    ]);
  });
});

describe('import jekyll: a blog jekyll-import brought from WordPress', () => {
  it('imports HTML posts as Markdown, posts in subfolders, authors as mappings; reports other formats', async () => {
    project = await projectWithSite('hugo');
    await project.site('wp', {
      '_config.yml': 'title: Old blog\n',
      '_posts/2015-05-05-from-wordpress.html': [
        '---',
        'layout: post',
        'title: From WordPress',
        'date: 2015-05-05 10:00:00.000000000 +02:00',
        'published: true',
        'categories:',
        '- News',
        'author:',
        '  login: admin',
        '  email: admin@example.com',
        '  display_name: Ann Admin',
        '---',
        '<p>An <strong>HTML</strong> post on {{ site.title }}.</p>',
        '<p><img src="/wp-content/uploads/2015/05/pic.png" alt="Pic" /></p>',
        '<ul><li>one</li><li>two</li></ul>',
        '',
      ].join('\n'),
      'wp-content/uploads/2015/05/pic.png': 'png',
      '_posts/2019/2019-01-01-nested.md':
        '---\ntitle: Nested\n---\nIn a subfolder.\n\n{% gist parkr/c08ee0f2726fd0e3909d test.md %}\n',
      '_posts/2016-06-06-old.textile': '---\ntitle: Textile\n---\nh1. Old\n',
      // Minimal Mistakes' includes: an image and a video everyone understands, and one only the theme does.
      '_posts/2021-02-02-theme.md': [
        '---',
        'title: Theme',
        '---',
        '{% include toc icon="file" title="Contents" %}',
        '',
        '{% include figure image_path="/wp-content/uploads/2015/05/pic.png" alt="Pic" caption="A *pic*" %}',
        '',
        '{% include video id="XsxDH4HcOWA" provider="youtube" %}',
        '',
        '{% include newsletter.html %}',
        '',
      ].join('\n'),
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'wp']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(summary(run.stdout)).toContain(
      ['Skipped:', '       1  posts in .textile (cms-sync reads Markdown and HTML posts)'].join('\n'),
    );
    expect(await project.files()).toEqual([
      'content/articles/from-wordpress.md',
      'content/articles/nested.md',
      'content/articles/theme.md',
      'content/categories/news.md',
      'content/media/wp-content/uploads/2015/05/pic.png',
      'content/users/ann-admin.md',
    ]);
    expect(await project.read('content/articles/from-wordpress.md')).toBe(
      [
        '---',
        'title: From WordPress',
        'date: 2015-05-05T08:00:00.000Z',
        'category: news',
        'author: ann-admin',
        '---',
        '',
        'An **HTML** post on Old blog.',
        '',
        '![Pic](../media/wp-content/uploads/2015/05/pic.png)',
        '',
        '- one',
        '- two',
        '',
      ].join('\n'),
    );
    expect(await project.read('content/articles/theme.md')).toBe(
      [
        '---',
        'title: Theme',
        'date: 2021-02-02T00:00:00.000Z',
        '---',
        '',
        '<figure><img src="../media/wp-content/uploads/2015/05/pic.png" alt="Pic">' +
          '<figcaption>A <em>pic</em></figcaption></figure>',
        '',
        '<iframe src="https://www.youtube.com/embed/XsxDH4HcOWA" title="YouTube video" allowfullscreen></iframe>',
        '',
        '{% include newsletter.html %}',
        '',
      ].join('\n'),
    );
    expect(run.stdout).toContain(
      'Warning: wp/_posts/2021-02-02-theme.md:10:1: `{% include %}` of `newsletter.html` is left as text: it runs ' +
        "one of the site's templates",
    );
    expect(run.stdout).toContain(
      '`{% include toc %}`) removed: the CMS does not make them (wp/_posts/2021-02-02-theme.md:4)',
    );
    // jekyll-gist's tag, as GitHub's embed script.
    expect(await project.read('content/articles/nested.md')).toContain(
      '<script src="https://gist.github.com/parkr/c08ee0f2726fd0e3909d.js?file=test.md"></script>',
    );
  });
});

describe('import jekyll --link-path', () => {
  it('makes post_url and link to another post or page the pattern, keeping the fragment (the real CLI)', async () => {
    const cli = await createProject({
      'site/_config.yml': 'title: Tiny\n',
      'site/about.md': '---\ntitle: About\n---\nHi.\n',
      'site/_posts/2024-01-02-b.md': '---\ntitle: B\n---\nB.\n',
      'site/_posts/2024-01-01-a.md':
        '---\ntitle: A\n---\n[b]({% post_url 2024-01-02-b %}#part) [about]({% link about.md %})\n',
    });
    try {
      const run = await cli.run(['import', 'jekyll', 'site', '--link-path', '/blog/{slug}/']);
      expect(run.code).toBe(0);
      expect(await cli.read('content/articles/a.md')).toContain('[b](/blog/b/#part) [about](/blog/about/)\n');
    } finally {
      await cli.close();
    }
  });
});

describe('protectRaw', () => {
  const expand = (body: string) => {
    const raw = protectRaw(body);
    const expanded = expandTemplates(raw.text, { file: 'x.md', dialect: 'liquid' });
    return { text: raw.restore(expanded.text), problems: expanded.problems, raw };
  };

  it('keeps {% raw %} in prose for sync, and writes only its inside in code', () => {
    const { text, problems } = expand(
      [
        'Prose {% raw %}{{ a }}{% endraw %} and plain {% raw %}text{% endraw %}.',
        '',
        '{% highlight liquid %}',
        '{% raw %}{{ b }}{% endraw %}',
        '{% endhighlight %}',
      ].join('\n'),
    );
    expect(problems).toEqual([]);
    expect(text).toBe(
      ['Prose {% raw %}{{ a }}{% endraw %} and plain text.', '', '```liquid', '{{ b }}', '```'].join('\n'),
    );
  });

  it('maps lines after a raw block that spans lines back to the file', () => {
    const body = 'a\n{% raw %}\n{{ x }}\n{% endraw %}\n{{ page.y }}\n';
    const { problems, raw } = expand(body);
    expect(problems).toHaveLength(1);
    // `{{ page.y }}` is on line 3 of the set-aside text and on line 5 of the body.
    expect(raw.bodyLine(problems[0]!.line - 1) + 1).toBe(5);
  });
});
