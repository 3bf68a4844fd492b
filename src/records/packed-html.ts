import type { ImageText } from '../media/resolve-images.js';
import type { MediaSource } from '../media/resolve-media.js';
import { PackedText } from '../packed-text.js';
import { htmlDigest } from '../digest.js';

/** A rendered body as a record carries it: see DesiredRecord.html. */
export interface RecordHtml {
  /** The field it goes into (the resource's `htmlField`). */
  field: string;
  /** The rendered HTML, with a placeholder per image (see bindMedia). */
  readonly template: string;
  media: MediaSource[];
  /** The alt text and title of each image of `media`, in the same order (none for a body made by hand). */
  text?: ImageText[];
  /** htmlDigest of template and media, taken by packHtml; a body made by hand may leave it to sourceDigests. */
  readonly digest?: string;
}

/**
 * A rendered body, held deflated from the moment it is built until a write needs it (see
 * PackedText): a cold apply holds every record's body until its write. The digest is taken
 * while the text is at hand, so that planning never unpacks a body; a write unpacks it once.
 */
export function packHtml(
  field: RecordHtml['field'],
  html: string,
  media: MediaSource[],
  text: ImageText[] = [],
  /** Where the HTML is kept instead (e.g. a run's spool on disk). */
  hold?: (html: string) => { toString(): string },
): RecordHtml {
  const packed = hold ? hold(html) : new PackedText(html);
  return {
    field,
    media,
    text,
    digest: htmlDigest(html, media, text),
    get template() {
      return packed.toString();
    },
  };
}
