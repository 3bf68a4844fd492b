import { SyncError } from '../errors.js';
import type { RemoteRecord } from '../resources.js';
import { CmsProtocolError } from './errors.js';

/**
 * How the CMS's "not shown" parts of the API are read (docs/cms-api.md). Every field can be
 * overridden, because a real CMS may differ.
 */
export interface WireOptions {
  /** Path of the single endpoint under the base URL. @default '/functions/api' */
  endpointPath: string;
  /**
   * Page size for lists. The API's maximum is 100: a larger value is rejected, not clamped.
   * @default 100
   */
  pageSize: number;
  /**
   * Where a list's array may be found when `data` is an object; `{resource}` is replaced by the
   * resource name. @default ['items','records','results','rows','list','{resource}s']
   */
  listKeys: string[];
  /**
   * Where a list's total count may be found, dotted paths tried in order.
   * @default ['total','total_count','totalCount','meta.total','pagination.total']
   */
  totalKeys: string[];
  /**
   * Where a created record's id may be found, dotted paths tried in order; then any single
   * nested object one level down that has an `id`. @default ['id','record.id','item.id','data.id']
   */
  idPaths: string[];
  /**
   * Dotted paths where an answer to get, add or edit may hold the record itself, tried before the
   * usual places (the answer itself, or one object one level down). For a CMS that answers
   * `{"result":{"entry":{...}}}`, `['result.entry']`: then the record written is read from the
   * answer instead of being fetched again. Its id is also looked for there. @default []
   */
  recordPaths: string[];
  /** Keys that may hold a media id. @default ['id','media_id','mediaId'] */
  mediaIdKeys: string[];
  /** Header carrying an idempotency key on writes, or false for none. @default 'Idempotency-Key' */
  idempotencyHeader: string | false;
  /** Request property that carries a record's fields on add and edit. @default 'data' */
  payloadKey: string;
  /** Property of the upload payload that holds the URL to fetch. @default 'url' */
  uploadUrlField: string;
  /**
   * Field of a media record (upload and edit) that holds the image's alt text, or false to send
   * none. @default 'alt'
   */
  mediaAltField: string | false;
  /** Field of a media record (upload and edit) that holds the image's title, or false to send none. @default 'title' */
  mediaTitleField: string | false;
}

export const MAX_PAGE_SIZE = 100;

export const DEFAULT_WIRE: WireOptions = Object.freeze({
  endpointPath: '/functions/api',
  pageSize: MAX_PAGE_SIZE,
  listKeys: ['items', 'records', 'results', 'rows', 'list', '{resource}s'],
  totalKeys: ['total', 'total_count', 'totalCount', 'meta.total', 'pagination.total'],
  idPaths: ['id', 'record.id', 'item.id', 'data.id'],
  recordPaths: [],
  mediaIdKeys: ['id', 'media_id', 'mediaId'],
  idempotencyHeader: 'Idempotency-Key',
  payloadKey: 'data',
  uploadUrlField: 'url',
  mediaAltField: 'alt',
  mediaTitleField: 'title',
}) as WireOptions;

export function resolveWire(partial: Partial<WireOptions> = {}): WireOptions {
  const wire: WireOptions = { ...DEFAULT_WIRE, ...stripUndefined(partial) };
  if (!Number.isInteger(wire.pageSize) || wire.pageSize < 1 || wire.pageSize > MAX_PAGE_SIZE) {
    throw invalid(
      'wire.pageSize',
      `an integer between 1 and ${MAX_PAGE_SIZE} (the API's maximum limit)`,
      wire.pageSize,
    );
  }
  if (typeof wire.endpointPath !== 'string' || !wire.endpointPath.startsWith('/')) {
    throw invalid('wire.endpointPath', 'a path starting with `/`', wire.endpointPath);
  }
  for (const key of ['listKeys', 'totalKeys', 'idPaths', 'recordPaths', 'mediaIdKeys'] as const) {
    if (!Array.isArray(wire[key]) || !wire[key].every((k) => typeof k === 'string' && k !== '')) {
      throw invalid(`wire.${key}`, 'an array of non-empty strings', wire[key]);
    }
  }
  for (const key of ['mediaAltField', 'mediaTitleField'] as const) {
    if (wire[key] !== false && (typeof wire[key] !== 'string' || wire[key] === '')) {
      throw invalid(`wire.${key}`, 'a field name or `false`', wire[key]);
    }
  }
  const header = wire.idempotencyHeader;
  if (header !== false && (typeof header !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header))) {
    throw invalid('wire.idempotencyHeader', 'a header name or `false`', header);
  }
  return wire;
}

export function invalid(name: string, expected: string, got: unknown): SyncError {
  const shown = typeof got === 'string' ? got : JSON.stringify(got);
  return new SyncError(
    'CMS_SYNC_CONFIG',
    `Expected \`${name}\` to be ${expected}, got \`${shown}\` (${typeof got}).`,
  );
}

/** Tolerant reading of a list's `data`: an array, or an object in which one property holds the array. */
export function readListData(
  data: unknown,
  resource: string,
  wire: WireOptions,
): { items: unknown[]; total?: number } {
  if (data === null || data === undefined) return { items: [] };
  if (Array.isArray(data)) return { items: data };
  if (!isObject(data)) throw unreadableList(data, resource, wire);
  const found = findArray(data, resource, wire) ?? findInSingleNested(data, resource, wire);
  if (!found) throw unreadableList(data, resource, wire);
  const total = readTotal(data, wire) ?? (found.holder === data ? undefined : readTotal(found.holder, wire));
  return total === undefined ? { items: found.items } : { items: found.items, total };
}

/** A record's id (or a created record's id): a non-negative integer, or a string of digits. */
export function readId(data: unknown, wire: WireOptions): number | undefined {
  for (const path of [...wire.recordPaths.map((p) => `${p}.id`), ...wire.idPaths]) {
    const id = toId(getPath(data, path));
    if (id !== undefined) return id;
  }
  const nested = singleNestedWith(data, (o) => toId(o.id) !== undefined);
  return nested ? toId(nested.id) : undefined;
}

/** An image's alt text and title, in cms-sync's terms. */
export interface MediaText {
  alt?: string | undefined;
  title?: string | undefined;
}

/**
 * The alt text and title as the CMS's media fields (wire.mediaAltField / mediaTitleField). An
 * upload leaves out what is empty; an `edit` of a media record sends it as null, which clears it.
 */
export function mediaTextFields(
  text: MediaText,
  wire: Pick<WireOptions, 'mediaAltField' | 'mediaTitleField'>,
  empty: 'omit' | 'clear',
): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  const put = (field: string | false, value: string | undefined) => {
    if (field === false) return;
    if (value) out[field] = value;
    else if (empty === 'clear') out[field] = null;
  };
  put(wire.mediaAltField, text.alt);
  put(wire.mediaTitleField, text.title);
  return out;
}

export function readMediaId(data: unknown, wire: WireOptions): number | undefined {
  const direct = readKeys(data, wire.mediaIdKeys);
  if (direct !== undefined) return direct;
  const nested = singleNestedWith(data, (o) => readKeys(o, wire.mediaIdKeys) !== undefined);
  return nested ? readKeys(nested, wire.mediaIdKeys) : undefined;
}

/**
 * A single record from `data`: the object itself, a single nested object holding it
 * (`{record: {...}}`), or the one item of a list whose id matches `expectedId`.
 */
export function readRecord(
  data: unknown,
  resource: string,
  wire: WireOptions,
  expectedId?: number,
): RemoteRecord | undefined {
  const fits = (o: Record<string, unknown>) => {
    const id = toId(o.id);
    return id !== undefined && (expectedId === undefined || id === expectedId);
  };
  for (const path of wire.recordPaths) {
    const held = getPath(data, path);
    if (isObject(held) && fits(held)) return asRecord(held);
  }
  if (isObject(data) && fits(data)) return asRecord(data);
  const nested = singleNestedWith(data, fits);
  if (nested) return asRecord(nested);
  if (data === null || data === undefined) return undefined;
  let items: unknown[];
  try {
    items = readListData(data, resource, wire).items;
  } catch {
    return undefined;
  }
  const match = items.filter(isObject).filter(fits);
  return match.length === 1 ? asRecord(match[0]) : undefined;
}

/** A record with its id normalised to a number, or undefined when it has no readable id. */
export function asRecord(value: unknown): RemoteRecord | undefined {
  if (!isObject(value)) return undefined;
  const id = toId(value.id);
  // Copied only when the id needs normalising (a string of digits): listings hold 10,000s.
  return id === undefined ? undefined : id === value.id ? (value as RemoteRecord) : { ...value, id };
}

export function toId(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function findArray(
  data: Record<string, unknown>,
  resource: string,
  wire: WireOptions,
): { items: unknown[]; holder: Record<string, unknown> } | undefined {
  for (const key of wire.listKeys) {
    const value = data[key.replaceAll('{resource}', resource)];
    if (Array.isArray(value)) return { items: value, holder: data };
  }
  const arrays = Object.values(data).filter(Array.isArray);
  return arrays.length === 1 && arrays[0] ? { items: arrays[0], holder: data } : undefined;
}

function findInSingleNested(data: Record<string, unknown>, resource: string, wire: WireOptions) {
  const objects = Object.values(data).filter(isObject);
  const hits = objects.map((o) => findArray(o, resource, wire)).filter((hit) => hit !== undefined);
  return hits.length === 1 ? hits[0] : undefined;
}

function readTotal(data: unknown, wire: WireOptions): number | undefined {
  for (const path of wire.totalKeys) {
    const total = toId(getPath(data, path));
    if (total !== undefined) return total;
  }
  return undefined;
}

function readKeys(data: unknown, keys: string[]): number | undefined {
  if (!isObject(data)) return toId(data);
  for (const key of keys) {
    const id = toId(data[key]);
    if (id !== undefined) return id;
  }
  return undefined;
}

function getPath(data: unknown, path: string): unknown {
  let value = data;
  for (const part of path.split('.')) {
    if (!isObject(value)) return undefined;
    value = value[part];
  }
  return value;
}

/** The one object-valued property of `data` that passes `test`; none when zero or several do. */
function singleNestedWith(
  data: unknown,
  test: (o: Record<string, unknown>) => boolean,
): Record<string, unknown> | undefined {
  if (!isObject(data)) return undefined;
  const hits = Object.values(data).filter(isObject).filter(test);
  return hits.length === 1 ? hits[0] : undefined;
}

function unreadableList(data: unknown, resource: string, wire: WireOptions): CmsProtocolError {
  const keys = isObject(data) ? Object.keys(data).slice(0, 10).join(', ') || 'none' : typeof data;
  const tried = wire.listKeys.map((k) => k.replaceAll('{resource}', resource)).join(', ');
  return new CmsProtocolError(
    `Could not find the list of ${resource} records in the CMS's answer (keys: ${keys}). ` +
      `Tried ${tried}; set \`wire.listKeys\` in sync.config.ts to the key your CMS uses.`,
    undefined,
  );
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
