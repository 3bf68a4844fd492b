import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/render/render-markdown.js';
import { expandTemplates } from '../../src/render/templates/expand-templates.js';
import { bodyOf, runInProcess } from './helpers.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** What sync publishes for a body. */
const rendered = (markdown: string) => renderMarkdown(markdown, { defaultSize: 'medium' }).html;

async function importWordPress(content: string): Promise<{ body: string; stdout: string }> {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-raw-html-'));
  await writeFile(
    path.join(dir, 'export.xml'),
    `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Blog</title><link>https://wp.example.com</link><wp:wxr_version>1.2</wp:wxr_version>
<item><title>Contact</title><dc:creator>admin</dc:creator>
<content:encoded><![CDATA[${content}]]></content:encoded>
<wp:post_id>5</wp:post_id><wp:post_date_gmt>2024-03-01 10:00:00</wp:post_date_gmt><wp:post_name>contact</wp:post_name>
<wp:status>publish</wp:status><wp:post_type>post</wp:post_type></item>
</channel></rss>`,
  );
  const run = await runInProcess(dir, ['import', 'wordpress', 'export.xml']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return {
    body: bodyOf(await readFile(path.join(dir, 'content/articles/contact.md'), 'utf8')),
    stdout: run.stdout,
  };
}

async function importGhost(html: string): Promise<{ body: string; stdout: string }> {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-raw-html-'));
  const post = {
    id: '1',
    title: 'Contact',
    slug: 'contact',
    html,
    type: 'post',
    status: 'published',
    visibility: 'public',
    created_at: '2024-03-01T10:00:00.000Z',
  };
  await writeFile(
    path.join(dir, 'ghost.json'),
    JSON.stringify({ db: [{ meta: { version: '5.80.0' }, data: { posts: [post] } }] }),
  );
  const run = await runInProcess(dir, [
    'import',
    'ghost',
    'ghost.json',
    '--ghost-url',
    'https://old.example',
  ]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return {
    body: bodyOf(await readFile(path.join(dir, 'content/articles/contact.md'), 'utf8')),
    stdout: run.stdout,
  };
}

const CALENDLY =
  '<div class="calendly-inline-widget" data-url="https://calendly.com/acme/30min" style="min-width:320px;height:630px;"></div>\n' +
  '<script type="text/javascript" src="https://assets.calendly.com/assets/external/widget.js" async></script>';
const TYPEFORM =
  '<div data-tf-widget="abc123" data-tf-opacity="100" style="width:100%;height:500px;"></div>' +
  '<script src="//embed.typeform.com/next/embed.js"></script>';

describe("import: HTML its author wrote as HTML is kept as written (a widget's <div> and its script)", () => {
  it("WordPress: each Custom HTML block is a raw HTML block, its widget's <div> and data attributes too", async () => {
    const { body, stdout } = await importWordPress(
      [
        '<!-- wp:paragraph -->\n<p>Book a call with us:</p>\n<!-- /wp:paragraph -->',
        `<!-- wp:html -->\n${CALENDLY}\n<!-- /wp:html -->`,
        '<!-- wp:paragraph -->\n<p>Or fill in the form:</p>\n<!-- /wp:paragraph -->',
        `<!-- wp:html -->\n${TYPEFORM}\n<!-- /wp:html -->`,
      ].join('\n\n'),
    );
    expect(body).toBe(
      ['Book a call with us:', '', CALENDLY, '', 'Or fill in the form:', '', TYPEFORM, ''].join('\n'),
    );
    expect(stdout).toContain('Embeds kept: 2 (Custom HTML blocks x2)\n');
    expect(rendered(body)).toBe(
      ['<p>Book a call with us:</p>', CALENDLY, '<p>Or fill in the form:</p>', TYPEFORM].join('\n'),
    );
  });

  it('Ghost: an HTML card is kept as written: the widget, a wrapper <div> and its one-row table', async () => {
    const table = '<div class="prices"><table><tr><td>Tea</td><td>2</td></tr></table></div>';
    const { body, stdout } = await importGhost(
      `<p>Book a call with us:</p><!--kg-card-begin: html-->${CALENDLY}<!--kg-card-end: html-->` +
        `<!--kg-card-begin: html-->${table}<!--kg-card-end: html--><p>Thanks.</p>`,
    );
    expect(body).toBe(['Book a call with us:', '', CALENDLY, '', table, '', 'Thanks.', ''].join('\n'));
    expect(stdout).toContain('Embeds kept: 2 (HTML cards x2)\n');
    // The table as a browser builds it, with its <tbody>.
    const built = table.replace('<table>', '<table><tbody>').replace('</table>', '</tbody></table>');
    expect(rendered(body)).toBe(
      ['<p>Book a call with us:</p>', CALENDLY, built, '<p>Thanks.</p>'].join('\n'),
    );
  });

  it('keeps a block with blank lines whole: no line of it is read as Markdown or as code', async () => {
    const html = [
      '<style>',
      '.card { color: red; }',
      '',
      '.card b { color: blue; }',
      '</style>',
      '<div class="card">',
      '',
      '    <p>Hello *there*</p>',
      '',
      '<pre>line one',
      '',
      'line three</pre>',
      '<span title="a',
      '',
      'b">x</span>',
      '</div>',
      '<script>',
      'var a = 1;',
      '',
      '    var b = 2;',
      '</script>',
    ].join('\n');
    const { body } = await importWordPress(`<!-- wp:html -->\n${html}\n<!-- /wp:html -->`);
    // Where text is decoded, the blank line's newline is written as a reference; in the style and
    // the script, where nothing is, the blank line goes.
    expect(body).toBe(
      [
        '<style>',
        '.card { color: red; }',
        '.card b { color: blue; }',
        '</style>',
        '<div class="card">',
        '&#10;    <p>Hello *there*</p>',
        '&#10;<pre>line one',
        '&#10;line three</pre>',
        '<span title="a',
        '&#10;b">x</span>',
        '</div>',
        '<script>',
        'var a = 1;',
        '    var b = 2;',
        '</script>',
        '',
      ].join('\n'),
    );
    expect(rendered(body)).toBe(
      [
        '<style>',
        '.card { color: red; }',
        '.card b { color: blue; }',
        '</style>',
        '<div class="card">',
        '',
        '    <p>Hello *there*</p>',
        '',
        '<pre>line one',
        '',
        'line three</pre>',
        '<span title="a',
        '',
        'b">x</span>',
        '</div>',
        '<script>',
        'var a = 1;',
        '    var b = 2;',
        '</script>',
      ].join('\n'),
    );
  });

  it("writes a template's opening brace in its text as a reference, so that sync expands nothing there", async () => {
    const { body } = await importWordPress(
      '<!-- wp:html -->\n<div id="app" title="{{ tip }}">{{ message }} {% if x %}</div>\n' +
        '<script>var t = "{{ site.url }}";</script>\n<!-- /wp:html -->',
    );
    expect(body).toBe(
      '<div id="app" title="&#123;{ tip }}">&#123;{ message }} &#123;% if x %}</div>\n' +
        '<script>var t = "{{ site.url }}";</script>\n',
    );
    const expanded = expandTemplates(body, {
      file: 'content/articles/contact.md',
      bodyLine: 1,
      dialect: 'auto',
    });
    expect(expanded.problems).toEqual([]);
    expect(rendered(expanded.text)).toContain(
      '<div id="app" title="{{ tip }}">{{ message }} {% if x %}</div>',
    );
  });

  it('puts HTML that Markdown would not read as HTML from its first line in a <div>', async () => {
    const { body } = await importGhost(
      '<!--kg-card-begin: html-->Call <b>us</b> *now*<br>\n<script>start()</script>\nor write<!--kg-card-end: html-->',
    );
    expect(body).toBe('<div>\nCall <b>us</b> *now*<br>\n<script>start()</script>\nor write\n</div>\n');
    expect(rendered(body)).toBe(
      '<div>\nCall <b>us</b> *now*<br>\n<script>start()</script>\nor write\n</div>',
    );
  });
});
