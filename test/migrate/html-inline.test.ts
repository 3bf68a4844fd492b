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

describe('htmlToMarkdown: an image title was a tooltip', () => {
  it('is not written as the Markdown title, which would publish it as a caption; a size class still is', () => {
    expect(htmlToMarkdown('<p><img src="https://x.test/DSC_0042.jpg" alt="Boat" title="DSC_0042"></p>')).toBe(
      '![Boat](https://x.test/DSC_0042.jpg)\n',
    );
    expect(
      htmlToMarkdown('<p><img class="size-large" src="https://x.test/a.jpg" alt="A" title="DSC_0043"></p>'),
    ).toBe('![A](https://x.test/a.jpg "large")\n');
  });
});
