import { randomUUID } from 'node:crypto';
import { link, rename, rm, writeFile } from 'node:fs/promises';

/** A name beside `abs` for its next version, unique to this write. */
const tempBeside = (abs: string) => `${abs}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;

/**
 * Writes beside and renames over: a crash leaves the old file or the new one, and a symbolic link
 * at `abs` is replaced, not written through to wherever it points. Not synced to disk: for files a
 * person can write again (a scaffold, an import); the state has its own, synced, writer.
 */
export async function replaceFile(abs: string, text: string): Promise<void> {
  const temp = tempBeside(abs);
  await writeFile(temp, text, { flag: 'wx' });
  try {
    await rename(temp, abs);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Creates `abs` whole or not at all, and never over anything (a file, or a link put there
 * meanwhile: EEXIST): written beside, then linked to its name, which fails if the name is taken.
 * A process stopped halfway leaves no file cut short at `abs`, which a later import would keep
 * as existing. Where the file system has no hard links, it is created exclusively in place.
 */
export async function createFile(abs: string, text: string): Promise<void> {
  const temp = tempBeside(abs);
  await writeFile(temp, text, { flag: 'wx' });
  try {
    await link(temp, abs);
  } catch (error) {
    if (!NO_HARD_LINKS.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    await writeFile(abs, text, { flag: 'wx' });
  } finally {
    await rm(temp, { force: true });
  }
}

/** What `link` answers on a file system without hard links (FAT, some network shares). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);
