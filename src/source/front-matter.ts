import type matterType from 'gray-matter';
import { requireLater } from '../require-later.js';

// gray-matter (with js-yaml) loads on the first file that must be parsed: a run whose files are
// all unchanged since the last write parses none, and need not pay for loading it.
const matter = requireLater<typeof matterType>('gray-matter');

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

/**
 * Options for every gray-matter call. Passing options at all matters: without them gray-matter
 * caches every input it ever parsed, which leaks in `watch`. The JavaScript engines are
 * replaced because gray-matter would otherwise `eval` a `---js` block from a content file.
 */
const MATTER_OPTIONS = {
  engines: { js: refuseJavaScript, javascript: refuseJavaScript },
} as const;

const SUPPORTED_LANGUAGES = new Set(['', 'yaml', 'yml', 'json']);

/** Splits LF-normalized, BOM-free text into front matter and body. */
export function parseFrontMatter(text: string): FrontMatter | FrontMatterError {
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
      message: 'JavaScript front matter (---js) is refused: cms-sync never runs code from content files. Write the front matter in YAML (---) instead',
    };
  }
  if (!SUPPORTED_LANGUAGES.has(language)) {
    return { line: 1, column: 4, message: `front matter language "${language}" is not supported; use YAML (---) or JSON (---json)` };
  }
  if (firstLineEnd === -1 || text.indexOf('\n---', firstLineEnd) === -1) {
    return {
      line: 1,
      column: 1,
      message: 'front matter opened with --- on line 1 is never closed; add a line with --- after the last key',
    };
  }

  // gray-matter is handed only the front matter block: given the whole file it looks the full
  // text up in its cache (hashing a long string) and copies it, the main cost of scanning many
  // long documents. The body is what follows the closing `---` and its newline, as with it.
  let headEnd = text.indexOf('\n---', firstLineEnd) + 4;
  if (text[headEnd] === '\n') headEnd += 1;
  let file: matterType.GrayMatterFile<string>;
  try {
    file = matter()(text.slice(0, headEnd), MATTER_OPTIONS);
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
    return { line: 1, column: 4, message: 'JavaScript front matter is refused: cms-sync never runs code from content files' };
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
  const keyPattern = json ? /^\s*"((?:[^"\\]|\\.)*)"\s*:/ : /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s#'"-][^#]*?|-[^\s#][^#]*?))[ \t]*:(?:[ \t]|$)/;
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
