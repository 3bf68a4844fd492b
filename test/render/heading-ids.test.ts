import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/render/render-markdown.js';

const html = (markdown: string) => renderMarkdown(markdown, { defaultSize: 'medium' }).html;

// Hugo, kramdown and Pandoc read `{#id}` after a heading as its id; CommonMark would print it.
describe('a heading written with its own id', () => {
  it('gets the id, and the braces go, in the forms Hugo and kramdown read', () => {
    expect(html('## Setup {#setup}\n')).toBe('<h2 id="setup">Setup</h2>');
    expect(html('## Kramdown {: #kram}\n')).toBe('<h2 id="kram">Kramdown</h2>');
    expect(html('Setext title {#setext}\n===\n')).toBe('<h1 id="setext">Setext title</h1>');
    expect(html('## Closed {#closed} ##\n')).toBe('<h2 id="closed">Closed</h2>');
    expect(html('## With `code` {#code}\n')).toBe('<h2 id="code">With <code>code</code></h2>');
  });

  it('drops classes and other attributes beside it, keeping the last id', () => {
    expect(html('## Wide {#wide .full data-x="1"}\n')).toBe('<h2 id="wide">Wide</h2>');
    expect(html('## Styled *only* {.lead}\n')).toBe('<h2>Styled <em>only</em></h2>');
    expect(html('## Two {#a #b}\n')).toBe('<h2 id="b">Two</h2>');
  });

  it('leaves braces that are not an attribute list, or that the writer escaped, as text', () => {
    expect(html('## Sets {a, b}\n')).toBe('<h2>Sets {a, b}</h2>');
    expect(html('## Escaped \\{#not}\n')).toBe('<h2>Escaped {#not}</h2>');
    expect(html('## {#alone}\n')).toBe('<h2>{#alone}</h2>');
    expect(html('## Mid {#id} text\n')).toBe('<h2>Mid {#id} text</h2>');
    expect(html('Paragraph {#id}\n')).toBe('<p>Paragraph {#id}</p>');
    expect(html('```\n## In code {#id}\n```\n')).toBe('<pre><code>## In code {#id}\n</code></pre>');
  });

  // Quadratic work on these would take minutes, past the test's time limit.
  it('stays linear on long hostile headings', () => {
    const hostile = [
      `# x${' '.repeat(200_000)}y {#id}\n`,
      `# ${' {#a'.repeat(50_000)}\n`,
      `# ${'{ '.repeat(100_000)}}\n`,
      `# x ${'{'.repeat(100_000)}#a}\n`,
    ];
    for (const markdown of hostile) expect(html(markdown)).toMatch(/^<h1( id="[^"]*")?>/);
  });

  it('writes an id with quotes or angle brackets as text, never as markup', () => {
    expect(html('## Quote {#a"b}\n')).toBe('<h2>Quote {#a"b}</h2>');
  });
});
