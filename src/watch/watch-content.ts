import { lstatSync, type Stats } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import {
  isDocumentName,
  isIgnoredFolder,
  isIgnoredName,
  isMediaName,
  toPosixRelative,
} from '../source/content-paths.js';
import { createPathFilter } from '../source/glob.js';

/** A file under content/ that was saved, created or removed; `file` is relative to content/. */
export interface ContentChange {
  file: string;
  kind: 'add' | 'change' | 'unlink';
}

export interface ContentWatcher {
  close(): Promise<void>;
}

export interface WatchContentOptions {
  /** Absolute path of content/. */
  contentDir: string;
  /** `--only` globs: documents outside them do not trigger a sync (media always do). */
  only?: string[] | undefined;
  onChange: (change: ContentChange) => void;
  onError: (error: Error) => void;
}

/**
 * Quiet time after a file's last event before it counts as saved: every event for the file
 * restarts it, so a burst of writes (or of saves) comes out as one change. Short, because every
 * millisecond here is latency the writer waits for; a partial write that slips through only costs
 * a positioned error, and the next event (the rest of the write) fixes it.
 */
const STABILITY_MS = 50;
/**
 * A file found missing is reported removed only if it is still missing this much later: an
 * editor that saves by moving the old file away and writing a new one leaves a gap. A file that
 * appeared waits as long, so that the two halves of a rename or a move (one reported missing, one
 * new) come out together and make one pass; so does one found empty, most likely truncated by a
 * writer whose text is still to come.
 */
const GRACE_MS = 100;

/** What chokidar passes with its `raw` event: the path its `fs.watch` was opened on. */
interface RawDetails {
  watchedPath?: string;
}

/**
 * Follows content/ with chokidar, on its folders only. Files are `ignored`, so chokidar opens one
 * `fs.watch` per folder and none per file (with one per file, the start stat'd and watched every
 * file, and its memory grew with them). A folder's watch still reports every file created,
 * written, renamed or removed in it, by name: chokidar passes those on as `raw` events, and each
 * file so named is looked at once it has been quiet for `STABILITY_MS`: known and there → `change`
 * (an editor's "write temp, rename over" is one), gone (still, a moment later) → `unlink`, new
 * (still there a moment later) → `add`.
 * Chokidar follows the folders: a new one is watched and what it holds reported as added; a removed
 * one, everything it held as removed. To tell a new file from a saved one, the names of the
 * documents and media files of each folder are kept (listed without a stat of any file).
 *
 * Only documents and media files reach `onChange`: swap files, backups, Vim's `4913` probe, `.tmp`
 * files and hidden folders never start a sync. Links are not followed: one that leads out of
 * content/ must not be read, and two links back up the tree (`a -> ..`, `b -> ..`) would make the
 * walk grow without end; a link's own changes are still seen, and the scan of each sync judges
 * links by their real path.
 */
export async function watchContent(options: WatchContentOptions): Promise<ContentWatcher> {
  const { contentDir } = options;
  const selected = options.only?.length ? createPathFilter(options.only) : () => true;
  /** The documents and media files known in each watched folder (absolute), by name. */
  const folders = new Map<string, Set<string>>();
  const timers = new Map<string, NodeJS.Timeout>();
  const listings = new Set<Promise<void>>();
  /** Folder listings and removals to report, a moment later. */
  const deferred = new Set<NodeJS.Timeout>();
  let ready = false;
  let closed = false;

  const emit = (absPath: string, kind: ContentChange['kind']) => {
    const file = toPosixRelative(contentDir, absPath);
    if (isDocumentName(path.basename(absPath)) && !selected(file)) return;
    options.onChange({ file, kind });
  };
  const fail = (error: unknown) => {
    if (!closed) options.onError(error instanceof Error ? error : new Error(String(error)));
  };

  const watcher: FSWatcher = watch(contentDir, {
    followSymlinks: false,
    // Called without stats before chokidar has looked at a path: only a name can be judged then, and
    // a folder must not be dropped for lacking one. With stats, anything but a folder is left out.
    ignored: (absPath, stats) => {
      if (absPath === contentDir) return false;
      const name = path.basename(absPath);
      if (isIgnoredName(name) || isIgnoredFolder(name)) return true;
      return stats !== undefined && !stats.isDirectory();
    },
  });

  /** Learns the files of a folder chokidar now watches; one that came after the start reports them added. */
  const listFolder = async (dir: string, report: boolean): Promise<void> => {
    if (!folders.has(dir)) folders.set(dir, new Set());
    const names = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [];
      throw error;
    });
    const known = folders.get(dir);
    if (closed || !known) return;
    for (const entry of names) {
      if (entry.isDirectory() || !isWatchedFile(entry.name) || known.has(entry.name)) continue;
      const absPath = path.join(dir, entry.name);
      if (!report) known.add(entry.name);
      else if (!timers.has(absPath)) touched(absPath);
    }
  };
  const later = (ms: number, action: () => void) => {
    const timer = setTimeout(() => {
      deferred.delete(timer);
      if (!closed) action();
    }, ms);
    deferred.add(timer);
  };
  const list = (dir: string, report: boolean) => {
    const listing = listFolder(dir, report).catch(fail);
    listings.add(listing);
    void listing.finally(() => listings.delete(listing));
  };

  const touched = (absPath: string) => {
    if (closed || !isWatchedFile(path.basename(absPath))) return;
    clearTimeout(timers.get(absPath));
    timers.set(
      absPath,
      setTimeout(() => void settle(absPath, false).catch(fail), STABILITY_MS),
    );
  };

  /** Looks at a file that has been quiet: what is there now says what happened. */
  const settle = async (absPath: string, graceOver: boolean): Promise<void> => {
    timers.delete(absPath);
    const dir = path.dirname(absPath);
    if (closed || !folders.has(dir)) return;
    let stats: Stats | undefined;
    try {
      // Not through the thread pool: chokidar queues a stat of every entry of this folder there on
      // each event in it (thousands, in a big folder), and this stat is the one a writer waits on.
      stats = lstatSync(absPath, { throwIfNoEntry: false });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
    }
    // A newer event restarted the wait, or the folder went (its removal reported what it held).
    const known = folders.get(dir);
    if (closed || timers.has(absPath) || !known) return;
    // A folder with a file's name: chokidar follows it as a folder.
    if (stats?.isDirectory()) return;
    const name = path.basename(absPath);
    const wasKnown = known.has(name);
    if (!stats && !wasKnown) return;
    // A file just emptied is most likely being written (truncated, its text not there yet): it is
    // looked at again, as is one that came or went, a moment later.
    const saved = stats !== undefined && wasKnown && stats.size > 0;
    if (!saved && !graceOver) {
      timers.set(
        absPath,
        setTimeout(() => void settle(absPath, true).catch(fail), GRACE_MS),
      );
      return;
    }
    if (stats) known.add(name);
    else known.delete(name);
    emit(absPath, !stats ? 'unlink' : wasKnown ? 'change' : 'add');
  };

  watcher.on('raw', (_event, name, details) => {
    const { watchedPath } = details as RawDetails;
    // Every watch is on a folder, so `name` is an entry of it (absent on platforms that cannot tell).
    if (name && watchedPath) touched(path.join(watchedPath, name));
  });
  watcher.on('addDir', (dir) => {
    list(dir, ready);
    // A folder made and filled at once: a file written after that listing but before chokidar's watch
    // on the folder is open would be seen by neither, so the folder is listed again a moment later.
    if (ready) later(STABILITY_MS, () => list(dir, true));
  });
  watcher.on('unlinkDir', (dir) => {
    for (const [folder, names] of folders) {
      if (folder !== dir && !folder.startsWith(dir + path.sep)) continue;
      folders.delete(folder);
      // After the grace a new file waits: a folder moved makes one pass, as a file moved does.
      later(GRACE_MS, () => {
        for (const name of names) emit(path.join(folder, name), 'unlink');
      });
    }
  });
  watcher.on('error', fail);
  await new Promise<void>((resolve) => watcher.once('ready', resolve));
  while (listings.size > 0) await Promise.all(listings);
  ready = true;
  return {
    async close() {
      closed = true;
      for (const timer of [...timers.values(), ...deferred]) clearTimeout(timer);
      timers.clear();
      await watcher.close();
    },
  };
}

function isWatchedFile(name: string): boolean {
  return isDocumentName(name) || isMediaName(name);
}
