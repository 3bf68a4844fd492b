import { randomUUID } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';

/**
 * Writes beside and renames over: a crash leaves the old file or the new one, and a symbolic link
 * at `abs` is replaced, not written through to wherever it points. Not synced to disk: for files a
 * person can write again (a scaffold, an import); the state has its own, synced, writer.
 */
export async function replaceFile(abs: string, text: string): Promise<void> {
  const temp = `${abs}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  await writeFile(temp, text, { flag: 'wx' });
  try {
    await rename(temp, abs);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
