import { readFile, rm, type FileHandle } from 'node:fs/promises';
import { openForAppend } from './no-follow.js';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { SyncError } from '../errors.js';
import {
  readStateFile,
  saveStateFiles,
  STATE_BASE_FILE,
  writeFileAtomic,
  type MediaEntry,
  type State,
  type StateRecord,
} from './state-file.js';
import { keepWritten } from './state-lines.js';

export const JOURNAL_FILE = 'journal.jsonl';
/**
 * The lineage and serial of the last state this checkout saved. Not committed (it describes
 * this machine's copy): it is how a state replaced by an older copy, or by one from
 * another project, is noticed before it is used.
 */
export const LAST_USED_FILE = 'last-state.json';

/** One line of the journal: a confirmed write, applied on top of the state when read back. */
export type JournalEntry =
  | { t: 'header'; lineage: string; serial: number }
  | { t: 'record'; key: string; entry: StateRecord | null; from?: string }
  | { t: 'media'; identity: string; entry: MediaEntry }
  | Intent;

/** A write about to be sent; it stays open until a record or media line confirms it. */
export type Intent = {
  t: 'intent';
  key: string;
  op: 'add' | 'edit' | 'delete' | 'upload';
  idempotencyKey: string;
} & IntentDetail;

/**
 * What an edit was about to send, so that a run that died before its answer can be told apart
 * from someone else's change: per field, the digest of the file's content (`source`) and of the
 * value sent, in comparable form (`sent`, see comparableDigest).
 */
export interface IntentDetail {
  source?: Record<string, string>;
  sent?: Record<string, string>;
}

/**
 * The state plus an append-only journal. Each confirmed write is appended (and fsynced) to the
 * journal as it lands, and folded into the committed state once at the end (see saveStateFiles).
 * A run killed halfway loses nothing: the next one replays the journal. A torn last line (killed
 * mid-append) was never confirmed and is skipped.
 */
export class StateStore {
  readonly stateDir: string;
  readonly state: State;
  readonly existed: boolean;
  /** Intents whose write was never confirmed (a previous run died or lost the answer). */
  /** Per key, writes sent (or about to be) whose outcome was never confirmed, oldest first. */
  readonly openIntents: Map<string, Intent[]>;
  #handle: FileHandle | undefined;
  #pending: string[] = [];
  #flushing: Promise<void> | undefined;
  #dirty = false;

  private constructor(stateDir: string, state: State, existed: boolean, openIntents: Map<string, Intent[]>) {
    this.stateDir = stateDir;
    this.state = state;
    this.existed = existed;
    this.openIntents = openIntents;
  }

  static async open(stateDir: string, target: string): Promise<StateStore> {
    const { state, existed, legacy, retargeted, leftoverLocal } = await readStateFile(stateDir, target);
    if (existed) await checkAgainstLastUsed(stateDir, state);
    const intents = new Map<string, Intent[]>();
    const replayed = leftoverLocal ? 0 : replay(state, await readJournal(stateDir, state, existed), intents);
    const store = new StateStore(stateDir, state, existed || replayed > 0, intents);
    // A state.json of an earlier version is saved in the new form on the first run that may write.
    store.#dirty = replayed > 0 || retargeted === true || legacy === true;
    return store;
  }

  /** A state that is never written: for `plan`, which writes nothing anywhere. */
  static async readOnly(
    stateDir: string,
    target: string,
  ): Promise<{ state: State; openIntents: Map<string, Intent[]> }> {
    const { state, existed, leftoverLocal } = await readStateFile(stateDir, target);
    if (existed) await checkAgainstLastUsed(stateDir, state);
    const openIntents = new Map<string, Intent[]>();
    if (!leftoverLocal) replay(state, await readJournal(stateDir, state, existed), openIntents);
    return { state, openIntents };
  }

  async intend(
    key: string,
    op: 'add' | 'edit' | 'delete' | 'upload',
    idempotencyKey: string,
    detail: IntentDetail = {},
  ): Promise<void> {
    const intent: Intent = { t: 'intent', key, op, idempotencyKey, ...detail };
    this.openIntents.set(key, [...(this.openIntents.get(key) ?? []), intent]);
    await this.#append(intent);
  }

  /**
   * A confirmed write of the record under `key`. `from` is the key it had before its file was
   * renamed: one journal line moves it, so no crash can leave two keys owning one CMS record.
   */
  async recordWritten(key: string, entry: StateRecord | null, from?: string): Promise<void> {
    const line: JournalEntry =
      from && from !== key ? { t: 'record', key, entry, from } : { t: 'record', key, entry };
    if (entry && keepWritten(this.state, this.stateDir, key, entry)) {
      if (from !== undefined && from !== key) this.state.records.delete(from);
    } else apply(this.state, line);
    this.openIntents.delete(key);
    await this.#append(line);
  }

  async mediaUploaded(identity: string, entry: MediaEntry): Promise<void> {
    apply(this.state, { t: 'media', identity, entry });
    this.openIntents.delete(identity);
    await this.#append({ t: 'media', identity, entry });
  }

  /** Folds the journal into the committed state (see saveStateFiles) and empties the journal. */
  async save(): Promise<void> {
    await this.#flushing;
    if (!this.#dirty && this.existed) return;
    this.state.serial += 1;
    await saveStateFiles(this.stateDir, this.state);
    await writeFileAtomic(
      path.join(this.stateDir, LAST_USED_FILE),
      `${JSON.stringify({ lineage: this.state.lineage, serial: this.state.serial })}\n`,
    );
    await this.#handle?.close();
    this.#handle = undefined;
    // Writes still unconfirmed (this run never got to them) stay on record for the next run.
    const file = path.join(this.stateDir, JOURNAL_FILE);
    if (this.openIntents.size === 0) await rm(file, { force: true });
    else {
      const header: JournalEntry = { t: 'header', lineage: this.state.lineage, serial: this.state.serial };
      await writeFileAtomic(
        file,
        [header, ...[...this.openIntents.values()].flat()].map((e) => JSON.stringify(e)).join('\n') + '\n',
      );
    }
    this.#dirty = false;
  }

  async close(): Promise<void> {
    await this.#flushing;
    await this.#handle?.close();
    this.#handle = undefined;
  }

  // Group commit: appends that arrive while a flush is running are written and fsynced together.
  async #append(entry: JournalEntry): Promise<void> {
    this.#dirty = true;
    this.#pending.push(JSON.stringify(entry));
    while (this.#flushing) await this.#flushing;
    if (this.#pending.length === 0) return;
    this.#flushing = this.#flush().finally(() => {
      this.#flushing = undefined;
    });
    await this.#flushing;
  }

  async #flush(): Promise<void> {
    const lines = this.#pending.splice(0);
    if (!this.#handle) {
      await mkdir(this.stateDir, { recursive: true });
      this.#handle = await openForAppend(path.join(this.stateDir, JOURNAL_FILE));
      // The header ties the journal to the state it extends (see readJournal).
      if ((await this.#handle.stat()).size === 0)
        lines.unshift(
          JSON.stringify({ t: 'header', lineage: this.state.lineage, serial: this.state.serial }),
        );
    }
    await this.#handle.write(`${lines.join('\n')}\n`);
    await this.#handle.datasync();
  }
}

/**
 * The journal's entries, checked against the state they extend: a journal of another lineage
 * (a state from another project) or of a later serial (a state replaced by an older copy)
 * is refused, since replaying it would mix two histories. A journal of an earlier serial was
 * already folded in (the run died between saving the state and removing the journal).
 */
async function readJournal(stateDir: string, state: State, stateExisted: boolean): Promise<JournalEntry[]> {
  const file = path.join(stateDir, JOURNAL_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const entries: JournalEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      entries.push(JSON.parse(line) as JournalEntry);
    } catch {
      // A torn line from a run killed mid-append: its write was never confirmed.
    }
  }
  const header = entries[0]?.t === 'header' ? entries[0] : undefined;
  if (header && !stateExisted) {
    // The first run died before it ever saved the state: the journal is the whole history.
    state.lineage = header.lineage;
    state.serial = header.serial;
  }
  if (header && header.lineage !== state.lineage) {
    throw new SyncError(
      'CMS_SYNC_STATE',
      `${file} belongs to another state than ${STATE_BASE_FILE} (lineage ${header.lineage}, not ${state.lineage}): ` +
        `the state was replaced by one from elsewhere. Restore the right state, or delete it and the journal to ` +
        `adopt records by slug.`,
      { exitCode: 3 },
    );
  }
  if (header && header.serial > state.serial) {
    throw new SyncError(
      'CMS_SYNC_STATE',
      `The state (serial ${state.serial}) is older than its journal (serial ${header.serial}): it was replaced by ` +
        `an older copy. Restore the newest state, or delete it and the journal to adopt records by slug.`,
      { exitCode: 3 },
    );
  }
  if (header && header.serial < state.serial) return [];
  return entries;
}

function replay(state: State, entries: JournalEntry[], intents: Map<string, Intent[]>): number {
  for (const entry of entries) {
    if (entry.t === 'header') continue;
    if (entry.t === 'intent') intents.set(entry.key, [...(intents.get(entry.key) ?? []), entry]);
    else {
      intents.delete(entry.t === 'record' ? entry.key : entry.identity);
      apply(state, entry);
    }
  }
  return entries.length;
}

function apply(state: State, entry: Exclude<JournalEntry, { t: 'intent' | 'header' }>): void {
  if (entry.t === 'media') state.media[entry.identity] = entry.entry;
  else {
    if (entry.entry) state.records.set(entry.key, entry.entry);
    else state.records.delete(entry.key);
    if (entry.from !== undefined && entry.from !== entry.key) state.records.delete(entry.from);
  }
}

async function checkAgainstLastUsed(stateDir: string, state: State): Promise<void> {
  let last: { lineage: string; serial: number };
  try {
    last = JSON.parse(await readFile(path.join(stateDir, LAST_USED_FILE), 'utf8')) as {
      lineage: string;
      serial: number;
    };
  } catch {
    return;
  }
  const file = path.join(stateDir, STATE_BASE_FILE);
  const escape = `If that is intended, delete ${path.join(stateDir, LAST_USED_FILE)} and run again.`;
  if (last.lineage !== state.lineage) {
    throw new SyncError(
      'CMS_SYNC_STATE',
      `${file} comes from another project or history (lineage ${state.lineage}) than the one this checkout last used ` +
        `(${last.lineage}). ${escape}`,
      { exitCode: 3 },
    );
  }
  if (state.serial < last.serial) {
    throw new SyncError(
      'CMS_SYNC_STATE',
      `${file} is an older copy (serial ${state.serial}) than the one this checkout last saved (serial ` +
        `${last.serial}): using it would forget records written since. Restore the newest state (e.g. from ` +
        `git). ${escape}`,
      { exitCode: 3 },
    );
  }
}
