import pc from 'picocolors';
import { formatProblem, type FileProblem } from '../errors.js';
import type { Change, Plan } from './compute-plan.js';

export interface PlanCounts {
  create: number;
  update: number;
  delete: number;
  upload: number;
  adopt: number;
  unchanged: number;
  drift: number;
  conflict: number;
  kept: number;
}

export function countPlan(plan: Plan): PlanCounts {
  const counts: PlanCounts = {
    create: 0,
    update: 0,
    delete: 0,
    upload: plan.uploads.length,
    adopt: 0,
    unchanged: 0,
    drift: 0,
    conflict: 0,
    kept: 0,
  };
  for (const change of plan.changes) {
    if (change.action === 'create') counts.create += 1;
    else if (change.action === 'update') counts.update += 1;
    else if (change.action === 'delete') counts.delete += 1;
    else if (change.action === 'adopt') counts.adopt += 1;
    else if (change.action === 'unchanged' || change.action === 'forget') counts.unchanged += 1;
    else if (change.action === 'drift') counts[change.kind === 'conflict' ? 'conflict' : 'drift'] += 1;
    else counts.kept += 1;
  }
  return counts;
}

/** Whether applying the plan would write anything (to the CMS or to state). */
export function hasChanges(plan: Plan): boolean {
  return (
    plan.uploads.length > 0 ||
    (plan.mediaEdits ?? []).length > 0 ||
    plan.changes.some(
      (c) =>
        c.action === 'create' ||
        c.action === 'update' ||
        c.action === 'delete' ||
        c.action === 'adopt' ||
        c.action === 'forget',
    )
  );
}

/** Terraform-like text: one line per record that is not unchanged, then the counts. */
/**
 * The plan as text: its uploads and changes, then one summary line. `skipped` is the number of
 * files left out of the plan for errors, printed above it; the summary counts them, so a plan of
 * 620 creates never hides the 148 files it does not cover.
 */
export function formatPlan(plan: Plan, options: { color: boolean; skipped?: number }): string {
  const c = options.color ? pc : pc.createColors(false);
  const lines: string[] = [];
  for (const upload of plan.uploads) {
    const source =
      upload.source.kind === 'file'
        ? upload.source.file
        : upload.source.kind === 'url'
          ? upload.source.url
          : '';
    lines.push(`  ${c.green('^')} upload ${source}  ${c.dim(`(used by ${upload.usedBy.length})`)}`);
  }
  for (const edit of plan.mediaEdits ?? []) {
    if (edit.send)
      lines.push(`  ${c.yellow('~')} media ${edit.source}  ${c.dim(`(alt/title, from ${edit.text.from})`)}`);
  }
  for (const change of plan.changes) {
    const line = formatChange(change, c);
    if (line) lines.push(line);
  }
  const n = countPlan(plan);
  const summary = [
    `${n.create} to create`,
    `${n.update} to update`,
    `${n.delete} to delete`,
    `${n.upload} to upload`,
    ...(n.adopt ? [`${n.adopt} to adopt`] : []),
    `${n.unchanged} unchanged`,
    ...(n.drift ? [`${n.drift} drifted`] : []),
    ...(n.conflict ? [`${n.conflict} in conflict`] : []),
    ...(n.kept ? [`${n.kept} kept`] : []),
  ].join(', ');
  lines.push('', `Plan: ${summary}${skippedNote(options.skipped ?? 0, c)}.`);
  if (plan.deletesHeld) lines.push(c.yellow(`No deletes planned: ${plan.deletesHeld}.`));
  if (plan.abort) lines.push(c.red(plan.abort));
  return lines.join('\n');
}

/** `, 3 files skipped (errors above)`, in red, or nothing. */
export function skippedNote(skipped: number, c: ReturnType<typeof pc.createColors>): string {
  return skipped ? `, ${c.red(`${skipped} file${skipped === 1 ? '' : 's'} skipped (errors above)`)}` : '';
}

function formatChange(change: Change, c: ReturnType<typeof pc.createColors>): string | undefined {
  const where = c.dim(change.file);
  switch (change.action) {
    case 'create':
      return `  ${c.green('+')} ${change.key}  ${where}`;
    case 'update': {
      const fields = c.dim(`(${change.fields.join(', ')})`);
      const adopting = change.owner === 'adopted' && !change.overwrite ? c.dim(' adopting') : '';
      const overwriting = change.overwrite ? c.red(` overwriting ${change.overwrite} in the CMS`) : '';
      return `  ${c.yellow('~')} ${change.key}  ${fields}${adopting}${overwriting}  ${where}`;
    }
    case 'adopt':
      return `  ${c.cyan('=')} ${change.key}  ${c.dim(`adopt id ${change.id}: the CMS already holds it`)}`;
    case 'delete':
      return `  ${c.red('-')} ${change.key}  ${c.dim(`(id ${change.id}; ${change.file} is gone)`)}`;
    case 'drift':
      return `  ${c.red('!')} ${change.key}  ${driftMessage(change)}`;
    case 'keep':
      return `  ${c.dim('·')} ${change.key}  ${c.dim(`kept: ${change.reason}`)}`;
    default:
      return undefined;
  }
}

export function driftMessage(change: Extract<Change, { action: 'drift' }>): string {
  const fields = change.fields.length ? ` (${change.fields.join(', ')})` : '';
  switch (change.kind) {
    case 'changed-in-cms':
      return (
        `changed in the CMS since cms-sync last wrote it${fields}. Left alone: run with --overwrite-drift to ` +
        `replace it with ${change.file}, or copy the CMS's version into the file.`
      );
    case 'conflict':
      return (
        `changed both in ${change.file} and in the CMS${fields}. Left alone: run with --overwrite-drift to keep ` +
        `the file's version, or merge the CMS's version into the file.`
      );
    case 'deleted-in-cms':
      return (
        `deleted in the CMS (id ${change.id}) after cms-sync wrote it. Left alone: run with --overwrite-drift ` +
        `to create it again, or delete ${change.file}.`
      );
  }
}

/** The plan as plain data for `--json`, with every problem of the run (files' and the plan's). */
export function planToJson(plan: Plan, problems: readonly FileProblem[] = plan.problems): unknown {
  return {
    counts: countPlan(plan),
    abort: plan.abort ?? null,
    deletesHeld: plan.deletesHeld ?? null,
    uploads: plan.uploads.map((u) => ({
      identity: u.source.identity,
      source: u.source.kind === 'file' ? u.source.file : u.source.kind === 'url' ? u.source.url : null,
      usedBy: u.usedBy,
      ...(u.text ? { alt: u.text.alt, title: u.text.title ?? null } : {}),
    })),
    mediaEdits: (plan.mediaEdits ?? []).map((e) => ({
      identity: e.identity,
      id: e.id,
      source: e.source,
      alt: e.text.alt,
      title: e.text.title ?? null,
      from: e.text.from,
      send: e.send,
    })),
    changes: plan.changes.map((change) => {
      const out: Record<string, unknown> = {
        action: change.action,
        key: change.key,
        resource: change.resource,
        file: change.file,
      };
      if ('id' in change) out.id = change.id;
      if ('fields' in change) out.fields = change.fields;
      if (change.action === 'drift') {
        out.kind = change.kind;
        out.message = driftMessage(change);
      }
      if (change.action === 'keep') out.reason = change.reason;
      return out;
    }),
    problems: problems.map((p) => ({ ...p, text: formatProblem(p) })),
  };
}
