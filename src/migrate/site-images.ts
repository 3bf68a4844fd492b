import type { Definition, Html, Image, ImageReference, Root } from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';

const parser = unified().use(remarkParse).freeze();

/** `src` of an `<img>`, quoted or not; group 2, 3 or 4 is the value. */
const IMG_SRC = /<img\b[^>]*?\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/gi;

/**
 * Rewrites every image reference of a Markdown body (`![](x)`, a reference-style image's
 * definition, `<img src>` in HTML) for which `replace` returns a new URL; the rest of the text is
 * left byte for byte as it was.
 */
export function rewriteImages(markdown: string, replace: (url: string) => string | undefined): string {
  if (!markdown.includes('![') && !/<img\b/i.test(markdown)) return markdown;
  const tree = parser.parse(markdown) as Root;
  const edits: Array<{ start: number; end: number; text: string }> = [];
  const imageIds = new Set<string>();
  const definitions: Definition[] = [];

  visit(tree, (node) => {
    if (node.type === 'imageReference') imageIds.add((node as ImageReference).identifier);
    else if (node.type === 'definition') definitions.push(node as Definition);
    else if (node.type === 'image') {
      const start = node.position?.start.offset;
      const end = node.position?.end.offset;
      if (start === undefined || end === undefined) return;
      const at = destination(markdown, markdown.indexOf('](', start) + 2, end);
      const url = replace((node as Image).url);
      if (at && url !== undefined) edits.push({ ...at, text: markdownUrl(url) });
    } else if (node.type === 'html') {
      const start = node.position?.start.offset;
      if (start === undefined) return;
      for (const match of (node as Html).value.matchAll(IMG_SRC)) {
        const value = match[1] ?? match[2] ?? match[3] ?? '';
        const url = replace(decodeAttribute(value));
        if (url === undefined) continue;
        const valueStart =
          start + match.index + match[0].length - value.length - (match[3] === undefined ? 1 : 0);
        const quoted = match[3] === undefined;
        edits.push({
          start: quoted ? valueStart - 1 : valueStart,
          end: valueStart + value.length + (quoted ? 1 : 0),
          text: `"${url.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`,
        });
      }
    }
  });
  for (const definition of definitions) {
    if (!imageIds.has(definition.identifier)) continue;
    const start = definition.position?.start.offset;
    const end = definition.position?.end.offset;
    if (start === undefined || end === undefined) continue;
    const at = destination(markdown, markdown.indexOf(']:', start) + 2, end);
    const url = replace(definition.url);
    if (at && url !== undefined) edits.push({ ...at, text: markdownUrl(url) });
  }

  let out = markdown;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  }
  return out;
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
