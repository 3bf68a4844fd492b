import type { ResolvedResource } from '../config/schema.js';
import type { DesiredRecord, RecordRef } from '../records/build-record.js';
import { bindMedia } from '../render/bind-media.js';
import { digest } from './digest.js';

/** Ids the CMS has handed out, as far as they are known: from state, the listing, or this run. */
export interface IdBook {
  /** Record ids by key (`user/jane`): what relations are bound through. */
  idByKey?: Map<string, number>;
  /**
   * Category ids by slug, for callers that build a book by hand and have not moved to `idByKey`
   * (it is read after idByKey).
   */
  categoryIdBySlug?: Map<string, number>;
  mediaIdByIdentity: Map<string, number>;
}

/** The id of the record with this key (`category/news`), if the CMS has handed one out. */
export function idOfKey(book: IdBook, key: string): number | undefined {
  const id = book.idByKey?.get(key);
  if (id !== undefined || !book.categoryIdBySlug || !key.startsWith('category/')) return id;
  return book.categoryIdBySlug.get(key.slice('category/'.length));
}

/** Notes the id the CMS gave a record, for the records that name it. */
export function rememberId(book: IdBook, key: string, id: number): void {
  (book.idByKey ??= new Map()).set(key, id);
}

/** The value of a relation field as sent: the id, or the ids of a list; undefined while one is unknown. */
export function refValue(ref: RecordRef, book: IdBook): number | number[] | undefined {
  const ids: number[] = [];
  for (const slug of ref.slugs) {
    const id = idOfKey(book, `${ref.relation.target}/${slug}`);
    if (id === undefined) return undefined;
    ids.push(id);
  }
  return ref.relation.many ? ids : ids[0];
}

/** cms-sync field name -> API field name (extra front matter keeps its own name). */
export function apiName(field: string, resource: ResolvedResource): string {
  return resource.fields[field] ?? field;
}

/** The API fields a record is compared and sent by. */
export function apiFieldsOf(fields: Iterable<string>, resource: ResolvedResource): string[] {
  return [...fields].map((f) => apiName(f, resource)).sort();
}

/**
 * Resolves the named fields of a record to the values the API receives, keyed by API field
 * name. Fields that need an id the CMS has not given out yet are listed in `unresolved`.
 */
export function resolveFields(
  record: DesiredRecord,
  fields: Iterable<string>,
  book: IdBook,
  resource: ResolvedResource,
): { data: Record<string, unknown>; unresolved: string[] } {
  const data: Record<string, unknown> = {};
  const unresolved: string[] = [];
  for (const field of fields) {
    const name = apiName(field, resource);
    const ref = record.refs?.find((r) => r.relation.field === field);
    if (ref) {
      const value = refValue(ref, book);
      if (value === undefined) unresolved.push(field);
      else data[name] = value;
    } else if (record.html && field === record.html.field) {
      const ids = record.html.media.map((m) =>
        m.kind === 'existing' ? m.id : book.mediaIdByIdentity.get(m.identity),
      );
      if (ids.some((id) => id === undefined)) unresolved.push(field);
      else data[name] = bindMedia(record.html.template, ids as number[]);
    } else if (field in record.values) {
      data[name] = record.values[field];
    } else {
      // A field the record sent before and no longer has: cleared.
      data[name] = null;
    }
  }
  return { data, unresolved };
}

/** Whether a value we would send equals what the CMS holds, allowing for the CMS's normalising. */
export function sameValue(sent: unknown, held: unknown): boolean {
  if (sent === held) return true;
  if (sent === null || sent === undefined) return held === null || held === undefined || held === '';
  if (typeof sent === 'number' && typeof held === 'string')
    return held.trim() !== '' && Number(held) === sent;
  if (Array.isArray(sent) && Array.isArray(held))
    return sent.length === held.length && sent.every((value, i) => sameValue(value, held[i]));
  if (typeof sent === 'string' && typeof held === 'string') {
    if (normalizeHtml(sent) === normalizeHtml(held)) return true;
    const a = Date.parse(sent);
    return /^\d{4}-\d\d-\d\d/.test(sent) && !Number.isNaN(a) && a === Date.parse(held);
  }
  return JSON.stringify(sent) === JSON.stringify(held);
}

/**
 * A digest of a value in the form sameValue compares: what was sent and what the CMS then holds
 * digest alike even when the CMS normalised whitespace or turned a number into a string.
 */
export function comparableDigest(value: unknown): string {
  if (value === undefined || value === null || value === '') return digest(null);
  if (typeof value === 'number') return digest(String(value));
  if (typeof value === 'string') return digest(normalizeHtml(value));
  // A list of ids reads the same whether the CMS keeps them as numbers or numeric strings.
  if (Array.isArray(value) && value.every((v) => typeof v === 'number' || typeof v === 'string'))
    return digest(value.map((v) => (typeof v === 'number' ? String(v) : normalizeHtml(v))));
  return digest(value);
}

function normalizeHtml(html: string): string {
  return html.replace(/>\s+</g, '><').replace(/\s+/g, ' ').trim();
}
