import { afterEach, describe, expect, it } from 'vitest';
import { removeAttributeSyntax } from '../../src/migrate/kramdown.js';
import { runInProcess } from './helpers.js';
import { projectWithSite } from './hugo-and-jekyll-helpers.js';

const BODY = [
  '# Title {#top .hero}',
  '',
  'A lead paragraph. {.lead}',
  '',
  'An *aside*{.muted} and a [link](https://x.example/){target=_blank rel="noopener"} here.',
  '',
  '- one',
  '- two',
  '{.checklist}',
  '',
  'Prose keeps {name}, { spaced }, {key} and a set {1, 2}.',
  '',
  '```',
  'code {.keeps} its braces',
  '```',
  '',
].join('\n');

describe('removeAttributeSyntax: attribute lists without the colon', () => {
  it("markdown-it-attrs': after a block's last line, after a span, on a line of its own; a heading's stay", () => {
    const result = removeAttributeSyntax(BODY, undefined, 'markdown-it');
    // The heading's list, the prose's braces and the code's stay.
    expect(result.text).toBe(
      BODY.replace(' {.lead}', '')
        .replace('{.muted}', '')
        .replace('{target=_blank rel="noopener"}', '')
        .replace('\n{.checklist}', ''),
    );
    expect(result.removed).toEqual([
      { line: 3, what: 'braces' },
      { line: 5, what: 'braces' },
      { line: 5, what: 'braces' },
      { line: 9, what: 'braces' },
    ]);
  });

  it("Goldmark's block attributes: only a line of its own", () => {
    const result = removeAttributeSyntax(BODY, undefined, 'goldmark');
    expect(result.text).toBe(BODY.replace('- two\n{.checklist}\n', '- two\n'));
  });

  it("kramdown's syntax is not read as theirs, nor theirs as kramdown's", () => {
    expect(removeAttributeSyntax('Text\n{: .note}\n', undefined, 'markdown-it').text).toBe(
      'Text\n{: .note}\n',
    );
    expect(removeAttributeSyntax(BODY).text).toBe(BODY);
  });
});

let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('import: sites whose renderer reads `{.class}`', () => {
  it('Eleventy with markdown-it-attrs, and Hugo with block attributes, lose them; others keep them', async () => {
    project = await projectWithSite('eleventy');
    const post =
      '---\ntitle: Post\ndate: 2024-01-01\ntags: posts\n---\nA lead. {.lead}\n\nMore *words*{.x}.\n';
    await project.site('attrs', {
      '.eleventy.js': 'const attrs = require("markdown-it-attrs");\nmodule.exports = () => ({});\n',
      'posts/post.md': post,
    });
    await project.site('plain', { '.eleventy.js': 'module.exports = () => ({});\n', 'posts/post.md': post });
    await project.site('hugo', {
      'hugo.toml': 'baseURL = "https://x.example/"\n[markup.goldmark.parser.attribute]\nblock = true\n',
      'content/posts/post.md': '---\ntitle: Post\ndate: 2024-01-01\n---\nA lead.\n{.lead}\n\nMore.\n',
    });
    const attrs = await runInProcess(project.dir, ['import', 'jekyll', 'attrs']);
    expect(attrs.code).toBe(0);
    expect(await project.read('content/articles/post.md')).toBe(
      '---\ntitle: Post\ndate: 2024-01-01T00:00:00.000Z\n---\n\nA lead.\n\nMore *words*.\n',
    );
    expect(attrs.stdout).toContain(
      'Warning: attribute lists (`{.class}`, `{target=_blank}`) removed: the CMS takes no classes or attributes ' +
        'from Markdown (attrs/posts/post.md:6, attrs/posts/post.md:8)',
    );
    const hugo = await runInProcess(project.dir, ['import', 'hugo', 'hugo', '--force']);
    expect(hugo.code).toBe(0);
    expect(await project.read('content/articles/post.md')).toBe(
      '---\ntitle: Post\ndate: 2024-01-01T00:00:00.000Z\n---\n\nA lead.\n\nMore.\n',
    );
    const plain = await runInProcess(project.dir, ['import', 'jekyll', 'plain', '--force']);
    expect(plain.code).toBe(0);
    expect(await project.read('content/articles/post.md')).toContain('A lead. {.lead}');
  });
});
