import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDirectory, tempPathFor } from './storage/atomic-write.js';

export const TOKEN_FILE = 'token';

/** The token kept in `<dataDir>/token`, or undefined if the local CMS never made one. */
export async function readLocalToken(
  dataDir: string,
): Promise<{ token: string; tokenFile: string } | undefined> {
  const tokenFile = join(dataDir, TOKEN_FILE);
  try {
    const token = (await readFile(tokenFile, 'utf8')).trim();
    return token ? { token, tokenFile } : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Reads the local CMS token, or makes one (32 random bytes, base64url) in a 0600 file. The new
 * file is written whole to a temp file and hard-linked into place, which fails if another
 * process got there first — then its token is the one used.
 */
export async function ensureLocalToken(dataDir: string): Promise<{ token: string; tokenFile: string }> {
  const existing = await readLocalToken(dataDir);
  if (existing) return existing;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const tokenFile = join(dataDir, TOKEN_FILE);
  const token = randomBytes(32).toString('base64url');
  const temp = tempPathFor(tokenFile);
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(token + '\n');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, tokenFile);
    await fsyncDirectory(dataDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const winner = await readLocalToken(dataDir);
    if (!winner) throw error;
    return winner;
  } finally {
    await rm(temp, { force: true });
  }
  return { token, tokenFile };
}
