import type { RemoteRecord, Resource } from '../../resources.js';
import { ApiError } from '../http/envelope.js';
import type { RecordStore } from '../storage/record-store.js';
import { isQueryable, queryableFields } from '../records/schema.js';
import { describe } from '../records/validate.js';
import type { ParsedRequest } from './parse-request.js';

export const DEFAULT_LIMIT = 50;
/** Values one filter may list ("any of these"); a client with more should page through them. */
export const MAX_FILTER_VALUES = 1000;
/** Size of the whole `filters` object as JSON text. */
export const MAX_FILTERS_BYTES = 64 * 1024;

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
export function runGet(
  resource: Resource,
  store: Pick<RecordStore, 'list' | 'get'>,
  request: ParsedRequest,
): Record<string, unknown> | ListResult {
  const records = store.list(resource);
  const checkField = (name: string, where: string) => {
    if (!isQueryable(resource, records, name)) {
      throw new ApiError(
        400,
        `Unknown field ${JSON.stringify(name)} in ${where} for ${resource}. Known fields: ` +
          `${[...queryableFields(resource, records)].join(', ')}.`,
      );
    }
  };
  request.fields?.forEach((name) => checkField(name, '"fields"'));

  if (request.id !== undefined) {
    if (request.filters || request.limit !== undefined || request.offset !== undefined || request.orderBy) {
      throw new ApiError(
        400,
        '"id" reads one record; it cannot be combined with "filters", "limit", "offset" or "order_by".',
      );
    }
    const record = store.get(resource, request.id);
    if (!record) throw new ApiError(404, `${resource} ${request.id} does not exist.`);
    return pick(record, request.fields);
  }

  let matching = records;
  if (request.filters) checkFilterSize(request.filters);
  for (const [name, wanted] of Object.entries(request.filters ?? {})) {
    checkField(name, '"filters"');
    const matches = matcher(filterValues(name, wanted));
    matching = matching.filter((record) => matches(own(record, name)));
  }
  if (request.orderBy) {
    const { field, direction } = request.orderBy;
    checkField(field, '"order_by"');
    const sign = direction === 'ASC' ? 1 : -1;
    // The store lists in id order: `id ASC` (how clients page) needs no sort, `id DESC` a reversal.
    // Other fields' ties fall back to id ASC so that pages stay stable across requests.
    if (field === 'id') matching = direction === 'ASC' ? matching : [...matching].reverse();
    else
      matching = [...matching].sort(
        (a, b) => sign * compareValues(own(a, field), own(b, field)) || a.id - b.id,
      );
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

const SPLIT = 'Split the read into several requests.';

function checkFilterSize(filters: Record<string, unknown>): void {
  for (const [name, wanted] of Object.entries(filters)) {
    if (Array.isArray(wanted) && wanted.length > MAX_FILTER_VALUES) {
      const most = `at most ${MAX_FILTER_VALUES} are accepted`;
      throw new ApiError(400, `filters.${name} lists ${wanted.length} values; ${most}. ${SPLIT}`);
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(filters));
  if (bytes > MAX_FILTERS_BYTES) {
    throw new ApiError(
      400,
      `"filters" is ${bytes} bytes of JSON; at most ${MAX_FILTERS_BYTES} are accepted. ${SPLIT}`,
    );
  }
}

function filterValues(name: string, wanted: unknown): Scalar[] {
  const values = Array.isArray(wanted) ? wanted : [wanted];
  if (Array.isArray(wanted) && wanted.length === 0)
    throw new ApiError(400, `filters.${name} is an empty list; it would match nothing.`);
  for (const value of values) {
    if (value !== null && typeof value === 'object') {
      throw new ApiError(
        400,
        `filters.${name} must be a value or a list of values to match exactly, got ${describe(value)}.`,
      );
    }
  }
  return values as Scalar[];
}

/**
 * A test of a record's value against a filter's values, with sets rather than a scan of the
 * values per record. Equality is loose in one way only: a number equals its decimal string,
 * in either direction (a blank string equals nothing); `null` also matches a missing field.
 */
function matcher(wanted: Scalar[]): (actual: unknown) => boolean {
  const strings = new Set<string>();
  const numbers = new Set<number>();
  const numericStrings = new Set<number>();
  const booleans = new Set<boolean>();
  let matchesNull = false;
  for (const value of wanted) {
    if (value === null) matchesNull = true;
    else if (typeof value === 'string') {
      strings.add(value);
      if (value.trim() !== '' && !Number.isNaN(Number(value))) numericStrings.add(Number(value));
    } else if (typeof value === 'number') numbers.add(value);
    else booleans.add(value);
  }
  return (actual) => {
    if (actual === undefined || actual === null) return matchesNull;
    if (typeof actual === 'number') return numbers.has(actual) || numericStrings.has(actual);
    if (typeof actual === 'string')
      return strings.has(actual) || (actual.trim() !== '' && numbers.has(Number(actual)));
    if (typeof actual === 'boolean') return booleans.has(actual);
    return false;
  };
}

/** A record's own field: a name such as `constructor` must not reach Object.prototype. */
function own(record: RemoteRecord, name: string): unknown {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

/** Missing and null first, then numbers, then strings by code point, then anything else as JSON. */
function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const sa = typeof a === 'string' ? a : (JSON.stringify(a) ?? '');
  const sb = typeof b === 'string' ? b : (JSON.stringify(b) ?? '');
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
  return Object.fromEntries(fields.map((name) => [name, own(record, name) ?? null]));
}
