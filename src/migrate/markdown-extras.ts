import type { Element, Root as HastRoot } from 'hast';
import type { Paragraph, Parents, Root, Text } from 'mdast';
import { defListFromMarkdown, defListHastHandlers } from 'mdast-util-definition-list';
import { toHast } from 'mdast-util-to-hast';
import { nameToEmoji } from 'gemoji';
import { defList } from 'micromark-extension-definition-list';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified, type Processor } from 'unified';
import { visit } from 'unist-util-visit';
import { mathSyntaxPlugins, type MathSyntax } from '../render/math-syntax.js';
import { applyEdits, type TextEdit } from '../text-edits.js';
import { convertContainers, type ContainerRules } from './containers.js';
import { kramdownTables } from './kramdown-tables.js';
import { htmlBlockOf } from './markdown-html.js';

/**
 * Markdown a static site's renderer understood and cms-sync's (CommonMark and GFM) does not:
 * published as typed, a reader would see `:smile:`, a term followed by `: its definition`, and a
 * line `*[HTML]: HyperText Markup Language`. Which of them a site had:
 * - definition lists: Hugo (Goldmark, on unless turned off), kramdown (Jekyll's default),
 *   markdown-it with markdown-it-deflist (Eleventy);
 * - emoji shortcodes: Hugo with `enableEmoji`, Jekyll with jemoji, markdown-it-emoji. All use
 *   GitHub's names, which the gemoji package lists;
 * - abbreviations: kramdown, markdown-it-abbr.
 */
export interface MarkdownExtras {
  definitionLists?: boolean;
  emoji?: boolean;
  abbreviations?: boolean;
  /** WordPress's smilies (`:)`, `;-)`, `:mrgreen:`), on in every WordPress unless turned off. */
  smilies?: boolean;
  /** GitHub-style alerts (`> [!WARNING]`), which Hugo (0.132 on) gives its themes as boxes. */
  alerts?: boolean;
  /**
   * Typographic punctuation: `--` an en dash, `---` an em dash, `...` an ellipsis, `<<` `>>`
   * guillemets, straight quotes curly. Goldmark's typographer and kramdown's do it by default.
   * `'wordpress'`: WordPress's wptexturize instead (see `wordpressTypographic`).
   */
  typographer?: boolean | 'wordpress';
  /** kramdown's hard line break: two backslashes at the end of a line. */
  backslashBreaks?: boolean;
  /**
   * Every line break in a paragraph shown as one (`<br>`): Hugo's `hardWraps`, kramdown's
   * `hard_wrap`, markdown-it's `breaks`. CommonMark runs such lines together.
   */
  hardWraps?: boolean;
  /** kramdown's tables: without a header, with body separators or a footer (kramdown-tables.ts). */
  kramdownTables?: boolean;
  /** `H~2~O`, `m^2^`, `==marked==` (Goldmark's extras, markdown-it-sub, -sup, -mark). */
  subscript?: boolean;
  superscript?: boolean;
  mark?: boolean;
  /** markdown-it-container's `::: name` blocks (containers.ts). */
  containers?: ContainerRules;
}

export interface ExtrasResult {
  text: string;
  /** How many of each were converted, for the report. */
  definitionLists: number;
  emoji: number;
  abbreviations: number;
  smilies: number;
  alerts: number;
  typographer: number;
  lineBreaks: number;
  inlineMarks: number;
  tables: number;
  containers: number;
  /** Container names the site drew with a render of its own, written as a `<div>` (see containers.ts). */
  containersOwnRender: string[];
  /** Set when a document has more definition-list lines than are converted. */
  definitionListsLeft?: boolean;
}

const ABBREVIATION_LINE = /^\*\[([^\]\n]+)\]:[ \t]*(.*)$/gm;
const EMOJI = /:([a-z0-9_+-]+):/g;
const MAX_ABBREVIATIONS = 500;
export const MAX_DEFINITION_LINES = 1000;

const withDefinitionLists: Processor<Root> = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(function definitionLists(this: Processor) {
    const data = this.data();
    (data.micromarkExtensions ??= []).push(defList);
    (data.fromMarkdownExtensions ??= []).push(defListFromMarkdown);
  })
  .freeze() as unknown as Processor<Root>;
const plain: Processor<Root> = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .freeze() as unknown as Processor<Root>;
const mathParsers = new Map<boolean, Processor<Root>>();
/** The parser that knows math, whose TeX is then no text node (needs loadMath() first). */
function withMath(math: MathSyntax): Processor<Root> {
  let parser = mathParsers.get(math.singleDollar);
  if (!parser)
    mathParsers.set(
      math.singleDollar,
      (parser = unified()
        .use(remarkParse)
        .use(remarkGfm)
        .use(mathSyntaxPlugins(math))
        .freeze() as unknown as Processor<Root>),
    );
  return parser;
}

/**
 * Each extra the site had, in its equivalent: a definition list becomes an HTML `<dl>`, an emoji
 * shortcode the emoji, an abbreviation `<abbr title>` at each use (its definition line removed).
 * Code (fenced, indented, inline) and HTML are left as they are, and so is any text the site's
 * renderer would not have read (a shortcode not in the list, an abbreviation with no definition).
 */
export function convertExtras(
  given: string,
  extras: MarkdownExtras,
  /** The document's math is written in remark-math's syntax (see convertMath): its TeX is left as it is. */
  math: MathSyntax | false = false,
): ExtrasResult {
  // kramdown's tables first: their separator lines are no text for the passes below, and each
  // cell takes the extras of a text (but abbreviations, which the whole document defines).
  // Containers before anything: what they hold is Markdown of its own, for every pass below.
  const containers = extras.containers ? convertContainers(given, extras.containers) : undefined;
  const source = containers?.text ?? given;
  const cellExtras = {
    ...extras,
    kramdownTables: false,
    definitionLists: false,
    abbreviations: false,
    containers: undefined,
  };
  const tables =
    extras.kramdownTables === true && /^[ \t>]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?\|/m.test(source)
      ? kramdownTables(source, (cell) => convertExtras(cell, cellExtras, math).text)
      : undefined;
  const markdown = tables?.text ?? source;
  const result: ExtrasResult = {
    text: markdown,
    definitionLists: 0,
    emoji: 0,
    abbreviations: 0,
    smilies: 0,
    alerts: 0,
    typographer: 0,
    lineBreaks: 0,
    inlineMarks: 0,
    tables: tables?.tables ?? 0,
    containers: containers?.count ?? 0,
    containersOwnRender: containers?.ownRender ?? [],
  };
  const emoji = extras.emoji === true && /:[a-z0-9_+-]+:/.test(markdown);
  const abbreviations = extras.abbreviations === true && /^\*\[[^\]\n]+\]:/m.test(markdown);
  const smilies = extras.smilies === true && SMILEY_HINT.test(markdown);
  const alerts = extras.alerts === true && ALERT_HINT.test(markdown);
  const typographer =
    extras.typographer === 'wordpress'
      ? WP_TYPOGRAPHY_HINT.test(markdown) && ('wordpress' as const)
      : extras.typographer === true && TYPOGRAPHY_HINT.test(markdown);
  const breaks = extras.backslashBreaks === true && /\\\\\n/.test(markdown);
  const wraps = extras.hardWraps === true && /\n[ \t>]*[^\s>]/.test(markdown);
  const marks =
    (extras.subscript === true && markdown.includes('~')) ||
    (extras.superscript === true && markdown.includes('^')) ||
    (extras.mark === true && markdown.includes('=='));
  if (emoji || abbreviations || smilies || alerts || typographer || breaks || wraps || marks) {
    const tree = (math ? withMath(math) : plain).parse(markdown);
    const edits: TextEdit[] = [];
    if (marks) result.inlineMarks = inlineMarkEdits(markdown, tree, extras, edits);
    if (breaks) result.lineBreaks = breakEdits(markdown, tree, edits);
    if (wraps) result.lineBreaks += wrapEdits(markdown, tree, edits);
    if (alerts) result.alerts = alertEdits(markdown, tree, edits);
    const defined = abbreviations ? abbreviationsOf(markdown, tree, edits) : new Map<string, string>();
    const abbreviation = abbreviationPattern(defined);
    const removed = [...edits].sort((a, b) => a.start - b.start);
    const wanted = { emoji, smilies, typographer };
    const untexturized = new WeakMap<object, ReadonlySet<number>>();
    visit(tree, 'text', (node: Text, index, parent) => {
      const { start, end } = range(node);
      if (start === undefined || end === undefined) return;
      // An autolink's text is its URL (`<https://x.example/a--b>`, a bare `www.…`): as typed.
      const linkStart = parent?.type === 'link' ? range(parent).start : undefined;
      const autolink = linkStart !== undefined && (linkStart === start || markdown[linkStart] === '<');
      // wptexturize leaves the text of a `<kbd>` or `<tt>` as typed (its no_texturize_tags).
      const keyboard =
        typographer === 'wordpress' &&
        parent !== undefined &&
        index !== undefined &&
        untexturizedIn(parent, untexturized).has(index);
      const kinds = autolink || keyboard ? { ...wanted, typographer: false } : wanted;
      for (const found of textEdits(markdown, start, end, kinds, abbreviation, defined)) {
        const at = { start: start + found.start, end: start + found.end };
        // Not in what is rewritten already (an abbreviation's definition, an alert's marker).
        if (overlaps(removed, at)) continue;
        edits.push({ ...at, text: found.text });
        result[found.kind]++;
      }
    });
    result.text = applyEdits(markdown, edits);
  }
  // Then the lists, which hold what the first pass made (an emoji, an `<abbr>`) as it is.
  const text = result.text;
  const definitionLines = extras.definitionLists === true ? (text.match(/^[ \t>]*:[ \t]/gm)?.length ?? 0) : 0;
  // The parser's time grows with the square of a list's length: a list past the limit (no real
  // one is) is left as typed, and the report says so.
  if (definitionLines > MAX_DEFINITION_LINES) result.definitionListsLeft = true;
  else if (definitionLines > 0) {
    const edits: TextEdit[] = [];
    visit(withDefinitionLists.parse(text), 'defList', (node) => {
      // The list's own end can fall short when its items are apart (micromark-extension-
      // definition-list 2.0.1); its last item's end does not.
      const children = (node as unknown as Root).children;
      const { start } = range(node);
      const { end } = range(children.at(-1) ?? node);
      if (start === undefined || end === undefined) return 'skip';
      // Inside a block quote or a list item, each line of the block keeps the container's prefix.
      const lineStart = text.lastIndexOf('\n', start - 1) + 1;
      const prefix = text.slice(lineStart, start).replace(/[^>]/g, ' ');
      const html = definitionListHtml(node as unknown as Root).replaceAll('\n', `\n${prefix}`);
      // The node's end can take in the blank lines after it, which must stay to end the block.
      edits.push({ start, end: start + text.slice(start, end).trimEnd().length, text: html });
      result.definitionLists++;
      return 'skip';
    });
    result.text = applyEdits(text, edits);
  }
  return result;
}

const TEMPLATE_TEXT = /\{\{.*?\}\}|\{%.*?%\}/gs;
const TYPOGRAPHY_HINT = /--|\.\.\.|<<|>>|["']/;
const TYPOGRAPHY = /---|--|\.\.\.|<<|>>|["']/g;

/**
 * What Goldmark's typographer (and kramdown's) shows for `mark`, between the characters `before`
 * and `after` in the source: a quote opens after a space, an opening bracket or a dash (or at
 * the start), else closes; a `'` between letters is an apostrophe.
 */
function typographic(
  mark: string,
  before: string | undefined,
  after: string | undefined,
): string | undefined {
  const dashes: Record<string, string> = {
    '---': '\u2014',
    '--': '\u2013',
    '...': '\u2026',
    '<<': '\u00ab',
    '>>': '\u00bb',
  };
  if (dashes[mark]) return dashes[mark];
  const opens = before === undefined || /[\s([{\u2013\u2014-]/.test(before);
  if (mark === "'") {
    if (before !== undefined && /[\p{L}\p{N}]/u.test(before) && after !== undefined && /[\p{L}]/u.test(after))
      return '\u2019';
    return opens && after !== undefined && !/\s/.test(after) ? '\u2018' : '\u2019';
  }
  return opens && after !== undefined && !/\s/.test(after) ? '\u201c' : '\u201d';
}

const WP_TYPOGRAPHY_HINT = /--|\.\.\.|''|\(tm\)|\s-\s|["']|\dx\d/;
const WP_TYPOGRAPHY = /---|--|(?<=\s)-(?=\s)|\.\.\.|''|(?<= )\(tm\)|["']|(?<=\d)x(?=\d)/g;
/** Words WordPress writes with an apostrophe in front (`'tis`, `'em`), its "cockney" list. */
const COCKNEY = /^(?:tain't|twere|twas|tis|twill|til|bout|nuff|round|cause|em)(?![\p{L}\p{N}])/iu;
const WP_OPENS = /[\s([{\u2013\u2014\u201c\u2018-]/;
const WP_PUNCTUATION = /[\s.,:;!?"'(){}[\]-]/;
const WORD = /[\p{L}\p{N}_]/u;
/**
 * A shortcode kept as text (`\[contact-form-7 id="42"]`), which wptexturize leaves as typed. A
 * match ends at the next bracket: each character is read once or twice.
 */
const KEPT_SHORTCODE = /\\?\[\/?[A-Za-z][\w-]*(?:\s[^[\]\n]{0,2000})?\]/g;

/**
 * What WordPress's wptexturize shows for the text `from`-`to` of `markdown`, which differs from
 * Goldmark's: `---` and a `--` between spaces are em dashes, another `--` and a `-` between
 * spaces en dashes; `...` an ellipsis; `''` a closing quote; ` (tm)` ™; `3x4` 3×4 (not `0x1F`);
 * a `'` or `"` after a digit that closes no quote a prime (`9'` ′, `12"` ″); `'90s` and `'tis`
 * an apostrophe; no guillemets. Offsets are the text's; an escaped character stays as typed.
 */
function wordpressTypography(markdown: string, from: number, to: number, taken: Found[] = []): Found[] {
  const source = markdown.slice(from, to);
  const found: Found[] = [];
  // What is converted already (smilies), in order: passed once, as the matches are.
  const before = [...taken].sort((a, b) => a.start - b.start);
  let at = 0;
  const open = { "'": 0, '"': 0 };
  const shortcodes = source.includes('[')
    ? [...source.matchAll(KEPT_SHORTCODE)].map((m) => [m.index, m.index + m[0].length] as const)
    : [];
  let next = 0;
  for (const match of source.matchAll(WP_TYPOGRAPHY)) {
    const start = match.index;
    const end = start + match[0].length;
    while (next < shortcodes.length && shortcodes[next]![1] <= start) next++;
    if (next < shortcodes.length && shortcodes[next]![0] <= start) continue;
    while (at < before.length && before[at]!.end <= start) at++;
    if (markdown[from + start - 1] === '\\' || (at < before.length && before[at]!.start < end)) continue;
    const text = wordpressTypographic(match[0], markdown, from + start, from + end, open);
    if (text) found.push({ start, end, text, kind: 'typographer' });
  }
  return found;
}

function wordpressTypographic(
  mark: string,
  markdown: string,
  start: number,
  end: number,
  open: Record<"'" | '"', number>,
): string | undefined {
  const before = markdown[start - 1];
  const after = markdown[end];
  const spaced = (c: string | undefined) => c === undefined || /\s/.test(c);
  switch (mark) {
    case '---':
      return '\u2014';
    case '--':
      if (spaced(before) && spaced(after)) return '\u2014';
      // `xn--` begins an internationalized domain name.
      return markdown.slice(start - 2, start).toLowerCase() === 'xn' ? undefined : '\u2013';
    case '-':
      return '\u2013';
    case '...':
      return '\u2026';
    case "''":
      return '\u201d';
    case '(tm)':
      return '\u2122';
    case 'x':
      return multiplication(markdown, start, end) ? '\u00d7' : undefined;
  }
  const quote = mark as "'" | '"';
  const rest = markdown.slice(end, end + 8);
  if (before === undefined || WP_OPENS.test(before)) {
    if (quote === "'" && (/^\d\d(?![%\d]|[.,]\d)/.test(rest) || COCKNEY.test(rest))) return '\u2019';
    if (quote === '"' && spaced(after)) return '\u201d';
    open[quote]++;
    return quote === "'" ? '\u2018' : '\u201c';
  }
  if (quote === "'" && after !== undefined && !WP_PUNCTUATION.test(after)) return '\u2019';
  if (/\d/.test(before) && open[quote] === 0) return quote === "'" ? '\u2032' : '\u2033';
  if (open[quote] > 0) open[quote]--;
  return quote === "'" ? '\u2019' : '\u201d';
}

/**
 * Whether the `x` at `start` is between two numbers, as WordPress's `\b(\d…)x(\d…)\b` finds
 * them (`3x4`, `1.5x2`, not `0x1F`, `A4x5`, `3x4cm`). Each side is read at most 40 characters far.
 */
function multiplication(markdown: string, start: number, end: number): boolean {
  let left = start;
  while (left > start - 40 && left > 0 && /[\d.,]/.test(markdown[left - 1]!)) left--;
  const number = markdown.slice(left, start);
  let leftOk = false;
  for (let i = 0; i < number.length && !leftOk; i++) {
    const boundary = i === 0 ? !WORD.test(markdown[left - 1] ?? ' ') : /[.,]/.test(number[i - 1]!);
    leftOk = /\d/.test(number[i]!) && boundary && (number[i] !== '0' || i < number.length - 1);
  }
  if (!leftOk) return false;
  let right = end;
  while (right < end + 40 && right < markdown.length && /[\d.,]/.test(markdown[right]!)) right++;
  const next = markdown[right];
  return /[.,]/.test(markdown.slice(end + 1, right)) || next === undefined || !WORD.test(next);
}

/** `text` (a title) as WordPress's wptexturize showed it, and how many characters were changed. */
export function wordpressTexturize(text: string): { text: string; count: number } {
  const found = wordpressTypography(text, 0, text.length);
  const edits: TextEdit[] = found.map(({ start, end, text: to }) => ({ start, end, text: to }));
  return { text: found.length ? applyEdits(text, edits) : text, count: found.length };
}

/**
 * `H~2~O` (subscript: GFM reads a single tilde as strikethrough, so the `delete` node made of
 * one is the subscript), `m^2^` (superscript) and `==marked==` in text, as the inline HTML the
 * site's renderer gave them. Code is never read: only `delete` and `text` nodes are.
 */
function inlineMarkEdits(markdown: string, tree: Root, extras: MarkdownExtras, edits: TextEdit[]): number {
  let count = 0;
  visit(tree, (node) => {
    const { start, end } = range(
      node as { position?: { start: { offset?: number }; end: { offset?: number } } },
    );
    if (start === undefined || end === undefined) return;
    if (node.type === 'delete' && extras.subscript) {
      const source = markdown.slice(start, end);
      if (source.startsWith('~~') || !/^~[^~\s][^~]*~$/.test(source)) return;
      edits.push({ start, end, text: `<sub>${source.slice(1, -1)}</sub>` });
      count++;
      return 'skip';
    }
    if (node.type !== 'text') return;
    const source = markdown.slice(start, end);
    const patterns: Array<[boolean | undefined, RegExp, string]> = [
      [extras.superscript, /\^([^\s^]+)\^/g, 'sup'],
      [extras.mark, /==([^\s=](?:[^=]*[^\s=])?)==/g, 'mark'],
    ];
    for (const [on, pattern, tag] of patterns) {
      if (!on) continue;
      for (const match of source.matchAll(pattern)) {
        const from = start + match.index;
        edits.push({ start: from, end: from + match[0].length, text: `<${tag}>${match[1]}</${tag}>` });
        count++;
      }
    }
  });
  return count;
}

/**
 * kramdown's `\\` at the end of a line in a paragraph (a hard line break) as CommonMark's `\`:
 * CommonMark reads `\\` as an escaped backslash, and would run the lines together.
 */
function breakEdits(markdown: string, tree: Root, edits: TextEdit[]): number {
  let count = 0;
  visit(tree, 'paragraph', (paragraph: Paragraph) => {
    const { start, end } = range(paragraph);
    if (start === undefined || end === undefined) return 'skip';
    // A row break of inline math's TeX is no line break.
    const tex: Array<{ start?: number | undefined; end?: number | undefined }> = [];
    visit(paragraph, 'inlineMath', (node) => void tex.push(range(node)));
    for (const match of markdown.slice(start, end).matchAll(/(?<!\\)\\\\(?=\n)/g)) {
      const at = start + match.index;
      if (tex.some((t) => t.start !== undefined && t.end !== undefined && at >= t.start && at < t.end))
        continue;
      edits.push({ start: at, end: at + 2, text: '\\' });
      count++;
    }
    return 'skip';
  });
  return count;
}

/**
 * Each line break inside a paragraph as CommonMark's hard break (a `\` at the line's end), as
 * the site's renderer showed it when its hard wraps were on. Not inside code spans, HTML or math
 * (their line breaks are not the paragraph's), nor where the line already ends in a hard break.
 */
function wrapEdits(markdown: string, tree: Root, edits: TextEdit[]): number {
  let count = 0;
  // Where kramdown's `\\` was made a hard break already (breakEdits).
  const converted = new Set(edits.map((edit) => edit.end));
  visit(tree, 'paragraph', (paragraph: Paragraph) => {
    const { start, end } = range(paragraph);
    if (start === undefined || end === undefined) return 'skip';
    // Leaves, so in order and apart: walked along with the line breaks.
    const kept: Array<[number, number]> = [];
    visit(paragraph, (node) => {
      if (!['inlineCode', 'html', 'inlineMath', 'break'].includes(node.type)) return;
      const at = range(node);
      if (at.start !== undefined && at.end !== undefined) kept.push([at.start, at.end]);
    });
    let k = 0;
    for (let at = markdown.indexOf('\n', start); at !== -1 && at < end; at = markdown.indexOf('\n', at + 1)) {
      while (k < kept.length && kept[k]![1] <= at) k++;
      if (k < kept.length && kept[k]![0] <= at) continue;
      let backslashes = 0;
      while (markdown[at - 1 - backslashes] === '\\') backslashes++;
      // An odd run ends in a hard break already.
      if (backslashes % 2 === 1 || converted.has(at)) continue;
      edits.push({ start: at, end: at, text: '\\' });
      count++;
    }
    return 'skip';
  });
  return count;
}

const ALERT_HINT = /^[ \t>]*>[ \t]*\[![A-Za-z]+\]/m;
const ALERT = /^\[!([A-Za-z]+)\][+-]?[ \t]*([^\n]*)/;

/**
 * `> [!WARNING]` (or `[!NOTE] A title of its own`) opening a block quote: Hugo gives it to the
 * theme's blockquote hook as an alert, drawn as a box with the type or the title. Written as the
 * boxes of theme shortcodes are: the title, else the type, in bold, heading the quote. Counted.
 */
function alertEdits(markdown: string, tree: Root, edits: TextEdit[]): number {
  let count = 0;
  visit(tree, 'blockquote', (quote) => {
    const first = quote.children[0];
    const text = first?.type === 'paragraph' ? first.children[0] : undefined;
    const start = text?.type === 'text' ? text.position?.start.offset : undefined;
    if (start === undefined) return;
    const found = ALERT.exec(markdown.slice(start));
    if (!found) return;
    const kind = found[1]!.toLowerCase();
    const title = found[2]!.trim() || kind.charAt(0).toUpperCase() + kind.slice(1);
    edits.push({ start, end: start + found[0].length, text: `**${title.replace(/\*/g, '\\*')}**` });
    count++;
  });
  return count;
}

/** Whether `at` overlaps one of `ranges`, which are in order and apart. */
function overlaps(ranges: readonly TextEdit[], at: { start: number; end: number }): boolean {
  let low = 0;
  let high = ranges.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (ranges[mid]!.end <= at.start) low = mid + 1;
    else high = mid;
  }
  return low < ranges.length && ranges[low]!.start < at.end;
}

function range(node: { position?: { start: { offset?: number }; end: { offset?: number } } }) {
  return { start: node.position?.start.offset, end: node.position?.end.offset };
}

/**
 * kramdown's `*[HTML]: HyperText Markup Language` lines, in paragraphs only (never in code),
 * each removed with its line break; the last definition of a name wins, as in kramdown.
 */
function abbreviationsOf(markdown: string, tree: Root, edits: TextEdit[]): Map<string, string> {
  const defined = new Map<string, string>();
  visit(tree, 'paragraph', (node: Paragraph) => {
    const { start, end } = range(node);
    if (start === undefined || end === undefined) return;
    const source = markdown.slice(start, end);
    for (const line of source.matchAll(ABBREVIATION_LINE)) {
      defined.set(line[1]!.trim(), line[2]!.trim());
      const from = start + line.index;
      const to = markdown[from + line[0].length] === '\n' ? from + line[0].length + 1 : from + line[0].length;
      edits.push({ start: from, end: to, text: '' });
    }
    return 'skip';
  });
  return defined;
}

/**
 * One pattern for every name, longest first. A document that defines more than MAX_ABBREVIATIONS
 * (no real one does) has its definitions removed and none applied: matching that many names at
 * each position of its text would take time that grows with both.
 */
function abbreviationPattern(defined: Map<string, string>): RegExp | undefined {
  if (defined.size === 0 || defined.size > MAX_ABBREVIATIONS) return undefined;
  const names = [...defined.keys()]
    .sort((a, b) => b.length - a.length)
    .map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // A whole word: not inside another (kramdown matches so too).
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${names.join('|')})(?![\\p{L}\\p{N}_])`, 'gu');
}

interface Found {
  start: number;
  end: number;
  text: string;
  kind: 'emoji' | 'abbreviations' | 'smilies' | 'typographer';
}

/**
 * Emoji, smilies, typography and abbreviations in the source of one text node (`from` to `to`
 * in `markdown`), in order, none overlapping; offsets are the node's.
 */
function textEdits(
  markdown: string,
  from: number,
  to: number,
  wanted: { emoji: boolean; smilies: boolean; typographer: boolean | 'wordpress' },
  abbreviation: RegExp | undefined,
  defined: Map<string, string>,
): Found[] {
  const source = markdown.slice(from, to);
  const found: Found[] = [];
  const clashes = (start: number, end: number) => found.some((f) => f.start < end && start < f.end);
  if (wanted.emoji)
    for (const match of source.matchAll(EMOJI)) {
      const char = nameToEmoji[match[1]!];
      if (char)
        found.push({ start: match.index, end: match.index + match[0].length, text: char, kind: 'emoji' });
    }
  if (wanted.smilies)
    for (const match of source.matchAll(SMILEY)) {
      const end = match.index + match[0].length;
      if (!clashes(match.index, end))
        found.push({ start: match.index, end, text: SMILIES[match[0]]!, kind: 'smilies' });
    }
  if (wanted.typographer === 'wordpress') found.push(...wordpressTypography(markdown, from, to, found));
  else if (wanted.typographer) {
    // Template syntax left as text (a shortcode for the user to map) keeps its straight quotes.
    const templates = [...source.matchAll(TEMPLATE_TEXT)].map((m) => [m.index, m.index + m[0].length]);
    for (const match of source.matchAll(TYPOGRAPHY)) {
      const start = match.index;
      const end = start + match[0].length;
      if (templates.some(([a, b]) => start >= a! && start < b!)) continue;
      // An escaped character (`\"`, `\-`) stays as typed, as the typographers leave it.
      if (markdown[from + start - 1] === '\\' || clashes(start, end)) continue;
      const text = typographic(match[0], markdown[from + start - 1], markdown[from + end]);
      if (text) found.push({ start, end, text, kind: 'typographer' });
    }
  }
  if (abbreviation)
    for (const match of source.matchAll(abbreviation)) {
      const start = match.index;
      const end = start + match[0].length;
      if (clashes(start, end)) continue;
      const title = defined.get(match[0]) ?? '';
      found.push({
        start,
        end,
        text: title
          ? `<abbr title="${escapeAttribute(title)}">${match[0]}</abbr>`
          : `<abbr>${match[0]}</abbr>`,
        kind: 'abbreviations',
      });
    }
  return found.sort((a, b) => a.start - b.start);
}

/** Inline HTML whose text wptexturize leaves as typed (`pre`, `code`, `script` and `style` are code here). */
const NO_TEXTURIZE = /^<(\/?)(kbd|tt)(?=[\s>])[^>]*>$/i;

/**
 * The positions, among `parent`'s children, of those inside an inline `<kbd>…</kbd>` or
 * `<tt>…</tt>` (an `html` node opens it, another closes it), found once per parent.
 */
function untexturizedIn(parent: Parents, cache: WeakMap<object, ReadonlySet<number>>): ReadonlySet<number> {
  let inside = cache.get(parent);
  if (inside) return inside;
  const found = new Set<number>();
  let depth = 0;
  parent.children.forEach((child, i) => {
    const tag = child.type === 'html' ? NO_TEXTURIZE.exec(child.value.trim()) : null;
    if (tag) depth = Math.max(0, depth + (tag[1] ? -1 : 1));
    else if (depth > 0) found.add(i);
  });
  inside = found;
  cache.set(parent, inside);
  return inside;
}

/** A definition list as one HTML block (markdown-html.ts). */
function definitionListHtml(node: Root): string {
  return htmlBlockOf(
    toHast(node, { handlers: defListHastHandlers, allowDangerousHtml: true }) as HastRoot | Element,
  );
}

/**
 * WordPress's smilies and the emoji it shows for each (`smilies_init`, WordPress 4.2 and later;
 * `:mrgreen:` is an image of its own and stays text).
 */
const SMILIES: Record<string, string> = {
  ':neutral:': '😐',
  ':twisted:': '😈',
  ':arrow:': '➡',
  ':shock:': '😯',
  ':smile:': '🙂',
  ':???:': '😕',
  ':cool:': '😎',
  ':evil:': '👿',
  ':grin:': '😀',
  ':idea:': '💡',
  ':oops:': '😳',
  ':razz:': '😛',
  ':roll:': '🙄',
  ':wink:': '😉',
  ':cry:': '😥',
  ':eek:': '😮',
  ':lol:': '😆',
  ':mad:': '😡',
  ':sad:': '🙁',
  '8-)': '😎',
  '8-O': '😯',
  ':-(': '🙁',
  ':-)': '🙂',
  ':-?': '😕',
  ':-D': '😀',
  ':-P': '😛',
  ':-o': '😮',
  ':-x': '😡',
  ':-|': '😐',
  ';-)': '😉',
  '8O': '😯',
  ':(': '🙁',
  ':)': '🙂',
  ':?': '😕',
  ':D': '😀',
  ':P': '😛',
  ':o': '😮',
  ':x': '😡',
  ':|': '😐',
  ';)': '😉',
  ':!:': '❗',
  ':?:': '❓',
};

/**
 * A smiley as WordPress finds one: alone between spaces (a no-break space too) or the ends of
 * its text, so `:)` ends a sentence but `f(:x)` and `10:30` are not smilies. Longest first.
 */
const SMILEY_ALTERNATIVES = Object.keys(SMILIES)
  .sort((a, b) => b.length - a.length)
  .map((smiley) => smiley.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  .join('|');
const SMILEY = new RegExp(`(?<=^|[\\s\\u00a0])(?:${SMILEY_ALTERNATIVES})(?=$|[\\s\\u00a0])`, 'g');
/**
 * Whether a body may hold one, before it is parsed: next to no letter or digit (Markdown around
 * it, `**Hi**:)`, ends a text of its own). Most posts have none, and are not parsed for them.
 */
const SMILEY_HINT = new RegExp(`(?<![\\p{L}\\p{N}])(?:${SMILEY_ALTERNATIVES})(?![\\p{L}\\p{N}])`, 'u');

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
