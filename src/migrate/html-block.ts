import remarkParse from 'remark-parse';
import { unified } from 'unified';

/**
 * HTML its author wrote as HTML (WordPress's Custom HTML block, Ghost's HTML card) is kept as he
 * wrote it: a widget's empty `<div data-url="…">` is what its script fills, and a conversion to
 * Markdown would drop it. An importer marks such HTML with `htmlBlockMarker` before the post's
 * HTML is read; `protectEmbeds` (embeds.ts) writes it back as one raw HTML block.
 */
export const HTML_BLOCK_ELEMENT = 'cms-sync-html-block';

/**
 * An element that carries `html` in an attribute, where nothing else the importer does to the
 * post's HTML reads it (no tag, bracket or line of it is seen by the regular expressions that
 * find images, shortcodes or URLs on their own line). `kind` names it in the report.
 */
export function htmlBlockMarker(html: string, kind: string): string {
  const escaped = html
    .replace(/\r\n?/g, '\n')
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\[/g, '&#91;')
    .replace(/\]/g, '&#93;')
    .replace(/\n/g, '&#10;');
  return `<${HTML_BLOCK_ELEMENT} data-kind="${kind}" data-html="${escaped}"></${HTML_BLOCK_ELEMENT}>`;
}

/** Elements whose content is raw text: no entity is decoded there. */
const RAW_TEXT = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript']);

const markdownReader = unified().use(remarkParse).freeze();

/**
 * `html` as Markdown that renders to it: one run of HTML blocks. CommonMark ends an HTML block
 * at a blank line, and reads what follows as Markdown (an indented line as code), so no line of
 * it may be blank. Where text is decoded (between tags, in an attribute's value, in a `<pre>`),
 * the second newline is written `&#10;`, which is the same text; in a script, a style or a
 * comment, where nothing is decoded, and between a tag's attributes, the blank line goes. HTML
 * that Markdown would not read as HTML from its first line (text, an inline tag with more on its
 * line) is put in a `<div>`. Where text is decoded, `{{` and `{%` start with `&#123;`, so that
 * sync's template expansion does not read them (inside a script or a style they stay as written).
 */
export function asHtmlBlock(html: string): string {
  const text = withoutBlankLines(html.replace(/\r\n?/g, '\n')).trim();
  if (text === '') return '';
  const tree = markdownReader.parse(text);
  return tree.children.every((node) => node.type === 'html') ? text : `<div>\n${text}\n</div>`;
}

function withoutBlankLines(html: string): string {
  let out = '';
  // Where the scan is: text, inside a tag (quote: in a quoted value), a comment, or the raw text of `raw`.
  let state: 'text' | 'tag' | 'comment' | 'raw' = 'text';
  let quote = '';
  let raw = '';
  let opening = '';
  for (let i = 0; i < html.length; i++) {
    const char = html[i]!;
    // Where text is decoded, a template's opening brace is written as a reference, the same text:
    // sync expands Hugo's and Liquid's syntax, which this HTML never was.
    if (
      char === '{' &&
      (html[i + 1] === '{' || html[i + 1] === '%') &&
      (state === 'text' || (state === 'tag' && quote))
    ) {
      out += '&#123;';
      continue;
    }
    if (char === '\n') {
      const blank = /\n[ \t]*(?=\n)/y;
      blank.lastIndex = i;
      const match = blank.exec(html);
      if (match) {
        const decoded = state === 'text' || (state === 'tag' && quote !== '');
        // The newline that follows the blank line is the one written as a reference; else the
        // blank line is left out and the scan goes on at that newline.
        if (decoded) out += `${match[0]}&#10;`;
        i += match[0].length;
        if (!decoded) i--;
        continue;
      }
      out += char;
      continue;
    }
    out += char;
    if (state === 'text') {
      if (html.startsWith('<!--', i)) {
        out += '!--';
        i += 3;
        state = 'comment';
        continue;
      }
      const tag = /<(\/?)([A-Za-z][^\s/>]*)/y;
      tag.lastIndex = i;
      const found = tag.exec(html);
      if (found) {
        state = 'tag';
        opening = found[1] === '' && RAW_TEXT.has(found[2]!.toLowerCase()) ? found[2]!.toLowerCase() : '';
        out += found[0].slice(1);
        i += found[0].length - 1;
      }
    } else if (state === 'tag') {
      if (quote) {
        if (char === quote) quote = '';
      } else if (char === '"' || char === "'") quote = char;
      else if (char === '>') {
        state = opening ? 'raw' : 'text';
        raw = opening;
      }
    } else if (state === 'comment') {
      if (html.startsWith('-->', i)) {
        out += '->';
        i += 2;
        state = 'text';
      }
    } else if (char === '<' && html.slice(i, i + raw.length + 2).toLowerCase() === `</${raw}`) {
      // The end tag, read as any other.
      state = 'tag';
      opening = '';
    }
  }
  return out;
}
