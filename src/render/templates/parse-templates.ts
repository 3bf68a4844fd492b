/**
 * Tokenizer and tree builder for the template syntax found in Hugo and Jekyll/Eleventy bodies:
 * Hugo shortcodes (`{{< >}}`, `{{% %}}`), Liquid tags (`{% %}`) and Liquid output (`{{ }}`).
 * Offsets, not line:column, travel through here; the caller turns them into positions.
 */

export type Dialect = 'hugo' | 'liquid' | 'auto';

/** `hugo` is `{{< >}}` (output is HTML), `hugo-markdown` is `{{% %}}` (output is Markdown). */
export type TagFlavor = 'hugo' | 'hugo-markdown' | 'liquid';

export interface TagToken {
  kind: 'tag';
  flavor: TagFlavor;
  name: string;
  /** `{{< /name >}}`, or `{% endname %}` (whose `name` is then the opened name). */
  closing: boolean;
  /** `{{< name />}}`: never takes a closing tag. */
  selfClosing: boolean;
  args: string[];
  named: Record<string, string>;
  start: number;
  end: number;
  /** Liquid `{%-`: the whitespace before the tag goes. */
  trimLeft: boolean;
  /** Liquid `-%}`: the whitespace after the tag goes. */
  trimRight: boolean;
}

export interface OutputToken {
  kind: 'output';
  /** The text between `{{` and `}}`, without whitespace-control dashes. */
  expression: string;
  start: number;
  end: number;
  trimLeft: boolean;
  trimRight: boolean;
}

/** A shortcode escaped as a comment (`/*` and `*\/` inside the delimiters): published as the literal shortcode. */
export interface EscapedToken {
  kind: 'escaped';
  text: string;
  start: number;
  end: number;
}

/** `{% raw %}…{% endraw %}` and `{% comment %}…{% endcomment %}`: their inside is never tokenized. */
export interface VerbatimToken {
  kind: 'verbatim';
  name: 'raw' | 'comment';
  start: number;
  end: number;
  innerStart: number;
  innerEnd: number;
  trimLeft: boolean;
  trimRight: boolean;
}

export type Token = TagToken | OutputToken | EscapedToken | VerbatimToken;

export interface TextNode {
  kind: 'text';
  start: number;
  end: number;
}

export interface TagNode {
  kind: 'tag';
  open: TagToken;
  /** Set when a closing tag was found: the tag is paired and `children` is its inner content. */
  close?: TagToken;
  children: TemplateNode[];
}

export type TemplateNode = TextNode | TagNode | OutputToken | EscapedToken | VerbatimToken;

export interface ParseProblem {
  offset: number;
  message: string;
}

export interface ParseOptions {
  dialect: Dialect;
  /** Whether an offset lies in Markdown code; asked only in `auto` for Liquid syntax, lazily. */
  isCode: (offset: number) => boolean;
  maxDepth: number;
}

export interface ParseResult {
  nodes: TemplateNode[];
  problems: ParseProblem[];
  /** Set when nesting went past `maxDepth`: the caller should leave the document alone. */
  tooDeep?: ParseProblem;
}

/** Names Hugo accepts: letters, digits, `_`, `-`, `.` and `/` (shortcodes in sub-folders). */
const NAME = /[\p{L}\p{N}_./-]/u;
const LIQUID_NAME = /^(#|[\p{L}\p{N}_-]+)/u;

/** Liquid blocks whose inside is never read as template syntax. */
const LIQUID_VERBATIM = new Set(['raw', 'comment']);

export function parseTemplates(source: string, options: ParseOptions): ParseResult {
  const { tokens, problems } = tokenize(source, options);
  const tree = buildTree(source, tokens, options.maxDepth, problems);
  return { nodes: tree.nodes, problems, ...(tree.tooDeep ? { tooDeep: tree.tooDeep } : {}) };
}

interface Scanner {
  source: string;
  problems: ParseProblem[];
  /** Offset from which a search for a closing delimiter is known to fail (keeps failures linear). */
  noMoreFrom: Map<string, number>;
}

function tokenize(source: string, options: ParseOptions): { tokens: Token[]; problems: ParseProblem[] } {
  const hugo = options.dialect !== 'liquid';
  const liquid = options.dialect !== 'hugo';
  const scanner: Scanner = { source, problems: [], noMoreFrom: new Map() };
  const tokens: Token[] = [];
  let at = source.indexOf('{');
  while (at !== -1 && at < source.length - 1) {
    const next = source[at + 1];
    const third = source[at + 2];
    let token: Token | undefined;
    if (next === '{' && hugo && (third === '<' || third === '%')) {
      token = lexShortcode(scanner, at);
    } else if (
      liquid &&
      (next === '%' || next === '{') &&
      !(options.dialect === 'auto' && options.isCode(at))
    ) {
      token = next === '%' ? lexLiquidTag(scanner, at) : lexLiquidOutput(scanner, at);
    }
    if (token) tokens.push(token);
    at = source.indexOf('{', token ? token.end : at + (next === '{' ? 2 : 1));
  }
  return { tokens, problems: scanner.problems };
}

/** Index of `needle` at or after `from`, remembering a miss so that later searches fail at once. */
function find(scanner: Scanner, needle: string, from: number): number {
  const known = scanner.noMoreFrom.get(needle);
  if (known !== undefined && from >= known) return -1;
  const index = scanner.source.indexOf(needle, from);
  if (index === -1) scanner.noMoreFrom.set(needle, Math.min(from, known ?? from));
  return index;
}

function isSpace(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';
}

function skipSpace(source: string, at: number): number {
  while (isSpace(source[at])) at += 1;
  return at;
}

function lexShortcode(scanner: Scanner, start: number): Token | undefined {
  const { source } = scanner;
  const markdown = source[start + 2] === '%';
  const flavor: TagFlavor = markdown ? 'hugo-markdown' : 'hugo';
  const open = markdown ? '{{%' : '{{<';
  const close = markdown ? '%}}' : '>}}';
  const otherClose = markdown ? '>}}' : '%}}';
  const fail = (offset: number, message: string): undefined => {
    scanner.problems.push({ offset, message });
    return undefined;
  };

  let at = skipSpace(source, start + 3);
  if (source.startsWith('/*', at)) return lexShortcodeComment(scanner, start, at, open, close);

  const closing = source[at] === '/';
  if (closing) at = skipSpace(source, at + 1);
  const nameStart = at;
  while (at < source.length && NAME.test(source[at]!) && !source.startsWith(`/${close}`, at)) at += 1;
  const name = source.slice(nameStart, at);
  if (name === '') {
    if (at >= source.length || source.startsWith(close, at) || isSpace(source[at])) {
      return fail(
        start,
        `\`${open}\` opens a shortcode with no name; write \`${open} name ${close}\`, ` +
          'or escape it as ' +
          `\`${open}/* … */${close}\` to publish it as text`,
      );
    }
    // `{{<` followed by something that is no name (`{{<-` in a code sample): not a shortcode.
    return undefined;
  }

  const args: string[] = [];
  const named: Record<string, string> = {};
  for (;;) {
    at = skipSpace(source, at);
    if (at >= source.length || source.startsWith('{{<', at) || source.startsWith('{{%', at)) {
      return fail(start, `shortcode \`${name}\` is not closed: add \`${close}\` after its arguments`);
    }
    if (source.startsWith(close, at)) {
      return shortcodeToken(flavor, name, closing, false, args, named, start, at + close.length);
    }
    if (source.startsWith(`/${close}`, at)) {
      return shortcodeToken(flavor, name, closing, true, args, named, start, at + 1 + close.length);
    }
    if (source.startsWith(otherClose, at)) {
      return fail(
        start,
        `shortcode \`${name}\` opens with \`${open}\` but closes with \`${otherClose}\`; use \`${close}\``,
      );
    }
    const first = readValue(scanner, at, close);
    if (!first) return undefined;
    at = first.end;
    if (!first.quoted && source[at] === '=') {
      const value = readValue(scanner, at + 1, close);
      if (!value) return undefined;
      named[first.value] = value.value;
      at = value.end;
    } else {
      args.push(first.value);
    }
  }
}

function shortcodeToken(
  flavor: TagFlavor,
  name: string,
  closing: boolean,
  selfClosing: boolean,
  args: string[],
  named: Record<string, string>,
  start: number,
  end: number,
): TagToken {
  return {
    kind: 'tag',
    flavor,
    name,
    closing,
    selfClosing,
    args,
    named,
    start,
    end,
    trimLeft: false,
    trimRight: false,
  };
}

function lexShortcodeComment(
  scanner: Scanner,
  start: number,
  commentStart: number,
  open: string,
  close: string,
): Token | undefined {
  const { source } = scanner;
  const end = find(scanner, '*/', commentStart + 2);
  const after = end === -1 ? -1 : skipSpace(source, end + 2);
  if (end === -1 || !source.startsWith(close, after)) {
    scanner.problems.push({
      offset: start,
      message: `escaped shortcode \`${open}/*\` is not closed: end it with \`*/${close}\``,
    });
    return undefined;
  }
  const inner = source.slice(commentStart + 2, end);
  return { kind: 'escaped', text: `${open}${inner}${close}`, start, end: after + close.length };
}

interface Value {
  value: string;
  quoted: boolean;
  end: number;
}

/** One argument: `"quoted \" string"`, a `raw string` in backticks, or a bare word. */
function readValue(scanner: Scanner, at: number, close: string): Value | undefined {
  const { source } = scanner;
  const quote = source[at];
  if (quote === '"') {
    if (find(scanner, '"', at + 1) === -1) {
      scanner.problems.push({
        offset: at,
        message: 'a quoted shortcode argument is not closed: add the closing `"`',
      });
      return undefined;
    }
    let value = '';
    let i = at + 1;
    while (i < source.length && source[i] !== '"') {
      if (source[i] === '\\' && (source[i + 1] === '"' || source[i + 1] === '\\')) i += 1;
      value += source[i];
      i += 1;
    }
    if (i >= source.length) {
      scanner.problems.push({
        offset: at,
        message: 'a quoted shortcode argument is not closed: add the closing `"`',
      });
      return undefined;
    }
    return { value, quoted: true, end: i + 1 };
  }
  if (quote === '`') {
    const end = find(scanner, '`', at + 1);
    if (end === -1) {
      const message = 'a raw-string shortcode argument is not closed: add the closing backtick';
      scanner.problems.push({ offset: at, message });
      return undefined;
    }
    return { value: source.slice(at + 1, end), quoted: true, end: end + 1 };
  }
  let i = at;
  // A bare word also ends where another shortcode opens: an unclosed one is then found there,
  // rather than each failed opening re-reading the same long word.
  while (
    i < source.length &&
    !isSpace(source[i]) &&
    source[i] !== '=' &&
    !source.startsWith(close, i) &&
    !source.startsWith(`/${close}`, i) &&
    !source.startsWith('{{<', i) &&
    !source.startsWith('{{%', i)
  ) {
    i += 1;
  }
  if (i === at) i += 1; // a lone `=`: take it as a word rather than loop on it
  return { value: source.slice(at, i), quoted: false, end: i };
}

interface Delimited {
  inner: string;
  end: number;
  trimLeft: boolean;
  trimRight: boolean;
}

function lexDelimited(scanner: Scanner, start: number, close: string, what: string): Delimited | undefined {
  const { source } = scanner;
  const closeAt = find(scanner, close, start + 2);
  if (closeAt === -1) {
    scanner.problems.push({ offset: start, message: `${what} is not closed: add \`${close}\`` });
    return undefined;
  }
  let inner = source.slice(start + 2, closeAt);
  const trimLeft = inner.startsWith('-');
  const trimRight = inner.endsWith('-') && inner.length > (trimLeft ? 1 : 0);
  inner = inner.slice(trimLeft ? 1 : 0, trimRight ? -1 : undefined).trim();
  return { inner, end: closeAt + close.length, trimLeft, trimRight };
}

function lexLiquidOutput(scanner: Scanner, start: number): Token | undefined {
  const body = lexDelimited(scanner, start, '}}', `\`{{\` (a Liquid output)`);
  if (!body) return undefined;
  const { inner: expression, end, trimLeft, trimRight } = body;
  return { kind: 'output', expression, start, end, trimLeft, trimRight };
}

function lexLiquidTag(scanner: Scanner, start: number): Token | undefined {
  const body = lexDelimited(scanner, start, '%}', '`{%` (a Liquid tag)');
  if (!body) return undefined;
  const match = LIQUID_NAME.exec(body.inner);
  if (!match) {
    scanner.problems.push({ offset: start, message: '`{% %}` holds no tag name' });
    return undefined;
  }
  const word = match[1]!;
  if (LIQUID_VERBATIM.has(word)) return lexVerbatim(scanner, start, word as 'raw' | 'comment', body);
  const closing = word.startsWith('end') && word.length > 3;
  const { args, named } = liquidArguments(body.inner.slice(word.length));
  return {
    kind: 'tag',
    flavor: 'liquid',
    name: closing ? word.slice(3) : word,
    closing,
    selfClosing: false,
    args,
    named,
    start,
    end: body.end,
    trimLeft: body.trimLeft,
    trimRight: body.trimRight,
  };
}

/** Finds `{% endraw %}` (or `endcomment`) without reading what lies between: that is the point of raw. */
function lexVerbatim(
  scanner: Scanner,
  start: number,
  name: 'raw' | 'comment',
  open: Delimited,
): Token | undefined {
  const { source } = scanner;
  const pattern = new RegExp(`\\{%(-?)\\s*end${name}\\s*(-?)%\\}`, 'g');
  const key = `end${name}`;
  const known = scanner.noMoreFrom.get(key);
  pattern.lastIndex = open.end;
  const match = known !== undefined && open.end >= known ? null : pattern.exec(source);
  if (!match) {
    scanner.noMoreFrom.set(key, Math.min(open.end, known ?? open.end));
    scanner.problems.push({
      offset: start,
      message: `\`{% ${name} %}\` is not closed: add \`{% end${name} %}\``,
    });
    return undefined;
  }
  return {
    kind: 'verbatim',
    name,
    start,
    end: match.index + match[0].length,
    innerStart: open.end,
    innerEnd: match.index,
    trimLeft: open.trimLeft,
    trimRight: match[2] === '-',
  };
}

/**
 * Liquid markup after the tag name: `"a" 'b' word key: value key=value`, commas between.
 * Bare words stay as written (Liquid would look them up as variables; there are none here).
 */
export function liquidArguments(markup: string): { args: string[]; named: Record<string, string> } {
  const args: string[] = [];
  const named: Record<string, string> = {};
  const pattern = /\s*(?:([\p{L}\p{N}_-]+)\s*(?::|=)\s*)?("[^"]*"|'[^']*'|[^\s,"']+)\s*,?/uy;
  let match: RegExpExecArray | null;
  while (pattern.lastIndex < markup.length && (match = pattern.exec(markup))) {
    const raw = match[2]!;
    const value = raw.startsWith('"') || raw.startsWith("'") ? raw.slice(1, -1) : raw;
    if (match[1] !== undefined) named[match[1]] = value;
    else args.push(value);
    if (match[0] === '') break;
  }
  return { args, named };
}

/**
 * Pairs opening and closing tags as HTML parsers do: a closing tag pairs with the nearest open
 * tag of its name, and tags opened after that one stand alone. Two passes keep it linear: the
 * first pairs token indexes (each open is pushed and popped once; a count per name answers "is
 * one open?" without a search), the second builds the tree, nesting only into paired tags, so
 * depth counts real nesting.
 */
function buildTree(
  source: string,
  tokens: Token[],
  maxDepth: number,
  problems: ParseProblem[],
): {
  nodes: TemplateNode[];
  tooDeep?: ParseProblem;
} {
  const closeOf = pairTags(tokens, problems);
  const root: TemplateNode[] = [];
  const stack: TagNode[] = [];
  const children = (): TemplateNode[] => (stack.length === 0 ? root : stack[stack.length - 1]!.children);
  let textFrom = 0;
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (token.start > textFrom) children().push({ kind: 'text', start: textFrom, end: token.start });
    textFrom = token.end;
    if (token.kind !== 'tag') {
      children().push(token);
    } else if (token.closing) {
      const node = stack[stack.length - 1];
      if (node?.close === token) stack.pop();
      else children().push({ kind: 'text', start: token.start, end: token.end }); // an orphan, reported
    } else {
      const close = closeOf.get(i);
      const node: TagNode = { kind: 'tag', open: token, children: [], ...(close ? { close } : {}) };
      children().push(node);
      if (!close) continue;
      if (stack.length >= maxDepth) {
        return {
          nodes: [{ kind: 'text', start: 0, end: source.length }],
          tooDeep: {
            offset: token.start,
            message:
              `templates are nested more than ${maxDepth} deep here; cms-sync leaves this body's templates ` +
              'unexpanded: check for tags that are opened but never closed',
          },
        };
      }
      stack.push(node);
    }
  }
  if (source.length > textFrom) children().push({ kind: 'text', start: textFrom, end: source.length });
  return { nodes: root };
}

/** Index of each paired opening tag -> its closing tag; reports closing tags that close nothing. */
function pairTags(tokens: Token[], problems: ParseProblem[]): Map<number, TagToken> {
  const closeOf = new Map<number, TagToken>();
  const open: number[] = [];
  const openCount = new Map<string, number>();
  const keyOf = (tag: TagToken): string => `${tag.flavor === 'liquid' ? 'liquid' : 'hugo'}:${tag.name}`;
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (token.kind !== 'tag' || token.selfClosing) continue;
    const key = keyOf(token);
    if (!token.closing) {
      open.push(i);
      openCount.set(key, (openCount.get(key) ?? 0) + 1);
      continue;
    }
    if (!openCount.get(key)) {
      problems.push({ offset: token.start, message: orphanMessage(token) });
      continue;
    }
    for (;;) {
      const index = open.pop()!;
      const popped = keyOf(tokens[index] as TagToken);
      openCount.set(popped, openCount.get(popped)! - 1);
      if (popped === key) {
        closeOf.set(index, token);
        break;
      }
    }
  }
  return closeOf;
}

function orphanMessage(token: TagToken): string {
  if (token.flavor === 'liquid') {
    return (
      `\`{% end${token.name} %}\` closes a \`{% ${token.name} %}\` that was never opened; ` +
      'remove it or add the opening tag'
    );
  }
  const [open, close] = token.flavor === 'hugo' ? ['{{<', '>}}'] : ['{{%', '%}}'];
  return (
    `\`${open} /${token.name} ${close}\` closes a \`${token.name}\` shortcode that was never opened; ` +
    'remove it or add the opening shortcode'
  );
}
