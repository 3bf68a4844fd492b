import type { RecordResource, RemoteRecord, Resource } from '../../resources.js';
import { ApiError } from '../http/envelope.js';
import { EXPECTED_BLOCK_FORM, scanDynamicBlocks } from './dynamic-blocks.js';
import { FIELD_NAME, SCHEMAS, type FieldSpec } from './schema.js';

/** What validation needs to know about the rest of the CMS. */
export interface WriteContext {
  exists(resource: Resource, id: number): boolean;
  get(resource: Resource, id: number): RemoteRecord | undefined;
  normalizeHtml: boolean;
  now: Date;
}

/** A lenient ISO 8601 shape: a date, optionally a time and a zone. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Turns the `data` of an add (no `previous`) or an edit (partial, merged over `previous`) into
 * the record to store, or throws a 400 that names the field and says what is expected.
 */
export function buildRecord(
  resource: RecordResource,
  data: Record<string, unknown>,
  previous: RemoteRecord | undefined,
  ctx: WriteContext,
): Omit<RemoteRecord, 'id'> {
  const schema = SCHEMAS[resource];
  // Field names come from the client: `__proto__`, `constructor` and `toString` are ordinary
  // names here, so nothing is looked up through a prototype or assigned with `obj[name] =`.
  const patch = new Map<string, unknown>();
  for (const [name, value] of Object.entries(data)) {
    if (name === 'id') {
      if (previous && Number(value) === previous.id) continue;
      throw new ApiError(
        400,
        previous
          ? `data.id (${JSON.stringify(value)}) does not match the id of the record being edited (${previous.id}); ` +
              `ids cannot change.`
          : 'data.id is not allowed in add: the server assigns ids.',
      );
    }
    // Drift detection relies on updated_at meaning "last written here", so a client cannot set it;
    // it is ignored rather than refused so a record read back from the CMS can be sent as-is.
    if (name === 'updated_at') continue;
    const spec = Object.hasOwn(schema.fields, name) ? schema.fields[name] : undefined;
    if (spec) {
      patch.set(name, checkField(resource, name, spec, value, previous, ctx));
    } else if (schema.customFields) {
      if (!FIELD_NAME.test(name)) {
        throw new ApiError(
          400,
          `Field name ${JSON.stringify(name)} is not allowed for ${resource}: use letters, digits, "_" and "-", ` +
            `starting with a letter or "_".`,
        );
      }
      patch.set(name, value);
    } else {
      const allowed = Object.entries(schema.fields)
        .filter(([, s]) => !s.server)
        .map(([n]) => n);
      throw new ApiError(
        400,
        `Unknown field ${JSON.stringify(name)} for ${resource}. Allowed fields: ${allowed.join(', ')}.`,
      );
    }
  }

  // Object.fromEntries and spread define own properties, even one named `__proto__`.
  const merged: Record<string, unknown> = { ...previous, ...Object.fromEntries(patch) };
  delete merged.id;
  for (const [name, spec] of Object.entries(schema.fields)) {
    if (spec.required && (typeof merged[name] !== 'string' || (merged[name] as string).trim() === ''))
      throw requiredError(resource, name);
    if (merged[name] === undefined && spec.default !== undefined) merged[name] = spec.default;
  }
  const now = ctx.now.toISOString();
  if (merged.created_at === undefined || merged.created_at === null) merged.created_at = now;
  merged.updated_at = laterThan(previous?.updated_at, ctx.now);
  return orderFields(resource, merged);
}

function requiredError(resource: RecordResource, name: string): ApiError {
  return new ApiError(
    400,
    `Field "${name}" is required for ${resource}: send a non-empty string in data.${name}.`,
  );
}

function checkField(
  resource: RecordResource,
  name: string,
  spec: FieldSpec,
  value: unknown,
  previous: RemoteRecord | undefined,
  ctx: WriteContext,
): unknown {
  const where = `${resource}.${name}`;
  if (value === null && spec.required) throw requiredError(resource, name);
  if (value === null && spec.default === undefined) return null;
  switch (spec.kind) {
    case 'text':
      if (typeof value !== 'string')
        throw new ApiError(400, `${where} must be a string, got ${describe(value)}.`);
      return value;
    case 'html': {
      if (typeof value !== 'string')
        throw new ApiError(400, `${where} must be a string of HTML, got ${describe(value)}.`);
      const html = ctx.normalizeHtml ? normalizeHtml(value) : value;
      checkDynamicBlocks(where, html, ctx);
      return html;
    }
    case 'integer':
      if (!Number.isSafeInteger(value))
        throw new ApiError(400, `${where} must be an integer, got ${describe(value)}.`);
      return value;
    case 'timestamp':
      if (typeof value !== 'string' || !ISO_8601.test(value) || Number.isNaN(Date.parse(value))) {
        throw new ApiError(
          400,
          `${where} must be an ISO 8601 date-time such as "2024-05-01T09:30:00Z", got ${describe(value)}.`,
        );
      }
      return value;
    case 'reference': {
      const target = spec.references ?? resource;
      if (!Number.isSafeInteger(value) || (value as number) < 1) {
        throw new ApiError(
          400,
          `${where} must be the numeric id of a ${target} (or null), got ${describe(value)}.`,
        );
      }
      if (previous && target === resource && value === previous.id) {
        throw new ApiError(400, `${where} cannot be the record's own id (${previous.id}).`);
      }
      if (!ctx.exists(target, value as number))
        throw new ApiError(400, `${where} refers to ${target} ${value as number}, which does not exist.`);
      if (previous && target === resource)
        checkNoLoop(where, name, previous.id, value as number, target, ctx);
      return value;
    }
    case 'url':
      if (typeof value !== 'string') {
        throw new ApiError(400, `${where} must be a string (a URL), got ${describe(value)}.`);
      }
      checkLinkUrl(where, value);
      return value;
  }
}

/**
 * A record may not become its own ancestor through `field` (a category's parent chain): every
 * walk up the tree must end. Only an edit can close a loop, since a new record has no children.
 */
function checkNoLoop(
  where: string,
  field: string,
  id: number,
  parent: number,
  resource: Resource,
  ctx: WriteContext,
): void {
  const parentOf = (of: number) => ctx.get(resource, of)?.[field];
  const chain = [id, parent];
  const seen = new Set(chain);
  for (let current = parentOf(parent); Number.isSafeInteger(current); current = parentOf(current as number)) {
    chain.push(current as number);
    if (current === id) {
      const shown = chain.length > 12 ? [...chain.slice(0, 6), '…', ...chain.slice(-5)] : chain;
      const loop = `${resource} ${shown.join(' → ')}`;
      const rule = `a ${resource} cannot be its own ancestor`;
      throw new ApiError(400, `${where} ${parent} would make a loop (${loop}): ${rule}.`);
    }
    // A loop already on disk that does not pass through this record is not this edit's doing.
    if (seen.has(current as number)) return;
    seen.add(current as number);
  }
}

/**
 * Links a reader may click: absolute http(s) URLs and relative references. Every other scheme
 * is refused, `javascript:` and `data:` above all. The URL parser is the one a browser uses, so
 * tricks such as `java\tscript:` or leading spaces are seen as the scheme they become.
 */
function checkLinkUrl(where: string, value: string): void {
  if (value.trim() === '') return;
  let protocol: string;
  try {
    protocol = new URL(value, 'http://relative.invalid/').protocol;
  } catch {
    throw new ApiError(400, `${where} is not a valid URL: ${describe(value)}.`);
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    const refused = `${protocol} URLs are refused, got ${describe(value)}`;
    throw new ApiError(400, `${where} must be an http or https URL, or a relative one; ${refused}.`);
  }
}

function checkDynamicBlocks(where: string, html: string, ctx: WriteContext): void {
  const scan = scanDynamicBlocks(html);
  if (!scan.ok) {
    throw new ApiError(
      400,
      `${where} holds a malformed dynamic-block element: ${scan.element} — expected exactly ${EXPECTED_BLOCK_FORM}.`,
    );
  }
  for (const block of scan.blocks) {
    if (!ctx.exists('media', block.mediaId)) {
      throw new ApiError(
        400,
        `${where} embeds media ${block.mediaId}, which does not exist: upload it first with media upload_from_url.`,
      );
    }
  }
}

/** What a CMS editor does to stored HTML: whitespace between tags collapsed, ends trimmed. */
export function normalizeHtml(html: string): string {
  return html.replace(/>\s+</g, '><').trim();
}

/** `now`, or one millisecond after the previous stamp, so every write moves updated_at forward. */
function laterThan(previous: unknown, now: Date): string {
  const before = typeof previous === 'string' ? Date.parse(previous) : Number.NaN;
  return new Date(Number.isNaN(before) || now.getTime() > before ? now.getTime() : before + 1).toISOString();
}

/** id, then the schema's fields in schema order, then custom fields in the order they came. */
function orderFields(resource: Resource, record: Record<string, unknown>): Record<string, unknown> {
  const { fields } = SCHEMAS[resource];
  const ordered: Array<[string, unknown]> = [];
  for (const name of Object.keys(fields)) {
    if (Object.hasOwn(record, name) && record[name] !== undefined) ordered.push([name, record[name]]);
  }
  for (const [name, value] of Object.entries(record))
    if (!Object.hasOwn(fields, name)) ordered.push([name, value]);
  return Object.fromEntries(ordered);
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'object') return 'an object';
  return `${String(value)} (${typeof value})`;
}
