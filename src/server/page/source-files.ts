import { realpathSync, statSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readRegularSync } from '../../source/open-regular.js';
import { readStateAsIs, STATE_BASE_FILE, STATE_LOG_FILE } from '../../state/state-file.js';

/** A record of a state as this page reads it: a state of any version, or a file that is only JSON. */
type Entry = { id?: unknown; file?: unknown };

const STATE_FILES = [STATE_BASE_FILE, STATE_LOG_FILE];

/**
 * Which file of a project each record came from, as that project's cms-sync state says: for the
 * record pages' "source" link. The server never reaches the disk from a URL alone: only a file
 * named in a state file, whose real path lies inside the project's `content/`, is ever read.
 */
export interface SourceFiles {
  /** The record's file, relative to the project (`content/articles/x.md`), if some state names it. */
  fileOf(resource: string, id: number): string | undefined;
  /** fileOf for many records at once (a page's rows): the state files are looked at once. */
  snapshot(): (resource: string, id: number) => string | undefined;
  /** The file's text, if it is one of those and still inside the content directory. */
  read(resource: string, id: number): { file: string; text: string } | undefined;
}

export interface SourceProject {
  /** The project directory: state files name files relative to it. */
  dir: string;
  /** Its content directory (absolute). */
  contentDir: string;
  /** State files of syncs to this server (the state in each one's folder is read); missing ones are skipped. */
  stateFiles: string[];
}

/** Largest source file shown; a bigger one is named but not read. */
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;

/**
 * `serverUrl` is this server's: a state file written for another CMS (whose ids mean other
 * records) is passed over, and only one for the embedded local CMS or for this URL is read.
 */
export function sourceFiles(project: SourceProject | undefined, serverUrl: () => string): SourceFiles {
  let cache: { key: string; files: Map<string, string> } | undefined;
  const files = (): Map<string, string> => {
    if (!project) return new Map();
    const stamps = project.stateFiles.flatMap((file) =>
      [file, ...STATE_FILES.map((name) => path.join(path.dirname(file), name))].map((each) => {
        try {
          const s = statSync(each);
          return `${each}:${s.size}:${s.mtimeMs}`;
        } catch {
          return `${each}:-`;
        }
      }),
    );
    const key = stamps.join('|');
    if (cache?.key === key) return cache.files;
    const map = new Map<string, string>();
    for (const file of project.stateFiles) {
      let state:
        { target?: unknown; records?: Map<string, Entry> | Record<string, Entry | undefined> } | undefined;
      try {
        state = readStateAsIs(path.dirname(file))?.state;
      } catch {
        state = undefined;
      }
      // Not a state cms-sync would read (a partial one): the file as it is, if it is JSON.
      try {
        state ??= JSON.parse(readFileSync(file, 'utf8')) as typeof state;
      } catch {
        continue;
      }
      if (!state) continue;
      if (!isThisServer(state.target, serverUrl())) continue;
      const records = state.records ?? {};
      for (const [key, entry] of records instanceof Map ? records : Object.entries(records)) {
        if (typeof entry?.id !== 'number' || typeof entry.file !== 'string') continue;
        map.set(`${key.slice(0, key.indexOf('/'))}/${entry.id}`, entry.file);
      }
    }
    cache = { key, files: map };
    return map;
  };
  return {
    fileOf: (resource, id) => files().get(`${resource}/${id}`),
    snapshot() {
      const now = files();
      return (resource, id) => now.get(`${resource}/${id}`);
    },
    read(resource, id) {
      const file = files().get(`${resource}/${id}`);
      if (!file || !project) return undefined;
      try {
        const real = realpathSync(path.resolve(project.dir, file));
        const root = realpathSync(project.contentDir);
        if (!real.startsWith(root + path.sep)) return undefined;
        const { bytes } = readRegularSync(real, MAX_SOURCE_BYTES, root);
        return bytes && { file, text: bytes.toString('utf8') };
      } catch {
        return undefined;
      }
    },
  };
}

function isThisServer(target: unknown, url: string): boolean {
  if (target === 'local') return true;
  if (typeof target !== 'string' || url === '') return false;
  return target === url || target.startsWith(`${url}/`);
}
