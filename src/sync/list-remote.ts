import { opendir } from 'node:fs/promises';
import path from 'node:path';
import type { LandedWrites, OwnWrites } from '../apply/landed-writes.js';
import type { Config } from '../config/schema.js';
import { apiName } from '../plan/payload.js';
import type { CmsClient } from '../remote/client.js';
import {
  cachedRecords,
  columnsOf,
  copyColumns,
  keepRows,
  listingCacheFile,
  loadListingCache,
  markerMs,
  putRow,
  rowOf,
  rowsOfIds,
  saveListingCache,
  toCached,
  type CachedColumns,
  type CachedResource,
  type ListingCache,
} from '../remote/listing-cache.js';
import {
  lazyListing,
  listChanges,
  listResource,
  type FullListingReason,
  type Listings,
  type RemoteListing,
  unreadable,
} from '../remote/snapshot.js';
import { resolveWire } from '../remote/wire.js';
import { RESOURCE_TABLE } from '../resources/table.js';
import { RECORD_RESOURCES, type RecordResource } from '../resources.js';
import { slugOfKey } from '../source/spooled-document.js';
import type { State } from '../state/state-file.js';
import { recordIndex } from '../state/record-index.js';
import type { SyncReporter } from './events.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface ListRemoteContext {
  client: CmsClient;
  config: Config;
  /** The target's identity and the state's lineage: the cache of another is not used. */
  identity: string;
  state: State;
  /** --refresh=full: list every resource in full, whatever the cache holds. */
  full: boolean;
  report: SyncReporter;
  now?: () => number;
  /** Only these resources (a narrowed pass that needs them whole); by default every one that matters. */
  resources?: RecordResource[];
  /** The resources state has records of, when known without reading every record (see resourcesToList). */
  inState?: readonly string[];
  /**
   * false: the cache is saved only if saveListing is called (a plan that passed files over by the
   * mark of a clean apply, which names the cache as it was). @default true
   */
  save?: boolean;
}

/**
 * What the CMS holds, for the plan: each resource that matters, either listed in full or, when
 * the cache of the last listing allows it, as that cache plus what changed since (see
 * listChanges). A resource that matters has files in content/ or records in state, or is what
 * such a resource's relations name; the others are not read at all (reported as unread, so
 * nothing is concluded from their absence).
 */
export async function listRemote(ctx: ListRemoteContext): Promise<Listings> {
  const { client, config } = ctx;
  const now = ctx.now ?? Date.now;
  const wanted = ctx.resources ?? (await resourcesToList(config, ctx.inState ?? resourcesOf(ctx.state)));
  const listings = unreadListings();
  const marker = config.wire.changeMarker;
  if (!marker) {
    // Without a change marker every field of every record is listed, as the plan must compare them all.
    await Promise.all(wanted.map(async (r) => (listings[r] = await listResource(client, r, undefined))));
    return listings;
  }
  const file = listingCacheFile(config.stateDir, ctx.identity);
  const cache = await loadListingCache(file, ctx.identity, ctx.state.lineage);
  const wire = resolveWire(config.wire);
  const started = now();
  const { everyRuns, everyDays } = config.sync.fullRefresh;
  const read = await Promise.all(
    wanted.map(async (resource) => {
      const fields = ['id', apiName('slug', config.resources[resource]), marker] as const;
      const entry = cache.resources[resource];
      const usable = entry !== undefined && entry.fields.join('\n') === fields.join('\n');
      const due =
        !usable || ctx.full || entry.runs + 1 >= everyRuns || started - entry.fullAt >= everyDays * DAY_MS;
      let reason: FullListingReason | undefined;
      if (!due) {
        const cutoff =
          entry.since === undefined ? undefined : entry.since - config.wire.changeMarkerLookbackMs;
        const changes = await listChanges(client, resource, { fields, wire, cutoff, cached: entry });
        if (changes.ok) {
          const next: CachedResource = { ...entry, runs: entry.runs + 1, records: changes.records };
          if (changes.newest !== undefined) next.newest = changes.newest;
          return {
            resource,
            entry: next,
            listing: listingOf(next, changes.changed),
            endedAt: now(),
          };
        }
        reason = changes.reason;
      }
      const listing = await listResource(client, resource, [...fields]);
      const next = fullEntry(listing, fields, started);
      if (reason === 'newest-gone')
        reason = entry && stillHolds(listing, entry, fields) ? 'unsorted' : 'count';
      return { resource, entry: next, listing, endedAt: now(), ...(reason ? { reason } : {}) };
    }),
  );

  // A lower bound of the CMS's clock when this listing began: the newest marker seen, less the
  // time since the listing began, or the last bound carried forward by this machine's clock.
  let since =
    cache.clock === undefined ? undefined : cache.clock.stamp + Math.max(0, started - cache.clock.at);
  for (const { entry, endedAt } of read) {
    if (entry?.newest !== undefined) since = Math.max(since ?? -Infinity, entry.newest - (endedAt - started));
  }
  const next: ListingCache = { ...cache, resources: { ...cache.resources } };
  if (since !== undefined) next.clock = { stamp: since, at: started };
  for (const { resource, entry, listing } of read) {
    listings[resource] = listing;
    if (entry) next.resources[resource] = since === undefined ? entry : { ...entry, since };
    else delete next.resources[resource];
  }
  if (ctx.save !== false) await saveListingCache(file, next);
  else unsaved.set(listings, { file, cache: next });
  reportFallbacks(read, marker, ctx.report);
  return listings;
}

/**
 * What the CMS holds of exactly these records of state, each read by its id: the listing of a
 * narrowed pass (a watch's saves), whose plan looks at no other record (see PlanInput.selected).
 * A resource read this way is complete for those records (one not found is gone from the CMS), and
 * holds every field; the other resources are unread. The listing cache is neither read nor written:
 * the next listing of changes starts from the last whole one, which includes these.
 */
export async function listRecords(
  client: CmsClient,
  state: State,
  keys: Iterable<string>,
): Promise<Listings> {
  const listings = unreadListings();
  const ids = new Map<RecordResource, number[]>();
  for (const key of keys) {
    const entry = state.records.get(key);
    if (!entry) continue;
    const resource = key.slice(0, key.indexOf('/')) as RecordResource;
    const list = ids.get(resource);
    if (list) list.push(entry.id);
    else ids.set(resource, [entry.id]);
  }
  await Promise.all(
    [...ids].map(async ([resource, wanted]) => {
      const found = await Promise.all(wanted.map((id) => client.get(resource, id))).catch(
        (error: unknown) => {
          throw unreadable(resource, error);
        },
      );
      listings[resource] = { records: found.filter((r) => r !== undefined), complete: true };
    }),
  );
  return listings;
}

/**
 * Brings the cache up to date with what apply did, so the next run's listing of changes does not
 * take this run's own writes for someone else's: the records it deleted leave the cache (else its
 * count would disagree with the CMS's, which costs a full listing), and those it wrote are noted
 * with the change marker the CMS gave them (else the next run would look at each of them again).
 * A record changed in the CMS after our write shows another marker, and is looked at.
 */
export async function noteOwnWrites(
  ctx: Pick<ListRemoteContext, 'config' | 'identity' | 'state'>,
  landed: Pick<LandedWrites, 'deleted' | 'written'>,
  listed?: Listings,
): Promise<void> {
  const { deleted } = landed;
  // The cache this run's listing made and has not saved yet, rather than one read back (a large
  // archive's is megabytes). Without one (a pass that read its records by id), writes are left for
  // the next listing to see.
  const pending = listed && unsaved.get(listed);
  if (listed) unsaved.delete(listed);
  const written: ReadonlyMap<RecordResource, OwnWrites> = pending ? landed.written : new Map();
  const file = listingCacheFile(ctx.config.stateDir, ctx.identity);
  if (!ctx.config.wire.changeMarker || (deleted.size === 0 && written.size === 0)) {
    if (pending) await saveListingCache(pending.file, pending.cache);
    return;
  }
  const cache = pending?.cache ?? (await loadListingCache(file, ctx.identity, ctx.state.lineage));
  let changed = pending !== undefined;
  for (const resource of RECORD_RESOURCES) {
    const entry = cache.resources[resource];
    const gone = deleted.get(resource);
    const own = written.get(resource);
    const owned = own?.ids.length ?? 0;
    if (!entry || (!gone?.size && owned === 0)) continue;
    let records = gone?.size ? keepRows(entry.records, (id) => !gone.has(id)) : entry.records;
    // The ids written, in order, to find in the cache's rows: a cold apply writes one per document,
    // and a typed array holds each in 8 bytes where a set would hold an entry.
    const ownIds = own && owned > 0 ? Float64Array.from(own.ids).sort() : undefined;
    if (own && ownIds) {
      if (records === entry.records) records = copyColumns(records);
      putOwnRows(records, resource, own, ownIds);
    }
    if (records === entry.records) continue;
    // The newest record may be one deleted: the CMS's newest is then older than it, rightly. Our
    // writes leave the newest as listed, so that the next listing still reads down to them.
    const { newest: _gone, ...rest } = entry;
    const newest = gone?.size
      ? newestOf(keepRows(records, (id) => !ownIds || !sortedHas(ownIds, id)))
      : entry.newest;
    cache.resources[resource] = newest === undefined ? { ...rest, records } : { ...rest, records, newest };
    changed = true;
  }
  if (changed) await saveListingCache(file, cache);
}

/**
 * Each written record's row set to what the write left: the cache's row of its id, else a new
 * row (a record written twice in one run, created then edited, has one row). `sortedIds` are the
 * written ids in order.
 */
function putOwnRows(
  records: CachedColumns,
  resource: RecordResource,
  own: OwnWrites,
  sortedIds: Float64Array,
): void {
  // Only the rows of the records written are looked for: the cache may hold 100,000.
  const at = rowsOfIds(records, { has: (id) => sortedHas(sortedIds, id) });
  const twice = new Set<number>();
  for (let i = 1; i < sortedIds.length; i++) if (sortedIds[i] === sortedIds[i - 1]) twice.add(sortedIds[i]!);
  for (let i = 0; i < own.ids.length; i++) {
    const id = own.ids[i]!;
    const row = at.get(id);
    putRow(records, row, [id, slugOfKey(own.keys[i]!, resource), own.markers[i]!]);
    if (row === undefined && twice.has(id)) at.set(id, records.ids.length - 1);
  }
}

/** Whether `sorted` (ascending) holds `value`. */
function sortedHas(sorted: Float64Array, value: number): boolean {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low < sorted.length && sorted[low] === value;
}

/** The cache a listing made with `save: false` would have saved. */
const unsaved = new WeakMap<Listings, { file: string; cache: ListingCache }>();

/** Saves the cache of a listing made with `save: false`, after all. */
export async function saveListing(listings: Listings): Promise<void> {
  const pending = unsaved.get(listings);
  if (!pending) return;
  unsaved.delete(listings);
  await saveListingCache(pending.file, pending.cache);
}

/** The resources state has records of. */
function resourcesOf(state: State): string[] {
  return [...recordIndex(state).keysByResource.keys()];
}

/** Resources with files in content/ or records in state (`inState`), and the resources their relations name. */
export async function resourcesToList(config: Config, inState: readonly string[]): Promise<RecordResource[]> {
  const matters = new Set<RecordResource>();
  for (const resource of inState) matters.add(resource as RecordResource);
  await Promise.all(
    RECORD_RESOURCES.map(async (resource) => {
      if (await hasEntries(path.join(config.contentDir, RESOURCE_TABLE[resource].folder)))
        matters.add(resource);
    }),
  );
  for (const resource of [...matters])
    for (const relation of RESOURCE_TABLE[resource].relations) matters.add(relation.target);
  return RECORD_RESOURCES.filter((r) => matters.has(r));
}

/** Whether the folder holds anything, read one entry at a time (a folder may hold 100,000 files). */
async function hasEntries(dir: string): Promise<boolean> {
  try {
    const handle = await opendir(dir);
    try {
      return (await handle.read()) !== null;
    } finally {
      await handle.close().catch(() => {});
    }
  } catch {
    return false;
  }
}

function unreadListings(): Listings {
  return Object.fromEntries(
    RECORD_RESOURCES.map((r) => [r, { records: [], complete: false }]),
  ) as unknown as Listings;
}

/** The listing a cache entry stands for; its records made when read (see lazyListing). */
function listingOf(entry: CachedResource, changed: readonly number[]): RemoteListing {
  return lazyListing(
    { complete: true, fields: [...entry.fields], changed },
    {
      size: entry.records.ids.length,
      make: () => cachedRecords(entry),
      pick: (has) => cachedRecords(entry, has),
    },
  );
}

/** The cache entry of a full listing; none when it is incomplete or some marker is not a time. */
function fullEntry(
  listing: RemoteListing,
  [, slugField, markerField]: readonly [string, string, string],
  at: number,
): CachedResource | undefined {
  if (!listing.complete) return undefined;
  const records: CachedColumns = columnsOf([]);
  for (const record of listing.records) {
    const cached = toCached(record, slugField, markerField);
    if (!cached) return undefined;
    putRow(records, undefined, cached);
  }
  const newest = newestOf(records);
  const entry: CachedResource = { fields: ['id', slugField, markerField], fullAt: at, runs: 0, records };
  if (newest !== undefined) entry.newest = newest;
  return entry;
}

function newestOf(records: CachedColumns): number | undefined {
  let newest: number | undefined;
  for (const marker of records.markers.values()) newest = Math.max(newest ?? -Infinity, markerMs(marker)!);
  return newest;
}

/** Whether the newest record of the cache is still there, unchanged: then the CMS did not sort. */
function stillHolds(
  listing: RemoteListing,
  entry: CachedResource,
  [, , markerField]: readonly [string, string, string],
): boolean {
  const i = entry.records.markers.values().findIndex((m) => markerMs(m) === entry.newest);
  const newest = i < 0 ? undefined : rowOf(entry.records, i);
  return (
    newest !== undefined && listing.records.some((r) => r.id === newest[0] && r[markerField] === newest[2])
  );
}

/** One line per kind of fallback, naming its resources: said once per run, not per page or resource. */
function reportFallbacks(
  read: ReadonlyArray<{ resource: RecordResource; reason?: FullListingReason }>,
  marker: string,
  report: SyncReporter,
): void {
  const byLine = new Map<string, RecordResource[]>();
  for (const { resource, reason } of read) {
    if (!reason) continue;
    const line = FALLBACK_LINES[reason](marker);
    byLine.set(line, [...(byLine.get(line) ?? []), resource]);
  }
  for (const [line, resources] of byLine)
    report({ type: 'warning', message: line.replace('{resources}', resources.join(', ')) });
}

const NOT_SORTED = (marker: string, why: string) =>
  `The CMS ${why}, so only changes could not be read: listed every record of {resources}. If it cannot sort ` +
  `by \`${marker}\`, set \`wire.changeMarker\` to a field it can, or to false.`;

const FALLBACK_LINES: Record<FullListingReason, (marker: string) => string> = {
  refused: (m) => NOT_SORTED(m, `refused to list records by \`${m}\` newest first`),
  'no-total': (m) => NOT_SORTED(m, 'reports no `total` with its lists'),
  unsorted: (m) => NOT_SORTED(m, `did not list records by \`${m}\` newest first`),
  'not-timestamps': (m) =>
    `Some records' \`${m}\` is missing or not a time, so only changes could not be read: listed every record ` +
    'of {resources}.',
  moved: () =>
    'Records changed in the CMS while their changes were read: listed every record of {resources}.',
  count: () =>
    'The CMS holds another number of {resources} records than the last listing and the changes since add up ' +
    'to (records were deleted in the CMS): listed every one.',
  'newest-gone': () =>
    'The newest record listed before is gone from the CMS: listed every record of {resources}.',
};
