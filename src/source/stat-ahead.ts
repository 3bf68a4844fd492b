import { lstatSync, realpathSync } from 'node:fs';
import { isDocumentName } from './file-names.js';
import type { Fresh } from './fresh-stamps.js';
import { readCacheLines, stampIsLine, type CacheLines } from './hash-cache.js';
import { PLAIN_FILE, TableStamp, type StampTable } from './stamp-table.js';

/** Where the documents are: content/, and the prefix their names have (see source/content-paths.ts). */
export interface AheadOf {
  contentDir: string;
  prefix: string;
  sep: string;
}

/** Lines of the cache read between two turns of the worker's event loop, where a request is taken in. */
const PER_TURN = 256;

/**
 * The hash cache, read by the stat worker as soon as it starts, and the stamps of the documents it
 * names, each taken and compared with its line as the line is read, while the other thread is still
 * listing content/: by the time the listing asks for stamps, many are taken. A stamp taken ahead
 * is as good as one taken on request: either is taken at some moment of the scan, before the file
 * is read or passed over, and a change after it is found by the next run.
 *
 * Nothing outside content/ is statted: a name is statted only when its folder's real path is the
 * one it has in content/ (no link on the way), and with lstat, so a file that has become a link
 * is not followed (it is statted on request, as the listing judges it). A folder is looked at once:
 * should it be made a link during the run, a stamp may be taken through it, which the listing then
 * never asks for (it refuses a link out of content/) or which is that of the file it reads (it
 * follows a link inside).
 */
export class Ahead {
  /** Name -> its row in `stamps`. */
  readonly #rows = new Map<string, number>();
  /**
   * The stamps taken (all of plain files), as a stamp table's rows, and for each whether it is its
   * file's line in the cache read so far: this thread's own, shared with no other.
   */
  readonly #stamps: Pick<StampTable, 'numbers' | 'kinds' | 'same'> = {
    numbers: new Float64Array(4 * 1024),
    kinds: new Uint8Array(1024).fill(PLAIN_FILE),
    same: new Uint8Array(1024),
  };
  readonly #stamp = new TableStamp(this.#stamps);
  readonly #entries = new Map<string, string>();
  /** Folders in content/ -> whether they are reached without a link. */
  readonly #plainFolders = new Map<string, boolean>();
  readonly #reading: Generator<string, CacheLines>;
  #cache: CacheLines | undefined;
  #root: string | undefined;
  #stopped = false;
  /** Settled once the cache is read, or reading it stopped. */
  readonly ended: Promise<void>;

  constructor(
    private readonly where: AheadOf,
    cacheFile: string,
    /** Told of each stamp taken (see fresh-stamps.ts). */
    private readonly fresh?: Fresh,
  ) {
    this.#reading = readCacheLines(cacheFile, this.#entries);
    try {
      this.#root = realpathSync.native(where.contentDir);
    } catch {
      // No content/: the listing says so. The cache is read all the same.
    }
    this.ended = new Promise((resolve) => {
      const step = () => {
        for (let read = 0; read < PER_TURN && !this.#stopped; read++) {
          const next = this.#reading.next();
          if (next.done) {
            this.#cache = next.value;
            return resolve();
          }
          this.#told(next.value, true);
        }
        if (this.#stopped) resolve();
        else setImmediate(step);
      };
      setImmediate(step);
    });
  }

  /** The whole cache: what is left of it is read now, its documents no longer statted. */
  cache(): CacheLines {
    this.#stopped = true;
    while (!this.#cache) {
      const next = this.#reading.next();
      if (next.done) this.#cache = next.value;
      else this.#told(next.value, false);
    }
    return this.#cache;
  }

  /**
   * Writes the stamp of `name` taken ahead into row i of a stamp table: the stamp's own row here
   * (see sameAt), or undefined when there is none.
   */
  fill(name: string, i: number, numbers: Float64Array): number | undefined {
    const row = this.#rows.get(name);
    if (row !== undefined) numbers.set(this.#stamps.numbers.subarray(4 * row, 4 * row + 4), 4 * i);
    return row;
  }

  /** Whether the stamp of `name` taken ahead is its line in the cache read so far (undefined: none taken). */
  same(name: string): boolean | undefined {
    const row = this.#rows.get(name);
    return row === undefined ? undefined : this.sameAt(row);
  }

  /** `same` of the stamp `fill` said is at `row`, without looking its name up. */
  sameAt(row: number): boolean {
    return this.#stamps.same[row] === 1;
  }

  /** A line of `name` was read (or forgotten): its stamp is taken (`stat`), or compared again. */
  #told(name: string, stat: boolean): void {
    let row = this.#rows.get(name);
    if (row === undefined && stat) row = this.#take(name);
    if (row === undefined) return;
    this.#stamp.at = row;
    this.#stamps.same[row] = stampIsLine(this.#entries.get(name), this.#stamp) ? 1 : 0;
  }

  /**
   * Stats `name` if it is a document in a folder of content/ reached without a link, and a plain
   * file: its row, or undefined.
   */
  #take(name: string): number | undefined {
    const { contentDir, prefix, sep } = this.where;
    if (this.#root === undefined || !name.startsWith(prefix)) return undefined;
    const inContent = name.slice(prefix.length);
    const slash = inContent.lastIndexOf('/');
    if (!isDocumentName(inContent.slice(slash + 1))) return undefined;
    const folder = slash < 0 ? '' : inContent.slice(0, slash);
    let plain = this.#plainFolders.get(folder);
    if (plain === undefined) {
      const local = folder === '' ? '' : `${sep}${folder.split('/').join(sep)}`;
      try {
        plain = realpathSync.native(`${contentDir}${local}`) === `${this.#root}${local}`;
      } catch {
        plain = false;
      }
      this.#plainFolders.set(folder, plain);
    }
    if (!plain) return undefined;
    let info;
    try {
      info = lstatSync(`${contentDir}${sep}${inContent}`, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    if (!info?.isFile()) return undefined;
    this.fresh?.stamp(info.ctimeMs);
    const row = this.#rows.size;
    const stamps = this.#stamps;
    if (row === stamps.same.length) {
      const numbers = new Float64Array(8 * row);
      numbers.set(stamps.numbers);
      stamps.numbers = numbers;
      stamps.kinds = new Uint8Array(2 * row).fill(PLAIN_FILE);
      const same = new Uint8Array(2 * row);
      same.set(stamps.same);
      stamps.same = same;
    }
    stamps.numbers.set([info.size, info.mtimeMs, info.ctimeMs, info.ino], 4 * row);
    this.#rows.set(name, row);
    return row;
  }
}
