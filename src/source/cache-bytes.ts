import { readRegularSync } from './open-regular.js';
import {
  CACHE_HEADER,
  cacheFormatOf,
  cacheLinesOf,
  HEAD_LENGTH,
  stampIsLine,
  type CacheLines,
} from './hash-cache.js';
import type { Stamp } from './stamp-table.js';

/**
 * The hash cache as the stat worker reads it (see stat-worker.ts): its bytes, never decoded whole,
 * and no string or map entry made per line. The worker asks for the lines of the names content/
 * listed, sorted: one pass over the bytes takes each line to its name by walking the names
 * alongside (the file is written sorted, and what is appended since is found by a binary search),
 * and keeps where each name's line starts. A line's stamp is read from the bytes when it is
 * compared, and a line is made a string only when it is sent (a document that changed, a file
 * asked for). What this finds is what `loadCacheLines` finds: the last line of a name stands, a
 * removal forgets it, a line that is not one of ours is passed over and counted stale.
 */
export class CacheBytes {
  private constructor(
    readonly format: CacheLines['format'],
    private readonly bytes: Buffer,
  ) {}

  /** Reads the cache; an absent, damaged or foreign file is an empty cache (format 'none'). */
  static read(file: string): CacheBytes {
    let bytes: Buffer;
    try {
      // A regular file, never through a link (a committed one could lead to /dev/zero).
      bytes = readRegularSync(file).bytes ?? Buffer.alloc(0);
    } catch {
      bytes = Buffer.alloc(0);
    }
    return new CacheBytes(cacheFormatOf(bytes.toString('latin1', 0, HEAD_LENGTH)), bytes);
  }

  /**
   * The name of each line, in the file's order (a removal's too), for the stat worker to stat
   * before it is asked (stat-ahead.ts). A name may come again.
   */
  *names(): Generator<string> {
    if (this.format !== 'lines') return;
    const line = new LineAt(this.bytes);
    for (let at = CACHE_HEADER.length + 1; at < this.bytes.length; at = line.next + 1)
      if (line.read(at) && line.name() !== undefined) yield line.name()!;
  }

  /** The lines of `names` (project-relative, as listed) and of any other file. */
  lookup(names: readonly string[]): CacheLookup {
    if (this.format !== 'lines' || !inOrder(names)) return new MapLookup(cacheLinesOf(this.bytes), names);
    return new BytesLookup(this.bytes, names);
  }
}

/** Whether the document `i` of the names looked up, and any other file, have a line. */
export interface CacheLookup {
  /** Whether `stamp` is of a plain file and is the stamp of the line of names[i]. */
  same(i: number, stamp: Stamp): boolean;
  /** The line of names[i], or null for none. */
  lineOf(i: number): string | null;
  /** The line of the file `name`, or null for none. */
  lineNamed(name: string): string | null;
  /** Files the cache holds, and its stale lines (see loadCacheLines). */
  readonly size: number;
  readonly stale: number;
  readonly format: CacheLines['format'];
}

/** The lines read into a map, as the main thread reads them: for an earlier version's file, or names not in order. */
class MapLookup implements CacheLookup {
  readonly size: number;
  readonly stale: number;
  readonly format: CacheLines['format'];
  constructor(
    private readonly cache: CacheLines,
    private readonly names: readonly string[],
  ) {
    ({ stale: this.stale, format: this.format } = cache);
    this.size = cache.entries.size;
  }
  same(i: number, stamp: Stamp): boolean {
    return stampIsLine(this.cache.entries.get(this.names[i]!), stamp);
  }
  lineOf(i: number): string | null {
    return this.lineNamed(this.names[i]!);
  }
  lineNamed(name: string): string | null {
    return this.cache.entries.get(name) ?? null;
  }
}

class BytesLookup implements CacheLookup {
  /** Where the line of names[i] starts in the file, -1 for none. */
  readonly #starts: Float64Array;
  /** Other files (images, files no longer listed) -> where their line starts. */
  readonly #others = new Map<string, number>();
  readonly #line: LineAt;
  readonly size: number;
  readonly stale: number;
  readonly format = 'lines' as const;

  constructor(
    private readonly bytes: Buffer,
    private readonly names: readonly string[],
  ) {
    const count = names.length;
    const starts = new Float64Array(count).fill(-1);
    const line = new LineAt(bytes);
    let stale = 0;
    let held = 0;
    /** names[0..walked) sort before the last name found in order. */
    let walked = 0;
    for (let at = CACHE_HEADER.length + 1; at < bytes.length; at = line.next + 1) {
      if (!line.read(at)) {
        if (line.next > at) stale += 1;
        continue;
      }
      // The name's place among the names: walked forward to from where the last one was found
      // (a file written sorted), else searched for before it (a line appended since).
      let i = -1;
      const before = walked > 0 ? line.compare(names[walked - 1]!) : 1;
      if (before === 0) i = walked - 1;
      else if (before > 0) {
        let order = -1;
        while (walked < count && (order = line.compare(names[walked]!)) > 0) walked++;
        if (walked < count && order === 0) i = walked++;
      } else i = search(line, names, walked - 1);
      let had: boolean;
      if (i >= 0) {
        had = starts[i]! >= 0;
        starts[i] = line.removal ? -1 : at;
      } else {
        const name = line.name()!;
        had = this.#others.has(name);
        if (line.removal) this.#others.delete(name);
        else this.#others.set(name, at);
      }
      if (had) stale += 1;
      if (line.removal) stale += 1;
      held += (line.removal ? 0 : 1) - (had ? 1 : 0);
    }
    this.#starts = starts;
    this.#line = line;
    this.size = held;
    this.stale = stale;
  }

  same(i: number, stamp: Stamp): boolean {
    const at = this.#starts[i]!;
    if (at < 0 || !stamp.isFile()) return false;
    // From the line's start to its sha256's opening quote: the stamp, compared as the cache does.
    const quote = this.bytes.indexOf(QUOTE, at);
    return quote >= 0 && stampIsLine(this.bytes.toString('latin1', at, quote + 1), stamp);
  }

  lineOf(i: number): string | null {
    return this.#lineAt(this.#starts[i]!);
  }

  lineNamed(name: string): string | null {
    const i = binarySearch(this.names, name);
    return i >= 0 ? this.lineOf(i) : this.#lineAt(this.#others.get(name) ?? -1);
  }

  #lineAt(at: number): string | null {
    if (at < 0) return null;
    this.#line.read(at);
    return this.bytes.toString('utf8', at, this.#line.next);
  }
}

const NL = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * One line of the file, read in place as hash-cache.ts's parseLine reads it: `[`, the stamp, the
 * sha256 (empty for a removal) and the name as JSON strings, `]`.
 */
class LineAt {
  /** Where the line read ends (its newline, or the end of the file). */
  next = 0;
  removal = false;
  #nameStart = 0;
  #nameEnd = 0;
  #decoded: string | undefined;

  constructor(private readonly bytes: Buffer) {}

  /** Reads the line starting at `at`: false for one that is not ours (or empty). */
  read(at: number): boolean {
    const { bytes } = this;
    let end = bytes.indexOf(NL, at);
    if (end < 0) end = bytes.length;
    this.next = end;
    this.#decoded = undefined;
    if (end - at < 4 || bytes[at] !== 0x5b || bytes[end - 2] !== QUOTE || bytes[end - 1] !== 0x5d)
      return false;
    const shaStart = bytes.indexOf(QUOTE, at);
    const shaEnd = shaStart < 0 || shaStart >= end ? -1 : bytes.indexOf(QUOTE, shaStart + 1);
    if (shaEnd < 0 || shaEnd + 3 > end || bytes[shaEnd + 1] !== 0x2c || bytes[shaEnd + 2] !== QUOTE)
      return false;
    this.removal = shaEnd === shaStart + 1;
    this.#nameStart = Math.min(shaEnd + 3, end - 2);
    this.#nameEnd = end - 2;
    // A name with an escape is decoded now: one that is not JSON text makes the line not ours.
    for (let j = this.#nameStart; j < this.#nameEnd; j++)
      if (bytes[j] === BACKSLASH) return this.name() !== undefined;
    return true;
  }

  /** The name of the line read (undefined only while `read` decides the line is not ours). */
  name(): string | undefined {
    if (this.#decoded !== undefined) return this.#decoded;
    const raw = this.bytes.toString('utf8', this.#nameStart, this.#nameEnd);
    if (!raw.includes('\\')) return (this.#decoded = raw);
    try {
      return (this.#decoded = JSON.parse(`"${raw}"`) as string);
    } catch {
      return undefined;
    }
  }

  /**
   * How the line's name sorts against `name` (code units, as the listing sorts): negative before
   * it, 0 the same, positive after. Compared byte by byte while both are ASCII (an escaped name is
   * decoded when read), else decoded.
   */
  compare(name: string): number {
    if (this.#decoded === undefined) {
      const { bytes } = this;
      const length = this.#nameEnd - this.#nameStart;
      for (let j = 0; ; j++) {
        if (j === length) return j === name.length ? 0 : -1;
        if (j === name.length) return 1;
        const b = bytes[this.#nameStart + j]!;
        const c = name.charCodeAt(j);
        if (b >= 0x80 || c >= 0x80) break;
        if (b !== c) return b - c;
      }
    }
    const own = this.name()!;
    return own < name ? -1 : own > name ? 1 : 0;
  }
}

/** The index of the line's name among names[0..to), or -1. */
function search(line: LineAt, names: readonly string[], to: number): number {
  let low = 0;
  let high = to;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const order = line.compare(names[mid]!);
    if (order === 0) return mid;
    if (order > 0) low = mid + 1;
    else high = mid;
  }
  return -1;
}

function binarySearch(names: readonly string[], name: string): number {
  let low = 0;
  let high = names.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const other = names[mid]!;
    if (other === name) return mid;
    if (other < name) low = mid + 1;
    else high = mid;
  }
  return -1;
}

/** Whether the names are in code-unit order, each once. */
function inOrder(names: readonly string[]): boolean {
  for (let i = 1; i < names.length; i++) if (!(names[i - 1]! < names[i]!)) return false;
  return true;
}
