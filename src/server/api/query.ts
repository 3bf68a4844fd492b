import type { RemoteRecord, Resource } from '../../resources.js';
import { ApiError } from '../http/envelope.js';
import type { RecordStore } from '../storage/record-store.js';
import { isQueryable, queryableFields } from '../records/schema.js';
import { describe } from '../records/validate.js';
import type { ParsedRequest } from './parse-request.js';

export const DEFAULT_LIMIT = 50;

export interface ListResult {
  items: Record<string, unknown>[];
  total: number;
  limit: number;
  offset: number;
}

type Scalar = string | number | boolean | null;

/**
 * `get`: one record by `id`, or a page of a filtered, sorted list.
 *
 * Filters are equality tests on any field the resource has (see `queryableFields`); an array
 * value means "any of these". A number and its decimal string compare equal, since ids and
 * statuses often travel as text. A record without the field only matches `null`.
 */
export function runGet(resource: Resource, store: Pick<RecordStore, 'list' | 'get'>, request: ParsedRequest): Record<string, unknown> | ListResult {
  const records = store.list(resource);
  const checkField = (name: string, where: string) => {
    if (!isQueryable(resource, records, name)) {
      throw new ApiError(400, `Unknown field ${JSON.stringify(name)} in ${where} for ${resource}. Known fields: ${[...queryableFields(resource, records)].join(', ')}.`);
    }
  };
  request.fields?.forEach((name) => checkField(name, '"fields"'));

  if (request.id !== undefined) {
    if (request.filters || request.limit !== undefined || request.offset !== undefined || request.orderBy) {
      throw new ApiError(400, '"id" reads one record; it cannot be combined with "filters", "limit", "offset" or "order_by".');
    }
    const record = store.get(resource, request.id);
    if (!record) throw new ApiError(404, `${resource} ${request.id} does not exist.`);
    return pick(record, request.fields);
  }

  let matching = records;
  for (const [name, wanted] of Object.entries(request.filters ?? {})) {
    checkField(name, '"filters"');
    const accepted = filterValues(name, wanted);
    matching = matching.filter((record) => accepted.some((value) => looselyEqual(record[name], value)));
  }
  if (request.orderBy) {
    const { field, direction } = request.orderBy;
    checkField(field, '"order_by"');
    const sign = direction === 'ASC' ? 1 : -1;
    // The store lists in id order: `id ASC` (how clients page) needs no sort, `id DESC` a reversal.
    // Other fields' ties fall back to id ASC so that pages stay stable across requests.
    if (field === 'id') matching = direction === 'ASC' ? matching : [...matching].reverse();
    else matching = [...matching].sort((a, b) => sign * compareValues(a[field], b[field]) || a.id - b.id);
  }
  const limit = request.limit ?? DEFAULT_LIMIT;
  const offset = request.offset ?? 0;
  return {
    items: matching.slice(offset, offset + limit).map((record) => pick(record, request.fields)),
    total: matching.length,
    limit,
    offset,
  };
}

function filterValues(name: string, wanted: unknown): Scalar[] {
  const values = Array.isArray(wanted) ? wanted : [wanted];
  if (Array.isArray(wanted) && wanted.length === 0) throw new ApiError(400, `filters.${name} is an empty list; it would match nothing.`);
  for (const value of values) {
    if (value !== null && typeof value === 'object') {
      throw new ApiError(400, `filters.${name} must be a value or a list of values to match exactly, got ${describe(value)}.`);
    }
  }
  return values as Scalar[];
}

function looselyEqual(actual: unknown, wanted: Scalar): boolean {
  if (actual === undefined) return wanted === null;
  if (actual === wanted) return true;
  if (typeof actual === 'number' && typeof wanted === 'string') return wanted.trim() !== '' && Number(wanted) === actual;
  if (typeof actual === 'string' && typeof wanted === 'number') return actual.trim() !== '' && Number(actual) === wanted;
  return false;
}

/** Missing and null first, then numbers, then strings by code point, then anything else as JSON. */
function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const sa = typeof a === 'string' ? a : JSON.stringify(a) ?? '';
  const sb = typeof b === 'string' ? b : JSON.stringify(b) ?? '';
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

function rank(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number') return 1;
  if (typeof value === 'string') return 2;
  return 3;
}

function pick(record: RemoteRecord, fields: string[] | undefined): Record<string, unknown> {
  if (!fields) return record;
  // A named field the record does not hold comes back as null, so every item has the same keys.
  return Object.fromEntries(fields.map((name) => [name, record[name] ?? null]));
}
