import { afterEach, describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/render/render-markdown.js';
import { bodyOf, runInProcess } from './helpers.js';
import { projectWithSite } from './hugo-and-jekyll-helpers.js';

let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** What sync publishes for a body. */
const rendered = (markdown: string) => renderMarkdown(markdown, { defaultSize: 'medium' }).html;

/** Imports a Jekyll site of one post with `body`, and returns the post's Markdown and the report. */
async function importPost(
  body: string,
  config = 'title: J\n',
): Promise<{ markdown: string; stdout: string }> {
  project = await projectWithSite('jekyll');
  await project.site('j', {
    '_config.yml': config,
    '_posts/2024-01-01-post.md': `---\ntitle: Post\n---\n${body}`,
  });
  const run = await runInProcess(project.dir, ['import', 'jekyll', 'j']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return { markdown: bodyOf(await project.read('content/articles/post.md')), stdout: run.stdout };
}

describe('import jekyll: kramdown tables GFM would not show as kramdown did', () => {
  const BODY = [
    'Our opening hours:',
    '',
    '| Monday    | 9:00 – 17:00 |',
    '| Tuesday   | **late**: `a|b` \\| c |',
    '| Saturday  | [closed](https://shop.example/) |',
    '',
    'The bill:',
    '',
    '| Item   | Cost |',
    '|--------|-----:|',
    '| Coffee | 3    |',
    '|--------|------|',
    '| Cake   | 4    |',
    '|========|======|',
    '| Total  | 7    |',
    '',
    'Two parts:',
    '',
    '| Day | Walk |',
    '|-----|------|',
    '| 1   | Lake |',
    '|-----+------|',
    '| 2   | Peak |',
    '',
    'GFM already:',
    '',
    '| A | B |',
    '|---|---|',
    '| 1 | 2 |',
    '',
    '```',
    '| not | a table |',
    '```',
    '',
  ].join('\n');

  it('writes a table without a header, or with a footer, as kramdown made it; others as GFM tables', async () => {
    const { markdown, stdout } = await importPost(BODY);
    expect(markdown).toBe(
      [
        'Our opening hours:',
        '',
        '<table><tbody><tr><td>Monday</td><td>9:00 – 17:00</td></tr><tr><td>Tuesday</td><td><strong>late</strong>: ' +
          '<code>a|b</code> | c</td></tr><tr><td>Saturday</td><td><a href="https://shop.example/">closed</a></td></tr>' +
          '</tbody></table>',
        '',
        'The bill:',
        '',
        '<table><thead><tr><th>Item</th><th style="text-align: right">Cost</th></tr></thead><tbody><tr>' +
          '<td>Coffee</td><td style="text-align: right">3</td></tr></tbody><tbody><tr><td>Cake</td>' +
          '<td style="text-align: right">4</td></tr></tbody><tfoot><tr><td>Total</td>' +
          '<td style="text-align: right">7</td></tr></tfoot></table>',
        '',
        'Two parts:',
        '',
        '| Day | Walk |',
        '|-----|------|',
        '| 1   | Lake |',
        '| 2   | Peak |',
        '',
        'GFM already:',
        '',
        '| A | B |',
        '|---|---|',
        '| 1 | 2 |',
        '',
        '```',
        '| not | a table |',
        '```',
        '',
      ].join('\n'),
    );
    expect(stdout).toContain('Converted as the old site showed them: tables x3');
    const html = rendered(markdown);
    expect(html).toContain('<tfoot><tr><td>Total</td>');
    expect(html).toContain('<td>Tuesday</td><td><strong>late</strong>: <code>a|b</code> | c</td>');
    expect(html).toContain('<td>1</td>\n<td>Lake</td>\n</tr>\n<tr>\n<td>2</td>');
  });

  it('leaves the tables of a site whose Markdown is not kramdown as written', async () => {
    const { markdown, stdout } = await importPost(BODY, 'title: J\nmarkdown: CommonMarkGhPages\n');
    expect(markdown).toBe(BODY);
    expect(stdout).not.toContain('tables x');
  });
});

describe('import jekyll: Markdown inside HTML, as kramdown read it', () => {
  it('marked markdown="1": a first child tag on its own line does not take in the Markdown after it', async () => {
    const { markdown } = await importPost(
      [
        '<details markdown="1">',
        '<summary>How do I install it?</summary>',
        'Run `gem install foo`, then **restart** the [server](https://example.com/docs).',
        '```sh',
        '<b>not</b>',
        'code',
        '```',
        '</details>',
        '',
        '<div class="notice--info" markdown="1">',
        '<h4>Heads up</h4>',
        'This notice has **Markdown** in it.',
        '</div>',
        '',
      ].join('\n'),
    );
    expect(markdown).toBe(
      [
        '<details>',
        '',
        '<summary>How do I install it?</summary>',
        '',
        'Run `gem install foo`, then **restart** the [server](https://example.com/docs).',
        '```sh',
        '<b>not</b>',
        'code',
        '```',
        '',
        '</details>',
        '',
        '<div class="notice--info">',
        '',
        '<h4>Heads up</h4>',
        '',
        'This notice has **Markdown** in it.',
        '',
        '</div>',
        '',
      ].join('\n'),
    );
    expect(rendered(markdown)).toBe(
      [
        '<details>',
        '<summary>How do I install it?</summary>',
        '<p>Run <code>gem install foo</code>, then <strong>restart</strong> the ' +
          '<a href="https://example.com/docs">server</a>.</p>',
        '<pre><code class="language-sh">&#x3C;b>not&#x3C;/b>',
        'code',
        '</code></pre>',
        '</details>',
        '<div class="notice--info">',
        '<h4>Heads up</h4>',
        '<p>This notice has <strong>Markdown</strong> in it.</p>',
        '</div>',
      ].join('\n'),
    );
  });

  const CARDS = [
    '<div class="card">',
    '## Card title',
    'Some **bold** text and a [link](https://x.example).',
    '</div>',
    '',
    '<aside>',
    '*Note:* aside text.',
    '</aside>',
    '',
    '<div markdown="0">',
    'Raw **as typed**.',
    '</div>',
    '',
  ].join('\n');

  it('with kramdown\'s parse_block_html, the Markdown inside every block element (but markdown="0")', async () => {
    const { markdown } = await importPost(CARDS, 'title: P\nkramdown:\n  parse_block_html: true\n');
    expect(rendered(markdown)).toBe(
      [
        '<div class="card">',
        '<h2>Card title</h2>',
        '<p>Some <strong>bold</strong> text and a <a href="https://x.example">link</a>.</p>',
        '</div>',
        '<aside>',
        '<p><em>Note:</em> aside text.</p>',
        '</aside>',
        '<div markdown="0">',
        'Raw **as typed**.',
        '</div>',
      ].join('\n'),
    );
  });

  it('without parse_block_html, HTML stays as written', async () => {
    const { markdown } = await importPost(CARDS, 'title: P\n');
    expect(markdown).toBe(CARDS);
  });
});

describe("import jekyll: Just the Docs' callouts", () => {
  it('a paragraph under `{: .warning }` is a quote headed by the title `callouts:` gives it', async () => {
    const { markdown } = await importPost(
      '{: .warning }\nBack up first.\n\nAfter.\n',
      'theme: just-the-docs\ncallouts:\n  warning:\n    title: Warning\n    color: red\n',
    );
    expect(markdown).toBe('> **Warning**\n>\n> Back up first.\n\nAfter.\n');
    expect(rendered(markdown)).toContain(
      '<blockquote>\n<p><strong>Warning</strong></p>\n<p>Back up first.</p>',
    );
  });
});

describe('import jekyll: a kramdown table in a block quote or a list item', () => {
  it('is made as at the top level, its lines keeping the container; a lazy line is no table', async () => {
    const { markdown } = await importPost(
      [
        '> Opening hours:',
        '>',
        '> | Monday | 9:00 |',
        '> | Sunday | closed |',
        '',
        '1. Book a table:',
        '',
        '   | Day | Seats |',
        '   |-----|------:|',
        '   | Mon | 4     |',
        '   |=====|=======|',
        '   | All | 4     |',
        '2. Come.',
        '',
        '> | lazy | x |',
        '| lazy | y |',
        '',
      ].join('\n'),
    );
    expect(markdown).toBe(
      [
        '> Opening hours:',
        '>',
        '> <table><tbody><tr><td>Monday</td><td>9:00</td></tr><tr><td>Sunday</td><td>closed</td></tr></tbody></table>',
        '',
        '1. Book a table:',
        '',
        '   <table><thead><tr><th>Day</th><th style="text-align: right">Seats</th></tr></thead><tbody><tr>' +
          '<td>Mon</td><td style="text-align: right">4</td></tr></tbody><tfoot><tr><td>All</td>' +
          '<td style="text-align: right">4</td></tr></tfoot></table>',
        '2. Come.',
        '',
        '> | lazy | x |',
        '| lazy | y |',
        '',
      ].join('\n'),
    );
    // The quote holds its table, the item its own.
    expect(rendered(markdown)).toContain('<blockquote>\n<p>Opening hours:</p>\n<table><tbody>');
    expect(rendered(markdown)).toMatch(/<li>\n<p>Book a table:<\/p>\n<table><thead>/);
  });
});
