import { randomUUID } from 'node:crypto';
import { closeSync, constants, existsSync, fstatSync, openSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { SyncError, withoutCredentials } from '../errors.js';
import {
  adoptState,
  changedLines,
  compacted,
  emptyTables,
  entryLines,
  fileSource,
  lineNumber,
  lineNumberIn,
  putEntry,
  RecordTable,
  stateFromPlain,
  scanLines,
  stateWithTables,
  tablesOfState,
  type FoundLine,
  type LineSource,
} from './state-lines.js';
import type { PlainState, State } from './state-types.js';
import { openForAppend, refusedLink } from './no-follow.js';
import { readRegularSync } from '../source/open-regular.js';
import { stableJson } from '../stable-json.js';
import { writeText } from '../write-text.js';

// The shapes live in their own file, which state-lines.ts reads too, so the two do not import each other.
export type { MediaEntry, RecordInput, State, StateRecord } from './state-types.js';

export function emptyState(target: string): State {
  return stateWithTables({ version: 1, lineage: randomUUID(), serial: 0, target }, emptyTables());
}

/**
 * The state as sorted lines, committed (see docs/state.md): a header line, then one line per
 * media entry and per record. Rewritten whole only when the log is compacted into it.
 */
export const STATE_BASE_FILE = 'state.jsonl';
/**
 * What changed since the base was last written, committed beside it: per save, the lines of the
 * entries it changed, then one commit line with the new serial. Appended, never rewritten.
 */
export const STATE_LOG_FILE = 'state.log.jsonl';
/** The single-file state of earlier versions: read as it is, and replaced by the two above on the next save. */
export const STATE_FILE = 'state.json';
/** The lazy index earlier versions kept beside state.json: removed with it. */
const LEGACY_INDEX_FILE = 'state-index.json';

/** The log is folded into the base once it is larger than this share of the base (or MIN_COMPACT_BYTES)... */
const COMPACT_RATIO = 0.25;
/** ...so that reading the log never costs much more than reading the base, and a small state is not rewritten often. */
const MIN_COMPACT_BYTES = 64 * 1024;

/** The first line of the base file. */
interface BaseHeader {
  version: 2;
  lineage: string;
  serial: number;
  target: string;
}

/** What the files on disk hold, for the next save: whether it can append, and from where. */
export interface StateFiles {
  /** Whether the base file exists, and its lineage and target (a save that changes either rewrites it). */
  base?: { bytes: number; lineage: string; target: string };
  /** Bytes of the log up to its last commit line: a torn append after it is cut off before the next one. */
  logBytes: number;
  /** Read from a state.json of an earlier version: the next save writes the new files and removes it. */
  legacy: boolean;
  /** A state.json left beside the base by a migration killed before removing it: the next save removes it. */
  leftover?: boolean;
}

const filesOf = new WeakMap<State, StateFiles>();

/** What readStateFile found. */
export interface StateRead {
  state: State;
  existed: boolean;
  /** Read from the state.json of an earlier version: a save migrates it. */
  legacy?: boolean;
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
 * Reads the state: the base file's lines, then the log's committed changes on top. Only the
 * lines are found and their keys read; each entry is parsed when something reads it (see
 * state-lines.ts). Without a base file, a state.json of an earlier version is read whole. No
 * state at all is an empty state; a broken one is an error that names its file.
 */
export async function readStateFile(stateDir: string, target: string): Promise<StateRead> {
  const read = readStateAsIs(stateDir);
  if (!read) return { state: emptyState(target), existed: false };
  const { state } = read;
  const file = read.legacy ? path.join(stateDir, STATE_FILE) : path.join(stateDir, STATE_BASE_FILE);
  if (state.target === LOCAL_STATE_TARGET && target !== LOCAL_STATE_TARGET) {
    // An older cms-sync kept the embedded CMS's state here. Its ids mean nothing to a real CMS,
    // so the real target starts from no state (adopting records by slug); moveLocalState moves it.
    return { state: emptyState(target), existed: false, leftoverLocal: true };
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
  return {
    state,
    existed: true,
    ...(read.legacy ? { legacy: true } : {}),
    ...(retargeted ? { retargeted } : {}),
  };
}

/**
 * The state in `stateDir` as its files hold it, whatever its target, or undefined when there is
 * none: for readStateFile, and for tools that only look (the local CMS's page, tests).
 */
export function readStateAsIs(stateDir: string): { state: State; legacy: boolean } | undefined {
  return readLines(stateDir) ?? readLegacy(stateDir);
}

function readLines(stateDir: string): { state: State; legacy: false } | undefined {
  const baseFile = path.join(stateDir, STATE_BASE_FILE);
  const fd = openOrUndefined(baseFile);
  if (fd === undefined) return undefined;
  const base = fileSource(baseFile, fd);
  let header: BaseHeader | undefined;
  const state = stateWithTables({ version: 1, lineage: '', serial: 0, target: '' }, emptyTables());
  const other = (line: string, start: number): void => {
    if (header)
      throw brokenState(`${baseFile}:${lineNumberIn(base, start)}`, 'this line is not a state entry');
    header = parseHeader(baseFile, line);
  };
  const putMedia = (line: FoundLine): void => putEntry(state, base, line, false);
  // The header and the media lines (sorted before the records); the record lines are read on first use.
  const recordsAt = scanLines(
    base,
    0,
    (line) => {
      if (!header)
        throw brokenState(`${baseFile}:1`, 'this is not the header of a cms-sync state (version 2)');
      if (line.kind === 'record') return true;
      putMedia(line);
    },
    other,
  );
  header ??= parseHeader(baseFile, '');
  const { size, mtimeMs } = fstatSync(fd);
  if (recordsAt >= 0)
    (state.records as RecordTable).deferBase({
      source: base,
      from: recordsAt,
      stamp: { size, mtimeMs },
      media: putMedia,
      other,
    });
  Object.assign(state, { lineage: header.lineage, serial: header.serial, target: header.target });
  const { serial, logBytes } = replayLog(stateDir, header, state);
  state.serial = serial;
  filesOf.set(state, {
    base: { bytes: size, lineage: header.lineage, target: header.target },
    logBytes,
    legacy: false,
    ...(existsSync(path.join(stateDir, STATE_FILE)) ? { leftover: true } : {}),
  });
  return { state, legacy: false };
}

/**
 * Applies the log's committed changes: a save appends its lines, then a commit line
 * `{"lineage", "serial"}`; lines after the last commit line are an append cut short (the journal
 * still holds those writes) and are ignored. A commit of a serial the base already has was folded
 * into it by a compaction that died before emptying the log.
 */
function replayLog(stateDir: string, header: BaseHeader, state: State): { serial: number; logBytes: number } {
  const logFile = path.join(stateDir, STATE_LOG_FILE);
  const bytes = readOrUndefined(logFile);
  let serial = header.serial;
  let logBytes = 0;
  if (!bytes) return { serial, logBytes };
  const log: LineSource = { file: logFile, bytes };
  let pending: FoundLine[] = [];
  let broken: number | undefined;
  scanLines(
    log,
    0,
    (line) => void pending.push({ ...line }),
    (line, start, end) => {
      let commit: { lineage?: unknown; serial?: unknown } | undefined;
      try {
        commit = JSON.parse(line) as typeof commit;
      } catch {
        broken ??= start;
        return;
      }
      if (typeof commit?.lineage !== 'string' || typeof commit.serial !== 'number') {
        broken ??= start;
        return;
      }
      if (broken !== undefined)
        throw brokenState(`${logFile}:${lineNumber(bytes, broken)}`, 'this line is not a state entry');
      if (commit.lineage !== header.lineage) {
        throw new SyncError(
          'CMS_SYNC_STATE',
          `${logFile} belongs to another state than ${STATE_BASE_FILE} (lineage ${commit.lineage}, not ` +
            `${header.lineage}): one of them was replaced by a file from elsewhere. Restore both from the same ` +
            'commit, or delete the state to adopt records by slug.',
          { exitCode: 3 },
        );
      }
      if (commit.serial > serial) {
        for (const found of pending) putEntry(state, log, found, true);
        serial = commit.serial;
      }
      pending = [];
      logBytes = end + 1;
    },
  );
  return { serial, logBytes };
}

function parseHeader(file: string, line: string): BaseHeader {
  let header: Partial<BaseHeader> | undefined;
  try {
    header = JSON.parse(line) as Partial<BaseHeader>;
  } catch {
    header = undefined;
  }
  if (
    header?.version !== 2 ||
    typeof header.lineage !== 'string' ||
    typeof header.serial !== 'number' ||
    typeof header.target !== 'string'
  )
    throw brokenState(`${file}:1`, 'this is not the header of a cms-sync state (version 2)');
  return header as BaseHeader;
}

function brokenState(where: string, what: string): SyncError {
  return new SyncError(
    'CMS_SYNC_STATE',
    `${where}: ${what}. Restore the state from git, or delete it: the next run then adopts existing records by slug.`,
  );
}

const READ_NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** State files are read as regular files and never through a link (see no-follow.ts). */
function openOrUndefined(file: string): number | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, READ_NO_FOLLOW);
    if (!fstatSync(fd).isFile()) throw new Error('not a regular file');
    return fd;
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(file, error);
  }
}

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return readRegularSync(file).bytes;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(file, error);
  }
}

function unreadable(file: string, error: unknown): unknown {
  const refused = refusedLink(file, error);
  if (refused !== error) return refused;
  return new SyncError('CMS_SYNC_STATE', `${file} could not be read: ${(error as Error).message}`, {
    cause: error,
  });
}

/** A state.json of an earlier version, parsed whole. */
function readLegacy(stateDir: string): { state: State; legacy: true } | undefined {
  const file = path.join(stateDir, STATE_FILE);
  const bytes = readOrUndefined(file);
  if (!bytes) return undefined;
  const state = stateFromPlain(parseState(file, bytes.toString('utf8')));
  filesOf.set(state, { logBytes: 0, legacy: true });
  return { state, legacy: true };
}

/**
 * Saves what changed since the state was read (or last saved). Appends to the log: the lines of
 * the changed entries and a commit line, then an fsync, so a save costs what it changed. Rewrites
 * the base instead (see compactState) when there is none yet, when its header would change, or
 * when the log has grown past a share of it.
 */
export async function saveStateFiles(stateDir: string, state: State): Promise<void> {
  const tables = tablesOfState(state);
  const files = filesOf.get(state);
  if (!tables || !files?.base || files.legacy) return compactState(stateDir, state);
  const { base } = files;
  if (base.lineage !== state.lineage || base.target !== state.target) return compactState(stateDir, state);
  const changes = changedLines(state);
  const lines = [...changes.lines];
  lines.push(JSON.stringify({ lineage: state.lineage, serial: state.serial }));
  const text = `${lines.join('\n')}\n`;
  const logBytes = files.logBytes + Buffer.byteLength(text);
  if (logBytes > Math.max(MIN_COMPACT_BYTES, base.bytes * COMPACT_RATIO))
    return compactState(stateDir, state);
  const logFile = path.join(stateDir, STATE_LOG_FILE);
  const created = files.logBytes === 0 && !(await exists(logFile));
  const handle = await openForAppend(logFile);
  try {
    // A torn append of a run that died is cut off first, so that this commit does not take its lines in.
    await handle.truncate(files.logBytes);
    await writeText(handle, text);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  if (created) await fsyncDir(stateDir);
  if (files.leftover) await removeLegacy(stateDir);
  files.leftover = false;
  files.logBytes = logBytes;
  changes.saved();
}

/**
 * Writes the whole state as a new base (temp file, fsync, rename, fsync of the folder), then
 * empties the log. Killed before the rename, the old base and log stand; after it, the log's
 * commits are all of serials the new base has, and are skipped when read (see replayLog).
 */
export async function compactState(stateDir: string, state: State): Promise<void> {
  const baseFile = path.join(stateDir, STATE_BASE_FILE);
  const bytes = await writeLinesAtomic(baseFile, baseLines(state));
  const logFile = path.join(stateDir, STATE_LOG_FILE);
  const handle = await openForAppend(logFile);
  try {
    await handle.truncate(0);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await fsyncDir(stateDir);
  await removeLegacy(stateDir);
  filesOf.set(state, {
    base: { bytes, lineage: state.lineage, target: state.target },
    logBytes: 0,
    legacy: false,
  });
  adoptState(state);
  compacted(state);
}

/** The earlier version's files stand for an older serial once the new ones are written: out of the way. */
async function removeLegacy(stateDir: string): Promise<void> {
  await rm(path.join(stateDir, STATE_FILE), { force: true });
  await rm(path.join(stateDir, LEGACY_INDEX_FILE), { force: true });
}

/**
 * The base file's lines for `state`: header, then its entries sorted, one at a time. Never
 * gathered into one array on the way to the file: at 100,000 records they are tens of MiB.
 */
function* baseLines(state: State): Generator<string> {
  const header: BaseHeader = {
    version: 2,
    lineage: state.lineage,
    serial: state.serial,
    target: state.target,
  };
  yield stableJson(header);
  yield* entryLines(state);
}

/** The base file's text for `state` (for tests and tools). */
export function serializeState(state: State): string {
  return `${[...baseLines(state)].join('\n')}\n`;
}

/** Writes the state whole, as a compaction does. */
export async function writeStateFile(stateDir: string, state: State): Promise<void> {
  await compactState(stateDir, state);
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/**
 * Writes lines through a temp file, a piece at a time (a large state is never one string: V8 keeps
 * a long one in its large-object space, which only a full collection empties), then renames it.
 */
async function writeLinesAtomic(file: string, lines: Iterable<string>): Promise<number> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  const handle = await open(temp, 'wx');
  let bytes: number;
  try {
    bytes = await writeText(handle, eachEnded(lines));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file);
  await fsyncDir(path.dirname(file));
  return bytes;
}

function* eachEnded(lines: Iterable<string>): Generator<string> {
  for (const line of lines) yield `${line}\n`;
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
  const taken =
    (await exists(path.join(toDir, STATE_BASE_FILE))) || (await exists(path.join(toDir, STATE_FILE)));
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

function parseState(file: string, text: string): PlainState {
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
  const state = parsed as PlainState;
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

export async function writeFileAtomic(file: string, text: string, mode?: number): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  const handle = await open(temp, 'wx', mode);
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
