import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  readlinkSync,
  realpathSync,
  type Stats,
} from 'node:fs';
import { open, readlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

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

/**
 * `O_NOFOLLOW` guards the last step of a path only: a folder on the way that was replaced by a
 * link since the path was judged is followed. Where the system names what a descriptor is open on
 * (Linux's `/proc/self/fd`, as on CI runners), the opened file's real path is checked to be
 * inside the folder the caller names (`within`, itself a real path), so such a swap cannot make
 * cms-sync read, and publish, a file from elsewhere. Elsewhere the check is skipped.
 */
const PROC_FD = '/proc/self/fd';
let namesDescriptors: boolean | undefined;
const canName = () => (namesDescriptors ??= existsSync(PROC_FD));

/**
 * The real path of content/, for `within`; content/ itself as given when it cannot be resolved
 * (then it is not there, and nothing in it is read either).
 */
export function realContentDir(contentDir: string): string {
  try {
    return realpathSync.native(contentDir);
  } catch {
    return path.resolve(contentDir);
  }
}

/** Thrown when the file opened is not inside the folder it was looked for in; `code` as a system error's. */
export class OutsideFolder extends Error {
  readonly code = 'EOUTSIDE';
  constructor(readonly file: string) {
    super(`${file} was reached through a link out of its folder`);
  }
}

function checkWithin(file: string, opened: string, within: string): void {
  const root = within.endsWith(path.sep) ? within : within + path.sep;
  if (!opened.startsWith(root)) throw new OutsideFolder(file);
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
 * is not read (`bytes` undefined). With `within` (a real path), only a file inside it is read.
 * With `scratch`, a file of up to SCRATCH_MAX bytes is read into it, and `bytes` is a view of it
 * that the next read through the same scratch overwrites: for a caller that is done with the bytes
 * before it reads again.
 */
export function readRegularSync(
  file: string,
  maxBytes = Infinity,
  within?: string,
  scratch?: ReadScratch,
): { bytes?: Buffer; stat: Stats } {
  const fd = openSync(file, READ_FLAGS);
  try {
    if (within !== undefined && canName()) checkWithin(file, readlinkSync(`${PROC_FD}/${fd}`), within);
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new NotRegularFile(file, kindOf(stat));
    if (stat.size > maxBytes) return { stat };
    return {
      bytes: scratch && stat.size < SCRATCH_MAX ? readInto(fd, stat.size, scratch) : readFileSync(fd),
      stat,
    };
  } finally {
    closeSync(fd);
  }
}

/**
 * A buffer that one reader reads file after file into (see readRegularSync). A Buffer per file
 * is memory outside the heap, given back only once the collector finds it unused: over a scan
 * of many files those allocations leave the process's malloc heap larger the longer it runs.
 */
export interface ReadScratch {
  buffer: Buffer;
}

/** Files larger than this are read into a buffer of their own, so that one huge file does not keep a huge scratch. */
const SCRATCH_MAX = 1024 * 1024;

/** A scratch's size to start with, and to go back to after a file that grew past SCRATCH_MAX. */
const SCRATCH_START = 64 * 1024;

export function readScratch(): ReadScratch {
  return { buffer: Buffer.allocUnsafe(SCRATCH_START) };
}

/**
 * Reads to the end of the file (which may have grown since its stat), into a scratch made large
 * enough for its stat's size (and one byte more, to see the end) at once, and grown if it grew.
 */
function readInto(fd: number, size: number, scratch: ReadScratch): Buffer {
  if (scratch.buffer.length <= size)
    scratch.buffer = Buffer.allocUnsafe(Math.max(size + 1, 2 * scratch.buffer.length));
  let read = 0;
  for (;;) {
    if (read === scratch.buffer.length) {
      const grown = Buffer.allocUnsafe(scratch.buffer.length * 2);
      scratch.buffer.copy(grown, 0, 0, read);
      scratch.buffer = grown;
    }
    const n = readSync(fd, scratch.buffer, read, scratch.buffer.length - read, null);
    if (n === 0) {
      const bytes = scratch.buffer.subarray(0, read);
      // A file that grew while it was read: its bytes keep the large buffer, the scratch does not.
      if (scratch.buffer.length > SCRATCH_MAX) scratch.buffer = Buffer.allocUnsafe(SCRATCH_START);
      return bytes;
    }
    read += n;
  }
}

/** Opens a regular file for reading (inside `within`, a real path, when given); the caller closes the handle. */
export async function openRegular(
  file: string,
  within?: string,
): Promise<{ handle: FileHandle; stat: Stats }> {
  const handle = await open(file, READ_FLAGS);
  try {
    if (within !== undefined && canName())
      checkWithin(file, await readlink(`${PROC_FD}/${handle.fd}`), within);
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
  if (error instanceof OutsideFolder)
    return 'was reached through a folder that became a link out of content/ while cms-sync was reading it; run again';
  const code = (error as NodeJS.ErrnoException).code ?? String(error);
  // O_NOFOLLOW's answer: the file was replaced by a link after it was found.
  if (code === 'ELOOP') return 'became a symbolic link while cms-sync was reading it; run again';
  return `could not be read (${code})`;
}
