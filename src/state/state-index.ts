import { renameSync, writeFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import { readStamped, sameStamp, type FileStamp } from '../file-stamp.js';
import type { State, StateRecord } from './state-types.js';

/**
 * Kept beside state.json but local to this checkout, like file-hashes.json: not committed (it
 * is derived from state.json, and checked against it on every read).
 */
export const STATE_INDEX_FILE = 'state-index.json';

/**
 * What a run needs of the state before it knows that anything changed: state.json without the
 * field digests of its records (`source`, `remote`), under a first line that says which
 * state.json it was made from. Parsing the records' digests is most of reading state.json
 * and a sizeable part of a no-op; an unchanged record never looks at them (computePlan knows it by
 * its state entry). The first line alone tells whether the rest is worth parsing.
 */
interface IndexHeader {
  version: 1;
  /** The stamp of the state.json this index was made from (see FileStamp). */
  stat: FileStamp;
  /** sha256 of that state.json, for when its stat cannot be trusted alone (see readIndexedState). */
  sha: string;
}

type Digests = 'source' | 'remote';

/**
 * Writes the index of `state`, as read from the state.json whose stamp and sha256 are `made`. A
 * cache: written whole through a rename so it is never torn, not fsynced; a failure (read-only
 * checkout, full disk) only makes the next run read state.json in full.
 */
export function writeStateIndex(
  stateDir: string,
  state: State,
  made: { stamp: FileStamp; sha: string },
): void {
  const records: Record<string, unknown> = {};
  for (const key in state.records) {
    // Every field but the digests, in their order (without reading the digests: on a record read
    // through an index, that would parse state.json in full).
    const record = state.records[key]! as unknown as Record<string, unknown>;
    const rest: Record<string, unknown> = {};
    for (const field in record) if (field !== 'source' && field !== 'remote') rest[field] = record[field];
    records[key] = rest;
  }
  const header: IndexHeader = { version: 1, stat: made.stamp, sha: made.sha };
  const file = path.join(stateDir, STATE_INDEX_FILE);
  try {
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(header)}\n${JSON.stringify({ ...state, records })}\n`);
    renameSync(temp, file);
  } catch {
    // The run is as correct without the index, only slower next time.
  }
}

/**
 * The state as its index has it, when the index was made from the state.json whose stat is
 * `stats`; else undefined (no index, another state.json, a broken file). A state.json changed in
 * any way (a git pull or merge, a hand edit, a run that wrote it) has another ctime at least. As
 * git does with its index, a state.json whose times are not older than the index's own is
 * "racily clean": file times are coarse (a few ms on Linux, seconds elsewhere), so a second
 * write in the same tick could keep them; for it, the index stands only if `sha()`, the sha256
 * of the file's bytes, is the one it was made from.
 *
 * Each record's `source` and `remote` are read on first use from `parseFull()`, the whole
 * state.json parsed once: they stay own, enumerable properties (JSON.stringify, spreads and
 * stableJson see them as values), and assigning one replaces it as on any object.
 */
export function readIndexedState(
  stateDir: string,
  file: { stats: Stats; sha: () => string },
  parseFull: () => State,
): State | undefined {
  let text: string;
  let written: number;
  let header: IndexHeader;
  try {
    const index = readStamped(path.join(stateDir, STATE_INDEX_FILE));
    written = index.stats.mtimeMs;
    text = index.bytes.toString('utf8');
    header = JSON.parse(text.slice(0, text.indexOf('\n'))) as IndexHeader;
  } catch {
    return undefined;
  }
  const { stats } = file;
  if (header?.version !== 1 || !Array.isArray(header.stat) || !sameStamp(header.stat, stats))
    return undefined;
  const racy = !(stats.mtimeMs < written && stats.ctimeMs < written);
  if (racy && header.sha !== file.sha()) return undefined;
  let state: State;
  try {
    state = JSON.parse(text.slice(text.indexOf('\n') + 1)) as State;
  } catch {
    return undefined;
  }
  if (
    state?.version !== 1 ||
    typeof state.lineage !== 'string' ||
    !isObject(state.records) ||
    !isObject(state.media)
  )
    return undefined;
  const { records, media } = state;
  for (const identity in media) if (typeof media[identity]?.id !== 'number') return undefined;
  const keyOf = new WeakMap<StateRecord, string>();
  let full: State | undefined;
  const fullRecord = (record: StateRecord): StateRecord => {
    full ??= parseFull();
    const found = full.records[keyOf.get(record)!];
    // Cannot happen for an index made from this very state.json; say so rather than hand out
    // digests that are not there.
    if (!found)
      throw new Error(
        `${STATE_INDEX_FILE} names a record that state.json does not have: delete ` +
          `${path.join(stateDir, STATE_INDEX_FILE)}`,
      );
    return found;
  };
  // One getter and setter per field for all records (not a closure per record): the records keep
  // one shape, and V8 keeps them fast.
  const accessor = (field: Digests): PropertyDescriptor => ({
    enumerable: true,
    configurable: true,
    get(this: StateRecord) {
      return fullRecord(this)[field];
    },
    set(this: StateRecord, value: Record<string, string>) {
      Object.defineProperty(this, field, { value, writable: true, enumerable: true, configurable: true });
    },
  });
  const remote = accessor('remote');
  const source = accessor('source');
  for (const key in records) {
    const record = records[key]!;
    if (typeof record?.id !== 'number' || typeof record.file !== 'string') return undefined;
    keyOf.set(record, key);
    // After `owner`, in this order: the keys stay sorted, as in state.json (see stableJson).
    Object.defineProperty(record, 'remote', remote);
    Object.defineProperty(record, 'source', source);
  }
  return state;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
