import type { MediaEntry, State, StateRecord } from './state-types.js';
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

/** A file the state was read from: its name (for messages) and its bytes, which its lines point into. */
export interface LineSource {
  file: string;
  bytes: Buffer;
}

/** Where an entry's line lies in the bytes of a file: parsed only when the entry is first read. */
export class RawLine {
  constructor(
    readonly source: LineSource,
    /** The start of the line, the byte after the key's closing quote, and the end (before the newline). */
    readonly start: number,
    readonly afterKey: number,
    readonly end: number,
  ) {}
}

/** An entry of a table: its line not yet parsed, or its value. */
type Slot<T> = T | RawLine;

/** The entries of one state behind its `records` and `media` objects, for the writer. */
export interface StateTables {
  records: Map<string, Slot<StateRecord>>;
  media: Map<string, Slot<MediaEntry>>;
  /** Keys set or removed since the state was read or last saved: what the next save appends. */
  changed: { records: Set<string>; media: Set<string> };
}

const tablesOf = new WeakMap<State, StateTables>();

/** Lines parsed so far, by what they held: for tests that show a run parses only what it reads. */
export const parseCounts = { fields: 0, digests: 0, media: 0 };

export function tablesOfState(state: State): StateTables | undefined {
  return tablesOf.get(state);
}

/**
 * A State whose `records` and `media` read their entries from `tables` on first use. They behave
 * as plain objects to the engine (get, set, delete, `in`, `for…in`, Object.keys/entries, spread,
 * JSON.stringify); an entry read twice is the same object, so identity comparisons hold.
 */
export function lazyState(head: Omit<State, 'records' | 'media'>, tables: StateTables): State {
  const state: State = {
    ...head,
    records: lazyTable(tables.records, tables.changed.records, parseRecord),
    media: lazyTable(tables.media, tables.changed.media, parseMedia),
  };
  tablesOf.set(state, tables);
  return state;
}

export function emptyTables(): StateTables {
  return { records: new Map(), media: new Map(), changed: { records: new Set(), media: new Set() } };
}

function lazyTable<T>(
  slots: Map<string, Slot<T>>,
  changed: Set<string>,
  parse: (raw: RawLine) => T,
): Record<string, T> {
  const read = (key: string): T | undefined => {
    const slot = slots.get(key);
    if (!(slot instanceof RawLine)) return slot;
    const value = parse(slot);
    slots.set(key, value);
    return value;
  };
  const set = (key: string, value: T): void => {
    slots.set(key, value);
    changed.add(key);
  };
  return new Proxy({} as Record<string, T>, {
    get: (target, key, receiver) =>
      typeof key === 'string' && slots.has(key) ? read(key) : Reflect.get(target, key, receiver),
    set: (target, key, value, receiver) => {
      if (typeof key !== 'string') return Reflect.set(target, key, value, receiver);
      set(key, value as T);
      return true;
    },
    defineProperty: (target, key, descriptor) => {
      if (typeof key !== 'string' || !('value' in descriptor))
        return Reflect.defineProperty(target, key, descriptor);
      set(key, descriptor.value as T);
      return true;
    },
    deleteProperty: (target, key) => {
      if (typeof key === 'string' && slots.delete(key)) changed.add(key);
      return true;
    },
    has: (target, key) => (typeof key === 'string' && slots.has(key)) || Reflect.has(target, key),
    ownKeys: () => [...slots.keys()],
    // An accessor, so that enumerating the keys (for…in, Object.keys) parses no entry.
    getOwnPropertyDescriptor: (target, key) =>
      typeof key === 'string' && slots.has(key)
        ? { get: () => read(key), set: (value: T) => set(key, value), enumerable: true, configurable: true }
        : undefined,
  });
}

const DIGESTS_MARK = Buffer.from(',{"remote":');
const OPEN_BRACKET = 0x5b;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;

/**
 * The entry lines of `bytes` from offset `from` on, with their kind and key, in file order. A line
 * that is not an entry line is handed to `other` (the log's commit lines); one that is neither is
 * a broken file, reported with its line number.
 */
export function scanLines(
  source: LineSource,
  from: number,
  onEntry: (kind: Kind, key: string, raw: RawLine) => void,
  other: (line: string, lineStart: number, lineEnd: number) => void,
): void {
  const { bytes } = source;
  let start = from;
  while (start < bytes.length) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end < 0) end = bytes.length;
    if (end > start) {
      const key = entryKey(bytes, start, end);
      if (key !== undefined) onEntry(found.kind, key, new RawLine(source, start, found.afterKey, end));
      else other(bytes.toString('utf8', start, end), start, end);
    }
    start = end + 1;
  }
}

const RECORD_PREFIX = Buffer.from('["record",');
const MEDIA_PREFIX = Buffer.from('["media",');

/** Where entryKey leaves the kind and key end of the line it read (no object per line). */
const found: { kind: Kind; afterKey: number } = { kind: 'record', afterKey: 0 };

/** The key of an entry line, read without parsing the rest of it; its kind and end go to `found`. */
function entryKey(bytes: Buffer, start: number, end: number): string | undefined {
  if (bytes[start] !== OPEN_BRACKET || end - start < RECORD_PREFIX.length + 2) return undefined;
  let kind: Kind;
  let keyStart: number;
  if (bytes.compare(RECORD_PREFIX, 0, RECORD_PREFIX.length, start, start + RECORD_PREFIX.length) === 0) {
    kind = 'record';
    keyStart = start + RECORD_PREFIX.length;
  } else if (bytes.compare(MEDIA_PREFIX, 0, MEDIA_PREFIX.length, start, start + MEDIA_PREFIX.length) === 0) {
    kind = 'media';
    keyStart = start + MEDIA_PREFIX.length;
  } else return undefined;
  if (bytes[keyStart] !== QUOTE) return undefined;
  let escaped = false;
  let close = keyStart + 1;
  for (;;) {
    close = bytes.indexOf(QUOTE, close);
    if (close < 0 || close >= end) return undefined;
    let backslashes = 0;
    while (bytes[close - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) break;
    escaped = true;
    close++;
  }
  const key = escaped
    ? (JSON.parse(bytes.toString('utf8', keyStart, close + 1)) as string)
    : bytes.toString('utf8', keyStart + 1, close);
  found.kind = kind;
  found.afterKey = close + 1;
  return key;
}

/** The JSON values after the key: `fields` and (for a record) `digests`, or null for a removal. */
function parseRest(raw: RawLine): unknown[] {
  return parseJson(raw, raw.afterKey + 1, raw.end, '[') as unknown[];
}

function parseJson(raw: RawLine, from: number, to: number, prefix = ''): unknown {
  try {
    return JSON.parse(prefix + raw.source.bytes.toString('utf8', from, to));
  } catch (error) {
    const line = lineNumber(raw.source.bytes, raw.start);
    throw new SyncError(
      'CMS_SYNC_STATE',
      `${raw.source.file}:${line}: this state line is not valid JSON (${(error as Error).message}). Restore the file from ` +
        'git, or delete the state: the next run then adopts existing records by slug.',
      { cause: error },
    );
  }
}

export function lineNumber(bytes: Buffer, offset: number): number {
  let line = 1;
  for (let at = bytes.indexOf(NEWLINE); at >= 0 && at < offset; at = bytes.indexOf(NEWLINE, at + 1)) line++;
  return line;
}

// One getter and setter per digest field for all records (not closures per record): records keep
// one shape, and V8 keeps them fast. The first read of either parses both.
const digestsOf = new WeakMap<StateRecord, RawLine>();
const digestAccessor = (field: 'source' | 'remote'): PropertyDescriptor => ({
  enumerable: true,
  configurable: true,
  get(this: StateRecord) {
    const raw = digestsOf.get(this)!;
    digestsOf.delete(this);
    parseCounts.digests++;
    const digests = parseJson(raw, raw.afterKey, raw.end - 1) as Digests;
    defineValue(this, 'remote', digests.remote ?? {});
    defineValue(this, 'source', digests.source ?? {});
    return this[field];
  },
  set(this: StateRecord, value: Record<string, string>) {
    // The other digest is still to be read from the line.
    void this[field === 'source' ? 'remote' : 'source'];
    defineValue(this, field, value);
  },
});
const remoteAccessor = digestAccessor('remote');
const sourceAccessor = digestAccessor('source');

interface Digests {
  remote?: Record<string, string>;
  source?: Record<string, string>;
}

function defineValue(record: StateRecord, field: 'source' | 'remote', value: unknown): void {
  Object.defineProperty(record, field, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * A record line's fields, its digests left in the line until read. The digests are the last
 * value of the line, after `,{"remote":`: that mark cannot occur earlier in a valid line (no
 * array before it holds objects, and a string cannot hold an unescaped quote), and a line not
 * written that way is parsed whole.
 */
function parseRecord(raw: RawLine): StateRecord {
  parseCounts.fields++;
  const { bytes } = raw.source;
  const mark = bytes.lastIndexOf(DIGESTS_MARK, raw.end);
  if (mark > raw.afterKey) {
    let fields: StateRecord | undefined;
    try {
      fields = JSON.parse(bytes.toString('utf8', raw.afterKey + 1, mark)) as StateRecord;
    } catch {
      // Not our layout after all: read the whole line below.
    }
    if (fields && typeof fields === 'object' && bytes[raw.end - 1] === 0x5d) {
      digestsOf.set(fields, new RawLine(raw.source, raw.start, mark + 1, raw.end));
      Object.defineProperty(fields, 'remote', remoteAccessor);
      Object.defineProperty(fields, 'source', sourceAccessor);
      return fields;
    }
  }
  parseCounts.digests++;
  const [fields, digests] = parseRest(raw) as [StateRecord, Digests | undefined];
  return { ...fields, remote: digests?.remote ?? {}, source: digests?.source ?? {} };
}

function parseMedia(raw: RawLine): MediaEntry {
  parseCounts.media++;
  return parseRest(raw)[0] as MediaEntry;
}

/** Puts an entry line read from a file into the tables, unparsed, or removes its key. */
export function putLine(tables: StateTables, kind: Kind, key: string, raw: RawLine): void {
  const table = (kind === 'record' ? tables.records : tables.media) as Map<string, Slot<unknown>>;
  if (isRemoval(raw)) table.delete(key);
  else table.set(key, raw);
}

/** Whether an entry line removes its key (the log's `["record", key, null]`). */
export function isRemoval(raw: RawLine): boolean {
  const rest = raw.source.bytes.toString('latin1', raw.afterKey, Math.min(raw.end, raw.afterKey + 6));
  return rest === ',null]';
}

/** The lines a save appends: each entry changed since the last save as it is now, or its removal. */
export function changedLines(tables: StateTables): string[] {
  const lines: string[] = [];
  for (const identity of [...tables.changed.media].sort(byCodeUnit)) {
    const slot = tables.media.get(identity);
    lines.push(slot ? lineOf(slot, (entry) => mediaLine(identity, entry)) : removalLine('media', identity));
  }
  for (const key of [...tables.changed.records].sort(byCodeUnit)) {
    const slot = tables.records.get(key);
    lines.push(slot ? lineOf(slot, (record) => recordLine(key, record)) : removalLine('record', key));
  }
  return lines;
}

function removalLine(kind: Kind, key: string): string {
  return `["${kind}",${JSON.stringify(key)},null]`;
}

/** The line of a record: its fields, then its digests (see parseRecord). */
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
  return `["media",${JSON.stringify(identity)},${stableJson(entry)}]`;
}

/** The entry's line as it is in the file it was read from, if it was never parsed; else made anew. */
function lineOf<T>(slot: Slot<T>, make: (value: T) => string): string {
  return slot instanceof RawLine ? slot.source.bytes.toString('utf8', slot.start, slot.end) : make(slot);
}

/**
 * Every entry line of the state, media first, then records, each sorted by key: the body of the
 * base file. Lines never parsed are copied as they were read.
 */
export function* entryLines(tables: StateTables): Generator<string> {
  for (const key of [...tables.media.keys()].sort(byCodeUnit))
    yield lineOf(tables.media.get(key)!, (entry) => mediaLine(key, entry));
  for (const key of [...tables.records.keys()].sort(byCodeUnit))
    yield lineOf(tables.records.get(key)!, (record) => recordLine(key, record));
}
