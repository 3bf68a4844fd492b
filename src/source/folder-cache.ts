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
const FORMAT = 'cms-sync content folders 1';
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

export class FolderCache {
  readonly #options: FolderCacheOptions;
  readonly #key: string;
  /** The kept folders, by path in content/ ('' for content/ itself, then `articles/`...). */
  readonly #kept: Map<string, { stamp: string; listing: FolderListing }>;
  /** The digest of the whole listing, as kept (valid when every folder is reused). */
  readonly #keptDigest: string;
  /** What this listing saw, in the order it saw it; undefined for a folder not to keep. */
  readonly #seen = new Map<string, { stamp: string; listing: FolderListing } | undefined>();
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
    this.reused++;
    this.#seen.set(inContent, kept);
    return kept.listing;
  }

  /**
   * A folder read now: `stat` was taken before its entries were read (so a change made while they
   * were read gives it another stamp next time). Undefined `listing`: a folder not to keep.
   */
  note(inContent: string, stat: Stats | undefined, listing: FolderListing | undefined): void {
    this.read++;
    const keep = listing && stat !== undefined && stat.isDirectory() && !racy(stat, this.#started);
    this.#seen.set(inContent, keep ? { stamp: stampOf(stat), listing } : undefined);
  }

  /** The digest of the whole listing, when every folder listed was reused (then it is the kept one's). */
  get digest(): string | undefined {
    return this.read === 0 && this.#seen.size === this.#kept.size && this.#keptDigest !== ''
      ? this.#keptDigest
      : undefined;
  }

  /**
   * Writes what this listing saw, if it differs from what was kept; `listingDigest`, when known,
   * is kept to stand for the listing when every folder is reused next time. A cache that cannot be
   * written only costs the next run its reads.
   */
  save(listingDigest: string | undefined): void {
    if (!this.#options.save) return;
    if (this.read === 0 && this.#seen.size === this.#kept.size && (listingDigest ?? '') === this.#keptDigest)
      return;
    const tokens = [FORMAT, this.#key, listingDigest ?? ''];
    for (const [inContent, seen] of this.#seen) {
      if (!seen) continue;
      const { documents, media, folders, indexes } = seen.listing;
      tokens.push(inContent, seen.stamp, indexes ? '1' : '0');
      tokens.push(String(documents.length), String(media.length), String(folders.length));
      for (const name of documents) tokens.push(name);
      for (const name of media) tokens.push(name);
      for (const name of folders) tokens.push(name);
    }
    tokens.push(END);
    const file = this.#options.file;
    const temp = `${file}.${randomUUID().slice(0, 8)}.tmp`;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      // 'wx': never through whatever already has the temporary name.
      writeFileSync(temp, tokens.join('\0'), { flag: 'wx' });
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

/** The kept folders, or undefined for a cache that is absent, foreign, of another key, or cut short. */
function readKept(
  file: string,
  key: string,
): { folders: Map<string, { stamp: string; listing: FolderListing }>; digest: string } | undefined {
  let tokens: string[];
  try {
    // Names are kept as they are listed (NUL never is in one).
    tokens = readFileSync(file, 'utf8').split('\0');
  } catch {
    return undefined;
  }
  if (tokens[0] !== FORMAT || tokens[1] !== key || tokens.at(-1) !== END) return undefined;
  const folders = new Map<string, { stamp: string; listing: FolderListing }>();
  let at = 3;
  const last = tokens.length - 1;
  while (at < last) {
    if (at + 6 > last) return undefined;
    const inContent = tokens[at]!;
    const stamp = tokens[at + 1]!;
    const indexes = tokens[at + 2] === '1';
    const counts = [tokens[at + 3], tokens[at + 4], tokens[at + 5]].map(Number);
    if (counts.some((n) => !Number.isSafeInteger(n) || n < 0)) return undefined;
    const [documents, media, subfolders] = counts as [number, number, number];
    at += 6;
    if (at + documents + media + subfolders > last) return undefined;
    const listing: FolderListing = {
      documents: tokens.slice(at, (at += documents)),
      media: tokens.slice(at, (at += media)),
      folders: tokens.slice(at, (at += subfolders)),
      indexes,
    };
    folders.set(inContent, { stamp, listing });
  }
  return { folders, digest: tokens[2]! };
}
