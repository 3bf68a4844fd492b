import type { Element, ElementContent, Root } from 'hast';
import type { Image, Paragraph, PhrasingContent } from 'mdast';
import rehypeParse from 'rehype-parse';
import rehypeRemark from 'rehype-remark';
import remarkGfm from 'remark-gfm';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';
import { CONTINUE, SKIP, visit } from 'unist-util-visit';
import type { VFile } from 'vfile';

export interface ConvertOptions {
  /** Makes a URL found in the HTML absolute (site address, `__GHOST_URL__`); undefined if it cannot. */
  resolveUrl?: (url: string) => string | undefined;
  /** Told about every image whose URL stayed relative: it is written as a link, not an image. */
  onRelativeImage?: (src: string) => void;
}

const OPTIONS = 'cmsSyncConvert';

/** An image URL cms-sync can upload (http/https) or bind (cms-media:<id>). */
function isUploadable(url: string): boolean {
  return /^https?:\/\//i.test(url) || /^cms-media:\d+$/.test(url);
}

const IMAGE_FILE = /\.(?:png|jpe?g|gif|webp|svg|avif)(?:[?#].*)?$/i;
const WP_SIZES: Record<string, string> = {
  'size-thumbnail': 'small',
  'size-medium': 'medium',
  'size-large': 'large',
  'size-full': 'large',
};

/**
 * Before HTML becomes Markdown: URLs made absolute, the "link to media file" wrapper around an
 * image dropped (cms-sync turns the image into a media block; the link would only point at
 * the old site), and images whose URL stays relative turned into links — cms-sync would
 * otherwise look for them as local files and fail at plan.
 */
function rehypePrepare() {
  return (tree: Root, file: VFile): void => {
    const options = (file.data[OPTIONS] ?? {}) as ConvertOptions;
    const resolve = (url: string) => options.resolveUrl?.(url) ?? url;
    // Comments (Ghost's kg-card markers, leftovers of editors) are not content.
    visit(tree, 'comment', (_node, index, parent) => {
      if (parent && index !== undefined) {
        parent.children.splice(index, 1);
        return [SKIP, index];
      }
      return undefined;
    });
    visit(tree, 'element', (node, index, parent) => {
      if (node.tagName === 'a' && typeof node.properties.href === 'string') {
        node.properties.href = resolve(node.properties.href);
        const only = node.children.filter((c) => !(c.type === 'text' && c.value.trim() === ''));
        const img = only[0];
        if (
          only.length === 1 &&
          img?.type === 'element' &&
          img.tagName === 'img' &&
          IMAGE_FILE.test(node.properties.href) &&
          parent &&
          index !== undefined
        ) {
          parent.children[index] = img;
          // Look at the image in the link's place next.
          return [CONTINUE, index];
        }
      }
      if (node.tagName !== 'img') return;
      const raw = typeof node.properties.src === 'string' ? node.properties.src.trim() : '';
      if (raw === '' && parent && index !== undefined) {
        // Nothing to show or upload: an <img> without a source is dropped.
        parent.children.splice(index, 1);
        return [SKIP, index];
      }
      const src = resolve(raw);
      node.properties.src = src;
      const classes = Array.isArray(node.properties.className) ? node.properties.className.map(String) : [];
      const size = classes.map((c) => WP_SIZES[c]).find(Boolean);
      if (size && node.properties.title === undefined) node.properties.title = size;
      if (!isUploadable(src) && parent && index !== undefined) {
        options.onRelativeImage?.(src);
        const alt =
          typeof node.properties.alt === 'string' && node.properties.alt ? node.properties.alt : src;
        const link: Element = {
          type: 'element',
          tagName: 'a',
          properties: { href: src },
          children: [{ type: 'text', value: alt }],
        };
        parent.children[index] = link as ElementContent;
      }
      return undefined;
    });
  };
}

const processor = unified()
  .use(rehypeParse, { fragment: true })
  .use(rehypePrepare)
  .use(rehypeRemark, {
    handlers: {
      // The CMS's media element: back to the Markdown cms-sync renders it from (docs/contract.md, Media).
      'dynamic-block'(state, node: Element) {
        const id = String(node.properties.dataId ?? '');
        const size = String(node.properties.dataSize ?? '');
        const image: Image = {
          type: 'image',
          url: `cms-media:${id}`,
          alt: '',
          ...(size ? { title: size } : {}),
        };
        state.patch(node, image);
        return image;
      },
      // A caption (Ghost's image cards, <figure>s) reads as an italic line under its image.
      figcaption(state, node: Element) {
        const children = state.all(node) as PhrasingContent[];
        const paragraph: Paragraph = {
          type: 'paragraph',
          children: children.length ? [{ type: 'emphasis', children }] : [],
        };
        state.patch(node, paragraph);
        return paragraph;
      },
    },
  })
  .use(remarkGfm)
  .use(remarkStringify, {
    bullet: '-',
    emphasis: '_',
    strong: '*',
    rule: '-',
    fences: true,
    listItemIndent: 'one',
  })
  .freeze();

/** HTML -> Markdown (GFM), ending in one newline; empty HTML gives an empty string. */
export function htmlToMarkdown(html: string, options: ConvertOptions = {}): string {
  if (html.trim() === '') return '';
  const file = processor.processSync({ value: html, data: { [OPTIONS]: options } });
  const markdown = String(file).trim();
  return markdown === '' ? '' : `${markdown}\n`;
}
