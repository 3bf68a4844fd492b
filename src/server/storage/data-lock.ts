import { link, mkdir, open, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SyncError } from '../../errors.js';
import { tempPathFor } from './atomic-write.js';
import { isProcessAlive } from '../../state/lock.js';

export const LOCK_FILE = 'server.json';

export interface RunningLocalCms {
  pid: number;
  /** Undefined while that server is still starting. */
  url: string | undefined;
}

export interface DataDirClaim {
  /** Records the URL once the server listens, for `findRunningLocalCms`. */
  publish(url: string): Promise<void>;
  release(): Promise<void>;
}

/**
 * The local CMS serving `dataDir` right now, if any. Two servers on one data dir would hand out
 * the same ids and overwrite each other's records, so a command that wants the local CMS should
 * talk to this one (at `url`) instead of starting its own.
 */
export async function findRunningLocalCms(dataDir: string): Promise<RunningLocalCms | undefined> {
  let text: string;
  try {
    text = await readFile(join(dataDir, LOCK_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let lock: Partial<RunningLocalCms>;
  try {
    lock = JSON.parse(text) as Partial<RunningLocalCms>;
  } catch {
    return undefined; // unreadable: written by nothing we know, treated as stale
  }
  if (typeof lock.pid !== 'number' || !isProcessAlive(lock.pid)) return undefined;
  return { pid: lock.pid, url: typeof lock.url === 'string' ? lock.url : undefined };
}

/**
 * Claims `dataDir` for this process before anything is read or swept there; a stale claim (its
 * process is gone, e.g. after kill -9) is taken over.
 */
export async function claimDataDir(dataDir: string): Promise<DataDirClaim> {
  await mkdir(dataDir, { recursive: true });
  const lockPath = join(dataDir, LOCK_FILE);
  const temp = tempPathFor(lockPath);
  const handle = await open(temp, 'wx', 0o644);
  try {
    await handle.writeFile(JSON.stringify({ pid: process.pid }) + '\n');
  } finally {
    await handle.close();
  }
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        // link() fails if the lock exists, which makes the claim exclusive.
        await link(temp, lockPath);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
        const running = await findRunningLocalCms(dataDir);
        if (running) {
          throw new SyncError(
            'CMS_SYNC_LOCKED',
            running.url
              ? `The local CMS data in ${dataDir} is already served by process ${running.pid} at ${running.url}. Use that server (set CMS_BASE_URL=${running.url}) or stop it first.`
              : `The local CMS data in ${dataDir} is being opened by process ${running.pid}. Wait for it, or stop it first.`,
            { exitCode: 3 },
          );
        }
        await rm(lockPath, { force: true });
      }
    }
  } finally {
    await rm(temp, { force: true });
  }
  let released = false;
  return {
    publish: async (url) => {
      const next = tempPathFor(lockPath);
      await writeFile(next, JSON.stringify({ pid: process.pid, url }) + '\n');
      await rename(next, lockPath);
    },
    release: async () => {
      if (released) return;
      released = true;
      await unlink(lockPath).catch(() => undefined);
    },
  };
}
