import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { SyncError, withoutCredentials } from '../errors.js';
import { sha256 } from '../sha256.js';
import { stableJson } from '../stable-json.js';
import { readStamped, stampOf, type FileStamp } from '../file-stamp.js';
import { readIndexedState } from './state-index.js';
import type { State } from './state-types.js';

// The shapes live in their own file, which state-index.ts reads too, so the two do not import each other.
export type { MediaEntry, RecordInput, State, StateRecord } from './state-types.js';

export function emptyState(target: string): State {
  return { version: 1, lineage: randomUUID(), serial: 0, target, records: {}, media: {} };
}

export const STATE_FILE = 'state.json';

/** What readStateFile found. */
export interface StateRead {
  state: State;
  existed: boolean;
  /** The stamp of the state.json read and (computed when asked) its sha256; undefined when there was none. */
  made?: { stamp: FileStamp; sha: () => string };
  /** Whether the state came through its index (see readIndexedState): false means the index should be written again. */
  indexed: boolean;
  /**
   * The state's target was rewritten as it reads now (credentials taken out of a URL written by an
   * older cms-sync): the state must be saved, so the secret leaves the committed file.
   */
  retargeted?: boolean;
  /** The file holds the embedded CMS's state, left where the real target's belongs: its journal is not ours either. */
  leftoverLocal?: boolean;
}

/** The target of the embedded local CMS's state. */
export const LOCAL_STATE_TARGET = 'local';

/**
 * Reads `state.json`; a missing file is an empty state, a broken one is an error that names it.
 * When `state-index.json` was made from this very file, the records' digests are parsed only if
 * something reads them (see state-index.ts); otherwise the whole file is parsed now.
 */
export async function readStateFile(stateDir: string, target: string): Promise<StateRead> {
  const file = path.join(stateDir, STATE_FILE);
  let read: ReturnType<typeof readStamped>;
  try {
    // The stat the index is checked against is that of the bytes parsed. As bytes: decoded only
    // if the index cannot stand for them, or once a digest is needed.
    read = readStamped(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { state: emptyState(target), existed: false, indexed: false };
    throw new SyncError('CMS_SYNC_STATE', `${file} could not be read: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const { bytes, stats } = read;
  // Called at most once: by the index on first use of a digest, or right here. The bytes stay
  // (off the JS heap) for a sha256 asked later, to index this state.json (see StateStore.save).
  const parseFull = () => parseState(file, bytes.toString('utf8'));
  let sha: string | undefined;
  const shaOfBytes = () => (sha ??= sha256(bytes));
  const indexed = readIndexedState(stateDir, { stats, sha: shaOfBytes }, parseFull);
  const state = indexed ?? parseFull();
  if (state.target === LOCAL_STATE_TARGET && target !== LOCAL_STATE_TARGET) {
    // An older cms-sync kept the embedded CMS's state here. Its ids mean nothing to a real CMS,
    // so the real target starts from no state (adopting records by slug); moveLocalState moves it.
    return { state: emptyState(target), existed: false, indexed: false, leftoverLocal: true };
  }
  let retargeted = false;
  if (state.target !== target && withoutCredentials(state.target) === target) {
    state.target = target;
    retargeted = true;
  }
  if (state.target !== target) {
    throw new SyncError(
      'CMS_SYNC_STATE',
      `${file} belongs to the CMS at ${withoutCredentials(state.target)}, but this run targets ${target}. Its ids ` +
        `mean nothing there: use another stateDir for this target, or delete the state to adopt records by slug.`,
      { exitCode: 3 },
    );
  }
  const made = { stamp: stampOf(stats), sha: shaOfBytes };
  return {
    state,
    existed: true,
    made,
    indexed: indexed !== undefined,
    ...(retargeted ? { retargeted } : {}),
  };
}

/** Files that travel with a state.json: they describe that state and no other. */
const STATE_COMPANIONS = ['journal.jsonl', 'last-state.json', 'state-index.json'];

/**
 * Moves the embedded CMS's state out of `fromDir` (where the real target's committed state
 * lives; older versions kept it there) into `toDir`, with the files that describe it. When
 * `toDir` already has a state, that one is current: the old one is kept beside it as
 * `state.moved.json`, its companions dropped. Returns whether anything was moved. The caller
 * holds the lock of `fromDir`, so no run writes there meanwhile.
 */
export async function moveLocalState(fromDir: string, toDir: string): Promise<boolean> {
  const file = path.join(fromDir, STATE_FILE);
  let parsed: { target?: unknown; lineage?: unknown };
  try {
    parsed = JSON.parse(await readFile(file, 'utf8')) as { target?: unknown; lineage?: unknown };
  } catch {
    return false;
  }
  if (parsed?.target !== LOCAL_STATE_TARGET) return false;
  await mkdir(toDir, { recursive: true });
  const taken = await stat(path.join(toDir, STATE_FILE)).then(
    () => true,
    () => false,
  );
  await rename(file, path.join(toDir, taken ? 'state.moved.json' : STATE_FILE));
  for (const name of STATE_COMPANIONS) {
    const companion = path.join(fromDir, name);
    if (!(await belongsTo(companion, parsed.lineage))) continue;
    if (taken) await rm(companion, { force: true });
    else await rename(companion, path.join(toDir, name));
  }
  await fsyncDir(fromDir);
  await fsyncDir(toDir);
  return true;
}

/** Whether a companion file is there and of this lineage (the index has none: it is checked by stamp anyway). */
async function belongsTo(file: string, lineage: unknown): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return false;
  }
  const first = text.slice(0, text.indexOf('\n') + 1 || undefined);
  try {
    const head = JSON.parse(first) as { lineage?: unknown };
    return head.lineage === undefined || head.lineage === lineage;
  } catch {
    return true;
  }
}

function parseState(file: string, text: string): State {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SyncError(
      'CMS_SYNC_STATE',
      `${file} is not valid JSON (${(error as Error).message}). Restore it from git, or delete it: the next run then ` +
        `adopts existing records by slug.`,
      { cause: error },
    );
  }
  const state = parsed as State;
  if (
    state?.version !== 1 ||
    typeof state.lineage !== 'string' ||
    typeof state.records !== 'object' ||
    typeof state.media !== 'object'
  ) {
    throw new SyncError(
      'CMS_SYNC_STATE',
      `${file} is not a cms-sync state file (version 1). Restore it from git, or delete it: the next run then adopts ` +
        `existing records by slug.`,
    );
  }
  return state;
}

/** Sorted keys, two-space indent, trailing newline: a state that diffs well in git. */
export function serializeState(state: State): string {
  return `${stableJson(state, 2)}\n`;
}

/** Writes the state atomically: temp file, fsync, rename, fsync of the folder. */
export async function writeStateFile(stateDir: string, state: State): Promise<void> {
  await writeFileAtomic(path.join(stateDir, STATE_FILE), serializeState(state));
}

export async function writeFileAtomic(file: string, text: string, mode?: number): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  const handle = await open(temp, 'w', mode);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file);
  await fsyncDir(path.dirname(file));
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic there.
  } finally {
    await handle.close();
  }
}
