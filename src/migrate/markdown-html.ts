import type { Element, Root } from 'hast';
import { toHtml } from 'hast-util-to-html';
import { visit } from 'unist-util-visit';

/**
 * What an importer made of the old site's Markdown (a definition list, a kramdown table) as one
 * HTML block for the new Markdown. Blank lines inside it (in a code sample) would end the block
 * for the Markdown that reads it next, so a line break before another becomes `&#10;`; an opening
 * brace becomes `&#123;`, so that no template starts in text the site showed. A size given as an
 * image's title (`![](x.png "large")`) is `data-size` in HTML.
 */
export function htmlBlockOf(hast: Root | Element): string {
  visit(hast, 'element', (element: Element) => {
    const title = element.tagName === 'img' ? element.properties['title'] : undefined;
    if (title === 'small' || title === 'medium' || title === 'large') {
      delete element.properties['title'];
      element.properties['dataSize'] = title;
    }
  });
  const html = toHtml(hast, { allowDangerousHtml: true });
  return html.replace(/\n(?=\n)/g, '&#10;').replaceAll('{', '&#123;');
}
