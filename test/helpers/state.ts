import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stableJson } from '../../src/stable-json.js';
import { plainState, stateFromPlain } from '../../src/state/state-lines.js';
import type { PlainState } from '../../src/state/state-types.js';
import {
  readStateAsIs,
  STATE_BASE_FILE,
  STATE_FILE,
  STATE_LOG_FILE,
  writeStateFile,
  type State,
} from '../../src/state/state-file.js';

/** The files a project's state is kept in (relative to its state folder), committed ones first. */
const STATE_FILES = [STATE_BASE_FILE, STATE_LOG_FILE, STATE_FILE, 'last-state.json', 'journal.jsonl'];

/**
 * The state of a project as plain data, however it is stored (the line files, or a state.json of
 * an earlier version): what a test would have read from state.json. `stateDir` is relative to
 * the project. Untyped, as JSON.parse of state.json was.
 */
export function readState(projectDir: string, stateDir = '.cms-sync'): any {
  const read = readStateAsIs(path.join(projectDir, stateDir));
  if (!read) throw new Error(`no state in ${path.join(projectDir, stateDir)}`);
  return structuredClone(plainState(read.state));
}

/** The committed state's text (every file of it), as a reader of the repository sees it. */
export async function readStateText(projectDir: string, stateDir = '.cms-sync'): Promise<string> {
  const texts = await Promise.all(
    [STATE_BASE_FILE, STATE_LOG_FILE, STATE_FILE].map((name) =>
      readFile(path.join(projectDir, stateDir, name), 'utf8').catch(() => ''),
    ),
  );
  return texts.join('');
}

/** Every file of the state as it is now, to put back later (as an older copy from git would be). */
export async function copyState(
  projectDir: string,
  stateDir = '.cms-sync',
): Promise<Record<string, Buffer | undefined>> {
  const copy: Record<string, Buffer | undefined> = {};
  for (const name of STATE_FILES.slice(0, 3))
    copy[name] = await readFile(path.join(projectDir, stateDir, name)).catch(() => undefined);
  return copy;
}

export async function restoreState(
  projectDir: string,
  copy: Record<string, Buffer | undefined>,
  stateDir = '.cms-sync',
): Promise<void> {
  for (const [name, bytes] of Object.entries(copy)) {
    const file = path.join(projectDir, stateDir, name);
    if (bytes) await writeFile(file, bytes);
    else await rm(file, { force: true });
  }
}

/** Replaces the committed state by `state` (as a hand edit, or a copy from another project, would). */
export async function writeState(
  projectDir: string,
  state: State | PlainState,
  stateDir = '.cms-sync',
): Promise<void> {
  const asState = state.records instanceof Map ? (state as State) : stateFromPlain(state as PlainState);
  await writeStateFile(path.join(projectDir, stateDir), asState);
}

/** `state` as an earlier version of cms-sync wrote it: one state.json. */
export function legacyStateJson(state: PlainState): string {
  return `${stableJson(state, 2)}\n`;
}

/** Removes the state (every committed file of it). */
export async function removeState(projectDir: string, stateDir = '.cms-sync'): Promise<void> {
  for (const name of STATE_FILES.slice(0, 3))
    await rm(path.join(projectDir, stateDir, name), { force: true });
}

/** readState, or undefined when the project has no state yet. */
export function readStateIfAny(projectDir: string, stateDir = '.cms-sync'): PlainState | undefined {
  const read = readStateAsIs(path.join(projectDir, stateDir));
  return read && structuredClone(plainState(read.state));
}

/** Whether the project has a state of its own (in any form) in `stateDir`. */
export function hasState(projectDir: string, stateDir = '.cms-sync'): boolean {
  return readStateAsIs(path.join(projectDir, stateDir)) !== undefined;
}
