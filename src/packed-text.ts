import { requireLater } from './require-later.js';

// Loaded with the first text packed: a no-op run packs none.
const zlib = requireLater<typeof import('node:zlib')>('node:zlib');

/**
 * Text held deflated until it is read. A cold apply reads every document before it renders the
 * first, and renders every one before it writes the first, so the Markdown and then the HTML
 * of the whole site are in memory at once (~100 MB each for 10,000 articles of ~9 KiB), and V8
 * lets the heap grow to about twice what is live before it collects. Deflated, real articles
 * take about a third of that (the benchmark's generated ones, whose sentences repeat, a 28th).
 * Level 1 costs ~80 µs per 10 KiB of real prose to pack and ~30 µs to read back (~1 s and
 * ~0.3 s over 10,000 articles, against ~80 s of rendering them).
 */
export class PackedText {
  readonly #bytes: Buffer;

  constructor(text: string) {
    // zlib hands back a view of its 16 KiB output chunk: copied, only the packed bytes stay.
    this.#bytes = Buffer.from(zlib().deflateRawSync(text, { level: 1 }));
  }

  toString(): string {
    return zlib().inflateRawSync(this.#bytes).toString('utf8');
  }
}
