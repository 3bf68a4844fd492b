import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Helpers for crash-safe files: new content goes to a temp file beside its target, is fsynced,
 * renamed over the target, and the directory fsynced (see group-commit.ts and token.ts).
 * Temp files are dot-files ending in `.tmp`, so a loader can tell them from real files and sweep them.
 */
export const TEMP_SUFFIX = '.tmp';

export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
}

/** Makes renames, creations and unlinks inside `dir` durable. */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
