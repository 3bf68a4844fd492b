import type { Element, ElementContent, Root, RootContent } from 'hast';
import type { Root as MdastRoot } from 'mdast';
import { SKIP, visit } from 'unist-util-visit';
import type { VFile } from 'vfile';
import { IMAGE_SIZES, type ImageSize } from '../resources.js';
import { PLACEHOLDER_PREFIX } from './bind-media.js';

export interface ImageRef {
  src: string;
  size: ImageSize;
  alt: string;
  title?: string;
  /** 1-based, relative to the Markdown string that was rendered. */
  line: number;
  column: number;
  kind: 'markdown' | 'reference' | 'html';
}

export interface RenderProblem {
  line: number;
  column: number;
  message: string;
  severity: 'error' | 'warning';
}

/** Where captions go (see UserConfig.markdown.captions). */
export type CaptionStyle = 'paragraph' | 'figure' | 'none';

/** Per-render input and output, carried on the VFile so one frozen processor serves every call. */
export interface MediaCollector {
  defaultSize: ImageSize;
  captions: CaptionStyle;
  images: ImageRef[];
  problems: RenderProblem[];
}

export const MEDIA_COLLECTOR = 'cmsSyncMedia';

// remark-rehype turns `image` and `imageReference` alike into <img>; this marker, set on the
// Markdown side, keeps the difference through rehype-raw (which re-parses all HTML) so that
// ImageRef.kind can tell the user which syntax an error points at. It never reaches output:
// every marked <img> is replaced.
const KIND_PROPERTY = 'dataCmsSyncKind';

export function remarkMarkImageKinds() {
  return (tree: MdastRoot): void => {
    visit(tree, (node) => {
      if (node.type === 'image' || node.type === 'imageReference') {
        node.data = { ...node.data, hProperties: { ...node.data?.hProperties, [KIND_PROPERTY]: node.type } };
      }
    });
  };
}

const SIZES: ReadonlySet<string> = new Set(IMAGE_SIZES);

/** Replaces every <img> with a media dynamic-block placeholder and records it in the collector. */
export function rehypeMediaBlocks() {
  return (tree: Root, file: VFile): void => {
    const media = file.data[MEDIA_COLLECTOR] as MediaCollector;
    // Each block, and the title of its image (the caption of an image alone in its paragraph).
    const blocks = new Map<Element, string | undefined>();
    visit(tree, 'element', (node, index, parent) => {
      if (node.tagName === 'pre' || node.tagName === 'code') {
        warnAboutImagesInCode(node, media);
        return SKIP;
      }
      if (node.tagName !== 'img' || parent === undefined || index === undefined) return;
      const image = readImage(node, media);
      if (!image) return;
      const block = mediaBlock(media.images.length, image.size);
      media.images.push(image);
      blocks.set(block, image.title);
      parent.children[index] = block;
    });
    unwrapBlockParagraphs(tree, blocks, media.captions);
  };
}

function readImage(node: Element, media: MediaCollector): ImageRef | undefined {
  const { line, column } = node.position?.start ?? { line: 1, column: 1 };
  const marker = node.properties[KIND_PROPERTY];
  const kind = marker === 'image' ? 'markdown' : marker === 'imageReference' ? 'reference' : 'html';
  const src = stringProperty(node, 'src');
  if (!src) {
    const what = kind === 'html' ? '<img> has no src attribute' : 'image has no source';
    media.problems.push({
      line,
      column,
      message: `${what}; give it the path or URL of the image`,
      severity: 'error',
    });
    return undefined;
  }
  const alt = stringProperty(node, 'alt') ?? '';
  let title = stringProperty(node, 'title');
  let size = media.defaultSize;
  if (kind === 'html') {
    const requested = stringProperty(node, 'dataSize');
    if (requested !== undefined && SIZES.has(requested)) size = requested as ImageSize;
    else if (requested !== undefined) {
      media.problems.push({
        line,
        column,
        message: `data-size="${requested}" is not a size; use small, medium or large (using "${media.defaultSize}")`,
        severity: 'warning',
      });
    }
  } else if (title !== undefined && SIZES.has(title)) {
    // `![Map](map.png "large")`: a title that is exactly a size is an instruction, not a caption.
    size = title as ImageSize;
    title = undefined;
  }
  return { src, size, alt, ...(title === undefined ? {} : { title }), line, column, kind };
}

function mediaBlock(index: number, size: ImageSize): Element {
  // Property order is attribute order in the output; docs/contract.md, Media, gives this exact form.
  return {
    type: 'element',
    tagName: 'dynamic-block',
    properties: {
      dataId: `${PLACEHOLDER_PREFIX}${index}`,
      dataType: 'media',
      dataSize: size,
      contentEditable: 'false',
    },
    children: [],
  };
}

function warnAboutImagesInCode(code: Element, media: MediaCollector): void {
  visit(code, 'element', (node) => {
    if (node.tagName !== 'img') return;
    const { line, column } = node.position?.start ?? { line: 1, column: 1 };
    media.problems.push({
      line,
      column,
      message: `<img> inside <${code.tagName}> is left as it is: it is not uploaded and not turned into a media block`,
      severity: 'warning',
    });
  });
}

/**
 * A dynamic-block is a block element and the CMS editor treats it as one; inside a <p> it is
 * invalid HTML that editors "repair" differently. So a paragraph holding only media blocks
 * (and whitespace) gives way to its blocks. Images within text stay where they are.
 *
 * Captions are placed here too: the title of an image alone in its paragraph, and the
 * <figcaption> of a <figure> around a block (what Hugo's figure becomes), go where `captions`
 * says. The media block itself has no room for them (its form is fixed), so they are body text.
 */
function unwrapBlockParagraphs(
  parent: Root | Element,
  blocks: ReadonlyMap<Element, string | undefined>,
  captions: CaptionStyle,
): void {
  const children: RootContent[] = [];
  for (const child of parent.children) {
    if (child.type === 'element') {
      unwrapBlockParagraphs(child, blocks, captions);
      if (child.tagName === 'p' && holdsOnlyBlocks(child, blocks)) {
        const only = child.children.filter((c) => c.type === 'element');
        const title = only.length === 1 ? blocks.get(only[0] as Element) : undefined;
        if (title === undefined || title.trim() === '' || captions === 'none')
          children.push(...child.children);
        else children.push(...captioned([only[0] as Element], [{ type: 'text', value: title }], captions));
        continue;
      }
      if (child.tagName === 'figure' && captions !== 'figure') {
        const caption = child.children.find((c) => c.type === 'element' && c.tagName === 'figcaption');
        if (caption && holdsBlock(child, blocks)) {
          const rest = trimWhitespace(child.children.filter((c) => c !== caption));
          const text = (caption as Element).children;
          children.push(...(captions === 'none' ? rest : captioned(rest, text, captions)));
          continue;
        }
      }
    }
    children.push(child);
  }
  parent.children = children as ElementContent[];
}

/** Content followed by its caption, in the style asked for. */
function captioned(
  content: ElementContent[],
  caption: ElementContent[],
  style: CaptionStyle,
): ElementContent[] {
  if (style === 'figure') {
    const figcaption: Element = { type: 'element', tagName: 'figcaption', properties: {}, children: caption };
    return [{ type: 'element', tagName: 'figure', properties: {}, children: [...content, figcaption] }];
  }
  const paragraph: Element = {
    type: 'element',
    tagName: 'p',
    properties: { className: ['caption'] },
    children: caption,
  };
  return [...content, { type: 'text', value: '\n' }, paragraph];
}

function trimWhitespace(nodes: ElementContent[]): ElementContent[] {
  const blank = (n: ElementContent | undefined) => n?.type === 'text' && n.value.trim() === '';
  const out = [...nodes];
  while (blank(out[0])) out.shift();
  while (blank(out.at(-1))) out.pop();
  return out;
}

function holdsBlock(node: Element, blocks: ReadonlyMap<Element, unknown>): boolean {
  return node.children.some((c) => c.type === 'element' && (blocks.has(c) || holdsBlock(c, blocks)));
}

function holdsOnlyBlocks(p: Element, blocks: ReadonlyMap<Element, unknown>): boolean {
  let any = false;
  for (const child of p.children) {
    if (child.type === 'element' && blocks.has(child)) any = true;
    else if (!(child.type === 'text' && child.value.trim() === '')) return false;
  }
  return any;
}

function stringProperty(node: Element, name: string): string | undefined {
  const value = node.properties[name];
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}
