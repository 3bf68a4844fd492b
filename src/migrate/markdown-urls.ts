import type { Definition, Html, Image, ImageReference, Link, LinkReference, Root } from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { applyEdits, type TextEdit } from '../text-edits.js';

const parser = unified().use(remarkParse).freeze();

/** `src` of an `<img>`, `href` of an `<a>`, quoted or not; group 2, 3 or 4 is the value. */
const IMG_SRC = /<img\b[^>]*?\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/gi;
const A_HREF = /<a\b[^>]*?\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/gi;

/** What replaces a URL: a new URL, or undefined to leave it. */
export type ReplaceUrl = (url: string) => string | undefined;

export interface UrlRewrites {
  /** Images: `![](x)`, a reference-style image's definition, `<img src>` in HTML. */
  image?: ReplaceUrl;
  /** Links: `[](x)`, `<x>`, a reference-style link's definition, `<a href>` in HTML. */
  link?: ReplaceUrl;
}

/**
 * Rewrites the image and link URLs of a Markdown body for which the given function returns a new
 * URL; the rest of the text is left byte for byte as it was. Code (fenced, indented, inline) is
 * text, not a reference, and is never touched.
 */
export function rewriteUrls(markdown: string, rewrites: UrlRewrites): string {
  const { image, link } = rewrites;
  const maybeImages = image !== undefined && (markdown.includes('![') || /<img\b/i.test(markdown));
  const maybeLinks =
    link !== undefined && (/\]\s*[(:]/.test(markdown) || /<a\b/i.test(markdown) || markdown.includes('<'));
  if (!maybeImages && !maybeLinks) return markdown;
  const tree = parser.parse(markdown) as Root;
  const edits: TextEdit[] = [];
  const used = { image: new Set<string>(), link: new Set<string>() };
  const definitions: Definition[] = [];

  visit(tree, (node) => {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return;
    if (node.type === 'imageReference') used.image.add((node as ImageReference).identifier);
    else if (node.type === 'linkReference') used.link.add((node as LinkReference).identifier);
    else if (node.type === 'definition') definitions.push(node as Definition);
    else if (node.type === 'image' && image) {
      const at = destination(markdown, markdown.indexOf('](', start) + 2, end);
      const url = image((node as Image).url);
      if (at && url !== undefined) edits.push({ ...at, text: markdownUrl(url) });
    } else if (node.type === 'link' && link) {
      const url = link((node as Link).url);
      if (url === undefined) return;
      if (markdown[start] === '<') {
        // An autolink (`<https://old.example/a/>`) cannot hold a path: a link showing the old URL.
        const shown = markdown.slice(start + 1, end - 1);
        edits.push({ start, end, text: `[${shown.replace(/[[\]\\]/g, '\\$&')}](${markdownUrl(url)})` });
        return;
      }
      // The link's text is parsed too; its destination follows the last `](` before the end.
      const at = destination(markdown, closingBracket(markdown, start, end) + 2, end);
      if (at) edits.push({ ...at, text: markdownUrl(url) });
    } else if (node.type === 'html') {
      const { value } = node as Html;
      if (image) edits.push(...attributeEdits(value, start, IMG_SRC, image));
      if (link) edits.push(...attributeEdits(value, start, A_HREF, link));
    }
  });
  for (const definition of definitions) {
    const replace = used.image.has(definition.identifier)
      ? image
      : used.link.has(definition.identifier)
        ? link
        : undefined;
    const start = definition.position?.start.offset;
    const end = definition.position?.end.offset;
    if (!replace || start === undefined || end === undefined) continue;
    const at = destination(markdown, markdown.indexOf(']:', start) + 2, end);
    const url = replace(definition.url);
    if (at && url !== undefined) edits.push({ ...at, text: markdownUrl(url) });
  }

  return applyEdits(markdown, edits);
}

/** Edits of one attribute (`src`, `href`) in a raw HTML node that starts at `start`. */
function attributeEdits(html: string, start: number, pattern: RegExp, replace: ReplaceUrl): TextEdit[] {
  const edits: TextEdit[] = [];
  for (const match of html.matchAll(pattern)) {
    const value = match[1] ?? match[2] ?? match[3] ?? '';
    const url = replace(decodeAttribute(value));
    if (url === undefined) continue;
    const quoted = match[3] === undefined;
    const valueStart = start + match.index + match[0].length - value.length - (quoted ? 1 : 0);
    edits.push({
      start: quoted ? valueStart - 1 : valueStart,
      end: valueStart + value.length + (quoted ? 1 : 0),
      text: `"${url.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`,
    });
  }
  return edits;
}

/**
 * Where the `]` that closes an inline link's text is: the last `](` of the node that a
 * destination follows to the node's end. The text may hold brackets and images of its own.
 */
function closingBracket(text: string, start: number, end: number): number {
  let at = text.lastIndexOf('](', end);
  while (at > start) {
    const span = destination(text, at + 2, end);
    if (span && /^\s*(?:(?:"[^"]*"|'[^']*'|\([^)]*\))\s*)?\)$/.test(text.slice(span.end, end))) return at;
    at = text.lastIndexOf('](', at - 1);
  }
  return -1;
}

/** The destination's span in `](dest "title")` or `]: dest "title"`, searching from `from`. */
function destination(text: string, from: number, limit: number): { start: number; end: number } | undefined {
  if (from < 2 || from > limit) return undefined;
  let start = from;
  while (start < limit && /\s/.test(text[start]!)) start++;
  if (text[start] === '<') {
    const close = text.indexOf('>', start);
    return close === -1 || close > limit ? undefined : { start, end: close + 1 };
  }
  let end = start;
  let depth = 0;
  while (end < limit) {
    const c = text[end]!;
    if (c === '\\') {
      end += 2;
      continue;
    }
    if (/\s/.test(c)) break;
    if (c === '(') depth++;
    if (c === ')' && depth-- === 0) break;
    end++;
  }
  return end > start ? { start, end } : undefined;
}

/** A URL as a Markdown destination: in `<>` when it holds spaces or parentheses. */
function markdownUrl(url: string): string {
  return /[\s()<>]/.test(url) ? `<${url.replace(/[<>]/g, (c) => encodeURIComponent(c))}>` : url;
}

function decodeAttribute(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
