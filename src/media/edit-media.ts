import type { CmsClient } from '../remote/client.js';
import { mediaTextFields, type WireOptions } from '../remote/wire.js';
import type { StateStore } from '../state/journal.js';
import type { MediaText } from './media-text.js';

/**
 * Gives a media record its alt text and title with an `edit` of the media record (only those
 * fields), then remembers them in state. Setting a value twice is harmless, so no intent is
 * journaled: a run that dies before the answer plans the same edit again.
 */
export async function editMediaText(
  target: { identity: string; id: number; source: string; text: MediaText; send: boolean },
  ctx: {
    client: Pick<CmsClient, 'edit'>;
    store: Pick<StateStore, 'mediaUploaded' | 'state'>;
    wire: Pick<WireOptions, 'mediaAltField' | 'mediaTitleField'>;
  },
): Promise<number> {
  const data = mediaTextFields(target.text, ctx.wire, 'clear');
  if (target.send && Object.keys(data).length > 0) await ctx.client.edit('media', target.id, data);
  const entry = ctx.store.state.media[target.identity];
  await ctx.store.mediaUploaded(target.identity, {
    id: target.id,
    source: entry?.source ?? target.source,
    ...textEntry(target.text),
  });
  return target.id;
}

/** The text of a media record as state keeps it: empty values left out. */
export function textEntry(text: MediaText): { alt?: string; title?: string; textFrom: string } {
  return {
    ...(text.alt ? { alt: text.alt } : {}),
    ...(text.title ? { title: text.title } : {}),
    textFrom: text.from,
  };
}
