import { readFileSync, rmSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { digest, listedDigest } from '../digest.js';
import { FAILED_MEDIA_FILE } from '../media/failed-media.js';
import { versionOrUnknown } from '../own-version.js';
import type { DesiredRecord } from '../records/build-record.js';
import { isMediaName } from '../source/content-paths.js';
import { HASH_CACHE_FILE, racy } from '../source/hash-cache.js';
import { JOURNAL_FILE } from './journal.js';
import { STATE_BASE_FILE, STATE_LOG_FILE, writeFileAtomic } from './state-file.js';

/**
 * What the last clean apply left, so that the next run can tell which files it need not look at
 * (like git's index, which lets `git status` skip every file whose stat is unchanged). Kept in
 * the state folder, local to this checkout (it holds stamps of files): `.cms-sync/clean-run.json`.
 *
 * An apply is clean when its plan was carried out whole: no failure, no stop, no `--only`. Then
 * every record of state is what its file makes of it, but for the records and files it names in
 * `attention` (a drift, a kept record, a file with a problem, a record that names one only the
 * CMS has): a record it wrote is what a whole run would find unchanged next (every apply is
 * followed by a rerun that writes nothing). A later run may take a document as unchanged, without
 * reading it or its record, when all of this still holds:
 * - the state files, the hash cache and the listing cache are those the clean run left (their
 *   stamps: any save, fold, checkout or copy changes them);
 * - the config and cms-sync itself are the same (`fingerprint`), and the pipeline's plugins;
 * - content/ lists the same files (a digest of their names), and each image and each other file
 *   a document embeds has the stamp it had;
 * - the document's stamp is the one in the hash cache, and it is not in `attention`.
 * What changed in the CMS since comes from the listing of changes, and those records are looked
 * at too; a full listing makes a whole run.
 */
export interface CleanRun {
  version: typeof VERSION;
  fingerprint: string;
  /** Stamps of the files whose change ends the mark's use, by name in the state folder(s). */
  stamps: Record<string, string | null>;
  /**
   * What content/ held: digests of every file it listed (documents and images, by name), of each
   * image's stamp, and of the pipeline's fingerprints (plugins' versions included).
   */
  listing: { files: string; media: string | undefined; pipeline: string };
  /**
   * Files documents embed that content/'s listing does not take for images (another extension):
   * their names and a digest of their stamps.
   */
  dependencies: { files: string[]; stamps: string | undefined };
  /** Records of state per resource, as the clean run left them. */
  records: Record<string, number>;
  /** Whether the base state file holds its records in key order, so that one can be found by a search. */
  sortedBase: boolean;
  /**
   * What the next run must look at again: records (key and file) the run left drifted or kept,
   * files with a problem, and of those the files that failed.
   */
  attention: { records: Array<[key: string, file: string]>; files: string[]; failed: string[] };
}

/** Bump when what a clean run vouches for changes. */
const VERSION = 3;
export const CLEAN_RUN_FILE = 'clean-run.json';

export interface CleanRunPlaces {
  /** The config's state folder: the hash cache, listing cache and this file. */
  stateDir: string;
  /** The folder of the target's state files (the local CMS keeps its own). */
  recordsDir: string;
  /** The listing cache file of the target, when the CMS has a change marker. */
  listingCache: string | undefined;
}

/** The clean run's mark, if it still holds for these places and this config; else undefined. */
export function readCleanRun(places: CleanRunPlaces, config: Config): CleanRun | undefined {
  let mark: CleanRun;
  try {
    mark = JSON.parse(readFileSync(path.join(places.stateDir, CLEAN_RUN_FILE), 'utf8')) as CleanRun;
  } catch {
    return undefined;
  }
  const fingerprint = fingerprintOf(config);
  if (fingerprint === undefined || mark?.version !== VERSION || mark.fingerprint !== fingerprint)
    return undefined;
  const now = stampsOf(places);
  for (const name of Object.keys(now)) if (now[name] !== mark.stamps?.[name]) return undefined;
  const { attention } = mark;
  if (
    !Array.isArray(attention?.files) ||
    !Array.isArray(attention.records) ||
    !Array.isArray(attention.failed)
  )
    return undefined;
  if (!mark.listing || !mark.records || !Array.isArray(mark.dependencies?.files)) return undefined;
  return mark;
}

/**
 * Writes the mark of a clean run, after its state, hash cache and listing cache are saved. A
 * failure to write it only costs the next run its shortcut.
 */
export async function writeCleanRun(
  places: CleanRunPlaces,
  config: Config,
  facts: Pick<CleanRun, 'listing' | 'dependencies' | 'records' | 'attention' | 'sortedBase'>,
): Promise<void> {
  const fingerprint = fingerprintOf(config);
  if (fingerprint === undefined) return forgetCleanRun(places);
  const mark: CleanRun = {
    version: VERSION,
    fingerprint,
    stamps: stampsOf(places),
    ...facts,
  };
  await writeFileAtomic(path.join(places.stateDir, CLEAN_RUN_FILE), JSON.stringify(mark)).catch(() =>
    forgetCleanRun(places),
  );
}

/**
 * Takes the listing cache as it is now into the mark, its other stamps kept: for a plan whose
 * listing found nothing changed in the CMS since (so the cache it saved hides nothing from the
 * next run), and which writes nothing else the mark names.
 */
export async function restampListing(places: CleanRunPlaces): Promise<void> {
  const file = path.join(places.stateDir, CLEAN_RUN_FILE);
  try {
    const mark = JSON.parse(readFileSync(file, 'utf8')) as CleanRun;
    if (!places.listingCache || mark.stamps?.listing === undefined) return;
    mark.stamps.listing = stampOf(places.listingCache);
    await writeFileAtomic(file, JSON.stringify(mark));
  } catch {
    forgetCleanRun(places);
  }
}

/** How many records state held when the mark was made (and holds while the mark stands). */
export function recordsOf(mark: CleanRun): number {
  return Object.values(mark.records).reduce((sum, n) => sum + n, 0);
}

/**
 * When the mark in `stateDir` was last written (ms), or Infinity when there is none: the end of
 * the last apply (or of a plan that took its listing in). A document with a later ctime changed
 * after that run looked at content/.
 */
export function cleanRunWrittenAt(stateDir: string): number {
  try {
    return statSync(path.join(stateDir, CLEAN_RUN_FILE)).mtimeMs;
  } catch {
    return Infinity;
  }
}

/** Removes the mark: a run that is not clean writes nothing that vouches for it. */
export function forgetCleanRun(places: Pick<CleanRunPlaces, 'stateDir'>): void {
  try {
    rmSync(path.join(places.stateDir, CLEAN_RUN_FILE), { force: true });
  } catch {
    // A mark that cannot be removed still fails its stamps after this run's saves.
  }
}

/**
 * A digest of each file's name and stamp (size, times, inode), or undefined when one changed too
 * lately for its stamp to stand for its bytes (see RACY_MS), or cannot be read.
 */
export function stampsDigest(files: readonly string[], projectDir: string): string | undefined {
  const now = Date.now();
  const stamps: string[] = [];
  for (const file of files) {
    let info: Stats;
    try {
      info = statSync(path.join(projectDir, file));
    } catch {
      return undefined;
    }
    if (racy(info, now)) return undefined;
    stamps.push(`${file}:${stampText(info)}`);
  }
  return listedDigest(stamps);
}

function stampsOf(places: CleanRunPlaces): Record<string, string | null> {
  const stamps: Record<string, string | null> = {
    state: stampOf(path.join(places.recordsDir, STATE_BASE_FILE)),
    log: stampOf(path.join(places.recordsDir, STATE_LOG_FILE)),
    journal: stampOf(path.join(places.recordsDir, JOURNAL_FILE)),
    hashes: stampOf(path.join(places.stateDir, HASH_CACHE_FILE)),
    // Remote images that failed: a retry that falls due changes what a document becomes.
    failedMedia: stampOf(path.join(places.stateDir, FAILED_MEDIA_FILE)),
  };
  if (places.listingCache) stamps.listing = stampOf(places.listingCache);
  return stamps;
}

function stampOf(file: string): string | null {
  let info: Stats;
  try {
    info = statSync(file);
  } catch {
    return null;
  }
  return stampText(info);
}

/** Size, mtime, ctime and inode: what tells a file's bytes changed, as the hash cache reads it. */
function stampText(info: Stats): string {
  return `${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.ino}`;
}

const fingerprints = new WeakMap<Config, string | undefined>();

/**
 * Everything of the config (a function by its source text) and of cms-sync itself: a clean run
 * under another config or another version of cms-sync vouches for nothing.
 */
function fingerprintOf(config: Config): string | undefined {
  if (fingerprints.has(config)) return fingerprints.get(config);
  let fingerprint: string | undefined;
  try {
    const plain = JSON.stringify(config, (_key, value: unknown) =>
      typeof value === 'function' ? `function:${digest(String(value))}` : value,
    );
    fingerprint = digest({ version: VERSION, cmsSync: versionOrUnknown(), config: plain });
  } catch {
    // A config JSON cannot hold (a plugin's options with a cycle, a BigInt): no mark, every run whole.
    fingerprint = undefined;
  }
  fingerprints.set(config, fingerprint);
  return fingerprint;
}

/**
 * What a clean run's mark needs of the records the run built or took from state, noted as each
 * is made: a record built is then moved to the spool, and reading every one back at the end of a
 * large run (twice: its relations and what it embeds) would parse the whole site once more.
 */
export class MarkNotes {
  /**
   * Each record a relation names (`category/politics`), and the records that name it: each the
   * record itself, or its position among the records the run built (see builtAre).
   */
  readonly #named = new Map<string, Array<DesiredRecord | number>>();
  #built: readonly DesiredRecord[] = [];
  /** Files records embed that the listing does not take for images, relative to content/. */
  readonly embedded = new Set<string>();

  /**
   * Notes what `record` names and embeds; `held` is what is kept of it: a spooled copy (see
   * spoolRecord), or its position in the order built (a number in an array costs no object, while
   * the built records wait packed: see PackedList).
   */
  note(record: DesiredRecord, held: DesiredRecord | number = record): void {
    for (const ref of record.refs ?? [])
      for (const slug of ref.slugs) {
        const target = `${ref.relation.target}/${slug}`;
        const holders = this.#named.get(target);
        // The record, held anyway: its file may be one it makes when asked (see Shelf).
        if (holders) holders.push(held);
        else this.#named.set(target, [held]);
      }
    for (const file of record.input?.media ?? [])
      if (!isMediaName(path.posix.basename(file))) this.embedded.add(file);
  }

  /** The records the run built, in the order built: what the positions noted stand for. */
  builtAre(records: readonly DesiredRecord[]): void {
    this.#built = records;
  }

  /** Each record a relation names (`category/politics`). */
  targets(): IterableIterator<string> {
    return this.#named.keys();
  }

  /** The records that name `target`. */
  holdersOf(target: string): DesiredRecord[] {
    return (this.#named.get(target) ?? []).map((held) =>
      typeof held === 'number' ? this.#built[held]! : held,
    );
  }
}
