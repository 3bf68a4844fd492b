import { createReadStream } from 'node:fs';

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

/**
 * Streams a WXR file and yields its `<item>` elements one at a time, so a 200 MB export is
 * never held as one string next to its parsed tree: only one read chunk and one item are.
 * The scanner steps over CDATA sections and comments, where `</item>` may appear as text.
 * Whatever is not an item (the channel: site, authors, categories, tags) is collected into
 * `scan.skeleton`, complete once the generator is done.
 */
export async function* readXmlItems(
  file: string,
  scan: ItemScan,
  options: { chunkSize?: number } = {},
): AsyncGenerator<XmlItem> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: options.chunkSize ?? 1 << 20 });
  let buffer = '';
  // Position of buffer[0] in the file.
  let line = 1;
  let column = 1;
  let pos = 0;
  let itemStart = -1;
  const skeleton: string[] = [];

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
        skeleton.push(buffer.slice(0, lt));
        drop(lt);
        itemStart = 0;
        pos = 6;
        continue;
      }
      if (itemStart >= 0 && buffer.startsWith('</item>', lt)) {
        const end = lt + '</item>'.length;
        const text = buffer.slice(itemStart, end);
        yield { text, line, column };
        skeleton.push('\n'.repeat(countNewlines(text)));
        drop(end);
        itemStart = -1;
        pos = 0;
        continue;
      }
      pos = lt + 1;
    }
    // Outside an item, text already scanned can go to the skeleton.
    if (itemStart < 0 && pos > 0) {
      skeleton.push(buffer.slice(0, pos));
      drop(pos);
    }
  };

  for await (const chunk of stream) {
    buffer += chunk as string;
    yield* scanBuffer(false);
  }
  yield* scanBuffer(true);
  // An item never closed is left in the skeleton, where validation reports it.
  skeleton.push(buffer);
  scan.skeleton = skeleton.join('');
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
