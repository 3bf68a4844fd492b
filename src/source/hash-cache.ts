import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, renameSync, type Stats } from 'node:fs';
import { APPEND_NO_FOLLOW } from '../state/no-follow.js';
import { readRegularSync } from './open-regular.js';
import path from 'node:path';
import { byCodeUnit } from '../compare.js';
import { ownCopy } from '../own-copy.js';
import { textOf } from '../text-of.js';
import { createTextFileSync, writeTextSync } from '../write-text.js';
import type { Stamp } from './stamp-table.js';

/** Kept beside the state files but local to this checkout (inodes and times mean nothing elsewhere): not committed. */
export const HASH_CACHE_FILE = 'file-hashes.json';

/**
 * How long after a file's last change its stat is trusted to stand for its bytes. A file changed
 * again within the file system's timestamp granularity (2 s on FAT, 1 s on HFS+, ns on ext4) can
 * keep the same times; a stat recorded only once the file is older than that cannot be fooled by
 * such a change. Git calls these files "racily clean" and re-hashes them the same way.
 */
export const RACY_MS = 2000;

/** Whether `stat` is too recent (or in the future) at `now` for its stamp to stand for the file's bytes. */
export function racy(stat: Pick<Stats, 'mtimeMs' | 'ctimeMs'>, now: number): boolean {
  const cutoff = now - RACY_MS;
  return stat.mtimeMs > cutoff || stat.ctimeMs > cutoff;
}

/**
 * The sha256 of files as of their last stat, like git's index: when a file's stamp (size, mtime,
 * ctime, inode) is the one recorded, its bytes are those that were hashed, so a
 * run over 10,000 unchanged files stats them instead of reading them. A miss only costs a read:
 * the cache is never the reason something is taken as unchanged that was not.
 */
export interface HashCache {
  /** The recorded sha256 when `stat` is the one recorded for `file` (project-relative, forward slashes). */
  get(file: string, stat: Stats): string | undefined;
  /** Whether `stat` is the stamp recorded for `file` (as `get`, without making the sha256's string). */
  has(file: string, stat: Stamp): boolean;
  /** Records `sha` for `file` as hashed after `stat` was taken (stat first, then read: never the other way). */
  set(file: string, stat: Stats, sha: string): void;
  /** Files read and hashed so far (every `set`): the rest were vouched for by their stat. */
  readonly hashed: number;
  /** Writes the cache if anything changed; forgets files not `seen` when `complete` (every file was looked at). */
  save(options?: { complete?: boolean }): void;
  /** The file the cache is kept in (none for a cache that keeps nothing). */
  readonly path?: string;
  /**
   * Takes the lines of some files, read from the file by another thread (stat-many.ts), in place
   * of reading it: a look-up of any other file reads the file after all. Ignored once it is read.
   */
  useExcerpt(excerpt: CacheExcerpt): void;
}

/** Part of the cache file, as another thread read it (see HashCache.useExcerpt). */
export interface CacheExcerpt {
  /** The line of each file the excerpt covers, null for a covered file the cache does not hold. */
  lines: Map<string, string | null>;
  /** Files the whole file holds, and its stale lines. */
  size: number;
  stale: number;
  /** An absent (or foreign) file is 'none': the first save writes it anew. */
  format: 'lines' | 'none';
}

export interface HashCacheOptions {
  /**
   * Write each new line to the file soon after it is made, rather than hold every line until the
   * save (an apply: a cold run hashes every file, and holding their lines would grow with them).
   * Never for a run that must write nothing (plan).
   */
  appends?: boolean;
}

export function openHashCache(
  stateDir: string,
  now: () => number = Date.now,
  options: HashCacheOptions = {},
): HashCache {
  const file = path.join(stateDir, HASH_CACHE_FILE);
  // Read on first use, or in part by another thread (useExcerpt): not when opened.
  let read: 'not yet' | 'excerpt' | 'whole' = 'not yet';
  let entries = new Map<string, string>();
  let format: CacheLines['format'] = 'none';
  /** Lines in the file that a later line replaced or removed, and those this run will add so. */
  let stale = 0;
  /** With an excerpt: the files it covers, and how many files the whole file holds. */
  let covers: Map<string, string | null> | undefined;
  let wholeSize = 0;
  /**
   * The files looked up, whose lines a complete save keeps (it removes the others'), noted only
   * if the file held a line when read: otherwise every line it will hold is one this run made,
   * for a file it looked up (a cold run notes none).
   */
  const seen = new Set<string>();
  let heldAny = false;
  const see = (name: string) => {
    if (heldAny) seen.add(name);
  };
  /** Lines made since the last write, in order, by their file's name (a removal is a line too). */
  let pending: Array<{ name: string; line: string; removal?: true }> = [];
  let broken = false;
  let hashed = 0;

  const readWhole = () => {
    const whole = loadCacheLines(file);
    heldAny ||= whole.entries.size > 0;
    // What this run changed since it took an excerpt stands above what the file says.
    whole.stale += withPending(whole.entries);
    ({ entries, format, stale } = whole);
    read = 'whole';
    covers = undefined;
  };
  /** Puts the pending lines into `lines`: how many replaced or removed a line it held. */
  const withPending = (lines: Map<string, string>) => {
    let replaced = 0;
    for (const { name, line, removal } of pending) {
      if (lines.has(name)) replaced += 1;
      if (removal) lines.delete(name);
      else lines.set(name, line);
    }
    return replaced;
  };
  /** Before `name` is looked up (every file, when none is named): read the file unless already answered. */
  const need = (name?: string) => {
    if (read === 'whole' || (read === 'excerpt' && name !== undefined && covers!.has(name))) return;
    readWhole();
  };

  /** Writes the whole cache (the lines of the file, with `pending` on top) anew, sorted, through a rename. */
  const rewrite = () => {
    const current = format === 'lines' ? loadCacheLines(file).entries : new Map(entries);
    withPending(current);
    mkdirSync(stateDir, { recursive: true });
    // Created exclusively: a link planted at the temp's name is never written through (no-follow.ts).
    const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const names = [...current.keys()].sort(byCodeUnit);
    createTextFileSync(temp, [CACHE_HEADER, ...names.map((name) => `\n${current.get(name)}`)]);
    renameSync(temp, file);
    format = 'lines';
    stale = 0;
    pending = [];
  };
  /** Adds the pending lines to the file: only what changed is written. */
  const write = (compact: boolean) => {
    if (broken || (pending.length === 0 && !compact)) return;
    try {
      if (format !== 'lines' || compact) return rewrite();
      // Never through a link put where the cache was (no-follow.ts).
      const fd = openSync(file, APPEND_NO_FOLLOW, 0o644);
      try {
        writeTextSync(
          fd,
          pending.map(({ line }) => `\n${line}`),
        );
      } finally {
        closeSync(fd);
      }
      pending = [];
    } catch {
      // Read-only checkout, full disk: the run is as correct without the cache, only slower next time.
      broken = true;
    }
  };
  const add = (name: string, line: string) => {
    if (entries.has(name)) stale += 1;
    entries.set(name, line);
    pending.push({ name, line });
    if (!options.appends || broken || pending.length < APPEND_EVERY) return;
    // Once written, a line is let go: a later look-up of its file in this run hashes it again.
    const written = pending;
    write(false);
    if (pending.length === 0) for (const done of written) entries.delete(done.name);
  };
  const remove = (name: string) => {
    if (!entries.delete(name)) return;
    stale += 1;
    pending.push({ name, line: removalLine(name), removal: true });
  };

  return {
    path: file,
    get hashed() {
      return hashed;
    },
    useExcerpt(excerpt) {
      if (read !== 'not yet') return;
      read = 'excerpt';
      covers = excerpt.lines;
      for (const [name, line] of excerpt.lines) if (line !== null) entries.set(name, line);
      format = excerpt.format;
      stale = excerpt.stale;
      wholeSize = excerpt.size;
      heldAny ||= excerpt.size > 0;
    },
    get(name, stat) {
      need(name);
      see(name);
      const line = entries.get(name);
      return line !== undefined && stat.isFile() ? shaIfStamp(line, stat) : undefined;
    },
    has(name, stat) {
      need(name);
      see(name);
      const line = entries.get(name);
      return stampIsLine(line, stat);
    },
    set(name, stat, sha) {
      need(name);
      see(name);
      hashed += 1;
      if (!stat.isFile() || racy(stat, now())) {
        // Racily clean (or in the future): hash it again next time rather than trust its times.
        remove(name);
        return;
      }
      const old = entries.get(name);
      if (old !== undefined && shaIfStamp(old, stat) === sha) return;
      add(name, lineOf(name, stat, sha));
    },
    save(saving = {}) {
      // A cache never read has nothing to add; forgetting the files not seen takes every file's name.
      if (read === 'not yet' && !saving.complete) return;
      if (saving.complete) {
        need();
        if (heldAny) for (const name of [...entries.keys()]) if (!seen.has(name)) remove(name);
      }
      const size = read === 'excerpt' ? wholeSize : entries.size;
      // Replaced and removed lines are dropped once they are as many as the live ones.
      write(format === 'lines' && stale > Math.max(COMPACT_FROM, size));
    },
  };
}

/** Lines held before they are written, with `appends`. */
const APPEND_EVERY = 1024;
/** Stale lines a file may hold whatever its size, before it is written anew. */
const COMPACT_FROM = 1024;

/**
 * The cache at `stateDir`, read when a file is first looked up and never saved: for a pass that
 * looks at a few files (a watch's saves), where reading it costs what the folder holds and
 * rewriting it as much again.
 */
export function hashCacheOnUse(stateDir: string): HashCache {
  let cache: HashCache | undefined;
  const open = () => (cache ??= openHashCache(stateDir));
  return {
    get hashed() {
      return cache?.hashed ?? 0;
    },
    get: (name, stat) => open().get(name, stat),
    has: (name, stat) => open().has(name, stat),
    set: (name, stat, sha) => open().set(name, stat, sha),
    save: () => {},
    useExcerpt: () => {},
  };
}

/** A cache that vouches for nothing and keeps nothing: every file looked up is read and hashed. */
export function noHashCache(): HashCache {
  let hashed = 0;
  return {
    get hashed() {
      return hashed;
    },
    get: () => undefined,
    has: () => false,
    set: () => void (hashed += 1),
    save: () => {},
    useExcerpt: () => {},
  };
}

/*
 * The file is a header line, then one JSON array per line, each line written after a newline (so
 * a line cut short by a crash stays alone on its line, and is passed over):
 * `[size,mtimeMs,ctimeMs,ino,"sha256","file"]`. A later line for a file replaces an earlier one; one
 * with an empty sha256 forgets the file. A run keeps each line as it is, by its file's name, and
 * reads the stamp and sha256 of a line only when that file is looked up; a save adds only the lines
 * that changed, and writes the file anew, sorted, once half its lines are stale. An earlier
 * version's file (one JSON document, version 2) is read, and written anew at the first save.
 */
export const CACHE_HEADER = '{"version":3}';
const V2_CACHE_HEADER = '{"version":2,"files":[\n';

/**
 * What a cache file is, told by its first characters (HEAD_LENGTH of them suffice): this version's
 * lines, an earlier version's document, or none of ours.
 */
export function cacheFormatOf(head: string): CacheLines['format'] {
  if (head.startsWith(V2_CACHE_HEADER)) return 'v2';
  const afterHeader = head.charAt(CACHE_HEADER.length);
  return head.startsWith(CACHE_HEADER) && (afterHeader === '' || afterHeader === '\n') ? 'lines' : 'none';
}

/** Characters of a cache file that cacheFormatOf needs. */
export const HEAD_LENGTH = V2_CACHE_HEADER.length;
const V2_FOOTER = '\n]}\n';

/** One flat string per line (see ownCopy): the cache holds a line per file until it is saved. */
function lineOf(name: string, stat: Stats, sha: string): string {
  return ownCopy(JSON.stringify([stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, sha, name]));
}

function removalLine(name: string): string {
  return JSON.stringify([0, 0, 0, 0, '', name]);
}

/**
 * The line's sha256 when its stamp is `stat`'s: size, mtime, ctime and inode. ctime cannot be set
 * back by any tool, so a `touch -d` or `rsync -t` that restores mtime still changes the stamp.
 * The numbers are read from the text rather than `stat`'s written out to compare: turning a
 * fractional mtime into text costs several times more than reading one.
 */
function shaIfStamp(line: string, stat: Stats): string | undefined {
  const at = stampAt(line, stat);
  // A string of its own: a cut of the line would keep the whole file's text alive with it.
  return at < 0 ? undefined : ownCopy(line.slice(at + 1, line.indexOf('"', at + 1)));
}

/** Whether `stat` is of a plain file and is the stamp of `line` (a file's line, or none). */
export function stampIsLine(line: string | undefined, stat: Stamp): boolean {
  return line !== undefined && stat.isFile() && stampAt(line, stat) >= 0;
}

/** Where the line's sha256 starts (its opening quote) when its stamp is `stat`'s, else -1. */
function stampAt(line: string, stat: Stamp): number {
  let at = 1;
  for (let i = 0; i < 4; i++) {
    const want = i === 0 ? stat.size : i === 1 ? stat.mtimeMs : i === 2 ? stat.ctimeMs : stat.ino;
    const comma = line.indexOf(',', at);
    if (comma < 0 || Number(line.slice(at, comma)) !== want) return -1;
    at = comma + 1;
  }
  return line.charCodeAt(at) === QUOTE ? at : -1;
}

const QUOTE = 0x22;

/**
 * Each line by its file's name, and how many lines of the file are stale; an absent, damaged or
 * foreign file is an empty cache (every file is read).
 */
export interface CacheLines {
  entries: Map<string, string>;
  format: 'lines' | 'v2' | 'none';
  stale: number;
}

export function loadCacheLines(file: string): CacheLines {
  let bytes: Buffer;
  try {
    // A regular file, never through a link (a committed one could lead to /dev/zero).
    bytes = readRegularSync(file).bytes ?? Buffer.alloc(0);
  } catch {
    bytes = Buffer.alloc(0);
  }
  return cacheLinesOf(bytes);
}

/** loadCacheLines of a file's bytes, already read. */
export function cacheLinesOf(bytes: Buffer): CacheLines {
  const entries = new Map<string, string>();
  const none = { entries, format: 'none' as const, stale: 0 };
  const text = textOf(bytes);
  const format = cacheFormatOf(text);
  if (format === 'v2') return loadV2(text) ?? none;
  if (format === 'none') return none;
  let stale = 0;
  for (let at = CACHE_HEADER.length + 1; at < text.length;) {
    let next = text.indexOf('\n', at);
    if (next < 0) next = text.length;
    const line = text.slice(at, next);
    at = next + 1;
    const parsed = parseLine(line);
    if (!parsed) {
      // Cut short by a crash, or not ours: that line alone is passed over.
      if (line !== '') stale += 1;
      continue;
    }
    if (entries.has(parsed.name)) stale += 1;
    if (parsed.removal) {
      entries.delete(parsed.name);
      stale += 1;
    } else entries.set(parsed.name, line);
  }
  return { entries, format: 'lines', stale };
}

/** A file of version 2: one JSON document, a line per file. */
function loadV2(text: string): { entries: Map<string, string>; format: 'v2'; stale: number } | undefined {
  const entries = new Map<string, string>();
  if (!text.endsWith(V2_FOOTER)) return undefined;
  const end = text.length - V2_FOOTER.length;
  for (let at = V2_CACHE_HEADER.length; at < end;) {
    let next = text.indexOf('\n', at);
    if (next < 0 || next > end) next = end;
    const line = text.slice(at, text.charCodeAt(next - 1) === COMMA ? next - 1 : next);
    at = next + 1;
    const parsed = parseLine(line);
    if (!parsed || parsed.removal) return undefined;
    entries.set(parsed.name, line);
  }
  return { entries, format: 'v2', stale: 0 };
}

const COMMA = 0x2c;

/** The file a line names, and whether it forgets it; undefined for a line that is not one of ours. */
function parseLine(line: string): { name: string; removal: boolean } | undefined {
  const shaStart = line.indexOf('"');
  const shaEnd = line.indexOf('"', shaStart + 1);
  if (shaStart < 0 || shaEnd < 0 || line[0] !== '[' || !line.endsWith('"]')) return undefined;
  if (line.slice(shaEnd, shaEnd + 3) !== '","') return undefined;
  const removal = shaEnd === shaStart + 1;
  const raw = line.slice(shaEnd + 3, -2);
  if (!raw.includes('\\')) return { name: raw, removal };
  try {
    return { name: JSON.parse(`"${raw}"`) as string, removal };
  } catch {
    return undefined;
  }
}
