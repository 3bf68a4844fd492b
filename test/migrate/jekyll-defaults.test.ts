import { afterEach, describe, expect, it } from 'vitest';
import { jekyllDefaults } from '../../src/migrate/jekyll-defaults.js';
import { runInProcess } from './helpers.js';
import { projectWithSite } from './hugo-and-jekyll-helpers.js';

let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe("Jekyll's front matter defaults", () => {
  it('merge as Jekyll 4 merges them: a longer path, then a type, takes precedence; mappings deeply', () => {
    const defaults = jekyllDefaults({
      defaults: [
        { scope: { path: '' }, values: { layout: 'single', author: 'ann', header: { overlay: 'x.png' } } },
        { scope: { path: '', type: 'posts' }, values: { layout: 'post', comments: true } },
        { scope: { path: '_posts/2020' }, values: { author: 'ben', header: { teaser: 't.png' } } },
        // Listed after a longer path: merged under it, so `ben` stays.
        { scope: { path: '_posts', type: 'posts' }, values: { author: 'cy', share: true } },
        { scope: { path: 'docs/*/intro.md' }, values: { toc: true } },
        { scope: { type: 'drafts' }, values: { draft_note: true } },
        { scope: { path: 'ignored' } },
      ],
    });
    expect(defaults('_posts/2020/2020-01-01-a.md', 'posts')).toEqual({
      layout: 'post',
      author: 'ben',
      header: { overlay: 'x.png', teaser: 't.png' },
      comments: true,
      share: true,
    });
    expect(defaults('about.md', 'pages')).toEqual({
      layout: 'single',
      author: 'ann',
      header: { overlay: 'x.png' },
    });
    expect(defaults('docs/v1/intro.md', 'pages')).toMatchObject({ toc: true });
    expect(defaults('docs/v1/other.md', 'pages')).not.toHaveProperty('toc');
    // A draft is a post to Jekyll 4: `posts` defaults cover it, `drafts` ones only it.
    expect(defaults('_drafts/b.md', 'drafts')).toMatchObject({ layout: 'post', draft_note: true });
    expect(defaults('_posts/c.md', 'posts')).not.toHaveProperty('draft_note');
    expect(jekyllDefaults({})('a.md', 'pages')).toEqual({});
  });

  it('a Chirpy site: permalinks from defaults, titles from names, the theme-built tabs skipped', async () => {
    project = await projectWithSite('jekyll');
    await project.site('chirpy', {
      '_config.yml': [
        'url: "https://me.example"',
        'collections:',
        '  tabs:',
        '    output: true',
        '    sort_by: order',
        'defaults:',
        '  - scope:',
        '      path: ""',
        '      type: posts',
        '    values:',
        '      layout: post',
        '      permalink: /posts/:title/',
        '      author_profile: true',
        '      image: /assets/img/social-card.png',
        '  - scope:',
        '      path: _tabs',
        '    values:',
        '      layout: page',
        '      permalink: /:title/',
      ].join('\n'),
      '_tabs/about.md':
        '---\nicon: fas fa-info-circle\norder: 4\n---\n\nAbout me. [My post](/posts/hello-world/).\n',
      '_tabs/archives.md': '---\nlayout: archives\nicon: fas fa-archive\norder: 3\n---\n',
      '_posts/2024-01-02-hello-world.md': '---\ndate: 2024-01-02\n---\n\nHi. [About](/about/)\n',
      'assets/img/social-card.png': 'PNG',
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'chirpy']);
    expect(run.code).toBe(0);
    expect(await project.files()).toEqual(['content/articles/hello-world.md', 'content/pages/about.md']);
    expect(await project.read('content/pages/about.md')).toBe(
      '---\ntitle: About\n---\n\nAbout me. [My post](/articles/hello-world/).\n',
    );
    const post = await project.read('content/articles/hello-world.md');
    expect(post).toMatch(/^---\ntitle: Hello World\n/);
    expect(post).toContain('Hi. [About](/pages/about/)');
    // The site's social card for every post is not this post's image.
    expect(post).not.toContain('featured_image');
    expect(run.stdout).toContain("Links to the old site's posts and pages: 2 rewritten to their new paths\n");
    expect(run.stdout).toContain(
      '       1  pages a theme builds from the site (an empty page with a layout such as `archives`',
    );
    expect(run.stdout).not.toContain('no `title`');
    // The file's own keys are reported; what the site's defaults gave every page is not.
    expect(run.stdout).toContain(
      'Warning: front matter `icon` is not imported (1 file): chirpy/_tabs/about.md:2',
    );
    expect(run.stdout).not.toContain('author_profile');
  });
});
