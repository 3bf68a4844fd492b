import type { Root } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { mathSyntaxPlugins, type MathSyntax } from '../render/math-syntax.js';
import { applyEdits, type TextEdit } from '../text-edits.js';

/**
 * How the old site's Markdown renderer read math, leaving its TeX untouched for MathJax or KaTeX:
 * - kramdown (Jekyll's default): `$$…$$`, display when it is its paragraph alone, else inline;
 * - Hugo's Goldmark with `markup.goldmark.extensions.passthrough`: the configured pairs, each
 *   display (`block`) or inline.
 */
export interface OldSiteMath {
  kramdown?: boolean;
  block?: ReadonlyArray<readonly [open: string, close: string]>;
  inline?: ReadonlyArray<readonly [open: string, close: string]>;
}

export interface MathResult {
  text: string;
  /** Formulas written in remark-math's syntax. */
  formulas: number;
  /** A `$` of the text that `$…$` math would read (a price): the old site showed it as a dollar. */
  loneDollars: boolean;
}

/** Whether the old site read `$…$` as math: then so may the new one. */
export function readsSingleDollar(math: OldSiteMath): boolean {
  return math.inline?.some(([open, close]) => open === '$' && close === '$') === true;
}

/** What the importer writes math as, and what it tells the user to set (see mathAdvice). */
export function writtenSyntax(math: OldSiteMath): MathSyntax {
  return { singleDollar: readsSingleDollar(math) };
}

const parsers = new Map<string, { parse(text: string): Root }>();
function parser(math: MathSyntax | false): { parse(text: string): Root } {
  const key = math ? String(math.singleDollar) : 'none';
  let found = parsers.get(key);
  if (!found)
    parsers.set(
      key,
      (found = unified().use(remarkParse).use(remarkGfm).use(mathSyntaxPlugins(math)).freeze() as never),
    );
  return found;
}

const CODE = new Set(['code', 'inlineCode', 'html', 'math', 'inlineMath']);

/**
 * The document's math in remark-math's syntax (`$$` lines around display math, `$…$` or `$$…$$`
 * inline), its TeX as typed. Code and HTML are left alone, and so is any `$` the old site did not
 * read as math. Needs loadMath() first.
 */
export function convertMath(markdown: string, math: OldSiteMath): MathResult {
  const syntax = writtenSyntax(math);
  const blocks = displayBlocks(markdown, math);
  let text = applyEdits(markdown, blocks.edits);
  const inline = inlineMath(text, math, syntax);
  text = applyEdits(text, inline.edits);
  let loneDollars = false;
  if (!syntax.singleDollar && text.includes('$')) {
    // Math is written with `$$` here: any single-dollar math that remark-math would read is a price.
    visit(parser({ singleDollar: true }).parse(text), 'inlineMath', (node) => {
      const at = node.position?.start.offset;
      if (at !== undefined && text[at] === '$' && text[at + 1] !== '$') loneDollars = true;
    });
  }
  return { text, formulas: blocks.count + inline.count, loneDollars };
}

/** Offsets of code blocks (and HTML): a line in one is never math. */
function codeRanges(tree: Root): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  visit(tree, (node) => {
    if (CODE.has(node.type) && node.position?.start.offset !== undefined)
      ranges.push([node.position.start.offset, node.position.end.offset ?? node.position.start.offset]);
  });
  return ranges;
}

const LINE = /^((?:[ \t]*>)*[ \t]*)(.*)$/;

/**
 * Display math on lines of its own: an opening delimiter starts a line, the closing one ends a
 * later (or the same) line, no blank line between. For kramdown it must also be its paragraph
 * alone (a blank line before and after); within a paragraph, kramdown's `$$` is inline.
 */
function displayBlocks(markdown: string, math: OldSiteMath): { edits: TextEdit[]; count: number } {
  const pairs: Array<readonly [string, string]> = [...(math.block ?? [])];
  if (math.kramdown) pairs.push(['$$', '$$']);
  const edits: TextEdit[] = [];
  if (pairs.length === 0 || !pairs.some(([open]) => markdown.includes(open))) return { edits, count: 0 };
  const code = codeRanges(parser(false).parse(markdown));
  const lines: Array<{ start: number; prefix: string; rest: string }> = [];
  let offset = 0;
  for (const line of markdown.split('\n')) {
    const [, prefix = '', rest = ''] = LINE.exec(line) ?? [];
    lines.push({ start: offset, prefix, rest });
    offset += line.length + 1;
  }
  const blank = (i: number) => i < 0 || i >= lines.length || lines[i]!.rest.trim() === '';
  let count = 0;
  // Where the search for each closing delimiter last ran out (a blank line, or the end) without
  // finding it: an opening line before that finds none either, so it is not searched again, which
  // keeps a long run of unclosed openers linear.
  const closeless = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    const { start, prefix, rest } = lines[i]!;
    const pair = pairs.find(([open]) => rest.startsWith(open));
    if (!pair || inRanges(code, start + prefix.length)) continue;
    const [open, close] = pair;
    if ((closeless.get(close) ?? -1) > i) continue;
    let end = -1;
    let j = i;
    for (; j < lines.length; j++) {
      if (j > i && blank(j)) break;
      const body = (j === i ? lines[j]!.rest.slice(open.length) : lines[j]!.rest).trimEnd();
      if (body.endsWith(close) && (j > i || body.length >= close.length)) {
        end = j;
        break;
      }
    }
    if (end === -1) {
      closeless.set(close, j);
      continue;
    }
    if (
      open === '$$' &&
      math.kramdown &&
      !math.block?.some(([o]) => o === '$$') &&
      !(blank(i - 1) && blank(end + 1))
    ) {
      // Every opener up to `end` is in the same paragraph and closes there too: none is alone.
      i = end;
      continue;
    }
    // Its TeX, line by line as typed (each later line keeps its own prefix), without the delimiters.
    const tex: string[] = [];
    for (let j = i; j <= end; j++) {
      const line = lines[j]!;
      let body = j === i ? line.rest.slice(open.length) : line.rest;
      if (j === end) body = body.trimEnd().slice(0, -close.length);
      if (body.trim() === '') continue;
      tex.push(j === i ? prefix + body.trimStart() : line.prefix + body);
    }
    const last = lines[end]!;
    const stop = last.start + last.prefix.length + last.rest.length;
    edits.push({ start, end: stop, text: [`${prefix}$$`, ...tex, `${prefix}$$`].join('\n') });
    count++;
    i = end;
  }
  return { edits, count };
}

/** Inline math in paragraphs, headings and table cells, outside code and the display math above. */
function inlineMath(
  markdown: string,
  math: OldSiteMath,
  syntax: MathSyntax,
): { edits: TextEdit[]; count: number } {
  const edits: TextEdit[] = [];
  const pairs = (math.inline ?? []).filter(([open]) => open !== '$');
  // Hugo's block delimiters inside a paragraph: their TeX is kept, inline.
  for (const pair of math.block ?? []) if (pair[0] !== '$$') pairs.push(pair);
  // What remark-math reads already (kramdown's `$$…$$`, Hugo's `$…$`) is only counted.
  let count = 0;
  const tree = parser(syntax).parse(markdown);
  if (math.kramdown || readsSingleDollar(math) || math.block?.some(([o]) => o === '$$'))
    visit(tree, 'inlineMath', () => void count++);
  if (pairs.length === 0 || !pairs.some(([open]) => markdown.includes(open))) return { edits, count };
  const skipped = codeRanges(tree);
  const find = finder(markdown);
  visit(tree, (node) => {
    if (node.type !== 'paragraph' && node.type !== 'heading' && node.type !== 'tableCell') return;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return 'skip';
    let at = start;
    while (at < end) {
      const found = nextOpener(find, at, end, pairs);
      if (!found) break;
      const [index, [open, close]] = found;
      const closeAt = find(close, index + open.length);
      const hidden = (offset: number) => inRanges(skipped, offset);
      if (closeAt === -1 || closeAt + close.length > end || hidden(index) || hidden(closeAt)) {
        at = index + open.length;
        continue;
      }
      const tex = markdown.slice(index + open.length, closeAt);
      const fence = '$'.repeat(Math.max(syntax.singleDollar ? 1 : 2, longestRun(tex, '$') + 1));
      edits.push({ start: index, end: closeAt + close.length, text: `${fence}${tex}${fence}` });
      count++;
      at = closeAt + close.length;
    }
    return 'skip';
  });
  return { edits, count };
}

function nextOpener(
  find: Finder,
  from: number,
  to: number,
  pairs: ReadonlyArray<readonly [string, string]>,
): [number, readonly [string, string]] | undefined {
  let best: [number, readonly [string, string]] | undefined;
  for (const pair of pairs) {
    const index = find(pair[0], from);
    if (index !== -1 && index < to && (!best || index < best[0])) best = [index, pair];
  }
  return best;
}

/** Where `needle` next occurs in the text from `from` on, or -1. */
type Finder = (needle: string, from: number) => number;

/**
 * indexOf that remembers, for each needle, the last answer: a text has no occurrence between the
 * offset asked from and the one found, so a later question from inside that stretch is answered
 * without scanning it again. Questions come in document order, so the whole text is scanned about
 * once per needle, however many paragraphs ask.
 */
function finder(text: string): Finder {
  const last = new Map<string, { from: number; at: number }>();
  return (needle, from) => {
    const known = last.get(needle);
    if (known && from >= known.from && (known.at === -1 || from <= known.at)) return known.at;
    const at = text.indexOf(needle, from);
    last.set(needle, { from, at });
    return at;
  };
}

/** Whether `offset` is inside one of `ranges` (leaves of the tree: in order, none inside another). */
function inRanges(ranges: ReadonlyArray<readonly [number, number]>, offset: number): boolean {
  let low = 0;
  let high = ranges.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (ranges[middle]![0] <= offset) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found !== -1 && offset < ranges[found]![1];
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}
