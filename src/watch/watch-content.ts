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
 * Size must hold still this long before a save counts as finished. Short, because every
 * millisecond here is latency the writer waits for; a partial write that slips through only
 * costs a positioned error and the next event (the rest of the write) fixes it.
 */
const STABILITY_MS = 50;
const POLL_MS = 10;

/**
 * Follows content/ with chokidar. `atomic` (on by default with fs.watch) turns an editor's
 * "write temp, rename over" save into one `change`, and holds an `unlink` back 100 ms so a file
 * re-added at once is not reported as deleted; `awaitWriteFinish` holds `add`/`change` until the
 * file stops growing, and every new event for the file restarts that wait, so a burst of saves
 * comes out as one event. Only documents and media files reach `onChange`: swap files, backups,
 * Vim's `4913` probe, `.tmp` files and hidden folders never start a sync.
 */
export async function watchContent(options: WatchContentOptions): Promise<ContentWatcher> {
  const selected = options.only?.length ? createPathFilter(options.only) : () => true;
  const watcher: FSWatcher = watch(options.contentDir, {
    ignoreInitial: true,
    // Links are not followed: one that leads out of content/ must not be read, and two links back
    // up the tree (`a -> ..`, `b -> ..`) would make the walk grow without end. A link's own
    // changes are still seen, and what a link inside content/ leads to is watched where it is;
    // the scan of each sync judges links by their real path.
    followSymlinks: false,
    atomic: true,
    awaitWriteFinish: { stabilityThreshold: STABILITY_MS, pollInterval: POLL_MS },
    // Called with stats when chokidar has them; without, only names can be judged, and a
    // folder must not be dropped for lacking a file extension.
    ignored: (absPath, stats) => {
      if (absPath === options.contentDir) return false;
      const name = path.basename(absPath);
      if (isIgnoredName(name) || isIgnoredFolder(name)) return true;
      return stats?.isFile() === true && !isWatchedFile(name);
    },
  });
  const report = (kind: ContentChange['kind']) => (absPath: string) => {
    // An unlink comes without stats, so the filter above let it through: judge it by name here.
    const file = toPosixRelative(options.contentDir, absPath);
    const name = path.basename(absPath);
    if (!isWatchedFile(name)) return;
    if (isDocumentName(name) && !selected(file)) return;
    options.onChange({ file, kind });
  };
  watcher.on('add', report('add')).on('change', report('change')).on('unlink', report('unlink'));
  watcher.on('error', (error) => options.onError(error instanceof Error ? error : new Error(String(error))));
  await new Promise<void>((resolve) => watcher.once('ready', resolve));
  return { close: () => watcher.close() };
}

function isWatchedFile(name: string): boolean {
  return isDocumentName(name) || isMediaName(name);
}
