import { SyncError } from '../errors.js';
import { RECORD_RESOURCES, type RecordResource, type RemoteRecord } from '../resources.js';
import type { CmsClient } from './client.js';
import {
  copyColumns,
  markerMs,
  putRow,
  rowOf,
  rowsOfIds,
  toCached,
  type CachedColumns,
  type CachedRecord,
  type CachedResource,
} from './listing-cache.js';
import { asRecord, readListData, type WireOptions } from './wire.js';

/** One resource as listed: its records, and whether the listing can be trusted for absences. */
export interface RemoteListing {
  records: RemoteRecord[];
  /** False when any page failed or the total moved while paging: then nothing is deleted. */
  complete: boolean;
  /** The listing asked only for these fields (plus id); records needing more are completed. */
  fields?: string[];
  /**
   * Set when the listing is the last one brought up to date by what changed since (see
   * listChanges): the ids of the records read as changed. Every other record is as it was then.
   */
  changed?: readonly number[];
  /**
   * Set when a pass that plans a few records left the others out of `records` (see
   * narrowListings): how many the listing held, what reading them all would cost in pages.
   */
  listed?: number;
}

export type Listings = Record<RecordResource, RemoteListing>;

/** What a listing whose records are made only when read holds instead (see lazyListing). */
interface RecordSource {
  size: number;
  /** The records whose id `has` takes, made alone. */
  pick(has: (id: number) => boolean): RemoteRecord[];
  /** Whether `records` was read (made) or set: then it is what the listing holds. */
  made(): boolean;
}

const sources = new WeakMap<RemoteListing, RecordSource>();

/**
 * A listing whose `records` are made from `make` when first read: a listing brought up to date
 * from the cache holds every record of the CMS (100,000 on a large archive), and a pass that
 * passes files over plans from a few of them (recordsWithIds), never reading the rest.
 */
export function lazyListing(
  fields: Omit<RemoteListing, 'records'>,
  source: { size: number; make(): RemoteRecord[]; pick(has: (id: number) => boolean): RemoteRecord[] },
): RemoteListing {
  let records: RemoteRecord[] | undefined;
  const listing = { ...fields } as RemoteListing;
  Object.defineProperty(listing, 'records', {
    get: () => (records ??= source.make()),
    set: (value: RemoteRecord[]) => void (records = value),
    enumerable: true,
    configurable: true,
  });
  sources.set(listing, { size: source.size, pick: source.pick, made: () => records !== undefined });
  return listing;
}

/** The records of `listing` whose id `has` takes, without making the others. */
export function recordsWithIds(listing: RemoteListing, has: (id: number) => boolean): RemoteRecord[] {
  const source = sources.get(listing);
  return source && !source.made() ? source.pick(has) : listing.records.filter((r) => has(r.id));
}

/** How many records `listing` holds, without making them. */
export function listingSize(listing: RemoteListing): number {
  const source = sources.get(listing);
  return source && !source.made() ? source.size : listing.records.length;
}

/** `listing` with other records: its other fields read one by one, so that its records are not made. */
export function withRecords(
  listing: RemoteListing,
  records: RemoteRecord[],
  more: Partial<RemoteListing> = {},
): RemoteListing {
  const copy: Partial<RemoteListing> = {};
  for (const key of Object.keys(listing) as Array<keyof RemoteListing>)
    if (key !== 'records') Object.assign(copy, { [key]: listing[key] });
  return { ...copy, ...more, records } as RemoteListing;
}

/**
 * Lists every record resource, page by page, all at once. With `fields`, only those fields are
 * asked for (a CMS that ignores `fields` just sends more).
 */
export async function listAll(
  client: CmsClient,
  fieldsOf: (resource: RecordResource) => string[] | undefined = () => undefined,
): Promise<Listings> {
  const listings = await Promise.all(
    RECORD_RESOURCES.map(
      async (resource) => [resource, await listResource(client, resource, fieldsOf(resource))] as const,
    ),
  );
  return Object.fromEntries(listings) as Listings;
}

/** Every record of one resource, page by page (see listAll). */
export async function listResource(
  client: CmsClient,
  resource: RecordResource,
  fields: string[] | undefined,
): Promise<RemoteListing> {
  try {
    const read = () => client.list(resource, fields ? { fields } : {});
    let listing = await read();
    // Records added or removed while paging shift the pages: one re-read usually settles
    // it. If not, the listing stays incomplete and the plan deletes nothing.
    if (!listing.complete) listing = await read();
    return { records: listing.records, complete: listing.complete, ...(fields ? { fields } : {}) };
  } catch (error) {
    throw unreadable(resource, error);
  }
}

/** Why a listing of changes could not stand for the whole resource, so it was listed in full. */
export type FullListingReason =
  /** The CMS refused `order_by` on the marker (or the request failed some other way). */
  | 'refused'
  /** The first page carried no `total`, so absences cannot be told. */
  | 'no-total'
  /** The pages were not in descending marker order. */
  | 'unsorted'
  /** A marker is missing or is not a time. */
  | 'not-timestamps'
  /** The list moved while it was paged (a record seen twice, the total changed). */
  | 'moved'
  /** The CMS holds another number of records than the cache and the changes add up to. */
  | 'count'
  /** The CMS's newest record is older than the newest one listed before: deleted, or not sorted. */
  | 'newest-gone';

export type ChangesOutcome =
  | { ok: true; records: CachedColumns; changed: number[]; newest: number | undefined; pages: number }
  | { ok: false; reason: FullListingReason };

/**
 * The records of `cached` brought up to date by reading only what changed: pages of the
 * resource newest first (`order_by: "<marker> DESC"`) until the records are older than
 * `cutoff`, merged by id. The result stands for the whole resource only if the CMS's `total`
 * equals the merged count: a record created shows up among the changes, so a count that
 * disagrees means something was deleted (even when a create hides it), and then the caller
 * lists in full. `fields` is `[id, slug field, marker field]`.
 */
export async function listChanges(
  client: CmsClient,
  resource: RecordResource,
  options: {
    fields: readonly [string, string, string];
    wire: WireOptions;
    /** Marker (ms) below which nothing new can be; undefined reads to the end. */
    cutoff: number | undefined;
    cached: CachedResource;
  },
): Promise<ChangesOutcome> {
  const [, slugField, markerField] = options.fields;
  const limit = options.wire.pageSize;
  const changed = new Map<number, CachedRecord>();
  let total: number | undefined;
  let newest: number | undefined;
  let oldest: number | undefined;
  let offset = 0;
  let pages = 0;
  for (;;) {
    let data: unknown;
    try {
      data = await client.call({
        resource,
        action: 'get',
        fields: [...options.fields],
        order_by: `${markerField} DESC`,
        limit,
        offset,
      });
    } catch (error) {
      if (error instanceof SyncError && error.code === 'CMS_SYNC_AUTH') throw error;
      return { ok: false, reason: 'refused' };
    }
    pages++;
    const { items, total: pageTotal } = readListData(data, resource, options.wire);
    if (pageTotal === undefined) return { ok: false, reason: 'no-total' };
    if (offset === 0) total = pageTotal;
    else if (pageTotal !== total) return { ok: false, reason: 'moved' };
    for (const item of items) {
      const record = asRecord(item);
      if (!record) throw unreadable(resource, new Error(`a record at offset ${offset} has no numeric id`));
      const ms = markerMs(record[markerField]);
      if (ms === undefined) return { ok: false, reason: 'not-timestamps' };
      if (oldest !== undefined && ms > oldest) return { ok: false, reason: 'unsorted' };
      if (changed.has(record.id)) return { ok: false, reason: 'moved' };
      newest ??= ms;
      oldest = ms;
      changed.set(record.id, toCached(record, slugField, markerField)!);
    }
    if (
      offset === 0 &&
      newest !== undefined &&
      options.cached.newest !== undefined &&
      newest < options.cached.newest
    )
      return { ok: false, reason: 'newest-gone' };
    offset += items.length;
    const ended = items.length === 0 || offset >= total!;
    if (ended || (options.cutoff !== undefined && oldest !== undefined && oldest < options.cutoff)) break;
  }
  // The cached records with the changed ones in their place, new ones at the end: one pass over
  // the cache, nothing made per record (it may hold 100,000).
  const records = copyColumns(options.cached.records);
  const at = rowsOfIds(records, changed);
  // Read again only for the lookback: a record with the slug and marker it had is as it was.
  const moved: number[] = [];
  for (const [id, record] of changed) {
    const i = at.get(id);
    const was = i === undefined ? undefined : rowOf(records, i);
    if (!was || was[1] !== record[1] || String(was[2]) !== String(record[2])) moved.push(id);
    putRow(records, i, record);
  }
  if (records.ids.length !== total) return { ok: false, reason: 'count' };
  return {
    ok: true,
    records,
    changed: moved,
    newest: max(newest, options.cached.newest),
    pages,
  };
}

function max(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}

/** A failure to read a resource's records, as a run-level error that says nothing can be planned. */
export function unreadable(resource: RecordResource, error: unknown): SyncError {
  if (error instanceof SyncError && error.code === 'CMS_SYNC_AUTH') return error;
  return new SyncError(
    'CMS_SYNC_RETRYABLE',
    `Could not read the ${resource} records of the CMS, so nothing can be planned safely: ` +
      `${(error as Error).message}`,
    { cause: error },
  );
}

/**
 * Replaces listed records by their full version where the plan needs every field: one `get`
 * each, or a full listing of the resource when that takes fewer requests.
 */
export async function completeRecords(
  client: CmsClient,
  listings: Listings,
  wanted: ReadonlyMap<RecordResource, readonly number[]>,
  pageSize: number,
): Promise<void> {
  await Promise.all(
    [...wanted].map(async ([resource, ids]) => {
      const listing = listings[resource];
      if (!listing.fields || ids.length === 0) return;
      const pages = Math.ceil((listing.listed ?? listing.records.length) / pageSize);
      if (ids.length > pages) {
        const full = await client.list(resource);
        listings[resource] = { records: full.records, complete: listing.complete && full.complete };
        return;
      }
      const byId = new Map(listing.records.map((r, i) => [r.id, i]));
      await Promise.all(
        ids.map(async (id) => {
          const record = await client.get(resource, id);
          const at = byId.get(id);
          if (record && at !== undefined) listing.records[at] = record;
        }),
      );
    }),
  );
}
