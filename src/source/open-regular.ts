import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * How cms-sync opens a file it reads from content/. The path was judged before (by the scan, or
 * by its real path), and the file can change between that and the open:
 * - never through a link at the last step (`O_NOFOLLOW`): a link put there since would lead
 *   wherever its maker chose, outside content/ too;
 * - never waiting (`O_NONBLOCK`): a named pipe opened plainly blocks until something writes to
 *   it, which stops a synchronous reader for good and holds a thread of an asynchronous one.
 * Then only a regular file is read (`fstat` of what was opened, not of the path).
 * On systems without these flags (Windows) they are 0 and the `fstat` check remains.
 */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** What a path is when it is not a regular file, in words for a message: "a named pipe". */
export function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  return 'a special file';
}

/** Thrown when what was opened is not a regular file; `code` as a system error's. */
export class NotRegularFile extends Error {
  readonly code = 'ENOTREG';
  constructor(
    readonly file: string,
    readonly kind: string,
  ) {
    super(`${file} is ${kind}, not a regular file`);
  }
}

/**
 * Reads a regular file whole, with its `fstat` (taken before the read); a file over `maxBytes`
 * is not read (`bytes` undefined).
 */
export function readRegularSync(file: string, maxBytes = Infinity): { bytes?: Buffer; stat: Stats } {
  const fd = openSync(file, READ_FLAGS);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new NotRegularFile(file, kindOf(stat));
    return stat.size > maxBytes ? { stat } : { bytes: readFileSync(fd), stat };
  } finally {
    closeSync(fd);
  }
}

/** Opens a regular file for reading; the caller closes the handle. */
export async function openRegular(file: string): Promise<{ handle: FileHandle; stat: Stats }> {
  const handle = await open(file, READ_FLAGS);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new NotRegularFile(file, kindOf(stat));
    return { handle, stat };
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

/** Why a file could not be read, in words for a message, from the error of one of the above. */
export function unreadableReason(error: unknown): string {
  if (error instanceof NotRegularFile) return `is ${error.kind}, not a regular file`;
  const code = (error as NodeJS.ErrnoException).code ?? String(error);
  // O_NOFOLLOW's answer: the file was replaced by a link after it was found.
  if (code === 'ELOOP') return 'became a symbolic link while cms-sync was reading it; run again';
  return `could not be read (${code})`;
}
