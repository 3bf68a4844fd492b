import type { DesiredRecord } from '../records/build-record.js';
import type { State } from '../state/state-file.js';
import { sourceDigests } from './digest.js';

/** A renamed file: its record keeps the CMS id of the record its old file made. */
export interface Rename {
  /** The state key the record had (its old file's). */
  from: string;
  /** The state key it has now. */
  to: string;
}

export interface RenameDetection {
  /** New key -> old key, for every file taken as renamed. */
  moves: Map<string, string>;
  /** New keys that matched more than one gone record (or one gone record matched by several): created, with a note. */
  ambiguous: Map<string, string[]>;
}

/**
 * Renames as git finds them, by content: a record whose key is not in state (a new file, or a
 * file whose name and so slug changed) whose rendered body is byte for byte that of exactly one
 * record in state whose file is gone, of the same resource, is that record moved. Two or more
 * candidates on either side are not a move: which one was meant cannot be told.
 *
 * Only records with a non-empty body take part: records without one (categories, users) have
 * nothing that identifies them beyond their slug, which is what changed.
 */
export function detectRenames(input: {
  desired: readonly DesiredRecord[];
  state: State;
  /** Keys of state whose file is still there: never taken as gone. */
  desiredKeys: ReadonlySet<string>;
  /** Keys that failed to read, and files that failed: their records are not gone either. */
  protectedKeys: ReadonlySet<string>;
  failedFiles: ReadonlySet<string>;
}): RenameDetection {
  const moves = new Map<string, string>();
  const ambiguous = new Map<string, string[]>();
  const fieldOf = new Map<string, string>();
  const arrivals = new Map<string, DesiredRecord[]>();
  for (const record of input.desired) {
    if (input.state.records[record.key] || !record.html || record.html.template.trim() === '') continue;
    const body = sourceDigests(record)[record.html.field];
    if (body === undefined) continue;
    fieldOf.set(record.resource, record.html.field);
    const id = `${record.resource}\0${body}`;
    arrivals.set(id, [...(arrivals.get(id) ?? []), record]);
  }
  if (arrivals.size === 0) return { moves, ambiguous };

  const departures = new Map<string, string[]>();
  for (const key in input.state.records) {
    if (input.desiredKeys.has(key) || input.protectedKeys.has(key)) continue;
    const entry = input.state.records[key]!;
    if (input.failedFiles.has(entry.file)) continue;
    const resource = key.slice(0, key.indexOf('/'));
    const field = fieldOf.get(resource);
    const body = field === undefined ? undefined : entry.source[field];
    if (body === undefined) continue;
    const id = `${resource}\0${body}`;
    if (arrivals.has(id)) departures.set(id, [...(departures.get(id) ?? []), key]);
  }

  for (const [id, records] of arrivals) {
    const gone = departures.get(id);
    if (!gone) continue;
    if (records.length === 1 && gone.length === 1) moves.set(records[0]!.key, gone[0]!);
    else for (const record of records) ambiguous.set(record.key, [...gone].sort());
  }
  return { moves, ambiguous };
}
