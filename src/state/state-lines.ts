import { isAscii } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { MediaEntry, PlainState, State, StateRecord } from './state-types.js';
import { byCodeUnit } from '../compare.js';
import { SyncError } from '../errors.js';
import { stableJson } from '../stable-json.js';

/**
 * The committed state as lines (see docs/state.md): one JSON value per line, so that git diffs
 * a changed record as one changed line, and a reader can find each entry's line without parsing
 * it. An entry line is `["record", key, fields, digests]` or `["media", identity, entry]`; in
 * the log, `["record", key, null]` removes a record. The record's digests (`source`, `remote`)
 * come last and apart: most runs never read them, and they are most of a line.
 */
export type Kind = 'record' | 'media';

/**
 * A file the state was read from: its name (for messages), and its bytes, which its entries point
 * into. The log is small and kept in memory (`bytes`); the base is read through `fd` when an entry
 * needs its line, so that a state in memory is its index, not its text. The descriptor stays open
 * while an entry may need it (a compaction renames a new base over the file: this one still reads
 * the old), and is closed when the source is collected.
 */
export interface LineSource {
  file: string;
  bytes?: Buffer;
  fd?: number;
  /** The last bytes read through fd, and the file offset of their first byte. */
  window?: { at: number; bytes: Buffer; length: number };
  /** Lines of this run not yet saved (see keepWritten): an entry read from one is a change to save. */
  unsaved?: boolean;
  /** Bytes read through fd at least at a time, if not WINDOW_BYTES. */
  windowBytes?: number;
}

const closeOnCollect = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Nothing reads through it any more; a descriptor already gone is no loss.
  }
});

/** A source read through `fd` (which it then owns). */
export function fileSource(file: string, fd: number): LineSource {
  const source: LineSource = { file, fd };
  closeOnCollect.register(source, fd);
  return source;
}

/** Bytes read through a file descriptor at least this many at a time: a block's lines, and the blocks after it. */
const WINDOW_BYTES = 256 * 1024;
/** The same for the lines of records written by this run (see keepWritten). */
const UNSAVED_WINDOW_BYTES = 8 * 1024;

/** The bytes of `source` from `from` to `to`, as a view whose first byte is the file's byte `from`. */
function bytesAt(source: LineSource, from: number, to: number): Buffer {
  if (source.bytes) return source.bytes.subarray(from, to);
  let window = source.window;
  if (!window || from < window.at || to > window.at + window.length) {
    const size = Math.max(source.windowBytes ?? WINDOW_BYTES, to - from);
    const bytes = window && window.bytes.length >= size ? window.bytes : Buffer.allocUnsafeSlow(size);
    const length = readSync(source.fd!, bytes, 0, size, from);
    window = source.window = { at: from, bytes, length };
    if (length < to - from) throw changedUnder(source);
  }
  return window.bytes.subarray(from - window.at, to - window.at);
}

function changedUnder(source: LineSource): SyncError {
  return new SyncError(
    'CMS_SYNC_STATE',
    `${source.file} changed while this run was using it. Run again; if it was replaced by hand, make sure ` +
      'no cms-sync run is using the state first.',
  );
}

/**
 * Lines per block. A block's fields are parsed in one JSON.parse the first time one of its
 * entries is read: large enough that a run reading every entry pays about one parse of the
 * fields' bytes, small enough that a run reading one entry parses little more than its line.
 */
const BLOCK_LINES = 128;

/** Entry lines of one file, one after another, whose fields are parsed together. */
class Block {
  readonly entries: StoredEntry[] = [];
  parsed = false;
  constructor(
    readonly tables: StateTables,
    readonly source: LineSource,
    readonly kind: Kind,
  ) {}
}

/**
 * What a state knows of its files: the blocks its entries were read from, and what the saves of
 * this process wrote since, so that the next save appends only what differs (see changedLines).
 */
export interface StateTables {
  /** The last block of each kind, filled until it holds BLOCK_LINES entries. */
  open: { record?: Block; media?: Block };
  /** Keys of the base file's media entries, in file order (the records' are the RecordTable's). */
  baseMedia: string[];
  /** The log's committed media changes, in order: a key set (true) or removed (false). */
  logMedia: Array<[string, boolean]>;
  /** Per record key the log changed, whether its last committed change set it (true) or removed it. */
  logRecords: Map<string, boolean>;
  /** Per kind, what the saves of this process wrote for a key: the value on file now, or null (removed). */
  written: { record: Map<string, unknown>; media: Map<string, unknown> };
  /** The media keys on file: made from baseMedia and logMedia by the first save, then kept. */
  mediaOnFile?: Set<string>;
  /**
   * How many compactions of this process wrote every record (0: none). Since the last, the records
   * on file are those in `written` and, for a key not there, the entry it held then (see compacted).
   */
  compactions?: number;
  /** Where keepWritten puts the lines of records written by this process; null if it could not be made. */
  unsaved?: { source: LineSource; end: number } | null;
}

const tablesOf = new WeakMap<State, StateTables>();

/** Work done so far, by what it parsed: for tests that show a run parses only what it reads. */
export const parseCounts = { blocks: 0, fields: 0, digests: 0, recordLines: 0 };

export function tablesOfState(state: State): StateTables | undefined {
  return tablesOf.get(state);
}

export function emptyTables(): StateTables {
  return {
    open: {},
    baseMedia: [],
    logMedia: [],
    logRecords: new Map(),
    written: { record: new Map(), media: new Map() },
  };
}

/** A State over `tables`: its `records` a RecordTable, its `media` a plain object, filled by putEntry. */
export function stateWithTables(head: Omit<State, 'records' | 'media'>, tables: StateTables): State {
  const state: State = { ...head, records: new RecordTable(tables), media: {} };
  tablesOf.set(state, tables);
  return state;
}

interface Digests {
  remote?: Record<string, string>;
  source?: Record<string, string>;
}

/** A record's fields, in the order the accessors are defined (and stableJson writes them). */
const RECORD_FIELDS = ['file', 'id', 'input', 'marker', 'owner', 'remote', 'source'] as const;
const MEDIA_FIELDS = ['alt', 'id', 'source', 'textFrom', 'title'] as const;
// A field added to StateRecord or MediaEntry must be added above, or an entry read from a line
// would not show it: this fails to compile until it is.
type Unlisted =
  | Exclude<keyof StateRecord, (typeof RECORD_FIELDS)[number]>
  | Exclude<keyof MediaEntry, (typeof MEDIA_FIELDS)[number]>;
const everyFieldListed: [Unlisted] extends [never] ? true : never = true;
void everyFieldListed;

/** Bits of StoredEntry's flags; the compaction that wrote it is above them. */
const CHANGED = 1;
const DIRTY = 2;
const COMPACTION_SHIFT = 2;

let RECORD_ACCESSORS: Array<[string, PropertyDescriptor]>;
let MEDIA_ACCESSORS: Array<[string, PropertyDescriptor]>;

/** What this module reads and sets inside an entry (its fields are private to it). */
let internals: {
  key(entry: StoredEntry): string;
  block(entry: StoredEntry): Block;
  /** Whether the entry is as its line says: not assigned to since it was read. */
  asRead(entry: StoredEntry): boolean;
  /** Whether the entry was assigned to since the last save. */
  dirty(entry: StoredEntry): boolean;
  saved(entry: StoredEntry): void;
  /** The compaction of this process that wrote the entry as it is, or 0 (see compacted). */
  compactedIn(entry: StoredEntry): number;
  /** Written as it is by compaction `compaction`: saved, and no longer dirty. */
  onFileSince(entry: StoredEntry, compaction: number): void;
  rawLine(entry: StoredEntry): string;
  parseBlock(block: Block): void;
};

/**
 * An entry as read from a line: a plain object to the code that reads it (its fields are own,
 * enumerable properties, so spreads, `for…in`, `in` and JSON.stringify see them), whose values
 * come from the line the first time one of them is read. The fields are accessors shared by
 * all entries of a kind (one shape, no closure per entry); the line's fields are parsed with
 * those of its block, a record's digests apart and only when read. A field the line does not
 * have reads as undefined.
 */
class StoredEntry {
  #block: Block;
  #key: string;
  #start: number;
  #afterKey: number;
  #end: number;
  /** Where the record's digests start in the line, once its block is parsed (-1: none apart). */
  #digestsAt = -1;
  #fields: Record<string, unknown> | undefined = undefined;
  #digests: Digests | undefined = undefined;
  /**
   * CHANGED (assigned to since it was read: its line no longer says what it holds), DIRTY
   * (assigned to since the last save), and above them the compaction of this process that wrote
   * it as it is (see compacted): one number, as an entry is held per record.
   */
  #flags = 0;

  constructor(block: Block, key: string, start: number, afterKey: number, end: number) {
    this.#block = block;
    this.#key = key;
    this.#start = start;
    this.#afterKey = afterKey;
    this.#end = end;
    const descriptors = block.kind === 'record' ? RECORD_ACCESSORS : MEDIA_ACCESSORS;
    for (let i = 0; i < descriptors.length; i++)
      Object.defineProperty(this, descriptors[i]![0], descriptors[i]![1]);
  }

  #fieldsNow(): Record<string, unknown> {
    if (!this.#fields) internals.parseBlock(this.#block);
    return this.#fields!;
  }

  #digestsNow(): Digests {
    if (this.#digests) return this.#digests;
    this.#fieldsNow();
    if (!this.#digests) {
      parseCounts.digests++;
      const digests = parseJson(
        this.#block.source,
        this.#start,
        this.#digestsAt,
        this.#end - 1,
      ) as Digests | null;
      this.#digests = { remote: digests?.remote ?? {}, source: digests?.source ?? {} };
    }
    return this.#digests;
  }

  #assigned(): void {
    this.#flags |= CHANGED | DIRTY;
  }

  static {
    const field = (name: string): PropertyDescriptor => ({
      enumerable: true,
      configurable: true,
      get(this: StoredEntry) {
        return this.#fieldsNow()[name];
      },
      set(this: StoredEntry, value: unknown) {
        this.#fieldsNow()[name] = value;
        this.#assigned();
      },
    });
    const digest = (name: 'remote' | 'source'): PropertyDescriptor => ({
      enumerable: true,
      configurable: true,
      get(this: StoredEntry) {
        return this.#digestsNow()[name];
      },
      set(this: StoredEntry, value: Record<string, string>) {
        this.#digestsNow()[name] = value;
        this.#assigned();
      },
    });
    RECORD_ACCESSORS = RECORD_FIELDS.map((name): [string, PropertyDescriptor] => [
      name,
      name === 'remote' || name === 'source' ? digest(name) : field(name),
    ]);
    MEDIA_ACCESSORS = MEDIA_FIELDS.map((name): [string, PropertyDescriptor] => [name, field(name)]);

    internals = {
      key: (entry) => entry.#key,
      block: (entry) => entry.#block,
      asRead: (entry) => (entry.#flags & CHANGED) === 0,
      dirty: (entry) => (entry.#flags & DIRTY) !== 0,
      saved: (entry) => {
        entry.#flags &= ~DIRTY;
      },
      compactedIn: (entry) => entry.#flags >>> COMPACTION_SHIFT,
      onFileSince: (entry, compaction) => {
        entry.#flags = (entry.#flags & CHANGED) | (compaction << COMPACTION_SHIFT);
      },
      rawLine: (entry) => bytesAt(entry.#block.source, entry.#start, entry.#end).toString('utf8'),
      parseBlock(block) {
        parseCounts.blocks++;
        const { entries, source } = block;
        const from = entries[0]!.#start;
        const bytes = bytesAt(source, from, entries[entries.length - 1]!.#end);
        // The fields of every line, copied side by side into one JSON array: one decode, one parse.
        const text = scratch(bytes.length + 2);
        let length = 0;
        text[length++] = OPEN_BRACKET;
        for (const entry of entries) {
          const start = entry.#start - from;
          const end = entry.#end - from;
          // The base was read through a descriptor: a line that is no longer there means the file was replaced.
          if (bytes[start] !== OPEN_BRACKET) throw changedUnder(source);
          let fieldsEnd = end - 1;
          if (block.kind === 'record') {
            const mark = bytes.lastIndexOf(DIGESTS_MARK, end);
            if (mark > entry.#afterKey - from && bytes[end - 1] === CLOSE_BRACKET) {
              entry.#digestsAt = from + mark + 1;
              fieldsEnd = mark;
            }
          }
          if (length > 1) text[length++] = COMMA;
          length += bytes.copy(text, length, entry.#afterKey - from + 1, fieldsEnd);
        }
        text[length++] = CLOSE_BRACKET;
        let values: unknown[] | undefined;
        try {
          // ASCII (as state nearly always is) is copied as it is; anything else decoded as UTF-8.
          const json = isAscii(text.subarray(0, length))
            ? decoders(text).latin1Slice(0, length)
            : decoders(text).utf8Slice(0, length);
          values = JSON.parse(json) as unknown[];
        } catch {
          // Some line is not as this version writes it: each is read on its own below.
        }
        for (let i = 0; i < entries.length; i++) {
          const entry = entries[i]!;
          let fields = values?.[i];
          if (!isFields(fields)) {
            // The whole rest of the line: a record line without digests apart, or a broken one.
            entry.#digestsAt = -1;
            const rest = parseJson(source, entry.#start, entry.#afterKey + 1, entry.#end, '[') as unknown[];
            fields = rest[0];
            if (!isFields(fields))
              throw brokenLine(source, entry.#start, 'this state entry is not an object');
            if (block.kind === 'record') {
              const digests = rest[1] as Digests | undefined;
              entry.#digests = { remote: digests?.remote ?? {}, source: digests?.source ?? {} };
            }
          }
          // Digests inside the fields (a line written by hand) are taken, not shadowed by the accessors.
          if (block.kind === 'record' && ('remote' in fields || 'source' in fields)) {
            const inline = fields as Digests;
            entry.#digests ??= { remote: inline.remote ?? {}, source: inline.source ?? {} };
            delete inline.remote;
            delete inline.source;
          }
          entry.#fields = fields;
        }
        parseCounts.fields += entries.length;
        block.parsed = true;
      },
    };
  }
}

let scratchBytes = Buffer.allocUnsafeSlow(64 * 1024);

/** A buffer of at least `size` bytes, reused from one block to the next (its contents are the caller's until then). */
function scratch(size: number): Buffer {
  if (scratchBytes.length < size)
    scratchBytes = Buffer.allocUnsafeSlow(Math.max(size, scratchBytes.length * 2));
  return scratchBytes;
}

function isFields(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const DIGESTS_MARK = Buffer.from(',{"remote":');
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;

function parseJson(source: LineSource, lineStart: number, from: number, to: number, prefix = ''): unknown {
  try {
    return JSON.parse(prefix + bytesAt(source, from, to).toString('utf8'));
  } catch (error) {
    throw brokenLine(
      source,
      lineStart,
      `this state line is not valid JSON (${(error as Error).message})`,
      error,
    );
  }
}

function brokenLine(source: LineSource, lineStart: number, what: string, cause?: unknown): SyncError {
  return new SyncError(
    'CMS_SYNC_STATE',
    `${source.file}:${lineNumberIn(source, lineStart)}: ${what}. Restore the file from git, or delete the ` +
      'state: the next run then adopts existing records by slug.',
    cause === undefined ? undefined : { cause },
  );
}

export function lineNumber(bytes: Buffer, offset: number): number {
  let line = 1;
  for (let at = bytes.indexOf(NEWLINE); at >= 0 && at < offset; at = bytes.indexOf(NEWLINE, at + 1)) line++;
  return line;
}

/** The line number of byte `offset` of a source (for a message), read through its descriptor if it has one. */
export function lineNumberIn(source: LineSource, offset: number): number {
  if (source.bytes) return lineNumber(source.bytes, offset);
  const chunk = Buffer.allocUnsafe(WINDOW_BYTES);
  let line = 1;
  for (let at = 0; at < offset;) {
    const length = readSync(source.fd!, chunk, 0, Math.min(chunk.length, offset - at), at);
    if (length === 0) break;
    for (let i = chunk.indexOf(NEWLINE); i >= 0 && i < length; i = chunk.indexOf(NEWLINE, i + 1)) line++;
    at += length;
  }
  return line;
}

/** An entry line found by scanLines: its kind, key, and where it lies in the file's bytes. */
export interface FoundLine {
  kind: Kind;
  key: string;
  start: number;
  /** The byte after the key's closing quote. */
  afterKey: number;
  /** The end of the line (before its newline). */
  end: number;
  /** Whether the line removes its key (the log's `["record", key, null]`). */
  removal: boolean;
}

/**
 * The entry lines of a source from offset `from` on, in file order, each read only as far as its
 * key. `found` is one object, reused for every line (a line costs no allocation but its key). A
 * line that is not an entry line is handed to `other` (the header, the log's commit lines). A
 * source read through a descriptor is read a chunk at a time into one buffer, kept for the next.
 * `onEntry` returning true stops the scan before the rest: scanLines then returns where that
 * line starts (else -1).
 */
export function scanLines(
  source: LineSource,
  from: number,
  onEntry: (found: FoundLine) => boolean | void,
  other: (line: string, lineStart: number, lineEnd: number) => void,
): number {
  const found: FoundLine = { kind: 'record', key: '', start: 0, afterKey: 0, end: 0, removal: false };
  const halt = { at: -1 };
  if (source.bytes) {
    scanChunk(source.bytes, from, source.bytes.length, 0, true, found, onEntry, other, halt);
    return halt.at;
  }
  let chunk = Buffer.allocUnsafeSlow(1 << 20);
  let at = from;
  let kept = 0;
  for (;;) {
    if (kept === chunk.length) {
      // A line longer than the chunk: a larger one.
      const larger = Buffer.allocUnsafeSlow(chunk.length * 2);
      chunk.copy(larger, 0, 0, kept);
      chunk = larger;
    }
    const read = readSync(source.fd!, chunk, kept, chunk.length - kept, at + kept);
    const length = kept + read;
    const done = scanChunk(chunk, 0, length, at, read === 0, found, onEntry, other, halt);
    if (read === 0 || halt.at >= 0) return halt.at;
    kept = length - done;
    chunk.copy(chunk, 0, done, length);
    at += done;
  }
}

/**
 * The first record line whose key is `key` or after it, among the lines of `source` from `from` to
 * `to`, which are in key order, by a binary search that reads a few short stretches of the file;
 * undefined when there is none (or the lines are not what a sorted base holds).
 */
export function searchLines(
  source: LineSource,
  from: number,
  to: number,
  key: string,
): FoundLine | undefined {
  const found: FoundLine = { kind: 'record', key: '', start: 0, afterKey: 0, end: 0, removal: false };
  // Lines that start in [lo, hi) are the only ones that can be the first at or after the key.
  let lo = from;
  let hi = to;
  while (hi - lo > SEARCH_SPAN) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const start = lineStartAfter(source, mid - 1, hi);
    if (start >= hi) {
      hi = mid;
      continue;
    }
    if (!recordLineAt(source, start, to, found)) return undefined;
    const order = byCodeUnit(found.key, key);
    if (order === 0) return found;
    if (order < 0) lo = found.end + 1;
    else hi = start;
  }
  // The first line at or after the key starts in [lo, hi), or is the line at hi.
  for (let at = lo; at < to; at = found.end + 1) {
    if (!recordLineAt(source, at, to, found)) return undefined;
    if (byCodeUnit(found.key, key) >= 0) return found;
  }
  return undefined;
}

/** The record line that starts at `start` into `found`; false when it is not one (or the file ends). */
export function recordLineAt(source: LineSource, start: number, to: number, found: FoundLine): boolean {
  if (start >= to) return false;
  const { bytes, end } = lineFrom(source, start, to);
  if (!readKey(bytes, 0, end - start, found) || found.kind !== 'record') return false;
  found.start += start;
  found.afterKey += start;
  found.end += start;
  found.removal = false;
  return true;
}

/** Below this many bytes a search reads the lines one after another. */
const SEARCH_SPAN = 16 * 1024;
const LINE_READ = 4096;
let lineScratch = Buffer.allocUnsafeSlow(LINE_READ);

/** The bytes of the line that starts at `start` (not past `to`), and where it ends. */
function lineFrom(source: LineSource, start: number, to: number): { bytes: Buffer; end: number } {
  if (source.bytes) {
    let end = byteIndex.call(source.bytes, NEWLINE, start);
    if (end < 0 || end > to) end = to;
    return { bytes: source.bytes.subarray(start, end), end };
  }
  let length = 0;
  for (;;) {
    if (length === lineScratch.length) {
      const larger = Buffer.allocUnsafeSlow(lineScratch.length * 2);
      lineScratch.copy(larger, 0, 0, length);
      lineScratch = larger;
    }
    const want = Math.min(lineScratch.length - length, to - start - length);
    const read = want > 0 ? readSync(source.fd!, lineScratch, length, want, start + length) : 0;
    const newline = byteIndex.call(lineScratch.subarray(length, length + read), NEWLINE);
    if (newline >= 0)
      return { bytes: lineScratch.subarray(0, length + newline), end: start + length + newline };
    length += read;
    if (read === 0 || start + length >= to)
      return { bytes: lineScratch.subarray(0, length), end: start + length };
  }
}

/** Where the first line that starts after `at` starts (`hi` when none does before `hi`). */
function lineStartAfter(source: LineSource, at: number, hi: number): number {
  if (source.bytes) {
    const newline = byteIndex.call(source.bytes, NEWLINE, at);
    return newline < 0 ? hi : newline + 1;
  }
  for (let from = at; from < hi; from += LINE_READ) {
    const read = readSync(source.fd!, lineScratch, 0, Math.min(LINE_READ, hi - from), from);
    const newline = byteIndex.call(lineScratch.subarray(0, read), NEWLINE);
    if (newline >= 0) return from + newline + 1;
    if (read === 0) break;
  }
  return hi;
}

/**
 * The lines of `bytes` from `from` to `to` (file offset `shift` at index 0); the last one only if
 * `last` (else it may go on in the next chunk). Returns where the first line it left starts.
 */
function scanChunk(
  bytes: Buffer,
  from: number,
  to: number,
  shift: number,
  last: boolean,
  found: FoundLine,
  onEntry: (found: FoundLine) => boolean | void,
  other: (line: string, lineStart: number, lineEnd: number) => void,
  halt: { at: number },
): number {
  let start = from;
  while (start < to) {
    let end = byteIndex.call(bytes, NEWLINE, start);
    if (end < 0 || end >= to) {
      if (!last) return start;
      end = to;
    }
    if (end > start) {
      if (readKey(bytes, start, end, found)) {
        found.removal =
          end - found.afterKey === 6 && bytes.toString('latin1', found.afterKey, end) === ',null]';
        found.start += shift;
        found.afterKey += shift;
        found.end += shift;
        if (onEntry(found) === true) {
          halt.at = start + shift;
          return start;
        }
      } else other(bytes.toString('utf8', start, end), start + shift, end + shift);
    }
    start = end + 1;
  }
  return to;
}

/**
 * Per line, the scan looks for a byte twice and decodes a key: Uint8Array's own indexOf and
 * Buffer's utf8Slice do that without Buffer's argument handling around them, which a state of
 * many lines would pay per call, before the code around it is compiled.
 */
const byteIndex = Uint8Array.prototype.indexOf;

/** Buffer's own decoders, which toString calls after checking its arguments. */
function decoders(bytes: Buffer): {
  latin1Slice(from: number, to: number): string;
  utf8Slice(from: number, to: number): string;
} {
  return bytes as unknown as ReturnType<typeof decoders>;
}

const RECORD_PREFIX = Buffer.from('["record",');
const MEDIA_PREFIX = Buffer.from('["media",');

function startsWith(bytes: Buffer, at: number, prefix: Buffer): boolean {
  for (let i = 1; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

/** Reads the kind and key of an entry line into `found`, without parsing the rest; false if it is none. */
function readKey(bytes: Buffer, start: number, end: number, found: FoundLine): boolean {
  if (bytes[start] !== OPEN_BRACKET || end - start < RECORD_PREFIX.length + 2) return false;
  let keyStart: number;
  if (startsWith(bytes, start, RECORD_PREFIX)) {
    found.kind = 'record';
    keyStart = start + RECORD_PREFIX.length;
  } else if (startsWith(bytes, start, MEDIA_PREFIX)) {
    found.kind = 'media';
    keyStart = start + MEDIA_PREFIX.length;
  } else return false;
  if (bytes[keyStart] !== QUOTE) return false;
  let escaped = false;
  let close = keyStart + 1;
  for (;;) {
    close = byteIndex.call(bytes, QUOTE, close);
    if (close < 0 || close >= end) return false;
    let backslashes = 0;
    while (bytes[close - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) break;
    escaped = true;
    close++;
  }
  found.key = escaped
    ? (JSON.parse(bytes.toString('utf8', keyStart, close + 1)) as string)
    : decoders(bytes).utf8Slice(keyStart + 1, close);
  found.start = start;
  found.afterKey = close + 1;
  found.end = end;
  return true;
}

/**
 * Sets the entry of a line found in `source` in `state` (or removes its key), unparsed. `fromLog`:
 * the line is one of the log's committed changes, rather than one of the base file's entries (the
 * base's record lines are the RecordTable's to read, see deferBase).
 */
export function putEntry(state: State, source: LineSource, line: FoundLine, fromLog: boolean): void {
  const tables = tablesOf.get(state)!;
  const { removal, key } = line;
  if (line.kind === 'record') {
    const records = state.records as RecordTable;
    tables.logRecords.set(key, !removal);
    if (removal) records.fromLog(key, undefined);
    else records.fromLog(key, entryIn(tables, source, line));
    return;
  }
  if (fromLog) tables.logMedia.push([key, !removal]);
  else tables.baseMedia.push(key);
  if (removal) delete state.media[key];
  else (state.media as Record<string, unknown>)[key] = entryIn(tables, source, line);
}

/** A new entry for a line found in `source`, in the open block of its kind (or a new one). */
function entryIn(tables: StateTables, source: LineSource, line: FoundLine): StoredEntry {
  let block = tables.open[line.kind];
  if (!block || block.source !== source || block.parsed || block.entries.length === BLOCK_LINES) {
    block = new Block(tables, source, line.kind);
    tables.open[line.kind] = block;
  }
  const entry = new StoredEntry(block, line.key, line.start, line.afterKey, line.end);
  block.entries.push(entry);
  return entry;
}

/** A set or removal of a record: its key, and the id and file it had before (none when it was new). */
export interface RecordChange {
  key: string;
  was: { id: number; file: string } | undefined;
}

const NOTED_AT_MOST = 4096;

/**
 * The records of a state by key: a Map whose entries are read from the files on first use (see
 * docs/state.md). Opening a state reads its header, media lines and log, not its record lines:
 * those are read, a chunk at a time, the first time anything asks for a record, and only their
 * keys and where they lie are kept (each a StoredEntry, parsed when read). So a run that never
 * looks at records (or a command that needs only the header) never reads them; a run that does
 * reads them once. Records set or removed before that (the log's, a replayed journal's) hide
 * their line in the base.
 */
export class RecordTable extends Map<string, StateRecord> {
  #tables: StateTables;
  /** The base file's record lines, not read yet: the file, where they start, and what to do with other lines. */
  #base: DeferredBase | undefined;
  /** The file the base's record lines were (or will be) read from. */
  #baseSource: LineSource | undefined;
  /** Keys removed before the base's lines were read: their lines there are passed over. */
  #gone = new Set<string>();
  /** Keys whose line in the base file is hidden (set again or removed since): what a save must know of them. */
  #inBase = new Set<string>();
  /** Keys removed since the last save: a save writes the removal of those that are on file. */
  readonly removed = new Set<string>();
  #version = 0;
  /** Whether get and has may search the base's record lines by key rather than read them all (see searchSorted). */
  #searchable = false;
  /** Entries found by searching the base, by key (null: not there). */
  #found = new Map<string, StoredEntry | null>();
  /** Whether the base's record lines were in key order, once read whole; undefined before. */
  #sorted: boolean | undefined;
  /** Each set and removal since version `#notedFrom`, with the id and file the key had: see changesSince. */
  #noted: RecordChange[] | undefined;
  #notedFrom = 0;

  constructor(tables: StateTables) {
    super();
    this.#tables = tables;
  }

  /** The records of `map`, as a table of no file (a State made by hand, then saved). */
  static of(map: Map<string, StateRecord>, tables: StateTables): RecordTable {
    const table = new RecordTable(tables);
    for (const [key, value] of map) table.set(key, value);
    return table;
  }

  /** Reads the base's record lines from `from` on when the table is first used. */
  deferBase(base: DeferredBase): void {
    this.#base = base;
    this.#baseSource = base.source;
  }

  /** A change of the log, read before the base's lines: it hides the key's line there. */
  fromLog(key: string, entry: StoredEntry | undefined): void {
    if (entry) {
      this.#gone.delete(key);
      super.set(key, entry as unknown as StateRecord);
    } else {
      this.#gone.add(key);
      super.delete(key);
    }
  }

  /**
   * Lets get and has find a key by a binary search of the base's record lines, while they are not
   * read whole: for a run that looks at a few records of many. Only for a base known to be sorted
   * by key (a clean run read it whole and saw it so, see baseSorted, and it has not changed since):
   * in a base out of order a search can miss a key. Anything that needs every record still reads
   * them all, and an entry found by a search stays the entry of its key then.
   */
  searchSorted(): void {
    this.#searchable = true;
  }

  /** Whether the base's record lines were in key order (undefined until they are read whole; true with no base). */
  get baseSorted(): boolean | undefined {
    return this.#baseSource === undefined ? true : this.#sorted;
  }

  /** Counts the sets and removals: what was found out from the table holds while it is the same. */
  get version(): number {
    return this.#version;
  }

  /**
   * Notes each set and removal from now on, so that what is found out from the table can be brought
   * up to date with what changed (see record-index.ts) rather than found out again from every record.
   */
  noteChanges(): void {
    this.#noted = [];
    this.#notedFrom = this.#version;
  }

  /** Every set and removal since `version`, in order, or undefined when they were not noted. */
  changesSince(version: number): readonly RecordChange[] | undefined {
    if (!this.#noted || version < this.#notedFrom) return undefined;
    return this.#noted.slice(version - this.#notedFrom);
  }

  #note(key: string): void {
    if (!this.#noted) return;
    // Many changes (a cold apply): finding out again from every record costs no more than these.
    if (this.#noted.length >= NOTED_AT_MOST) return void (this.#noted = undefined);
    const was = super.get(key);
    this.#noted.push({ key, was: was && { id: was.id, file: was.file } });
  }

  /** The records held in memory, without reading the base: what can have changed since it was opened. */
  held(): IterableIterator<[string, StateRecord]> {
    return super.entries();
  }

  /** Whether the base file holds a line for `key`, a key that was set again or removed since it was read. */
  inBase(key: string): boolean {
    this.#readBase();
    return this.#inBase.has(key);
  }

  override get(key: string): StateRecord | undefined {
    if (this.#base) {
      if (this.#searchable)
        return super.has(key) || this.#gone.has(key)
          ? super.get(key)
          : (this.#search(key) as StateRecord | undefined);
      this.#readBase();
    }
    return super.get(key);
  }

  override has(key: string): boolean {
    if (this.#base) {
      if (this.#searchable)
        return super.has(key) || (!this.#gone.has(key) && this.#search(key) !== undefined);
      this.#readBase();
    }
    return super.has(key);
  }

  /** The base's entry for `key`, found by a binary search of its sorted record lines. */
  #search(key: string): StoredEntry | undefined {
    const known = this.#found.get(key);
    if (known !== undefined) return known ?? undefined;
    const base = this.#base!;
    if (this.#found.size === 0) checkBase(base);
    const line = searchLines(base.source, base.from, base.stamp.size, key);
    const entry = line?.key === key ? this.#foundAt(line) : null;
    this.#found.set(key, entry);
    return entry ?? undefined;
  }

  #foundAt(line: FoundLine): StoredEntry {
    const block = new Block(this.#tables, this.#base!.source, 'record');
    const entry = new StoredEntry(block, line.key, line.start, line.afterKey, line.end);
    block.entries.push(entry);
    return entry;
  }

  /**
   * The keys that start with `prefix` (`category/`), in key order: while the table searches its base
   * (see searchSorted), found by a search and the lines after it, not by reading every line.
   */
  keysStartingWith(prefix: string): string[] {
    const keys = new Set<string>();
    const base = this.#base;
    if (base && this.#searchable) {
      const found = searchLines(base.source, base.from, base.stamp.size, prefix);
      while (found?.key.startsWith(prefix)) {
        if (!this.#gone.has(found.key)) {
          if (!this.#found.get(found.key)) this.#found.set(found.key, this.#foundAt(found));
          keys.add(found.key);
        }
        if (!recordLineAt(base.source, found.end + 1, base.stamp.size, found)) break;
      }
      for (const key of super.keys()) if (key.startsWith(prefix)) keys.add(key);
    } else for (const key of this.keys()) if (key.startsWith(prefix)) keys.add(key);
    return [...keys].sort(byCodeUnit);
  }

  /** Whether get and has search the base rather than read it (see searchSorted). */
  get searching(): boolean {
    return this.#searchable && this.#base !== undefined;
  }

  override set(key: string, value: StateRecord): this {
    if (this.#base) this.#gone.delete(key);
    else this.#hide(key);
    this.#keepCompacted(key);
    this.#note(key);
    this.#version++;
    super.set(key, value);
    return this;
  }

  override delete(key: string): boolean {
    this.#readBase();
    this.#hide(key);
    this.#keepCompacted(key);
    this.removed.add(key);
    this.#note(key);
    this.#version++;
    return super.delete(key);
  }

  override clear(): void {
    for (const key of this.keys()) this.delete(key);
  }

  override get size(): number {
    this.#readBase();
    return super.size;
  }

  override keys(): MapIterator<string> {
    this.#readBase();
    return super.keys();
  }

  override values(): MapIterator<StateRecord> {
    this.#readBase();
    return super.values();
  }

  override entries(): MapIterator<[string, StateRecord]> {
    this.#readBase();
    return super.entries();
  }

  override [Symbol.iterator](): MapIterator<[string, StateRecord]> {
    return this.entries();
  }

  override forEach(
    callback: (value: StateRecord, key: string, map: Map<string, StateRecord>) => void,
    thisArg?: unknown,
  ): void {
    this.#readBase();
    super.forEach(callback, thisArg);
  }

  /**
   * Notes in `written` the entry the last compaction wrote for `key`, which is about to be replaced
   * or removed: the files still hold its line (see compacted).
   */
  #keepCompacted(key: string): void {
    const written = this.#tables.written.record;
    if (!this.#tables.compactions || written.has(key)) return;
    const value = super.get(key);
    if (isCompacted(this.#tables, key, value)) written.set(key, value);
  }

  /** Notes that the base holds `key`, whose entry is about to be replaced or removed. */
  #hide(key: string): void {
    const value = super.get(key);
    if (value instanceof StoredEntry && internals.block(value).source === this.#baseSource)
      this.#inBase.add(key);
  }

  /**
   * Reads the base's record lines: an entry per line, in file order, then the records set before
   * (a record the log or journal set keeps its line's place, as it would have in a plain object).
   */
  #readBase(): void {
    const base = this.#base;
    if (!base) return;
    this.#base = undefined;
    checkBase(base);
    const earlier = new Map(super.entries());
    super.clear();
    const tables = this.#tables;
    const found = this.#found;
    this.#found = new Map();
    let block: Block | undefined;
    let previous: string | undefined;
    this.#sorted = true;
    scanLines(
      base.source,
      base.from,
      (line) => {
        if (line.kind === 'media') {
          this.#sorted = false;
          return void base.media(line);
        }
        parseCounts.recordLines++;
        if (line.removal) return;
        const { key } = line;
        if (previous !== undefined && byCodeUnit(previous, key) >= 0) this.#sorted = false;
        previous = key;
        const searched = found.get(key);
        if (searched && earlier.get(key) === undefined && !this.#gone.has(key)) {
          super.set(key, searched as unknown as StateRecord);
          return;
        }
        const set = earlier.get(key);
        if (set !== undefined || this.#gone.has(key)) {
          this.#inBase.add(key);
          if (set !== undefined) {
            super.set(key, set);
            earlier.delete(key);
          }
          return;
        }
        if (!block || block.entries.length === BLOCK_LINES) block = new Block(tables, base.source, 'record');
        const entry = new StoredEntry(block, key, line.start, line.afterKey, line.end);
        block.entries.push(entry);
        super.set(key, entry as unknown as StateRecord);
      },
      base.other,
    );
    for (const [key, value] of earlier) super.set(key, value);
    this.#gone.clear();
  }
}

/**
 * Record lines are read later than the rest of the base: one rewritten in place since (not renamed
 * over) is not the state opened, and is an error rather than wrong entries.
 */
function checkBase(base: DeferredBase): void {
  const now = fstatSync(base.source.fd!);
  if (now.size !== base.stamp.size || now.mtimeMs !== base.stamp.mtimeMs) throw changedUnder(base.source);
}

/**
 * Lets `state` find records by searching its base file rather than reading it whole (see
 * RecordTable.searchSorted): for a base a clean run saw sorted, unchanged since.
 */
export function searchSortedBase(state: State): void {
  if (state.records instanceof RecordTable) state.records.searchSorted();
}

/**
 * Whether the state's base file holds its record lines in key order: written by a compaction of
 * this process, or seen so when read whole; undefined when not known.
 */
export function sortedBase(state: State): boolean | undefined {
  if (tablesOf.get(state)?.compactions) return true;
  return state.records instanceof RecordTable ? state.records.baseSorted : undefined;
}

/** The record lines of a base file that a RecordTable reads on first use. */
export interface DeferredBase {
  source: LineSource;
  /** Where the first record line starts. */
  from: number;
  /** The file's size and modification time when the rest of it was read. */
  stamp: { size: number; mtimeMs: number };
  /** A media line among the records (a base written by hand): put as the lines before it were. */
  media(line: FoundLine): void;
  /** A line that is no entry: an error that names it. */
  other(line: string, lineStart: number, lineEnd: number): void;
}

/**
 * Sets the record of a confirmed write as its line, kept in a file of the run's own (unlinked once
 * open, so a killed run leaves nothing), and read back on use as an entry of the base is: a
 * record's digests held as objects are over a kilobyte, which an apply of every record would hold
 * for each until the save. Returns false, having changed nothing, when the state has no tables or
 * the file cannot be written: the caller then sets the record as it is.
 */
export function keepWritten(state: State, dir: string, key: string, record: StateRecord): boolean {
  const tables = tablesOf.get(state);
  if (!tables) return false;
  if (tables.unsaved === undefined) tables.unsaved = openUnsaved(dir);
  const unsaved = tables.unsaved;
  if (!unsaved) return false;
  const bytes = Buffer.from(`${recordLine(key, record)}\n`, 'utf8');
  const found: FoundLine = { kind: 'record', key: '', start: 0, afterKey: 0, end: 0, removal: false };
  if (!readKey(bytes, 0, bytes.length - 1, found) || found.key !== key) return false;
  const at = unsaved.end;
  try {
    for (let written = 0; written < bytes.length;)
      written += writeSync(unsaved.source.fd!, bytes, written, bytes.length - written, at + written);
  } catch {
    return false;
  }
  unsaved.end += bytes.length;
  // A block already parsed takes no more entries: parsing it again would drop what was assigned to them.
  // The caller's key, not the one read back from the line: the same text, and a string fewer per record.
  const entry = entryIn(tables, unsaved.source, {
    ...found,
    key,
    start: at,
    afterKey: at + found.afterKey,
    end: at + found.end,
  });
  state.records.set(key, entry as unknown as StateRecord);
  return true;
}

function openUnsaved(dir: string): { source: LineSource; end: number } | null {
  let file: string | undefined;
  let fd: number | undefined;
  try {
    mkdirSync(dir, { recursive: true });
    file = path.join(dir, `written-${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
    fd = openSync(file, 'wx+', 0o600);
    unlinkSync(file);
  } catch {
    // Where an open file cannot be unlinked (Windows), records stay in memory as they are.
    if (fd !== undefined) closeSync(fd);
    if (file !== undefined) rmSync(file, { force: true });
    return null;
  }
  const source = fileSource(file, fd);
  source.unsaved = true;
  // Lines lie in the order their writes were confirmed, which a save in key order may visit far
  // apart: each read brings in little more than the line.
  source.windowBytes = UNSAVED_WINDOW_BYTES;
  return { source, end: 0 };
}

/** Whether `value` is the entry read from the line of `key` in these tables' files, as it was read. */
function isLineOf(value: unknown, key: string, tables: StateTables): value is StoredEntry {
  return (
    value instanceof StoredEntry &&
    internals.asRead(value) &&
    internals.key(value) === key &&
    internals.block(value).tables === tables &&
    internals.block(value).source.unsaved !== true
  );
}

/** Whether the value under `key` is what the files hold for it (as read, or as a save of this process wrote it). */
function isOnFile(tables: StateTables, kind: Kind, key: string, value: unknown): boolean {
  const written = tables.written[kind];
  if (written.has(key))
    return written.get(key) === value && !(value instanceof StoredEntry && internals.dirty(value));
  if (kind === 'record' && tables.compactions)
    return isCompacted(tables, key, value) && !internals.dirty(value as StoredEntry);
  return isLineOf(value, key, tables);
}

/** Whether `value` is the entry the last compaction of this process wrote for `key` (see compacted). */
function isCompacted(tables: StateTables, key: string, value: unknown): boolean {
  return (
    value instanceof StoredEntry &&
    tables.compactions !== undefined &&
    internals.compactedIn(value) === tables.compactions &&
    internals.key(value) === key
  );
}

function mediaOnFile(tables: StateTables): Set<string> {
  if (!tables.mediaOnFile) {
    const onFile = new Set(tables.baseMedia);
    for (const [key, set] of tables.logMedia) {
      if (set) onFile.add(key);
      else onFile.delete(key);
    }
    for (const [key, value] of tables.written.media) {
      if (value === null) onFile.delete(key);
      else onFile.add(key);
    }
    tables.mediaOnFile = onFile;
    // Read once: kept up to date from here on by changedLines.
    tables.baseMedia = [];
    tables.logMedia = [];
  }
  return tables.mediaOnFile;
}

/** Whether the files hold a record for `key` (one removed from the table since it was read). */
function recordOnFile(tables: StateTables, records: RecordTable, key: string): boolean {
  const written = tables.written.record;
  if (written.has(key)) return written.get(key) !== null;
  // A key the last compaction wrote and that was set or removed since is in `written` (see compacted).
  if (tables.compactions) return false;
  return tables.logRecords.get(key) ?? records.inBase(key);
}

/** The entries of `state` that differ from its files: each key's line as it is now, or its removal. */
export interface Changes {
  lines: string[];
  /** To call once the lines are on file. */
  saved(): void;
}

/**
 * The lines a save appends: each entry that differs from what the files hold, as it is now, or
 * its removal. One pass over the entries held in memory (no entry is parsed for it, and record
 * lines not read yet are unchanged), media first, each kind sorted.
 */
export function changedLines(state: State): Changes {
  const tables = tablesOf.get(state)!;
  const lines: string[] = [];
  const done: Array<() => void> = [];
  const media = state.media as Record<string, unknown>;
  const onFile = mediaOnFile(tables);
  const changedMedia: string[] = [];
  for (const key in media) if (!isOnFile(tables, 'media', key, media[key])) changedMedia.push(key);
  for (const key of onFile) if (!Object.hasOwn(media, key)) changedMedia.push(key);
  changedMedia.sort(byCodeUnit);
  for (const key of changedMedia)
    lines.push(Object.hasOwn(media, key) ? lineOf('media', key, media[key]) : removalLine('media', key));
  done.push(() => {
    for (const key of changedMedia) {
      const value = Object.hasOwn(media, key) ? media[key] : null;
      tables.written.media.set(key, value);
      if (value === null) onFile.delete(key);
      else onFile.add(key);
      if (value instanceof StoredEntry) internals.saved(value);
    }
  });
  const records = state.records as RecordTable;
  // Each changed key and its record now (undefined: removed). Held records only: a line not read yet is unchanged.
  const changed = new Map<string, StateRecord | undefined>();
  for (const [key, value] of records.held())
    if (!isOnFile(tables, 'record', key, value)) changed.set(key, value);
  // A removal read the table first (see RecordTable.delete).
  for (const key of records.removed)
    if (!records.has(key) && recordOnFile(tables, records, key)) changed.set(key, undefined);
  const keys = [...changed.keys()].sort(byCodeUnit);
  for (const key of keys) {
    const value = changed.get(key);
    lines.push(value === undefined ? removalLine('record', key) : lineOf('record', key, value));
  }
  done.push(() => {
    for (const key of keys) {
      const value = changed.get(key) ?? null;
      tables.written.record.set(key, value);
      if (value instanceof StoredEntry) internals.saved(value);
    }
    records.removed.clear();
  });
  return { lines, saved: () => done.forEach((fn) => fn()) };
}

/**
 * Every entry line of the state, media first, then records, each sorted by key: the body of the
 * base file. Lines read and not assigned to since are copied as they were read.
 */
export function* entryLines(state: State): Generator<string> {
  const media = state.media as Record<string, unknown>;
  for (const key of Object.keys(media).sort(byCodeUnit)) yield lineOf('media', key, media[key]);
  const records = state.records;
  for (const key of [...records.keys()].sort(byCodeUnit)) yield lineOf('record', key, records.get(key));
}

/**
 * After a compaction: what the files hold is the state as it is now. Each record's entry is marked
 * with the compaction rather than copied into `written` (a map as large as the archive, made at the
 * end of a cold apply): RecordTable's set and delete copy a key's entry there first, so that what
 * the files hold stays known for the keys that change after.
 */
export function compacted(state: State): void {
  const tables = tablesOf.get(state);
  if (!tables) return;
  const media = state.media as Record<string, unknown>;
  const onFile = new Set<string>();
  const writtenMedia = new Map<string, unknown>();
  for (const key in media) {
    const value = media[key];
    onFile.add(key);
    if (!isLineOf(value, key, tables)) writtenMedia.set(key, value);
    if (value instanceof StoredEntry) internals.saved(value);
  }
  tables.written.media = writtenMedia;
  tables.mediaOnFile = onFile;
  tables.baseMedia = [];
  tables.logMedia = [];
  const compaction = (tables.compactions ?? 0) + 1;
  const writtenRecords = new Map<string, unknown>();
  for (const [key, value] of state.records) {
    if (value instanceof StoredEntry && internals.key(value) === key)
      internals.onFileSince(value, compaction);
    else {
      // A record set by hand, or an entry under another key than its own.
      writtenRecords.set(key, value);
      if (value instanceof StoredEntry) internals.saved(value);
    }
  }
  tables.written.record = writtenRecords;
  tables.compactions = compaction;
  tables.logRecords = new Map();
  (state.records as RecordTable).removed.clear();
}

/** A State made by hand (tests, tools), given tables so that it can be saved as lines. */
export function adoptState(state: State): void {
  let tables = tablesOf.get(state);
  if (!tables) tablesOf.set(state, (tables = emptyTables()));
  if (!(state.records instanceof RecordTable)) state.records = RecordTable.of(state.records, tables);
}

function lineOf(kind: Kind, key: string, value: unknown): string {
  // An entry read from a line and not assigned to since: the line as it was read (whichever
  // state's files it came from), never parsed for it.
  if (value instanceof StoredEntry && internals.asRead(value) && internals.key(value) === key)
    return internals.rawLine(value);
  return kind === 'record' ? recordLine(key, value as StateRecord) : mediaLine(key, value as MediaEntry);
}

function removalLine(kind: Kind, key: string): string {
  return `["${kind}",${JSON.stringify(key)},null]`;
}

/** The line of a record: its fields, then its digests (see StoredEntry). */
export function recordLine(key: string, record: StateRecord): string {
  const fields: Record<string, unknown> = {};
  for (const field in record)
    if (field !== 'source' && field !== 'remote')
      fields[field] = (record as unknown as Record<string, unknown>)[field];
  return (
    `["record",${JSON.stringify(key)},${stableJson(fields)},` +
    `{"remote":${stableJson(record.remote ?? {})},"source":${stableJson(record.source ?? {})}}]`
  );
}

export function mediaLine(identity: string, entry: MediaEntry): string {
  const fields: Record<string, unknown> = {};
  for (const field in entry) fields[field] = (entry as unknown as Record<string, unknown>)[field];
  return `["media",${JSON.stringify(identity)},${stableJson(fields)}]`;
}

/**
 * The state as plain data: every entry's fields and digests as values, nothing left to parse.
 * For tools and tests that hand the state on whole; it costs the parse of every line.
 */
export function plainState(state: State): PlainState {
  const records: Record<string, StateRecord> = {};
  for (const [key, entry] of state.records) records[key] = plainCopy(entry) as unknown as StateRecord;
  const media: Record<string, MediaEntry> = {};
  for (const identity in state.media)
    media[identity] = plainCopy(state.media[identity]!) as unknown as MediaEntry;
  return {
    version: state.version,
    lineage: state.lineage,
    serial: state.serial,
    target: state.target,
    records,
    media,
  };
}

/** A State from plain data (a state.json of an earlier version, a state written by hand). */
export function stateFromPlain(plain: PlainState): State {
  const state = stateWithTables(
    { version: 1, lineage: plain.lineage, serial: plain.serial ?? 0, target: plain.target },
    emptyTables(),
  );
  for (const [key, record] of Object.entries(plain.records)) state.records.set(key, record);
  state.media = plain.media;
  return state;
}

function plainCopy(entry: object): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(entry)) if (value !== undefined) copy[field] = value;
  return copy;
}
