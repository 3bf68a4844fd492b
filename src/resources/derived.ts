import { RECORD_RESOURCES, type RecordResource, type RemoteRecord } from '../resources.js';
import { RESOURCE_TABLE, type RecordRef, type ResourceDescriptor } from './table.js';

// What the rest of cms-sync reads off the resource table (table.ts), computed from it alone.

/** Refs as state keeps them (by front matter key) -> RecordRefs; keys the table no longer has are dropped. */
export function refsFromState(
  resource: RecordResource,
  kept: Readonly<Record<string, { slugs: string[]; line: number }>>,
  table: Readonly<Record<RecordResource, ResourceDescriptor>> = RESOURCE_TABLE,
): RecordRef[] {
  const refs: RecordRef[] = [];
  for (const relation of table[resource].relations) {
    const ref = kept[relation.key];
    if (ref) refs.push({ relation, slugs: ref.slugs, line: ref.line });
  }
  return refs;
}

/** Every managed field of a resource, in the order shown: its own, status, relations, HTML. */
export function managedFields(
  descriptor: Pick<ResourceDescriptor, 'fields' | 'hasStatus' | 'relations' | 'htmlField'>,
): string[] {
  return [
    ...descriptor.fields,
    ...(descriptor.hasStatus ? ['status'] : []),
    ...descriptor.relations.map((r) => r.field),
    ...(descriptor.htmlField ? [descriptor.htmlField] : []),
  ];
}

/**
 * Fields the CMS sets itself: the resource's `serverKept` (id, its time stamps) and the configured
 * change marker. Never sent and never pulled, whatever passThrough says: front matter `id` is the
 * old site's id, and the CMS's own would collide with it either way.
 */
export function cmsOwnedFields(resource: RecordResource, changeMarker: string | false): Set<string> {
  const owned = new Set<string>(RESOURCE_TABLE[resource].serverKept);
  if (changeMarker) owned.add(changeMarker);
  return owned;
}

/**
 * The order records are written in: a resource after every resource it points at. Relations
 * within one resource (a category's parent) are ordered record by record, see the plan.
 */
export function resourceOrder(table: Readonly<Record<RecordResource, ResourceDescriptor>>): RecordResource[] {
  const order: RecordResource[] = [];
  const visiting = new Set<RecordResource>();
  const visit = (resource: RecordResource, path: RecordResource[]) => {
    if (order.includes(resource)) return;
    if (visiting.has(resource))
      throw new Error(`the resource table's relations loop: ${[...path, resource].join(' -> ')}`);
    visiting.add(resource);
    for (const relation of table[resource].relations)
      if (relation.target !== resource) visit(relation.target, [...path, resource]);
    visiting.delete(resource);
    order.push(resource);
  };
  for (const resource of RECORD_RESOURCES) visit(resource, []);
  return order;
}

/** content/<folder>/ -> resource. */
export function folderToResource(
  table: Readonly<Record<RecordResource, ResourceDescriptor>>,
): Record<string, RecordResource> {
  return Object.fromEntries(RECORD_RESOURCES.map((r) => [table[r].folder, r]));
}

/** What `fromApi` needs besides the record: the API's field names, and the slugs of ids it names. */
export interface FromApiContext {
  /** cms-sync field name -> API field name (`resources.<r>.fields`, resolved). */
  fields: Readonly<Record<string, string>>;
  /** The slug of a record the CMS holds, by resource and id, if it has one. */
  slugOf: (resource: RecordResource, id: number) => string | undefined;
  /** A note for the report about what could not be carried into front matter. */
  warn?: (message: string) => void;
  table?: Readonly<Record<RecordResource, ResourceDescriptor>>;
}

/**
 * A CMS record -> the front matter keys cms-sync reads back (undefined values left out by the
 * writer), and the HTML of its body field if it has one (for the caller to turn into Markdown).
 * Relation ids become slugs; an id whose record has no slug is left out with a warning. Warnings
 * are about this record, worded to follow its label (`article 3: ...`).
 */
export function fromApi(
  resource: RecordResource,
  record: RemoteRecord,
  ctx: FromApiContext,
): { frontMatter: Record<string, unknown>; html?: string } {
  const descriptor = (ctx.table ?? RESOURCE_TABLE)[resource];
  const warn = ctx.warn ?? (() => {});
  const get = (field: string) => record[ctx.fields[field] ?? field];
  const text = (field: string) => {
    const value = get(field);
    return typeof value === 'string' ? value : undefined;
  };
  const required = (field: string) => {
    const value = text(field);
    if (value?.trim()) return value;
    warn(`no ${field} in the CMS; written as "(untitled)" (the CMS gets that on the next apply)`);
    return '(untitled)';
  };
  const idOf = (value: unknown) => {
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
  };
  const frontMatter = descriptor.fromApi(get, { text, required, warn });
  if (descriptor.hasStatus) frontMatter.status = idOf(get('status'));
  for (const relation of descriptor.relations) {
    const value = get(relation.field);
    const ids = (relation.many ? (Array.isArray(value) ? value : []) : [value])
      .map(idOf)
      .filter((id) => id !== undefined);
    const slugs: string[] = [];
    for (const id of ids) {
      const slug = ctx.slugOf(relation.target, id);
      if (slug === undefined)
        warn(`${relation.target} ${id} (its \`${relation.key}\`) has no slug in the CMS; left out`);
      else slugs.push(slug);
    }
    if (slugs.length > 0) frontMatter[relation.key] = relation.many ? slugs : slugs[0];
  }
  const html = descriptor.htmlField ? text(descriptor.htmlField) : undefined;
  return html === undefined ? { frontMatter } : { frontMatter, html };
}

/** content/<folder>/ -> resource. */
export const FOLDER_TO_RESOURCE: Readonly<Record<string, RecordResource>> = folderToResource(RESOURCE_TABLE);

/** The resources other records can name (every relation's target): the only ids a plan looks up by key. */
export const RELATION_TARGETS: ReadonlySet<RecordResource> = new Set(
  Object.values(RESOURCE_TABLE).flatMap((descriptor) =>
    descriptor.relations.map((relation) => relation.target),
  ),
);
