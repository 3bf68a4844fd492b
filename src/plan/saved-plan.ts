import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SyncError } from '../errors.js';
import type { State } from '../state/state-file.js';
import { writeFileAtomic } from '../state/state-file.js';
import type { Plan } from './compute-plan.js';
import { digest, sourceDigests } from './digest.js';
import { planToJson } from './format-plan.js';

/** The flags that shape a plan: a saved plan is applied with the same ones. */
export interface PlanFlags {
  prune: boolean;
  maxDeletes: number;
  overwriteDrift: boolean;
  only: string[];
  /** false with --no-detect-renames; absent in plans saved before renames were detected. */
  detectRenames?: boolean;
}

/** `cms-sync plan --out FILE`: the plan, what it was computed from, and a fingerprint of both. */
export interface SavedPlan {
  kind: 'cms-sync-plan';
  version: 1;
  createdAt: string;
  target: string;
  lineage: string;
  serial: number;
  flags: PlanFlags;
  fingerprint: string;
  plan: unknown;
}

/**
 * What must be the same for a saved plan to still hold: every change with the exact content it
 * would send (source digests), and the uploads. A file edited, a record changed in the CMS, or
 * a record appearing there all change it.
 */
export function planFingerprint(plan: Plan): string {
  return digest({
    // Unchanged records are left out: a plan that passed over files (see state/clean-run.ts) does
    // not list them, and an apply has nothing to do with them either way.
    changes: plan.changes
      .filter((change) => change.action !== 'unchanged')
      .map((change) => ({
        action: change.action,
        key: change.key,
        ...(change.movedFrom ? { movedFrom: change.movedFrom } : {}),
        id: 'id' in change ? change.id : null,
        fields: 'fields' in change ? change.fields : null,
        source: 'record' in change ? sourceDigests(change.record) : null,
      })),
    uploads: plan.uploads.map((u) => u.source.identity),
    abort: plan.abort ?? null,
  });
}

export async function writeSavedPlan(
  file: string,
  plan: Plan,
  state: State,
  flags: PlanFlags,
): Promise<void> {
  const saved: SavedPlan = {
    kind: 'cms-sync-plan',
    version: 1,
    createdAt: new Date().toISOString(),
    target: state.target,
    lineage: state.lineage,
    serial: state.serial,
    flags,
    fingerprint: planFingerprint(plan),
    plan: planToJson(plan),
  };
  await writeFileAtomic(file, `${JSON.stringify(saved, null, 2)}\n`);
}

export async function readSavedPlan(file: string): Promise<SavedPlan> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new SyncError(
      'CMS_SYNC_INPUT',
      `The plan file ${file} could not be read: ${(error as Error).message}`,
      { cause: error },
    );
  }
  let saved: SavedPlan;
  try {
    saved = JSON.parse(text) as SavedPlan;
  } catch (error) {
    throw new SyncError(
      'CMS_SYNC_INPUT',
      `${file} is not valid JSON (${(error as Error).message}): write it again with \`cms-sync plan --out ` +
        `${path.basename(file)}\`.`,
      { cause: error },
    );
  }
  if (saved?.kind !== 'cms-sync-plan' || saved.version !== 1) {
    throw new SyncError('CMS_SYNC_INPUT', `${file} is not a plan written by \`cms-sync plan --out\`.`);
  }
  return saved;
}

/** Why a saved plan no longer holds, or undefined when it does. */
export function stalePlanReason(saved: SavedPlan, fresh: Plan, state: State): string | undefined {
  if (saved.target !== state.target) return `it was made for the CMS at ${saved.target}, not ${state.target}`;
  if (saved.serial !== state.serial)
    return `the state changed since (serial ${saved.serial} then, ${state.serial} now): another apply ran`;
  // Serial 0 is a state never saved: it has no history to compare yet.
  if (saved.serial > 0 && saved.lineage !== state.lineage)
    return 'it was made from another state (another project, or state.json was replaced)';
  if (saved.fingerprint !== planFingerprint(fresh)) return 'the files or the CMS changed since it was made';
  return undefined;
}
