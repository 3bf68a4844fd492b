import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SyncError } from '../../src/errors.js';
import type { CmsClient } from '../../src/remote/client.js';
import {
  columnsOf,
  listingCacheFile,
  loadListingCache,
  markerMs,
  rowOf,
  saveListingCache,
  type CachedColumns,
  type CachedRecord,
  type CachedResource,
  type ListingCache,
} from '../../src/remote/listing-cache.js';
import {
  lazyListing,
  listChanges,
  listingSize,
  recordsWithIds,
  withRecords,
} from '../../src/remote/snapshot.js';
import { DEFAULT_WIRE } from '../../src/remote/wire.js';
import type { ApiRequest } from '../../src/resources.js';

const FIELDS = ['id', 'slug', 'updated_at'] as const;

const rowsOf = (columns: CachedColumns) => columns.ids.map((_, i) => rowOf(columns, i));
/** A cache with its columns as rows, to compare (a column loaded is text, one made is values). */
const plain = (cache: ListingCache) => ({
  ...cache,
  resources: Object.fromEntries(
    Object.entries(cache.resources).map(([name, entry]) => [
      name,
      { ...entry, records: rowsOf(entry.records) },
    ]),
  ),
});
const WIRE = { ...DEFAULT_WIRE, pageSize: 2 };
const at = (minute: number) => `2026-11-26T12:${String(minute).padStart(2, '0')}:00.000Z`;

/** A CMS of articles in memory that pages and sorts as asked; `quirk` makes it misbehave. */
function fakeCms(
  records: Array<{ id: number; slug: string; updated_at: string }>,
  quirk?: 'ignore' | 'no-total',
) {
  const requests: ApiRequest[] = [];
  const client = {
    async call(request: ApiRequest) {
      requests.push(request);
      const rows = [...records].sort((a, b) => a.id - b.id);
      if (request.order_by === 'updated_at DESC' && quirk !== 'ignore')
        rows.sort((a, b) => b.updated_at.localeCompare(a.updated_at) || a.id - b.id);
      const items = rows.slice(request.offset ?? 0, (request.offset ?? 0) + (request.limit ?? 50));
      return quirk === 'no-total' ? { items } : { items, total: rows.length };
    },
  } as unknown as CmsClient;
  return { client, requests };
}

const cached = (records: CachedRecord[], since?: number): CachedResource => ({
  fields: [...FIELDS],
  fullAt: 0,
  runs: 0,
  records: columnsOf(records),
  newest: Math.max(...records.map((r) => markerMs(r[2])!)),
  ...(since === undefined ? {} : { since }),
});

const CMS = [
  { id: 1, slug: 'a', updated_at: at(1) },
  { id: 2, slug: 'b', updated_at: at(2) },
  { id: 3, slug: 'c', updated_at: at(3) },
  { id: 4, slug: 'd', updated_at: at(4) },
  { id: 5, slug: 'e', updated_at: at(5) },
];
const CACHED = cached(CMS.map((r) => [r.id, r.slug, r.updated_at]));

describe('listChanges', () => {
  it('reads newest first only down to the cutoff, and merges the changes into the cache', async () => {
    const cms = fakeCms(CMS.map((r) => (r.id === 2 ? { ...r, slug: 'b2', updated_at: at(9) } : r)));
    const outcome = await listChanges(cms.client, 'article', {
      fields: FIELDS,
      wire: WIRE,
      cutoff: markerMs(at(5)),
      cached: CACHED,
    });
    // Page 1 holds b (9) and e (5), not older than the cutoff; page 2 ends with c (3), older.
    expect(cms.requests.map((r) => [r.order_by, r.offset, r.limit])).toEqual([
      ['updated_at DESC', 0, 2],
      ['updated_at DESC', 2, 2],
    ]);
    expect(outcome).toMatchObject({ ok: true, newest: markerMs(at(9)) });
    if (!outcome.ok) return;
    expect(rowsOf(outcome.records).find((r) => r[0] === 2)).toEqual([2, 'b2', at(9)]);
    expect(outcome.records.ids).toHaveLength(5);
  });

  it('makes one call when nothing changed', async () => {
    const cms = fakeCms(CMS);
    const outcome = await listChanges(cms.client, 'article', {
      fields: FIELDS,
      wire: WIRE,
      cutoff: markerMs(at(6)),
      cached: CACHED,
    });
    expect(outcome.ok).toBe(true);
    expect(cms.requests).toHaveLength(1);
  });

  it('takes a record created in the CMS from the changes', async () => {
    const cms = fakeCms([...CMS, { id: 6, slug: 'f', updated_at: at(7) }]);
    const outcome = await listChanges(cms.client, 'article', {
      fields: FIELDS,
      wire: WIRE,
      cutoff: markerMs(at(6)),
      cached: CACHED,
    });
    expect(outcome.ok && [...outcome.records.ids].sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('gives up on a count that disagrees: a delete, or a delete hidden by a create', async () => {
    const options = { fields: FIELDS, wire: WIRE, cutoff: markerMs(at(6)), cached: CACHED };
    const deleted = fakeCms(CMS.filter((r) => r.id !== 3));
    expect(await listChanges(deleted.client, 'article', options)).toEqual({ ok: false, reason: 'count' });
    const hidden = fakeCms([...CMS.filter((r) => r.id !== 3), { id: 6, slug: 'f', updated_at: at(7) }]);
    expect(await listChanges(hidden.client, 'article', options)).toEqual({ ok: false, reason: 'count' });
  });

  it('gives up on a CMS that does not sort, sends no total or refuses the order', async () => {
    const options = { fields: FIELDS, wire: WIRE, cutoff: markerMs(at(6)), cached: CACHED };
    expect(await listChanges(fakeCms(CMS, 'ignore').client, 'article', options)).toEqual({
      ok: false,
      reason: 'unsorted',
    });
    expect(await listChanges(fakeCms(CMS, 'no-total').client, 'article', options)).toEqual({
      ok: false,
      reason: 'no-total',
    });
    // Pages of one record show no order: the newest record older than the cache's gives it away.
    const single = { ...options, wire: { ...WIRE, pageSize: 1 } };
    expect(await listChanges(fakeCms(CMS, 'ignore').client, 'article', single)).toEqual({
      ok: false,
      reason: 'newest-gone',
    });
    const refusing = {
      call: async () => {
        throw new Error('Unknown field "updated_at" in "order_by"');
      },
    } as unknown as CmsClient;
    expect(await listChanges(refusing, 'article', options)).toEqual({ ok: false, reason: 'refused' });
  });

  it('lets a refused token stop the run', async () => {
    const denied = {
      call: async () => {
        throw new SyncError('CMS_SYNC_AUTH', 'The CMS refused the token.');
      },
    } as unknown as CmsClient;
    await expect(
      listChanges(denied, 'article', { fields: FIELDS, wire: WIRE, cutoff: 0, cached: CACHED }),
    ).rejects.toMatchObject({ code: 'CMS_SYNC_AUTH' });
  });
});

describe('the listing cache file', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('is read back only for the same target and state lineage', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-listing-'));
    const file = listingCacheFile(dir, 'https://cms.example.com');
    expect(path.basename(file)).toMatch(/^[0-9a-f]{16}\.json$/);
    const cache: ListingCache = {
      version: 3,
      target: 'https://cms.example.com',
      lineage: 'L1',
      clock: { stamp: 5, at: 6 },
      resources: { article: CACHED },
    };
    await saveListingCache(file, cache);
    expect(plain(await loadListingCache(file, 'https://cms.example.com', 'L1'))).toEqual(plain(cache));
    expect((await loadListingCache(file, 'https://cms.example.com', 'L2')).resources).toEqual({});
    expect((await loadListingCache(file, 'local', 'L1')).resources).toEqual({});
    await writeFile(file, '{"version":2,"target":');
    expect((await loadListingCache(file, 'https://cms.example.com', 'L1')).resources).toEqual({});
    // Columns of unequal length, or a row that is not a record: not a cache.
    await saveListingCache(file, cache);
    const saved = JSON.parse(await readFile(file, 'utf8')) as {
      resources: { article: { records: { ids: number[]; slugs: string; markers: string } } };
    };
    const { records } = saved.resources.article;
    for (const torn of [
      { ...records, ids: [1] },
      { ...records, ids: [...records.ids, 6] },
      { ...records, slugs: `${records.slugs}\nf` },
      { ...records, markers: records.markers.replace(at(3), '={"not":"a time"}') },
      { ...records, slugs: records.slugs.replace('c', '=[1,') },
      { ...records, markers: [at(1), at(2), at(3), at(4), at(5)] },
    ]) {
      await writeFile(
        file,
        JSON.stringify({ ...saved, resources: { article: { ...saved.resources.article, records: torn } } }),
      );
      expect(
        (await loadListingCache(file, 'https://cms.example.com', 'L1')).resources,
        JSON.stringify(torn),
      ).toEqual({});
    }
  });

  it('reads a cache of version 2, each column an array, as version 3', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-listing-'));
    const file = listingCacheFile(dir, 'local');
    await mkdir(path.dirname(file), { recursive: true });
    const rows = rowsOf(CACHED.records);
    const columns = {
      ids: rows.map((r) => r[0]),
      slugs: rows.map((r) => r[1]),
      markers: rows.map((r) => r[2]),
    };
    await writeFile(
      file,
      JSON.stringify({
        version: 2,
        target: 'local',
        lineage: 'L1',
        resources: { article: { ...CACHED, records: columns } },
      }),
    );
    const read = await loadListingCache(file, 'local', 'L1');
    expect(read.version).toBe(3);
    expect(rowsOf(read.resources.article!.records)).toEqual(rows);
  });

  it('reads a cache of version 1, a record per array, as version 3', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-listing-'));
    const file = listingCacheFile(dir, 'local');
    await mkdir(path.dirname(file), { recursive: true });
    const version1 = (records: unknown) =>
      writeFile(
        file,
        JSON.stringify({
          version: 1,
          target: 'local',
          lineage: 'L1',
          resources: { article: { ...CACHED, records } },
        }),
      );
    await version1(rowsOf(CACHED.records));
    const read = await loadListingCache(file, 'local', 'L1');
    expect(read.version).toBe(3);
    expect(rowsOf(read.resources.article!.records)).toEqual(rowsOf(CACHED.records));
    expect({ ...read.resources.article, records: undefined }).toEqual({ ...CACHED, records: undefined });
    // A row that is not a record: not a cache.
    await version1([[1, 'a']]);
    expect((await loadListingCache(file, 'local', 'L1')).resources).toEqual({});
  });

  it('reads markers as times: ISO text, or seconds or milliseconds since 1970', () => {
    expect(markerMs('2026-11-26T12:00:00.000Z')).toBe(Date.UTC(2026, 10, 26, 12));
    expect(markerMs(1_795_000_000)).toBe(1_795_000_000_000);
    expect(markerMs('1795000000000')).toBe(1_795_000_000_000);
    expect(markerMs('v3')).toBeUndefined();
    expect(markerMs(null)).toBeUndefined();
  });
});

describe('a listing made from the cache', () => {
  it('makes its records only when they are read; a pick makes only those picked', () => {
    let made = 0;
    const rows = [
      { id: 1, slug: 'a' },
      { id: 2, slug: 'b' },
      { id: 3, slug: 'c' },
    ];
    const listing = lazyListing(
      { complete: true, changed: [2] },
      {
        size: rows.length,
        make: () => {
          made += 1;
          return rows.map((r) => ({ ...r }));
        },
        pick: (has) => rows.filter((r) => has(r.id)).map((r) => ({ ...r })),
      },
    );
    expect(listingSize(listing)).toBe(3);
    expect(recordsWithIds(listing, (id) => id === 2)).toEqual([{ id: 2, slug: 'b' }]);
    const narrowed = withRecords(listing, [], { listed: 3 });
    expect(narrowed).toEqual({ complete: true, changed: [2], listed: 3, records: [] });
    expect(made).toBe(0);
    // Read as a whole, they are made once, and what is done to them holds.
    listing.records[0]!.slug = 'a2';
    expect(listing.records.map((r) => r.slug)).toEqual(['a2', 'b', 'c']);
    expect(recordsWithIds(listing, (id) => id === 1)).toEqual([{ id: 1, slug: 'a2' }]);
    expect({ ...listing }.records).toHaveLength(3);
    expect(made).toBe(1);
    listing.records = [];
    expect(listingSize(listing)).toBe(0);
  });
});
