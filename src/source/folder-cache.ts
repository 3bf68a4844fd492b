import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import { digest } from '../digest.js';
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
const FORMAT = 'cms-sync content folders 2';
/** The last token: a file cut short (a crash before its rename reached the disk) is not read. */
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
 * A folder as kept: its stamp, and its names (documents, images, subfolders) as one section of
 * the file, split only when the folder is reused: a folder that changed costs no string per name.
 */
interface Kept {
  stamp: string;
  indexes: boolean;
  counts: [documents: number, media: number, folders: number];
  names: string;
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

  /** The folder's listing as kept, when `stat` (an lstat taken now) is the stamp it was kept with. */
  reuse(inContent: string, stat: Stats | undefined): FolderListing | undefined {
    const kept = this.#kept.get(inContent);
    if (!kept || !stat?.isDirectory() || kept.stamp !== stampOf(stat)) return undefined;
    const [documents, media, folders] = kept.counts;
    const names = kept.names === '' ? [] : kept.names.split('\0');
    if (names.length !== documents + media + folders) return undefined;
    this.reused++;
    this.#seen.set(inContent, kept);
    return {
      documents: names.slice(0, documents),
      media: names.slice(documents, documents + media),
      folders: names.slice(documents + media),
      indexes: kept.indexes,
    };
  }

  /**
   * A folder read now: `stat` was taken before its entries were read (so a change made while they
   * were read gives it another stamp next time). Undefined `listing`: a folder not to keep.
   */
  note(inContent: string, stat: Stats | undefined, listing: FolderListing | undefined): void {
    this.read++;
    const keep = listing && stat !== undefined && stat.isDirectory() && !racy(stat, this.#started);
    this.#seen.set(
      inContent,
      keep
        ? {
            stamp: stampOf(stat),
            indexes: listing.indexes,
            counts: [listing.documents.length, listing.media.length, listing.folders.length],
            names: [...listing.documents, ...listing.media, ...listing.folders].join('\0'),
          }
        : undefined,
    );
  }

  /** The digest of the whole listing, when every folder listed was reused (then it is the kept one's). */
  get digest(): string | undefined {
    return this.read === 0 && this.#seen.size === this.#kept.size && this.#keptDigest !== ''
      ? this.#keptDigest
      : undefined;
  }

  /**
   * Writes what this listing saw, if it differs from what was kept, and lets go of both;
   * `listingDigest`, when known, is kept to stand for the listing when every folder is reused next
   * time. A cache that cannot be written only costs the next run its reads.
   */
  save(listingDigest: string | undefined): void {
    const seen = this.#seen;
    const same =
      this.read === 0 && seen.size === this.#kept.size && (listingDigest ?? '') === this.#keptDigest;
    this.#kept = new Map();
    this.#seen = new Map();
    if (!this.#options.save || same) return;
    const parts = [FORMAT, this.#key, listingDigest ?? ''];
    for (const [inContent, kept] of seen) {
      if (!kept) continue;
      const { stamp, indexes, counts, names } = kept;
      parts.push(inContent, stamp, indexes ? '1' : '0', ...counts.map(String), String(names.length), names);
    }
    parts.push(END);
    const file = this.#options.file;
    const temp = `${file}.${randomUUID().slice(0, 8)}.tmp`;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      // 'wx': never through whatever already has the temporary name.
      writeFileSync(temp, parts.join('\0'), { flag: 'wx' });
      renameSync(temp, file);
    } catch {
      rmSync(temp, { force: true });
    }
  }
}

/**
 * The digest of the sorted names content/ lists (documents, then images): two listings with one
 * digest hold the same files.
 */
export function listingDigest(documents: readonly string[], media: readonly string[]): string {
  return digest([...documents, ...media].join('\n'));
}

/** Size, mtime, ctime, inode and device: a folder's entries changed if one of them did. */
function stampOf(stat: Stats): string {
  return `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}:${stat.dev}`;
}

/**
 * The kept folders, or undefined for a cache that is absent, foreign, of another key, or cut short.
 * The file is NUL-separated (no name holds a NUL): the format, the key, the listing's digest, then
 * per folder its path in content/, stamp, index flag, three counts, the length of its names'
 * section and the section (its names joined by NUL), then END.
 */
function readKept(file: string, key: string): { folders: Map<string, Kept>; digest: string } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let at = 0;
  /** The next field, or undefined past the end. */
  const field = (): string | undefined => {
    const end = text.indexOf('\0', at);
    if (end < 0) return undefined;
    const value = text.slice(at, end);
    at = end + 1;
    return value;
  };
  if (field() !== FORMAT || field() !== key || !text.endsWith(`\0${END}`)) return undefined;
  const listingDigest = field();
  if (listingDigest === undefined) return undefined;
  const folders = new Map<string, Kept>();
  const last = text.length - END.length;
  while (at < last) {
    const [inContent, stamp, indexes, ...numbers] = Array.from({ length: 7 }, field);
    const counts = numbers.map(Number);
    if (stamp === undefined || counts.some((n) => !Number.isSafeInteger(n) || n < 0)) return undefined;
    const length = counts.pop()!;
    if (at + length >= last || text.charCodeAt(at + length) !== 0) return undefined;
    const names = text.slice(at, at + length);
    at += length + 1;
    folders.set(inContent!, {
      stamp,
      indexes: indexes === '1',
      counts: counts as Kept['counts'],
      names,
    });
  }
  return at === last ? { folders, digest: listingDigest } : undefined;
}
