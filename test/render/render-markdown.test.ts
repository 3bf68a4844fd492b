import { describe, expect, it } from 'vitest';
import { bindMedia, renderMarkdown } from '../../src/render/render-markdown.js';

const medium = { defaultSize: 'medium' } as const;
const block = (id: number | string, size: string): string =>
  `<dynamic-block data-id="${id}" data-type="media" data-size="${size}" contenteditable="false"></dynamic-block>`;

describe('renderMarkdown + bindMedia', () => {
  it('turns a lone Markdown image into exactly the spec dynamic-block, standing on its own', () => {
    const { html, images } = renderMarkdown(
      'Intro.\n\n![Parliament at dusk](./images/parliament.png)\n\nOutro.\n',
      medium,
    );
    expect(images).toEqual([
      {
        src: './images/parliament.png',
        size: 'medium',
        alt: 'Parliament at dusk',
        line: 3,
        column: 1,
        kind: 'markdown',
      },
    ]);
    expect(bindMedia(html, [42])).toBe(`<p>Intro.</p>\n${block(42, 'medium')}\n<p>Outro.</p>`);
  });

  it('numbers images in document order across Markdown, reference-style and raw HTML', () => {
    const md = [
      '![one](a.png)',
      '',
      'Text with ![two][chart] and <img src="c.png" alt="three"> inline.',
      '',
      '<figure>',
      '<img src="d.png" alt="four">',
      '</figure>',
      '',
      '[chart]: b.png "Rainfall by month"',
      '',
    ].join('\n');
    const { html, images } = renderMarkdown(md, medium);
    expect(images.map((i) => [i.src, i.kind, i.line, i.column])).toEqual([
      ['a.png', 'markdown', 1, 1],
      ['b.png', 'reference', 3, 11],
      ['c.png', 'html', 3, 29],
      ['d.png', 'html', 6, 1],
    ]);
    expect(images[1]).toMatchObject({ alt: 'two', title: 'Rainfall by month' });
    expect(bindMedia(html, [7, 8, 9, 10])).toBe(
      `${block(7, 'medium')}\n<p>Text with ${block(8, 'medium')} and ${block(9, 'medium')} inline.</p>\n` +
        `<figure>\n${block(10, 'medium')}\n</figure>`,
    );
  });

  it('takes the size from a Markdown title of exactly small/medium/large and drops that title', () => {
    const md =
      '![a](a.png "large")\n\n![b](b.png "small")\n\n![c](c.png "Large map")\n\n![d][d]\n\n[d]: d.png "large"\n';
    const { html, images } = renderMarkdown(md, medium);
    expect(images.map((i) => [i.size, i.title])).toEqual([
      ['large', undefined],
      ['small', undefined],
      ['medium', 'Large map'],
      ['large', undefined],
    ]);
    expect(images[0]).not.toHaveProperty('title');
    expect(html).toContain('data-id="cms-sync-media:0" data-type="media" data-size="large"');
  });

  it('uses the configured default size', () => {
    const { html, images } = renderMarkdown('![a](a.png)\n', { defaultSize: 'large' });
    expect(images[0]?.size).toBe('large');
    expect(html).toBe(block('cms-sync-media:0', 'large'));
  });

  it('reads data-size on raw HTML <img>, and warns about an invalid one and falls back to the default', () => {
    const md = '<img src="a.png" data-size="small">\n\n<img src="b.png" data-size="huge">\n';
    const { images, problems } = renderMarkdown(md, medium);
    expect(images.map((i) => i.size)).toEqual(['small', 'medium']);
    expect(problems).toEqual([
      {
        line: 3,
        column: 1,
        message: 'data-size="huge" is not a size; use small, medium or large (using "medium")',
        severity: 'warning',
      },
    ]);
  });

  it('does not treat a Markdown title as a data-size, nor data-size on Markdown images', () => {
    const { images } = renderMarkdown('<img src="a.png" title="large">\n', medium);
    expect(images[0]).toMatchObject({ size: 'medium', title: 'large' });
  });

  it('leaves image syntax inside inline code, fenced code and raw <pre>/<code> alone', () => {
    const md = [
      'Write `![alt](x.png)` for an image.',
      '',
      '```md',
      '![alt](y.png)',
      '<img src="z.png">',
      '```',
      '',
      '<pre><img src="p.png"></pre>',
      '',
      '<p><code><img src="q.png"></code></p>',
      '',
    ].join('\n');
    const { html, images, problems } = renderMarkdown(md, medium);
    expect(images).toEqual([]);
    expect(html).toContain('<code>![alt](x.png)</code>');
    expect(html).toContain('![alt](y.png)\n&#x3C;img src="z.png">');
    expect(html).toContain('<pre><img src="p.png"></pre>');
    expect(html).toContain('<code><img src="q.png"></code>');
    expect(html).not.toContain('dynamic-block');
    expect(problems.map((p) => [p.line, p.column, p.severity])).toEqual([
      [8, 6, 'warning'],
      [10, 10, 'warning'],
    ]);
  });

  it('reports an <img> without src as an error at its position', () => {
    const { images, problems } = renderMarkdown('# Title\n\nSee <img alt="missing"> here.\n', medium);
    expect(images).toEqual([]);
    expect(problems).toEqual([
      {
        line: 3,
        column: 5,
        message: '<img> has no src attribute; give it the path or URL of the image',
        severity: 'error',
      },
    ]);
  });

  it('keeps GFM tables, strikethrough and task lists', () => {
    const md = '| Party | Seats |\n| --- | ---: |\n| Greens | 12 |\n\n~~withdrawn~~\n\n- [x] done\n';
    const { html } = renderMarkdown(md, medium);
    expect(html).toContain('<th>Party</th>');
    expect(html).toContain('<td align="right">12</td>');
    expect(html).toContain('<del>withdrawn</del>');
    expect(html).toContain('<input type="checkbox" checked disabled> done');
  });

  it('keeps raw HTML blocks and images inside links', () => {
    const { html, images } = renderMarkdown(
      '<aside class="note">Note</aside>\n\n[![logo](l.png)](https://example.org)\n',
      medium,
    );
    expect(html).toBe(
      `<aside class="note">Note</aside>\n<p><a href="https://example.org">${block('cms-sync-media:0', 'medium')}</a></p>`,
    );
    expect(images).toHaveLength(1);
  });

  it('is deterministic: the same input gives the same bytes and refs, call after call', () => {
    const md = '# A\n\n![x](x.png "small")\n\n<img src="y.png">\n\n| a |\n| - |\n| b |\n';
    const first = renderMarkdown(md, medium);
    for (let i = 0; i < 3; i++) expect(renderMarkdown(md, medium)).toEqual(first);
    // Reusing the frozen processor must not leak images from one call into the next.
    expect(renderMarkdown('![z](z.png)', medium).images).toHaveLength(1);
  });
});

describe('bindMedia', () => {
  it('refuses when an image has no id rather than writing a placeholder to the CMS', () => {
    const { html } = renderMarkdown('![a](a.png)\n\n![b](b.png)\n', medium);
    expect(() => bindMedia(html, [1])).toThrow(/no media id for image 1/);
  });

  it('leaves text that only mentions the placeholder alone', () => {
    const html = '<p>data-id="cms-sync-media:0"</p>';
    expect(bindMedia(html, [5])).toBe(html);
  });
});
