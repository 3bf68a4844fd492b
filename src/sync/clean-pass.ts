import { byCodeUnit } from '../compare.js';
import type { ApplyResult } from '../apply/apply-plan.js';
import type { Config } from '../config/schema.js';
import type { FileProblem } from '../errors.js';
import type { Plan } from '../plan/compute-plan.js';
import type { DesiredRecord } from '../records/build-record.js';
import type { SourceRead } from '../records/read-source.js';
import { listingCacheFile } from '../remote/listing-cache.js';
import { listingSize, recordsWithIds, withRecords, type Listings } from '../remote/snapshot.js';
import { RECORD_RESOURCES, type RecordResource } from '../resources.js';
import { RELATION_TARGETS } from '../resources/derived.js';
import { contentPrefix } from '../source/content-paths.js';
import {
  forgetCleanRun,
  stampsDigest,
  writeCleanRun,
  type CleanRun,
  type CleanRunPlaces,
} from '../state/clean-run.js';
import { idsOfKeys, recordIndex } from '../state/record-index.js';
import type { State } from '../state/state-file.js';
import { sortedBase } from '../state/state-lines.js';
import type { SyncOptions } from './options.js';
import type { Session } from './session.js';
import { stateDirOf } from './target.js';

/*
 * The parts of a pass that passes files over by the mark of the last clean apply (see
 * state/clean-run.ts): whether it may, what it must look at again, whether its plan stands, and
 * the mark it leaves. syncPass (run-sync.ts) strings them together.
 */

/** Options under which a pass may pass files over (see state/clean-run.ts), or be the clean run. */
export function mayUseCleanRun(flags: SyncOptions, files: readonly string[] | undefined): boolean {
  return (
    !flags.only?.length &&
    files === undefined &&
    !flags.overwriteDrift &&
    !flags.diff &&
    !flags.savedPlan &&
    !flags.retryFailedMedia &&
    flags.refresh !== 'full'
  );
}

export function cleanRunPlaces(session: Session): CleanRunPlaces {
  const { config, target } = session;
  return {
    stateDir: config.stateDir,
    recordsDir: stateDirOf(config, target),
    listingCache: config.wire.changeMarker ? listingCacheFile(config.stateDir, target.identity) : undefined,
  };
}

/**
 * What a pass that passes files over must look at again: the keys of records, and files, each with
 * the key state has for it when known (so that its bytes, if unchanged, are vouched for as a whole
 * pass would, without reading every record to find the file's key).
 */
export interface LookAt {
  keys: Set<string>;
  files: Map<string, string | undefined>;
  /** Records the listing of changes found changed in the CMS (see changedSince). */
  changedInCms: number;
}

export function lookAtOf(mark: CleanRun): LookAt {
  const files = new Map<string, string | undefined>(mark.attention.files.map((file) => [file, undefined]));
  const keys = new Set<string>();
  for (const [key, file] of mark.attention.records) {
    keys.add(key);
    files.set(file, key);
  }
  return { keys, files, changedInCms: 0 };
}

/**
 * Adds to `lookAt` the records the CMS changed since the last listing, and their files: false when
 * some resource was listed in full instead (records created or deleted in the CMS, a refresh
 * that was due), which only a whole pass can compare.
 */
export function changedSince(listings: Listings, state: State, lookAt: LookAt): boolean {
  for (const resource of RECORD_RESOURCES) {
    const listing = listings[resource];
    if (!listing.complete && listing.records.length === 0) continue;
    if (!listing.changed) return false;
    if (listing.changed.length === 0) continue;
    lookAt.changedInCms += listing.changed.length;
    const changed = new Set(listing.changed);
    const slugField = listing.fields?.[1];
    for (const record of recordsWithIds(listing, (id) => changed.has(id))) {
      const slug = slugField ? record[slugField] : undefined;
      let key: string | undefined = typeof slug === 'string' ? `${resource}/${slug}` : undefined;
      // A slug changed in the CMS: the record is found by its id among those state manages.
      if (key === undefined || state.records.get(key)?.id !== record.id)
        key = recordIndex(state).idsByResource.get(resource)?.get(record.id);
      if (key === undefined) continue;
      lookAt.keys.add(key);
      lookAt.files.set(state.records.get(key)!.file, key);
    }
  }
  return true;
}

/**
 * The records a pass that passed files over looks at (those of the files it read, of files that
 * failed, and those the mark and the CMS's changes name), and how many others each resource has.
 */
export function untouchedRecords(
  mark: CleanRun,
  state: State,
  source: SourceRead,
  lookAt: { keys: ReadonlySet<string> },
): { selected: Set<string>; counts: Partial<Record<RecordResource, number>> } {
  // Keys of state's records, as `selected` is (a key new to state is a create: the plan shows it
  // anyway, and a plan with a create is made again over everything).
  const selected = new Set<string>();
  const look = (key: string) => void (state.records.has(key) && selected.add(key));
  lookAt.keys.forEach(look);
  source.protectedKeys.forEach(look);
  for (const record of source.desired) look(record.key);
  // A file that fails now and did not then: the records state has of it are kept (the mark names
  // those of files that failed then).
  const failedThen = new Set(mark.attention.failed);
  const newlyFailed = source.failedFiles.filter((file) => !failedThen.has(file));
  if (newlyFailed.length > 0) {
    const { keysOfFile } = recordIndex(state);
    for (const file of newlyFailed) for (const key of keysOfFile(file)) selected.add(key);
  }
  const counts: Partial<Record<RecordResource, number>> = {};
  for (const [resource, n] of Object.entries(mark.records)) counts[resource as RecordResource] = n;
  for (const key of selected) {
    const resource = key.slice(0, key.indexOf('/')) as RecordResource;
    counts[resource] = (counts[resource] ?? 0) - 1;
  }
  return { selected, counts };
}

/**
 * The listing a pass that passed files over plans from: of each resource, the records of `selected`
 * alone (the plan looks at no other; the whole listing stays for a pass that widens). The resources
 * relations name stay whole: a relation may name any of their records.
 */
export function narrowListings(listings: Listings, state: State, selected: ReadonlySet<string>): Listings {
  const ids = idsOfKeys(state, selected);
  const out: Listings = { ...listings };
  for (const resource of RECORD_RESOURCES) {
    const listing = listings[resource];
    if (RELATION_TARGETS.has(resource) || listingSize(listing) === 0) continue;
    const wanted = ids.get(resource) ?? new Map<number, string>();
    out[resource] = withRecords(
      listing,
      recordsWithIds(listing, (id) => wanted.has(id)),
      { listed: listing.listed ?? listingSize(listing) },
    );
  }
  return out;
}

/**
 * Whether a plan made from the files read is what a whole pass would plan: each change is an
 * update, a drift, an unchanged or kept record of state, from the file state has for it. A create,
 * an adoption, a move, a delete, an edit of an image's text, a chain of records of one resource
 * may hang on files passed over.
 */
export function onlyEdits(plan: Plan, state: State, read: readonly DesiredRecord[]): boolean {
  if (plan.mediaEdits.length > 0 || plan.deletesHeld || plan.abort) return false;
  // A record that names one of its own resource (a category's parent) sits in a chain that files
  // passed over are part of: a loop, or the order of writes, is known only from all of them.
  if (read.some((record) => record.refs?.some((ref) => ref.relation.target === record.resource)))
    return false;
  return plan.changes.every(
    (c) =>
      (c.action === 'update' || c.action === 'unchanged' || c.action === 'drift' || c.action === 'keep') &&
      c.movedFrom === undefined &&
      state.records.get(c.key)?.file === c.file,
  );
}

/**
 * After an apply: the mark of a clean run when it was one (its plan carried out whole, nothing
 * held back), else no mark. What the next run must look at again: drifted and kept records, files
 * with a problem, and records that name one only the CMS has (see CleanRun.attention).
 */
export async function markCleanRun(
  places: CleanRunPlaces,
  config: Config,
  run: {
    state: State;
    plan: Plan;
    problems: readonly FileProblem[];
    result: ApplyResult;
    source: SourceRead;
    /** The mark this pass passed files over by: its counts still hold (it only edited records). */
    untouched: CleanRun | undefined;
  },
): Promise<void> {
  const { result, plan, source } = run;
  const listing = source.clean?.listing;
  if (
    !listing ||
    listing.media === undefined ||
    result.failures.length > 0 ||
    result.interrupted ||
    result.deletesSkipped ||
    plan.abort
  )
    return forgetCleanRun(places);
  const files = new Set<string>(run.problems.map((p) => p.file));
  // Drifted and kept records, and files with a problem, are said again on every run; a record
  // written is as a rerun finds it. A file with a problem is named with its record, when it has
  // one, so that the next run finds its key without reading every record.
  const records = new Map<string, string>();
  for (const change of plan.changes)
    if (change.action === 'drift' || change.action === 'keep' || files.has(change.file))
      records.set(change.key, change.file);
  // A record that names one only the CMS has (not in state): the CMS may rename or remove it, which
  // the record's file would then fail on, though neither it nor state changed.
  // Files a record embeds that the listing does not take for images: their stamps are kept apart.
  const prefix = contentPrefix(config.projectDir, config.contentDir);
  const dependencies = new Set(run.untouched?.dependencies.files);
  const { notes } = source.clean!;
  for (const target of notes.targets())
    if (!run.state.records.has(target))
      for (const holder of notes.holdersOf(target)) records.set(holder.key, holder.file);
  for (const file of notes.embedded) dependencies.add(prefix + file);
  for (const file of records.values()) files.delete(file);
  const dependencyFiles = [...dependencies].sort(byCodeUnit);
  const stamps = stampsDigest(dependencyFiles, config.projectDir);
  if (dependencyFiles.length > 0 && stamps === undefined) return forgetCleanRun(places);
  const counts = run.untouched?.records ?? recordsByResource(run.state);
  await writeCleanRun(places, config, {
    listing,
    dependencies: { files: dependencyFiles, stamps },
    records: counts,
    sortedBase: sortedBase(run.state) ?? run.untouched?.sortedBase ?? false,
    attention: {
      records: [...records].sort(([a], [b]) => byCodeUnit(a, b)),
      files: [...files].sort(byCodeUnit),
      failed: [...source.failedFiles].sort(byCodeUnit),
    },
  });
}

/**
 * How many records state holds of each resource, from their keys alone: the record index would
 * also read every record's line, for its id and file, which the count does not need.
 */
function recordsByResource(state: State): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of state.records.keys()) {
    const resource = key.slice(0, key.indexOf('/'));
    counts[resource] = (counts[resource] ?? 0) + 1;
  }
  return counts;
}
