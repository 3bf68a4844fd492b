import type { z as Z } from 'zod';
import type { RecordResource } from '../resources.js';
import { RESOURCE_TABLE, type Relation, type ResourceDescriptor } from '../resources/table.js';
import { zod, type ZodKit } from '../zod.js';
import { parseDate } from './parse-date.js';

type Schemas = Readonly<Record<RecordResource, Z.ZodObject>>;
let built: Schemas | undefined;

/**
 * Front matter that cms-sync understands, per resource (its entry in the resource table), built
 * on first use (a run that parses no file never loads zod). Keys not listed here are "extra":
 * passed through or reported, as the config says.
 */
export function frontMatterSchema(resource: RecordResource): Z.ZodObject {
  return (built ??= buildSchemas(zod(), RESOURCE_TABLE))[resource];
}

export function buildSchemas(
  z: ZodKit,
  table: Readonly<Record<RecordResource, ResourceDescriptor>>,
): Schemas {
  /** A real date (see parseDate); the zone only moves it, so validity is checked in UTC. */
  const date = z.unknown().superRefine((value, ctx) => {
    const parsed = parseDate(value, 'UTC');
    if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
  });
  const text = (name: string) =>
    z.string({ error: (issue) => `\`${name}\` must be text, got ${got(issue.input)}` });
  // Only a missing key is "required": `title: 5` is there, and is reported as what it is.
  const required = (name: string) =>
    z
      .string({
        error: (issue) =>
          issue.input === undefined
            ? `\`${name}\` is required: add \`${name}: ...\` to the front matter`
            : `\`${name}\` must be text, got ${got(issue.input)}; quote it if it is meant as text: ${name}: "..."`,
      })
      .trim()
      .min(1, { error: `\`${name}\` must not be empty` });
  const status = z
    .number({ error: '`status` must be a number (see statusMap in the config for draft/published)' })
    .int({ error: '`status` must be a whole number' });
  const draft = z.boolean({ error: '`draft` must be true or false' });
  /** Jekyll's `published: false` is a draft too. */
  const published = z.boolean({ error: '`published` must be true or false' });
  const slugOf = (relation: Relation) =>
    z
      .string({
        error: (issue) =>
          `\`${relation.key}\` must be the slug of a ${relation.target} (content/` +
          `${table[relation.target].folder}/<slug>.md), got ${got(issue.input)}`,
      })
      .trim()
      .min(1, { error: `\`${relation.key}\` must not be empty` });
  const relationShape = (relation: Relation, siblings: readonly Relation[]): Z.ZodType =>
    relation.many
      ? // One slug is a list of one.
        z.preprocess(
          (value) => (typeof value === 'string' ? [value] : value),
          z.array(slugOf(relation), {
            error: (issue) =>
              `\`${relation.key}\` must be a list of ${relation.target} slugs, e.g. ${relation.key}: [a, b], ` +
              `got ${got(issue.input)}`,
          }),
        )
      : z
          .string({
            error: (issue) =>
              Array.isArray(issue.input)
                ? `\`${relation.key}\` names one ${relation.target}, got a list` +
                  (listKeyFor(relation, siblings)
                    ? `: use \`${listKeyFor(relation, siblings)}:\` for several`
                    : '')
                : `\`${relation.key}\` must be the slug of a ${relation.target} (content/` +
                  `${table[relation.target].folder}/<slug>.md), got ${got(issue.input)}`,
          })
          .trim()
          .min(1, { error: `\`${relation.key}\` must not be empty` });

  const schemas = {} as Record<RecordResource, Z.ZodObject>;
  for (const resource of Object.keys(table) as RecordResource[]) {
    const descriptor = table[resource];
    const shape: Record<string, Z.ZodType> = { ...descriptor.frontMatter({ z, text, required, date }) };
    shape.slug = text('slug').optional();
    if (descriptor.hasStatus) {
      shape.status = status.optional();
      shape.draft = draft.optional();
      shape.published = published.optional();
    }
    for (const relation of descriptor.relations)
      shape[relation.key] = relationShape(relation, descriptor.relations).optional();
    schemas[resource] = z.object(shape);
  }
  return schemas;
}

/** The list key beside a single one (`authors` beside `author`), to point a list to it. */
function listKeyFor(single: Relation, relations: readonly Relation[]): string | undefined {
  return relations.find((r) => r.many && r.target === single.target && r.key.startsWith(single.key))?.key;
}

/** What a front matter value is, for messages: `a number (5)`, `a list`, `nothing`. */
function got(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (the key has no value)';
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? 'a date' : `a date (${value.toISOString().slice(0, 10)})`;
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping of keys';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return `a ${typeof value} (${String(value)})`;
  return `a ${typeof value}`;
}

export function knownKeys(resource: RecordResource): string[] {
  return Object.keys(frontMatterSchema(resource).shape);
}

/**
 * Front matter keys that keep a file's old addresses: Hugo's `aliases` and jekyll-redirect-from's
 * `redirect_from`. cms-sync reads them to find the record a renamed file was (see detectRenames)
 * and sends them to the CMS only when passThrough says so.
 */
export const HISTORY_KEYS: readonly string[] = ['aliases', 'redirect_from'];

/** The front matter key of a site's own stable id (Hugo, Jekyll and exported posts often carry one). */
export const SITE_ID_KEY = 'id';

/** A front matter `id` as the text it is matched by: a non-empty string or a finite number; else none. */
export function siteIdOf(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  return undefined;
}

/** The slugs a file's front matter says it had, from its first history key onwards. */
export interface FormerSlugs {
  slugs: string[];
  /** The history key, and its line, for messages. */
  key: string;
  line: number;
}

/** History keys -> the slugs they name, and a message per key that is not a list of addresses. */
export function formerSlugs(
  frontMatter: Readonly<Record<string, unknown>>,
  lines: Readonly<Record<string, number>>,
): { former?: FormerSlugs; problems: Array<{ key: string; message: string }> } {
  let former: FormerSlugs | undefined;
  const problems: Array<{ key: string; message: string }> = [];
  for (const key of HISTORY_KEYS) {
    const value = frontMatter[key];
    if (value === undefined || value === null) continue;
    const addresses = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
    if (addresses.length === 0 || addresses.some((a) => typeof a !== 'string')) {
      problems.push({
        key,
        message:
          `\`${key}\` must be a list of this file's old addresses or slugs, e.g. ${key}: [/posts/old-slug/], ` +
          `got ${got(value)}; not used to find the record it was renamed from`,
      });
      continue;
    }
    former ??= { slugs: [], key, line: lines[key] ?? 1 };
    for (const address of addresses as string[]) {
      const slug = slugOfAddress(address);
      if (slug !== undefined && !former.slugs.includes(slug)) former.slugs.push(slug);
    }
  }
  return former && former.slugs.length > 0 ? { former, problems } : { problems };
}

/**
 * An old address -> the slug it ends in: `/posts/old-slug/`, `old-slug`, `/2019/01/old-slug.html`
 * and `https://example.com/old-slug/index.html` all name `old-slug`.
 */
export function slugOfAddress(address: string): string | undefined {
  const segments = address
    .replace(/[?#].*$/s, '')
    .split('/')
    .filter((s) => s.trim() !== '');
  if (segments.length > 1 && /^index(?:\.html?)?$/i.test(segments.at(-1)!)) segments.pop();
  let slug = (segments.at(-1) ?? '').replace(/\.(?:html?|md|markdown)$/i, '').trim();
  try {
    slug = decodeURIComponent(slug);
  } catch {
    // A stray `%` is part of the name as written.
  }
  slug = slug.normalize('NFC');
  return slug === '' || slug === '.' || slug === '..' ? undefined : slug;
}
