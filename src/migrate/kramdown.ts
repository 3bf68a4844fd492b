import type { Root } from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { parseTemplates, type TemplateNode } from '../render/templates/parse-templates.js';
import { applyEdits, type TextEdit } from '../text-edits.js';

const parser = unified().use(remarkParse).freeze();

/** What `markdown` of the old site holds that the CMS's Markdown would show as text. */
export type AttributeSyntax = 'attributes' | 'braces' | 'toc' | 'extension';

export interface AttributesRemoved {
  text: string;
  /** What was removed, by its line in the text given (1-based). */
  removed: Array<{ line: number; what: AttributeSyntax }>;
  /** The line (0-based) of the text given that line `line` (0-based) of `text` comes from. */
  bodyLine: (line: number) => number;
}

/**
 * Removes the attribute syntax of kramdown (Jekyll's Markdown), which CommonMark (and so the CMS)
 * shows as text:
 *
 * attribute lists after a block (`{: .class}` on a line of its own, and `{:name: …}` definitions)
 * or right after a span (`![x](y){: width="200"}`), the table of contents (`* TOC` then `{:toc}`,
 * or Minimal Mistakes' `{% include toc %}`), `{::comment}…{:/comment}`, the markers of
 * `{::nomarkdown}…{:/nomarkdown}` (what they hold stays), and `{::options … /}`. A heading's own
 * attributes (`## Title {#id}`) stay: sync reads them (src/render/heading-ids.ts).
 *
 * Nothing inside code (fenced, indented, inline, or a `highlight` block of the site's templates)
 * or HTML is touched. The rest of the text is left byte for byte as it was. Classes and ids have no
 * place in the CMS's Markdown: what was removed is told by line, for an editor to look at (an
 * anchor link to a heading's id, say).
 */
export function removeAttributeSyntax(
  markdown: string,
  /** Just the Docs' callouts (`_config.yml` `callouts:`): each class, with its title. */
  callouts: ReadonlyMap<string, string> = new Map(),
  /**
   * Whose syntax: kramdown's (the default), or attribute lists without the colon instead
   * (`{.class #id key=value}`): `markdown-it` (markdown-it-attrs: at the end of a block's last
   * line, right after a span, or on a line of its own after a block) or `goldmark` (Hugo with
   * `markup.goldmark.parser.attribute.block`: on a line of its own after a block).
   */
  syntax: 'kramdown' | 'markdown-it' | 'goldmark' = 'kramdown',
): AttributesRemoved {
  if (!markdown.includes('{')) return unchanged(markdown);
  const candidates: Edit[] = [];
  const add = (start: number, end: number, what: AttributeSyntax, rank: number) =>
    candidates.push({ start, end, what, rank });
  if (syntax !== 'kramdown') {
    for (const m of markdown.matchAll(BRACE_BLOCK)) add(m.index, m.index + m[0].length, 'braces', 2);
    if (syntax === 'markdown-it') {
      for (const m of markdown.matchAll(BRACE_LINE_END)) {
        // A heading's (`## Title {#id .wide}`): sync reads it (src/render/heading-ids.ts).
        const lineStart = markdown.lastIndexOf('\n', m.index - 1) + 1;
        if (/^ {0,3}#{1,6}[ \t]/.test(markdown.slice(lineStart, m.index + 1))) continue;
        add(m.index, m.index + m[0].length, 'braces', 2);
      }
      for (const m of markdown.matchAll(BRACE_SPAN)) add(m.index, m.index + m[0].length, 'braces', 2);
    }
    return removeEdits(markdown, candidates);
  }
  for (const m of markdown.matchAll(TOC)) add(m.index, m.index + m[0].length, 'toc', 0);
  for (const m of markdown.matchAll(TOC_INCLUDE)) add(m.index, m.index + m[0].length, 'toc', 0);
  for (const [start, end] of comments(markdown)) add(start, end, 'extension', 1);
  for (const m of markdown.matchAll(EXTENSION_MARK)) add(m.index, m.index + m[0].length, 'extension', 1);
  for (const m of markdown.matchAll(BLOCK_IAL)) {
    const id = headingId(markdown, m.index, m[0]);
    const callout =
      id === undefined && callouts.size > 0 ? calloutEdits(markdown, m.index, m[0], callouts) : [];
    if (callout.length > 0) candidates.push(...callout);
    else if (id === undefined) add(m.index, m.index + m[0].length, 'attributes', 2);
    else {
      // `## Title` then `{: #title}`: the heading's id, which sync reads written after the title.
      candidates.push({
        start: m.index - 1,
        end: m.index - 1,
        what: 'attributes',
        rank: 2,
        text: ` {#${id}}`,
      });
      candidates.push({
        start: m.index,
        end: m.index + m[0].length,
        what: 'attributes',
        rank: 2,
        quiet: true,
      });
    }
  }
  for (const m of markdown.matchAll(SPAN_IAL)) add(m.index, m.index + m[0].length, 'attributes', 2);
  return removeEdits(markdown, candidates);
}

/** The edits found, applied where they touch no code or HTML, and what they removed by line. */
function removeEdits(markdown: string, candidates: Edit[]): AttributesRemoved {
  if (candidates.length === 0) return unchanged(markdown);

  const kept = protectedRanges(markdown);
  /** Whether the line before `start` (a line's start) is blank, or there is none. */
  const blankBefore = (start: number) => {
    if (start === 0) return true;
    if (markdown[start - 1] !== '\n') return false;
    return markdown.slice(markdown.lastIndexOf('\n', start - 2) + 1, start - 1).trim() === '';
  };
  // In order; of two that overlap, the first (or, at one place, the first kind above) is taken.
  candidates.sort((a, b) => a.start - b.start || a.rank - b.rank);
  const edits: Edit[] = [];
  let taken = 0;
  for (const edit of candidates) {
    if (edit.start < taken || kept.overlaps(edit.start, edit.end)) continue;
    // A line that held nothing else goes with its line break.
    if (markdown[edit.end - 1] !== '\n' && (edit.start === 0 || markdown[edit.start - 1] === '\n')) {
      const rest = /^[ \t]*(?:\n|$)/.exec(markdown.slice(edit.end));
      if (rest) edit.end += rest[0].length;
    }
    // Whole lines between blank lines: the blank lines after them go too, not to leave a gap.
    if (markdown[edit.end - 1] === '\n' && blankBefore(edit.start))
      edit.end += /^(?:[ \t]*\n)*/.exec(markdown.slice(edit.end))![0].length;
    edits.push(edit);
    taken = edit.end;
  }
  if (edits.length === 0) return unchanged(markdown);

  let text = '';
  let at = 0;
  const removed: AttributesRemoved['removed'] = [];
  /** From output line `line` (0-based) on, each comes from `lines` more lines down the text given. */
  const shifts: Array<{ line: number; lines: number }> = [];
  /** Line breaks before the edit, in the text given and in the output. */
  let given = 0;
  let out = 0;
  /** Whether the output so far is empty or ends a line (asked of the text given: the output is a rope). */
  let atLineStart = true;
  for (const edit of edits) {
    const before = lineBreaks(markdown, at, edit.start);
    given += before;
    out += before;
    text += markdown.slice(at, edit.start) + (edit.text ?? '');
    if (edit.start > at) atLineStart = markdown[edit.start - 1] === '\n';
    if (edit.text === undefined && !edit.quiet) removed.push({ line: given + 1, what: edit.what });
    const lines = lineBreaks(markdown, edit.start, edit.end);
    const added = edit.text ? lineBreaks(edit.text, 0, edit.text.length) : 0;
    // Whole lines removed (or written in their place): the output's next line is the one after them.
    if (lines !== added) shifts.push({ line: (atLineStart ? out : out + 1) + added, lines: lines - added });
    out += added;
    given += lines;
    at = edit.end;
  }
  return {
    text: text + markdown.slice(at),
    removed,
    bodyLine: (line) => line + shifts.reduce((sum, s) => (s.line <= line ? sum + s.lines : sum), 0),
  };
}

interface Edit {
  start: number;
  end: number;
  what: AttributeSyntax;
  /** Which is taken of two found at one place: the lower. */
  rank: number;
  /** Written in place of what is removed (then nothing is reported removed). */
  text?: string;
  /** Removed as part of a conversion, which is not reported. */
  quiet?: boolean;
}

/**
 * Just the Docs' callout: `{: .note }` on a line of its own, a paragraph or a block quote right
 * under it (the theme draws a box titled "Note", or as `callouts:` titles the class), written as
 * the theme boxes of the other importers are: a block quote headed by its title in bold. With
 * `{: .note-title }`, the quote's first paragraph is the title. None (no edit) when the list names
 * no callout or no block follows it.
 */
function calloutEdits(
  markdown: string,
  start: number,
  list: string,
  callouts: ReadonlyMap<string, string>,
): Edit[] {
  let title: string | undefined;
  let titled = false;
  for (const [, name] of list.matchAll(/(?:^|[\s{:])\.([\w-]+)/g)) {
    if (callouts.has(name!)) title = callouts.get(name!);
    else if (name!.endsWith('-title') && callouts.has(name!.slice(0, -6))) titled = true;
    if (title !== undefined || titled) break;
  }
  if (title === undefined && !titled) return [];
  // A list right under a block gives that block its classes, not the next one.
  if (start > 0 && markdown.slice(markdown.lastIndexOf('\n', start - 2) + 1, start).trim() !== '') return [];
  const end = start + list.length;
  const lines: Array<[number, string]> = [];
  for (let at = end; at < markdown.length;) {
    const next = markdown.indexOf('\n', at);
    const line = markdown.slice(at, next === -1 ? markdown.length : next);
    if (line.trim() === '') break;
    lines.push([at, line]);
    if (next === -1) break;
    at = next + 1;
  }
  if (lines.length === 0) return [];
  const quoted = lines.every(([, line]) => /^[ \t]{0,3}>/.test(line));
  const edits: Edit[] = [];
  const edit = (at: number, until: number, text: string) =>
    edits.push({ start: at, end: until, what: 'attributes', rank: 2, text });
  if (titled) {
    // The quote's first line is its title, up to its first empty line.
    if (!quoted) return [];
    const [at, line] = lines[0]!;
    const prefix = /^[ \t]{0,3}>[ \t]?/.exec(line)![0];
    edit(start, end, '');
    edit(at + prefix.length, at + line.length, `**${line.slice(prefix.length).trim()}**`);
    return edits;
  }
  // A callout without a title in `callouts:` is a box without one: a plain quote.
  edit(start, end, title ? `> **${title}**\n>\n` : '');
  if (!quoted) for (const [at] of lines) edit(at, at, '> ');
  return edits;
}

/**
 * The id a block attribute list right under an ATX heading gives it (`## Title` then
 * `{: #title .wide}`), when the heading has no attribute list of its own.
 */
function headingId(markdown: string, start: number, list: string): string | undefined {
  if (start < 2 || markdown[start - 1] !== '\n') return undefined;
  const id = /(?:^|[\s{:])#([A-Za-z][\w:-]*)/.exec(list.replace(/"[^"\n]*"|'[^'\n]*'/g, ''))?.[1];
  if (id === undefined) return undefined;
  const line = markdown.slice(markdown.lastIndexOf('\n', start - 2) + 1, start - 1).trimEnd();
  return /^[ \t]{0,3}#{1,6}[ \t]+\S/.test(line) && !line.endsWith('}') ? id : undefined;
}

/** The text as it is, nothing removed. */
export function unchanged(markdown: string): AttributesRemoved {
  return { text: markdown, removed: [], bodyLine: (line) => line };
}

function lineBreaks(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** `* TOC` (or `1. Contents`, any one item) and the `{:toc}` line after it. */
const TOC = /^[ \t]*(?:[*+-]|\d+[.)])[ \t]+[^\n]*\n[ \t]*\{:[ \t]*\.?toc[ \t]*\}[ \t]*(?:\n|$)/gim;
/** Minimal Mistakes' table of contents, `{% include toc %}` on a line of its own (with its options). */
const TOC_INCLUDE = /^[ \t]*\{%-?[ \t]*include[ \t]+toc(?:\.html)?(?:[ \t][^%\n]*)?-?%\}[ \t]*(?:\n|$)/gm;
/** The markers of `{::nomarkdown}…{:/nomarkdown}` (what they hold stays), and `{::options … /}`. */
const EXTENSION_MARK = /\{::nomarkdown\}|\{:\/nomarkdown\}|\{::options[^}\n]*\/\}/g;
/** An attribute list's body: `.class #id key="value"` (quotes understood), then its brace. */
const LIST = String.raw`(?:[^}"'\n]|"[^"\n]*"|'[^'\n]*')*\}`;
/**
 * A line that is an attribute list (`{: .class #id key="value"}`) or a definition of one
 * (`{:name: .class}`), with its line break.
 */
const BLOCK_IAL = new RegExp(String.raw`^[ \t]*\{:(?!:)${LIST}[ \t]*(?:\n|$)`, 'gm');
/** An attribute list right after a span: an image or link, emphasis, code. */
const SPAN_IAL = new RegExp(String.raw`(?<=[)\]*_\`])\{:(?!:)${LIST}`, 'g');

/**
 * markdown-it-attrs' and Goldmark's attribute list, `{.class #id key=value}`: every item a class,
 * an id or a key with a value, so that a brace of prose (`{name}`, `{ }`) is never taken for one.
 */
const BRACE_ITEM = String.raw`(?:[.#][\w:-]+|[\w:-]+=(?:"[^"\n]*"|'[^'\n]*'|[^\s}"']+))`;
const BRACE_LIST = String.raw`\{[ \t]*${BRACE_ITEM}(?:[ \t]+${BRACE_ITEM})*[ \t]*\}`;
/** On a line of its own, after the block it is for. */
const BRACE_BLOCK = new RegExp(String.raw`^[ \t]*${BRACE_LIST}[ \t]*(?:\n|$)`, 'gm');
/** At the end of a block's (last) line, after a space. */
const BRACE_LINE_END = new RegExp(String.raw`(?<=\S)[ \t]+${BRACE_LIST}[ \t]*$`, 'gm');
/** Right after a span: an image or link, emphasis, code. */
const BRACE_SPAN = new RegExp(String.raw`(?<=[)\]*_\`])${BRACE_LIST}`, 'g');

/** `{::comment}…{:/comment}` (or `{:/}`), with what it holds: found with indexOf, in one pass. */
function comments(markdown: string): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  for (let open = markdown.indexOf('{::comment}'); open !== -1;) {
    const inner = open + '{::comment}'.length;
    const close = [markdown.indexOf('{:/comment}', inner), markdown.indexOf('{:/}', inner)]
      .filter((i) => i !== -1)
      .sort((a, b) => a - b)[0];
    if (close === undefined) break;
    const end = close + (markdown.startsWith('{:/}', close) ? 4 : '{:/comment}'.length);
    found.push([open, end]);
    open = markdown.indexOf('{::comment}', end);
  }
  return found;
}

/**
 * Where nothing is removed: code (and HTML, with `html`) as Markdown reads them, and the
 * templates' code blocks.
 */
function protectedRanges(markdown: string, html = true): Ranges {
  const ranges: Array<[number, number]> = [];
  visit(parser.parse(markdown) as Root, (node) => {
    if (node.type !== 'code' && node.type !== 'inlineCode' && !(html && node.type === 'html')) return;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start !== undefined && end !== undefined) ranges.push([start, end]);
  });
  const templates = parseTemplates(markdown, {
    dialect: 'liquid',
    isCode: () => false,
    maxDepth: 20,
  });
  const collect = (nodes: TemplateNode[]): void => {
    for (const node of nodes) {
      if (node.kind === 'verbatim') ranges.push([node.start, node.end]);
      else if (node.kind === 'tag') {
        if (node.open.name === 'highlight' && node.close) ranges.push([node.open.start, node.close.end]);
        else collect(node.children);
      }
    }
  };
  collect(templates.nodes);
  return new Ranges(ranges);
}

/** Ranges of the text, merged, to ask whether a span overlaps one (a binary search). */
class Ranges {
  readonly #starts: number[] = [];
  readonly #ends: number[] = [];

  constructor(ranges: Array<[number, number]>) {
    for (const [start, end] of ranges.sort((a, b) => a[0] - b[0])) {
      const last = this.#ends.length - 1;
      if (last >= 0 && start <= this.#ends[last]!) this.#ends[last] = Math.max(this.#ends[last]!, end);
      else {
        this.#starts.push(start);
        this.#ends.push(end);
      }
    }
  }

  /** Whether [start, end) overlaps a range. */
  overlaps(start: number, end: number): boolean {
    // The last range that starts before `end`.
    let low = 0;
    let high = this.#starts.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.#starts[mid]! < end) low = mid + 1;
      else high = mid;
    }
    return low > 0 && this.#ends[low - 1]! > start;
  }
}

/** An HTML element's opening tag alone on its line, with kramdown's `markdown="1"` (or `block`). */
const MARKDOWN_IN_HTML =
  /^([ \t]*<([a-z][a-z0-9-]*)\b[^>\n]*?)[ \t]+markdown[ \t]*=[ \t]*(["']?)(?:1|block)\3([^>\n]*>)[ \t]*$/gim;
/** Any element's opening tag alone on its line (kramdown's `parse_block_html`), its `markdown` attribute apart. */
const OPENING_TAG = /^([ \t]*<([a-z][a-z0-9-]*)\b)([^>\n]*>)[ \t]*$/gim;
/** The elements whose content kramdown reads as blocks of Markdown with `parse_block_html` on. */
const BLOCK_MODEL = new Set(
  (
    'address article aside blockquote body center dd details div fieldset figure footer form header li main nav ' +
    'section'
  ).split(' '),
);
/** A line that is one whole element (`<summary>Why?</summary>`, `<hr>`) or a closing tag. */
const WHOLE_ELEMENT =
  /^[ \t]*(?:<([a-z][a-z0-9-]*)\b[^>]*>.*<\/\1[ \t]*>|<(?:hr|br|img|input|wbr)\b[^>]*>|<\/[a-z][a-z0-9-]*[ \t]*>)[ \t]*$/i;

export interface MarkdownInHtmlOptions {
  /** kramdown's `parse_block_html`: the content of every block element is Markdown, not only marked ones. */
  everyBlock?: boolean;
}

/**
 * kramdown reads the content of an HTML element marked `markdown="1"` as Markdown (Minimal
 * Mistakes' notices: `<div class="notice" markdown="1">`), and with `parse_block_html` that of
 * every block element (but one marked `markdown="0"`). CommonMark does so only after a blank
 * line, else the content is raw HTML and its Markdown is published as typed: the attribute goes,
 * a blank line follows the opening tag and precedes the closing one (found by counting the
 * element's own openings and closings, line by line), and one follows each line inside that is
 * an HTML block of its own (`<summary>Why?</summary>`, `<h4>Title</h4>`), which would otherwise
 * take in the Markdown after it. Not in code.
 */
export function markdownInHtml(markdown: string, options: MarkdownInHtmlOptions = {}): string {
  const everyBlock = options.everyBlock === true;
  if (!everyBlock && !/markdown[ \t]*=/i.test(markdown)) return markdown;
  const matches: Array<{ index: number; end: number; name: string; text: string }> = [];
  for (const m of markdown.matchAll(MARKDOWN_IN_HTML))
    matches.push({ index: m.index, end: m.index + m[0].length, name: m[2]!, text: `${m[1]}${m[4]}` });
  if (everyBlock)
    for (const m of markdown.matchAll(OPENING_TAG)) {
      const name = m[2]!.toLowerCase();
      const attributes = m[3]!;
      if (!BLOCK_MODEL.has(name) || /\smarkdown[ \t]*=/i.test(attributes)) continue;
      matches.push({ index: m.index, end: m.index + m[0].length, name, text: m[0].trimEnd() });
    }
  if (matches.length === 0) return markdown;
  const code = protectedRanges(markdown, false);
  const edits: TextEdit[] = [];
  const breaks = new Set<number>();
  for (const m of matches) {
    if (code.overlaps(m.index, m.end)) continue;
    edits.push({ start: m.index, end: m.end, text: `${m.text}\n` });
    const close = closingLine(markdown, m.end, m.name);
    for (const at of blockLinesWithin(markdown, m.end + 1, close ?? markdown.length)) breaks.add(at);
    if (
      close !== undefined &&
      markdown.slice(markdown.lastIndexOf('\n', close - 2) + 1, close - 1).trim() !== ''
    )
      breaks.add(close);
  }
  for (const at of breaks) if (!code.overlaps(at, at + 1)) edits.push({ start: at, end: at, text: '\n' });
  return applyEdits(markdown, edits);
}

/**
 * Where, between `from` and `to` (line starts), a blank line must come so that a line that is a
 * whole element, an HTML block of its own, does not take the Markdown line after it in. Not in
 * a fenced code block.
 */
function blockLinesWithin(markdown: string, from: number, to: number): number[] {
  const found: number[] = [];
  let fence: string | undefined;
  let previous: string | undefined;
  for (let start = from; start < to;) {
    const next = markdown.indexOf('\n', start);
    const end = next === -1 || next > to ? to : next;
    const line = markdown.slice(start, end);
    const marker = /^[ \t]{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    } else if (marker) fence = marker;
    else if (
      previous !== undefined &&
      line.trim() !== '' &&
      !/^[ \t]*</.test(line) &&
      WHOLE_ELEMENT.test(previous) &&
      isHtmlBlock(previous)
    )
      found.push(start);
    previous = fence === undefined && !marker ? line : undefined;
    if (next === -1) break;
    start = next + 1;
  }
  return found;
}

/** Whether CommonMark reads the line, on its own, as an HTML block. */
function isHtmlBlock(line: string): boolean {
  return parser.parse(line).children[0]?.type === 'html';
}

/** The offset of the line that closes the element `name` opened before `from`, if there is one. */
function closingLine(markdown: string, from: number, name: string): number | undefined {
  const opens = new RegExp(`<${name}\\b`, 'gi');
  const closes = new RegExp(`</${name}[ \\t]*>`, 'gi');
  const closing = new RegExp(`^[ \\t]*</${name}[ \\t]*>`, 'i');
  let depth = 0;
  for (let start = markdown.indexOf('\n', from) + 1; start > 0 && start < markdown.length;) {
    const next = markdown.indexOf('\n', start);
    const line = markdown.slice(start, next === -1 ? undefined : next);
    if (depth === 0 && closing.test(line)) return start;
    depth += (line.match(opens)?.length ?? 0) - (line.match(closes)?.length ?? 0);
    start = next + 1;
  }
  return undefined;
}
