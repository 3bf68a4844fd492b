import { afterEach, describe, expect, it } from 'vitest';
import { convertContainers, MAX_CONTAINER_DEPTH, type ContainerRules } from '../../src/migrate/containers.js';
import { containerRules } from '../../src/migrate/jekyll.js';
import { renderMarkdown } from '../../src/render/render-markdown.js';
import { runInProcess } from './helpers.js';
import { projectWithSite } from './hugo-and-jekyll-helpers.js';

const ANY: ContainerRules = {};
const named = (entries: Record<string, boolean>): ContainerRules => ({
  names: new Map(Object.entries(entries).map(([name, ownRender]) => [name, { ownRender }])),
});
const html = (markdown: string) => renderMarkdown(markdown, { defaultSize: 'medium' }).html;

describe("convertContainers: markdown-it-container's blocks as its default render makes them", () => {
  it('writes a block as a div around its Markdown, which renders as Markdown', () => {
    const converted = convertContainers(
      'Before.\n::: warning Careful now\n*here be dragons*\n:::\nAfter.\n',
      ANY,
    );
    expect(converted.text).toBe(
      'Before.\n\n<div class="warning">\n\n*here be dragons*\n\n</div>\n\nAfter.\n',
    );
    expect(converted.count).toBe(1);
    expect(html(converted.text)).toBe(
      '<p>Before.</p>\n<div class="warning">\n<p><em>here be dragons</em></p>\n</div>\n<p>After.</p>',
    );
  });

  it('nests a block inside one of more colons, and closes at the first line of as many colons or more', () => {
    const text = [':::: outer', '::: inner', 'Deep.', ':::', 'Shallow.', '::::', ''].join('\n');
    expect(convertContainers(text, ANY).text).toBe(
      [
        '<div class="outer">',
        '',
        '<div class="inner">',
        '',
        'Deep.',
        '',
        '</div>',
        '',
        'Shallow.',
        '',
        '</div>',
        '',
      ].join('\n'),
    );
    // With as many colons, the first closing line closes the outer block, as the plugin reads it:
    // the inner one ends with it, and the second closing line is text.
    const same = convertContainers(['::: a', '::: b', 'x', ':::', ':::', ''].join('\n'), ANY).text;
    expect(html(same)).toBe('<div class="a">\n<div class="b">\n<p>x</p>\n</div>\n</div>\n<p>:::</p>');
  });

  it('runs a block that is never closed to the end of the document', () => {
    expect(convertContainers('::: tip\nStill in it.\n', ANY).text).toBe(
      '<div class="tip">\n\nStill in it.\n\n</div>',
    );
  });

  it('leaves code alone: a fence outside any block, and a line indented four spaces', () => {
    const fenced = '```md\n::: tip\nnot a block\n:::\n```\n';
    expect(convertContainers(fenced, ANY)).toEqual({ text: fenced, count: 0, ownRender: [] });
    const indented = 'Text.\n\n    ::: tip\n    code\n    :::\n';
    expect(convertContainers(indented, ANY).count).toBe(0);
  });

  it('leaves blocks nested deeper than any page as text, in time, however many openings a file has', () => {
    const openings = '::: a\n'.repeat(100_000);
    const converted = convertContainers(openings, ANY);
    expect(converted.count).toBe(MAX_CONTAINER_DEPTH);
    expect(converted.text.split('\n').filter((line) => line === '::: a')).toHaveLength(
      100_000 - MAX_CONTAINER_DEPTH,
    );
  });

  it('converts only the names the site registered, when they are known; other lines stay text', () => {
    const text = '::: note\nA.\n:::\n\n::: aside\nB.\n:::\n';
    const converted = convertContainers(text, named({ note: false }));
    expect(converted.count).toBe(1);
    expect(converted.text).toBe('<div class="note">\n\nA.\n\n</div>\n\n::: aside\nB.\n:::\n');
  });

  it('keeps the title, in bold, of a name the site drew with a render of its own, and names it', () => {
    const converted = convertContainers(
      '::: spoiler The *ending*\nThey win.\n:::\n',
      named({ spoiler: true }),
    );
    expect(converted.text).toBe('<div class="spoiler">\n\n**The \\*ending\\***\n\nThey win.\n\n</div>\n');
    expect(converted.ownRender).toEqual(['spoiler']);
  });
});

describe('containerRules: the names an Eleventy config registers', () => {
  it('finds the plugin by the name it is bound to, and which names have a render of their own', () => {
    const config = [
      'const markdownIt = require("markdown-it");',
      "const mdContainer = require('markdown-it-container');",
      'module.exports = (eleventyConfig) => {',
      '  eleventyConfig.amendLibrary("md", (md) => md',
      '    .use(mdContainer, "tip")',
      "    .use(mdContainer, 'spoiler', { validate: (p) => true, render(tokens, idx) { return ''; } })",
      '    .use(require("markdown-it-container"), `warning`, { marker: ":" })',
      '    .use(other, "ignored"));',
      '};',
    ].join('\n');
    expect(containerRules(config)).toEqual(named({ tip: false, spoiler: true, warning: false }));
    expect(
      containerRules("import container from 'markdown-it-container';\nmd.use(container, 'box', opts);\n"),
    ).toEqual(named({ box: true }));
    // Registered where the config cannot be read (a loop over names): any name.
    expect(
      containerRules("const c = require('markdown-it-container');\nfor (const n of names) md.use(c, n);\n"),
    ).toEqual({});
  });
});

describe('import eleventy: a site with markdown-it-container', () => {
  let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
  afterEach(async () => {
    await project?.close();
    project = undefined;
  });

  it('writes its blocks as divs, counts them, and says which had a render of their own', async () => {
    project = await projectWithSite('eleventy');
    const post = [
      '---',
      'title: Post',
      'date: 2024-01-01',
      'tags: posts',
      '---',
      '::: warning',
      'Mind the **gap**.',
      ':::',
      '',
      '::: spoiler Who did it',
      'The butler.',
      ':::',
      '',
      '::: unknown',
      'Text.',
      ':::',
      '',
    ].join('\n');
    await project.site('site', {
      'package.json': JSON.stringify({ devDependencies: { 'markdown-it-container': '^4.0.0' } }),
      'eleventy.config.js': [
        "import container from 'markdown-it-container';",
        'export default function (config) {',
        "  config.amendLibrary('md', (md) => md.use(container, 'warning').use(container, 'spoiler', {",
        "    render: (tokens, i) => (tokens[i].nesting === 1 ? '<details>' : '</details>'),",
        '  }));',
        '}',
      ].join('\n'),
      'posts/post.md': post,
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'site']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(await project.read('content/articles/post.md')).toBe(
      [
        '---',
        'title: Post',
        'date: 2024-01-01T00:00:00.000Z',
        '---',
        '',
        '<div class="warning">',
        '',
        'Mind the **gap**.',
        '',
        '</div>',
        '',
        '<div class="spoiler">',
        '',
        '**Who did it**',
        '',
        'The butler.',
        '',
        '</div>',
        '',
        '::: unknown',
        'Text.',
        ':::',
        '',
      ].join('\n'),
    );
    expect(run.stdout).toMatch(/containers \(`:::`\)\D*2/);
    expect(run.stdout).toContain(
      'site/posts/post.md: `::: spoiler` blocks written as `<div class="spoiler">` (a title as a bold first line): ' +
        'the site drew them with a render function of its own, which is JavaScript and not run; check them',
    );
  });
});
