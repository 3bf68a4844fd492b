import type { Element, ElementContent, Root, RootContent } from 'hast';
import type { FootnoteDefinition, FootnoteReference, Html, Nodes, Paragraph, PhrasingContent } from 'mdast';
import type { Root as MdastRoot } from 'mdast';
import rehypeParse from 'rehype-parse';
import { parseHtml } from './deep-html.js';
import rehypeRemark, { type Options as RehypeRemarkOptions } from 'rehype-remark';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkStringify from 'remark-stringify';
import { unified, type Processor } from 'unified';
import { CONTINUE, EXIT, SKIP, visit } from 'unist-util-visit';
import type { VFile } from 'vfile';
import { sameValue } from '../plan/payload.js';
import { bindMedia } from '../render/bind-media.js';
import { classesOf } from './embeds.js';
import { renderMarkdown } from '../render/render-markdown.js';
import { mathSyntaxPlugins, type MathSyntax } from '../render/math-syntax.js';

export interface ConvertOptions {
  /** Makes a URL found in the HTML absolute (site address, `__GHOST_URL__`); undefined if it cannot. */
  resolveUrl?: (url: string) => string | undefined;
  /** Told about every image whose URL stayed relative: it is written as a link, not an image. */
  onRelativeImage?: (src: string) => void;
  /**
   * Images whose URL is relative stay images, for the caller to find their files (a static site's
   * importer copies them), rather than links.
   */
  localImages?: boolean;
  /**
   * The Markdown must render back (through cms-sync's own renderer) to the HTML it came from:
   * every top-level block that would not is written as a raw HTML block, comments included,
   * and lists keep the looseness they have. `pull` wants this; importers want plain Markdown
   * (tight lists, bare URLs, editor markers dropped) more than the old site's exact markup.
   */
  faithful?: boolean;
  /**
   * TeX math as cms-sync renders it (config `markdown.math`, see render/math.ts): its
   * `<span class="math math-inline">\(…\)</span>` and `<div class="math math-display">\[…\]</div>`
   * become `$…$` and `$$…$$` again. Needs loadMath() first.
   */
  math?: MathSyntax | false | undefined;
  /** Told how many wrappers nested too deep to convert were removed (see deep-html.ts). */
  onFlattened?: (removed: number) => void;
}

const OPTIONS = 'cmsSyncConvert';
/** The element that stands for a subtree written as raw HTML (its HTML in `data.raw`). */
const RAW = 'cms-sync-raw';

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
 * Whether `src` is a scaled copy of the image at `full`, named as WordPress names them (`-300x200`
 * or `-scaled` before the extension), in the same folder.
 */
function isScaledCopy(src: string, full: string): boolean {
  const plain = (url: string) => url.replace(/[?#].*$/, '');
  const scaled = /^(.*?)(?:-\d+x\d+|-scaled)(\.[a-z0-9]+)$/i.exec(plain(src));
  if (!scaled) return false;
  const original = /^(.*?)(\.[a-z0-9]+)$/i.exec(plain(full));
  return (
    original !== null && original[1] === scaled[1] && original[2]!.toLowerCase() === scaled[2]!.toLowerCase()
  );
}

/** Elements Markdown has no form for: kept as raw HTML wherever they are. */
const NO_MARKDOWN_FORM = new Set([
  'iframe',
  'video',
  'audio',
  'script',
  'style',
  'object',
  'embed',
  'svg',
  'math',
  'center',
  'details',
]);
/** Comments that only an editor needs (block-editor and Ghost card markers, WordPress's teaser break). */
const EDITOR_MARKER = /^\s*(?:\/?wp:|kg-card-|more\b|nextpage\b|noteaser\b)/;
/**
 * Whether a table can be a GFM pipe table and show as it did: a header row of `<th>` first (a
 * pipe table always has one: without, an empty one would be invented), one line of inline
 * content per cell (a list, a paragraph break or a `<br>` in a cell would end the row, and the
 * rest of the table would fall out below it), no cell spanning others. Any other table is kept
 * as its HTML.
 */
function fitsPipeTable(table: Element): boolean {
  const rows: Element[] = [];
  const collect = (node: Element) => {
    for (const child of node.children)
      if (child.type === 'element') {
        if (child.tagName === 'tr') rows.push(child);
        else if (/^(?:thead|tbody|tfoot)$/.test(child.tagName)) collect(child);
        else if (child.tagName !== 'caption' && child.tagName !== 'colgroup') return false;
      }
    return true;
  };
  if (!collect(table) || rows.length === 0) return false;
  const cells = (row: Element) =>
    row.children.filter((c): c is Element => c.type === 'element' && /^t[dh]$/.test(c.tagName));
  if (!cells(rows[0]!).every((cell) => cell.tagName === 'th')) return false;
  return rows.every((row) =>
    cells(row).every(
      (cell) =>
        cell.properties.colSpan === undefined && cell.properties.rowSpan === undefined && inlineOnly(cell),
    ),
  );
}

const CELL_BLOCKS = /^(?:ul|ol|dl|pre|blockquote|table|h[1-6]|hr|br|div|figure|section)$/;

function inlineOnly(cell: Element): boolean {
  let paragraphs = 0;
  let inline = true;
  visit(cell, 'element', (node) => {
    if (node === cell) return CONTINUE;
    if (node.tagName === 'p' && ++paragraphs > 1) inline = false;
    if (CELL_BLOCKS.test(node.tagName)) inline = false;
    return inline ? CONTINUE : false;
  });
  return inline;
}

/** Where a raw element is the whole block it sits in, it must start its own line (CommonMark HTML blocks). */
const PHRASING = new Set(
  (
    'a abbr b bdi bdo br cite code data del dfn em i img input ins kbd mark q s samp small span strong sub sup ' +
    'time u'
  ).split(' '),
);
/** Elements whose content is text, so what they hold never is a block of its own. */
const TEXT_CONTAINER = new Set([
  ...PHRASING,
  ...'p h1 h2 h3 h4 h5 h6 pre dt caption summary figcaption label button legend td th'.split(' '),
]);
/** Tags that start a CommonMark HTML block even with more on their line (kinds 1 and 6). */
const BLOCK_START = new Set(
  (
    'pre script style textarea address article aside base basefont blockquote body caption center col colgroup dd ' +
    'details dialog dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head ' +
    'header hr html iframe legend li link main menu menuitem nav noframes ol optgroup option p param search ' +
    'section summary table tbody td tfoot th thead title tr track ul'
  ).split(' '),
);
const VOID = new Set('area base br col embed hr img input link meta source track wbr'.split(' '));

const htmlWriter = unified().use(rehypeStringify).freeze();
const htmlReader = unified().use(rehypeParse, { fragment: true }).freeze();

function toHtml(node: Root | RootContent): string {
  return htmlWriter.stringify(node.type === 'root' ? node : { type: 'root', children: [node] });
}

/**
 * A subtree as raw HTML that Markdown keeps as it is: no blank line inside (one would end the
 * HTML block), on a line of its own when it is a block, on one line when it sits in text.
 */
function rawHtml(node: Element | RootContent, block: boolean): string {
  const copy = restoreRaw(structuredClone(node));
  // Raw text (scripts, styles, comments) decodes no entities: there a blank line can only go.
  visit(copy, (n, _index, parent) => {
    const rawText =
      n.type === 'comment' ||
      (n.type === 'text' && parent?.type === 'element' && /^(?:script|style)$/.test(parent.tagName));
    if (rawText && 'value' in n) n.value = n.value.replace(/\n[ \t]*(?=\n)/g, '');
  });
  if (!block) markPreLines(copy, false);
  let html = toHtml(copy);
  // Elsewhere an encoded newline keeps the text as it was.
  while (/\n[ \t]*\n/.test(html)) html = html.replace(/\n([ \t]*)\n/g, '\n$1&#10;');
  if (!block) return html.replace(/\n/g, ' ').replaceAll(PRE_LINE, '&#10;');
  if (copy.type === 'element' && !BLOCK_START.has(copy.tagName) && !VOID.has(copy.tagName)) {
    const open = toHtml({ ...copy, children: [] }).slice(0, -`</${copy.tagName}>`.length);
    if (html.startsWith(open) && !html.startsWith(`${open}\n`)) html = `${open}\n${html.slice(open.length)}`;
  }
  return html;
}

/** Stands for a line break in a `<pre>` until the HTML is written (a private-use character). */
const PRE_LINE = '\uE000';

/**
 * Marks the line breaks in the text of each `<pre>` under `node`: where raw HTML sits in a line
 * of text, its newlines become spaces, but a `<pre>`'s are its lines, written as `&#10;`.
 */
function markPreLines(node: Element | RootContent, inPre: boolean): void {
  if (node.type === 'text' && inPre) node.value = node.value.replaceAll('\n', PRE_LINE);
  if (node.type !== 'element') return;
  for (const child of node.children) markPreLines(child, inPre || node.tagName === 'pre');
}

/** The subtree with the elements that stood in for raw HTML back in their place. */
function restoreRaw<T extends Element | RootContent>(node: T): T {
  if (node.type === 'element' && node.tagName === RAW) return restoreRaw(rawOf(node).node as T);
  if ('children' in node) node.children = node.children.map((c) => restoreRaw(c)) as typeof node.children;
  return node;
}

function rawOf(node: Element): { html: string; node: ElementContent } {
  return node.data as unknown as { html: string; node: ElementContent };
}

/** Stands `node` (at `parent.children[index]`) in for raw HTML. */
function keepRaw(node: ElementContent, index: number, parent: Root | Element): void {
  const siblings = parent.children.filter((c) => c !== node);
  const inText = parent.type === 'element' && TEXT_CONTAINER.has(parent.tagName);
  const block =
    !inText &&
    !siblings.some(
      (c) =>
        (c.type === 'text' && c.value.trim() !== '') || (c.type === 'element' && PHRASING.has(c.tagName)),
    );
  const data = { html: rawHtml(node, block), node };
  parent.children[index] = {
    type: 'element',
    tagName: RAW,
    properties: {},
    // An empty block inside tells rehype-remark's whitespace minifier that a block of raw HTML is
    // a block boundary: an element it does not know, it looks past at every next sibling, which
    // over many kept blocks side by side is quadratic.
    children: block ? [{ type: 'element', tagName: 'div', properties: {}, children: [] }] : [],
    data: data as never,
  };
}

/** Makes the links inside an element kept as HTML absolute (and rewritten: see ConvertOptions.resolveUrl). */
function resolveLinksIn(node: Element, resolve: (url: string) => string): void {
  visit(node, 'element', (a) => {
    if (a.tagName === 'a' && typeof a.properties.href === 'string')
      a.properties.href = resolve(a.properties.href);
  });
}

/**
 * Blocks whose `dir` is kept by keeping them as HTML; a list is kept whole for one of its items'.
 * Inline elements keep theirs around Markdown (see inlineHtml).
 */
const DIRECTED = /^(?:p|h[1-6]|blockquote|ul|ol|dl|div|section|figure|pre|table)$/;

function hasDirection(node: Element): boolean {
  if (!DIRECTED.test(node.tagName)) return false;
  if (directionOf(node)) return true;
  return (
    (node.tagName === 'ul' || node.tagName === 'ol') &&
    node.children.some((item) => item.type === 'element' && item.tagName === 'li' && directionOf(item))
  );
}

/** An element's `dir` (`rtl`, `ltr` or `auto`, lower case), or undefined for none or another value. */
function directionOf(node: Element): string | undefined {
  const dir = node.properties.dir;
  return typeof dir === 'string' && /^(?:rtl|ltr|auto)$/i.test(dir) ? dir.toLowerCase() : undefined;
}

/** Ids that a link in the document points at (`href="#id"`): footnotes and their back links. */
function linkedIds(tree: Root): Set<string> {
  const ids = new Set<string>();
  visit(tree, 'element', (node) => {
    const href = node.properties.href;
    if (node.tagName === 'a' && typeof href === 'string' && href.startsWith('#'))
      ids.add(decodeURIComponent(href.slice(1)));
  });
  return ids;
}

/** The GFM footnote label of a remark-gfm id (`user-content-fn-<label>`), if it is one. */
function footnoteLabel(href: unknown, prefix: string): string | undefined {
  return typeof href === 'string' && href.startsWith(prefix)
    ? href.slice(prefix.length) || undefined
    : undefined;
}

/**
 * Before HTML becomes Markdown: URLs made absolute, the "link to media file" wrapper around an
 * image dropped (cms-sync turns the image into a media block; the link would only point at
 * the old site), images whose URL stays relative turned into links — cms-sync would
 * otherwise look for them as local files and fail at plan — and what Markdown cannot say kept
 * as raw HTML.
 */
function rehypePrepare() {
  return (tree: Root, file: VFile): void => {
    const options = (file.data[OPTIONS] ?? {}) as ConvertOptions;
    const resolve = (url: string) => options.resolveUrl?.(url) ?? url;
    if (!options.faithful) {
      visit(tree, 'comment', (node, index, parent) => {
        if (parent && index !== undefined && EDITOR_MARKER.test(node.value)) {
          parent.children.splice(index, 1);
          return [SKIP, index];
        }
        return undefined;
      });
    }
    const targets = linkedIds(tree);
    // Lists kept as HTML once what they hold is prepared (links resolved).
    const later: { node: Element; index: number; parent: Root | Element }[] = [];
    // What is inside one of those: its HTML holds it as it is.
    const inLater = new WeakSet<Root | Element>();
    visit(tree, 'element', (node, index, parent) => {
      if (!parent || index === undefined) return undefined;
      if (node.tagName === 'ol' && !numberedAsMarkdown(node)) {
        node.children = node.children.filter((c) => !(c.type === 'text' && c.value.trim() === ''));
        if (!inLater.has(parent)) later.push({ node, index, parent });
        inLater.add(node);
      } else if (inLater.has(parent)) inLater.add(node);
      if (!options.faithful && isGallery(node)) {
        parent.children.splice(index, 1, ...galleryParts(node));
        // Its images and caption, in its place, are looked at next.
        return [CONTINUE, index];
      }
      // A File block's download button beside the file's own link: the same link again, or a
      // second one that would run into the first (`[report](x)[Download](x)`).
      if (node.tagName === 'a' && classesOf(node).includes('wp-block-file__button')) {
        const same = parent.children
          .slice(0, index)
          .some(
            (c) =>
              c.type === 'element' &&
              c.tagName === 'a' &&
              typeof node.properties.href === 'string' &&
              c.properties.href === resolve(node.properties.href),
          );
        if (same) {
          parent.children.splice(index, 1);
          return [SKIP, index];
        }
        const before = parent.children[index - 1];
        if (before && !(before.type === 'text' && /\s$/.test(before.value))) {
          parent.children.splice(index, 0, { type: 'text', value: ' ' });
          // The button is looked at again in its new place, now with a space before it.
          return [CONTINUE, index + 1];
        }
      }
      // A quote's source (`<cite>` in WordPress's quote and pullquote blocks, shown small under it):
      // set apart by a dash, so that it does not read as the quote's last line.
      if (node.tagName === 'cite' && parent.type === 'element' && parent.tagName === 'blockquote') {
        parent.children[index] = {
          type: 'element',
          tagName: 'p',
          properties: {},
          children: [{ type: 'text', value: '\u2014 ' }, ...node.children],
        };
        return [CONTINUE, index];
      }
      const formatting = styledFormatting(node);
      if (formatting) {
        parent.children.splice(index, 1, ...formatting);
        // What stands in its place is looked at next (a `<b>` of normal weight may hold a bold span).
        return [CONTINUE, index];
      }
      if (NO_MARKDOWN_FORM.has(node.tagName) || (node.tagName === 'figure' && !isImageFigure(node))) {
        keepRaw(node, index, parent);
        return SKIP;
      }
      // An element a link points at keeps its id, so the link still arrives (footnotes of
      // other editors); remark-gfm's own footnotes have a Markdown form (see the handlers).
      const id = node.properties.id;
      if (typeof id === 'string' && targets.has(id) && !id.startsWith('user-content-')) {
        if (/^(?:li|dt|dd|tr|td|th|tbody|thead)$/.test(node.tagName)) return undefined;
        keepRaw(node, index, parent);
        return SKIP;
      }
      if (node.tagName === 'pre' && isProse(node)) {
        resolveLinksIn(node, resolve);
        keepRaw(node, index, parent);
        return SKIP;
      }
      // A paragraph, heading or list written in another direction than the page's (`dir="rtl"` in
      // a left-to-right site, as the block editor sets it): Markdown has no form for the direction.
      if (hasDirection(node)) {
        resolveLinksIn(node, resolve);
        keepRaw(node, index, parent);
        return SKIP;
      }
      if (node.tagName === 'table' && !fitsPipeTable(node)) {
        keepRaw(node, index, parent);
        return SKIP;
      }
      if (/^(?:ol|ul|dl|table)$/.test(node.tagName) && holdsTarget(node, targets)) {
        keepRaw(node, index, parent);
        return SKIP;
      }
      // An old-style anchor (`<a name="faq"></a>`), a jump target the post's own links use:
      // Markdown has no form for it, and as a link it would be an empty one.
      if (
        node.tagName === 'a' &&
        node.properties.href === undefined &&
        typeof node.properties.name === 'string'
      ) {
        keepRaw(node, index, parent);
        return SKIP;
      }
      if (node.tagName === 'a' && typeof node.properties.href === 'string') {
        node.properties.href = resolve(node.properties.href);
        const only = node.children.filter((c) => !(c.type === 'text' && c.value.trim() === ''));
        const img = only[0];
        if (
          only.length === 1 &&
          img?.type === 'element' &&
          img.tagName === 'img' &&
          IMAGE_FILE.test(node.properties.href)
        ) {
          // A thumbnail linked to its full size (WordPress's `photo-300x200.jpg` to `photo.jpg`):
          // the full size is uploaded, and the CMS makes its own smaller ones.
          if (
            typeof img.properties.src === 'string' &&
            isScaledCopy(resolve(img.properties.src), node.properties.href)
          )
            img.properties.src = node.properties.href;
          parent.children[index] = img;
          // Look at the image in the link's place next.
          return [CONTINUE, index];
        }
      }
      if (node.tagName !== 'img') return undefined;
      const raw = typeof node.properties.src === 'string' ? node.properties.src.trim() : '';
      if (raw === '') {
        // Nothing to show or upload: an <img> without a source is dropped.
        parent.children.splice(index, 1);
        return [SKIP, index];
      }
      const src = resolve(raw);
      node.properties.src = src;
      // An <img>'s title was a tooltip on the old site (WordPress before 3.5 filled it with the file
      // name: `DSC_0042`); in Markdown the title of an image alone in its paragraph is its caption.
      if (!options.faithful) delete node.properties.title;
      const classes = classesOf(node);
      const size = classes.map((c) => WP_SIZES[c]).find(Boolean);
      if (size && node.properties.title === undefined) node.properties.title = size;
      if (!isUploadable(src) && !options.localImages) {
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
    for (const { node, index, parent } of later) {
      // Only an element after it in its parent can have been replaced since.
      const at = parent.children[index] === node ? index : parent.children.indexOf(node);
      if (at >= 0) keepRaw(node, at, parent);
    }
  };
}

/**
 * Whether Markdown can say how an `<ol>` is numbered: upward, in digits, from its start. A
 * countdown (`reversed`), letters or Roman numerals (`type`, `list-style-type`) it cannot, and
 * the text around such a list names its numbers ("pick B", "see step ii").
 */
function numberedAsMarkdown(list: Element): boolean {
  if (list.properties.reversed !== undefined && list.properties.reversed !== false) return false;
  const type = list.properties.type;
  if (type !== undefined && type !== '1') return false;
  const style = styleOf(list);
  const kind =
    style.get('list-style-type') ??
    style
      .get('list-style')
      ?.split(/\s+/)
      .find(
        (token) => token !== '' && token !== 'inside' && token !== 'outside' && !token.startsWith('url('),
      );
  return kind === undefined || kind === '' || kind === 'decimal';
}

/** A `style` attribute's declarations, by property, names and values lower-cased, `!important` left out. */
function styleOf(node: Element): Map<string, string> {
  const declarations = new Map<string, string>();
  const style = node.properties.style;
  if (typeof style !== 'string') return declarations;
  for (const declaration of style.split(';')) {
    const colon = declaration.indexOf(':');
    if (colon < 0) continue;
    let value = declaration
      .slice(colon + 1)
      .trim()
      .toLowerCase();
    if (value.endsWith('!important')) value = value.slice(0, -'!important'.length).trim();
    declarations.set(declaration.slice(0, colon).trim().toLowerCase(), value);
  }
  return declarations;
}

/** Whether a `font-weight` shows text bold (as browsers do from 600 on), normal, or is not set. */
function fontWeight(value: string | undefined): 'bold' | 'normal' | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'bold' || value === 'bolder') return 'bold';
  if (value === 'normal' || value === 'lighter') return 'normal';
  const weight = Number(value);
  return Number.isFinite(weight) ? (weight >= 600 ? 'bold' : 'normal') : undefined;
}

/**
 * A `<b>`, `<strong>` or `<span>` as the formatting its reader saw, when its `style` changes
 * it: the classic editor and text pasted from Google Docs or Word set strikethrough, italics,
 * bold and underline on spans, and Google Docs wraps what it copies in a `<b>` of normal
 * weight. Undefined when the element means what its tag says.
 */
function styledFormatting(node: Element): ElementContent[] | undefined {
  const bold = node.tagName === 'b' || node.tagName === 'strong';
  if (!bold && node.tagName !== 'span') return undefined;
  const style = styleOf(node);
  if (style.size === 0) return undefined;
  const weight = fontWeight(style.get('font-weight'));
  const decoration = new Set(
    `${style.get('text-decoration') ?? ''} ${style.get('text-decoration-line') ?? ''}`.split(/\s+/),
  );
  const fontStyle = style.get('font-style')?.split(/\s+/)[0];
  const tags = [
    ...((bold ? weight !== 'normal' : weight === 'bold') ? ['strong'] : []),
    ...(fontStyle === 'italic' || fontStyle === 'oblique' ? ['em'] : []),
    ...(decoration.has('line-through') ? ['del'] : []),
    ...(decoration.has('underline') ? ['u'] : []),
  ];
  if (bold ? tags.length === 1 && tags[0] === 'strong' : tags.length === 0) return undefined;
  let children = node.children;
  for (const tagName of tags.reverse()) children = [{ type: 'element', tagName, properties: {}, children }];
  return children;
}

/** Inline markup that shows a `<pre>` is text to read: a link, bold, italics. */
const PROSE_MARKUP = new Set(['a', 'strong', 'em', 'b', 'i']);

/**
 * Whether a `<pre>` is text its reader reads rather than code, which a fenced code block would
 * turn into monospace source and strip of its links: a Verse block (poetry, lyrics, shown in the
 * theme's text font), or a `<pre>` with links, bold or italics outside a `<code>` (a
 * Preformatted block, the classic editor's). A Code block (`wp-block-code`) is code.
 */
function isProse(pre: Element): boolean {
  const classes = classesOf(pre);
  if (classes.includes('wp-block-code')) return false;
  if (classes.includes('wp-block-verse')) return true;
  let markup = false;
  visit(pre, 'element', (node) => {
    // A <pre> inside is looked at on its own.
    if (node.tagName === 'code' || (node !== pre && node.tagName === 'pre')) return SKIP;
    if (!PROSE_MARKUP.has(node.tagName)) return CONTINUE;
    markup = true;
    return EXIT;
  });
  return markup;
}

/** The block editor's gallery (`<figure class="wp-block-gallery">`), of WordPress 5.0 on. */
function isGallery(node: Element): boolean {
  return node.tagName === 'figure' && classesOf(node).includes('wp-block-gallery');
}

/**
 * A gallery as what it shows: each image with its own caption (a figure of one image, 5.9 on; an
 * item of a list, before), then the gallery's caption.
 */
function galleryParts(gallery: Element): ElementContent[] {
  const parts: ElementContent[] = [];
  const captions: ElementContent[] = [];
  for (const child of gallery.children) {
    if (child.type !== 'element') continue;
    if (child.tagName === 'figcaption') captions.push(child);
    else
      visit(child, 'element', (node) => {
        if (node.tagName !== 'figure' && node.tagName !== 'img') return undefined;
        parts.push(node);
        return SKIP;
      });
  }
  return [...parts, ...captions];
}

/** A figure of images and a caption (Ghost's image cards, WordPress's image blocks). */
function isImageFigure(figure: Element): boolean {
  let images = 0;
  let other = false;
  visit(figure, 'element', (node) => {
    if (node === figure) return undefined;
    if (node.tagName === 'img') images++;
    else if (node.tagName === 'figcaption') return SKIP;
    else if (!/^(?:a|picture|source|div|span|p)$/.test(node.tagName)) other = true;
    return undefined;
  });
  return images > 0 && !other;
}

function holdsTarget(node: Element, targets: ReadonlySet<string>): boolean {
  let found = false;
  visit(node, 'element', (child) => {
    if (
      typeof child.properties.id === 'string' &&
      targets.has(child.properties.id) &&
      !child.properties.id.startsWith('user-content-')
    )
      found = true;
  });
  return found;
}

const FOOTNOTE = 'user-content-fn-';

/**
 * An inline element kept as raw HTML around its content, which stays Markdown: `<sub>2</sub>`;
 * with its direction, when it has one (see directionOf).
 */
const inlineHtml: Handle = (state, node: Element) => {
  const tag = node.tagName;
  const dir = directionOf(node);
  return [
    { type: 'html', value: dir ? `<${tag} dir="${dir}">` : `<${tag}>` },
    ...(state.all(node) as PhrasingContent[]),
    { type: 'html', value: `</${tag}>` },
  ];
};

type Handle = NonNullable<RehypeRemarkOptions['handlers']>[string];

/** Stand-ins for math as cms-sync renders it, marked in toMarkdown: their one child is the TeX. */
const MATH_INLINE = 'cms-sync-math-inline';
const MATH_DISPLAY = 'cms-sync-math-display';

/** hast -> mdast handlers for what rehype-remark does not know or would flatten. */
const handlers: NonNullable<RehypeRemarkOptions['handlers']> = {
  [MATH_INLINE](state, node: Element) {
    const math = { type: 'inlineMath', value: texOf(node) } as unknown as PhrasingContent;
    state.patch(node, math);
    return math;
  },
  [MATH_DISPLAY](state, node: Element) {
    const math = { type: 'math', value: texOf(node) } as unknown as Nodes;
    state.patch(node, math);
    return math;
  },
  [RAW](state, node: Element) {
    const html: Html = { type: 'html', value: rawOf(node).html };
    state.patch(node, html);
    return html;
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
  // remark-gfm's footnote reference: <sup><a href="#user-content-fn-x" data-footnote-ref>.
  sup(state, node: Element, parent) {
    const only = node.children.length === 1 ? node.children[0] : undefined;
    const label =
      only?.type === 'element' && only.tagName === 'a' && only.properties.dataFootnoteRef !== undefined
        ? footnoteLabel(only.properties.href, `#${FOOTNOTE}`)
        : undefined;
    if (label === undefined) return inlineHtml(state, node, parent);
    const reference: FootnoteReference = { type: 'footnoteReference', identifier: label, label };
    state.patch(node, reference);
    return reference;
  },
  // A form's field (a signup card's email box): the form's text stays, its fields go, as the
  // report says. rehype-remark would make an email field a `mailto:` link to its placeholder.
  input: () => undefined,
  // Markdown has no form for these; dropped, H<sub>2</sub>O reads H2O and 10 m<sup>2</sup> 10 m2.
  sub: inlineHtml,
  u: inlineHtml,
  mark: inlineHtml,
  ins: inlineHtml,
  kbd: inlineHtml,
  // Words in another direction than the sentence's (`<span dir="rtl">`): kept so; else their text.
  span: (state, node: Element, parent) =>
    directionOf(node) ? inlineHtml(state, node, parent) : (state.all(node) as PhrasingContent[]),
  bdi: inlineHtml,
  bdo: inlineHtml,
  // remark-gfm's footnote section: each item back to a definition, without its back links.
  section(state, node: Element) {
    if (node.properties.dataFootnotes === undefined) return state.toFlow(state.all(node));
    const definitions: FootnoteDefinition[] = [];
    visit(node, 'element', (li) => {
      const label = li.tagName === 'li' ? footnoteLabel(li.properties.id, FOOTNOTE) : undefined;
      if (label === undefined) return undefined;
      const item = structuredClone(li);
      visit(item, 'element', (a, index, parent) => {
        if (
          a.tagName !== 'a' ||
          a.properties.dataFootnoteBackref === undefined ||
          !parent ||
          index === undefined
        )
          return undefined;
        parent.children.splice(index, 1);
        const before = parent.children[index - 1];
        if (before?.type === 'text') before.value = before.value.replace(/\s+$/, '');
        return [SKIP, index];
      });
      definitions.push({
        type: 'footnoteDefinition',
        identifier: label,
        label,
        children: state.toFlow(state.all(item)) as FootnoteDefinition['children'],
      });
      return SKIP;
    });
    return definitions;
  },
};

/**
 * Markdown an editor would write: whitespace at the edges of emphasis moved out of it (else it
 * is written as `&#x20;`), and a list whose items are each one paragraph (and maybe a list)
 * kept tight, as `<li><p>` editors produce it.
 */
function remarkTidy() {
  return (tree: MdastRoot, file: VFile): void => {
    if ((file.data[OPTIONS] as ConvertOptions | undefined)?.faithful) return;
    linkBareUrls(tree);
    visit(tree, (node, index, parent) => {
      if (node.type === 'list') {
        const simple = node.children.every((item) =>
          item.children.every((c, i) => (i === 0 ? c.type === 'paragraph' : c.type === 'list')),
        );
        if (simple) {
          node.spread = false;
          for (const item of node.children) item.spread = false;
        }
      }
      if (
        (node.type === 'emphasis' || node.type === 'strong' || node.type === 'delete') &&
        parent &&
        index !== undefined
      ) {
        const first = node.children[0];
        const last = node.children[node.children.length - 1];
        const lead = first?.type === 'text' ? /^\s+/.exec(first.value)?.[0] : undefined;
        const trail = last?.type === 'text' ? /\s+$/.exec(last.value)?.[0] : undefined;
        if (lead && first?.type === 'text') first.value = first.value.slice(lead.length);
        if (trail && last?.type === 'text') last.value = last.value.slice(0, -trail.length);
        const around: PhrasingContent[] = [];
        if (lead) around.push({ type: 'text', value: ' ' });
        around.push(node as PhrasingContent);
        if (trail) around.push({ type: 'text', value: ' ' });
        if (around.length > 1) {
          (parent.children as Nodes[]).splice(index, 1, ...around);
          return [SKIP, index + around.length];
        }
      }
      return undefined;
    });
  };
}

/** A URL in running text, up to a space or a character a URL does not hold. */
const BARE_URL = /https?:\/\/[^\s<>"'`]+/g;

/**
 * A bare URL in the text becomes a link whose text is the URL, which Markdown writes as an
 * autolink (`<https://…>`): left as text, its `_` and `*` are escaped (`Python\_(language)`),
 * and the link GFM then makes of it holds the backslash and leads nowhere. Punctuation that ends
 * the sentence, and a `)` the URL did not open, stay out of it, as GFM leaves them.
 */
function linkBareUrls(tree: MdastRoot): void {
  visit(tree, 'text', (node, index, parent) => {
    if (!parent || index === undefined || parent.type === 'link' || parent.type === 'linkReference') return;
    if (!node.value.includes('://')) return;
    const parts: PhrasingContent[] = [];
    let at = 0;
    for (const match of node.value.matchAll(BARE_URL)) {
      let url = match[0].replace(/[.,;:!?]+$/, '');
      while (url.endsWith(')') && (url.match(/\(/g)?.length ?? 0) < (url.match(/\)/g)?.length ?? 0))
        url = url.slice(0, -1).replace(/[.,;:!?]+$/, '');
      // One Markdown would not escape stays text, which GFM links as it is.
      if (!URL.canParse(url) || !/[_*[\]\\`~&]/.test(url)) continue;
      if (match.index > at) parts.push({ type: 'text', value: node.value.slice(at, match.index) });
      parts.push({ type: 'link', url, children: [{ type: 'text', value: url }] });
      at = match.index + url.length;
    }
    if (parts.length === 0) return;
    if (at < node.value.length) parts.push({ type: 'text', value: node.value.slice(at) });
    (parent.children as PhrasingContent[]).splice(index, 1, ...parts);
    return [SKIP, index + parts.length];
  });
}

interface Unsafe {
  character: string;
  before?: string;
}
/** mdast-util-gfm-autolink-literal's rules (character and what comes before it). */
const AUTOLINK_UNSAFE = new Set([':[ps]', '.[Ww]', '@[+\\-.\\w]']);

/**
 * remark-gfm escapes what would become a link (`https\://`, `www\.`, `a\@b`) so that the text
 * stays text. An importer rather lets a bare URL become the link its reader expects.
 */
function remarkBareUrls(this: Processor) {
  const data = this.data() as { toMarkdownExtensions?: unknown[] };
  const strip = (extension: unknown): unknown => {
    if (!extension || typeof extension !== 'object') return extension;
    const { unsafe, extensions, ...rest } = extension as { unsafe?: Unsafe[]; extensions?: unknown[] };
    return {
      ...rest,
      ...(unsafe ? { unsafe: unsafe.filter((u) => !AUTOLINK_UNSAFE.has(`${u.character}${u.before}`)) } : {}),
      ...(extensions ? { extensions: extensions.map(strip) } : {}),
    };
  };
  data.toMarkdownExtensions = (data.toMarkdownExtensions ?? []).map(strip);
}

const STRINGIFY = {
  bullet: '-',
  emphasis: '_',
  strong: '*',
  rule: '-',
  fences: true,
  listItemIndent: 'one',
} as const;

function buildProcessor(faithful: boolean, math: MathSyntax | false) {
  const base = unified()
    .use(rehypeRemark, { handlers })
    .use(remarkGfm)
    .use(mathSyntaxPlugins(math))
    .use(remarkTidy);
  return (faithful ? base : base.use(remarkBareUrls)).use(remarkStringify, STRINGIFY).freeze();
}

// Built on first use, one per kind: assembling a pipeline costs more than converting a post.
const processors = new Map<string, ReturnType<typeof buildProcessor>>();

function toMarkdown(tree: Root, options: ConvertOptions): string {
  const math = options.math ?? false;
  const kind = `${options.faithful ? 'faithful' : 'plain'} ${math ? `math ${math.singleDollar}` : ''}`;
  let processor = processors.get(kind);
  if (!processor) processors.set(kind, (processor = buildProcessor(options.faithful === true, math)));
  const file = { data: { [OPTIONS]: options } } as unknown as VFile;
  const copy = structuredClone(tree);
  visit(copy, 'element', (node) => {
    if (math) {
      const stand = mathStandIn(node);
      if (stand) {
        node.tagName = stand.tagName;
        node.properties = {};
        node.children = [{ type: 'text', value: stand.tex }];
        return SKIP;
      }
    }
    if (node.tagName !== 'dynamic-block') return;
    // The CMS's media element: back to the Markdown cms-sync renders it from (docs/contract.md,
    // Media). As an image it sits among text as the renderer reads it.
    const size = node.properties.dataSize;
    node.tagName = 'img';
    node.properties = {
      src: `cms-media:${String(node.properties.dataId ?? '')}`,
      ...(typeof size === 'string' && size ? { title: size } : {}),
    };
    node.children = [];
  });
  const mdast = processor.runSync(copy, file);
  const markdown = processor.stringify(mdast as MdastRoot, file).trim();
  return markdown === '' ? '' : `${markdown}\n`;
}

function parse(html: string, options: ConvertOptions): Root {
  const { tree, flattened } = parseHtml(html);
  if (flattened > 0) options.onFlattened?.(flattened);
  rehypePrepare()(tree, { data: { [OPTIONS]: options } } as unknown as VFile);
  return tree;
}

/** HTML -> Markdown (GFM), ending in one newline; empty HTML gives an empty string. */
export function htmlToMarkdown(html: string, options: ConvertOptions = {}): string {
  if (html.trim() === '') return '';
  const tree = parse(html, options);
  const markdown = toMarkdown(tree, options);
  if (!options.faithful || rendersAs(markdown, html, options.math)) return markdown;
  // Some block does not come back: find which, one block at a time, and keep those raw.
  // remark-gfm's footnotes go together, references and section: their numbers and ids depend
  // on the whole set.
  const blocks = tree.children.filter((c) => !(c.type === 'text' && c.value.trim() === ''));
  const footnotes = blocks.filter((b) => holdsFootnotes(b));
  const groups = [
    ...blocks.filter((b) => !footnotes.includes(b)).map((b) => [b]),
    ...(footnotes.length ? [footnotes] : []),
  ];
  for (const group of groups) {
    const part: Root = { type: 'root', children: group };
    if (rendersAs(toMarkdown(part, options), toHtml(part), options.math)) continue;
    for (const block of group) {
      const index = tree.children.indexOf(block);
      if (block.type === 'element' || block.type === 'comment') keepRaw(block, index, tree);
    }
  }
  return toMarkdown(tree, options);
}

/**
 * Math as render/math.ts writes it: a `<span class="math math-inline">` whose one text is
 * `\(TeX\)`, or a `<div class="math math-display">` whose one text is `\[TeX\]`.
 */
function mathStandIn(node: Element): { tagName: string; tex: string } | undefined {
  const display = node.tagName === 'div';
  if (!display && node.tagName !== 'span') return undefined;
  const classes = classesOf(node);
  if (!classes.includes('math') || !classes.includes(display ? 'math-display' : 'math-inline'))
    return undefined;
  const [only, ...rest] = node.children;
  if (rest.length > 0 || only?.type !== 'text') return undefined;
  const delimited = display ? /^\\\[([\s\S]*)\\\]$/.exec(only.value) : /^\\\(([\s\S]*)\\\)$/.exec(only.value);
  if (!delimited) return undefined;
  return { tagName: display ? MATH_DISPLAY : MATH_INLINE, tex: delimited[1]! };
}

function texOf(node: Element): string {
  const [text] = node.children;
  return text?.type === 'text' ? text.value : '';
}

function holdsFootnotes(node: RootContent): boolean {
  let found = false;
  visit(node, 'element', (n) => {
    if (n.properties.dataFootnoteRef !== undefined || n.properties.dataFootnotes !== undefined) found = true;
  });
  return found;
}

/**
 * Whether cms-sync's renderer turns `markdown` into `html`, as plan would compare them once
 * the HTML of both is written alike (attribute order and quotes, entities): media blocks are
 * bound to the ids their `cms-media:` sources name.
 */
export function rendersAs(markdown: string, html: string, math?: MathSyntax | false): boolean {
  const rendered = renderMarkdown(markdown, { defaultSize: 'medium', math });
  if (rendered.problems.some((p) => p.severity === 'error')) return false;
  const ids = rendered.images.map((image) => /^cms-media:(\d+)$/.exec(image.src)?.[1]);
  if (ids.some((id) => id === undefined)) return false;
  const bound = bindMedia(rendered.html, ids.map(Number));
  return sameValue(canonicalHtml(bound), canonicalHtml(html));
}

/** HTML written the way rehype writes it: attributes, quotes and entities in one form. */
export function canonicalHtml(html: string): string {
  return toHtml(htmlReader.parse(html));
}
