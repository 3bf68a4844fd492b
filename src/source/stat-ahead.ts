import { lstatSync, realpathSync } from 'node:fs';
import { isDocumentName } from './file-names.js';
import type { Fresh } from './fresh-stamps.js';

/** Where the documents are: content/, and the prefix their names have (see source/content-paths.ts). */
export interface AheadOf {
  contentDir: string;
  prefix: string;
  sep: string;
}

/** Names of the cache's lines taken between two turns of the worker's event loop, where a request is taken in. */
const PER_TURN = 256;

/**
 * The stamps of the documents the hash cache names, taken by the stat worker as soon as it starts,
 * in the order of the cache's lines, while the other thread is still listing content/: by the
 * time the listing asks for stamps, many are taken. A stamp taken ahead is as good as one taken on
 * request: either is taken at some moment of the scan, before the file is read or passed over,
 * and a change after it is found by the next run. Each is compared with its line once asked.
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
  /** The stamps taken (all of plain files), as a stamp table's rows: this thread's own, shared with no other. */
  #numbers = new Float64Array(4 * 1024);
  /** Folders in content/ -> whether they are reached without a link. */
  readonly #plainFolders = new Map<string, boolean>();
  #root: string | undefined;
  #stopped = false;
  /** Settled once every name is taken, or taking them stopped. */
  readonly ended: Promise<void>;

  constructor(
    private readonly where: AheadOf,
    /** The names to stat, in order (see CacheBytes.names). */
    names: Iterator<string>,
    /** Told of each stamp taken (see fresh-stamps.ts). */
    private readonly fresh?: Fresh,
  ) {
    try {
      this.#root = realpathSync.native(where.contentDir);
    } catch {
      // No content/: the listing says so.
      this.#stopped = true;
    }
    this.ended = new Promise((resolve) => {
      const step = () => {
        for (let taken = 0; taken < PER_TURN && !this.#stopped; taken++) {
          const next = names.next();
          if (next.done) return resolve();
          if (!this.#rows.has(next.value)) this.#take(next.value);
        }
        if (this.#stopped) resolve();
        else setImmediate(step);
      };
      setImmediate(step);
    });
  }

  /** Takes no more stamps. */
  stop(): void {
    this.#stopped = true;
  }

  /**
   * Writes the stamp of `name` taken ahead into row i of a stamp table: whether there was one.
   */
  fill(name: string, i: number, numbers: Float64Array): boolean {
    const row = this.#rows.get(name);
    if (row !== undefined) numbers.set(this.#numbers.subarray(4 * row, 4 * row + 4), 4 * i);
    return row !== undefined;
  }

  /** How many stamps were taken. */
  get taken(): number {
    return this.#rows.size;
  }

  /**
   * Stats `name` if it is a document in a folder of content/ reached without a link, and a plain
   * file, and keeps its stamp.
   */
  #take(name: string): void {
    const { contentDir, prefix, sep } = this.where;
    if (!name.startsWith(prefix)) return;
    const inContent = name.slice(prefix.length);
    const slash = inContent.lastIndexOf('/');
    if (!isDocumentName(inContent.slice(slash + 1))) return;
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
    if (!plain) return;
    let info;
    try {
      info = lstatSync(`${contentDir}${sep}${inContent}`, { throwIfNoEntry: false });
    } catch {
      return;
    }
    if (!info?.isFile()) return;
    this.fresh?.stamp(info.ctimeMs);
    const row = this.#rows.size;
    if (4 * row === this.#numbers.length) {
      const numbers = new Float64Array(8 * row);
      numbers.set(this.#numbers);
      this.#numbers = numbers;
    }
    this.#numbers.set([info.size, info.mtimeMs, info.ctimeMs, info.ino], 4 * row);
    this.#rows.set(name, row);
  }
}
