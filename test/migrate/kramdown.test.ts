import { describe, expect, it } from 'vitest';
import { markdownInHtml, removeAttributeSyntax } from '../../src/migrate/kramdown.js';
import { renderMarkdown } from '../../src/render/render-markdown.js';

describe('removeAttributeSyntax', () => {
  it("removes kramdown's block and span attribute lists, its table of contents and extensions", () => {
    const body = [
      'Intro.', // 1
      '', // 2
      '* TOC', // 3
      '{:toc}', // 4
      '', // 5
      '![Logo](/logo.png){: .center width="200" title="a } in quotes"}', // 6
      '', // 7
      'A paragraph with *emphasis*{: .em} and [a link](/x){:target="_blank"}.', // 8
      '{: .lead}', // 9
      '', // 10
      '{:refdef: .note}', // 11
      '', // 12
      '## Title {#custom-id .big}', // 13
      '', // 14
      '{::comment}', // 15
      'Not for readers {: .x}', // 16
      '{:/comment}', // 17
      '{::nomarkdown}<b>kept</b>{:/nomarkdown}', // 18
      '{::options parse_block_html="true" /}', // 19
      'End.', // 20
      '',
    ].join('\n');
    const result = removeAttributeSyntax(body);
    expect(result.text).toBe(
      [
        'Intro.',
        '',
        '![Logo](/logo.png)',
        '',
        'A paragraph with *emphasis* and [a link](/x).',
        '',
        '## Title {#custom-id .big}',
        '',
        '<b>kept</b>',
        'End.',
        '',
      ].join('\n'),
    );
    expect(result.removed).toEqual([
      { line: 3, what: 'toc' },
      { line: 6, what: 'attributes' },
      { line: 8, what: 'attributes' },
      { line: 8, what: 'attributes' },
      { line: 9, what: 'attributes' },
      { line: 11, what: 'attributes' },
      { line: 15, what: 'extension' },
      { line: 18, what: 'extension' },
      { line: 18, what: 'extension' },
      { line: 19, what: 'extension' },
    ]);
    // Each line of the output (0-based) comes from this line of the body: a line after the removed
    // ones is told where it was.
    const lines = result.text.split('\n');
    for (const [i, line] of lines.entries()) {
      if (line === 'End.') expect(result.bodyLine(i)).toBe(19);
      if (line.startsWith('## Title')) expect(result.bodyLine(i)).toBe(12);
      if (line.startsWith('![Logo]')) expect(result.bodyLine(i)).toBe(5);
    }
  });

  it('touches nothing in code, HTML or a template code block, and leaves text that only looks alike', () => {
    const body = [
      '```',
      '{: .in-fence}',
      '## Not a heading {#id}',
      '```',
      '',
      'Inline `code{: .x}` and `x`{: .after-code} and plain{: .after-text} and { : spaced}.',
      '',
      '    {: .indented-code}',
      '',
      '<div>',
      '{: .in-html}',
      '</div>',
      '',
      '{% highlight ruby %}',
      '{: .in-highlight}',
      '{% endhighlight %}',
      '',
      '{% raw %}',
      '{: .in-raw}',
      '{% endraw %}',
      '',
      '# Heading with {braces} in it',
      '# Heading ending {#id} then words',
      '',
    ].join('\n');
    const result = removeAttributeSyntax(body);
    expect(result.text).toBe(body.replace('`x`{: .after-code}', '`x`'));
    expect(result.removed).toEqual([{ line: 6, what: 'attributes' }]);
  });

  it('gives a heading the id an attribute list under it sets, written as sync reads it', () => {
    const body = ['## Install', '{: #setup .wide}', 'Text.', '', '## Kept {#own}', '{: #other}', ''].join(
      '\n',
    );
    const result = removeAttributeSyntax(body);
    expect(result.text).toBe(['## Install {#setup}', 'Text.', '', '## Kept {#own}', ''].join('\n'));
    // Only the list that was dropped is reported; the line after the converted one is told where it was.
    expect(result.removed).toEqual([{ line: 6, what: 'attributes' }]);
    expect(result.bodyLine(1)).toBe(2);
    expect(renderMarkdown(result.text, { defaultSize: 'medium' }).html).toContain(
      '<h2 id="setup">Install</h2>',
    );
  });

  it("writes Just the Docs' callouts as quotes headed by their title", () => {
    const callouts = new Map([
      ['note', 'Note'],
      ['warning', 'Careful'],
      ['plain', ''],
    ]);
    const body = [
      'Intro.', // 1
      '', // 2
      '{: .note }', // 3
      'A paragraph', // 4
      'on two lines.', // 5
      '', // 6
      '{: .warning }', // 7
      '> Already a quote.', // 8
      '', // 9
      '{: .note-title }', // 10
      '> Its own title', // 11
      '>', // 12
      '> Text.', // 13
      '', // 14
      '{: .plain }', // 15
      'No title.', // 16
      '', // 17
      '{: .lead }', // 18
      'Not a callout.', // 19
      '',
    ].join('\n');
    const result = removeAttributeSyntax(body, callouts);
    expect(result.text).toBe(
      [
        'Intro.',
        '',
        '> **Note**',
        '>',
        '> A paragraph',
        '> on two lines.',
        '',
        '> **Careful**',
        '>',
        '> Already a quote.',
        '',
        '> **Its own title**',
        '>',
        '> Text.',
        '',
        '> No title.',
        '',
        'Not a callout.',
        '',
      ].join('\n'),
    );
    // Only what was dropped is reported; lines keep telling where they came from.
    expect(result.removed).toEqual([{ line: 18, what: 'attributes' }]);
    const lines = result.text.split('\n');
    expect(result.bodyLine(lines.indexOf('> on two lines.'))).toBe(4);
    expect(result.bodyLine(lines.indexOf('Not a callout.'))).toBe(18);
    expect(renderMarkdown(result.text, { defaultSize: 'medium' }).html).toContain(
      '<blockquote>\n<p><strong>Note</strong></p>\n<p>A paragraph\non two lines.</p>\n</blockquote>',
    );
  });

  it('leaves a text without kramdown syntax as it is', () => {
    expect(removeAttributeSyntax('No braces at all.\n')).toMatchObject({
      text: 'No braces at all.\n',
      removed: [],
    });
  });

  // Quadratic work over these 200 KB would take minutes, past the test's time limit; linear work
  // takes milliseconds.
  it('stays linear on hostile input: unclosed comments, long heading lines, many lists', () => {
    const size = 200_000;
    const left = [
      '{::comment}'.repeat(size / 10),
      `# ${' {#a'.repeat(size / 4)}`,
      `# ${' #'.repeat(size / 2)} x`,
      '`a`'.repeat(size / 3),
    ];
    for (const body of left) expect(removeAttributeSyntax(body).removed).toEqual([]);
    const lists = removeAttributeSyntax('{: .x}\n'.repeat(5_000));
    expect(lists.text).toBe('');
    expect(lists.removed).toHaveLength(5_000);
  });
});

describe('markdownInHtml', () => {
  it('makes the content of an element marked markdown="1" Markdown to CommonMark, nested ones too', () => {
    const source = [
      '<div class="notice--info" markdown="1">',
      '#### Heads up',
      'Markdown **inside**, and <div>a nested div</div>',
      '<div markdown="block">',
      'Inner *too*.',
      '</div>',
      '</div>',
      '',
      '```html',
      '<div markdown="1">',
      'code',
      '</div>',
      '```',
    ].join('\n');
    const out = markdownInHtml(source);
    expect(out).toBe(
      [
        '<div class="notice--info">',
        '',
        '#### Heads up',
        'Markdown **inside**, and <div>a nested div</div>',
        '<div>',
        '',
        'Inner *too*.',
        '',
        '</div>',
        '',
        '</div>',
        '',
        '```html',
        '<div markdown="1">',
        'code',
        '</div>',
        '```',
      ].join('\n'),
    );
    const html = renderMarkdown(out, { defaultSize: 'medium' }).html;
    expect(html).toContain('<h4>Heads up</h4>');
    expect(html).toContain('<strong>inside</strong>');
    expect(html).toContain('<em>too</em>');
  });

  it('returns text without the attribute as the same string', () => {
    const text = '<div class="x">\nraw\n</div>\n';
    expect(markdownInHtml(text)).toBe(text);
  });
});
