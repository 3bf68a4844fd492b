import { createReadStream } from 'node:fs';
import { SyncError } from '../errors.js';
import { detach } from './detach.js';

/** One `<item>...</item>` of a WXR file, with where it starts in the file (1-based). */
export interface XmlItem {
  text: string;
  line: number;
  column: number;
}

export interface ItemScan {
  /** The file without its items (each replaced by its newlines, so line numbers still hold). */
  skeleton: string;
  /**
   * Keep the newlines of each item, and the space between items, so that a line of the skeleton
   * is that line of the file. Without them the skeleton does not grow with the number of items,
   * but says nothing of where its text is.
   * @default true
   */
  lines?: boolean;
}

export interface ItemOptions {
  /** The file as messages name it. @default the path read */
  name?: string;
  /**
   * The most text held while waiting for the end of an item (or of a CDATA section or comment
   * outside items), in characters: one that runs longer is a cut or broken export, not one to
   * read into memory whole.
   * @default 64 MiB
   */
  maxItemLength?: number;
}

const MAX_ITEM_LENGTH = 64 * 2 ** 20;
/**
 * Small reads keep each chunk, and the text it is joined to, among V8's young objects, which
 * are freed as soon as the item is done; a chunk of a megabyte goes to the large-object space,
 * freed only by a full collection, and the heap swells with them as the export streams by.
 */
const CHUNK_SIZE = 64 * 2 ** 10;

/**
 * Streams a WXR file and yields its `<item>` elements one at a time, so a 200 MB export is
 * never held as one string next to its parsed tree: only one read chunk and one item are.
 */
export async function* readXmlItems(
  file: string,
  scan: ItemScan | undefined,
  options: ItemOptions & { chunkSize?: number } = {},
): AsyncGenerator<XmlItem> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: options.chunkSize ?? CHUNK_SIZE });
  yield* splitXmlItems(stream as AsyncIterable<string>, scan, { name: file, ...options });
}

/**
 * Cuts a stream of XML text into its `<item>` elements, yielding each as soon as its `</item>`
 * has arrived (for an item longer than the chunks, once the text read after it is half as long
 * as what is held). The scanner steps over CDATA sections and comments, where `</item>` may appear
 * as text. Whatever is not an item (the channel: site, authors, categories, tags) is collected
 * into `scan.skeleton`, complete once the generator is done; with no `scan` it is not kept (it
 * holds a newline for each line of every item). A file that ends inside an item, or holds an
 * item longer than `maxItemLength`, is bad input, reported at the item's start.
 */
export async function* splitXmlItems(
  chunks: AsyncIterable<string> | Iterable<string>,
  scan: ItemScan | undefined,
  options: ItemOptions = {},
): AsyncGenerator<XmlItem> {
  const maxLength = options.maxItemLength ?? MAX_ITEM_LENGTH;
  let buffer = '';
  // Position of buffer[0] in the file.
  let line = 1;
  let column = 1;
  let pos = 0;
  let itemStart = -1;
  const skeleton = new SkeletonText(scan !== undefined, scan?.lines !== false);

  const advance = (text: string) => {
    const newlines = countNewlines(text);
    if (newlines === 0) column += text.length;
    else {
      line += newlines;
      column = text.length - text.lastIndexOf('\n');
    }
  };

  const drop = (end: number) => {
    advance(buffer.slice(0, end));
    buffer = buffer.slice(end);
    pos -= end;
    if (itemStart >= 0) itemStart -= end;
  };

  const scanBuffer = function* (final: boolean): Generator<XmlItem> {
    for (;;) {
      const lt = buffer.indexOf('<', pos);
      if (lt === -1) {
        pos = buffer.length;
        break;
      }
      const rest = buffer.length - lt;
      // A construct cut by the chunk boundary: wait for more text.
      if (!final && rest < 12) {
        pos = lt;
        break;
      }
      if (buffer.startsWith('<![CDATA[', lt) || buffer.startsWith('<!--', lt)) {
        const close = buffer.startsWith('<!--', lt) ? '-->' : ']]>';
        const end = buffer.indexOf(close, lt + 4);
        if (end === -1) {
          pos = lt;
          if (final) pos = buffer.length;
          break;
        }
        pos = end + close.length;
        continue;
      }
      if (itemStart < 0 && /^<item[\s>]/.test(buffer.slice(lt, lt + 6))) {
        skeleton.add(buffer.slice(0, lt));
        drop(lt);
        itemStart = 0;
        pos = 6;
        continue;
      }
      if (itemStart >= 0 && buffer.startsWith('</item>', lt)) {
        const end = lt + '</item>'.length;
        // Its own copy: a view into the buffer would keep the whole chunk alive with the item.
        const text = detach(buffer.slice(itemStart, end));
        yield { text, line, column };
        skeleton.addNewlines(countNewlines(text));
        drop(end);
        itemStart = -1;
        pos = 0;
        continue;
      }
      pos = lt + 1;
    }
    // Outside an item, text already scanned can go to the skeleton.
    if (itemStart < 0 && pos > 0) {
      skeleton.add(buffer.slice(0, pos));
      drop(pos);
    }
  };

  // Chunks not yet joined to the buffer: a long item is joined and scanned again only once it has
  // grown by half, so that its cost is linear in its length, however small the chunks.
  let waiting: string[] = [];
  let waitingLength = 0;
  const join = () => {
    buffer += waiting.join('');
    waiting = [];
    waitingLength = 0;
  };
  for await (const chunk of chunks) {
    waiting.push(chunk);
    waitingLength += chunk.length;
    if (waitingLength < buffer.length / 2 && buffer.length + waitingLength <= maxLength) continue;
    join();
    yield* scanBuffer(false);
    // The buffer starts at the open item, or (outside items) at an open CDATA section or comment.
    if (buffer.length > maxLength) throw tooLong(buffer, line, column, maxLength, options);
  }
  join();
  yield* scanBuffer(true);
  if (itemStart >= 0) throw unclosed(line, column, options);
  skeleton.add(buffer);
  if (scan) scan.skeleton = skeleton.text();
}

function unclosed(line: number, column: number, options: ItemOptions): SyncError {
  return new SyncError(
    'CMS_SYNC_INPUT',
    `${options.name ?? 'export'}:${line}:${column}: this <item> has no </item>: the export ends inside it (cut ` +
      `short in a download or copy?); export it again from WordPress (nothing was written)`,
  );
}

function tooLong(
  buffer: string,
  line: number,
  column: number,
  maxLength: number,
  options: ItemOptions,
): SyncError {
  const what = buffer.startsWith('<item')
    ? 'an <item> with no </item>'
    : buffer.startsWith('<!--')
      ? 'a comment with no -->'
      : 'a CDATA section with no ]]>';
  const size = maxLength >= 2 ** 20 ? `${Math.round(maxLength / 2 ** 20)} MiB` : `${maxLength} characters`;
  return new SyncError(
    'CMS_SYNC_INPUT',
    `${options.name ?? 'export'}:${line}:${column}: ${what} in its first ${size}: the export is broken here, or ` +
      `cut short; export it again from WordPress (nothing was written)`,
  );
}

/**
 * The skeleton as it is collected: a piece for each stretch between items, joined now and then
 * so that an export of many items leaves a few long strings rather than one small one per item.
 */
class SkeletonText {
  readonly #joined: string[] = [];
  #pieces: string[] = [];

  /** The last piece added is white space: without `lines`, another one is left out. */
  #space = false;

  constructor(
    private readonly kept: boolean,
    private readonly lines: boolean,
  ) {}

  addNewlines(count: number): void {
    if (this.lines) this.add('\n'.repeat(count));
  }

  add(piece: string): void {
    if (piece === '' || !this.kept) return;
    const space = !/\S/.test(piece);
    if (space && this.#space && !this.lines) return;
    this.#space = space;
    this.#pieces.push(piece);
    if (this.#pieces.length < 1024) return;
    this.#joined.push(this.#pieces.join(''));
    this.#pieces = [];
  }

  text(): string {
    return this.#joined.join('') + this.#pieces.join('');
  }
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
