import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../../src/migrate/html-to-markdown.js';
import { renderMarkdown } from '../../src/render/render-markdown.js';

describe('htmlToMarkdown: inline elements Markdown has no form for', () => {
  it('keeps sub, sup, u, mark, ins and kbd as inline HTML, their content Markdown', () => {
    const html =
      '<p>H<sub>2</sub>O, E=mc<sup>2</sup>, <u>under</u>, <mark><strong>lit</strong></mark>, ' +
      '<ins>added</ins>, press <kbd>Ctrl</kbd>.</p>';
    const markdown = htmlToMarkdown(html);
    expect(markdown).toBe(
      'H<sub>2</sub>O, E=mc<sup>2</sup>, <u>under</u>, <mark>**lit**</mark>, <ins>added</ins>, ' +
        'press <kbd>Ctrl</kbd>.\n',
    );
    expect(renderMarkdown(markdown, { defaultSize: 'medium' }).html).toBe(
      '<p>H<sub>2</sub>O, E=mc<sup>2</sup>, <u>under</u>, <mark><strong>lit</strong></mark>, <ins>added</ins>, ' +
        'press <kbd>Ctrl</kbd>.</p>',
    );
  });
});
