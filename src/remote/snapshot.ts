import { SyncError } from '../errors.js';
import { RECORD_RESOURCES, type RecordResource, type RemoteRecord } from '../resources.js';
import type { CmsClient } from './client.js';

/** One resource as listed: its records, and whether the listing can be trusted for absences. */
export interface RemoteListing {
  records: RemoteRecord[];
  /** False when any page failed or the total moved while paging: then nothing is deleted. */
  complete: boolean;
  /** The listing asked only for these fields (plus id); records needing more are completed. */
  fields?: string[];
}

export type Listings = Record<RecordResource, RemoteListing>;

/**
 * Lists every record resource, page by page, all at once. With `fields`, only those fields are
 * asked for (a CMS that ignores `fields` just sends more).
 */
export async function listAll(
  client: CmsClient,
  fieldsOf: (resource: RecordResource) => string[] | undefined = () => undefined,
): Promise<Listings> {
  const listings = await Promise.all(
    RECORD_RESOURCES.map(async (resource) => {
      const fields = fieldsOf(resource);
      try {
        const read = () => client.list(resource, fields ? { fields } : {});
        let listing = await read();
        // Records added or removed while paging shift the pages: one re-read usually settles
        // it. If not, the listing stays incomplete and the plan deletes nothing.
        if (!listing.complete) listing = await read();
        return [
          resource,
          { records: listing.records, complete: listing.complete, ...(fields ? { fields } : {}) },
        ] as const;
      } catch (error) {
        if (error instanceof SyncError && error.code === 'CMS_SYNC_AUTH') throw error;
        throw new SyncError(
          'CMS_SYNC_RETRYABLE',
          `Could not read the ${resource} records of the CMS, so nothing can be planned safely: ` +
            `${(error as Error).message}`,
          { cause: error },
        );
      }
    }),
  );
  return Object.fromEntries(listings) as Listings;
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
      const pages = Math.ceil(listing.records.length / pageSize);
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
