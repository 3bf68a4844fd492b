/**
 * The data a JavaScript data file (Eleventy's `posts.11tydata.js`) exports, read as text and
 * never run: only when what it exports is written out as a literal, in one of the shapes sites
 * write: `module.exports = { … }`, `export default { … }`, a function that returns one
 * (`module.exports = () => ({ … })`, `function () { return { … }; }`), or the name of a
 * `const` holding one. Inside the literal, strings (a template without `${}` too), numbers,
 * booleans, `null`, arrays and objects are read; a key whose value is anything else (a function,
 * a variable, a spread, `eleventyComputed`'s callbacks) is passed over and named in `skipped`.
 *
 * Regular expressions are not read as such: a data file that holds one inside a function may be
 * read wrong only in the keys that function's value is passed over for.
 */
export type DataModule = { data: Record<string, unknown>; skipped: string[] } | { unreadable: string };

const NUMBER = /-?(?:0[xX][\da-fA-F_]+|(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][-+]?\d+)?)/y;
const WORD = /(true|false|null|undefined)\b/y;
const KEY = /[A-Za-z_$][\w$]*|\d+/y;

/** What a value that is not a literal is read as. */
const NOT_LITERAL = Symbol('not a literal');
type Value = unknown;

/** A name exported (`export default data`), to be looked up among the declarations. */
class ExportedName {
  constructor(readonly name: string) {}
}

export function readDataModule(source: string): DataModule {
  try {
    return read(source);
  } catch (error) {
    // Nesting deeper than the stack: no data file a site writes.
    if (error instanceof RangeError) return { unreadable: 'it nests its values too deeply to read' };
    throw error;
  }
}

function read(source: string): DataModule {
  const reader = new Reader(source);
  const exported = reader.findExport();
  if (exported === undefined)
    return { unreadable: 'it exports nothing as `module.exports =` or `export default`' };
  reader.at = exported;
  let value = reader.exportedValue();
  if (value instanceof ExportedName) {
    // `export default data`, with `const data = { … }` above.
    const declared = reader.findDeclaration(value.name);
    if (declared === undefined)
      return { unreadable: `it exports \`${value.name}\`, which is not declared as a literal` };
    reader.at = declared;
    value = reader.value('');
  }
  if (value === NOT_LITERAL || value === null || typeof value !== 'object' || Array.isArray(value))
    return { unreadable: 'what it exports is not an object written out as a literal' };
  return { data: value as Record<string, unknown>, skipped: reader.skipped };
}

/** Reads the source from `at`, noting the keys it passes over. */
class Reader {
  at = 0;
  readonly skipped: string[] = [];

  constructor(private readonly s: string) {}

  /** Where the exported value starts: after `module.exports =` or `export default`, at the top level. */
  findExport(): number | undefined {
    return this.findTopLevel(0, /^(?:module\s*\.\s*exports\s*=(?!=)|export\s+default\b)/);
  }

  /** Where the value of `const name =` (or `let`, `var`) starts, at the top level. */
  findDeclaration(name: string): number | undefined {
    return this.findTopLevel(0, new RegExp(`^(?:const|let|var)\\s+${name.replace(/\$/g, '\\$')}\\s*=(?!=)`));
  }

  /**
   * What follows an export: a literal; a function returning one (its value); a bare name (for
   * the caller to look up); else NOT_LITERAL.
   */
  exportedValue(): Value {
    this.space();
    const rest = this.s.slice(this.at, this.at + 200);
    const name = /^([A-Za-z_$][\w$]*)\s*(?:;|$|\n)/.exec(rest);
    if (name && name[1] !== 'async' && name[1] !== 'function') return new ExportedName(name[1]!);
    const fn = /^(?:async\s+)?(?:function\b\s*\*?\s*[\w$]*\s*\(|[A-Za-z_$][\w$]*\s*=>|\()/.exec(rest);
    if (!fn) return this.value('');
    const opens = fn[0].endsWith('(');
    // `(…)` is a function's parameters only when `=>` follows; else a parenthesised value.
    if (opens && !fn[0].includes('function') && !this.arrowAt(this.at + fn[0].length)) return this.value('');
    this.at += fn[0].length;
    if (opens) this.skipTo(')');
    this.space();
    if (this.s.startsWith('=>', this.at)) {
      this.at += 2;
      this.space();
      if (this.s[this.at] !== '{') return this.value('');
    }
    if (this.s[this.at] !== '{') return NOT_LITERAL;
    const returned = this.findTopLevel(this.at + 1, /^return\b/, '}');
    if (returned === undefined) return NOT_LITERAL;
    this.at = returned;
    return this.value('');
  }

  /** Whether the parameters that start just after a `(` at `from` are followed by `=>`. */
  private arrowAt(from: number): boolean {
    const start = this.at;
    this.at = from;
    this.skipTo(')');
    this.space();
    const arrow = this.s.startsWith('=>', this.at);
    this.at = start;
    return arrow;
  }

  /** A literal value at `at`, or NOT_LITERAL (skipped to the end of the expression). */
  value(keyPath: string): Value {
    this.space();
    const c = this.s[this.at];
    if (c === '{') return this.object(keyPath);
    if (c === '[') return this.array(keyPath);
    if (c === '(') {
      const start = this.at;
      this.at++;
      const inner = this.value(keyPath);
      this.space();
      if (inner !== NOT_LITERAL && this.s[this.at] === ')') {
        this.at++;
        return this.endOfValue(inner);
      }
      this.at = start;
      return this.skipExpression();
    }
    if (c === '"' || c === "'") return this.endOfValue(this.string(c));
    if (c === '`') return this.endOfValue(this.string(c));
    const number = this.match(NUMBER);
    if (number) return this.endOfValue(Number(number[0].replace(/_/g, '')));
    const word = this.match(WORD);
    if (word) {
      const known: Record<string, unknown> = { true: true, false: false, null: null, undefined };
      return this.endOfValue(known[word[1]!]);
    }
    return this.skipExpression();
  }

  /**
   * A value read is literal only if the expression ends there (`"a" + b` is not): at a `,`, `;` or
   * closing bracket, or at a line that starts a statement of its own (no `;` written).
   */
  private endOfValue(value: Value): Value {
    const before = this.at;
    this.space();
    const next = this.s[this.at];
    if (value === NOT_LITERAL || next === undefined || ',;)}]'.includes(next)) return value;
    if (this.s.slice(before, this.at).includes('\n') && /[A-Za-z_$]/.test(next)) return value;
    return this.skipExpression();
  }

  private object(keyPath: string): Value {
    this.at++;
    // No prototype: a key `__proto__` is a key like any other.
    const result = Object.create(null) as Record<string, unknown>;
    for (;;) {
      this.space();
      const c = this.s[this.at];
      if (c === undefined) return NOT_LITERAL;
      if (c === '}') {
        this.at++;
        return this.endOfValue(result);
      }
      if (this.s.startsWith('...', this.at)) {
        this.at += 3;
        this.skipExpression();
        this.skipped.push(`${keyPath}...`);
      } else {
        let key = this.key();
        this.space();
        // `get tags() {}`, `async tags() {}`: named by the word after.
        if ((key === 'get' || key === 'set' || key === 'async') && /^[\w$"']/.test(this.s[this.at] ?? '')) {
          key = this.key();
          this.space();
        }
        const full = keyPath === '' ? (key ?? '[…]') : `${keyPath}.${key ?? '[…]'}`;
        if (key !== undefined && this.s[this.at] === ':') {
          this.at++;
          const value = this.value(full);
          if (value === NOT_LITERAL) this.skipped.push(full);
          else result[key] = value;
        } else {
          // A method (`tags() {}`), a getter, a shorthand (`{ tags }`), a computed key: not data.
          this.skipExpression();
          this.skipped.push(full);
        }
      }
      this.space();
      if (this.s[this.at] === ',') this.at++;
      else if (this.s[this.at] !== '}') return NOT_LITERAL;
    }
  }

  /** A property's name: an identifier, a string or a number; undefined for a computed one. */
  private key(): string | undefined {
    const c = this.s[this.at];
    if (c === '"' || c === "'") {
      const key = this.string(c);
      return typeof key === 'string' ? key : undefined;
    }
    return this.match(KEY)?.[0];
  }

  private array(keyPath: string): Value {
    this.at++;
    const result: unknown[] = [];
    let literal = true;
    for (;;) {
      this.space();
      const c = this.s[this.at];
      if (c === undefined) return NOT_LITERAL;
      if (c === ']') {
        this.at++;
        return literal ? this.endOfValue(result) : this.endOfValue(NOT_LITERAL);
      }
      if (c === ',') {
        this.at++;
        continue;
      }
      const value = this.value(keyPath);
      if (value === NOT_LITERAL) literal = false;
      else result.push(value);
      this.space();
      if (this.s[this.at] === ',') this.at++;
      else if (this.s[this.at] !== ']') return NOT_LITERAL;
    }
  }

  /**
   * A quoted string or a template, its escapes read; NOT_LITERAL (skipped) for a template with
   * `${…}` in it, or a string left open.
   */
  private string(quote: string): Value {
    let out = '';
    for (let i = this.at + 1; i < this.s.length; i++) {
      const c = this.s[i]!;
      if (c === quote) {
        this.at = i + 1;
        return out;
      }
      if (quote === '`' && c === '$' && this.s[i + 1] === '{') {
        this.skipTemplate();
        return NOT_LITERAL;
      }
      if (c === '\n' && quote !== '`') break;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.s[++i];
      const hex = (length: number) => {
        const code = this.s.slice(i + 1, i + 1 + length);
        if (!/^[\da-fA-F]+$/.test(code) || code.length !== length) return undefined;
        i += length;
        return String.fromCodePoint(parseInt(code, 16));
      };
      if (e === undefined) break;
      else if (e === 'n') out += '\n';
      else if (e === 't') out += '\t';
      else if (e === 'r') out += '\r';
      else if (e === 'b') out += '\b';
      else if (e === 'f') out += '\f';
      else if (e === 'v') out += '\v';
      else if (e === '0' && !/\d/.test(this.s[i + 1] ?? '')) out += '\0';
      else if (e === 'x') out += hex(2) ?? 'x';
      else if (e === 'u' && this.s[i + 1] === '{') {
        const end = this.s.indexOf('}', i);
        const code = parseInt(this.s.slice(i + 2, end), 16);
        if (end === -1 || !(code <= 0x10ffff)) break;
        out += String.fromCodePoint(code);
        i = end;
      } else if (e === 'u') out += hex(4) ?? 'u';
      else if (e === '\r' && this.s[i + 1] === '\n') i++;
      else if (e !== '\n' && e !== '\r') out += e;
    }
    this.at = this.s.length;
    return NOT_LITERAL;
  }

  /** Skips an expression up to the `,`, `;` or closing bracket that ends it, at its own depth. */
  private skipExpression(): typeof NOT_LITERAL {
    let depth = 0;
    while (this.at < this.s.length) {
      this.space();
      const c = this.s[this.at];
      if (c === undefined) break;
      if (depth === 0 && ',;)}]'.includes(c)) break;
      this.skipToken();
      if (c === '(' || c === '{' || c === '[') depth++;
      else if (c === ')' || c === '}' || c === ']') depth--;
    }
    return NOT_LITERAL;
  }

  /** Skips past the `close` that ends the bracket just entered. */
  private skipTo(close: string): void {
    let depth = 0;
    while (this.at < this.s.length) {
      this.space();
      const c = this.s[this.at];
      if (c === undefined) return;
      this.skipToken();
      if (c === '(' || c === '{' || c === '[') depth++;
      else if (c === ')' || c === '}' || c === ']') {
        if (depth === 0 && c === close) return;
        depth--;
      }
    }
  }

  /** Skips one token: a string or template whole, else one character. */
  private skipToken(): void {
    const c = this.s[this.at];
    if (c === '"' || c === "'") this.string(c);
    else if (c === '`') this.skipTemplate();
    else this.at++;
  }

  private skipTemplate(): void {
    for (this.at++; this.at < this.s.length; this.at++) {
      const c = this.s[this.at];
      if (c === '\\') this.at++;
      else if (c === '`') {
        this.at++;
        return;
      } else if (c === '$' && this.s[this.at + 1] === '{') {
        this.at += 2;
        this.skipTo('}');
        this.at--;
      }
    }
  }

  /** Skips white space and comments. */
  private space(): void {
    for (;;) {
      const c = this.s[this.at];
      if (c !== undefined && /\s/.test(c)) this.at++;
      else if (c === '/' && this.s[this.at + 1] === '/') {
        const end = this.s.indexOf('\n', this.at);
        this.at = end === -1 ? this.s.length : end;
      } else if (c === '/' && this.s[this.at + 1] === '*') {
        const end = this.s.indexOf('*/', this.at + 2);
        this.at = end === -1 ? this.s.length : end + 2;
      } else return;
    }
  }

  /** The match of a sticky pattern at `at`, which it then moves past; else undefined. */
  private match(pattern: RegExp): RegExpExecArray | undefined {
    pattern.lastIndex = this.at;
    const found = pattern.exec(this.s) ?? undefined;
    if (found) this.at += found[0].length;
    return found;
  }

  /**
   * The position just after the first match of `pattern` at the top level (not in a string,
   * comment or bracket) from `from`, or undefined; with `end`, the search stops at that bracket.
   */
  private findTopLevel(from: number, pattern: RegExp, end?: string): number | undefined {
    this.at = from;
    let depth = 0;
    while (this.at < this.s.length) {
      this.space();
      if (this.at >= this.s.length) break;
      if (depth === 0) {
        const found = pattern.exec(this.s.slice(this.at, this.at + 200));
        const before = this.s[this.at - 1];
        if (found && (before === undefined || !/[\w$.]/.test(before))) return this.at + found[0].length;
      }
      const c = this.s[this.at]!;
      if (depth === 0 && c === end) return undefined;
      this.skipToken();
      if (c === '(' || c === '{' || c === '[') depth++;
      else if (c === ')' || c === '}' || c === ']') depth--;
    }
    return undefined;
  }
}
