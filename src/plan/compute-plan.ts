import { byCodeUnit } from '../compare.js';
import type { ResolvedResource } from '../config/schema.js';
import type { FileProblem } from '../errors.js';
import { mediaIdentities } from '../media/media-library.js';
import type { RemoteListing } from '../remote/snapshot.js';
import type { MediaSource } from '../media/resolve-media.js';
import type { DesiredRecord, RecordRef } from '../records/build-record.js';
import { refsFromState, RELATION_TARGETS, resourceOrder } from '../resources/derived.js';
import { RESOURCE_TABLE } from '../resources/table.js';
import { planMediaText, type MediaEdit, type MediaText } from '../media/media-text.js';
import { RECORD_RESOURCES, type RecordResource, type RemoteRecord } from '../resources.js';
import type { IntentDetail } from '../state/journal.js';
import type { RecordInput, State, StateRecord } from '../state/state-file.js';
import { idsOfKeys, keysOfResource, recordIndex } from '../state/record-index.js';
import { detectRenames, type AmbiguousRename } from './detect-renames.js';
import { remoteDigests, sourceDigests } from './digest.js';
import { fieldValues, type FieldValue } from './field-values.js';
import { apiName, comparableDigest, resolveFields, sameValue, type IdBook } from './payload.js';
import { chained, checkRelations, depths } from './relations.js';

export type { RemoteListing } from '../remote/snapshot.js';

export interface PlanInput {
  desired: DesiredRecord[];
  remote: Record<RecordResource, RemoteListing>;
  state: State;
  /** Keys whose file exists but failed to read or parse: never deleted, never touched. */
  protectedKeys: ReadonlySet<string>;
  /** Files that failed: state records that came from them are protected too. */
  failedFiles: ReadonlySet<string>;
  resources: Record<RecordResource, ResolvedResource>;
  prune: boolean;
  maxDeletes: number;
  overwriteDrift: boolean;
  /** The --only globs the plan was made with (see `selected` for what they select). */
  only?: string[];
  /**
   * With --only: the keys of the state's records whose file is selected. The plan looks at no
   * other record of state: it neither keeps, deletes nor moves one, so a narrowed plan costs what
   * it selects, not what state holds.
   */
  selected?: ReadonlySet<string>;
  /** How many records state holds, when known without reading them all (a pass that passed files over). */
  recordsInState?: number;
  /** Edits journaled by a run that died before their answer: told apart from others' changes. */
  pendingEdits?: ReadonlyMap<string, readonly IntentDetail[]>;
  /**
   * A field the CMS changes on every write (e.g. `updated_at`). A record whose marker is the one
   * state saw after our last write is unchanged in the CMS without comparing its fields, so the
   * listing needs only ids, slugs and markers.
   */
  changeMarker?: string;
  /** --refresh=false: the CMS was not read; state is taken as what it holds. */
  trustState?: boolean;
  /** The CMS's media library, when some image is unknown to state (lost state): matched by content or URL. */
  remoteMedia?: RemoteRecord[];
  /** The media fields alt and title travel in (`wire.mediaAltField`/`mediaTitleField`). @default alt, title */
  mediaTextFields?: { alt: string | false; title: string | false };
  /** Take a file renamed without `slug:` as its record moved (see detect-renames.ts). Default true. */
  detectRenames?: boolean;
  /** --diff: each create, update and drift carries both sides of the fields it names (`values`). */
  fieldValues?: boolean;
}

interface Base {
  key: string;
  resource: RecordResource;
  file: string;
  /** The state key this record had before its file was renamed: the write moves state to `key`. */
  movedFrom?: string;
}
export type Change =
  | (Base & { action: 'create'; record: DesiredRecord; fields: string[]; values?: FieldValue[] })
  | (Base & {
      action: 'update';
      id: number;
      record: DesiredRecord;
      fields: string[];
      owner: StateRecord['owner'];
      overwrite?: 'drift' | 'conflict';
      /** With `fieldValues`: the CMS's value and ours, for each field that differs. */
      values?: FieldValue[];
    })
  | (Base & {
      action: 'adopt';
      id: number;
      record: DesiredRecord;
      baseline: Record<string, string>;
      owner: StateRecord['owner'];
      marker?: string;
    })
  | (Base & { action: 'unchanged'; id: number; input?: RecordInput })
  | (Base & {
      action: 'drift';
      id: number;
      /** `file-deleted`: its file is gone, and the CMS changed the record since our last write. */
      kind: 'changed-in-cms' | 'conflict' | 'deleted-in-cms' | 'file-deleted';
      fields: string[];
      /** `fields` under the CMS's own names (the wire mapping), which is how drift is reported. */
      cmsFields: string[];
      /** With `fieldValues`: the CMS's value and ours, for each drifted field. */
      values?: FieldValue[];
    })
  | (Base & {
      action: 'delete';
      id: number;
      /** Its depth in chains of its own resource (a category under a parent): deeper ones go first. */
      depth?: number;
    })
  | (Base & { action: 'forget'; id: number })
  | (Base & { action: 'keep'; id: number; reason: string });

export interface Upload {
  source: MediaSource;
  /** Keys of the records that wait for this upload. */
  usedBy: string[];
  /** The alt text and title it is uploaded with (see media-text.ts). */
  text?: MediaText;
}

export interface Plan {
  changes: Change[];
  uploads: Upload[];
  /** Images the CMS already holds that state did not know: remembered, not uploaded again. */
  knownMedia: Array<{ identity: string; id: number; source: string }>;
  /** Media records whose alt text or title changes (an edit), or whose record that gave them does. */
  mediaEdits: MediaEdit[];
  problems: FileProblem[];
  /** Set when a safety limit stops the plan from being applied (exit code 3). */
  abort?: string;
  /** Why no deletes were planned, when deletes were held back. */
  deletesHeld?: string;
  /**
   * Records left unchanged without being looked at, per resource: their files are as the last
   * clean apply left them (see state/clean-run.ts). Counted as unchanged; not among `changes`.
   */
  untouched?: Partial<Record<RecordResource, number>>;
}

/** Apply order of resources: each after every resource it names (see resourceOrder). */
const ORDER: Record<RecordResource, number> = Object.fromEntries(
  resourceOrder(RESOURCE_TABLE).map((r, i) => [r, i]),
) as Record<RecordResource, number>;

/**
 * Pure: desired records x what the CMS holds x state -> what to do, per record. Three-way per
 * record: the state's baseline, the file, the CMS. Nothing here performs I/O.
 */
export function computePlan(input: PlanInput): Plan {
  const { state } = input;
  const changes: Change[] = [];
  const problems: FileProblem[] = [];
  const remoteById = new Map<string, Map<number, RemoteRecord>>();
  for (const resource of RECORD_RESOURCES) {
    remoteById.set(resource, new Map(input.remote[resource].records.map((r) => [r.id, r])));
  }
  const book = idBook(input);
  // Asked only for a file new to state (an adoption): a plan of edits never reads every record for it.
  const managed = (resource: string) => recordIndex(state).idsByResource.get(resource);
  /** Records this plan adopts: no other file may adopt them too. */
  const adopted = new Map<string, Map<number, string>>();
  const desiredKeys = new Set(input.desired.map((d) => d.key));
  const renames =
    input.detectRenames === false
      ? { moves: new Map<string, string>(), ambiguous: new Map<string, AmbiguousRename>() }
      : detectRenames({ ...input, desiredKeys });
  for (const [key, why] of renames.ambiguous) {
    const record = input.desired.find((d) => d.key === key)!;
    problems.push(ambiguousRename(record, why));
  }
  // Old keys of moved records: their record lives on under the new key, so they are not removals.
  const stillHeld =
    renames.moves.size === 0 ? desiredKeys : new Set([...desiredKeys, ...renames.moves.values()]);

  const relations = checkRelations({
    desired: input.desired,
    desiredKeys,
    book,
    protectedKeys: input.protectedKeys,
  });
  problems.push(...relations.problems);
  const desiredByKey = new Map(input.fieldValues ? input.desired.map((d) => [d.key, d]) : []);
  // A create names every field of its record, and records of a resource mostly have the same
  // ones: one list for each set of names, not one per record (a cold apply holds every change).
  const fieldLists = new Map<string, string[]>();
  const fieldNames = (digests: Record<string, string>): string[] => {
    const names = Object.keys(digests).sort();
    const joined = JSON.stringify(names);
    let shared = fieldLists.get(joined);
    if (!shared) fieldLists.set(joined, (shared = Object.freeze(names) as string[]));
    return shared;
  };

  // Each change is written `{ action, ...base, ... }`, never with `...base` first: an object
  // literal that starts with a spread gets a hidden class of its own in V8 once the code is hot,
  // one for each of the plan's changes; one that starts with a property shares it. Creates,
  // which a cold apply holds one per document, spell out every property (see created).
  for (const record of input.desired) {
    const resource = input.resources[record.resource];
    const movedFrom = renames.moves.get(record.key);
    const base: Base = movedFrom
      ? { key: record.key, resource: record.resource, file: record.file, movedFrom }
      : { key: record.key, resource: record.resource, file: record.file };
    if (relations.failing.has(record.key)) {
      const entry = state.records.get(record.key);
      if (entry) changes.push({ action: 'keep', ...base, id: entry.id, reason: 'file has errors' });
      continue;
    }
    const entry = state.records.get(record.key) ?? (movedFrom ? state.records.get(movedFrom) : undefined);
    const remote = entry ? remoteById.get(record.resource)!.get(entry.id) : undefined;
    // A record taken unrendered from this very state entry has its digests: nothing to compare.
    // Its digests are not even read (a state read through its index parses them only on use).
    const sameAsEntry = entry !== undefined && record.unchangedSince === entry;
    let digestsOnce: Record<string, string> | undefined;
    const digests = () => (digestsOnce ??= sourceDigests(record));

    if (entry && input.trustState) {
      const changed = sameAsEntry ? [] : changedFields(digests(), entry.source);
      changes.push(
        changed.length === 0
          ? unchanged(base, entry.id, record.input)
          : { action: 'update', ...base, id: entry.id, record, fields: changed, owner: entry.owner },
      );
      continue;
    }
    if (entry && remote) {
      const baseline =
        landedEdit(entry, remote, input.pendingEdits?.get(record.key) ?? [], resource) ?? entry;
      const changed = sameAsEntry && baseline === entry ? [] : changedFields(digests(), baseline.source);
      const inCms = changedInCms(entry, baseline, remote, resource, input.changeMarker);
      if (inCms.length > 0 && !record.unchangedSince && holdsAlready(record, remote, book, resource)) {
        // The CMS already holds exactly what the file says: a write whose answer was lost
        // (or a run killed after sending it), or the same edit made by hand. Nothing to send.
        changes.push({
          action: 'adopt',
          ...base,
          id: entry.id,
          record,
          owner: entry.owner,
          baseline: remoteDigests(remote, Object.keys(digests()), (f) => apiName(f, resource)),
          ...markerField(remote, input.changeMarker),
        });
      } else if (inCms.length === 0) {
        if (changed.length > 0)
          changes.push({
            action: 'update',
            ...base,
            id: entry.id,
            record,
            fields: changed,
            owner: entry.owner,
          });
        else if (baseline === entry) changes.push(unchanged(base, entry.id, record.input));
        // A lost-answer edit that landed and is what the file says: only state has to learn it.
        else
          changes.push({
            action: 'adopt',
            ...base,
            id: entry.id,
            record,
            owner: entry.owner,
            baseline: remoteDigests(remote, Object.keys(digests()), (f) => apiName(f, resource)),
            ...markerField(remote, input.changeMarker),
          });
      } else if (input.overwriteDrift) {
        const all = union(Object.keys(digests()), Object.keys(entry.source));
        changes.push({
          action: 'update',
          ...base,
          id: entry.id,
          record,
          fields: all,
          owner: entry.owner,
          overwrite: changed.length ? 'conflict' : 'drift',
        });
      } else {
        changes.push({
          action: 'drift',
          ...base,
          id: entry.id,
          kind: changed.length ? 'conflict' : 'changed-in-cms',
          fields: inCms,
          cmsFields: inCms.map((f) => apiName(f, resource)),
        });
      }
      continue;
    }
    if (entry && !remote && input.remote[record.resource].complete) {
      if (input.overwriteDrift) changes.push(created(base, record, fieldNames(digests())));
      else
        changes.push({
          action: 'drift',
          ...base,
          id: entry.id,
          kind: 'deleted-in-cms',
          fields: [],
          cmsFields: [],
        });
      continue;
    }
    if (entry && !remote) {
      changes.push({ action: 'keep', ...base, id: entry.id, reason: 'the CMS listing was incomplete' });
      continue;
    }

    // Not in state: adopt a record with this slug if the CMS has one nobody else claimed.
    const slugField = apiName('slug', resource);
    const match = input.remote[record.resource].records
      .filter(
        (r) =>
          r[slugField] === record.slug &&
          !managed(record.resource)?.has(r.id) &&
          !adopted.get(record.resource)?.has(r.id),
      )
      .sort((a, b) => a.id - b.id)[0];
    if (match) {
      idsOf(adopted, record.resource).set(match.id, record.key);
      const fields = Object.keys(digests()).sort();
      const differing = differingFields(record, match, book, resource);
      changes.push(
        differing.length === 0
          ? {
              action: 'adopt',
              ...base,
              id: match.id,
              record,
              owner: 'adopted',
              baseline: remoteDigests(match, fields, (f) => apiName(f, resource)),
              ...markerField(match, input.changeMarker),
            }
          : { action: 'update', ...base, id: match.id, record, fields: differing, owner: 'adopted' },
      );
      continue;
    }
    changes.push(created(base, record, fieldNames(digests())));
  }

  const isListed = (resource: RecordResource, id: number) => remoteById.get(resource)!.has(id);
  const removals = planRemovals({
    ...input,
    desiredKeys: stillHeld,
    isListed,
    held: (resource, id) => remoteById.get(resource)!.get(id),
    slugInCms: (resource, id) => {
      const slug = remoteById.get(resource)!.get(id)?.[apiName('slug', input.resources[resource])];
      return typeof slug === 'string' ? slug : undefined;
    },
    emptyContent: nothingClaimed(input, input.desired.length),
  });
  changes.push(...removals.kept, ...removals.deletes);
  const { deletes, deletesHeld } = removals;

  if (input.fieldValues) {
    for (const change of changes) {
      if (change.action !== 'create' && change.action !== 'update' && change.action !== 'drift') continue;
      const record = change.action === 'drift' ? desiredByKey.get(change.key) : change.record;
      if (!record || change.fields.length === 0) continue;
      const held = change.action === 'create' ? undefined : remoteById.get(change.resource)!.get(change.id);
      change.values = fieldValues(record, held, change.fields, book, input.resources[change.resource]);
    }
  }
  const uploads = plannedUploads(changes, book);
  const text = planMediaText({
    written: changes.flatMap((c) =>
      c.action === 'create' || c.action === 'update' || c.action === 'adopt' ? [c.record] : [],
    ),
    present: stillPresent(changes, input),
    state,
    idOf: (identity) => book.mediaIdByIdentity.get(identity),
    heldText: libraryText(input),
    uploading: new Set(uploads.map((u) => u.source.identity)),
  });
  for (const upload of uploads) {
    const said = text.upload.get(upload.source.identity);
    if (said) upload.text = said;
  }
  problems.push(...text.problems);
  const depth = chainDepths(input.desired, deletes, state);
  for (const change of deletes) {
    const d = depth.get(change.key);
    if (d && change.action === 'delete') change.depth = d;
  }
  changes.sort((a, b) => byApplyOrder(a, b, depth));
  const plan: Plan = {
    changes,
    uploads,
    problems,
    knownMedia: knownMedia(input, book),
    mediaEdits: text.edits,
  };
  if (deletesHeld) plan.deletesHeld = deletesHeld;
  if (deletes.length > input.maxDeletes) {
    plan.abort =
      `The plan deletes ${deletes.length} records, more than --max-deletes ${input.maxDeletes}. Nothing ` +
      `was changed. If that is intended, rerun with --max-deletes ${deletes.length}.`;
  }
  return plan;
}

/** What the plan does with records in state whose file is gone (or failed): keep, forget or delete. */
function planRemovals(
  input: Pick<
    PlanInput,
    | 'state'
    | 'protectedKeys'
    | 'failedFiles'
    | 'remote'
    | 'resources'
    | 'prune'
    | 'trustState'
    | 'selected'
    | 'overwriteDrift'
    | 'changeMarker'
    | 'pendingEdits'
  > & {
    desiredKeys: ReadonlySet<string>;
    /** Whether the CMS's listing holds this record. */
    isListed: (resource: RecordResource, id: number) => boolean;
    /** The CMS's record of this id, as listed (and completed where the plan needs its fields). */
    held: (resource: RecordResource, id: number) => RemoteRecord | undefined;
    /** The slug the CMS's listing gives this record, when it gives one. */
    slugInCms?: (resource: RecordResource, id: number) => string | undefined;
    emptyContent: boolean;
  },
): { kept: Change[]; deletes: Change[]; deletesHeld?: string } {
  const { state, isListed } = input;
  const kept: Change[] = [];
  const deletes: Change[] = [];
  let deletesHeld: string | undefined;
  // Usually every key has its file: pick the others out before sorting anything.
  const gone: string[] = [];
  for (const key of input.selected ?? state.records.keys()) if (!input.desiredKeys.has(key)) gone.push(key);
  for (const key of gone.sort(byCodeUnit)) {
    const entry = state.records.get(key)!;
    const resource = key.slice(0, key.indexOf('/')) as RecordResource;
    const base = { key, resource, file: entry.file, id: entry.id };
    if (input.protectedKeys.has(key) || input.failedFiles.has(entry.file)) {
      kept.push({ action: 'keep', ...base, reason: 'its file has errors' });
      continue;
    }
    const listing = input.remote[resource];
    if (!listing.complete) {
      deletesHeld = input.trustState
        ? 'with --refresh=false the CMS is not read, and deletes need a fresh listing'
        : `the CMS listing of ${resource} was incomplete`;
      kept.push({ action: 'keep', ...base, reason: deletesHeld });
      continue;
    }
    if (!isListed(resource, entry.id)) {
      kept.push({ action: 'forget', ...base });
      continue;
    }
    const other = otherRecord(key, input.slugInCms?.(resource, entry.id));
    if (other) {
      kept.push({ action: 'keep', ...base, reason: other });
      continue;
    }
    if (input.emptyContent) {
      deletesHeld =
        'content/ has no records at all: cms-sync never deletes everything (check the content directory)';
      kept.push({ action: 'keep', ...base, reason: deletesHeld });
    } else if (!input.resources[resource].allowDelete) {
      kept.push({
        action: 'keep',
        ...base,
        reason: `deleting ${resource} records is off (resources.${resource}.allowDelete)`,
      });
    } else if (!input.prune) {
      kept.push({
        action: 'keep',
        ...base,
        reason: 'file removed; run with --prune to delete it from the CMS',
      });
    } else {
      const inCms = input.overwriteDrift ? [] : changedSinceWritten(key, entry, input);
      if (inCms.length === 0) deletes.push({ action: 'delete', ...base });
      else
        kept.push({
          action: 'drift',
          ...base,
          kind: 'file-deleted',
          fields: inCms,
          cmsFields: inCms.map((f) => apiName(f, input.resources[resource])),
        });
    }
  }
  return deletesHeld === undefined ? { kept, deletes } : { kept, deletes, deletesHeld };
}

/**
 * The fields the CMS changed in a record whose file is gone since cms-sync last wrote it: an
 * editor's work there is not deleted by --prune unless --overwrite-drift says so, as it is not
 * overwritten by an update. A record whose change marker is the one state saw needs no fields.
 */
function changedSinceWritten(
  key: string,
  entry: StateRecord,
  input: Pick<PlanInput, 'resources' | 'changeMarker' | 'pendingEdits'> & {
    held: (resource: RecordResource, id: number) => RemoteRecord | undefined;
  },
): string[] {
  const resource = key.slice(0, key.indexOf('/')) as RecordResource;
  const remote = input.held(resource, entry.id);
  if (!remote) return [];
  const options = input.resources[resource];
  const baseline = landedEdit(entry, remote, input.pendingEdits?.get(key) ?? [], options) ?? entry;
  return changedInCms(entry, baseline, remote, options, input.changeMarker);
}

/**
 * The fields the CMS holds otherwise than `baseline` (what our last write left there, or a lost
 * edit that landed since): none, without comparing them, when the record's change marker is the
 * one state saw after that write.
 */
function changedInCms(
  entry: StateRecord,
  baseline: Pick<StateRecord, 'source' | 'remote'>,
  remote: RemoteRecord,
  options: ResolvedResource,
  marker: string | undefined,
): string[] {
  if (baseline === entry && markerUnchanged(entry, remote, marker)) return [];
  return changedFields(
    remoteDigests(remote, Object.keys(baseline.remote), (f) => apiName(f, options)),
    baseline.remote,
  );
}

/**
 * Why the CMS's record at a gone key's id is not the one the key names, or undefined when it is.
 * The state is committed, so a pull request can add a line that maps a made-up key to the id of
 * a record an editor wrote in the CMS: deleted by --prune, under a name nobody would miss. The
 * CMS's slug must be the key's (as sent, or as a CMS that folds case and Unicode forms keeps it).
 */
function otherRecord(key: string, slugInCms: string | undefined): string | undefined {
  if (slugInCms === undefined) return undefined;
  const slug = key.slice(key.indexOf('/') + 1);
  const fold = (text: string) => text.normalize('NFC').toLowerCase();
  if (fold(slugInCms) === fold(slug)) return undefined;
  return (
    `the CMS's record with this id has the slug \`${slugInCms}\`, not \`${slug}\`: not deleted (the state may ` +
    'have been edited, or someone renamed the record in the CMS); delete it in the CMS if it should go'
  );
}

/**
 * Whether a plan made from these files could stop on --max-deletes, known from the scan alone
 * (before rendering): rendering only fails more files, and a failed file's record is kept, so
 * the final plan deletes no more than this. false means no abort can come.
 */
export function mayAbort(
  input: Pick<
    PlanInput,
    'state' | 'remote' | 'resources' | 'prune' | 'maxDeletes' | 'trustState' | 'selected'
  > & {
    claimed: ReadonlySet<string>;
    protectedKeys: ReadonlySet<string>;
    failedFiles: ReadonlySet<string>;
  },
): boolean {
  if (!input.prune) return false;
  const listed = new Map(
    RECORD_RESOURCES.map((r) => [r, new Set(input.remote[r].records.map((record) => record.id))]),
  );
  const isListed = (resource: RecordResource, id: number) => listed.get(resource)!.has(id);
  const { deletes } = planRemovals({
    ...input,
    desiredKeys: input.claimed,
    isListed,
    // The records' fields are not read yet: counted as deletes, as the most the plan can make.
    overwriteDrift: true,
    held: () => undefined,
    emptyContent: nothingClaimed(input, input.claimed.size),
  });
  return deletes.length > input.maxDeletes;
}

/**
 * Whether content/ gave no record at all (then nothing is deleted: a wrong content folder must not
 * empty the CMS). Under --only, records outside the selection are still there.
 */
function nothingClaimed(
  input: Pick<PlanInput, 'protectedKeys' | 'selected' | 'state' | 'recordsInState'>,
  claimed: number,
): boolean {
  if (claimed > 0 || input.protectedKeys.size > 0) return false;
  return (
    input.selected === undefined || input.selected.size >= (input.recordsInState ?? input.state.records.size)
  );
}

/**
 * The records still there after the plan (for the media text they gave): those it does not delete
 * or forget, those protected, and under --only every record it did not look at.
 */
function stillPresent(changes: readonly Change[], input: PlanInput): { has(key: string): boolean } {
  const present = new Set<string>();
  for (const c of changes) if (c.action !== 'delete' && c.action !== 'forget') present.add(c.key);
  const { selected, state } = input;
  return {
    has: (key) =>
      present.has(key) ||
      input.protectedKeys.has(key) ||
      (selected !== undefined && !selected.has(key) && state.records.has(key)),
  };
}

/**
 * The alt and title the CMS's library holds for an image state does not know (state was lost):
 * an image adopted from the library is edited only when they differ.
 */
function libraryText(
  input: Pick<PlanInput, 'remoteMedia' | 'mediaTextFields'>,
): (identity: string) => { alt?: string; title?: string } | undefined {
  if (!input.remoteMedia?.length) return () => undefined;
  const fields = input.mediaTextFields ?? { alt: 'alt', title: 'title' };
  const byIdentity = new Map<string, RemoteRecord>();
  for (const media of [...input.remoteMedia].sort((a, b) => b.id - a.id))
    for (const identity of mediaIdentities(media)) byIdentity.set(identity, media);
  const text = (media: RemoteRecord, field: string | false) =>
    field && typeof media[field] === 'string' && media[field] !== '' ? (media[field] as string) : undefined;
  return (identity) => {
    const media = byIdentity.get(identity);
    if (!media) return undefined;
    const alt = text(media, fields.alt);
    const title = text(media, fields.title);
    return { ...(alt === undefined ? {} : { alt }), ...(title === undefined ? {} : { title }) };
  };
}

/**
 * What ids are known before anything is written: the records other records can name by key (slug),
 * media by identity. Only relation targets: the ids of the rest are never looked up by key, and an
 * archive's articles are most of its records.
 */
export function idBook(input: Pick<PlanInput, 'state' | 'remote' | 'resources' | 'remoteMedia'>): IdBook {
  const idByKey = new Map<string, number>();
  for (const resource of RELATION_TARGETS) {
    const slugField = apiName('slug', input.resources[resource]);
    // Newest first, so the oldest record with a slug wins; state's own entries win over all.
    for (const record of [...input.remote[resource].records].sort((a, b) => b.id - a.id)) {
      const slug = record[slugField];
      if (typeof slug === 'string') idByKey.set(`${resource}/${slug}`, record.id);
    }
  }
  for (const resource of RELATION_TARGETS)
    for (const key of keysOfResource(input.state, resource))
      idByKey.set(key, input.state.records.get(key)!.id);
  const mediaIdByIdentity = new Map<string, number>();
  // Oldest first, so the first upload of a file wins; state's own entries win over all.
  for (const media of [...(input.remoteMedia ?? [])].sort((a, b) => b.id - a.id)) {
    for (const identity of mediaIdentities(media)) mediaIdByIdentity.set(identity, media.id);
  }
  for (const [identity, entry] of Object.entries(input.state.media))
    mediaIdByIdentity.set(identity, entry.id);
  return { idByKey, mediaIdByIdentity };
}

/**
 * Depth of each record in chains of its own resource: of the records written, from their files;
 * of the records deleted, from what state kept of their files.
 */
function chainDepths(desired: readonly DesiredRecord[], deletes: readonly Change[], state: State) {
  const named = chained<{ key: string; resource: RecordResource; refs?: RecordRef[] | undefined }>(desired);
  const gone = deletes.flatMap((change) => {
    const kept = state.records.get(change.key)?.input?.refs;
    return kept
      ? [{ key: change.key, resource: change.resource, refs: refsFromState(change.resource, kept) }]
      : [];
  });
  for (const [key, record] of chained(gone)) named.set(key, record);
  return depths(named);
}

/** Images used by the desired records that state did not know but the CMS's library has. */
function knownMedia(input: PlanInput, book: IdBook): Plan['knownMedia'] {
  const out = new Map<string, { identity: string; id: number; source: string }>();
  for (const record of input.desired) {
    for (const source of record.html?.media ?? []) {
      if (source.kind === 'existing' || input.state.media[source.identity]) continue;
      const id = book.mediaIdByIdentity.get(source.identity);
      if (id !== undefined)
        out.set(source.identity, {
          identity: source.identity,
          id,
          source: source.kind === 'file' ? source.file : source.url,
        });
    }
  }
  return [...out.values()].sort((a, b) => byCodeUnit(a.identity, b.identity));
}

/** Whether some image of the desired records is unknown to state, so the CMS's library is worth reading. */
export function needsMediaLibrary(desired: readonly DesiredRecord[], state: State): boolean {
  return desired.some((r) => r.html?.media.some((m) => m.kind !== 'existing' && !state.media[m.identity]));
}

function plannedUploads(changes: Change[], book: IdBook): Upload[] {
  const uploads = new Map<string, Upload>();
  for (const change of changes) {
    if (change.action !== 'create' && change.action !== 'update') continue;
    const html = change.record.html;
    if (!html || !change.fields.includes(html.field)) continue;
    for (const source of html.media) {
      if (source.kind === 'existing' || book.mediaIdByIdentity.has(source.identity)) continue;
      const upload = uploads.get(source.identity) ?? { source, usedBy: [] };
      // One change per key, its images in a row: the key is already there only as the last one
      // (an image twice in one body), so no search of a list that one image can share with every
      // document.
      if (upload.usedBy.at(-1) !== change.key) upload.usedBy.push(change.key);
      uploads.set(source.identity, upload);
    }
  }
  return [...uploads.values()].sort((a, b) => byCodeUnit(a.source.identity, b.source.identity));
}

/** The change marker as state keeps it: a string, whatever type the CMS sends. */
export function markerOf(record: RemoteRecord, marker: string | undefined): string | undefined {
  const value = marker ? record[marker] : undefined;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

export function markerField(record: RemoteRecord, marker: string | undefined): { marker?: string } {
  const value = markerOf(record, marker);
  return value === undefined ? {} : { marker: value };
}

function markerUnchanged(entry: StateRecord, remote: RemoteRecord, marker: string | undefined): boolean {
  return entry.marker !== undefined && markerOf(remote, marker) === entry.marker;
}

/**
 * Which listed records the plan must see in full when the listing carried only ids, slugs and
 * change markers: records changed since our last write (or never seen with a marker), records
 * that a file without state may adopt, and records with an unconfirmed edit of ours; with
 * --prune, those of files gone too.
 */
export function recordsToComplete(
  input: Pick<
    PlanInput,
    'desired' | 'remote' | 'state' | 'resources' | 'changeMarker' | 'pendingEdits' | 'selected'
  > &
    Partial<Pick<PlanInput, 'prune'>>,
): Map<RecordResource, number[]> {
  const wanted = new Map<RecordResource, Set<number>>(RECORD_RESOURCES.map((r) => [r, new Set()]));
  const byKey = new Map(input.desired.map((d) => [d.key, d]));
  const claimedIds = input.selected
    ? idsOfKeys(input.state, input.selected)
    : recordIndex(input.state).idsByResource;
  for (const resource of RECORD_RESOURCES) {
    const listing = input.remote[resource];
    if (!listing.fields) continue;
    const slugField = apiName('slug', input.resources[resource]);
    const claimed = claimedIds.get(resource) ?? new Map<number, string>();
    for (const record of listing.records) {
      const key = claimed.get(record.id);
      const entry = key ? input.state.records.get(key) : undefined;
      // A record whose file is gone is compared before --prune deletes it (see changedSinceWritten).
      const ours = entry && (byKey.has(key!) || input.prune);
      if (ours && (!markerUnchanged(entry, record, input.changeMarker) || input.pendingEdits?.has(key!)))
        wanted.get(resource)!.add(record.id);
      if (!key && typeof record[slugField] === 'string' && byKey.has(`${resource}/${record[slugField]}`))
        wanted.get(resource)!.add(record.id);
    }
  }
  return new Map([...wanted].map(([r, ids]) => [r, [...ids].sort((a, b) => a - b)]));
}

/**
 * When an edit this project journaled but never saw answered is exactly what the CMS now holds
 * in those fields, it landed: the baseline is then what it sent, not an older state. Otherwise
 * a run killed mid-edit would make the next run report its own write as someone else's change.
 */
function landedEdit(
  entry: StateRecord,
  remote: RemoteRecord,
  pending: readonly IntentDetail[],
  resource: ResolvedResource,
): Pick<StateRecord, 'source' | 'remote'> | undefined {
  // Newest first: of several runs that died mid-edit, the CMS holds what the last landed one sent.
  for (const intent of [...pending].reverse()) {
    if (!intent.sent || !intent.source) continue;
    const sent = Object.entries(intent.sent);
    if (
      sent.length === 0 ||
      !sent.every(([field, d]) => comparableDigest(remote[apiName(field, resource)]) === d)
    )
      continue;
    return {
      source: { ...entry.source, ...intent.source },
      remote: {
        ...entry.remote,
        ...remoteDigests(
          remote,
          sent.map(([f]) => f),
          (f) => apiName(f, resource),
        ),
      },
    };
  }
  return undefined;
}

/** Fields whose value the CMS holds differs from what the record would send (or cannot be known yet). */
function differingFields(
  record: DesiredRecord,
  remote: RemoteRecord,
  book: IdBook,
  resource: ResolvedResource,
): string[] {
  const fields = Object.keys(sourceDigests(record)).sort();
  const { data, unresolved } = resolveFields(record, fields, book, resource);
  return fields.filter(
    (f) => unresolved.includes(f) || !sameValue(data[apiName(f, resource)], remote[apiName(f, resource)]),
  );
}

function holdsAlready(
  record: DesiredRecord,
  remote: RemoteRecord,
  book: IdBook,
  resource: ResolvedResource,
): boolean {
  return differingFields(record, remote, book, resource).length === 0;
}

function idsOf(byResource: Map<string, Map<number, string>>, resource: string): Map<number, string> {
  let ids = byResource.get(resource);
  if (!ids) byResource.set(resource, (ids = new Map()));
  return ids;
}

/**
 * A create, built as a plain literal: with a spread in it, V8 keeps the properties after the spread
 * in a second array of their own, and a cold apply holds a create per document.
 */
function created(base: Base, record: DesiredRecord, fields: string[]): Change {
  const { key, resource, file, movedFrom } = base;
  return movedFrom === undefined
    ? { action: 'create', key, resource, file, record, fields }
    : { action: 'create', key, resource, file, movedFrom, record, fields };
}

/** An unchanged record, built as a plain literal: a spread per record adds up over a large site. */
function unchanged(base: Base, id: number, input: RecordInput | undefined): Change {
  if (base.movedFrom) return { action: 'unchanged', ...base, id, ...(input ? { input } : {}) };
  return input
    ? { key: base.key, resource: base.resource, file: base.file, action: 'unchanged', id, input }
    : { key: base.key, resource: base.resource, file: base.file, action: 'unchanged', id };
}

function changedFields(now: Record<string, string>, before: Record<string, string>): string[] {
  return union(Object.keys(now), Object.keys(before)).filter((f) => now[f] !== before[f]);
}

function union(a: string[], b: string[]): string[] {
  return [...new Set([...a, ...b])].sort();
}

function byApplyOrder(a: Change, b: Change, depth: ReadonlyMap<string, number>): number {
  const deleteA = a.action === 'delete' ? 1 : 0;
  const deleteB = b.action === 'delete' ? 1 : 0;
  if (deleteA !== deleteB) return deleteA - deleteB;
  // Writes: a record after those it names (resource order, then depth in its own resource's
  // chains); deletes the other way round: articles before their categories, children before parents.
  const order = deleteA ? ORDER[b.resource] - ORDER[a.resource] : ORDER[a.resource] - ORDER[b.resource];
  const deeper = (depth.get(a.key) ?? 0) - (depth.get(b.key) ?? 0);
  return order || (deleteA ? -deeper : deeper) || byCodeUnit(a.key, b.key);
}

/** The note on a new file that points at gone records but cannot be told to be one of them moved. */
function ambiguousRename(record: DesiredRecord, why: AmbiguousRename): FileProblem {
  const history =
    why.byHistory.length > 0
      ? (record.formerSlugs ?? (record.siteId ? { key: 'id', line: record.siteId.line } : undefined))
      : undefined;
  const pointers = history
    ? [
        `its \`${history.key}\` names ${why.byHistory.join(', ')}`,
        ...(why.byBody.length === 1 && !why.byHistory.includes(why.byBody[0]!)
          ? [`its body is that of ${why.byBody[0]}`]
          : []),
      ]
    : [`has the same body as ${why.byBody.join(', ')}`];
  const rivals =
    why.rivals.length === 0
      ? ''
      : `, and ${why.rivals.join(', ')} ${why.rivals.length === 1 ? 'points' : 'point'} there too`;
  return {
    file: record.file,
    line: history?.line ?? 1,
    column: 1,
    severity: 'warning',
    message:
      `${pointers.join(' and ')}, whose files are gone${rivals}: more than one candidate, so it is not taken as a ` +
      `rename and is created as a new record (give it the old \`slug:\` to keep the old record)`,
  };
}
