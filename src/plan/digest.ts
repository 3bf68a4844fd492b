import { digest, htmlDigest } from '../digest.js';
import type { DesiredRecord, RecordRef } from '../records/build-record.js';
import type { RemoteRecord } from '../resources.js';

// The digest itself lives below records/ and plan/, which both take digests.
export { digest, htmlDigest };

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
