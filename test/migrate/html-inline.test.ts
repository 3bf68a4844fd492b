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

describe('htmlToMarkdown: block-editor galleries', () => {
  it('become their images, each with its caption, then the gallery caption (both forms of the block)', () => {
    const old =
      '<figure class="wp-block-gallery columns-2"><ul class="blocks-gallery-grid"><li class="blocks-gallery-item">' +
      '<figure><img src="https://x.test/a.jpg" alt="Harbour"><figcaption>The harbour</figcaption></figure></li>' +
      '<li class="blocks-gallery-item"><figure><img src="https://x.test/b.jpg" alt="Boats"></figure></li></ul>' +
      '<figcaption class="blocks-gallery-caption">Day trip</figcaption></figure>';
    const nested =
      '<figure class="wp-block-gallery has-nested-images">\n<figure class="wp-block-image size-large">' +
      '<img src="https://x.test/a.jpg" alt="Harbour"><figcaption>The harbour</figcaption></figure>\n\n' +
      '<figure class="wp-block-image size-large"><img src="https://x.test/b.jpg" alt="Boats"></figure>\n' +
      '<figcaption class="blocks-gallery-caption wp-element-caption">Day trip</figcaption></figure>';
    const expected = [
      '![Harbour](https://x.test/a.jpg)',
      '',
      '_The harbour_',
      '',
      '![Boats](https://x.test/b.jpg)',
      '',
      '_Day trip_',
      '',
    ].join('\n');
    expect(htmlToMarkdown(old)).toBe(expected);
    expect(htmlToMarkdown(nested)).toBe(expected);
  });
});

describe('htmlToMarkdown: formatting set with a style', () => {
  it('unwraps the <b> of normal weight Google Docs wraps a paste in; the bold inside stays bold, once', () => {
    const markdown = htmlToMarkdown(
      '<p><b style="font-weight:normal;" id="docs-internal-guid-4f2a">Revenue grew and <strong>costs fell</strong> ' +
        'as <span style="font-weight:700">planned</span>.</b></p><p><b style="font-weight: 400">Next.</b></p>',
    );
    expect(markdown).toBe('Revenue grew and **costs fell** as **planned**.\n\nNext.\n');
    expect(htmlToMarkdown('<p><b>bold</b> <strong style="color:red">red</strong></p>')).toBe(
      '**bold** **red**\n',
    );
  });

  it('keeps strikethrough, italics, bold and underline that a span sets in its style', () => {
    const markdown = htmlToMarkdown(
      '<p>Now <span style="text-decoration: line-through;">$120</span> <strong>$89</strong>. Read ' +
        '<span style="font-style: italic;">The Old Man</span>, the <span style="font-weight: 700;">two</span> ' +
        'rules: <span style="text-decoration: underline;">never</span> ' +
        '<span style="text-decoration-line: line-through; FONT-WEIGHT: bold !important">x</span> ' +
        '<span style="color: red">plain</span>.</p>',
    );
    expect(markdown).toBe(
      'Now ~~$120~~ **$89**. Read _The Old Man_, the **two** rules: <u>never</u> **~~x~~** plain.\n',
    );
    expect(renderMarkdown(markdown, { defaultSize: 'medium' }).html).toBe(
      '<p>Now <del>$120</del> <strong>$89</strong>. Read <em>The Old Man</em>, the <strong>two</strong> rules: ' +
        '<u>never</u> <strong><del>x</del></strong> plain.</p>',
    );
  });

  it('reads a long hostile style in linear time', () => {
    const style = `${' '.repeat(50_000)}font-weight${':'.repeat(50_000)}${' !important'.repeat(5_000)}`;
    const started = performance.now();
    expect(htmlToMarkdown(`<p><b style="${style}">x</b></p>`)).toBe('**x**\n');
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('htmlToMarkdown: text written in another direction', () => {
  it('keeps a paragraph, heading or list with `dir` as its HTML, links resolved; others stay Markdown', () => {
    const resolveUrl = (url: string) => new URL(url, 'https://old.example/').href;
    const html =
      '<h2 dir="rtl">عنوان</h2><p dir="rtl">مرحبا <a href="/ar/about/">بالعالم</a> <strong>اليوم</strong>.</p>' +
      '<p>Plain <em>text</em>.</p><ul><li>one</li><li dir="rtl">اثنان</li></ul>' +
      '<p>Mixed <span dir="rtl">عربي</span> inline.</p>';
    const markdown = htmlToMarkdown(html, { resolveUrl });
    expect(markdown).toBe(
      [
        '<h2 dir="rtl">عنوان</h2>',
        '',
        '<p dir="rtl">مرحبا <a href="https://old.example/ar/about/">بالعالم</a> <strong>اليوم</strong>.</p>',
        '',
        'Plain _text_.',
        '',
        '<ul><li>one</li><li dir="rtl">اثنان</li></ul>',
        '',
        'Mixed <span dir="rtl">عربي</span> inline.',
        '',
      ].join('\n'),
    );
    // As the old site showed it: each keeps its direction.
    const rendered = renderMarkdown(markdown, { defaultSize: 'medium' }).html;
    expect(rendered).toContain('<p dir="rtl">مرحبا <a href="https://old.example/ar/about/">بالعالم</a>');
    expect(rendered).toContain('<li dir="rtl">اثنان</li>');
    expect(rendered).toContain('<p>Mixed <span dir="rtl">عربي</span> inline.</p>');
  });
});
