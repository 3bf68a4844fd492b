import type { ResolvedResource } from '../config/schema.js';
import { likelyTypo } from '../records/build-record.js';
import { knownKeys } from '../records/front-matter.js';
import type { RecordResource, RemoteRecord } from '../resources.js';
import { RESOURCE_TABLE } from '../resources/table.js';

/** Ids of the CMS's records, and the slugs cms-sync writes for them in front matter. */
export interface SlugBook {
  category: ReadonlyMap<number, string>;
  user: ReadonlyMap<number, string>;
}

export interface PulledFields {
  frontMatter: Record<string, unknown>;
  /** The body's HTML (article `body`, page `content`), still to become Markdown. */
  html?: string;
  /** Why a field the CMS holds is not in the front matter, one line each (for the report). */
  notes: string[];
  /** API fields the config does not map back (passThrough leaves them out). */
  unmapped: string[];
}

/** Managed fields: cms-sync field -> front matter key (undefined: the file's name, or the body). */
const FRONT_MATTER_KEY: Readonly<Record<RecordResource, Readonly<Record<string, string | undefined>>>> = {
  article: {
    title: 'title',
    slug: undefined,
    created_at: 'date',
    status: 'status',
    category_id: 'category',
    body: undefined,
  },
  page: { title: 'title', slug: undefined, status: 'status', content: undefined },
  category: { name: 'name', slug: undefined, description: 'description' },
  breaking: { title: 'title', slug: undefined, url: 'url', status: 'status' },
  user: { name: 'name', slug: undefined, email: 'email', role: 'role', bio: 'bio' },
};

/** Kept by the CMS itself: never written back unless passThrough names them. */
const SERVER_FIELDS = new Set(['id', 'updated_at', 'created_at']);

/**
 * One CMS record -> the front matter cms-sync reads back into the same record: every managed
 * field under its front matter key, relation ids as slugs, and every other field the config
 * passes through (resources.<name>.passThrough) under its own name — the inverse of
 * buildRecord. Kept as one function so that a per-resource descriptor can take its place.
 */
export function pullFields(
  resource: RecordResource,
  record: RemoteRecord,
  config: ResolvedResource,
  slugs: SlugBook,
): PulledFields {
  const frontMatter: Record<string, unknown> = {};
  const notes: string[] = [];
  const unmapped: string[] = [];
  const fieldOf = new Map(Object.entries(config.fields).map(([field, api]) => [api, field]));
  const managed = FRONT_MATTER_KEY[resource];
  const known = new Set(knownKeys(resource));
  let html: string | undefined;

  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const number = (value: unknown) => {
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
  };
  const slugOf = (to: keyof SlugBook, id: unknown, field: string) => {
    const n = number(id);
    if (n === undefined) return undefined;
    const slug = slugs[to].get(n);
    if (slug === undefined) notes.push(`${field} ${n} is no ${to} with a slug in the CMS; left out`);
    return slug;
  };

  for (const [api, value] of Object.entries(record)) {
    const field = fieldOf.get(api) ?? api;
    if (value === null || value === undefined) continue;
    if (Object.hasOwn(managed, field)) {
      const key = managed[field];
      if (field === 'body' || field === 'content') html = text(value);
      else if (key === 'date') {
        const date = text(value);
        if (date && !Number.isNaN(Date.parse(date))) frontMatter.date = new Date(date);
      } else if (key === 'status') frontMatter.status = number(value);
      else if (key === 'category') frontMatter.category = slugOf('category', value, api);
      else if (key === 'url' || key === 'email') frontMatter[key] = checked(key, text(value), notes);
      else if (key !== undefined) frontMatter[key] = text(value);
      continue;
    }
    // Relations come from the resource table, as the plan and the payload read them.
    const relation = RESOURCE_TABLE[resource].relations.find((r) => r.field === field && r.target in slugs);
    if (relation) {
      const to = relation.target as keyof SlugBook;
      const value_ = relation.many
        ? (Array.isArray(value) ? value : []).map((id) => slugOf(to, id, api)).filter(Boolean)
        : slugOf(to, value, api);
      if (relation.many ? (value_ as unknown[]).length : value_ !== undefined)
        frontMatter[relation.key] = value_;
      continue;
    }
    const passed =
      config.passThrough === true
        ? !SERVER_FIELDS.has(field)
        : Array.isArray(config.passThrough) && config.passThrough.includes(field);
    if (!passed) {
      if (!SERVER_FIELDS.has(field) && !(field === 'parent_id' && resource === 'category'))
        unmapped.push(api);
      continue;
    }
    if (value === '') continue;
    // A key cms-sync reads itself, or one it would take for a typo of one, cannot carry it.
    const meant = known.has(field) ? field : likelyTypo(field, known);
    if (meant && !(Array.isArray(config.passThrough) && config.passThrough.includes(field))) {
      notes.push(`field \`${api}\` would be read as front matter \`${meant}\`; left out`);
      continue;
    }
    frontMatter[field] = value;
  }
  return {
    frontMatter: ordered(frontMatter, resource),
    ...(html === undefined ? {} : { html }),
    notes,
    unmapped,
  };
}

/** A URL or address as front matter takes it, or undefined (and a note) when it would not. */
function checked(key: 'url' | 'email', value: string | undefined, notes: string[]): string | undefined {
  if (value === undefined || value === '') return undefined;
  const valid = key === 'url' ? URL.canParse(value) : /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
  if (!valid)
    notes.push(`${key} \`${value}\` is not ${key === 'url' ? 'an absolute URL' : 'an address'}; left out`);
  return valid ? value : undefined;
}

/** Managed keys first, in the order people write them, then the rest by name. */
function ordered(frontMatter: Record<string, unknown>, resource: RecordResource): Record<string, unknown> {
  const first = [...Object.values(FRONT_MATTER_KEY[resource]), 'author', 'authors', 'parent'].filter(
    (k): k is string => k !== undefined,
  );
  const keys = [
    ...first.filter((k) => k in frontMatter),
    ...Object.keys(frontMatter)
      .filter((k) => !first.includes(k))
      .sort(),
  ];
  return Object.fromEntries(keys.map((k) => [k, frontMatter[k]]));
}
