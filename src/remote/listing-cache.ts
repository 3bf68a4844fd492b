import { randomBytes } from 'node:crypto';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { RECORD_RESOURCES, type RecordResource, type RemoteRecord } from '../resources.js';
import { JsonPieces, jsonParts } from '../json-parts.js';
import { textOf } from '../text-of.js';
import { createTextFile } from '../write-text.js';
import { PackedColumn } from './packed-column.js';

/** Under the state folder, not committed: what this checkout last saw of the CMS, one file per target. */
export const LISTING_CACHE_DIR = 'listing-cache';

/** One record as a light listing shows it: its id, slug and change marker, as the CMS sent them. */
export type CachedRecord = [id: number, slug: string | number | null, marker: string | number];

/**
 * The records of a resource by column, row i of each being one record: 100,000 records are three
 * columns to read and hold, not 100,000 (an archive's cache is read by every run). Slugs and
 * markers are held as text, a row made when it is read (see PackedColumn).
 */
export interface CachedColumns {
  ids: number[];
  slugs: PackedColumn<string | number | null>;
  markers: PackedColumn<string | number>;
}

export interface CachedResource {
  /** The fields the listing asked for: a cache made with another slug or marker field is not used. */
  fields: string[];
  /**
   * A lower bound of the CMS's clock (as a marker, in ms) when this resource was last listed:
   * anything written since carries a later marker, give or take the lookback.
   */
  since?: number;
  /** The latest marker of its records (ms): the CMS's newest record, when it sorts, is never older. */
  newest?: number;
  /** When this resource was last listed in full (this machine's clock, epoch ms). */
  fullAt: number;
  /** Listings of changes only since then. */
  runs: number;
  /** Every record of the resource, managed or not (a file may adopt any of them by slug). */
  records: CachedColumns;
}

/**
 * The CMS's listing as this checkout last read it, so that a run asks only for what changed
 * since. It holds ids, slugs and change markers: nothing secret, nothing that is not in the CMS.
 */
export interface ListingCache {
  version: 3;
  target: string;
  lineage: string;
  /** The CMS's clock was at least `stamp` (marker ms) when this machine's was `at` (epoch ms). */
  clock?: { stamp: number; at: number };
  resources: Partial<Record<RecordResource, CachedResource>>;
}

/** The cache file of one target: its identity hashed, so a URL never becomes a file name. */
export function listingCacheFile(stateDir: string, identity: string): string {
  const name = createHash('sha256').update(identity).digest('hex').slice(0, 16);
  return path.join(stateDir, LISTING_CACHE_DIR, `${name}.json`);
}

/**
 * The cache for this target and state lineage, or an empty one: missing, unreadable, of another
 * target or of another state, the run lists in full as if there were none.
 */
export async function loadListingCache(file: string, target: string, lineage: string): Promise<ListingCache> {
  const empty: ListingCache = { version: 3, target, lineage, resources: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(textOf(await readFile(file)));
  } catch {
    return empty;
  }
  const cache = asCache(parsed);
  if (!cache || cache.target !== target || cache.lineage !== lineage) return empty;
  return cache;
}

/** Records as columns. */
export function columnsOf(records: readonly CachedRecord[]): CachedColumns {
  return {
    ids: records.map((r) => r[0]),
    slugs: PackedColumn.of(records.map((r) => r[1])),
    markers: PackedColumn.of(records.map((r) => r[2])),
  };
}

/** Row i as one record. */
export function rowOf(columns: CachedColumns, i: number): CachedRecord {
  return [columns.ids[i]!, columns.slugs.at(i), columns.markers.at(i)];
}

/** The rows whose id `keep` takes, as new columns. */
export function keepRows(columns: CachedColumns, keep: (id: number) => boolean): CachedColumns {
  const kept = columns.ids.map((id) => keep(id));
  return {
    ids: columns.ids.filter((_, i) => kept[i]),
    slugs: columns.slugs.keep((i) => kept[i]!),
    markers: columns.markers.keep((i) => kept[i]!),
  };
}

/** A copy to change. */
export function copyColumns(columns: CachedColumns): CachedColumns {
  return { ids: columns.ids.slice(), slugs: columns.slugs.copy(), markers: columns.markers.copy() };
}

/** Sets row `i` to `record`, or adds it as a row when `i` is undefined. */
export function putRow(columns: CachedColumns, i: number | undefined, record: CachedRecord): void {
  const at = i ?? columns.ids.length;
  columns.ids[at] = record[0];
  columns.slugs.set(at, record[1]);
  columns.markers.set(at, record[2]);
}

/** The row of each of `ids` the columns hold (one pass over them). */
export function rowsOfIds(columns: CachedColumns, ids: { has(id: number): boolean }): Map<number, number> {
  const at = new Map<number, number>();
  for (let i = 0; i < columns.ids.length; i++) if (ids.has(columns.ids[i]!)) at.set(columns.ids[i]!, i);
  return at;
}

/** Written whole through a rename, so never torn; not fsynced: losing it costs one full listing. */
export async function saveListingCache(file: string, cache: ListingCache): Promise<void> {
  try {
    await mkdir(path.dirname(file), { recursive: true });
    // Created exclusively: a link planted at the temp's name is never written through.
    const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    // A piece at a time: the text holds every record's id, slug and marker (see src/json-parts.ts).
    await createTextFile(temp, jsonParts(streamedCache(cache)));
    await rename(temp, file);
  } catch {
    // A read-only checkout or a full disk: the run is as correct without the cache, only slower next time.
  }
}

/** The cache with each resource's columns given a piece at a time: the same text as JSON.stringify's. */
function streamedCache(cache: ListingCache): unknown {
  const resources: Record<string, unknown> = {};
  for (const [resource, entry] of Object.entries(cache.resources)) {
    const { ids, slugs, markers } = entry.records;
    resources[resource] = {
      ...entry,
      records: {
        ids: JsonPieces.list(ids),
        slugs: JsonPieces.text(() => slugs.textPieces()),
        markers: JsonPieces.text(() => markers.textPieces()),
      },
    };
  }
  return { ...cache, resources };
}

/** The records of a cached resource as a light listing would give them (those `has` takes, with `has`). */
export function cachedRecords(entry: CachedResource, has?: (id: number) => boolean): RemoteRecord[] {
  const [, slugField, markerField] = entry.fields;
  const { ids } = entry.records;
  // Every row made at once for the whole listing; a row at a time for a few.
  const slugs = has ? undefined : entry.records.slugs.values();
  const markers = has ? undefined : entry.records.markers.values();
  const out: RemoteRecord[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (has && !has(ids[i]!)) continue;
    const record: RemoteRecord = { id: ids[i]! };
    const slug = slugs ? slugs[i]! : entry.records.slugs.at(i);
    if (slug !== null) record[slugField!] = slug;
    record[markerField!] = markers ? markers[i]! : entry.records.markers.at(i);
    out.push(record);
  }
  return out;
}

/** A listed record for the cache, or undefined when its marker is not a timestamp. */
export function toCached(
  record: RemoteRecord,
  slugField: string,
  markerField: string,
): CachedRecord | undefined {
  const marker = record[markerField];
  if (markerMs(marker) === undefined) return undefined;
  const slug = record[slugField];
  return [
    record.id,
    typeof slug === 'string' || typeof slug === 'number' ? slug : null,
    marker as string | number,
  ];
}

/**
 * A change marker as a time in ms: an ISO 8601 (or other Date-readable) text, or a number of
 * seconds or milliseconds since 1970. Anything else is not a clock, and a listing of changes
 * cannot be bounded by it.
 */
export function markerMs(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0)
    return value < 1e11 ? value * 1000 : value;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return markerMs(Number(value));
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The cache a parsed file holds, or undefined when it is not one: version 3 (slugs and markers as
 * text, see PackedColumn), or 2 and 1 (arrays, and an array per record), read as 3.
 */
function asCache(value: unknown): ListingCache | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const cache = value as {
    version?: unknown;
    target?: unknown;
    lineage?: unknown;
    clock?: unknown;
    resources?: unknown;
  };
  if (cache.version !== 1 && cache.version !== 2 && cache.version !== 3) return undefined;
  if (typeof cache.resources !== 'object' || cache.resources === null) return undefined;
  if (typeof cache.target !== 'string' || typeof cache.lineage !== 'string') return undefined;
  const clock = cache.clock as ListingCache['clock'];
  if (clock !== undefined && !(Number.isFinite(clock?.stamp) && Number.isFinite(clock?.at))) return undefined;
  const resources: ListingCache['resources'] = {};
  for (const [name, entry] of Object.entries(cache.resources)) {
    if (!(RECORD_RESOURCES as readonly string[]).includes(name)) return undefined;
    const read = asEntry(entry, cache.version);
    if (!read) return undefined;
    resources[name as RecordResource] = read;
  }
  return {
    version: 3,
    target: cache.target,
    lineage: cache.lineage,
    ...(clock !== undefined ? { clock } : {}),
    resources,
  };
}

function asEntry(entry: unknown, version: 1 | 2 | 3): CachedResource | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const e = entry as Omit<Partial<CachedResource>, 'records'> & { records?: unknown };
  const valid =
    Array.isArray(e.fields) &&
    e.fields.length === 3 &&
    e.fields.every((f) => typeof f === 'string') &&
    (e.since === undefined || Number.isFinite(e.since)) &&
    (e.newest === undefined || Number.isFinite(e.newest)) &&
    Number.isFinite(e.fullAt) &&
    Number.isInteger(e.runs);
  const records = valid ? asColumns(e.records, version) : undefined;
  return records && ({ ...e, records } as CachedResource);
}

function asColumns(value: unknown, version: 1 | 2 | 3): CachedColumns | undefined {
  if (version === 1) {
    if (!Array.isArray(value) || !value.every((r) => Array.isArray(r) && r.length === 3)) return undefined;
    const rows = value as unknown[][];
    return asColumns(
      { ids: rows.map((r) => r[0]), slugs: rows.map((r) => r[1]), markers: rows.map((r) => r[2]) },
      2,
    );
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { ids, slugs, markers } = value as { ids?: unknown; slugs?: unknown; markers?: unknown };
  if (!Array.isArray(ids) || !ids.every((id) => Number.isInteger(id))) return undefined;
  const rows = ids as number[];
  if (version === 3) {
    const packedSlugs = PackedColumn.read(slugs, rows.length, isSlug);
    const packedMarkers = PackedColumn.read(markers, rows.length, isMarker);
    return packedSlugs && packedMarkers && { ids: rows, slugs: packedSlugs, markers: packedMarkers };
  }
  if (!Array.isArray(slugs) || !Array.isArray(markers)) return undefined;
  if (slugs.length !== rows.length || markers.length !== rows.length) return undefined;
  if (!slugs.every(isSlug) || !markers.every(isMarker)) return undefined;
  return { ids: rows, slugs: PackedColumn.of(slugs), markers: PackedColumn.of(markers) };
}

function isSlug(value: unknown): value is string | number | null {
  return value === null || typeof value === 'string' || typeof value === 'number';
}

function isMarker(value: unknown): value is string | number {
  return typeof value === 'string' || typeof value === 'number';
}
