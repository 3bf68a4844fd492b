import type matterType from 'gray-matter';
import type * as tomlType from 'smol-toml';
import type * as yamlType from 'yaml';
import { requireLater } from '../require-later.js';
import { DEFAULT_LIMITS, formatBytes, raiseHint, type ContentLimits } from './limits.js';

// gray-matter and yaml load on the first file that must be parsed: a run whose files are all
// unchanged since the last write parses none, and need not pay for loading them.
const matter = requireLater<typeof matterType>('gray-matter');
const yaml = requireLater<typeof yamlType>('yaml');
const toml = requireLater<typeof tomlType>('smol-toml');

type FrontMatterLimits = Pick<
  ContentLimits,
  'maxFrontMatterBytes' | 'maxFrontMatterKeys' | 'maxYamlAliases' | 'maxNestingDepth'
>;

export interface FrontMatter {
  data: Record<string, unknown>;
  /** 1-based file line of each top-level key. */
  lines: Record<string, number>;
  body: string;
  /** 1-based file line where the body starts. */
  bodyLine: number;
}

export interface FrontMatterError {
  line: number;
  column: number;
  message: string;
  /** A `slug:` value read line by line from the broken front matter, to protect its record. */
  slugHint?: string;
}

const refuseJavaScript = (): never => {
  throw new RefusedEngine();
};

class RefusedEngine extends Error {}

/** A front matter problem found by our YAML engine, already positioned in the string it was given. */
class PositionedError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
  }
}

/**
 * Options for every gray-matter call. Passing options at all matters: without them gray-matter
 * caches every input it ever parsed, which leaks in `watch`. The JavaScript engines are
 * replaced because gray-matter would otherwise `eval` a `---js` block from a content file; YAML
 * is read by `yaml` rather than gray-matter's js-yaml, which has no bound on alias expansion.
 */
function matterOptions(limits: FrontMatterLimits) {
  return {
    engines: {
      js: refuseJavaScript,
      javascript: refuseJavaScript,
      yaml: { parse: (text: string) => parseYaml(text, limits) },
    },
  };
}

/**
 * YAML by the 1.2 core schema with `<<` merge keys, as js-yaml read it but for one thing:
 * timestamps stay text. js-yaml (and yaml's timestamp tag) turn `2026-02-30` into March 2
 * without a word; as text, a date is checked by parseDate and an impossible one is an error at
 * its line. Bounds on alias expansion and on the number of top-level keys.
 * Positions are 1-based lines of `text`, which starts on the `---` line of the file.
 */
function parseYaml(text: string, limits: FrontMatterLimits): object {
  const deep = nestingOf(text, limits.maxNestingDepth);
  if (deep) {
    throw new PositionedError(
      `front matter is nested about ${deep.depth} deep here (lists and mappings inside one another), more than the ` +
        `limit of ${limits.maxNestingDepth}; ${raiseHint('maxNestingDepth')}`,
      deep.line,
      1,
    );
  }
  const doc = yaml().parseDocument(text, { schema: 'core', merge: true, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const at = first.linePos?.[0];
    const reason =
      first.code === 'DUPLICATE_KEY'
        ? 'duplicated mapping key'
        : first.message.replace(/ at line \d+, column \d+[\s\S]*$/, '');
    throw new PositionedError(`front matter is not valid YAML: ${reason}`, at?.line ?? 1, at?.col ?? 1);
  }
  const contents = doc.contents;
  if (yaml().isMap(contents) && contents.items.length > limits.maxFrontMatterKeys) {
    const extra = contents.items[limits.maxFrontMatterKeys]?.key;
    const offset = yaml().isNode(extra) && extra.range ? extra.range[0] : 0;
    throw new PositionedError(
      `front matter has ${contents.items.length} keys, more than the limit of ${limits.maxFrontMatterKeys}; ` +
        `${raiseHint('maxFrontMatterKeys')}`,
      lineAt(text, offset),
      1,
    );
  }
  try {
    // Not always an object (`--- 5`): parseFrontMatter checks what it gets.
    return doc.toJS({ maxAliasCount: limits.maxYamlAliases }) as object;
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    // Only the alias count makes toJS throw a ReferenceError: an alias bomb, or one alias too many.
    let offset = 0;
    yaml().visit(doc, {
      Alias(_key, node) {
        offset = node.range?.[0] ?? 0;
        return yaml().visit.BREAK;
      },
    });
    throw new PositionedError(
      `front matter expands its YAML aliases (*name) beyond the limit of ${limits.maxYamlAliases} uses; ` +
        `${raiseHint('maxYamlAliases')}`,
      lineAt(text, offset),
      1,
    );
  }
}

/**
 * The first line where YAML nests deeper than `max`, judged before parsing: the YAML parser
 * recurses per level, and a few thousand levels (`- - - - …`, `[[[[…`) exhaust its stack or,
 * worse, the process's memory. Counted loosely, erring towards too deep: flow brackets open at
 * the line (quotes are not understood), plus the line's leading `- ` / `? ` indicators, plus
 * one level per two columns of indentation.
 */
function nestingOf(text: string, max: number): { line: number; depth: number } | undefined {
  let flow = 0;
  let line = 0;
  for (const row of text.split('\n')) {
    line += 1;
    let i = 0;
    while (row[i] === ' ') i++;
    let depth = Math.floor(i / 2);
    for (;;) {
      while (row[i] === ' ' || row[i] === '\t') i++;
      if ((row[i] === '-' || row[i] === '?') && (row[i + 1] === ' ' || row[i + 1] === undefined)) {
        depth += 1;
        i += 1;
      } else break;
    }
    if (row.trimStart().startsWith('#')) continue;
    let deepest = flow;
    for (; i < row.length; i++) {
      const ch = row[i];
      if (ch === '[' || ch === '{') deepest = Math.max(deepest, ++flow);
      else if ((ch === ']' || ch === '}') && flow > 0) flow -= 1;
      else if (ch === '#' && (row[i - 1] === ' ' || row[i - 1] === '\t')) break;
    }
    if (depth + deepest > max) return { line, depth: depth + deepest };
  }
  return undefined;
}

/** Front matter of `length` (UTF-16 units, within a factor of 3 of bytes) over its limit. */
function tooLarge(length: number, limits: FrontMatterLimits): FrontMatterError {
  return {
    line: 1,
    column: 1,
    message:
      `front matter is ${formatBytes(length)}, over the limit of ` +
      `${formatBytes(limits.maxFrontMatterBytes)}; ${raiseHint('maxFrontMatterBytes')}`,
  };
}

/** Nesting past the limit in `source` (TOML or JSON), which starts on line `firstLine` of the file. */
function tooDeep(source: string, firstLine: number, limits: FrontMatterLimits): FrontMatterError | undefined {
  const deep = nestingOf(source, limits.maxNestingDepth);
  if (!deep) return undefined;
  return {
    line: deep.line + firstLine - 1,
    column: 1,
    message:
      `front matter is nested about ${deep.depth} deep here, more than the limit of ` +
      `${limits.maxNestingDepth}; ${raiseHint('maxNestingDepth')}`,
  };
}

function tooManyKeys(count: number, limits: FrontMatterLimits): FrontMatterError | undefined {
  if (count <= limits.maxFrontMatterKeys) return undefined;
  return {
    line: 1,
    column: 1,
    message:
      `front matter has ${count} keys, more than the limit of ${limits.maxFrontMatterKeys}; ` +
      `${raiseHint('maxFrontMatterKeys')}`,
  };
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

const SUPPORTED_LANGUAGES = new Set(['', 'yaml', 'yml', 'json']);

/** Splits LF-normalized, BOM-free text into front matter and body. */
export function parseFrontMatter(
  text: string,
  limits: FrontMatterLimits = DEFAULT_LIMITS,
): FrontMatter | FrontMatterError {
  // Front matter after blank lines is not front matter to a Markdown parser: it would render as a
  // rule and a heading. Say so instead of reporting the keys it holds as missing.
  const late = /^((?:[ \t]*\n)+)(---|\+\+\+)[ \t]*[a-z]*[ \t]*\n/i.exec(text);
  if (late) {
    const line = countLines(late[1]!) + 1;
    return {
      line,
      column: 1,
      message:
        `front matter must start on the first line, but ${late[2]} is on line ${line}: ` +
        'remove the blank line(s) before it',
    };
  }
  if (/^\+\+\+[ \t]*\n/.test(text)) return parseTomlFrontMatter(text, limits);
  if (/^\{\s*["}]/.test(text)) return parseJsonObjectFrontMatter(text, limits);
  // `---` followed by more dashes is a thematic break, not front matter (gray-matter agrees).
  if (!text.startsWith('---') || text[3] === '-') {
    return { data: {}, lines: {}, body: text, bodyLine: 1 };
  }
  const firstLineEnd = text.indexOf('\n');
  const language = (firstLineEnd === -1 ? text.slice(3) : text.slice(3, firstLineEnd)).trim().toLowerCase();
  if (language === 'js' || language === 'javascript') {
    return {
      line: 1,
      column: 4,
      message:
        'JavaScript front matter (---js) is refused: cms-sync never runs code from content files. Write the front ' +
        'matter in YAML (---) instead',
    };
  }
  if (!SUPPORTED_LANGUAGES.has(language)) {
    return {
      line: 1,
      column: 4,
      message: `front matter language "${language}" is not supported; use YAML (---) or JSON (---json)`,
    };
  }
  if (firstLineEnd === -1 || text.indexOf('\n---', firstLineEnd) === -1) {
    return {
      line: 1,
      column: 1,
      message:
        'front matter opened with --- on line 1 is never closed; add a line with --- after the last key',
    };
  }

  // gray-matter is handed only the front matter block: given the whole file it looks the full
  // text up in its cache (hashing a long string) and copies it, the main cost of scanning many
  // long documents. The body is what follows the closing `---` and its newline, as with it.
  let headEnd = text.indexOf('\n---', firstLineEnd) + 4;
  if (text[headEnd] === '\n') headEnd += 1;
  // Measured in UTF-16 units, which is within a factor of 3 of bytes and needs no encoding.
  if (headEnd > limits.maxFrontMatterBytes) return { ...tooLarge(headEnd, limits), ...slugHint(text) };
  let file: matterType.GrayMatterFile<string>;
  try {
    file = matter()(text.slice(0, headEnd), matterOptions(limits));
  } catch (error) {
    return { ...positionOf(error, text, language), ...slugHint(text) };
  }

  const data: unknown = file.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data) || data instanceof Date) {
    return {
      line: 2,
      column: 1,
      message: `front matter must be a mapping of keys to values (\`title: Hello\`), not ${describe(data)}`,
    };
  }
  // YAML is counted before it becomes an object (parseYaml); JSON only now.
  const many = tooManyKeys(Object.keys(data).length, limits);
  if (many) return many;
  // Whatever gray-matter left after the delimiter (text on the `---` line itself) starts the body.
  const body = file.content + text.slice(headEnd);
  const head = text.slice(0, text.length - body.length);
  return {
    data: data as Record<string, unknown>,
    lines: keyLines(head, Object.keys(data), language === 'json'),
    body,
    bodyLine: countLines(head) + 1,
  };
}

function positionOf(error: unknown, text: string, language: string): FrontMatterError {
  if (error instanceof RefusedEngine) {
    return {
      line: 1,
      column: 4,
      message: 'JavaScript front matter is refused: cms-sync never runs code from content files',
    };
  }
  if (error instanceof PositionedError)
    return { line: error.line, column: error.column, message: error.message };
  if (error instanceof RangeError) {
    return {
      line: 1,
      column: 1,
      message:
        'front matter is nested too deeply to be read (lists or mappings inside one another by the thousand); ' +
        'flatten it',
    };
  }
  const mark = (error as { mark?: { line?: unknown; column?: unknown } }).mark;
  const reason = (error as { reason?: unknown }).reason;
  if (mark && typeof mark.line === 'number' && typeof mark.column === 'number') {
    // js-yaml's mark is 0-based within the string gray-matter hands it, which starts with the
    // newline ending the opening `---` (file line 1): its line k is file line k + 1.
    return {
      line: mark.line + 1,
      column: mark.column + 1,
      message: `front matter is not valid YAML: ${typeof reason === 'string' ? reason : 'syntax error'}`,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  if (language === 'json') {
    const at = /position (\d+)/.exec(message);
    const start = text.indexOf('\n') + 1;
    const offset = at ? start + Number(at[1]) : start;
    const before = text.slice(0, offset).split('\n');
    return {
      line: before.length,
      column: (before[before.length - 1] ?? '').length + 1,
      message: `front matter is not valid JSON: ${message}`,
    };
  }
  return { line: 1, column: 1, message: `front matter could not be read: ${message}` };
}

/**
 * Hugo's JSON front matter: the file opens with a JSON object, and the body follows its closing
 * brace. Only an object whose first key (or end) follows the brace is taken for one, so that a
 * body opening with a shortcode or a Liquid tag (`{{<`, `{%`) stays a body.
 */
function parseJsonObjectFrontMatter(text: string, limits: FrontMatterLimits): FrontMatter | FrontMatterError {
  const end = jsonObjectEnd(text);
  if (end === undefined) {
    return {
      line: 1,
      column: 1,
      message:
        'front matter opened with { on line 1 is never closed; end the JSON object with } before the body',
    };
  }
  if (end > limits.maxFrontMatterBytes) return tooLarge(end, limits);
  const source = text.slice(0, end);
  const deep = tooDeep(source, 1, limits);
  if (deep) return deep;
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(source) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = /position (\d+)/.exec(message);
    const before = source.slice(0, at ? Number(at[1]) : 0).split('\n');
    return {
      line: before.length,
      column: (before[before.length - 1] ?? '').length + 1,
      message: `front matter is not valid JSON: ${message}`,
    };
  }
  const many = tooManyKeys(Object.keys(data).length, limits);
  if (many) return many;
  // What is left of the closing brace's line (blanks) goes with the front matter.
  const rest = /^[ \t]*(?:\n|$)/.exec(text.slice(end));
  const head = text.slice(0, end + (rest?.[0].length ?? 0));
  return {
    data,
    lines: keyLines(head, Object.keys(data), true),
    body: text.slice(head.length),
    bodyLine: countLines(head) + 1,
  };
}

/** The offset just past the brace that closes the JSON object `text` opens with, if it is closed. */
function jsonObjectEnd(text: string): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) depth++;
    else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

/**
 * Hugo's TOML front matter, between `+++` lines. Dates stay text (a local date has no zone of its
 * own), to be read by parseDate like YAML's; the same limits apply.
 */
function parseTomlFrontMatter(text: string, limits: FrontMatterLimits): FrontMatter | FrontMatterError {
  const close = /\n\+\+\+[ \t]*(?:\n|$)/.exec(text);
  if (!close) {
    return {
      line: 1,
      column: 1,
      message:
        'front matter opened with +++ on line 1 is never closed; add a line with +++ after the last key',
    };
  }
  const source = text.slice(text.indexOf('\n') + 1, close.index + 1);
  const head = text.slice(0, close.index + close[0].length);
  if (head.length > limits.maxFrontMatterBytes) return tooLarge(head.length, limits);
  // The TOML starts on line 2, after `+++`.
  const deep = tooDeep(source, 2, limits);
  if (deep) return deep;
  let data: Record<string, unknown>;
  try {
    data = datesAsText(toml().parse(source)) as Record<string, unknown>;
  } catch (error) {
    const at = error as { line?: number; column?: number; message?: string };
    const reason = String(at.message ?? error).split('\n')[0];
    return {
      line: (at.line ?? 1) + 1,
      column: at.column ?? 1,
      message: `front matter is not valid TOML: ${reason}`,
    };
  }
  const keys = Object.keys(data);
  const many = tooManyKeys(keys.length, limits);
  if (many) return many;
  const lines: Record<string, number> = {};
  const rows = head.split('\n');
  for (let i = 1; i < rows.length; i++) {
    const m = /^\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*=/.exec(rows[i]!);
    const key = m && (m[1] ?? m[2] ?? m[3]);
    if (key && key in data && !(key in lines)) lines[key] = i + 1;
    if (/^\s*\[/.test(rows[i]!)) break;
  }
  for (const key of keys) lines[key] ??= 1;
  const body = text.slice(head.length);
  return { data, lines, body, bodyLine: countLines(head) + 1 };
}

/** TOML's dates as the text they were written as (smol-toml's TomlDate prints them so). */
function datesAsText(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(datesAsText);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, datesAsText(v)]));
  }
  return value;
}

function slugHint(text: string): { slugHint?: string } {
  const close = text.indexOf('\n---', 3);
  const block = text.slice(0, close === -1 ? text.length : close);
  const m = /^slug[ \t]*:[ \t]*(["']?)([^\n"'#]*?)\1[ \t]*(?:#.*)?$/m.exec(block);
  const slug = m?.[2]?.trim();
  return slug ? { slugHint: slug } : {};
}

// A line-based reading of where each top-level key sits: gray-matter/js-yaml give values, not
// positions. Good for the usual `key: value` front matter; a key it cannot place gets line 1.
function keyLines(head: string, keys: readonly string[], json: boolean): Record<string, number> {
  const wanted = new Set(keys);
  const lines = new Map<string, number>();
  const rows = head.split('\n');
  const keyPattern = json
    ? /^\s*"((?:[^"\\]|\\.)*)"\s*:/
    : /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s#'"-][^#]*?|-[^\s#][^#]*?))[ \t]*:(?:[ \t]|$)/;
  for (let i = 1; i < rows.length; i++) {
    const m = keyPattern.exec(rows[i]!);
    if (!m) continue;
    const key = m[1] ?? m[2]?.replace(/''/g, "'") ?? m[3] ?? '';
    if (wanted.has(key) && !lines.has(key)) lines.set(key, i + 1);
  }
  for (const key of keys) if (!lines.has(key)) lines.set(key, 1);
  return Object.fromEntries(lines);
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return 'a date';
  return `a ${typeof value}`;
}
