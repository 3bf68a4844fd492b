import { IMAGE_SIZES, type ImageSize } from '../../resources.js';

/** The one accepted form of the element (docs/cms-api.md), attributes in the spec's order. */
const VALID_BLOCK =
  /^<dynamic-block data-id="(\d+)" data-type="media" data-size="(small|medium|large)" contenteditable="false"><\/dynamic-block>/;
/** Anything that opens or closes a dynamic-block, in any letter case. */
const ANY_BLOCK_TAG = /<\/?dynamic-block\b/gi;

export interface DynamicBlock {
  mediaId: number;
  size: ImageSize;
  start: number;
  end: number;
}

export type BlockScan = { ok: true; blocks: DynamicBlock[] } | { ok: false; element: string };

/** Finds every dynamic-block in an HTML string; the first malformed one is returned for quoting. */
export function scanDynamicBlocks(html: string): BlockScan {
  const blocks: DynamicBlock[] = [];
  ANY_BLOCK_TAG.lastIndex = 0;
  let tag: RegExpExecArray | null;
  while ((tag = ANY_BLOCK_TAG.exec(html)) !== null) {
    const rest = html.slice(tag.index);
    const match = VALID_BLOCK.exec(rest);
    if (!match) return { ok: false, element: quoteElement(rest) };
    blocks.push({
      mediaId: Number(match[1]),
      size: match[2] as ImageSize,
      start: tag.index,
      end: tag.index + match[0].length,
    });
    // Skip past the closing tag this element consumed.
    ANY_BLOCK_TAG.lastIndex = tag.index + match[0].length;
  }
  return { ok: true, blocks };
}

/** The bad element as the user wrote it: up to its closing tag, else its first tag, shortened. */
function quoteElement(rest: string): string {
  const close = /<\/dynamic-block\s*>/i.exec(rest);
  const firstTagEnd = rest.indexOf('>');
  const end = close ? close.index + close[0].length : firstTagEnd >= 0 ? firstTagEnd + 1 : rest.length;
  const element = rest.slice(0, end);
  return element.length > 300 ? `${element.slice(0, 300)}…` : element;
}

export const EXPECTED_BLOCK_FORM =
  `<dynamic-block data-id="<media id>" data-type="media" ` +
  `data-size="${IMAGE_SIZES.join('|')}" contenteditable="false"></dynamic-block>`;
