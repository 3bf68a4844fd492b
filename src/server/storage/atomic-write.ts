import { randomBytes } from 'node:crypto';
import { open, readdir, rm, stat } from 'node:fs/promises';
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

/**
 * Removes the temp files a crash left beside `targets` in `dir` (each target still holds its
 * previous version), and nothing else. One younger than `minAgeMs` is kept: another process
 * may be writing it right now.
 */
export async function sweepTempFiles(dir: string, targets: readonly string[], minAgeMs = 0): Promise<void> {
  const names = new Set(targets);
  const now = Date.now();
  for (const name of await readdir(dir)) {
    const match = /^\.(.+)\.[0-9a-f]{12}\.tmp$/.exec(name);
    if (!match?.[1] || !names.has(match[1])) continue;
    const path = join(dir, name);
    if (minAgeMs > 0) {
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile() || now - info.mtimeMs < minAgeMs) continue;
    }
    await rm(path, { force: true });
  }
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
