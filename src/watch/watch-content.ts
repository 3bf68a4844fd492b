import {
  lstatSync,
  realpathSync,
  opendirSync,
  watch as watchFolder,
  type FSWatcher as FolderWatch,
  type Stats,
} from 'node:fs';
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

/** A watcher in this thread also tells which folders (relative to content/) have a watch of their own. */
export interface LocalContentWatcher extends ContentWatcher {
  ownWatched(): string[];
}

export interface WatchContentOptions {
  /** Absolute path of content/. */
  contentDir: string;
  /** `--only` globs: documents outside them do not trigger a sync (media always do). */
  only?: string[] | undefined;
  onChange: (change: ContentChange) => void;
  onError: (error: Error) => void;
  /** From how many files a folder gets a watch of its own (`OWN_WATCH_FROM_FILES`); tests set it. */
  ownWatchFrom?: number;
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
/** When a folder that came after the start is listed again (see `found`). */
const RELIST_NEW_FOLDER_MS = [STABILITY_MS, 1000];

/** What chokidar passes with its `raw` event: the path its `fs.watch` was opened on. */
interface RawDetails {
  watchedPath?: string;
}

/**
 * From this many files (entries that are not folders), a folder is watched by an `fs.watch` of its
 * own instead of chokidar. Chokidar lists a folder again, with a stat of every entry, on each event
 * in it (at most once a second, then once more for what came meanwhile): in a large folder each
 * save would cost the watcher a listing of it all, which on two cores holds up the save's own pass.
 * A watch of our own reports names and lists nothing. Below this, chokidar's listing is cheap.
 */
const OWN_WATCH_FROM_FILES = 1000;

/**
 * Follows content/ by its folders. Files are never watched one by one (with a watch per file, the
 * start stat'd and watched every file, and its memory grew with them): a folder's watch reports
 * every file created, written, renamed or removed in it, by name, and each file so named is looked
 * at once it has been quiet for `STABILITY_MS`: known and there → `change` (an editor's "write temp,
 * rename over" is one), gone (still, a moment later) → `unlink`, new (still there a moment later) →
 * `add`. To tell a new file from a saved one, the names of the documents and media files of each
 * folder are kept (listed without a stat of any file).
 *
 * Chokidar follows the folders, with files `ignored`, so that it opens one `fs.watch` per folder;
 * the names come from its `raw` events. A new folder is watched and what it holds reported as added;
 * a removed one, everything it held as removed. A folder of `OWN_WATCH_FROM_FILES` files or more is
 * left out of chokidar and watched by an `fs.watch` of its own (see there); a folder found in such a
 * folder, now or later, gets a chokidar watcher of its own. Which of the two watches a folder is
 * settled when it is first met.
 *
 * Only documents and media files reach `onChange`: swap files, backups, Vim's `4913` probe, `.tmp`
 * files and hidden folders never start a sync. Links are not followed: one that leads out of
 * content/ must not be read, and two links back up the tree (`a -> ..`, `b -> ..`) would make the
 * walk grow without end; a link's own changes are still seen, and the scan of each sync judges
 * links by their real path.
 */
export async function watchContent(options: WatchContentOptions): Promise<LocalContentWatcher> {
  // Watched by its real path: chokidar follows no link, content/ itself a link included (the scan
  // of each sync reads content/ through it too).
  const contentDir = realContentDir(options.contentDir);
  const ownFrom = options.ownWatchFrom ?? OWN_WATCH_FROM_FILES;
  const selected = options.only?.length ? createPathFilter(options.only) : () => true;
  /** The documents and media files known in each watched folder (absolute), by name. */
  const folders = new Map<string, Set<string>>();
  /** Folders of many files, each watched by an `fs.watch` of its own. */
  const own = new Map<string, FolderWatch>();
  /** Chokidar's watchers, by the folder each follows: content/, and each folder met in an own-watched one. */
  const chokidars = new Map<string, FSWatcher>();
  /** The identity of each watched folder, to tell one made again where it was (`folderIdentity`). */
  const identities = new Map<string, string | undefined>();
  /** Folders chokidar's watchers were told to leave out (see remade). */
  const unwatched = new Set<string>();
  /** Whether each folder chokidar met has many files: judged once, when first met. */
  const judged = new Map<string, boolean>();
  const timers = new Map<string, NodeJS.Timeout>();
  const listings = new Set<Promise<void>>();
  /** Chokidar watchers still walking their folders: the watch has started once none is. */
  const starting = new Set<Promise<void>>();
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
  const under = (dir: string, folder: string) => folder === dir || folder.startsWith(dir + path.sep);

  /** Follows `root` and the folders in it with chokidar. */
  const follow = (root: string) => {
    if (closed || chokidars.has(root)) return;
    const watcher: FSWatcher = watch(root, {
      followSymlinks: false,
      // Called without stats before chokidar has looked at a path: only a name can be judged then, and
      // a folder must not be dropped for lacking one. With stats, anything but a folder is left out,
      // and so is a folder of many files, which is given a watch of its own.
      ignored: (absPath, stats) => {
        const name = path.basename(absPath);
        if (absPath !== root && (isIgnoredName(name) || isIgnoredFolder(name))) return true;
        if (stats === undefined) return false;
        return !stats.isDirectory() || ownsWatch(absPath);
      },
    });
    chokidars.set(root, watcher);
    watcher.on('raw', (event, name, details) => {
      const { watchedPath } = details as RawDetails;
      // Every watch is on a folder, so `name` is an entry of it (absent on platforms that cannot tell).
      if (name && watchedPath) named(watchedPath, name, event);
    });
    watcher.on('addDir', (dir) => found(dir));
    watcher.on('unlinkDir', (dir) => forget(dir));
    watcher.on('error', fail);
    const started = new Promise<void>((resolve) => watcher.once('ready', resolve));
    starting.add(started);
    void started.finally(() => starting.delete(started));
  };

  /** Whether `dir` has many files, judged when first asked; one that has is watched by us from then on. */
  const ownsWatch = (dir: string): boolean => {
    let many = judged.get(dir);
    if (many === undefined) {
      many = countFilesUpTo(dir, ownFrom) >= ownFrom;
      judged.set(dir, many);
    }
    if (many) watchOwn(dir);
    return many;
  };

  /** Watches a folder of many files with an `fs.watch` of its own: it reports names, and lists nothing. */
  const watchOwn = (dir: string) => {
    if (closed || own.has(dir)) return;
    let watch: FolderWatch;
    try {
      watch = watchFolder(dir, { persistent: true }, (event, name) => {
        if (name) named(dir, name.toString(), event);
        // Platforms that cannot tell a name: what came or went is found by listing the folder.
        else list(dir, true);
      });
    } catch (error) {
      // Gone before it could be watched: its parent's watch reports that.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') fail(error);
      return;
    }
    watch.on('error', (error: NodeJS.ErrnoException) => {
      // A folder removed under its watch: its parent's watch reports that too.
      if (error.code !== 'ENOENT' && error.code !== 'EPERM') fail(error);
    });
    own.set(dir, watch);
    found(dir);
  };

  /** A folder now watched: its files are learned, and reported added if it came after the start. */
  const found = (dir: string) => {
    identities.set(dir, folderIdentity(dir));
    list(dir, ready);
    if (!ready) return;
    // A folder made and filled at once: a file or folder made in it after it was listed but before
    // its watch was open would be seen by neither (chokidar too lists a new folder, then watches it),
    // so the folder is listed again a moment later, and once more later still, for a busy machine.
    for (const ms of RELIST_NEW_FOLDER_MS)
      later(ms, () => {
        if (folders.has(dir)) list(dir, true, true);
      });
  };

  /** An entry of a watched folder was named by its watch (`event` as `fs.watch` gives it). */
  const named = (dir: string, name: string, event: string) => {
    const absPath = path.join(dir, name);
    touched(absPath);
    if (identities.has(absPath)) lookAgain(absPath, false);
    // A watch names its own folder when that folder goes: the watch then follows nothing.
    else if (event === 'rename' && name === path.basename(dir) && identities.has(dir)) {
      if (folderIdentity(absPath) === undefined) lookAgain(dir, true);
    }
    // Chokidar follows the folders of the folders it watches; those of an own-watched folder are
    // followed here, and so is a folder chokidar was told to leave out (see remade). A folder comes
    // with a 'rename' event: a 'change' (a file written) costs no stat here.
    else if (event === 'rename') {
      if (own.has(dir) && !isIgnoredName(name) && !isIgnoredFolder(name)) {
        if (folderIdentity(absPath) !== undefined) follow(absPath);
      } else if (unwatched.has(absPath) && folderIdentity(absPath) !== undefined) watchOwn(absPath);
    }
  };

  /**
   * A watched folder was named by an event: gone, or made again (an inode is soon used again, so its
   * birth time tells). Looked at after the grace: a folder moved away and back is the same folder,
   * unless its own watch said it went (then it is followed anew, to be sure).
   */
  const lookAgain = (dir: string, watchWent: boolean) => {
    if (!watchWent && folderIdentity(dir) === identities.get(dir)) return;
    later(GRACE_MS, () => {
      const now = folderIdentity(dir);
      if (now === undefined) forget(dir);
      // Also when chokidar reported it removed meanwhile: unless it found it again, nothing follows it.
      else if (watchWent || now !== identities.get(dir)) remade(dir);
    });
  };

  /**
   * A folder made again where a watched one was (`rm -r` then `mkdir`, a tree copied over): the
   * watches of the old one follow nothing any more, and chokidar would use them again for the new
   * one. They are closed, and the new folder is watched by a watch of its own, its folders by
   * chokidar watchers of their own; what the old one held is reported removed, the new one's added.
   */
  const remade = (dir: string) => {
    const old = [...folders.keys()].filter((folder) => under(dir, folder));
    forget(dir);
    // Ours from now on, whatever it holds: chokidar's watcher of the folder around it leaves it out.
    judged.set(dir, true);
    for (const [root, watcher] of chokidars) {
      if (!under(dir, root)) watcher.unwatch(old);
      // Only content/'s own watcher is left here, when content/ itself was made again.
      else if (chokidars.delete(root)) void watcher.close().catch(fail);
    }
    // Chokidar leaves out for good what it was told to unwatch: a folder made there later is ours.
    unwatched.add(dir);
    watchOwn(dir);
  };

  /** The chokidar watcher that follows `dir`: the one started on the folder nearest above it. */
  const chokidarOf = (dir: string): FSWatcher | undefined => {
    let nearest: string | undefined;
    for (const root of chokidars.keys())
      if (under(root, dir) && (nearest === undefined || root.length > nearest.length)) nearest = root;
    return nearest === undefined ? undefined : chokidars.get(nearest);
  };

  /** A folder and all it held are gone: their files are reported removed, their watches closed. */
  const forget = (dir: string) => {
    for (const [folder, names] of folders) {
      if (!under(dir, folder)) continue;
      folders.delete(folder);
      // After the grace a new file waits: a folder moved makes one pass, as a file moved does.
      later(GRACE_MS, () => {
        for (const name of names) emit(path.join(folder, name), 'unlink');
      });
    }
    for (const [folder, watch] of own)
      if (under(dir, folder)) {
        own.delete(folder);
        watch.close();
      }
    for (const [root, watcher] of chokidars)
      if (root !== contentDir && under(dir, root)) {
        chokidars.delete(root);
        void watcher.close().catch(fail);
      }
    for (const folder of judged.keys()) if (under(dir, folder)) judged.delete(folder);
    for (const folder of identities.keys()) if (under(dir, folder)) identities.delete(folder);
  };

  /** Learns the files of a watched folder; one that came after the start reports them added. */
  const listFolder = async (dir: string, report: boolean, again: boolean): Promise<void> => {
    if (!folders.has(dir)) folders.set(dir, new Set());
    const names = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [];
      throw error;
    });
    const known = folders.get(dir);
    if (closed || !known) return;
    for (const entry of names) {
      if (entry.isDirectory()) {
        if (isIgnoredName(entry.name) || isIgnoredFolder(entry.name)) continue;
        const folder = path.join(dir, entry.name);
        // Chokidar walks the folders of its own; those of an own-watched folder are followed here.
        if (own.has(dir)) follow(folder);
        // One made before chokidar's watch of this folder was open, which it never saw: it is given to
        // the chokidar watcher that follows this folder.
        else if (again && !identities.has(folder)) chokidarOf(dir)?.add(folder);
        continue;
      }
      if (!isWatchedFile(entry.name) || known.has(entry.name)) continue;
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
  /** `again`: a folder listed before, looked at for what its watch may have missed. */
  const list = (dir: string, report: boolean, again = false) => {
    const listing = listFolder(dir, report, again).catch(fail);
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
      // Not through the thread pool: chokidar queues a stat of every entry of a folder there on each
      // event in it (thousands, in a big folder), and this stat is the one a writer waits on.
      stats = lstatSync(absPath, { throwIfNoEntry: false });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
    }
    // A newer event restarted the wait, or the folder went (its removal reported what it held).
    const known = folders.get(dir);
    if (closed || timers.has(absPath) || !known) return;
    // A folder with a file's name: it is followed as a folder.
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

  follow(contentDir);
  // Each walk (and each listing) can start more: the folders found in an own-watched folder.
  while (starting.size > 0 || listings.size > 0) await Promise.all([...starting, ...listings]);
  ready = true;
  return {
    ownWatched: () => [...own.keys()].map((dir) => toPosixRelative(contentDir, dir)).sort(),
    async close() {
      closed = true;
      for (const timer of [...timers.values(), ...deferred]) clearTimeout(timer);
      timers.clear();
      for (const watch of own.values()) watch.close();
      own.clear();
      await Promise.all([...chokidars.values()].map((watcher) => watcher.close()));
    },
  };
}

/** How many entries of `dir` are not folders, counted up to `limit`; 0 if it cannot be read. */
function countFilesUpTo(dir: string, limit: number): number {
  let count = 0;
  try {
    const entries = opendirSync(dir);
    try {
      for (let entry = entries.readSync(); entry && count < limit; entry = entries.readSync())
        if (!entry.isDirectory()) count += 1;
    } finally {
      entries.closeSync();
    }
  } catch {
    // Chokidar meets the same error and reports it.
  }
  return count;
}

/**
 * What tells the folder at `absPath` from one made there before or after it: its inode and birth
 * time. Undefined if there is no folder (a link to one is not one).
 */
function folderIdentity(absPath: string): string | undefined {
  try {
    const stats = lstatSync(absPath, { throwIfNoEntry: false });
    return stats?.isDirectory() ? `${stats.ino}:${stats.birthtimeMs}` : undefined;
  } catch {
    return undefined;
  }
}

function realContentDir(contentDir: string): string {
  try {
    return realpathSync(contentDir);
  } catch {
    // Missing: chokidar waits for it, as before.
    return contentDir;
  }
}

function isWatchedFile(name: string): boolean {
  return isDocumentName(name) || isMediaName(name);
}
