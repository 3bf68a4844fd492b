import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_CHILDREN, MAX_DEPTH, WRAPPER_DEPTH } from '../../src/migrate/deep-html.js';
import { htmlToMarkdown } from '../../src/migrate/html-to-markdown.js';
import { bodyOf, runInProcess } from './helpers.js';
import { projectWithSite } from './hugo-and-jekyll-helpers.js';

const nest = (open: string, close: string, n: number, inner: string) =>
  open.repeat(n) + inner + close.repeat(n);

/** Tables inside one another, 600 deep: 2,400 elements. */
const TABLES = nest('<table><tr><td>', '</td></tr></table>', 600, 'x');

describe('HTML nested too deep to convert', () => {
  it('removes wrappers below the depth no page reaches, keeping their text, and says how many', () => {
    let removed = 0;
    // `<div>`s opened and never closed: each nests in the last.
    const html = `<p>Before.</p>${'<div>'.repeat(5000)}<p>Deep <em>text</em>.</p><p>More.</p>`;
    const markdown = htmlToMarkdown(html, { onFlattened: (n) => (removed = n) });
    expect(markdown).toBe('Before.\n\nDeep _text_.\n\nMore.\n');
    expect(removed).toBe(5000 - WRAPPER_DEPTH);
    // Inside a `<template>` too.
    expect(htmlToMarkdown(`<template>${'<div>'.repeat(5000)}hidden</template><p>Shown.</p>`)).toContain(
      'Shown.',
    );
    // Inline wrappers too: `<span>` and `<font>`.
    expect(htmlToMarkdown(`<p>${nest('<span><font color="red">', '</font></span>', 3000, 'x')} y</p>`)).toBe(
      'x y\n',
    );
  });

  it('leaves HTML no deeper than that as it was', () => {
    let told = false;
    const html = nest('<div class="row">', '</div>', WRAPPER_DEPTH - 2, '<p>Page <b>builder</b>.</p>');
    expect(htmlToMarkdown(html, { onFlattened: () => (told = true) })).toBe('Page **builder**.\n');
    expect(told).toBe(false);
  });

  it('refuses, saying what to do, what is deep in elements that mean something (tables, lists, quotes)', () => {
    expect(() => htmlToMarkdown(TABLES)).toThrow(
      `its HTML nests elements 2400 deep (lists, quotes or tables inside one another), more than the ${MAX_DEPTH} ` +
        'cms-sync converts; simplify that part of it and import again',
    );
    expect(() => htmlToMarkdown(nest('<blockquote>', '</blockquote>', 500, 'q'))).toThrow(
      /nests elements 500 deep/,
    );
    // Too many side by side, whether written so or left by the flattening.
    expect(() => htmlToMarkdown(`<p>${'<b>x</b>'.repeat(MAX_CHILDREN + 1)}</p>`)).toThrow(
      `its HTML has an element with ${MAX_CHILDREN + 1} children side by side, more than the ${MAX_CHILDREN} ` +
        'cms-sync converts; split that part of it and import again',
    );
    expect(() => htmlToMarkdown('<div>'.repeat(70) + '<span>x</span>'.repeat(MAX_CHILDREN + 1))).toThrow(
      /children side by side/,
    );
    // Emphasis inside emphasis is no wrapper: its words are bold or italic.
    expect(() => htmlToMarkdown(`<p>${nest('<i><b>', '</b></i>', 250, 'z')}</p>`)).toThrow(
      /nests elements 501 deep/,
    );
  });
});

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('import wordpress: a post nested too deep costs only itself', () => {
  it('imports the others, the flattened one with a report line, and names the refused one', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-deep-html-'));
    const posts = [
      ['unclosed', `<p>Pasted.</p>${'<div>'.repeat(3000)}<p>Still here.</p>`],
      ['tables', TABLES],
      ['plain', '<p>Fine.</p>'],
    ]
      .map(
        ([slug, html], i) =>
          `<item><title>${slug}</title><wp:post_id>${i + 1}</wp:post_id><wp:post_name>${slug}</wp:post_name>` +
          '<wp:post_type>post</wp:post_type><wp:status>publish</wp:status><wp:post_date>2020-01-01 00:00:00' +
          `</wp:post_date><content:encoded><![CDATA[${html}]]></content:encoded></item>`,
      )
      .join('\n');
    await writeFile(
      path.join(dir, 'export.xml'),
      '<?xml version="1.0"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" ' +
        'xmlns:wp="http://wordpress.org/export/1.2/"><channel><title>t</title><link>https://ex.example</link>' +
        `<wp:wxr_version>1.2</wp:wxr_version>\n${posts}\n</channel></rss>`,
    );
    const run = await runInProcess(dir, ['import', 'wordpress', 'export.xml']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect((await readdir(path.join(dir, 'content/articles'))).sort()).toEqual(['plain.md', 'unclosed.md']);
    expect(bodyOf(await readFile(path.join(dir, 'content/articles/unclosed.md'), 'utf8'))).toBe(
      'Pasted.\n\nStill here.\n',
    );
    expect(run.stdout).toMatch(
      /export\.xml:3:1: post 2 "tables" could not be converted: its HTML nests elements 2400 deep \(lists, quotes or tables inside one another\), more than the 400 cms-sync converts; simplify that part of it and import again/,
    );
    expect(run.stdout).toContain('wrappers nested more than 64 deep');
  });
});

describe('import jekyll: an HTML post nested too deep costs only itself', () => {
  it('imports the other posts and names the refused one', async () => {
    const site = await projectWithSite('jekyll');
    try {
      await site.site('deep', {
        '_config.yml': 'title: J\n',
        '_posts/2024-01-01-tables.html': `---\ntitle: Tables\n---\n${TABLES}`,
        '_posts/2024-01-01-fine.md': '---\ntitle: Fine\n---\nFine.\n',
      });
      const run = await runInProcess(site.dir, ['import', 'jekyll', 'deep']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(1);
      expect(await site.files()).toEqual(['content/articles/fine.md']);
      expect(run.stdout).toContain(
        'deep/_posts/2024-01-01-tables.html: its HTML nests elements 2400 deep (lists, quotes or tables inside one ' +
          'another), more than the 400 cms-sync converts; simplify that part of it and import again; not imported',
      );
    } finally {
      await site.close();
    }
  });
});
