import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { State, StateRecord } from './state-file.js';

/**
 * Kept beside state.json but local to this checkout, like file-hashes.json: not committed (it
 * is derived from state.json, and checked against it on every read).
 */
export const STATE_INDEX_FILE = 'state-index.json';

/**
 * What a run needs of the state before it knows that anything changed: state.json without the
 * field digests of its records (`source`, `remote`), and the sha256 of the state.json it was
 * made from. Parsing 10,000 records' digests is most of reading state.json (~70 ms of a no-op's
 * ~600); an unchanged record never looks at them (computePlan knows it by its state entry).
 */
interface StateIndex {
  version: 1;
  /** sha256 of the state.json bytes this index was made from: any other state.json ignores it. */
  sha: string;
  state: State;
}

type Digests = 'source' | 'remote';

/**
 * Writes the index of `state`, whose state.json has the sha256 `sha`. A cache: written whole
 * through a rename so it is never torn, not fsynced; a failure (read-only checkout, full disk)
 * only makes the next run read state.json in full.
 */
export function writeStateIndex(stateDir: string, state: State, sha: string): void {
  const records: Record<string, unknown> = {};
  for (const key in state.records) {
    // Every field but the digests, in their order (without reading the digests: on a record read
    // through an index, that would parse state.json in full).
    const record = state.records[key]! as unknown as Record<string, unknown>;
    const rest: Record<string, unknown> = {};
    for (const field in record) if (field !== 'source' && field !== 'remote') rest[field] = record[field];
    records[key] = rest;
  }
  const index: StateIndex = { version: 1, sha, state: { ...state, records: records as State['records'] } };
  const file = path.join(stateDir, STATE_INDEX_FILE);
  try {
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(index));
    renameSync(temp, file);
  } catch {
    // The run is as correct without the index, only slower next time.
  }
}

/**
 * The state as its index has it, when the index was made from state.json with the sha256 `sha`;
 * else undefined (no index, another state.json, a broken file). Each record's `source` and
 * `remote` are read on first use from `parseFull()`, the whole state.json parsed once: they stay
 * own, enumerable properties (JSON.stringify, spreads and stableJson see them as values), and
 * assigning one replaces it as on any object.
 */
export function readIndexedState(stateDir: string, sha: string, parseFull: () => State): State | undefined {
  let index: StateIndex;
  try {
    index = JSON.parse(readFileSync(path.join(stateDir, STATE_INDEX_FILE), 'utf8')) as StateIndex;
  } catch {
    return undefined;
  }
  if (index?.version !== 1 || index.sha !== sha) return undefined;
  const state = index.state;
  if (state?.version !== 1 || typeof state.lineage !== 'string' || !isObject(state.records) || !isObject(state.media)) return undefined;
  const { records } = state;
  let full: State | undefined;
  const fullRecord = (record: StateRecord): StateRecord => {
    full ??= parseFull();
    const found = full.records[keyOf.get(record)!];
    // Cannot happen for an index made from this very state.json (same sha256); say so rather than
    // hand out digests that are not there.
    if (!found) throw new Error(`${STATE_INDEX_FILE} names a record that state.json does not have: delete ${path.join(stateDir, STATE_INDEX_FILE)}`);
    return found;
  };
  const keyOf = new WeakMap<StateRecord, string>();
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
