import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SyncError } from '../../errors.js';
import { describeHolder, inspectClaim, takeClaim } from '../../state/claim-file.js';
import type { ClaimOptions, ClaimRefusal } from '../../state/claim-file.js';

export const LOCK_FILE = 'server.json';

/**
 * A claim naming a live pid is believed only if that process is a cms-sync (its start time as
 * recorded, or its command line): `server.json` may have been committed or planted, and the
 * commands that find a server through it send it the API token.
 */
const CLAIM_OPTIONS: ClaimOptions = { requireCmsSync: true };

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
 * talk to this one (at `url`) instead of starting its own. Only a claim of a cms-sync process
 * running on this host, serving plain http on loopback, is believed: anything else is ignored.
 */
export async function findRunningLocalCms(dataDir: string): Promise<RunningLocalCms | undefined> {
  const found = await inspectClaim(join(dataDir, LOCK_FILE), CLAIM_OPTIONS);
  if (found.state !== 'held' || !found.onThisHost) return undefined;
  const { url } = found.holder;
  if (url === undefined) return { pid: found.holder.pid, url: undefined };
  return typeof url === 'string' && isLoopbackHttp(url) ? { pid: found.holder.pid, url } : undefined;
}

/**
 * Claims `dataDir` for this process before anything is read or swept there; a stale claim (its
 * process is gone, e.g. after kill -9) is taken over by exactly one of the servers that find it.
 */
export async function claimDataDir(dataDir: string): Promise<DataDirClaim> {
  await mkdir(dataDir, { recursive: true });
  const file = join(dataDir, LOCK_FILE);
  const taken = await takeClaim(file, 'local CMS', {}, CLAIM_OPTIONS);
  if (!taken.claim) {
    throw new SyncError('CMS_SYNC_LOCKED', claimedMessage(dataDir, file, taken.holder), { exitCode: 3 });
  }
  const { claim } = taken;
  return {
    publish: (url) => claim.update({ url }),
    release: () => claim.release(),
  };
}

function claimedMessage(dataDir: string, file: string, refusal: ClaimRefusal): string {
  switch (refusal.state) {
    case 'held': {
      const { holder } = refusal;
      const where = `The local CMS data in ${dataDir}`;
      if (!refusal.onThisHost) {
        const who = describeHolder(holder);
        return `${where} is claimed by a server on another host (${who}). If it is gone, remove ${file}.`;
      }
      const url = typeof holder.url === 'string' ? holder.url : undefined;
      return url
        ? `${where} is already served by process ${holder.pid} at ${url}. ` +
            `Use that server (set CMS_BASE_URL=${url}) or stop it first.`
        : `${where} is being opened by process ${holder.pid}. Wait for it, or stop it first.`;
    }
    case 'unreadable':
      return (
        `The local CMS data in ${dataDir} is claimed by ${file}, which cms-sync cannot read (${refusal.reason}). ` +
        'If no local CMS is serving this data, remove that file.'
      );
    case 'busy':
      return `The local CMS data in ${dataDir} is being claimed by another server right now. Wait for it, or stop it.`;
  }
}

/** Plain http on a loopback address: where the local CMS listens, and nowhere a token leaves the machine. */
export function isLoopbackHttp(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' || parsed.username !== '' || parsed.password !== '') return false;
  const host = parsed.hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
