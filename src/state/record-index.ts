import type { State } from './state-types.js';

/**
 * What the stages of a run look up across every record of a state, gathered in one pass over
 * its records: the scan (files it may skip), the listing (resources to list), the plan (ids
 * owned, ids of relation targets), so no stage walks every record for its own part.
 */
export interface RecordIndex {
  /** Per resource, the keys of its records. */
  keysByResource: ReadonlyMap<string, readonly string[]>;
  /** Per resource, CMS id -> key: the records this project manages. */
  idsByResource: ReadonlyMap<string, ReadonlyMap<number, string>>;
  /** A record's file (relative to the project) -> its key. */
  keyOfFile: ReadonlyMap<string, string>;
}

/** A table that counts its changes (RecordTable): an index of it is kept until it changes. */
interface Versioned {
  readonly version: number;
}

const kept = new WeakMap<object, { version: number; index: RecordIndex }>();

/** The index of `state`'s records as they are now (the same object while they do not change). */
export function recordIndex(state: Pick<State, 'records'>): RecordIndex {
  const { records } = state;
  const version = (records as Partial<Versioned>).version;
  const known = kept.get(records);
  if (known && version !== undefined && known.version === version) return known.index;
  const keysByResource = new Map<string, string[]>();
  const idsByResource = new Map<string, Map<number, string>>();
  const keyOfFile = new Map<string, string>();
  for (const [key, entry] of records) {
    const resource = key.slice(0, key.indexOf('/'));
    let keys = keysByResource.get(resource);
    let ids = idsByResource.get(resource);
    if (!keys || !ids) {
      keysByResource.set(resource, (keys = []));
      idsByResource.set(resource, (ids = new Map()));
    }
    keys.push(key);
    ids.set(entry.id, key);
    keyOfFile.set(entry.file, key);
  }
  const index: RecordIndex = { keysByResource, idsByResource, keyOfFile };
  if (version !== undefined) kept.set(records, { version, index });
  return index;
}
