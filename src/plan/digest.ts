import { sha256 } from '../sha256.js';
import { stableJson } from '../stable-json.js';
import type { MediaSource } from '../media/resolve-media.js';
import type { DesiredRecord, RecordRef } from '../records/build-record.js';
import type { RemoteRecord } from '../resources.js';

/** Short, stable digest of a JSON value (object keys sorted). */
export function digest(value: unknown): string {
  // Plain values (most fields, and every body) need no key sorting: skip the replacer, which
  // costs more than the hash on a no-op run over thousands of records.
  const text =
    value === null || typeof value !== 'object' ? JSON.stringify(value ?? null) : stableJson(value);
  return sha256(text).slice(0, 20);
}

/**
 * Digest of each field a record sends, in symbolic form: the records it names by slug and media
 * by content, so the result is known before the CMS hands out ids.
 */
export function sourceDigests(record: DesiredRecord): Record<string, string> {
  if (record.unchangedSince) return record.unchangedSince.source;
  const out: Record<string, string> = {};
  for (const [field, value] of Object.entries(record.values)) out[field] = digest(value);
  for (const ref of record.refs ?? []) out[ref.relation.field] = refDigest(ref);
  if (record.html)
    out[record.html.field] =
      record.html.digest ?? htmlDigest(record.html.template, record.html.media, record.html.text);
  return out;
}

/** A relation's value by slug: `category:news` for one, the list of slugs for many. */
export function refDigest(ref: RecordRef): string {
  const { target, many } = ref.relation;
  return many ? digest({ [target]: ref.slugs }) : digest(`${target}:${ref.slugs[0]}`);
}

/**
 * The digest of a rendered body: its HTML with placeholders, its images by content, and their
 * alt texts and titles (they reach the media records, so a change to one is a change to the body).
 */
export function htmlDigest(
  template: string,
  media: readonly MediaSource[],
  text: ReadonlyArray<{ alt: string; title?: string }> = [],
): string {
  const said = text.some((t) => t.alt !== '' || t.title !== undefined);
  return digest({
    html: template,
    media: media.map((m) => m.identity),
    // Only when there is something: a body whose images have no alt keeps the digest it had.
    ...(said ? { text: text.map((t) => [t.alt, t.title ?? null]) } : {}),
  });
}

/**
 * Digest of each field as the CMS holds it (keyed by cms-sync field name): the baseline that
 * drift is measured against.
 */
export function remoteDigests(
  remote: RemoteRecord,
  fields: Iterable<string>,
  apiName: (field: string) => string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of fields) out[field] = digest(remote[apiName(field)] ?? null);
  return out;
}
