import pc from 'picocolors';
import { formatProblem, type FileProblem } from '../errors.js';
import { RECORD_RESOURCES, type RecordResource } from '../resources.js';
import type { Change, Plan } from './compute-plan.js';
import { shownChange, type FieldValue } from './field-values.js';

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
  const counts = emptyCounts();
  counts.upload = plan.uploads.length;
  for (const change of plan.changes) counts[countedAs(change)] += 1;
  for (const n of Object.values(plan.untouched ?? {})) counts.unchanged += n;
  return counts;
}

function emptyCounts(): PlanCounts {
  return {
    create: 0,
    update: 0,
    delete: 0,
    upload: 0,
    adopt: 0,
    unchanged: 0,
    drift: 0,
    conflict: 0,
    kept: 0,
  };
}

/** Which count of the summary a change adds to. */
function countedAs(change: Change): keyof PlanCounts {
  switch (change.action) {
    case 'create':
    case 'update':
    case 'delete':
    case 'adopt':
      return change.action;
    case 'unchanged':
    case 'forget':
      return 'unchanged';
    case 'drift':
      return change.kind === 'conflict' || change.kind === 'file-deleted' ? 'conflict' : 'drift';
    default:
      return 'kept';
  }
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

type Colors = ReturnType<typeof pc.createColors>;

/** How the plan is printed: `diff` adds each changed field's diff, `compact` only counts. */
export interface FormatOptions {
  color: boolean;
  /** Files left out of the plan for errors, counted in the summary. */
  skipped?: number;
  diff?: boolean;
  compact?: boolean;
}

/** Uploads are grouped as the `media` resource, shown first since they are sent first. */
const MEDIA = 'media';

/**
 * The plan as text, the way a reviewer reads it: the summary first (counts by action, then by
 * resource, files skipped), then the changes grouped by resource. With `diff`, each changed
 * field follows its record (see field-diff.ts); with `compact`, one line per resource and action
 * replaces the list.
 */
export function formatPlan(plan: Plan, options: FormatOptions): string {
  const c = options.color ? pc : pc.createColors(false);
  const n = countPlan(plan);
  const lines = [`Plan: ${summaryParts(n, true).join(', ')}${skippedNote(options.skipped ?? 0, c)}.`];
  const byResource = countsByResource(plan);
  if (options.compact) {
    const rows = [...byResource].flatMap(([resource, counts]) =>
      (Object.entries(counts) as Array<[keyof PlanCounts, number]>)
        .filter(([action, count]) => count > 0 && action !== 'unchanged')
        .map(([action, count]) => ({ resource, action, count })),
    );
    const width = Math.max(0, ...rows.map((row) => row.resource.length));
    for (const { resource, action, count } of rows)
      lines.push(`  ${SYMBOL[action](c)} ${resource.padEnd(width)}  ${ACTION_LABEL[action](count)}`);
  } else {
    for (const [resource, counts] of byResource) {
      const parts = summaryParts(counts, false);
      if (parts.length) lines.push(`  ${resource}: ${parts.join(', ')}`);
    }
  }
  if (plan.deletesHeld) lines.push(c.yellow(`No deletes planned: ${plan.deletesHeld}.`));
  if (plan.abort) lines.push(c.red(plan.abort));
  if (options.compact) return lines.join('\n');
  if (options.diff && plan.changes.some((ch) => 'values' in ch && ch.values?.length))
    lines.push(c.dim(`Diffs: ${c.red('-')} what the CMS holds, ${c.green('+')} what the files say.`));

  for (const [resource, group] of groupByResource(plan)) {
    lines.push(
      '',
      c.bold(`${resource} (${group.length})`),
      ...group.map((entry) => entry(c, options.diff === true)),
    );
  }
  return lines.join('\n');
}

type Entry = (c: Colors, diff: boolean) => string;

/** The lines to show, by resource in apply order (media first), each a function of colour and --diff. */
function groupByResource(plan: Plan): Map<string, Entry[]> {
  const groups = new Map<string, Entry[]>();
  const add = (resource: string, entry: Entry) => {
    const group = groups.get(resource) ?? [];
    group.push(entry);
    groups.set(resource, group);
  };
  for (const upload of plan.uploads) {
    const source =
      upload.source.kind === 'file'
        ? upload.source.file
        : upload.source.kind === 'url'
          ? upload.source.url
          : '';
    add(MEDIA, (c) => `  ${c.green('^')} upload ${source}  ${c.dim(`(used by ${upload.usedBy.length})`)}`);
  }
  for (const edit of plan.mediaEdits ?? []) {
    if (edit.send)
      add(
        MEDIA,
        (c) => `  ${c.yellow('~')} media ${edit.source}  ${c.dim(`(alt/title, from ${edit.text.from})`)}`,
      );
  }
  const ordered = [...plan.changes].sort((a, b) => RESOURCE_ORDER[a.resource] - RESOURCE_ORDER[b.resource]);
  for (const change of ordered) {
    if (change.action === 'unchanged' || change.action === 'forget') continue;
    add(change.resource, (c, diff) => {
      const line = formatChange(change, c)!;
      const values = diff && 'values' in change ? (change.values ?? []) : [];
      return [line, ...values.flatMap((value) => diffLines(value, c))].join('\n');
    });
  }
  return groups;
}

const RESOURCE_ORDER = Object.fromEntries(RECORD_RESOURCES.map((r, i) => [r, i])) as Record<
  RecordResource,
  number
>;

/** One changed field under its record: `title: "Old" → "New"`, or a labelled unified diff. */
function diffLines(value: FieldValue, c: Colors): string[] {
  const label =
    value.cmsField === value.field ? value.cmsField : `${value.cmsField} (${value.field} in the file)`;
  const diff = shownChange(value);
  if (!value.html || diff.length === 1) return [`      ${c.cyan(label)}: ${diff[0]}`];
  const tint = (line: string) =>
    line.startsWith('+')
      ? c.green(line)
      : line.startsWith('-')
        ? c.red(line)
        : line.startsWith('@@')
          ? c.cyan(line)
          : line;
  return [`      ${c.cyan(label)}:`, ...diff.map((line) => `        ${tint(line)}`)];
}

/** Counts per resource (uploads as `media`), in apply order, resources with nothing left out. */
export function countsByResource(plan: Plan): Map<string, PlanCounts> {
  const out = new Map<string, PlanCounts>();
  const counts = (resource: string) => {
    let entry = out.get(resource);
    if (!entry) out.set(resource, (entry = emptyCounts()));
    return entry;
  };
  if (plan.uploads.length) counts(MEDIA).upload = plan.uploads.length;
  for (const resource of RECORD_RESOURCES) {
    for (const change of plan.changes)
      if (change.resource === resource) counts(resource)[countedAs(change)] += 1;
    const untouched = plan.untouched?.[resource];
    if (untouched) counts(resource).unchanged += untouched;
  }
  return out;
}

/** `3 to create, 1 to update, …`: with `always`, the four main actions even at 0 (the summary line). */
function summaryParts(n: PlanCounts, always: boolean): string[] {
  return (Object.keys(ACTION_LABEL) as Array<keyof PlanCounts>)
    .filter((action) => n[action] > 0 || (always && MAIN.has(action)))
    .map((action) => ACTION_LABEL[action](n[action]));
}

const MAIN = new Set<keyof PlanCounts>(['create', 'update', 'delete', 'upload', 'unchanged']);

/** The summary's wording per action, in the summary's order. */
const ACTION_LABEL: Record<keyof PlanCounts, (n: number) => string> = {
  create: (n) => `${n} to create`,
  update: (n) => `${n} to update`,
  delete: (n) => `${n} to delete`,
  upload: (n) => `${n} to upload`,
  adopt: (n) => `${n} to adopt`,
  unchanged: (n) => `${n} unchanged`,
  drift: (n) => `${n} drifted`,
  conflict: (n) => `${n} in conflict`,
  kept: (n) => `${n} kept`,
};

const SYMBOL: Record<keyof PlanCounts, (c: Colors) => string> = {
  create: (c) => c.green('+'),
  update: (c) => c.yellow('~'),
  delete: (c) => c.red('-'),
  upload: (c) => c.green('^'),
  adopt: (c) => c.cyan('='),
  unchanged: () => ' ',
  drift: (c) => c.red('!'),
  conflict: (c) => c.red('!'),
  kept: (c) => c.dim('·'),
};

/** `, 3 files skipped (errors above)`, in red, or nothing. */
export function skippedNote(skipped: number, c: ReturnType<typeof pc.createColors>): string {
  return skipped ? `, ${c.red(`${skipped} file${skipped === 1 ? '' : 's'} skipped (errors above)`)}` : '';
}

function formatChange(change: Change, c: Colors): string | undefined {
  const where = c.dim(change.file);
  switch (change.action) {
    case 'create':
      return `  ${c.green('+')} ${change.key}  ${where}`;
    case 'update': {
      const fields = c.dim(`(${change.fields.join(', ')})`);
      const adopting = change.owner === 'adopted' && !change.overwrite ? c.dim(' adopting') : '';
      const overwriting = change.overwrite ? c.red(` overwriting ${change.overwrite} in the CMS`) : '';
      if (change.movedFrom)
        return `  ${c.yellow('→')} ${change.movedFrom} → ${change.key}  ${fields}${overwriting}  ${where}`;
      return `  ${c.yellow('~')} ${change.key}  ${fields}${adopting}${overwriting}  ${where}`;
    }
    case 'unchanged':
      return change.movedFrom
        ? `  ${c.yellow('→')} ${change.movedFrom} → ${change.key}  ${where}`
        : undefined;
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
  // Under the CMS's names: what someone looking in the CMS will find changed.
  const names = change.cmsFields ?? change.fields;
  const fields = names.length ? ` (${names.join(', ')})` : '';
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
    case 'file-deleted':
      return (
        `${change.file} is gone, but the record was changed in the CMS since cms-sync last wrote it${fields}. ` +
        'Not deleted: run with --prune --overwrite-drift to delete it anyway, or restore the file with the ' +
        "CMS's version."
      );
    case 'deleted-in-cms':
      return (
        `deleted in the CMS (id ${change.id}) after cms-sync wrote it. Left alone: run with --overwrite-drift ` +
        `to create it again, or delete ${change.file}.`
      );
  }
}

/**
 * The plan as plain data for `--json`, with every problem of the run (files' and the plan's).
 * `withChanges: false` leaves `changes` empty, for a caller that writes them one at a time (see
 * changeToJson); the counts are still of every change.
 */
export function planToJson(
  plan: Plan,
  problems: readonly FileProblem[] = plan.problems,
  { withChanges = true }: { withChanges?: boolean } = {},
): unknown {
  return {
    counts: countPlan(plan),
    byResource: Object.fromEntries(countsByResource(plan)),
    abort: plan.abort ?? null,
    deletesHeld: plan.deletesHeld ?? null,
    untouched: Object.values(plan.untouched ?? {}).reduce((a, b) => a + b, 0),
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
    changes: withChanges ? plan.changes.map(changeToJson) : [],
    problems: problems.map((p) => ({ ...p, text: formatProblem(p) })),
  };
}

/** One change of the plan as `--json` gives it. */
export function changeToJson(change: Change): Record<string, unknown> {
  const out: Record<string, unknown> = {
    action: change.action,
    key: change.key,
    resource: change.resource,
    file: change.file,
  };
  if ('id' in change) out.id = change.id;
  if (change.movedFrom) out.movedFrom = change.movedFrom;
  if ('fields' in change) out.fields = change.fields;
  if ('values' in change && change.values) out.values = change.values.map(valueToJson);
  if (change.action === 'drift') {
    out.cmsFields = change.cmsFields;
    out.kind = change.kind;
    out.message = driftMessage(change);
  }
  if (change.action === 'keep') out.reason = change.reason;
  return out;
}

/** A field's two sides for `--json --diff`, with the same readable diff the text shows. */
function valueToJson(value: FieldValue): Record<string, unknown> {
  return { ...value, diff: shownChange(value).join('\n') };
}
