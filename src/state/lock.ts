import { hostname } from 'node:os';
import { open, readFile, rm, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { SyncError } from '../errors.js';

export const LOCK_FILE = 'lock';

interface LockInfo {
  pid: number;
  host: string;
  since: string;
  command: string;
}

/**
 * Takes the state lock (an exclusively created file). A lock left by a process that no longer
 * runs on this host is taken over; any other held lock stops the run with exit code 3.
 */
export async function acquireLock(stateDir: string, command: string): Promise<() => Promise<void>> {
  await mkdir(stateDir, { recursive: true });
  const file = path.join(stateDir, LOCK_FILE);
  const info: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString(), command };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(`${JSON.stringify(info, null, 2)}\n`);
      await handle.close();
      return async () => {
        await rm(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = await readLock(file);
      if (holder && holder.host === info.host && !isProcessAlive(holder.pid)) {
        await rm(file, { force: true });
        continue;
      }
      throw new SyncError(
        'CMS_SYNC_LOCKED',
        holder
          ? `Another cms-sync (${holder.command}, pid ${holder.pid} on ${holder.host}) holds the state lock since ${holder.since}. Wait for it to finish; if it is gone, run \`cms-sync unlock\`.`
          : `The state lock ${file} is held by another cms-sync. Wait for it to finish; if it is gone, run \`cms-sync unlock\`.`,
        { exitCode: 3 },
      );
    }
  }
  throw new SyncError('CMS_SYNC_LOCKED', `The state lock ${file} could not be taken. Run \`cms-sync unlock\` if no other cms-sync is running.`, { exitCode: 3 });
}

export async function breakLock(stateDir: string): Promise<boolean> {
  const file = path.join(stateDir, LOCK_FILE);
  const held = (await readLock(file)) !== undefined;
  await rm(file, { force: true });
  return held;
}

async function readLock(file: string): Promise<LockInfo | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as LockInfo;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid runs on this host (EPERM: it runs, as another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
