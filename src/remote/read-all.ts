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
  const fields = options.fields && !options.fields.includes('id') ? ['id', ...options.fields] : options.fields;
  const records: RemoteRecord[] = [];
  const seen = new Set<number>();
  let total: number | undefined;
  let totalStable = true;
  let repeated = false;
  let shifted = false;

  for (let offset = 0, page = 0; ; page++) {
    const request: ApiRequest = {
      resource,
      action: 'get',
      limit,
      offset,
      order_by: options.orderBy ?? 'id ASC',
      ...(fields ? { fields } : {}),
      ...(options.filters ? { filters: options.filters } : {}),
    };
    const { items, total: pageTotal } = readListData(await call(request), resource, wire);
    if (page === 0) total = pageTotal;
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
      break;
    }
    offset += items.length;
    const short = items.length < limit;
    const moreByTotal = pageTotal !== undefined && records.length < pageTotal;
    if (items.length === 0 || (short && !moreByTotal)) break;
  }

  const complete = !repeated && !shifted && totalStable && (total === undefined || total === records.length);
  return total === undefined ? { records, complete } : { records, complete, total };
}
