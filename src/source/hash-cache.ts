import { mkdirSync, readFileSync, renameSync, writeFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import { byCodeUnit } from '../compare.js';
import { sameStamp, stampOf, type FileStamp } from '../file-stamp.js';

/** Kept beside the state files but local to this checkout (inodes and times mean nothing elsewhere): not committed. */
export const HASH_CACHE_FILE = 'file-hashes.json';

/**
 * How long after a file's last change its stat is trusted to stand for its bytes. A file changed
 * again within the file system's timestamp granularity (2 s on FAT, 1 s on HFS+, ns on ext4) can
 * keep the same times; a stat recorded only once the file is older than that cannot be fooled by
 * such a change. Git calls these files "racily clean" and re-hashes them the same way.
 */
export const RACY_MS = 2000;

/** The file's stamp when it was hashed, and its sha256. */
type Entry = [...FileStamp, string];

/**
 * The sha256 of files as of their last stat, like git's index: when a file's stamp (size, mtime,
 * ctime, inode: see FileStamp) is the one recorded, its bytes are those that were hashed, so a
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
      const entry = entries.get(name);
      return entry && stat.isFile() && sameStamp(entry, stat) ? entry[4] : undefined;
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
      if (old && sameStamp(old, stat) && old[4] === sha) return;
      // Written out rather than spread: an array made by a spread gets room for many more
      // elements than it has, and the cache holds one per file.
      const [size, mtimeMs, ctimeMs, ino] = stampOf(stat);
      entries.set(name, [size, mtimeMs, ctimeMs, ino, sha]);
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
        writeFileSync(
          temp,
          JSON.stringify({
            version: 1,
            files: Object.fromEntries([...entries].sort(([a], [b]) => byCodeUnit(a, b))),
          }),
        );
        renameSync(temp, file);
        dirty = false;
      } catch {
        // Read-only checkout, full disk: the run is as correct without the cache, only slower next time.
      }
    },
  };
}

function isEntry(value: unknown): value is Entry {
  if (!Array.isArray(value) || value.length !== 5 || typeof value[4] !== 'string') return false;
  for (let i = 0; i < 4; i++) if (typeof value[i] !== 'number') return false;
  return true;
}

function load(file: string): Map<string, Entry> {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown; files?: unknown };
    if (parsed.version !== 1 || typeof parsed.files !== 'object' || parsed.files === null) return new Map();
    const entries = new Map<string, Entry>();
    const files = parsed.files as Record<string, unknown>;
    for (const name in files) {
      const value = files[name];
      if (isEntry(value)) entries.set(name, value);
    }
    return entries;
  } catch {
    // Absent or unreadable: every file is read and hashed, as without a cache.
    return new Map();
  }
}
