import type { MediaSource } from '../media/resolve-media.js';
import { PackedText } from '../packed-text.js';
import { htmlDigest } from '../plan/digest.js';

/** A rendered body as a record carries it: see DesiredRecord.html. */
export interface RecordHtml {
  field: 'body' | 'content';
  /** The rendered HTML, with a placeholder per image (see bindMedia). */
  readonly template: string;
  media: MediaSource[];
  /** htmlDigest of template and media, when it was taken as the record was built. */
  readonly digest?: string;
}

/**
 * A rendered body, held deflated from the moment it is built until a write needs it (see
 * PackedText): a cold apply holds every record's body until its write. The digest is taken
 * while the text is at hand, so that planning never unpacks a body; a write unpacks it once.
 */
export function packHtml(field: RecordHtml['field'], html: string, media: MediaSource[]): RecordHtml {
  return new PackedHtml(field, new PackedText(html), media, htmlDigest(html, media));
}

class PackedHtml implements RecordHtml {
  readonly #text: PackedText;

  constructor(
    readonly field: RecordHtml['field'],
    text: PackedText,
    readonly media: MediaSource[],
    readonly digest: string,
  ) {
    this.#text = text;
  }

  get template(): string {
    return this.#text.toString();
  }
}
