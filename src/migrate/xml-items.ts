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
 * Streams a WXR file and yields its `<item>` elements one at a time, so a 200 MB export is
 * never held as one string next to its parsed tree: only one read chunk and one item are.
 */
export async function* readXmlItems(
  file: string,
  scan: ItemScan,
  options: ItemOptions & { chunkSize?: number } = {},
): AsyncGenerator<XmlItem> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: options.chunkSize ?? 1 << 20 });
  yield* splitXmlItems(stream as AsyncIterable<string>, scan, { name: file, ...options });
}

/**
 * Cuts a stream of XML text into its `<item>` elements, yielding each as soon as its `</item>`
 * has arrived. The scanner steps over CDATA sections and comments, where `</item>` may appear
 * as text. Whatever is not an item (the channel: site, authors, categories, tags) is collected
 * into `scan.skeleton`, complete once the generator is done. A file that ends inside an item,
 * or holds an item longer than `maxItemLength`, is bad input, reported at the item's start.
 */
export async function* splitXmlItems(
  chunks: AsyncIterable<string> | Iterable<string>,
  scan: ItemScan,
  options: ItemOptions = {},
): AsyncGenerator<XmlItem> {
  const maxLength = options.maxItemLength ?? MAX_ITEM_LENGTH;
  let buffer = '';
  // Position of buffer[0] in the file.
  let line = 1;
  let column = 1;
  let pos = 0;
  let itemStart = -1;
  const skeleton = new SkeletonText();

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
        skeleton.add('\n'.repeat(countNewlines(text)));
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

  for await (const chunk of chunks) {
    buffer += chunk;
    yield* scanBuffer(false);
    // The buffer starts at the open item, or (outside items) at an open CDATA section or comment.
    if (buffer.length > maxLength) throw tooLong(buffer, line, column, maxLength, options);
  }
  yield* scanBuffer(true);
  if (itemStart >= 0) throw unclosed(line, column, options);
  skeleton.add(buffer);
  scan.skeleton = skeleton.text();
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

  add(piece: string): void {
    if (piece === '') return;
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
