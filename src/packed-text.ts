import { requireLater } from './require-later.js';

// Loaded with the first text packed: a no-op run packs none.
const zlib = requireLater<typeof import('node:zlib')>('node:zlib');

/**
 * Text held deflated until it is read. A cold apply reads every document before it renders the
 * first, and renders every one before it writes the first, so the Markdown and then the HTML
 * of the whole site are in memory at once, and V8 lets the heap grow to about twice what is live
 * before it collects. Deflated, real prose takes a fraction of that. Level 1 costs little next
 * to rendering the same text (the README's Performance section has the figures).
 */
export class PackedText {
  readonly #bytes: Buffer;

  constructor(text: string) {
    // zlib hands back a view of its output chunk: copied, only the packed bytes stay.
    this.#bytes = Buffer.from(zlib().deflateRawSync(text, { level: 1 }));
  }

  toString(): string {
    return zlib().inflateRawSync(this.#bytes).toString('utf8');
  }
}
