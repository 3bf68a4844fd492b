import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, type Stats } from 'node:fs';
import path from 'node:path';
import { digest } from '../digest.js';
import { textOf } from '../text-of.js';
import { createTextFileSync } from '../write-text.js';
import { racy } from './hash-cache.js';

/**
 * What each folder of content/ held when it was last listed, by the folder's stamp, so that a
 * folder whose stamp is unchanged is not read again: like git's untracked cache. Adding, removing
 * or renaming an entry changes its folder's mtime and ctime (POSIX), and nothing but the kernel
 * sets a ctime, so a folder with the stamp it had lists what it listed. A file edited in place
 * changes no folder: its own stamp tells (see hash-cache.ts). Local to this checkout (inodes
 * and times mean nothing elsewhere), beside the hash cache: not committed.
 *
 * What is kept is what the listing made of the folder (its documents and images by name, its
 * subfolders to walk, whether one of its documents is an index file), not its entries. Never kept:
 * a folder with a symbolic link in it (a link is judged by where it leads, which can change with no
 * folder of content/ changing), a folder reached through a link, and a folder changed too lately for
 * its stamp to be trusted (see RACY_MS).
 */
export const FOLDER_CACHE_FILE = 'content-folders';

/** Bump when what is kept, or how the listing makes it, changes. */
const FORMAT = 'cms-sync content folders 3';
/** Ends the header. A file cut short (a crash before its rename reached the disk) is told by its size. */
const END = 'end';

/** One folder as the listing made it. Names of documents and images are relative to the project. */
export interface FolderListing {
  documents: readonly string[];
  media: readonly string[];
  /** Names of the subfolders the listing walks (not those it passes over). */
  folders: readonly string[];
  /** Whether one of its documents is an index file (see isIndexFile). */
  indexes: boolean;
}

export interface FolderCacheOptions {
  /** The cache file. */
  file: string;
  /** What makes the same folder list differently: content/'s place, the project's prefix, languages. */
  key: unknown;
  /** Whether the cache is written back when the listing differs from it (an apply; never a plan). */
  save: boolean;
  /** Injected in tests. */
  now?: () => number;
}

/**
 * A folder as kept: its stamp, and its names (documents, images, subfolders) joined by NUL, read
 * from the file and split only when a folder is reused: a folder that changed costs no string per
 * name, and a run in which none is reused does not read them.
 */
interface Kept {
  stamp: string;
  indexes: boolean;
  counts: [documents: number, media: number, folders: number];
  /** Undefined when the file was replaced since its header was read. */
  names: () => string | undefined;
  /** Noted by this run: what the file holds changes. */
  fresh?: true;
}

export class FolderCache {
  readonly #options: FolderCacheOptions;
  readonly #key: string;
  /** The kept folders, by path in content/ ('' for content/ itself, then `articles/`...). */
  #kept: Map<string, Kept>;
  /** The digest of the whole listing, as kept (valid when every folder is reused). */
  readonly #keptDigest: string;
  /** What this listing saw, in the order it saw it; undefined for a folder not to keep. */
  #seen = new Map<string, Kept | undefined>();
  readonly #started: number;
  /** Folders reused, and read, by this listing. */
  reused = 0;
  read = 0;

  constructor(options: FolderCacheOptions) {
    this.#options = options;
    this.#started = (options.now ?? Date.now)();
    this.#key = digest(options.key);
    const kept = readKept(options.file, this.#key);
    this.#kept = kept?.folders ?? new Map();
    this.#keptDigest = kept?.digest ?? '';
  }

  /**
   * The folder's listing as kept, when `stat` (an lstat taken now) is the stamp it was kept with.
   * `inProject` is the folder's path relative to the project (with a trailing slash): every kept
   * name must be of a file right in it, and every subfolder a plain name, or nothing is reused (a
   * file written by hand, or by a foreign tool, cannot lead the listing out of content/).
   */
  reuse(inContent: string, stat: Stats | undefined, inProject: string): FolderListing | undefined {
    const kept = this.#kept.get(inContent);
    if (!kept || !stat?.isDirectory() || kept.stamp !== stampOf(stat)) return undefined;
    const [documents, media, folders] = kept.counts;
    const joined = kept.names();
    if (joined === undefined) return undefined;
    const names = joined === '' ? [] : joined.split('\0');
    if (names.length !== documents + media + folders) return undefined;
    for (let i = 0; i < names.length; i++)
      if (!(i < documents + media ? isFileIn(names[i]!, inProject) : isPlainName(names[i]!)))
        return undefined;
    this.reused++;
    this.#seen.set(inContent, kept);
    return {
      documents: names.slice(0, documents),
      media: names.slice(documents, documents + media),
      folders: names.slice(documents + media),
      indexes: kept.indexes,
    };
  }

  /** Whether a folder read now, with this lstat, may be kept (see note). */
  mayKeep(stat: Stats | undefined): stat is Stats {
    return stat !== undefined && stat.isDirectory() && !racy(stat, this.#started);
  }

  /**
   * A folder read now: `stat` was taken before its entries were read (so a change made while they
   * were read gives it another stamp next time). Undefined `listing`: a folder not to keep.
   */
  note(inContent: string, stat: Stats | undefined, listing: FolderListing | undefined): void {
    this.read++;
    const keep = listing && this.mayKeep(stat);
    this.#seen.set(
      inContent,
      keep
        ? {
            stamp: stampOf(stat),
            indexes: listing.indexes,
            counts: [listing.documents.length, listing.media.length, listing.folders.length],
            names: () =>
              [listing.documents, listing.media, listing.folders]
                .filter((names) => names.length > 0)
                .map((names) => names.join('\0'))
                .join('\0'),
            fresh: true,
          }
        : undefined,
    );
  }

  /** Whether every folder listed was reused, and every folder kept was listed. */
  get #allReused(): boolean {
    return this.read === 0 && this.#seen.size === this.#kept.size;
  }

  /** The digest of the whole listing, when every folder listed was reused (then it is the kept one's). */
  get digest(): string | undefined {
    return this.#allReused && this.#keptDigest !== '' ? this.#keptDigest : undefined;
  }

  /**
   * Writes what this listing saw when it has something new to keep (a folder read and kept, or the
   * digest of a listing whose folders were all reused), and lets go of both. A folder that changed
   * and is not kept (changed too lately) is not worth a write: its stale stamp never matches.
   * `listingDigest`, when known, is kept to stand for the listing when every folder is reused
   * next time. A cache that cannot be written only costs the next run its reads.
   */
  save(listingDigest: string | undefined): void {
    const seen = this.#seen;
    const news =
      [...seen.values()].some((kept) => kept?.fresh) ||
      (this.#allReused && listingDigest !== undefined && listingDigest !== this.#keptDigest);
    this.#kept = new Map();
    this.#seen = new Map();
    if (!this.#options.save || !news) return;
    const header = [listingDigest ?? ''];
    const sections: string[] = [];
    for (const [inContent, kept] of seen) {
      if (!kept) continue;
      const names = kept.names();
      // The file was replaced meanwhile (by another run): this run keeps nothing.
      if (names === undefined) return;
      header.push(inContent, kept.stamp, kept.indexes ? '1' : '0', ...kept.counts.map(String));
      header.push(String(Buffer.byteLength(names)));
      sections.push(names);
    }
    header.push(END, '');
    const head = [this.#key, ...header].join('\0');
    const length = String(Buffer.byteLength(head)).padStart(LENGTH_DIGITS, '0');
    const text = [`${FORMAT}\0${length}\0${head}`, ...sections];
    const file = this.#options.file;
    const temp = `${file}.${randomUUID().slice(0, 8)}.tmp`;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      // 'wx': never through whatever already has the temporary name.
      createTextFileSync(temp, text);
      renameSync(temp, file);
    } catch {
      rmSync(temp, { force: true });
    }
  }
}

/** Whether `name` is the path of a file right in the folder `inProject` (which ends with a slash). */
function isFileIn(name: string, inProject: string): boolean {
  return name.startsWith(inProject) && isPlainName(name.slice(inProject.length));
}

/** A name of one entry of a folder: no separator, and not a step up or in place. */
function isPlainName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/');
}

/** Size, mtime, ctime, inode and device: a folder's entries changed if one of them did. */
function stampOf(stat: Stats): string {
  return `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}:${stat.dev}`;
}

/** Digits of the header's length in bytes, written after the format so that it can be read first. */
const LENGTH_DIGITS = 12;

/** Bytes of the names read at a time: a folder's, and those of the folders kept after it. */
const WINDOW = 1 << 20;

/**
 * The kept folders, or undefined for a cache that is absent, foreign, of another key, or cut short.
 * The file is the format and the length of its header, then the header, NUL-separated (no name
 * holds a NUL): the key, the listing's digest, per folder its path in content/, stamp, index flag,
 * three counts and the length in bytes of its names, then END; then each folder's names joined
 * by NUL, one folder after another. A folder's names are read only when it is reused, a window at
 * a time (the walk reuses folders in about the order they were kept), from the same file: one
 * replaced since its header was read (another run's save) gives none.
 */
function readKept(file: string, key: string): { folders: Map<string, Kept>; digest: string } | undefined {
  let head: string[];
  let namesAt: number;
  let identity: string;
  let size: number;
  try {
    const fd = openSync(file, 'r');
    try {
      const info = fstatSync(fd);
      size = info.size;
      identity = identityOf(info);
      const prefixLength = FORMAT.length + 1 + LENGTH_DIGITS + 1;
      const prefix = Buffer.alloc(prefixLength);
      if (readSync(fd, prefix, 0, prefixLength, 0) !== prefixLength) return undefined;
      const [format, digits] = prefix.toString('latin1').split('\0');
      if (format !== FORMAT || !/^\d+$/.test(digits ?? '')) return undefined;
      const headLength = Number(digits);
      namesAt = prefixLength + headLength;
      if (namesAt > size) return undefined;
      const headBytes = Buffer.alloc(headLength);
      if (readSync(fd, headBytes, 0, headLength, prefixLength) !== headLength) return undefined;
      head = headBytes.toString('utf8').split('\0');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (head[0] !== key || head.at(-1) !== '' || head.at(-2) !== END || (head.length - 4) % 7 !== 0)
    return undefined;
  let window: { from: number; bytes: Buffer } | undefined;
  /** The bytes [from, to) of the names, or undefined when the file is no longer the one read. */
  const bytesOf = (from: number, to: number): Buffer | undefined => {
    if (!window || from < window.from || to > window.from + window.bytes.length) {
      const length = Math.min(size - namesAt - from, Math.max(to - from, WINDOW));
      try {
        const fd = openSync(file, 'r');
        try {
          if (identityOf(fstatSync(fd)) !== identity) return undefined;
          const bytes = Buffer.alloc(length);
          if (readSync(fd, bytes, 0, length, namesAt + from) !== length) return undefined;
          window = { from, bytes };
        } finally {
          closeSync(fd);
        }
      } catch {
        return undefined;
      }
    }
    return window.bytes.subarray(from - window.from, to - window.from);
  };
  const folders = new Map<string, Kept>();
  let at = 0;
  for (let i = 2; i < head.length - 2; i += 7) {
    const [inContent, stamp, indexes, ...numbers] = head.slice(i, i + 7);
    const counts = numbers.map(Number);
    if (counts.some((n) => !Number.isSafeInteger(n) || n < 0)) return undefined;
    const length = counts.pop()!;
    const from = at;
    at += length;
    folders.set(inContent!, {
      stamp: stamp!,
      indexes: indexes === '1',
      counts: counts as Kept['counts'],
      // Checked against its counts where it is split (reuse).
      names: () => {
        const bytes = bytesOf(from, from + length);
        return bytes && textOf(bytes);
      },
    });
  }
  // Cut short, or longer than its header says.
  if (namesAt + at !== size) return undefined;
  return { folders, digest: head[1]! };
}

/** What tells the cache file was replaced (a save renames a new file in). */
function identityOf(info: Stats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}`;
}
