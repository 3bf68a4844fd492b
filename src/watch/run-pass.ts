import { SyncError, type ErrorCode } from '../errors.js';
import type { Change } from '../plan/compute-plan.js';
import type { SyncReporter } from '../sync/events.js';
import type { SyncOptions } from '../sync/options.js';
import { syncOnce, type SyncReport } from '../sync/run-sync.js';
import type { Session } from '../sync/session.js';
import { LOCAL_TARGET } from '../sync/target.js';
import { toPosixRelative } from '../source/content-paths.js';
import type { createRepeatFilter } from './repeat-filter.js';
import type { Batch, PassOutcome } from './sync-loop.js';
import { formatSyncLine, syncLineJson, type SyncLine } from './sync-line.js';

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
 * (chokidar reports one after the file stayed gone 100 ms) runs with --prune.
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
    const outcome = await runPass(
      { ...ctx, flags: mayDelete ? ctx.flags : { ...ctx.flags, prune: false } },
      batch,
      { trigger, retryInMs },
    );
    if (outcome === 'ok') caughtUp = true;
    return outcome;
  };
}

/**
 * One sync of a batch of saved files on the open session, reported in one line (text on
 * stdout, or one NDJSON record with --json). syncOnce reads every document but renders only
 * those whose input hash changed, so a pass costs a read + hash of content/, one listing of the
 * CMS, and the writes for what changed.
 */
export async function runPass(
  ctx: PassContext,
  batch: Batch,
  info: { trigger: SyncLine['trigger']; retryInMs: number },
): Promise<PassOutcome> {
  const { session, io } = ctx;
  const started = performance.now();
  const writesBefore = session.client.stats.writes;
  const contentPrefix = `${toPosixRelative(session.config.projectDir, session.config.contentDir)}/`;
  const inContent = (file: string) =>
    file.startsWith(contentPrefix) ? file.slice(contentPrefix.length) : file;
  const files = [...batch.keys()].sort();
  const pass = ctx.repeats.forPass(new Set(files.map((f) => contentPrefix + f)));
  // To tell a rename (same key, new file) from an unchanged record.
  const filesBefore = new Map(
    Object.entries(session.store?.state.records ?? {}).map(([key, entry]) => [key, entry.file]),
  );
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
  try {
    const { json: _json, ...options } = ctx.flags;
    const reporter: SyncReporter = (event) => {
      if (event.type !== 'problem' || pass.show(event.problem)) ctx.reporter?.(event);
    };
    report = await syncOnce(session, options, reporter);
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
  const id = session.store?.state.records[change.key]?.id;
  return id === undefined ? undefined : `${session.target.baseUrl}/view/${change.resource}/${id}`;
}

function writeLine(stream: NodeJS.WritableStream, line: string): void {
  stream.write(line + '\n');
}
