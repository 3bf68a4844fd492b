import type { Element, ElementContent } from 'hast';
import type { Paragraph, Root } from 'mdast';
import { toHast } from 'mdast-util-to-hast';
import remarkParse from 'remark-parse';
import { unified, type Processor } from 'unified';
import { visit } from 'unist-util-visit';
import { applyEdits, type TextEdit } from '../text-edits.js';
import { htmlBlockOf } from './markdown-html.js';

/**
 * kramdown's tables (Jekyll's default Markdown), which GFM reads otherwise or not at all:
 *
 * - rows with no header separator are all body rows (the usual key/value table); GFM, which needs
 *   a header, shows them as a paragraph of pipes;
 * - a separator line (`|---|`) after the header's starts another body (`<tbody>`); GFM shows it
 *   as a row of dashes;
 * - a line of `=` (`|===|`) starts the footer (`<tfoot>`); GFM shows it as a row of `=`;
 * - several header rows above the separator, and a `+` where columns cross (`|---+---|`).
 *
 * A table GFM shows as kramdown did once its body separators go is written so (GFM's delimiter
 * line where kramdown's had a `+`); any other is written as the HTML table kramdown made, its
 * cells' Markdown as HTML (`cellText` converts a cell's text first). A table is a paragraph after
 * a blank line whose lines all start with `|` (kramdown takes any line with a pipe, but so would a
 * sentence), at the top level or in a block quote or list item.
 */
export function kramdownTables(
  markdown: string,
  cellText: (text: string) => string = (text) => text,
): { text: string; tables: number } {
  const edits: TextEdit[] = [];
  const tree = commonmark.parse(markdown);
  for (const node of tree.children) {
    if (node.type !== 'paragraph') continue;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) continue;
    const lineStart = markdown.lastIndexOf('\n', start - 1) + 1;
    const before = markdown.slice(0, lineStart);
    if (before !== '' && !/\n[ \t]*\n$|^[ \t]*\n$/.test(before)) continue;
    const lines = markdown.slice(lineStart, end).split('\n');
    const text = tableText(lines, cellText);
    if (text !== undefined && text !== lines.join('\n')) edits.push({ start: lineStart, end, text });
  }
  // A table in a block quote or a list item (kramdown reads their content as blocks): its lines
  // without the container's prefix (`> `, the item's indent), written back with it.
  visit(tree, 'paragraph', (node, index, parent) => {
    if (!parent || index === undefined || (parent.type !== 'blockquote' && parent.type !== 'listItem'))
      return;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return;
    // The first block of its container, or after a blank line in it.
    const previous = index > 0 ? parent.children[index - 1] : undefined;
    const startLine = node.position!.start.line;
    if (previous && (previous.position?.end.line ?? startLine) >= startLine - 1) return;
    const lineStart = markdown.lastIndexOf('\n', start - 1) + 1;
    // A list item's marker is the width of spaces on the lines after it.
    const first = markdown.slice(lineStart, start);
    const prefix = first.replace(/(?:[-*+]|\d{1,9}[.)])(?=[ \t])/g, (marker) => ' '.repeat(marker.length));
    const raw = markdown.slice(start, end).split('\n');
    const lines = [raw[0]!];
    for (const line of raw.slice(1)) {
      // A lazy line (no `>`): not a table kramdown would make here.
      if (!line.startsWith(prefix)) return;
      lines.push(line.slice(prefix.length));
    }
    const text = tableText(lines, cellText);
    if (text === undefined || text === lines.join('\n')) return;
    edits.push({ start, end, text: text.replaceAll('\n', `\n${prefix}`) });
  });
  edits.sort((a, b) => a.start - b.start);
  return { text: applyEdits(markdown, edits), tables: edits.length };
}

/** The lines of a paragraph as GFM or HTML, when they are a kramdown table. */
function tableText(lines: string[], cellText: (text: string) => string): string | undefined {
  if (!lines.every((line) => /^ {0,3}\|/.test(line) || SEPARATOR.test(line) || FOOTER.test(line)))
    return undefined;
  const table = readTable(lines);
  if (!table) return undefined;
  return asGfm(table, lines) ?? htmlBlockOf(tableHtml(table, cellText));
}

/** CommonMark without GFM: every table, kramdown's or GFM's, is a paragraph to it. */
const commonmark = unified().use(remarkParse).freeze() as unknown as Processor<Root>;

/** kramdown's separator and footer lines. */
const SEPARATOR = /^[+|: \t-]*?-[+|: \t-]*?[ \t]*$/;
const FOOTER = /^[+|: \t=]*?=[+|: \t=]*?[ \t]*$/;

type Align = 'left' | 'right' | 'center' | undefined;

interface Table {
  head: string[][];
  bodies: string[][][];
  foot: string[][];
  align: Align[];
  columns: number;
  /** The header's separator line, and the lines of body separators, by index in the lines. */
  headerLine?: number;
  bodyLines: number[];
}

/** The table as kramdown reads it, or undefined where kramdown makes none (no body). */
function readTable(lines: string[]): Table | undefined {
  const table: Table = { head: [], bodies: [], foot: [], align: [], columns: 0, bodyLines: [] };
  let rows: string[][] = [];
  let footer = false;
  let aligned = false;
  lines.forEach((line, index) => {
    if (SEPARATOR.test(line)) {
      if (rows.length === 0) return;
      if (!aligned && !footer) {
        table.head = rows;
        table.headerLine = index;
        aligned = true;
        table.align = [...line.matchAll(/[ \t]?(:?)-+(:?)[ \t]?/g)].map(([, left, right]) =>
          left && right ? 'center' : right ? 'right' : left ? 'left' : undefined,
        );
      } else if (!footer) {
        table.bodies.push(rows);
        table.bodyLines.push(index);
      } else return;
      rows = [];
    } else if (FOOTER.test(line)) {
      if (rows.length > 0) table.bodies.push(rows);
      rows = [];
      footer = true;
    } else rows.push(cellsOf(line));
  });
  if (rows.length > 0) {
    if (footer) table.foot = rows;
    else table.bodies.push(rows);
  }
  if (table.bodies.length === 0) return undefined;
  table.columns = Math.max(
    ...[...table.head, ...table.bodies.flat(), ...table.foot].map((row) => row.length),
  );
  return table;
}

/** A row's cells: split at each pipe not escaped nor in a code span, less the empty ends. */
function cellsOf(line: string): string[] {
  const cells: string[] = [''];
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (char === '\\' && line[i + 1] === '|') {
      cells[cells.length - 1] += '\\|';
      i++;
    } else if (char === '`') {
      const run = /`+/y;
      run.lastIndex = i;
      const ticks = run.exec(line)![0];
      const close = line.indexOf(ticks, i + ticks.length);
      const end = close === -1 ? i + ticks.length : close + ticks.length;
      cells[cells.length - 1] += line.slice(i, end);
      i = end - 1;
    } else if (char === '|') cells.push('');
    else cells[cells.length - 1] += char;
  }
  if (/^ {0,3}\|/.test(line) && cells[0]!.trim() === '') cells.shift();
  if (cells.length > 0 && cells[cells.length - 1]!.trim() === '') cells.pop();
  return cells.map((cell) => cell.trim());
}

/**
 * The lines as a GFM table, when GFM shows what kramdown did: one header row, as many columns in
 * it as in any row, and no footer. Body separators go (the bodies look as one).
 */
function asGfm(table: Table, lines: string[]): string | undefined {
  if (table.head.length !== 1 || table.foot.length > 0 || table.headerLine === undefined) return undefined;
  if (table.head[0]!.length !== table.columns) return undefined;
  const header = lines[table.headerLine]!;
  const valid = !header.includes('+') && cellsOf(header).length === table.columns;
  const delimiter = valid
    ? header
    : `| ${Array.from({ length: table.columns }, (_, i) => {
        const align = table.align[i];
        return align === 'center' ? ':-:' : align === 'right' ? '--:' : align === 'left' ? ':--' : '---';
      }).join(' | ')} |`;
  // Only the lines above the header's separator can be before it: the separator is the first.
  const first = lines.findIndex((line) => !SEPARATOR.test(line));
  return lines
    .flatMap((line, i) => {
      if (i < first || table.bodyLines.includes(i)) return [];
      return i === table.headerLine ? [delimiter] : [line];
    })
    .join('\n');
}

/** The HTML table kramdown made: `<th>` in the head, alignment as its style, each row as wide as the widest. */
function tableHtml(table: Table, cellText: (text: string) => string): Element {
  const row = (cells: string[], tag: 'th' | 'td'): Element => ({
    type: 'element',
    tagName: 'tr',
    properties: {},
    children: Array.from({ length: table.columns }, (_, i) => {
      const align = table.align[i];
      return {
        type: 'element',
        tagName: tag,
        properties: align ? { style: `text-align: ${align}` } : {},
        children: inlineHtml(cellText(cells[i] ?? '')),
      } satisfies Element;
    }),
  });
  const group = (tagName: string, rows: string[][], tag: 'th' | 'td'): Element => ({
    type: 'element',
    tagName,
    properties: {},
    children: rows.map((cells) => row(cells, tag)),
  });
  const children: Element[] = [];
  if (table.head.length > 0) children.push(group('thead', table.head, 'th'));
  for (const body of table.bodies) children.push(group('tbody', body, 'td'));
  if (table.foot.length > 0) children.push(group('tfoot', table.foot, 'td'));
  return { type: 'element', tagName: 'table', properties: {}, children };
}

const inlineMarkdown = unified().use(remarkParse).freeze() as unknown as Processor<Root>;

/** A cell's Markdown as HTML (kramdown reads spans in a cell). */
function inlineHtml(text: string): ElementContent[] {
  if (text === '') return [];
  const paragraph = inlineMarkdown.parse(text).children.find((c): c is Paragraph => c.type === 'paragraph');
  if (!paragraph) return [{ type: 'text', value: text }];
  const hast = toHast(paragraph, { allowDangerousHtml: true }) as Element;
  return hast.children;
}
