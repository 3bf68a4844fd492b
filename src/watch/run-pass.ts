import path from 'node:path';
import { SyncError, type ErrorCode, type FileProblem } from '../errors.js';
import type { Change } from '../plan/compute-plan.js';
import type { SyncReporter } from '../sync/events.js';
import type { SyncOptions } from '../sync/options.js';
import { syncOnce, type SyncReport } from '../sync/run-sync.js';
import type { Session } from '../sync/session.js';
import { LOCAL_TARGET } from '../sync/target.js';
import { contentPrefix, isDocumentName } from '../source/content-paths.js';
import type { createRepeatFilter } from './repeat-filter.js';
import type { Batch, PassOutcome } from './sync-loop.js';
import { formatSyncLine, syncLineJson, type SyncLine } from './sync-line.js';
import { writeLine } from '../terminal-text.js';

/** Run-level failures no retry can fix: the watcher stops (exit 1). Anything else is retried. */
const FATAL: ReadonlySet<ErrorCode> = new Set([
  'CMS_SYNC_AUTH',
  'CMS_SYNC_API_DISABLED',
  'CMS_SYNC_CONFIG',
  'CMS_SYNC_STATE',
  'CMS_SYNC_LOCKED',
]);

export interface PassContext {
  session: Session;
  /** What each sync does; `json`: each pass's line as one NDJSON record. */
  flags: SyncOptions & { json?: boolean };
  /** Where each pass's line goes (stdout) and a run-level failure's message (stderr). */
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };
  /** Told what each sync does; its problems only as the repeat filter lets through. */
  reporter?: SyncReporter;
  repeats: ReturnType<typeof createRepeatFilter>;
}

/**
 * The loop's `runPass` for a whole watch: the first pass is the start, a pass with no files a
 * timed retry. Deletes: an editor that saves by moving the old file away and writing a new one
 * leaves the file missing for a moment, and a pass started by another save in that moment must
 * not take it as deleted. So once a pass has gone through, only a pass holding a reported removal
 * (the watcher reports one after the file stayed gone 100 ms) runs with --prune.
 *
 * A batch of saves to documents already there reads only those files (as --only would), so a save
 * costs what it changed, not what content/ holds. What only the whole of content/ can tell (a new
 * file, a removal, a key another file also claims, an image that other documents embed) makes a
 * whole pass: a narrowed plan that is more than edits of the saved files' own records is dropped
 * before any write and the batch runs again over everything.
 */
export function watchPasses(
  ctx: PassContext,
): (batch: Batch, info: { retryInMs: number }) => Promise<PassOutcome> {
  let first = true;
  let caughtUp = false;
  return async (batch, { retryInMs }) => {
    const trigger = first ? 'start' : batch.size === 0 ? 'retry' : 'change';
    first = false;
    const mayDelete = !caughtUp || [...batch.values()].includes('unlink');
    const flags = mayDelete ? ctx.flags : { ...ctx.flags, prune: false };
    const savesOnly =
      caughtUp &&
      batch.size > 0 &&
      [...batch].every(([file, kind]) => kind === 'change' && isDocumentName(path.posix.basename(file)));
    const narrowed = savesOnly
      ? await runPass({ ...ctx, flags }, batch, { trigger, retryInMs, narrow: true })
      : 'widen';
    const outcome =
      narrowed === 'widen' ? await runPass({ ...ctx, flags }, batch, { trigger, retryInMs }) : narrowed;
    if (outcome === 'ok') caughtUp = true;
    return outcome;
  };
}

/**
 * One sync of a batch of saved files on the open session, reported in one line (text on
 * stdout, or one NDJSON record with --json). syncOnce reads every document but renders only
 * those whose input hash changed, so a pass costs a read + hash of content/, one listing of the
 * CMS, and the writes for what changed. `narrow`: only the batch's files are read, and the pass
 * ends with 'widen' (no write, no line) when its plan is more than edits of their own records.
 */
export async function runPass(
  ctx: PassContext,
  batch: Batch,
  info: { trigger: SyncLine['trigger']; retryInMs: number; narrow?: false },
): Promise<PassOutcome>;
export async function runPass(
  ctx: PassContext,
  batch: Batch,
  info: { trigger: SyncLine['trigger']; retryInMs: number; narrow: true },
): Promise<PassOutcome | 'widen'>;
export async function runPass(
  ctx: PassContext,
  batch: Batch,
  info: { trigger: SyncLine['trigger']; retryInMs: number; narrow?: boolean },
): Promise<PassOutcome | 'widen'> {
  const { session, io } = ctx;
  const started = performance.now();
  const writesBefore = session.client.stats.writes;
  const prefix = contentPrefix(session.config.projectDir, session.config.contentDir);
  const inContent = (file: string) => (file.startsWith(prefix) ? file.slice(prefix.length) : file);
  const files = [...batch.keys()].sort();
  const pass = ctx.repeats.forPass(new Set(files.map((f) => prefix + f)), {
    narrowed: info.narrow === true,
  });
  // The file each planned record had in state before this pass wrote anything, to tell a rename
  // (same key, new file) from an unchanged record: read when the plan is made, before any write.
  const filesBefore = new Map<string, string | undefined>();
  const saved = (file: string) => batch.has(inContent(file));
  let narrowedTooFar = false;
  const line: SyncLine = {
    at: new Date(),
    trigger: info.trigger,
    files,
    changes: [],
    uploads: [],
    documents: 0,
    rendered: 0,
    writes: 0,
    ms: 0,
    errorFiles: [],
    problems: [],
  };

  let report: SyncReport | undefined;
  let outcome: PassOutcome = 'ok';
  // A narrowed pass that widens must not print what the whole pass will print again.
  const held: FileProblem[] = [];
  try {
    const { json: _json, ...options } = ctx.flags;
    const reporter: SyncReporter = (event) => {
      if (event.type === 'plan') {
        const records = session.store?.state.records;
        // Records merely kept are never named unless their file is in the batch (see describeChange).
        for (const c of event.plan.changes)
          if (c.action !== 'keep' || saved(c.file)) filesBefore.set(c.key, records?.get(c.key)?.file);
        if (info.narrow) narrowedTooFar = !editsOnly(event.plan.changes, filesBefore, saved);
      }
      if (event.type === 'problem' && info.narrow) held.push(event.problem);
      else if (event.type !== 'problem' || pass.show(event.problem)) ctx.reporter?.(event);
    };
    const { confirm } = options;
    const narrowed: SyncOptions = {
      ...options,
      only: files.map(escapeGlob),
      // Called before any write when the plan has some: a plan the whole pass must make writes nothing.
      confirm: async (plan, target) => !narrowedTooFar && (!confirm || confirm(plan, target)),
    };
    report = info.narrow
      ? await syncOnce(session, narrowed, reporter, { files })
      : await syncOnce(session, options, reporter);
    if (info.narrow && narrowedTooFar) return 'widen';
    for (const problem of held) if (pass.show(problem)) ctx.reporter?.({ type: 'problem', problem });
    pass.done(report.problems);
  } catch (error) {
    const fatal = error instanceof SyncError && FATAL.has(error.code);
    writeLine(io.stderr, error instanceof Error ? error.message : String(error));
    line.error = error instanceof Error ? error.message : String(error);
    if (fatal) line.fatal = true;
    else line.retryInMs = info.retryInMs;
    outcome = fatal ? 'fatal' : 'retry';
  }
  line.ms = performance.now() - started;
  line.writes = session.client.stats.writes - writesBefore;
  line.problems = (report?.problems ?? []).map((p) => ({
    file: inContent(p.file),
    line: p.line,
    column: p.column,
    severity: p.severity,
    message: p.message,
  }));

  if (report) {
    line.documents = report.source.documents;
    line.rendered = report.source.rendered;
  }
  if (report?.plan) {
    const everything = info.trigger === 'start';
    for (const change of report.plan.changes) {
      const file = inContent(change.file);
      const described = describeChange(change, file, {
        everything,
        inBatch: batch.has(file),
        removed: batch.get(file) === 'unlink',
        fileBefore: filesBefore.get(change.key),
      });
      if (!described) continue;
      const url = pageUrl(session, change);
      line.changes.push({
        action: change.action,
        key: change.key,
        file,
        ...described,
        ...(url ? { url } : {}),
      });
    }
    line.uploads = report.plan.uploads.map((u) =>
      u.source.kind === 'file'
        ? inContent(u.source.file)
        : u.source.kind === 'url'
          ? u.source.url
          : u.source.identity,
    );
    if (report.plan.abort) line.abort = report.plan.abort;
  }
  const errorFiles = new Set<string>();
  for (const p of line.problems)
    if (p.severity === 'error' && (info.trigger === 'start' || batch.has(p.file))) errorFiles.add(p.file);
  for (const failure of report?.result?.failures ?? [])
    if (failure.file) errorFiles.add(inContent(failure.file));
  line.errorFiles = [...errorFiles].sort();

  writeLine(io.stdout, ctx.flags.json ? syncLineJson(line) : formatSyncLine(line));
  return outcome;
}

/**
 * Whether a plan made from the batch's files alone is what the whole pass would plan: each change
 * of a saved file is its own record (same key, same file as in state), updated, unchanged, drifted,
 * or kept for an error in the file; every other record is only kept, as --only keeps it. A create,
 * rename, adoption or removal may hang on files the narrowed pass did not read (another file
 * claiming the key, the file a record moved from).
 */
function editsOnly(
  changes: readonly Change[],
  filesBefore: ReadonlyMap<string, string | undefined>,
  saved: (file: string) => boolean,
): boolean {
  return changes.every((c) =>
    !saved(c.file)
      ? c.action === 'keep'
      : (c.action === 'update' || c.action === 'unchanged' || c.action === 'drift' || c.action === 'keep') &&
        c.movedFrom === undefined &&
        filesBefore.get(c.key) === c.file,
  );
}

/** A file name as an `only` glob that matches just that file (names may hold `*`, `[`, `{`). */
function escapeGlob(file: string): string {
  return file.replace(/[*?[\]{}\\!]/g, '\\$&');
}

/**
 * The symbol and note of a change in the line, or undefined to leave it out. Kept and drifted
 * records stay so pass after pass: they are named when their file is in the batch (a removed
 * file kept without --prune, a drifted record saved again), not on every save of another file.
 */
function describeChange(
  change: Change,
  file: string,
  where: { everything: boolean; inBatch: boolean; removed: boolean; fileBefore: string | undefined },
): { symbol: string; note?: string } | undefined {
  switch (change.action) {
    case 'create':
      return { symbol: '+' };
    case 'update':
      return { symbol: '~' };
    case 'delete':
      return { symbol: '-' };
    case 'adopt':
      return { symbol: '=' };
    case 'unchanged':
      return where.fileBefore !== undefined && where.fileBefore !== change.file
        ? { symbol: '>', note: `now from ${file}` }
        : undefined;
    case 'drift':
      return where.everything || where.inBatch
        ? { symbol: '!', note: `${change.kind.replaceAll('-', ' ')}, left alone (see --overwrite-drift)` }
        : undefined;
    case 'keep':
      return where.everything || where.removed ? { symbol: '·', note: `kept: ${change.reason}` } : undefined;
    default:
      return undefined;
  }
}

/**
 * The local CMS's page of a record written in this pass, so a writer can open it from the line:
 * only for the embedded local CMS (another CMS's pages are its own business).
 */
function pageUrl(session: Session, change: Change): string | undefined {
  if (session.target.identity !== LOCAL_TARGET) return undefined;
  if (change.action !== 'create' && change.action !== 'update' && change.action !== 'adopt') return undefined;
  const id = session.store?.state.records.get(change.key)?.id;
  return id === undefined ? undefined : `${session.target.baseUrl}/view/${change.resource}/${id}`;
}
