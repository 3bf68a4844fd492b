import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import type { FileProblem } from '../../errors.js';
import { mathSyntaxPlugins, type MathSyntax } from '../math-syntax.js';
import { applyEdits, type TextEdit } from '../../text-edits.js';
import {
  HUGO_BUILTINS,
  LIQUID_BUILTINS,
  ShortcodeProblem,
  refPath,
  resolveSite,
  type Builtin,
  type BuiltinContext,
  type BlockHandler,
  type BuiltinResult,
  type PageRef,
  type SiteInfo,
} from './builtins.js';
import { evaluateOutput } from './liquid-output.js';
import {
  parseTemplates,
  type Dialect,
  type TagNode,
  type TagToken,
  type TemplateNode,
} from './parse-templates.js';

export type { BlockHandler, ShortcodeCall, ShortcodeHandler, SiteInfo } from './builtins.js';
export type { Dialect } from './parse-templates.js';

/** Where a user maps their own shortcodes, named in messages. */
export const SHORTCODES_KEY = 'markdown.shortcodes';

export interface ExpandOptions {
  /** Path of the file, for problems. */
  file: string;
  /** The file line on which the body starts (after front matter); 1 when there is none. */
  bodyLine?: number;
  site?: SiteInfo;
  /** A site's own shortcodes and tags by name; they take precedence over the built-in ones. */
  shortcodes?: Record<string, BlockHandler>;
  /**
   * `hugo`: only `{{< >}}` / `{{% %}}`. `liquid`: only `{% %}` / `{{ }}`, expanded inside code
   * too, as Jekyll does. `auto` (default): both, with Liquid syntax inside Markdown code left as written.
   */
  dialect?: Dialect;
  /** Unhandled templates are errors instead of warnings. */
  strict?: boolean;
  /**
   * Values a Liquid output may name besides the site's, by dotted path: the page's own front
   * matter, as `page.title` (Jekyll) or `title` (Eleventy). An import knows them; a sync renders
   * the body alone.
   */
  variables?: Record<string, unknown>;
  /**
   * The page's own front matter for Hugo's `param`, which looks there before the site's (an
   * import knows it; a sync renders the body alone).
   */
  page?: Record<string, unknown>;
  /** The path a page reference links to; default `refPath` (`/<file name>/`). */
  resolveRef?: (ref: PageRef) => string;
  /**
   * The output is Markdown that a sync expands again (an import's): an escaped shortcode
   * (`{{</* x *\/>}}`) stays escaped, so that the sync still shows it rather than runs it.
   */
  keepEscaped?: boolean;
  /** @default 20 */
  maxDepth?: number;
  /** TeX math (config `markdown.math`): its TeX is left as written, as code is (needs loadMath() first). */
  math?: MathSyntax | false | undefined;
}

export interface ExpandResult {
  text: string;
  problems: FileProblem[];
}

interface Problem {
  offset: number;
  severity: 'error' | 'warning';
  message: string;
}

/**
 * Replaces the template syntax of a Markdown body (Hugo shortcodes, Liquid tags and outputs) with
 * Markdown or HTML, before the body is parsed as Markdown. What it cannot expand stays as written,
 * with a problem at its position. A body without template syntax is returned as the same string.
 */
export function expandTemplates(source: string, options: ExpandOptions): ExpandResult {
  const dialect = options.dialect ?? 'auto';
  if (!mayHoldTemplates(source, dialect)) return { text: source, problems: [] };

  const codeRanges = lazyCodeRanges(source, options.math);
  const parsed = parseTemplates(source, {
    dialect,
    isCode: codeRanges.contains,
    maxDepth: options.maxDepth ?? 20,
  });
  const lines = lineStarts(source);
  const position = (offset: number): { line: number; column: number } =>
    lines.position(offset, options.bodyLine ?? 1);
  const toFileProblem = (p: Problem): FileProblem => ({
    file: options.file,
    ...position(p.offset),
    severity: p.severity,
    message: p.message,
  });

  if (parsed.tooDeep) {
    return { text: source, problems: [toFileProblem({ ...parsed.tooDeep, severity: 'error' })] };
  }
  const expander = new Expander(source, options, codeRanges.contains, position);
  for (const p of parsed.problems) expander.problems.push({ ...p, severity: 'error' });
  const text = expander.render(parsed.nodes, { inCode: false, liquidAsText: false });
  const problems = expander.problems.sort((a, b) => a.offset - b.offset).map(toFileProblem);
  return { text, problems };
}

function mayHoldTemplates(source: string, dialect: Dialect): boolean {
  if (dialect === 'hugo') return source.includes('{{<') || source.includes('{{%');
  return source.includes('{{') || source.includes('{%');
}

interface Scope {
  /** The output lands in code, where text is shown as is and never autolinked. */
  inCode: boolean;
  /** Liquid syntax here is sample text (in `auto`, inside a Hugo highlight). */
  liquidAsText: boolean;
}

function isLiquid(node: TemplateNode): boolean {
  return (
    node.kind === 'output' ||
    node.kind === 'verbatim' ||
    (node.kind === 'tag' && node.open.flavor === 'liquid')
  );
}

function endOf(node: TemplateNode): number {
  return node.kind === 'tag' ? (node.close ?? node.open).end : node.end;
}

class Expander {
  readonly problems: Problem[] = [];
  private readonly context: BuiltinContext;

  constructor(
    private readonly source: string,
    private readonly options: ExpandOptions,
    private readonly isCode: (offset: number) => boolean,
    private readonly position: (offset: number) => { line: number; column: number },
  ) {
    this.context = {
      site: resolveSite(options.site),
      resolveRef: options.resolveRef ?? ((ref) => refPath(ref.target)),
      ...(options.page ? { page: options.page } : {}),
    };
  }

  /** Renders sibling nodes, applying Liquid's `{%-`/`-%}` whitespace control between them. */
  render(nodes: TemplateNode[], scope: Scope, trimStart = false): string {
    const { inCode } = scope;
    const out = new Output(trimStart);
    for (const node of nodes) {
      if (scope.liquidAsText && isLiquid(node)) {
        out.text(this.source.slice(node.kind === 'tag' ? node.open.start : node.start, endOf(node)));
        continue;
      }
      switch (node.kind) {
        case 'text':
          out.text(this.source.slice(node.start, node.end));
          break;
        case 'escaped':
          out.text(
            this.options.keepEscaped
              ? this.source.slice(node.start, node.end)
              : this.literal(node.text, node.start, inCode),
          );
          break;
        case 'verbatim':
          out.consumed(
            node.trimLeft,
            node.name === 'raw' ? this.source.slice(node.innerStart, node.innerEnd) : '',
            node.trimRight,
          );
          break;
        case 'output': {
          const result = evaluateOutput(node.expression, this.context.site, this.options.variables);
          if ('value' in result) {
            out.consumed(node.trimLeft, result.value, node.trimRight);
          } else {
            const written = this.source.slice(node.start, node.end);
            this.unhandled(
              node.start,
              `Liquid output \`${written}\` is left as text: ${result.unknown}; ` +
                'cms-sync knows `site.baseurl`, `site.url`, `site.<param>`' +
                (this.options.variables ? ", the page's front matter" : '') +
                ' and the `url`, `relative_url` and `absolute_url` filters',
            );
            out.text(this.literal(written, node.start, inCode));
          }
          break;
        }
        case 'tag':
          this.renderTag(node, out, scope);
          break;
      }
    }
    return out.toString();
  }

  private renderTag(node: TagNode, out: Output, scope: Scope): void {
    const { open, close } = node;
    const { inCode } = scope;
    const mapped = this.options.shortcodes;
    const user = mapped && Object.hasOwn(mapped, open.name) ? mapped[open.name] : undefined;
    const table = open.flavor === 'liquid' ? LIQUID_BUILTINS : HUGO_BUILTINS;
    const builtin = user ? undefined : Object.hasOwn(table, open.name) ? table[open.name] : undefined;
    const leaveAsWritten = (): void => {
      out.text(this.literal(this.source.slice(open.start, open.end), open.start, inCode));
      if (close) {
        out.text(this.render(node.children, scope));
        out.text(this.literal(this.source.slice(close.start, close.end), close.start, inCode));
      }
    };

    if (!user && !builtin) {
      this.unhandled(open.start, unknownMessage(open, this.source.slice(open.start, open.end)));
      return leaveAsWritten();
    }
    const arity = builtin && arityProblem(builtin, node);
    if (arity) {
      this.problems.push({ offset: open.start, severity: 'error', message: arity });
      return leaveAsWritten();
    }

    // Inside Hugo's highlight, `{{ .Title }}` is a Go template sample, not Liquid (unless the dialect says so).
    const hugoCode = Boolean(builtin?.innerIsCode) && open.flavor !== 'liquid';
    const innerScope: Scope = {
      inCode: inCode || Boolean(builtin?.innerIsCode),
      liquidAsText: scope.liquidAsText || (hugoCode && (this.options.dialect ?? 'auto') === 'auto'),
    };
    const inner = close ? this.render(node.children, innerScope, open.trimRight) : undefined;
    const call = {
      name: open.name,
      args: open.args,
      named: open.named,
      inner: inner !== undefined && close?.trimLeft ? inner.trimEnd() : inner,
      position: this.position(open.start),
    };
    let result: BuiltinResult;
    try {
      result = user ? user(call) : builtin!.render(call, this.context);
      if (!isResult(result)) throw new ShortcodeProblem(notTextMessage(result));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof ShortcodeProblem && error.kind === 'unhandled') {
        this.unhandled(open.start, message);
      } else {
        const who = user ? `your \`${open.name}\` handler (${SHORTCODES_KEY})` : `\`${open.name}\``;
        this.problems.push({ offset: open.start, severity: 'error', message: `${who} failed: ${message}` });
      }
      out.text(this.literal(this.source.slice(open.start, open.end), open.start, inCode));
      if (close) {
        out.text(inner ?? '');
        out.text(this.literal(this.source.slice(close.start, close.end), close.start, inCode));
      }
      return;
    }
    const { end, trimRight } = close ?? open;
    if (typeof result === 'string') out.consumed(open.trimLeft, result, trimRight);
    else out.block(result, open.trimLeft, trimRight ? undefined : breaksAt(this.source, end), call.inner);
  }

  private unhandled(offset: number, message: string): void {
    this.problems.push({ offset, severity: this.options.strict ? 'error' : 'warning', message });
  }

  /**
   * Template text published as written must not become a link: GFM's autolink literal would take
   * `https://x.png">}}` as one URL. It runs on decoded text, so a character reference cannot stop
   * it; an empty HTML comment between `https` and `://` (`www` and `.`, before `@`) splits the text
   * so that no autolink starts, and the reader sees the same characters. Code is never autolinked.
   */
  private literal(text: string, offset: number, inCode: boolean): string {
    if (inCode || !/:\/\/|www\.|@/i.test(text) || this.isCode(offset)) return text;
    return text
      .replace(/:\/\//g, `${SPLIT}://`)
      .replace(/\b(www)\./gi, `$1${SPLIT}.`)
      .replace(/@/g, `${SPLIT}@`);
  }
}

const SPLIT = '<!---->';

/**
 * Whether `text` is indented with its tag: its first line that is not blank, after the rest of the
 * tag's own line, starts with `indent`. The first line decides, not every line: a list item's
 * snippet indented with the item may hold a line that must start at column 0 (a heredoc's end),
 * and code pasted from column 0 has deeper lines that start with the indent all the same.
 */
function indentedAlike(text: string, indent: string): boolean {
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
    const end = text.indexOf('\n', at + 1);
    const line = text.slice(at + 1, end === -1 ? undefined : end);
    if (line.trim() !== '') return line.startsWith(indent);
  }
  return true;
}

/** Collects rendered pieces; knows the last characters written, for whitespace control and blocks. */
class Output {
  private readonly parts: string[] = [];

  /** The spaces (not the line breaks) at the start of the next text are dropped: a block ended before it. */
  private spacesNext = false;

  constructor(private trimNext: boolean) {}

  text(piece: string): void {
    if (this.trimNext || this.spacesNext) {
      piece = piece.replace(this.trimNext ? /^\s+/ : /^[ \t]+/, '');
      if (piece === '') return;
      this.trimNext = false;
      this.spacesNext = false;
    }
    this.parts.push(piece);
  }

  /** A tag that was expanded (or removed): its whitespace control applies. */
  consumed(trimLeft: boolean, piece: string, trimRight: boolean): void {
    if (trimLeft) this.trimEnd();
    if (piece !== '') {
      this.parts.push(piece);
      this.trimNext = false;
      this.spacesNext = false;
    }
    if (trimRight) this.trimNext = true;
  }

  /**
   * A block result (see BuiltinResult): on lines of its own, the spaces beside it on its line
   * dropped. `after`: the line breaks that follow the tag in the source (see breaksAt), undefined
   * when its whitespace control trims them. `inner`: the content its handler was given.
   */
  block(
    result: { block: string; apart?: boolean },
    trimLeft: boolean,
    after: number | undefined,
    inner: string | undefined,
  ): void {
    // A tag indented on a line of its own (in a list item) keeps its block there: each line indented alike.
    const indent = trimLeft ? '' : this.lineIndent();
    if (trimLeft) this.trimEnd();
    else this.trimSpacesEnd();
    const breaks = result.apart ? 2 : 1;
    const before = this.breaksBefore();
    const lead = before === START ? 0 : Math.max(0, breaks - before);
    const trail = after === undefined || after === END ? 0 : Math.max(0, breaks - after);
    // Content indented with its tag (a list item's code, indented with the item) is in the block
    // indented already: those lines are left as they are. Content that is not (written from
    // column 0, with deeper lines in it) is indented with every other line, as it stands.
    let block = result.block;
    if (indent) {
      const withTag = inner !== undefined && indentedAlike(inner, indent);
      block = block.replace(/^(?=.)/gm, (_, at: number) =>
        withTag && result.block.startsWith(indent, at) ? '' : indent,
      );
    }
    this.parts.push(`${'\n'.repeat(lead)}${block}${'\n'.repeat(trail)}`);
    this.trimNext = after === undefined;
    this.spacesNext = after !== undefined;
  }

  /** The spaces and tabs written since the last line break, when nothing else was ('' otherwise). */
  private lineIndent(): string {
    let line = '';
    for (let i = this.parts.length - 1; i >= 0; i -= 1) {
      const part = this.parts[i]!;
      const lineBreak = part.lastIndexOf('\n');
      line = part.slice(lineBreak + 1) + line;
      if (!/^[ \t]*$/.test(line)) return '';
      if (lineBreak !== -1) return line;
    }
    return '';
  }

  /** How many line breaks (up to two) end what is written; START when nothing is (see breaksAt). */
  private breaksBefore(): number {
    let tail = '';
    for (let i = this.parts.length - 1; i >= 0 && tail.length < 2; i -= 1) tail = this.parts[i]! + tail;
    if (tail === '') return START;
    return tail.endsWith('\n\n') ? 2 : tail.endsWith('\n') ? 1 : 0;
  }

  private trimSpacesEnd(): void {
    while (this.parts.length > 0) {
      const trimmed = this.parts[this.parts.length - 1]!.replace(/[ \t]+$/, '');
      if (trimmed !== '') {
        this.parts[this.parts.length - 1] = trimmed;
        return;
      }
      this.parts.pop();
    }
  }

  private trimEnd(): void {
    while (this.parts.length > 0) {
      const trimmed = this.parts[this.parts.length - 1]!.replace(/\s+$/, '');
      if (trimmed !== '') {
        this.parts[this.parts.length - 1] = trimmed;
        return;
      }
      this.parts.pop();
    }
  }

  toString(): string {
    return this.parts.join('');
  }
}

/** breaksAt: only whitespace follows, to the end of the text; breaksBefore: nothing is written yet. */
const END = -1;
const START = -1;

/**
 * How many line breaks (up to two) follow `at` in `source`, spaces and tabs between them skipped;
 * END when nothing but whitespace does. A block must start and end a line to be read as one (a
 * fenced code block), and one set `apart` must have a blank line on each side: the block adds what
 * its place lacks.
 */
function breaksAt(source: string, at: number): number {
  let breaks = 0;
  for (let i = at; i < source.length; i += 1) {
    const c = source[i];
    if (c === '\n') breaks += 1;
    else if (c !== ' ' && c !== '\t' && c !== '\r') return Math.min(breaks, 2);
  }
  return END;
}

function notTextMessage(value: unknown): string {
  if (typeof (value as { then?: unknown } | null)?.then === 'function') {
    return 'returned a Promise; a handler must return its text at once (no async)';
  }
  return `returned ${value === null ? 'null' : typeof value}, not text`;
}

/** A handler from config is JavaScript: it may return anything. */
function isResult(value: unknown): value is BuiltinResult {
  if (typeof value === 'string') return true;
  return (
    typeof value === 'object' && value !== null && typeof (value as { block?: unknown }).block === 'string'
  );
}

function arityProblem(builtin: Builtin, node: TagNode): string | undefined {
  const { open, close } = node;
  const [left, right] = delimiters(open);
  const closing =
    open.flavor === 'liquid' ? `${left} end${open.name} ${right}` : `${left} /${open.name} ${right}`;
  if (builtin.inner === 'required' && !close) {
    return `\`${left} ${open.name} ${right}\` is not closed: add \`${closing}\` after its content`;
  }
  if (builtin.inner === 'none' && close) {
    return `\`${open.name}\` takes no inner content: remove \`${closing}\``;
  }
  return undefined;
}

function delimiters(tag: TagToken): [string, string] {
  if (tag.flavor === 'liquid') return ['{%', '%}'];
  return tag.flavor === 'hugo' ? ['{{<', '>}}'] : ['{{%', '%}}'];
}

/** Why `{% include file %}` is left as text, and what to do. */
export function includeLeftAsText(file: string | undefined): string {
  const what = file ? ` of \`${file}\`` : '';
  return (
    `\`{% include %}\`${what} is left as text: it runs one of the site's templates, which cms-sync cannot; ` +
    `map \`include\` under \`${SHORTCODES_KEY}\` in sync.config.ts (args[0] is the file), ` +
    'or write the content into the file'
  );
}

function unknownMessage(open: TagToken, written: string): string {
  const example = `e.g. \`${open.name}: ({ args, named, inner }) => \\\`…\\\`\``;
  if (open.flavor === 'liquid' && open.name === 'include') return includeLeftAsText(open.args[0]);
  const kind = open.flavor === 'liquid' ? 'Liquid tag' : 'shortcode';
  const quoted = written.length > 60 ? `${written.slice(0, 57)}...` : written;
  return (
    `${kind} \`${open.name}\` (\`${quoted}\`) is neither built in nor mapped, so it is left as text: ` +
    `map it under \`${SHORTCODES_KEY}\` in sync.config.ts, ${example}, returning Markdown or HTML`
  );
}

/** 1-based line:column of an offset, counting from the line the body starts on. */
function lineStarts(source: string): {
  position: (offset: number, bodyLine: number) => { line: number; column: number };
} {
  let starts: number[] | undefined;
  return {
    position(offset, bodyLine) {
      if (!starts) {
        starts = [0];
        for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
      }
      const index = lastAtOrBefore(starts, offset);
      return { line: bodyLine + index, column: offset - starts[index]! + 1 };
    },
  };
}

/** Index of the last element <= value in an ascending array (0 when none). */
function lastAtOrBefore(sorted: number[], value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (sorted[mid]! <= value) low = mid;
    else high = mid - 1;
  }
  return low;
}

const markdownParser = unified().use(remarkParse).freeze();
const mathParsers = new Map<boolean, typeof markdownParser>();

/** A parser that reads math too (remark-math), so that its TeX counts as code. */
function parserFor(math: MathSyntax | false | undefined): typeof markdownParser {
  if (!math) return markdownParser;
  let parser = mathParsers.get(math.singleDollar);
  if (!parser)
    mathParsers.set(
      math.singleDollar,
      (parser = unified().use(remarkParse).use(mathSyntaxPlugins(math)).freeze() as typeof markdownParser),
    );
  return parser;
}

/** What the expander leaves as written: code, and math when it is read. */
const CODE_LIKE = new Set(['code', 'inlineCode', 'math', 'inlineMath']);

/**
 * Offsets of code blocks and code spans (and math, with `math`), parsed only when first asked: a
 * body that needs no answer (Hugo shortcodes only, nothing left as text) is never parsed twice.
 */
function lazyCodeRanges(
  source: string,
  math?: MathSyntax | false,
): { contains: (offset: number) => boolean } {
  let starts: number[] | undefined;
  let ends: number[] = [];
  return {
    contains(offset) {
      if (!starts) {
        const ranges: Array<[number, number]> = [];
        visit(parserFor(math).parse(source), (node) => {
          if (CODE_LIKE.has(node.type) && node.position?.start.offset !== undefined) {
            ranges.push([node.position.start.offset, node.position.end.offset ?? node.position.start.offset]);
          }
        });
        ranges.sort((a, b) => a[0] - b[0]);
        starts = ranges.map((r) => r[0]);
        ends = ranges.map((r) => r[1]);
      }
      if (starts.length === 0 || offset < starts[0]!) return false;
      return offset < ends[lastAtOrBefore(starts, offset)]!;
    },
  };
}

/**
 * Marks template syntax that a body shows as text so that a sync shows it too rather than runs or
 * erases it: an import's output, where the old site read only its own syntax (a Hugo post's
 * `{{ site.baseurl }}` was text to Hugo; a Jekyll post's `{{< x >}}` was text to Jekyll). `syntax`
 * is what is text. Outside code, the braces that open it become `&#123;`, which Markdown shows
 * as `{` and no template reads (a lone `{% raw %}` too). Inside code, where a reference is not decoded, a
 * Hugo shortcode takes the comment escape (`{{</* x *\/>}}`); Liquid there is left, as a sync
 * leaves it. With `math`, the TeX of math counts as code (as a sync with `markdown.math` reads it).
 */
export function templatesAsText(
  source: string,
  syntax: 'hugo' | 'liquid' | 'both',
  math?: MathSyntax | false,
): string {
  const hugo = syntax !== 'liquid';
  const liquid = syntax !== 'hugo';
  if (!mayHoldTemplates(source, liquid ? 'auto' : 'hugo')) return source;
  const code = lazyCodeRanges(source, math);
  const edits: TextEdit[] = [];
  let shortcodeInCode = false;
  for (const m of source.matchAll(/\{\{[<%]|\{\{|\{%/g)) {
    const isHugo = m[0].length === 3;
    if (isHugo ? !hugo : !liquid) continue;
    if (!code.contains(m.index)) {
      // Every brace of the opener: `{{%` less its first would still open a Liquid tag.
      const braces = m[0].lastIndexOf('{') + 1;
      edits.push({ start: m.index, end: m.index + braces, text: '&#123;'.repeat(braces) });
    } else if (isHugo) shortcodeInCode = true;
  }
  if (shortcodeInCode) {
    const walk = (nodes: TemplateNode[]): void => {
      for (const node of nodes) {
        if (node.kind !== 'tag') continue;
        for (const token of [node.open, node.close]) {
          if (!token || !code.contains(token.start)) continue;
          edits.push({ start: token.start + 3, end: token.start + 3, text: '/*' });
          edits.push({ start: token.end - 3, end: token.end - 3, text: '*/' });
        }
        walk(node.children);
      }
    };
    walk(parseTemplates(source, { dialect: 'hugo', isCode: code.contains, maxDepth: 20 }).nodes);
  }
  return applyEdits(source, edits);
}
