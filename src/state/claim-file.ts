import { createHash, randomBytes } from 'node:crypto';
import { link, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';

/**
 * A claim file says "this process owns that thing" (the state lock, the local CMS's data dir).
 * See "Locks and claims" in ARCHITECTURE.md for why each step is safe against a racing process.
 *
 * - A claim file is only ever created by `link(fresh temp file, claim)`: exclusive, and never seen
 *   half-written.
 * - A claim whose holder is gone is removed only through `removeClaimIf(file, id)`, a
 *   compare-and-swap on the claim's id (its random nonce): the remover must first create a
 *   "breaker" file named after that id, exclusively, and re-read the claim once it holds it.
 */

export interface ClaimRecord {
  pid: number;
  host: string;
  /** Random and new for every claim, so that no two claims are ever taken for one another. */
  nonce: string;
  /** ISO 8601. */
  since: string;
  command: string;
  /** Linux: the holder's start time (/proc/<pid>/stat field 22), so a reused pid is not taken for it. */
  startTime?: number;
  [field: string]: unknown;
}

export type ClaimInspection =
  | { state: 'free' }
  /** `onThisHost: false`: whether the holder still runs cannot be told from here. */
  | { state: 'held'; id: string; holder: ClaimRecord; onThisHost: boolean }
  | { state: 'stale'; id: string; holder: ClaimRecord }
  /** Not a claim we can read: held by something unknown, never taken for stale. */
  | { state: 'unreadable'; id: string; reason: string };

export interface ClaimOptions {
  /**
   * A holder that recorded no start time counts as running only if its command line is a
   * cms-sync's; a hand-written or committed file naming some live pid is then stale.
   * @default false (any live pid holds the claim)
   */
  requireCmsSync?: boolean;
  /** @default 50 */
  attempts?: number;
}

export interface Claim {
  readonly file: string;
  readonly record: ClaimRecord;
  /** Rewrites the claim with more fields (same nonce), if it is still ours. */
  update(fields: Record<string, unknown>): Promise<void>;
  /** Removes the claim if it is still ours; a second call does nothing. */
  release(): Promise<void>;
}

/** Why a claim was not taken: who holds it, or `busy` when it kept changing under us. */
export type ClaimRefusal = Extract<ClaimInspection, { state: 'held' | 'unreadable' }> | { state: 'busy' };

export type TakeResult = { claim: Claim; holder?: undefined } | { claim?: undefined; holder: ClaimRefusal };

const NONCE = /^[0-9a-f]{16,64}$/;

/**
 * Takes the claim `file` for this process, taking over one whose holder is gone. Resolves with
 * the claim, or with who holds it (a process that is taking over the same stale claim counts).
 */
export async function takeClaim(
  file: string,
  command: string,
  fields: Record<string, unknown> = {},
  options: ClaimOptions = {},
): Promise<TakeResult> {
  const startTime = await ownStartTime();
  const record: ClaimRecord = {
    ...fields,
    pid: process.pid,
    host: hostname(),
    nonce: randomBytes(16).toString('hex'),
    since: new Date().toISOString(),
    command,
    ...(startTime === undefined ? {} : { startTime }),
  };
  const fresh = await writeTemp(file, `${JSON.stringify(record, null, 2)}\n`);
  try {
    for (let attempt = 0; attempt < (options.attempts ?? 50); attempt++) {
      if (await linkExclusive(fresh, file)) {
        await sweepBreakers(file, record.nonce);
        return { claim: claimHandle(file, record) };
      }
      const found = await inspectClaim(file, options);
      if (found.state === 'free') continue;
      if (found.state !== 'stale') return { holder: found };
      // Whoever wins the breaker removes it; everyone, winner included, then races for the link.
      if (!(await removeClaimIf(file, found.id))) await pause(attempt);
    }
    // Another process kept taking the stale claim over, or the file kept coming and going.
    return { holder: { state: 'busy' } };
  } finally {
    await unlink(fresh).catch(() => undefined);
  }
}

/** Reads the claim and judges its holder. */
export async function inspectClaim(file: string, options: ClaimOptions = {}): Promise<ClaimInspection> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'free' };
    throw error;
  }
  const parsed = parseClaim(text);
  if (typeof parsed === 'string') return { state: 'unreadable', id: digestId(text), reason: parsed };
  const id = NONCE.test(parsed.nonce) ? parsed.nonce : digestId(text);
  if (parsed.host !== hostname()) return { state: 'held', id, holder: parsed, onThisHost: false };
  if (!(await holderRuns(parsed, options))) return { state: 'stale', id, holder: parsed };
  return { state: 'held', id, holder: parsed, onThisHost: true };
}

/**
 * Removes the claim `file` only if its id is still `id` (compare-and-swap). Resolves false when
 * the claim changed, or another process is removing it right now.
 */
export async function removeClaimIf(file: string, id: string): Promise<boolean> {
  const me = `${JSON.stringify({ pid: process.pid, host: hostname(), startTime: await ownStartTime() })}\n`;
  const fresh = await writeTemp(file, me);
  try {
    // Breaker names are tried in order: a breaker whose writer died (it may have died before or
    // after removing the claim) is passed over, one whose writer runs means that writer is on it.
    for (let n = 1; n <= 100; n++) {
      const breaker = `${file}.break-${id}-${n}`;
      if (!(await linkExclusive(fresh, breaker))) {
        if (await breakerWriterRuns(breaker)) return false;
        continue;
      }
      try {
        // Re-read only now: while we hold a breaker for `id`, no other process can remove a claim
        // with this id, and a new claim cannot be linked while this one exists.
        if ((await currentId(file)) !== id) return false;
        await unlink(file);
        return true;
      } finally {
        await unlink(breaker).catch(() => undefined);
      }
    }
    return false;
  } finally {
    await unlink(fresh).catch(() => undefined);
  }
}

/** Whether a process with this pid runs on this host (EPERM: it runs, as another user). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The holder, in words: `apply, pid 123 on host since 2026-…`. */
export function describeHolder(holder: ClaimRecord): string {
  return `${holder.command}, pid ${holder.pid} on ${holder.host} since ${holder.since}`;
}

function claimHandle(file: string, record: ClaimRecord): Claim {
  let released = false;
  return {
    file,
    record,
    update: async (fields) => {
      if ((await currentId(file)) !== record.nonce) return;
      // rename keeps the nonce: a process judging the claim sees the same id before and after.
      const next = await writeTemp(file, `${JSON.stringify({ ...fields, ...record }, null, 2)}\n`);
      try {
        await rename(next, file);
      } catch (error) {
        await unlink(next).catch(() => undefined);
        throw error;
      }
    },
    release: async () => {
      if (released) return;
      released = true;
      await removeClaimIf(file, record.nonce);
    },
  };
}

/** A record, or why the text is not one. Claims written before nonces existed are read too. */
function parseClaim(text: string): ClaimRecord | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON'; // the parser's message would quote the file, which may be anything
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const raw = value as Record<string, unknown>;
  if (typeof raw.pid !== 'number' || !Number.isSafeInteger(raw.pid) || raw.pid <= 0) return 'no process id';
  return {
    ...raw,
    pid: raw.pid,
    host: typeof raw.host === 'string' ? raw.host : hostname(),
    nonce: typeof raw.nonce === 'string' ? raw.nonce : '',
    since: typeof raw.since === 'string' ? raw.since : 'an unknown time',
    command: typeof raw.command === 'string' ? raw.command : 'unknown command',
    ...(typeof raw.startTime === 'number' ? { startTime: raw.startTime } : {}),
  };
}

/** The id a claim is known by: its nonce, or for a claim without one, a digest of its text. */
async function currentId(file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = parseClaim(text);
  return typeof parsed !== 'string' && NONCE.test(parsed.nonce) ? parsed.nonce : digestId(text);
}

function digestId(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

async function holderRuns(holder: ClaimRecord, options: ClaimOptions): Promise<boolean> {
  if (!isProcessAlive(holder.pid)) return false;
  const proc = await readProcStat(holder.pid);
  if (proc === 'gone') return false;
  if (proc === 'unknown') return true;
  if (holder.startTime !== undefined) return holder.startTime === proc.startTime;
  return options.requireCmsSync ? isCmsSyncCommandLine(holder.pid) : true;
}

async function breakerWriterRuns(breaker: string): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(breaker, 'utf8');
  } catch {
    return true; // gone: its writer finished just now; let the caller look again
  }
  const writer = parseClaim(text);
  // Breakers are linked whole, so an unreadable one was not written by a claimant.
  if (typeof writer === 'string') return false;
  if (writer.host !== hostname()) return true;
  return holderRuns(writer, {});
}

/** `/proc/<pid>/stat`: the start time, or whether the process is gone (a zombie is). */
async function readProcStat(pid: number): Promise<{ startTime: number } | 'gone' | 'unknown'> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    // ENOENT while /proc itself is there: the process ended after kill(pid, 0) answered.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' && (await procMounted()) ? 'gone' : 'unknown';
  }
  // The command name (field 2) is in parentheses and may hold spaces; fields count on after it.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return 'gone';
  const startTime = Number(fields[19]);
  return Number.isSafeInteger(startTime) ? { startTime } : 'unknown';
}

async function procMounted(): Promise<boolean> {
  return readFile('/proc/self/stat').then(
    () => true,
    () => false,
  );
}

let ownStart: Promise<number | undefined> | undefined;
function ownStartTime(): Promise<number | undefined> {
  ownStart ??= readProcStat(process.pid).then((stat) =>
    typeof stat === 'object' ? stat.startTime : undefined,
  );
  return ownStart;
}

/** Node running a `cms-sync` bin (`bin/cms-sync.js`, `node_modules/.bin/cms-sync`). */
async function isCmsSyncCommandLine(pid: number): Promise<boolean> {
  let argv: string[];
  try {
    argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
  } catch {
    return false;
  }
  const names = argv.map((arg) => path.basename(arg));
  return /node/i.test(names[0] ?? '') && names.some((name) => name === 'cms-sync' || name === 'cms-sync.js');
}

/**
 * A temp file beside `file` with `text` in it. Its name carries our pid, so a claim holder can
 * tell the temp files of processes that died from those still about to be linked.
 */
async function writeTemp(file: string, text: string): Promise<string> {
  const name = `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const temp = path.join(path.dirname(file), name);
  await writeFile(temp, text, { flag: 'wx', mode: 0o644 });
  return temp;
}

async function linkExclusive(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Run by a new holder only: removes breakers of claims that no longer exist, and temp files of
 * processes that died. A breaker of an older claim is harmless to remove even while its writer
 * runs, since that writer's re-read finds our nonce, not the one it came to remove.
 */
async function sweepBreakers(file: string, nonce: string): Promise<void> {
  const base = path.basename(file);
  const dir = path.dirname(file);
  const temp = new RegExp(`^\\.${escapeRegExp(base)}\\.(\\d+)\\.[0-9a-f]+\\.tmp$`);
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const leftover =
      (name.startsWith(`${base}.break-`) && !name.startsWith(`${base}.break-${nonce}-`)) ||
      (temp.test(name) && !isProcessAlive(Number(temp.exec(name)![1])));
    if (leftover) await unlink(path.join(dir, name)).catch(() => undefined);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A short random wait, longer with each attempt, so losers do not spin against the winner. */
function pause(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(20, 1 + attempt);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
