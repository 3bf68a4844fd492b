import { evenPieces } from '../text-pieces.js';

/**
 * A column of the listing cache (slugs or change markers) held as one text, a line per row, each
 * row's value made when it is read. Every run reads the cache, and most read a few of its rows
 * (the records that changed, those the plan looks at); as an array, 100,000 rows would be 100,000
 * strings made at every load, which live for the whole run and which the collector copies as they
 * age. A row is its string as it is, or `=` and the value as JSON when it is not a string, holds a
 * line break, or starts with `=`. Rows set or added since the load are kept beside the text, which
 * is written back as it was with those rows in their place.
 */
export class PackedColumn<T extends string | number | null> {
  /** Where each line of the text starts, and one past the end (made when a row is first read). */
  #starts: Int32Array | undefined;
  readonly #changed: Map<number, T>;
  readonly #added: T[];

  private constructor(
    /** The rows as loaded, one per line ('' for none). */
    private readonly text: string,
    /** How many rows the text holds. */
    private readonly count: number,
    changed: Map<number, T>,
    added: T[],
    starts?: Int32Array,
  ) {
    this.#changed = changed;
    this.#added = added;
    this.#starts = starts;
  }

  /** A column of `values`. */
  static of<T extends string | number | null>(values: readonly T[] = []): PackedColumn<T> {
    return new PackedColumn<T>('', 0, new Map(), [...values]);
  }

  /**
   * The column a text written by `toJSON` holds, or undefined when it is not `count` rows each of
   * which `valid` takes.
   */
  static read<T extends string | number | null>(
    text: unknown,
    count: number,
    valid: (value: unknown) => value is T,
  ): PackedColumn<T> | undefined {
    if (typeof text !== 'string') return undefined;
    if (count === 0) return text === '' ? PackedColumn.of<T>() : undefined;
    const starts = startsOf(text, count);
    // Fewer lines than rows leave the last start past the end; more leave a line break after it.
    if (starts[count - 1]! > text.length || text.indexOf('\n', starts[count - 1]) >= 0) return undefined;
    const column = new PackedColumn<T>(text, count, new Map(), [], starts);
    // Only a row written as JSON can be other than a string.
    for (let i = 0; i < count; i++) {
      if (text.charCodeAt(starts[i]!) !== EQUALS) continue;
      try {
        if (!valid(column.at(i))) return undefined;
      } catch {
        return undefined;
      }
    }
    return column;
  }

  get length(): number {
    return this.count + this.#added.length;
  }

  at(i: number): T {
    if (i >= this.count) return this.#added[i - this.count]!;
    if (this.#changed.has(i)) return this.#changed.get(i)!;
    return decode(this.#line(i)) as T;
  }

  /** Sets row i, or adds a row at the end when i is the length. */
  set(i: number, value: T): void {
    if (i >= this.count) this.#added[i - this.count] = value;
    else this.#changed.set(i, value);
  }

  /** A copy to change: the loaded text is shared, never changed. */
  copy(): PackedColumn<T> {
    return new PackedColumn<T>(this.text, this.count, new Map(this.#changed), [...this.#added], this.#starts);
  }

  /** The rows whose index `keep` takes, as a new column: loaded lines are copied as text. */
  keep(keep: (i: number) => boolean): PackedColumn<T> {
    const lines: string[] = [];
    for (let i = 0; i < this.length; i++) if (keep(i)) lines.push(this.#row(i));
    return new PackedColumn<T>(lines.join('\n'), lines.length, new Map(), []);
  }

  /** Every row, made at once. */
  values(): T[] {
    const values = this.count === 0 ? [] : (this.text.split('\n').map(decode) as T[]);
    for (const [i, value] of this.#changed) values[i] = value;
    return [...values, ...this.#added];
  }

  /** The text of every row (see the class): the loaded text with the rows set or added since. */
  toJSON(): string {
    return [...this.textPieces()].join('');
  }

  /**
   * toJSON's text in pieces of at most about PIECE_CHARS, never cut inside a surrogate pair: the
   * column of a large archive is megabytes, written to the cache a piece at a time.
   */
  textPieces(): Generator<string> {
    return evenPieces(this.#segments(), PIECE_CHARS);
  }

  /** toJSON's text as it is made: stretches of the loaded text, and the lines set or added since. */
  *#segments(): Generator<string> {
    let from = 0;
    if (this.#changed.size > 0) {
      const starts = (this.#starts ??= startsOf(this.text, this.count));
      for (const i of [...this.#changed.keys()].sort((a, b) => a - b)) {
        yield this.text.slice(from, starts[i]);
        yield encode(this.#changed.get(i)!);
        // The line break after row i (or the end).
        from = starts[i + 1]! - 1;
      }
    }
    yield from === 0 ? this.text : this.text.slice(from);
    for (const [i, value] of this.#added.entries())
      yield (i === 0 && this.count === 0 ? '' : '\n') + encode(value);
  }

  /** Row i as a line. */
  #row(i: number): string {
    return i < this.count && !this.#changed.has(i) ? this.#line(i) : encode(this.at(i));
  }

  /** The loaded line of row i. */
  #line(i: number): string {
    const starts = (this.#starts ??= startsOf(this.text, this.count));
    return this.text.slice(starts[i]!, starts[i + 1]! - 1);
  }
}

const EQUALS = 0x3d;

/** Characters of a column's text given out at a time (see textPieces). */
const PIECE_CHARS = 16 * 1024;

function encode(value: string | number | null): string {
  return typeof value === 'string' && !value.includes('\n') && !value.startsWith('=')
    ? value
    : `=${JSON.stringify(value)}`;
}

function decode(line: string): unknown {
  return line.charCodeAt(0) === EQUALS ? JSON.parse(line.slice(1)) : line;
}

/** Where each of `count` lines starts, and one past the end of the last (past the text when there are fewer). */
function startsOf(text: string, count: number): Int32Array {
  const starts = new Int32Array(count + 1);
  let at = 0;
  for (let i = 0; i < count; i++) {
    starts[i] = at;
    const end = text.indexOf('\n', at);
    at = end < 0 ? text.length + 1 : end + 1;
  }
  starts[count] = Math.max(at, text.length + 1);
  return starts;
}
