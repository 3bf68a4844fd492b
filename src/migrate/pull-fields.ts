import type { ResolvedResource } from '../config/schema.js';
import { likelyTypo } from '../records/build-record.js';
import { knownKeys } from '../records/front-matter.js';
import type { RecordResource, RemoteRecord } from '../resources.js';
import { cmsOwnedFields, fromApi, managedFields } from '../resources/derived.js';
import { RESOURCE_TABLE } from '../resources/table.js';

/** Ids of the CMS's records, and the slugs cms-sync writes for them in front matter, by resource. */
export type SlugBook = ReadonlyMap<RecordResource, ReadonlyMap<number, string>>;

export interface PulledFields {
  frontMatter: Record<string, unknown>;
  /** The body's HTML (article `body`, page `content`), still to become Markdown. */
  html?: string;
  /** Why a field the CMS holds is not in the front matter, one line each (for the report). */
  notes: string[];
  /** API fields the config does not map back (passThrough leaves them out). */
  unmapped: string[];
}

/**
 * One CMS record -> the front matter cms-sync reads back into the same record, the inverse of
 * buildRecord: the managed fields as the resource table maps them (fromApi), then every other
 * field the config passes through (resources.<name>.passThrough) under its own name.
 */
export function pullFields(
  resource: RecordResource,
  record: RemoteRecord,
  config: ResolvedResource,
  slugs: SlugBook,
  /** The configured change marker (`wire.changeMarker`): the CMS sets it, like the resource's stamps. */
  changeMarker: string | false = false,
): PulledFields {
  const notes: string[] = [];
  const unmapped: string[] = [];
  const descriptor = RESOURCE_TABLE[resource];
  const pulled = fromApi(resource, record, {
    fields: config.fields,
    slugOf: (target, id) => slugs.get(target)?.get(id),
    warn: (message) => notes.push(message),
  });
  // Undefined is "not in the file": the key is left out rather than written empty.
  const frontMatter = Object.fromEntries(
    Object.entries(pulled.frontMatter).filter(([, v]) => v !== undefined),
  );
  const first = Object.keys(pulled.frontMatter);

  const managedApi = new Set(managedFields(descriptor).map((field) => config.fields[field] ?? field));
  const fieldOf = new Map(Object.entries(config.fields).map(([field, api]) => [api, field]));
  const serverKept = cmsOwnedFields(resource, changeMarker);
  const listed = (field: string) => Array.isArray(config.passThrough) && config.passThrough.includes(field);
  const known = new Set(knownKeys(resource));
  for (const [api, value] of Object.entries(record)) {
    if (managedApi.has(api) || value === null || value === undefined) continue;
    const field = fieldOf.get(api) ?? api;
    // Never written, not even when listed (see cmsOwnedFields).
    if (serverKept.has(field) && listed(field)) {
      notes.push(`field \`${api}\` is set by the CMS itself: left out, though passThrough lists it`);
      continue;
    }
    const passed = config.passThrough === true ? !serverKept.has(field) : listed(field);
    if (!passed) {
      if (!serverKept.has(field)) unmapped.push(api);
      continue;
    }
    if (value === '') continue;
    // A key cms-sync reads itself, or one it would take for a typo of one, cannot carry it.
    const meant = known.has(field) ? field : likelyTypo(field, known);
    if (meant && !listed(field)) {
      notes.push(`field \`${api}\` would be read as front matter \`${meant}\`; left out`);
      continue;
    }
    frontMatter[field] = value;
  }
  return {
    frontMatter: ordered(frontMatter, first),
    ...(pulled.html === undefined ? {} : { html: pulled.html }),
    notes,
    unmapped,
  };
}

/** Managed keys first, in the table's order (the order people write them), then the rest by name. */
function ordered(frontMatter: Record<string, unknown>, first: readonly string[]): Record<string, unknown> {
  const keys = [
    ...first.filter((k) => k in frontMatter),
    ...Object.keys(frontMatter)
      .filter((k) => !first.includes(k))
      .sort(),
  ];
  return Object.fromEntries(keys.map((k) => [k, frontMatter[k]]));
}
