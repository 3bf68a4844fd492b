import { constants, lstatSync, readdirSync, readlinkSync, type Dirent } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { SyncError } from '../errors.js';

/**
 * The state folder is committed, so a pull request can put a symbolic link where a state file
 * was (`.cms-sync/state.log.jsonl -> ~/.bashrc`): a run that then appended or truncated through
 * it would write wherever the link leads. Files there are opened never through a link at the last
 * step (`O_NOFOLLOW`), written whole through a temp file created exclusively (`wx`: a link
 * planted at the temp's name fails the create) and a rename (which replaces a link, never writes
 * through it), and the folder itself is refused when it is a link (checkStateDir).
 */
const APPEND_FLAGS =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

/** Opens a state file for appending (created if absent), never through a link. */
export async function openForAppend(file: string): Promise<FileHandle> {
  try {
    return await open(file, APPEND_FLAGS, 0o644);
  } catch (error) {
    throw refusedLink(file, error);
  }
}

/** Flags for appendFileSync/writeFileSync: append, never through a link. */
export const APPEND_NO_FOLLOW = APPEND_FLAGS;

/** A link where a state file should be, as the error to show; any other error as it was. */
export function refusedLink(file: string, error: unknown): unknown {
  if ((error as NodeJS.ErrnoException).code !== 'ELOOP') return error;
  return new SyncError(
    'CMS_SYNC_STATE',
    `${file} is a symbolic link: cms-sync never writes its state through one (a link committed in a pull ` +
      'request could make it write anywhere). Remove the link and restore the file from git.',
    { cause: error },
  );
}

/**
 * Refuses a state folder that is a symbolic link (`.cms-sync -> /home/you/.config`): every file
 * cms-sync keeps would be written where it leads. Called before any command reads or writes it.
 */
export function checkStateDir(stateDir: string, projectDir: string): void {
  let isLink: boolean;
  try {
    isLink = lstatSync(stateDir).isSymbolicLink();
  } catch {
    return; // Absent: created as a folder when first written.
  }
  const shown = (file: string) => path.relative(projectDir, file) || file;
  if (isLink)
    throw new SyncError(
      'CMS_SYNC_STATE',
      `${shown(stateDir)} is a symbolic link${targetOf(stateDir)}: cms-sync keeps its state in a folder of the ` +
        'project and never writes through a link (one committed in a pull request could make it write ' +
        'anywhere). Replace the link with a folder, or remove it.',
    );
  // Its files, and those of its folders but the local CMS's own data: a link or a pipe among them
  // would be read (a pipe waits for good, `/dev/zero` never ends) or written through.
  for (const dir of [stateDir, ...subfolders(stateDir)])
    for (const entry of entries(dir)) {
      if (entry.isFile() || entry.isDirectory()) continue;
      const file = path.join(dir, entry.name);
      const what = entry.isSymbolicLink() ? `a symbolic link${targetOf(file)}` : 'not a regular file';
      throw new SyncError(
        'CMS_SYNC_STATE',
        `${shown(file)} is ${what}: cms-sync reads and writes its state only as regular files (a link committed ` +
          'in a pull request could make it write anywhere). Remove it, and restore the file from git if it is ' +
          'one of the state files.',
      );
    }
}

/** The local CMS keeps its data in a folder of its own, which it checks itself. */
const NOT_CHECKED = new Set(['local-cms']);

function subfolders(dir: string): string[] {
  return entries(dir)
    .filter((e) => e.isDirectory() && !NOT_CHECKED.has(e.name))
    .map((e) => path.join(dir, e.name));
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function targetOf(link: string): string {
  try {
    return ` (to ${readlinkSync(link)})`;
  } catch {
    return ''; // Gone meanwhile: the message still names it.
  }
}
