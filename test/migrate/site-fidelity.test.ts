import { afterEach, describe, expect, it } from 'vitest';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex').toString(
  'latin1',
);
import { expandTemplates } from '../../src/render/templates/expand-templates.js';
import { runInProcess } from './helpers.js';
import { projectWithSite } from './hugo-and-jekyll-helpers.js';

let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

const FUTURE = `${new Date().getUTCFullYear() + 5}-06-01`;

describe('import: what the old site did not publish stays unpublished', () => {
  it('Hugo: capitalised keys, draft as a string, a future date or publishDate (unless buildFuture)', async () => {
    project = await projectWithSite('hugo');
    await project.site('h', {
      'hugo.toml': 'baseURL = "https://h.example/"\n',
      'content/posts/caps.md':
        '---\nTitle: Capital Letters\nDate: 2020-01-02\nDraft: true\nCategories: [News]\nWeight: 3\n---\nText.\n',
      'content/posts/string.md': '+++\ntitle = "String"\ndraft = "true"\n+++\nText.\n',
      'content/posts/later.md': `---\ntitle: Later\ndate: ${FUTURE}\n---\nText.\n`,
      'content/posts/scheduled.md': `---\ntitle: Scheduled\ndate: 2020-01-01\npublishDate: ${FUTURE}\n---\nText.\n`,
      'content/posts/live.md': '---\ntitle: Live\ndate: 2020-01-01\ndraft: "false"\n---\nText.\n',
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'h']);
    expect(run.code).toBe(0);
    expect(await project.read('content/articles/caps.md')).toBe(
      '---\ntitle: Capital Letters\ndate: 2020-01-02T00:00:00.000Z\ndraft: true\ncategory: news\n---\n\nText.\n',
    );
    expect(await project.read('content/articles/string.md')).toContain('draft: true\n');
    expect(await project.read('content/articles/later.md')).toContain('draft: true\n');
    expect(await project.read('content/articles/scheduled.md')).toContain('draft: true\n');
    expect(await project.read('content/articles/live.md')).not.toContain('draft');
    expect(run.stdout).toContain(
      `Warning: h/content/posts/later.md:3: dated ${FUTURE}, in the future: the site has not published it yet, ` +
        'so it is imported as a draft; publish it when it is due',
    );
    expect(run.stdout).toContain(`Warning: h/content/posts/scheduled.md:4: dated ${FUTURE}, in the future`);
    // Known keys but for case are read; `Weight` is layout, as `weight` is: nothing to report.
    expect(run.stdout).not.toContain('is not imported');

    await project.site('h', { 'hugo.toml': 'baseURL = "https://h.example/"\nbuildFuture = true\n' });
    const built = await runInProcess(project.dir, ['import', 'hugo', 'h', '--force']);
    expect(built.code).toBe(0);
    expect(await project.read('content/articles/later.md')).not.toContain('draft');
  });

  it('Jekyll: a post dated in the future is a draft unless `future: true`', async () => {
    project = await projectWithSite('jekyll');
    await project.site('j', {
      '_config.yml': 'title: J\n',
      [`_posts/${FUTURE}-soon.md`]: '---\ntitle: Soon\n---\nText.\n',
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'j']);
    expect(run.code).toBe(0);
    expect(await project.read('content/articles/soon.md')).toContain('draft: true\n');
    expect(run.stdout).toContain(`Warning: j/_posts/${FUTURE}-soon.md:1: dated ${FUTURE}, in the future`);
  });
});

describe('import: an escaped Hugo shortcode stays escaped', () => {
  it('in prose, code spans and code blocks, so that sync shows it rather than runs it', async () => {
    project = await projectWithSite('hugo');
    const body = [
      'Write `{{</* youtube w7Ft2ymGmfc */>}}` to embed a video.',
      '',
      '```go-html-template',
      '{{</* figure src="cat.jpg" */>}}',
      '{{%/* notice */%}}',
      '```',
      '',
      'And {{< youtube abc >}} is a real one.',
    ].join('\n');
    await project.site('e', {
      'hugo.toml': 'baseURL = "https://e.example/"\n',
      'content/posts/docs.md': `---\ntitle: Docs\n---\n${body}\n`,
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'e']);
    expect(run.code).toBe(0);
    const written = await project.read('content/articles/docs.md');
    const imported = written.slice(written.indexOf('\n---\n', 4) + 5).trim();
    expect(imported.split('\n').slice(0, 6).join('\n')).toBe(body.split('\n').slice(0, 6).join('\n'));
    expect(imported).toContain('<iframe src="https://www.youtube.com/embed/abc"');
    // What a sync makes of the file: the escaped shortcodes as text, no second player.
    const synced = expandTemplates(imported, { file: 'content/articles/docs.md' }).text;
    expect(synced).toContain('`{{< youtube w7Ft2ymGmfc >}}`');
    expect(synced).toContain('{{< figure src="cat.jpg" >}}\n{{% notice %}}\n');
    expect(synced.match(/<iframe/g)).toHaveLength(1);
  });
});

describe('import: images where the themes keep them', () => {
  it("Hugo's assets/, Eleventy's passthrough copy to the root, Chirpy's media_subpath", async () => {
    project = await projectWithSite('hugo');
    await project.site('h', {
      'hugo.toml': 'baseURL = "https://h.example/"\n',
      'assets/images/chart.png': PNG,
      'content/posts/chart.md': '---\ntitle: Chart\n---\n![Sales](/images/chart.png)\n',
    });
    await project.site('e', {
      'eleventy.config.js':
        'export default function (c) {\n  c.addPassthroughCopy({ "./public/": "/" });\n}\n' +
        'export const config = { dir: { input: "content" } };\n',
      'public/img/logo.png': PNG,
      'content/blog/logo.md': '---\ntitle: Logo\n---\n![Logo](/img/logo.png)\n',
    });
    await project.site('c', {
      '_config.yml': 'theme: jekyll-theme-chirpy\n',
      'assets/img/posts/demo/shot.png': PNG,
      'assets/img/old/shot.png': PNG,
      '_posts/2024-01-01-demo.md':
        '---\ntitle: Demo\nmedia_subpath: /assets/img/posts/demo\n---\n![Screenshot](shot.png)\n',
      '_posts/2023-01-01-old.md': '---\ntitle: Old\nimg_path: /assets/img/old/\n---\n![Shot](shot.png)\n',
    });
    for (const [kind, site] of [
      ['hugo', 'h'],
      ['jekyll', 'e'],
      ['jekyll', 'c'],
    ] as const) {
      const run = await runInProcess(project.dir, ['import', kind, site]);
      expect(run.stdout).not.toContain('Warning');
      expect(run.code).toBe(0);
    }
    expect(await project.read('content/articles/chart.md')).toContain('![Sales](../media/images/chart.png)');
    expect(await project.read('content/articles/logo.md')).toContain('![Logo](../media/img/logo.png)');
    expect(await project.read('content/articles/demo.md')).toContain(
      '![Screenshot](../media/assets/img/posts/demo/shot.png)',
    );
    expect(await project.read('content/articles/old.md')).toContain(
      '![Shot](../media/assets/img/old/shot.png)',
    );
    expect((await project.files()).filter((f) => f.startsWith('content/media/'))).toEqual([
      'content/media/assets/img/old/shot.png',
      'content/media/assets/img/posts/demo/shot.png',
      'content/media/images/chart.png',
      'content/media/img/logo.png',
    ]);
  });

  it("Eleventy's passthrough copy to a folder of its own: the folder's URLs find its files", async () => {
    project = await projectWithSite('eleventy');
    const post = (image: string) => `---\ntitle: First\ndate: 2023-05-10\n---\n![The hero](${image})\n`;
    await project.site('a', {
      // A `)` in a string does not end the call; a pair outside it is not a passthrough copy.
      'eleventy.config.js': [
        'export default function (eleventyConfig) {',
        '  eleventyConfig.addPassthroughCopy({ "src/assets/images": "images", "src/x(1).txt": "x.txt" });',
        '  const other = { "src/assets/other": "other" };',
        '  return { dir: { input: "src", output: "_site" } };',
        '}',
      ].join('\n'),
      'src/assets/images/hero.png': PNG,
      'src/assets/other/o.png': PNG,
      'src/posts/first-post.md': post('/images/hero.png'),
      'src/posts/other.md': post('/other/o.png'),
    });
    await project.site('b', {
      'eleventy.config.js':
        "module.exports = (c) => {\n  c.addPassthroughCopy({ './static/img/': '/images/' });\n" +
        "  c.addPassthroughCopy({ 'static/favicon.png': '/icon.png' });\n" +
        "  return { dir: { input: 'src' } };\n};\n",
      'static/img/hero.png': PNG,
      'static/favicon.png': PNG,
      'src/posts/second.md': post('/images/hero.png') + '![icon](/icon.png)\n',
    });
    const first = await runInProcess(project.dir, ['import', 'jekyll', 'a']);
    expect(first.code).toBe(0);
    expect(await project.read('content/articles/first-post.md')).toContain(
      '![The hero](../media/images/hero.png)',
    );
    // Not copied by the site, so not served: reported as before.
    expect(first.stdout).toContain('a/src/posts/other.md:5: image `/other/o.png` is not in the site');
    const second = await runInProcess(project.dir, ['import', 'jekyll', 'b']);
    expect(second.stdout).not.toContain('Warning');
    expect(await project.read('content/articles/second.md')).toContain(
      '![The hero](../media/images/hero.png)\n![icon](../media/icon.png)',
    );
    expect((await project.files()).filter((f) => f.startsWith('content/media/'))).toEqual([
      'content/media/icon.png',
      'content/media/images/hero.png',
    ]);
  });
});

describe("import: the other generator's template syntax was text, and stays text", () => {
  it('Liquid in a Hugo post, a Hugo shortcode in a Jekyll post', async () => {
    project = await projectWithSite('hugo');
    await project.site('h', {
      'hugo.toml': 'baseURL = "https://h.example/"\n',
      'content/posts/move.md':
        '---\ntitle: Move\n---\nIn Jekyll I wrote {{ site.baseurl }} before links; `{{ .Title }}` in code.\n',
    });
    await project.site('j', {
      '_config.yml': 'title: J\n',
      '_posts/2020-01-01-hugo.md':
        '---\ntitle: Hugo\n---\nHugo embeds with {{< youtube id >}}, in {{ page.title }}.\n',
    });
    expect((await runInProcess(project.dir, ['import', 'hugo', 'h'])).code).toBe(0);
    expect((await runInProcess(project.dir, ['import', 'jekyll', 'j'])).code).toBe(0);
    expect(await project.read('content/articles/move.md')).toContain(
      'In Jekyll I wrote &#123;&#123; site.baseurl }} before links; `{{ .Title }}` in code.\n',
    );
    expect(await project.read('content/articles/hugo.md')).toContain(
      'Hugo embeds with &#123;&#123;< youtube id >}}, in Hugo.\n',
    );
  });
});

describe('import after init', () => {
  it("replaces init's untouched sample pages by the site's own, never one someone edited", async () => {
    project = await projectWithSite('hugo');
    expect((await runInProcess(project.dir, ['init'])).code).toBe(0);
    const edited = (await project.read('content/articles/hello-world.md')).replace('Edit it', 'I edited it');
    await project.site('.', { 'content/articles/hello-world.md': edited });
    await project.site('s', {
      'hugo.toml': 'baseURL = "https://s.example/"\n',
      'content/about.md': '---\ntitle: About the site\n---\nOurs.\n',
      'content/posts/hello-world.md': '---\ntitle: Hello\ncategories: [News]\n---\nOurs too.\n',
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 's']);
    expect(run.code).toBe(0);
    expect(await project.read('content/pages/about.md')).toBe('---\ntitle: About the site\n---\n\nOurs.\n');
    expect(await project.read('content/categories/news.md')).toBe('---\nname: News\n---\n');
    expect(await project.read('content/articles/hello-world.md')).toBe(edited);
    expect(run.stdout).toContain(
      'Warning: content/pages/about.md: the sample `cms-sync init` wrote, unchanged, is replaced by s/content/about.md',
    );
    expect(run.stdout).toContain('content/articles/hello-world.md');
  });
});

describe('import: content in other formats is counted, not passed over', () => {
  it('Hugo .adoc, .org, .html content; Eleventy .njk and .html templates', async () => {
    project = await projectWithSite('hugo');
    await project.site('h', {
      'hugo.toml': 'baseURL = "https://h.example/"\n',
      'content/posts/a.adoc': '---\ntitle: A\n---\n= A\n',
      'content/posts/b.org': '#+TITLE: B\n',
      'content/legacy.html': '---\ntitle: Legacy\n---\n<p>Old.</p>\n',
      'content/posts/c.md': '---\ntitle: C\n---\nC.\n',
    });
    await project.site('e', {
      '.eleventy.js': 'module.exports = () => ({ dir: { input: "src" } });\n',
      'src/about.njk': '---\ntitle: About\n---\n<p>About.</p>\n',
      'src/contact.html': '---\ntitle: Contact\n---\n<p>Write.</p>\n',
      'src/_includes/base.njk': '{{ content | safe }}\n',
      'src/posts/p.md': '---\ntitle: P\n---\nP.\n',
    });
    const hugo = await runInProcess(project.dir, ['import', 'hugo', 'h']);
    expect(hugo.stdout).toContain('       1  content files in .adoc (cms-sync imports Markdown)');
    expect(hugo.stdout).toContain('       1  content files in .org (cms-sync imports Markdown)');
    expect(hugo.stdout).toContain('       1  content files in .html (cms-sync imports Markdown)');
    const eleventy = await runInProcess(project.dir, ['import', 'jekyll', 'e']);
    expect(eleventy.stdout).toContain('       1  Eleventy templates in .njk (cms-sync imports Markdown)');
    expect(eleventy.stdout).toContain('       1  Eleventy templates in .html (cms-sync imports Markdown)');
  });

  it("a Hugo content adapter's pages, which only a Hugo build makes, are named in a warning", async () => {
    project = await projectWithSite('hugo');
    await project.site('h', {
      'hugo.toml': 'baseURL = "https://h.example/"\n',
      'data/books.yaml': '- title: Dune\n  slug: dune\n',
      'content/books/_index.md': '---\ntitle: Books\n---\n',
      'content/books/_content.gotmpl':
        '{{ range site.Data.books }}{{ $.AddPage (dict "title" .title) }}{{ end }}\n',
      'content/posts/c.md': '---\ntitle: C\n---\nC.\n',
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'h']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "Warning: h/content/books/_content.gotmpl: a content adapter makes this section's pages from data when " +
        'Hugo builds the site; cms-sync does not run templates, so those pages are not imported',
    );
  });
});

describe("import: the themes' boxes", () => {
  it('Docsy alert, Relearn notice, Book hint, Hextra callout, LoveIt admonition: titled blockquotes', async () => {
    project = await projectWithSite('hugo');
    const body = [
      '{{% alert title="Back up first" color="warning" %}}',
      'Copy your **data** before you start.',
      '{{% /alert %}}',
      '',
      '{{% notice tip "A tip" %}}',
      'Line one.',
      '',
      '- a list',
      '{{% /notice %}}',
      '',
      '{{< hint danger >}}',
      'Do not.',
      '{{< /hint >}}',
      '',
      '{{< callout type="info" emoji="💡" >}}Short.{{< /callout >}}',
      '',
      '{{< admonition type=note title="Remember" open=true >}}',
      'Text.',
      '{{< /admonition >}}',
    ].join('\n');
    await project.site('h', {
      'hugo.toml': 'baseURL = "https://h.example/"\n',
      'content/posts/boxes.md': `---\ntitle: Boxes\n---\n${body}\n`,
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'h']);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('Warning');
    const written = await project.read('content/articles/boxes.md');
    expect(written.slice(written.indexOf('\n---\n', 4) + 5).trim()).toBe(
      [
        '> **Back up first**',
        '>',
        '> Copy your **data** before you start.',
        '',
        '> **A tip**',
        '>',
        '> Line one.',
        '>',
        '> - a list',
        '',
        '> **Danger**',
        '>',
        '> Do not.',
        '',
        '> **Info**',
        '>',
        '> Short.',
        '',
        '> **Remember**',
        '>',
        '> Text.',
      ].join('\n'),
    );
  });
});

describe('import: kramdown Markdown inside HTML', () => {
  it('a Minimal Mistakes notice marked markdown="1" keeps its Markdown', async () => {
    project = await projectWithSite('jekyll');
    await project.site('j', {
      '_config.yml': 'title: J\n',
      '_posts/2020-01-01-notice.md':
        '---\ntitle: Notice\n---\n<div class="notice--info" markdown="1">\n#### Heads up\nSome **bold**.\n</div>\n',
    });
    expect((await runInProcess(project.dir, ['import', 'jekyll', 'j'])).code).toBe(0);
    expect(await project.read('content/articles/notice.md')).toContain(
      '<div class="notice--info">\n\n#### Heads up\nSome **bold**.\n\n</div>\n',
    );
  });
});

describe('import: dates and tags under the other names the generators read', () => {
  it("Hugo's pubdate, published and lastmod when there is no date; Jekyll's tag", async () => {
    project = await projectWithSite('hugo');
    await project.site('h', {
      'hugo.toml': 'baseURL = "https://h.example/"\n',
      'content/posts/pub.md': '---\ntitle: Pub\nPubDate: 2021-02-03\n---\nText.\n',
      'content/posts/mod.md': '---\ntitle: Mod\nlastmod: 2022-03-04\n---\nText.\n',
      'content/posts/both.md': '---\ntitle: Both\ndate: 2020-01-01\nlastmod: 2022-03-04\n---\nText.\n',
    });
    await project.site('j', {
      '_config.yml': 'title: J\n',
      '_posts/2020-01-01-tagged.md': '---\ntitle: Tagged\ntag: ruby rails\n---\nText.\n',
    });
    const hugo = await runInProcess(project.dir, ['import', 'hugo', 'h']);
    expect(hugo.code).toBe(0);
    expect(hugo.stdout).not.toContain('Warning');
    expect(await project.read('content/articles/pub.md')).toContain('date: 2021-02-03T00:00:00.000Z\n');
    expect(await project.read('content/articles/mod.md')).toContain('date: 2022-03-04T00:00:00.000Z\n');
    expect(await project.read('content/articles/both.md')).toContain('date: 2020-01-01T00:00:00.000Z\n');
    expect((await runInProcess(project.dir, ['import', 'jekyll', 'j'])).code).toBe(0);
    expect(await project.read('content/articles/tagged.md')).toContain('tags:\n  - ruby\n  - rails\n');
  });
});

describe('import: Markdown under its older names', () => {
  it("Jekyll's default markdown_ext (.mkd, .mkdn, .mkdown) and Hugo's .mdown are posts like .md", async () => {
    project = await projectWithSite('jekyll');
    const post = (title: string) => `---\ntitle: ${title}\n---\nText.\n`;
    await project.site('j', {
      '_config.yml': 'title: J\n',
      '_posts/2012-03-01-one.mkd': post('One'),
      '_posts/2012-03-02-two.mkdn': post('Two'),
      '_posts/2012-03-03-three.mkdown': post('Three'),
      '_posts/2012-03-04-four.md': post('Four'),
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'j', '--out', 'a']);
    expect(run.stdout).toContain('articles        4 written');
    await project.site('h', { 'hugo.toml': 'title = "H"\n', 'content/posts/old.mdown': post('Old') });
    await runInProcess(project.dir, ['import', 'hugo', 'h', '--out', 'b']);
    expect(await project.files('b')).toEqual(['b/articles/old.md']);
  });
});

describe('import: a page that turned its templates off', () => {
  it('Jekyll render_with_liquid: false, Eleventy templateEngineOverride: md or no template engine', async () => {
    project = await projectWithSite('jekyll');
    const tutorial = (key: string) =>
      `---\ntitle: Tutorial\n${key}\n---\nWrite {{ title }} to print the title, {% raw %} to escape.\n`;
    await project.site('j', {
      '_config.yml': 'title: J\n',
      '_posts/2024-01-01-t.md': tutorial('render_with_liquid: false'),
    });
    await project.site('e', {
      'eleventy.config.js': 'export default function () {}\n',
      'posts/t.md': tutorial('templateEngineOverride: md'),
    });
    await project.site('f', {
      'eleventy.config.js': 'export default function () { return { markdownTemplateEngine: false }; }\n',
      'posts/t.md': tutorial('tags: posts'),
    });
    const literal = 'Write &#123;&#123; title }} to print the title, &#123;% raw %} to escape.';
    for (const [kind, site] of [
      ['jekyll', 'j'],
      ['jekyll', 'e'],
      ['jekyll', 'f'],
    ] as const) {
      const run = await runInProcess(project.dir, ['import', kind, site, '--out', `out-${site}`]);
      expect(run.stdout).not.toContain('not closed');
      expect(run.stdout).not.toContain('is not imported');
      const [file] = await project.files(`out-${site}`);
      expect(await project.read(file!)).toContain(literal);
    }
  });
});

describe('import hugo: authors in a file each', () => {
  it("Blowfish's and Congo's data/authors/<id>.json give the user's name and bio", async () => {
    project = await projectWithSite('hugo');
    await project.site('a', {
      'hugo.toml': 'title = "A"\n',
      'data/authors/nuno.json': JSON.stringify({ name: 'Nuno Coração', bio: 'Theme designer' }),
      'data/authors/broken.json': '{ "name": ',
      'content/posts/p.md': '---\ntitle: P\ndate: 2024-01-01\nauthors: [nuno]\n---\nText.\n',
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'a']);
    // A file that cannot be read costs that author's profile only.
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('a/data/authors/broken.json: the site configuration cannot be read');
    expect(await project.read('content/users/nuno.md')).toBe(
      '---\nname: Nuno Coração\nbio: Theme designer\n---\n',
    );
  });

  it("Hugo Blox's content/authors/<id>/_index.md gives the user's name, email, role, bio; it is no page", async () => {
    project = await projectWithSite('hugo');
    await project.site('b', {
      'hugo.yaml': 'baseURL: https://lab.example.edu/\ntitle: Lab\n',
      'content/authors/_index.md': '---\ntitle: People\n---\n',
      'content/authors/admin/_index.md': [
        '---',
        'title: Alice Admin',
        'role: Professor of Things',
        'email: "alice@example.edu"',
        'superuser: true',
        '---',
        'Alice is a **professor** of things.',
      ].join('\n'),
      'content/authors/admin/avatar.jpg': 'not really a JPEG',
      // Newer Blox: a short `bio` (the card under a post) and the name in parts.
      'content/authors/bo/_index.md':
        '---\nfirst_name: Bo\nlast_name: Berg\nbio: Studies moss.\n---\nBo has studied moss for years.\n',
      'content/authors/odd/_index.md': '---\ntitle: [unclosed\n---\nOdd.\n',
      'content/post/hello/index.md':
        '---\ntitle: Hello\ndate: 2024-02-02\nauthors: [admin, bo, odd]\n---\nHi.\n',
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'b']);
    expect(run.code).toBe(0);
    expect(await project.read('content/users/admin.md')).toBe(
      '---\nname: Alice Admin\nemail: alice@example.edu\nrole: Professor of Things\n---\n\n' +
        'Alice is a **professor** of things.\n',
    );
    // The short bio is what the byline showed; the page's text stays in the file.
    expect(await project.read('content/users/bo.md')).toBe(
      '---\nname: Bo Berg\nbio: Studies moss.\n---\n\nBo has studied moss for years.\n',
    );
    // One that cannot be read costs that profile only.
    expect(await project.read('content/users/odd.md')).toBe('---\nname: odd\n---\n');
    expect(run.stdout).toMatch(
      /Warning: b\/content\/authors\/odd\/_index\.md:2:\d+: .*; the author `odd` is imported by name only/,
    );
    expect((await project.files()).filter((f) => !f.startsWith('content/users/'))).toEqual([
      'content/articles/hello.md',
    ]);
    // The profiles are not counted as list pages; the authors' own list page is.
    expect(run.stdout).toContain('       1  list pages (_index.md');
  });
});
