import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/render/render-markdown.js';

const block = (i: number) =>
  `<dynamic-block data-id="cms-sync-media:${i}" data-type="media" data-size="medium" contenteditable="false">` +
  '</dynamic-block>';

const md = [
  '![A](a.png "My caption")',
  '',
  'Text ![B](b.png "inline title") here.',
  '',
  '<figure><img src="c.png" alt="C"><figcaption>Big <em>one</em></figcaption></figure>',
  '',
  '![D](d.png "large")',
  '',
].join('\n');

describe('captions (markdown.captions)', () => {
  it('\'paragraph\' (default): a <p class="caption"> after the block, the figure unwrapped', () => {
    const { html, images } = renderMarkdown(md, { defaultSize: 'medium' });
    expect(html).toBe(
      `${block(0)}\n<p class="caption">My caption</p>\n<p>Text ${block(1)} here.</p>\n${block(2)}\n` +
        '<p class="caption">Big <em>one</em></p>\n' +
        block(3).replace('medium', 'large'),
    );
    // The titles still reach the media records; an inline image's title is not a caption.
    expect(images.map((i) => [i.alt, i.title])).toEqual([
      ['A', 'My caption'],
      ['B', 'inline title'],
      ['C', undefined],
      ['D', undefined],
    ]);
  });

  it("'figure': <figure> with the block and a <figcaption>", () => {
    const { html } = renderMarkdown(md, { defaultSize: 'medium', captions: 'figure' });
    expect(html).toContain(`<figure>${block(0)}<figcaption>My caption</figcaption></figure>`);
    expect(html).toContain(`<figure>${block(2)}<figcaption>Big <em>one</em></figcaption></figure>`);
  });

  it("'none': no caption in the body", () => {
    const { html } = renderMarkdown(md, { defaultSize: 'medium', captions: 'none' });
    expect(html).not.toMatch(/caption|figure/);
    expect(html).toContain(`${block(0)}\n<p>Text`);
  });
});
