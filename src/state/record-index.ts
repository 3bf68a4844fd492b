import type { RecordChange } from './state-lines.js';
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
  /** A record's file (relative to the project) -> its key (one of them, when records share a file). */
  keyOfFile: ReadonlyMap<string, string>;
  /** Every key whose record has this file: one, but for a file whose slug changed while its old record was kept. */
  keysOfFile(file: string): readonly string[];
}

/** A table that counts its changes and can say what they were (RecordTable). */
interface Versioned {
  readonly version: number;
  noteChanges?(): void;
  changesSince?(version: number): readonly RecordChange[] | undefined;
}

interface Built {
  version: number;
  index: RecordIndex;
  add(key: string, id: number, file: string): void;
  remove(key: string, id: number, file: string): void;
}

const kept = new WeakMap<object, Built>();

/**
 * The index of `state`'s records as they are now (the same object while they do not change). After
 * a few changes (a watch's pass wrote a record), the index is brought up to date in place from what
 * the table noted of them, instead of being built again from every record: so a stage must not keep
 * the index's maps beyond the stage (across a write).
 */
export function recordIndex(state: Pick<State, 'records'>): RecordIndex {
  const records = state.records as State['records'] & Partial<Versioned>;
  const { version } = records;
  const known = kept.get(records);
  if (known && version !== undefined) {
    if (known.version === version) return known.index;
    const changes = records.changesSince?.(known.version);
    if (changes) {
      for (const { key, was } of changes) {
        if (was) known.remove(key, was.id, was.file);
        const now = records.get(key);
        if (now) known.add(key, now.id, now.file);
      }
      known.version = version;
      records.noteChanges?.();
      return known.index;
    }
  }
  const built = build();
  for (const [key, entry] of records) built.add(key, entry.id, entry.file);
  if (version !== undefined) {
    built.version = version;
    kept.set(records, built);
    records.noteChanges?.();
  }
  return built.index;
}

/**
 * The keys of one resource's records: while the state searches its base (see
 * RecordTable.searchSorted), found by a search, not by reading every record.
 */
export function keysOfResource(state: Pick<State, 'records'>, resource: string): readonly string[] {
  const records = state.records as State['records'] & Partial<Searching>;
  if (records.searching) return records.keysStartingWith!(`${resource}/`);
  return recordIndex(state).keysByResource.get(resource) ?? [];
}

/**
 * Per resource, CMS id -> key of the records of `keys` alone: for a plan that looks at those only,
 * without reading every record.
 */
export function idsOfKeys(
  state: Pick<State, 'records'>,
  keys: Iterable<string>,
): Map<string, Map<number, string>> {
  const out = new Map<string, Map<number, string>>();
  for (const key of keys) {
    const entry = state.records.get(key);
    if (!entry) continue;
    const resource = key.slice(0, key.indexOf('/'));
    let ids = out.get(resource);
    if (!ids) out.set(resource, (ids = new Map()));
    ids.set(entry.id, key);
  }
  return out;
}

interface Searching {
  readonly searching: boolean;
  keysStartingWith(prefix: string): string[];
}

function build(): Built {
  const keysByResource = new Map<string, string[]>();
  const idsByResource = new Map<string, Map<number, string>>();
  const keyOfFile = new Map<string, string>();
  // Files more than one record has (rare): every key of each.
  const shared = new Map<string, string[]>();
  const resourceOf = (key: string) => key.slice(0, key.indexOf('/'));
  return {
    version: -1,
    index: {
      keysByResource,
      idsByResource,
      keyOfFile,
      keysOfFile(file) {
        const key = keyOfFile.get(file);
        return key === undefined ? [] : (shared.get(file) ?? [key]);
      },
    },
    add(key, id, file) {
      const resource = resourceOf(key);
      let keys = keysByResource.get(resource);
      let ids = idsByResource.get(resource);
      if (!keys || !ids) {
        keysByResource.set(resource, (keys = []));
        idsByResource.set(resource, (ids = new Map()));
      }
      keys.push(key);
      ids.set(id, key);
      const other = keyOfFile.get(file);
      if (other !== undefined && other !== key) shared.set(file, [...(shared.get(file) ?? [other]), key]);
      keyOfFile.set(file, key);
    },
    remove(key, id, file) {
      const resource = resourceOf(key);
      const keys = keysByResource.get(resource);
      const at = keys?.lastIndexOf(key) ?? -1;
      if (at !== -1) keys!.splice(at, 1);
      const ids = idsByResource.get(resource);
      if (ids?.get(id) === key) ids.delete(id);
      const sharing = shared.get(file);
      if (sharing) {
        const rest = sharing.filter((k) => k !== key);
        if (rest.length > 1) shared.set(file, rest);
        else shared.delete(file);
        keyOfFile.set(file, rest.at(-1)!);
      } else if (keyOfFile.get(file) === key) keyOfFile.delete(file);
    },
  };
}
