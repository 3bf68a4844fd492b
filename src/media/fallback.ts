import type { MissingMedia } from '../config/schema.js';
import { digest } from '../plan/digest.js';
import { packHtml } from '../records/packed-html.js';
import type { DesiredRecord } from '../records/build-record.js';
import { replaceBlocks } from '../render/bind-media.js';
import { plainImage } from './resolve-images.js';

/**
 * The record without the remote images whose upload just failed, as media.onMissing 'warn'
 * (a plain <img> of the URL) or 'drop' (nothing) makes it: what the next runs build from the
 * remembered failure (see resolveImages), so they find it unchanged. Its inputs are marked so
 * that it is built again, and the image tried again once its retry is due.
 */
export function withoutImages(
  record: DesiredRecord,
  failed: ReadonlySet<string>,
  mode: Exclude<MissingMedia, 'error'>,
): DesiredRecord {
  const html = record.html;
  if (!html) return record;
  const replacements = html.media.map((source, i) => {
    if (!failed.has(source.identity) || source.kind !== 'url') return undefined;
    const text = html.text?.[i];
    return mode === 'drop'
      ? ''
      : plainImage({
          src: text?.src ?? source.url,
          alt: text?.alt ?? '',
          ...(text?.title === undefined ? {} : { title: text.title }),
        });
  });
  const keep = (_: unknown, i: number) => replacements[i] === undefined;
  return {
    ...record,
    html: packHtml(
      html.field,
      replaceBlocks(html.template, replacements),
      html.media.filter(keep),
      (html.text ?? []).filter(keep),
    ),
    ...(record.input ? { input: { ...record.input, hash: digest(`${record.input.hash}:replaced`) } } : {}),
  };
}
