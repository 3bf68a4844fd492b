import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { SyncError } from '../errors.js';
import {
  describeHolder,
  inspectClaim,
  removeClaimIf,
  takeClaim,
  type ClaimInspection,
  type ClaimRefusal,
} from './claim-file.js';

export { isProcessAlive } from './claim-file.js';

export const LOCK_FILE = 'lock';

/**
 * Takes the state lock (a claim file, see claim-file.ts). A lock left by a process that no
 * longer runs on this host is taken over by exactly one of the runs that find it; any other
 * held lock stops the run with exit code 3.
 */
export async function acquireLock(stateDir: string, command: string): Promise<() => Promise<void>> {
  await mkdir(stateDir, { recursive: true });
  const file = path.join(stateDir, LOCK_FILE);
  const taken = await takeClaim(file, command);
  if (taken.claim) return () => taken.claim.release();
  throw new SyncError('CMS_SYNC_LOCKED', lockedMessage(file, taken.holder), { exitCode: 3 });
}

function lockedMessage(file: string, refusal: ClaimRefusal): string {
  switch (refusal.state) {
    case 'held': {
      const { holder } = refusal;
      return (
        `Another cms-sync (${holder.command}, pid ${holder.pid} on ${holder.host}) holds the state lock since ` +
        `${holder.since}. Wait for it to finish; if it is gone, run \`cms-sync unlock\`.`
      );
    }
    case 'unreadable':
      return (
        `The state lock ${file} is not a lock cms-sync can read (${refusal.reason}), so it is taken as held. ` +
        'If no other cms-sync is running, remove it with `cms-sync unlock --force`.'
      );
    case 'busy':
      return `The state lock ${file} is being taken by another cms-sync right now. Wait for it, then run again.`;
  }
}

export type UnlockResult =
  | { outcome: 'none' }
  | { outcome: 'removed'; found: Exclude<ClaimInspection, { state: 'free' }> }
  /** The lock changed between reading and removing it: another run took it. Nothing was removed. */
  | { outcome: 'changed' };

/**
 * `cms-sync unlock`: removes a lock whose holder is gone. A lock whose holder may still run
 * (alive here, on another host, or unreadable) is removed only with `force`; without it this
 * throws, naming the holder. Only the lock that was inspected is ever removed.
 */
export async function unlockState(stateDir: string, options: { force: boolean }): Promise<UnlockResult> {
  const file = path.join(stateDir, LOCK_FILE);
  const found = await inspectClaim(file);
  if (found.state === 'free') return { outcome: 'none' };
  if (found.state !== 'stale' && !options.force) {
    throw new SyncError('CMS_SYNC_LOCKED', refusedUnlockMessage(file, found), { exitCode: 3 });
  }
  return (await removeClaimIf(file, found.id)) ? { outcome: 'removed', found } : { outcome: 'changed' };
}

function refusedUnlockMessage(
  file: string,
  found: Extract<ClaimInspection, { state: 'held' | 'unreadable' }>,
): string {
  const force = 'run `cms-sync unlock --force`.';
  if (found.state === 'unreadable') {
    return (
      `The state lock ${file} is not a lock cms-sync can read (${found.reason}); its holder cannot be told. ` +
      `If no other cms-sync is running, ${force}`
    );
  }
  const who = describeHolder(found.holder);
  if (!found.onThisHost) {
    return (
      `The state lock is held by a cms-sync on another host (${who}); whether it still runs cannot be checked ` +
      `from here. If it is gone, ${force}`
    );
  }
  return (
    `The state lock is held by a cms-sync that is still running (${who}). Wait for it to finish or stop it. ` +
    `Removing it while its holder runs lets two runs write at once (records created twice); if you are sure, ${force}`
  );
}
