import { digest, htmlDigest } from '../digest.js';
import type { DesiredRecord } from '../records/build-record.js';
import type { RemoteRecord } from '../resources.js';

// The digest itself lives below records/ and plan/, which both take digests.
export { digest, htmlDigest };

/**
 * Digest of each field a record sends, in symbolic form: a category by slug and media by
 * content, so the result is known before the CMS hands out ids.
 */
export function sourceDigests(record: DesiredRecord): Record<string, string> {
  if (record.unchangedSince) return record.unchangedSince.source;
  const out: Record<string, string> = {};
  for (const [field, value] of Object.entries(record.values)) out[field] = digest(value);
  if (record.categorySlug) out.category_id = digest(`category:${record.categorySlug.slug}`);
  if (record.html)
    out[record.html.field] = record.html.digest ?? htmlDigest(record.html.template, record.html.media);
  return out;
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
