import type { ApiRequest, RemoteRecord, Resource } from '../resources.js';
import { CmsProtocolError } from './errors.js';
import { asRecord, readListData, type WireOptions } from './wire.js';

export interface ListOptions {
  /** Fields to return; `id` is always added. All fields when omitted. */
  fields?: string[];
  filters?: Record<string, unknown>;
  /** @default 'id ASC' — a stable order, so that offsets do not skip or repeat records. */
  orderBy?: string;
}

export interface ListResult {
  records: RemoteRecord[];
  /**
   * True only if every page was read, no record came back twice, and `total` (when the CMS
   * reports one) stayed the same on every page and matches the number of records read.
   */
  complete: boolean;
  total?: number;
}

/**
 * Reads a whole list page by page (`limit` = pageSize, `offset` += records received).
 * A short page ends the list, unless a reported `total` says more records exist (a CMS that
 * caps pages below our limit); an empty page always ends it.
 */
export async function readAll(
  call: (request: ApiRequest) => Promise<unknown>,
  resource: Resource,
  options: ListOptions,
  wire: WireOptions,
): Promise<ListResult> {
  const limit = wire.pageSize;
  const fields =
    options.fields && !options.fields.includes('id') ? ['id', ...options.fields] : options.fields;
  const records: RemoteRecord[] = [];
  const seen = new Set<number>();
  let total: number | undefined;
  let totalStable = true;
  let repeated = false;
  let shifted = false;
  /** Where the next page starts: advanced by the items each page held, as the CMS counts. */
  let offset = 0;

  const requestAt = (at: number): ApiRequest => ({
    resource,
    action: 'get',
    limit,
    offset: at,
    order_by: options.orderBy ?? 'id ASC',
    ...(fields ? { fields } : {}),
    ...(options.filters ? { filters: options.filters } : {}),
  });
  /** Takes the page at `offset` in; true when the list has ended. */
  const take = (data: unknown): boolean => {
    const { items, total: pageTotal } = readListData(data, resource, wire);
    if (offset === 0) total = pageTotal;
    else if (pageTotal !== total) totalStable = false;

    let fresh = 0;
    for (const item of items) {
      const record = asRecord(item);
      if (!record) {
        throw new CmsProtocolError(
          `A ${resource} record in the CMS's list has no numeric id (offset ${offset}); cannot track it.`,
          undefined,
        );
      }
      if (seen.has(record.id)) continue;
      seen.add(record.id);
      records.push(record);
      fresh++;
    }
    // A record seen twice means the list moved under us (a delete shifted the offsets), so one
    // may also have been skipped. A CMS that ignores `offset` would hand back the same page forever.
    if (fresh < items.length) shifted = true;
    if (items.length > 0 && fresh === 0) {
      repeated = true;
      return true;
    }
    offset += items.length;
    const short = items.length < limit;
    const moreByTotal = pageTotal !== undefined && records.length < pageTotal;
    return items.length === 0 || (short && !moreByTotal);
  };

  let done = take(await call(requestAt(0)));
  // A CMS that says how many there are and gives full pages: ask for the other pages at once
  // (the client's concurrency and rate limit still apply). Against a remote CMS, 100 pages one
  // after another are 100 round trips. The pages are taken in order, with the same checks.
  if (!done && total !== undefined && offset === limit && total > limit) {
    const offsets: number[] = [];
    for (let at = limit; at < total; at += limit) offsets.push(at);
    const pages = await Promise.all(offsets.map((at) => call(requestAt(at))));
    for (const [i, data] of pages.entries()) {
      // A page that came back short in the middle: the list moved, go on one page at a time.
      if (offsets[i] !== offset || (done = take(data))) break;
    }
  }
  while (!done) done = take(await call(requestAt(offset)));

  const complete = !repeated && !shifted && totalStable && (total === undefined || total === records.length);
  return total === undefined ? { records, complete } : { records, complete, total };
}
