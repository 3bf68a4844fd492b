import { ACTIONS, RESOURCES, type Action, type Resource } from '../../resources.js';
import { ApiError } from '../http/envelope.js';
import { describe } from '../records/validate.js';

/** The request body (docs/cms-api.md), checked for shape; field names are checked per resource later. */
export interface ParsedRequest {
  resource: Resource;
  action: Action;
  id?: number;
  fields?: string[];
  filters?: Record<string, unknown>;
  limit?: number;
  offset?: number;
  orderBy?: { field: string; direction: 'ASC' | 'DESC' };
  data?: Record<string, unknown>;
}

const KNOWN_KEYS = new Set([
  'resource',
  'action',
  'id',
  'fields',
  'filters',
  'limit',
  'offset',
  'order_by',
  'data',
]);
const ALL_ACTIONS: readonly Action[] = [...ACTIONS, 'upload_from_url'];

export function parseRequest(body: unknown): ParsedRequest {
  if (!isPlainObject(body))
    throw new ApiError(400, `The request body must be a JSON object, got ${describe(body)}.`);
  for (const key of Object.keys(body)) {
    if (!KNOWN_KEYS.has(key))
      throw new ApiError(
        400,
        `Unknown request field ${JSON.stringify(key)}. Known fields: ${[...KNOWN_KEYS].join(', ')}.`,
      );
  }
  const { resource, action } = body;
  if (typeof resource !== 'string' || !(RESOURCES as readonly string[]).includes(resource)) {
    throw new ApiError(400, `"resource" must be one of ${RESOURCES.join(', ')}, got ${describe(resource)}.`);
  }
  if (typeof action !== 'string' || !(ALL_ACTIONS as readonly string[]).includes(action)) {
    throw new ApiError(400, `"action" must be one of ${ALL_ACTIONS.join(', ')}, got ${describe(action)}.`);
  }
  const request: ParsedRequest = { resource: resource as Resource, action: action as Action };
  if (body.id !== undefined) request.id = parseId(body.id);
  if (body.fields !== undefined) request.fields = parseFields(body.fields);
  if (body.filters !== undefined) {
    if (!isPlainObject(body.filters))
      throw new ApiError(400, `"filters" must be an object of field: value, got ${describe(body.filters)}.`);
    request.filters = body.filters;
  }
  if (body.limit !== undefined) request.limit = parseLimit(body.limit);
  if (body.offset !== undefined) {
    if (!Number.isSafeInteger(body.offset) || (body.offset as number) < 0) {
      throw new ApiError(400, `"offset" must be an integer >= 0, got ${describe(body.offset)}.`);
    }
    request.offset = body.offset as number;
  }
  if (body.order_by !== undefined) request.orderBy = parseOrderBy(body.order_by);
  if (body.data !== undefined) {
    if (!isPlainObject(body.data))
      throw new ApiError(400, `"data" must be an object of field: value, got ${describe(body.data)}.`);
    request.data = body.data;
  }
  return request;
}

/** Ids are numbers; a numeric string is accepted too, as CMS clients often send ids as text. */
export function parseId(value: unknown): number {
  const id = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (!Number.isSafeInteger(id) || (id as number) < 1)
    throw new ApiError(400, `"id" must be a positive integer, got ${describe(value)}.`);
  return id as number;
}

function parseFields(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((f) => typeof f === 'string')) {
    throw new ApiError(400, `"fields" must be a non-empty array of field names, got ${describe(value)}.`);
  }
  return value as string[];
}

/**
 * The spec caps `limit` at 100. A larger limit is refused rather than clamped: a client that
 * pages by the limit it asked for would otherwise skip records without noticing.
 */
function parseLimit(value: unknown): number {
  if (!Number.isSafeInteger(value) || (value as number) < 1)
    throw new ApiError(400, `"limit" must be an integer from 1 to 100, got ${describe(value)}.`);
  if ((value as number) > 100)
    throw new ApiError(
      400,
      `"limit" must be at most 100, got ${value as number}; read larger lists page by page with "offset".`,
    );
  return value as number;
}

function parseOrderBy(value: unknown): { field: string; direction: 'ASC' | 'DESC' } {
  const match =
    typeof value === 'string' ? /^\s*([A-Za-z_][A-Za-z0-9_-]*)(?:\s+(asc|desc))?\s*$/i.exec(value) : null;
  if (!match?.[1])
    throw new ApiError(
      400,
      `"order_by" must look like "<field> ASC" or "<field> DESC", got ${describe(value)}.`,
    );
  return { field: match[1], direction: (match[2]?.toUpperCase() ?? 'ASC') as 'ASC' | 'DESC' };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
