import { mkdirSync, readFileSync, renameSync, writeFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import { byCodeUnit } from '../compare.js';
import { ownCopy } from '../own-copy.js';

/** Kept beside the state files but local to this checkout (inodes and times mean nothing elsewhere): not committed. */
export const HASH_CACHE_FILE = 'file-hashes.json';

/**
 * How long after a file's last change its stat is trusted to stand for its bytes. A file changed
 * again within the file system's timestamp granularity (2 s on FAT, 1 s on HFS+, ns on ext4) can
 * keep the same times; a stat recorded only once the file is older than that cannot be fooled by
 * such a change. Git calls these files "racily clean" and re-hashes them the same way.
 */
export const RACY_MS = 2000;

/**
 * The sha256 of files as of their last stat, like git's index: when a file's stamp (size, mtime,
 * ctime, inode) is the one recorded, its bytes are those that were hashed, so a
 * run over 10,000 unchanged files stats them instead of reading them. A miss only costs a read:
 * the cache is never the reason something is taken as unchanged that was not.
 */
export interface HashCache {
  /** The recorded sha256 when `stat` is the one recorded for `file` (project-relative, forward slashes). */
  get(file: string, stat: Stats): string | undefined;
  /** Records `sha` for `file` as hashed after `stat` was taken (stat first, then read: never the other way). */
  set(file: string, stat: Stats, sha: string): void;
  /** Files read and hashed so far (every `set`): the rest were vouched for by their stat. */
  readonly hashed: number;
  /** Writes the cache if anything changed; forgets files not `seen` when `complete` (every file was looked at). */
  save(options?: { complete?: boolean }): void;
}

export function openHashCache(stateDir: string, now: () => number = Date.now): HashCache {
  const file = path.join(stateDir, HASH_CACHE_FILE);
  const entries = load(file);
  const seen = new Set<string>();
  let dirty = false;
  let hashed = 0;
  return {
    get hashed() {
      return hashed;
    },
    get(name, stat) {
      seen.add(name);
      const line = entries.get(name);
      return line !== undefined && stat.isFile() ? shaIfStamp(line, stat) : undefined;
    },
    set(name, stat, sha) {
      seen.add(name);
      hashed += 1;
      const cutoff = now() - RACY_MS;
      if (!stat.isFile() || stat.mtimeMs > cutoff || stat.ctimeMs > cutoff) {
        // Racily clean (or in the future): hash it again next time rather than trust its times.
        if (entries.delete(name)) dirty = true;
        return;
      }
      const old = entries.get(name);
      if (old !== undefined && shaIfStamp(old, stat) === sha) return;
      entries.set(name, lineOf(name, stat, sha));
      dirty = true;
    },
    save(options = {}) {
      if (options.complete) {
        for (const name of entries.keys()) {
          if (!seen.has(name)) {
            entries.delete(name);
            dirty = true;
          }
        }
      }
      if (!dirty) return;
      // A cache: written whole through a rename so it is never torn, not fsynced (losing it costs
      // one read of each file).
      try {
        mkdirSync(stateDir, { recursive: true });
        const temp = `${file}.${process.pid}.tmp`;
        const names = [...entries.keys()].sort(byCodeUnit);
        writeFileSync(temp, `${HEADER}${names.map((name) => entries.get(name)).join(',\n')}${FOOTER}`);
        renameSync(temp, file);
        dirty = false;
      } catch {
        // Read-only checkout, full disk: the run is as correct without the cache, only slower next time.
      }
    },
  };
}

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
    set: (name, stat, sha) => open().set(name, stat, sha),
    save: () => {},
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
    set: () => void (hashed += 1),
    save: () => {},
  };
}

/*
 * The file is JSON, one file per line, so that it is read without parsing every entry: a run
 * keeps each line as it is, by its file's name, and reads the stamp and sha256 of a line only
 * when that file is looked up. A line is `[size,mtimeMs,ctimeMs,ino,"sha256","file"]`.
 */
const HEADER = '{"version":2,"files":[\n';
const FOOTER = '\n]}\n';

/** One flat string per line (see ownCopy): the cache holds a line per file until it is saved. */
function lineOf(name: string, stat: Stats, sha: string): string {
  return ownCopy(JSON.stringify([stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, sha, name]));
}

/**
 * The line's sha256 when its stamp is `stat`'s: size, mtime, ctime and inode. ctime cannot be set
 * back by any tool, so a `touch -d` or `rsync -t` that restores mtime still changes the stamp.
 * The numbers are read from the text rather than `stat`'s written out to compare: turning a
 * fractional mtime into text costs several times more than reading one.
 */
function shaIfStamp(line: string, stat: Stats): string | undefined {
  let at = 1;
  for (const want of [stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino]) {
    const comma = line.indexOf(',', at);
    if (comma < 0 || Number(line.slice(at, comma)) !== want) return undefined;
    at = comma + 1;
  }
  if (line.charCodeAt(at) !== QUOTE) return undefined;
  // A string of its own: a cut of the line would keep the whole file's text alive with it.
  return ownCopy(line.slice(at + 1, line.indexOf('"', at + 1)));
}

const QUOTE = 0x22;

/** Each line by its file's name; an absent, damaged or foreign file is an empty cache (every file is read). */
function load(file: string): Map<string, string> {
  const entries = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return entries;
  }
  if (!text.startsWith(HEADER) || !text.endsWith(FOOTER)) return entries;
  const end = text.length - FOOTER.length;
  for (let at = HEADER.length; at < end;) {
    let next = text.indexOf('\n', at);
    if (next < 0 || next > end) next = end;
    const line = text.slice(at, text.charCodeAt(next - 1) === COMMA ? next - 1 : next);
    at = next + 1;
    const name = nameOf(line);
    if (name === undefined) return new Map();
    entries.set(name, line);
  }
  return entries;
}

const COMMA = 0x2c;

/** The file named at the end of a line, or undefined for a line that is not one of ours. */
function nameOf(line: string): string | undefined {
  const shaStart = line.indexOf('"');
  const shaEnd = line.indexOf('"', shaStart + 1);
  if (shaStart < 0 || shaEnd < 0 || line[0] !== '[' || !line.endsWith('"]')) return undefined;
  if (line.slice(shaEnd, shaEnd + 3) !== '","') return undefined;
  const raw = line.slice(shaEnd + 3, -2);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined;
  }
}
