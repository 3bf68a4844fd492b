import pc from 'picocolors';
import { formatProblem, redactCredentials, type FileProblem } from '../errors.js';
import { formatPlan, skippedNote } from '../plan/format-plan.js';
import { collapseWarnings } from '../records/collapse-warnings.js';
import type { SyncEvent, SyncPhase, SyncReporter } from '../sync/events.js';
import { writeLine, type CliIO } from './io.js';
import { createProgress } from './progress.js';

/** How the CLI shows a sync: flags of output, apart from what the sync does. */
export interface OutputFlags {
  /** One JSON document on stdout and nothing else there. */
  json?: boolean;
  /** For callers that print their own line per sync (watch): no plan, progress or summary. */
  quiet?: boolean;
  /** With `quiet`: show the progress all the same (watch, whose first sync may be long). */
  progress?: boolean;
  /**
   * --verbose: every warning on its own line (not one line per kind with a count), and in a log
   * (not a terminal) one line per write of apply.
   */
  verbose?: boolean;
  /** Which per-file problems to print (all by default); every one is in the report either way. */
  showProblem?: (problem: FileProblem) => boolean;
  /** --diff: each changed field's diff under its record. */
  diff?: boolean;
  /** --compact: counts only, one line per resource and action. */
  compact?: boolean;
  /** false (--no-pager): never page the plan. */
  pager?: boolean;
}

/**
 * The CLI's reporter; with `deferPlan`, the plan's text is kept for the caller to print (paged).
 * `items` names the work of pull and import in their progress line ("Pulling 120/400").
 */
export interface CliReporter extends SyncReporter {
  /** The plan's text, when deferred and there was one. */
  planText(): string | undefined;
}

const PHASES: Record<SyncPhase, string> = {
  config: 'Reading the config, opening the CMS and state',
  scan: 'Scanning content/',
  render: 'Rendering',
  list: 'Listing the CMS',
  compare: 'Comparing with the CMS',
};

/** The lines of plan, apply, watch and pull: the engine's events, printed as a terminal or a log reads them. */
export function createCliReporter(
  io: CliIO,
  flags: OutputFlags = {},
  options: { deferPlan?: boolean; items?: string } = {},
): CliReporter {
  const show = flags.showProblem ?? (() => true);
  // On a terminal, errors stand out in red and warnings in yellow; logs and pipes get plain text.
  const tint = pc.createColors(io.stderr.isTTY === true && !io.env.NO_COLOR);
  const color = !flags.json && io.stdout.isTTY === true && !io.env.NO_COLOR;
  // Progress goes to stderr: on a terminal one line in place, in a log a line every few seconds;
  // none in a log with --json (a CI step that parses stdout wants a quiet log) or when quiet.
  const showProgress = (!flags.quiet || flags.progress === true) && (io.stderr.isTTY === true || !flags.json);
  const progress = showProgress
    ? createProgress(io.stderr, { alsoClearBefore: [io.stdout], logEveryMs: logEveryMs(io.env) })
    : undefined;
  // A log gets one line per write only with --verbose: the plan above already lists every change.
  const stepLines = flags.verbose === true && !flags.quiet && io.stderr.isTTY !== true;
  // The problems of one pass come in a burst: held until it ends, so that a kind many files share
  // is shown once (collapseWarnings); --verbose prints each as it comes.
  let held: FileProblem[] = [];
  const flush = () => {
    if (held.length === 0) return;
    const problems = held.length > 1 ? collapseWarnings(held) : held;
    held = [];
    for (const p of problems)
      if (show(p)) writeLine(io.stderr, (p.severity === 'error' ? tint.red : tint.yellow)(formatProblem(p)));
  };
  let planText: string | undefined;
  let applying = 'Writing';
  const reporter = (event: SyncEvent) => {
    if (event.type !== 'problem') flush();
    switch (event.type) {
      case 'phase':
        // Nothing to render (every file as at the last write): no "Rendering 0/0".
        if (event.phase === 'render' && event.total === 0) return;
        return progress?.update(PHASES[event.phase], event);
      case 'target':
        return writeLine(flags.json ? io.stderr : io.stdout, event.announcement);
      case 'warning':
        return writeLine(io.stderr, event.message);
      case 'problem':
        held.push(event.problem);
        if (flags.verbose) flush();
        else if (held.length === 1) queueMicrotask(flush);
        return;
      case 'stopped':
        progress?.stop();
        return writeLine(
          io.stderr,
          event.reason === 'strict'
            ? 'Stopped before any call: --strict and the files above have errors.'
            : `Refusing to apply ${event.file}: ${event.detail}. Nothing was written. Make a new plan with ` +
                `\`cms-sync plan --out ${event.file}\`.`,
        );
      case 'plan': {
        // The plan is the end of a plan, and apply may ask before it writes: no line under either.
        progress?.stop();
        if (flags.json || flags.quiet) return;
        const shown = {
          color,
          skipped: event.skipped,
          diff: flags.diff === true,
          compact: flags.compact === true,
        };
        if (options.deferPlan) planText = formatPlan(event.plan, shown);
        else writeLine(io.stdout, formatPlan(event.plan, shown));
        return;
      }
      case 'apply-start':
        // One phase for uploads and writes, which overlap: its rate and ETA are of every step.
        applying = event.plan.uploads.length > 0 ? 'Uploading and writing' : 'Writing';
        return progress?.update(applying);
      case 'progress': {
        const { done, total, label, ok } = event;
        progress?.update(applying, { done, total, step: label });
        // --verbose in a log: each step, with the plan and summary (stdout unless --json keeps it).
        if (stepLines) writeLine(flags.json ? io.stderr : io.stdout, `${ok ? '' : 'failed: '}${label}`);
        return;
      }
      case 'applied':
        progress?.stop();
        return printApplied(io, flags, color, event);
      case 'items':
        return progress?.update(options.items ?? 'Converting', { done: event.done, total: event.total });
      case 'items-done':
        return progress?.stop();
    }
  };
  return Object.assign(reporter, { planText: () => planText });
}

/**
 * Milliseconds between two progress lines in a log. CMS_SYNC_PROGRESS_LOG_MS changes it for tests only
 * (a short run never lasts the default); it is not part of the documented environment.
 */
function logEveryMs(env: NodeJS.ProcessEnv): number | undefined {
  const ms = Number(env.CMS_SYNC_PROGRESS_LOG_MS);
  return env.CMS_SYNC_PROGRESS_LOG_MS && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

function printApplied(
  io: CliIO,
  flags: OutputFlags,
  color: boolean,
  event: Extract<SyncEvent, { type: 'applied' }>,
): void {
  const { result } = event;
  for (const failure of result.failures) {
    const line = `${failure.file ? `${failure.file}: ` : ''}${failure.key}: ${failure.message}`;
    writeLine(io.stderr, redactCredentials(line));
  }
  for (const warning of result.warnings ?? []) writeLine(io.stderr, redactCredentials(warning));
  if (result.deletesSkipped) writeLine(io.stderr, result.deletesSkipped);
  if (result.interrupted) {
    const { created, updated, deleted, uploaded, adopted } = result;
    const done = `${created} created, ${updated} updated, ${deleted} deleted, ${uploaded} uploaded, ${adopted} adopted`;
    const all = created + updated + deleted + uploaded + adopted;
    const failed = result.failures.length ? `, ${result.failures.length} failed` : '';
    writeLine(
      io.stderr,
      `Interrupted: stopped starting writes and let those in flight finish. Done: ${done} (${all} in all); ` +
        `${result.interrupted.notStarted} not started${failed}. State saved: run \`cms-sync apply\` again to finish.`,
    );
    return;
  }
  if (flags.quiet) return;
  const seconds = (event.ms / 1000).toFixed(1);
  writeLine(
    flags.json ? io.stderr : io.stdout,
    `Applied: ${result.created} created, ${result.updated} updated, ${result.deleted} deleted, ${result.uploaded} ` +
      `uploaded, ${result.adopted} adopted, ${event.unchanged} ` +
      `unchanged${result.failures.length ? `, ${result.failures.length} failed` : ''}` +
      `${skippedNote(event.skipped, color ? pc : pc.createColors(false))} in ${seconds}s ` +
      `(${event.requests} requests).`,
  );
}
