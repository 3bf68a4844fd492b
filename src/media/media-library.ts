import type { RemoteRecord } from '../resources.js';
import type { MediaSource } from './resolve-media.js';

/** Fields a CMS may use for a media file's content hash and for the URL it was fetched from. */
const MEDIA_HASH_FIELDS = ['sha256', 'hash', 'checksum'];
const MEDIA_URL_FIELDS = ['source_url', 'original_url', 'url'];

/** The identities (see MediaSource) a media record of the CMS can be recognised by. */
export function mediaIdentities(record: RemoteRecord): string[] {
  const out: string[] = [];
  for (const field of MEDIA_HASH_FIELDS)
    if (typeof record[field] === 'string' && /^[0-9a-f]{64}$/i.test(record[field]))
      out.push(`sha256:${record[field].toLowerCase()}`);
  for (const field of MEDIA_URL_FIELDS)
    if (typeof record[field] === 'string') out.push(`url:${record[field]}`);
  return out;
}

/** A media record that is this file (same content) or was uploaded from this URL; newest first. */
export function findMedia(
  records: readonly RemoteRecord[],
  source: Exclude<MediaSource, { kind: 'existing' }>,
  uploadUrl: string,
): number | undefined {
  const wanted = new Set([source.identity, `url:${uploadUrl}`]);
  const match = [...records]
    .filter((m) => mediaIdentities(m).some((i) => wanted.has(i)))
    .sort((a, b) => b.id - a.id)[0];
  return match?.id;
}
