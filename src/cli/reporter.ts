import pc from 'picocolors';
import { formatProblem, redactCredentials, type FileProblem } from '../errors.js';
import { formatPlan, skippedNote } from '../plan/format-plan.js';
import type { SyncEvent, SyncReporter } from '../sync/events.js';
import { writeLine, type CliIO } from './io.js';
import { createProgress } from './progress.js';

/** How the CLI shows a sync: flags of output, apart from what the sync does. */
export interface OutputFlags {
  /** One JSON document on stdout and nothing else there. */
  json?: boolean;
  /** For callers that print their own line per sync (watch): no plan, progress or summary. */
  quiet?: boolean;
  /** Which per-file problems to print (all by default); every one is in the report either way. */
  showProblem?: (problem: FileProblem) => boolean;
  /** --diff: each changed field's diff under its record. */
  diff?: boolean;
  /** --compact: counts only, one line per resource and action. */
  compact?: boolean;
  /** false (--no-pager): never page the plan. */
  pager?: boolean;
}

/** The CLI's reporter; with `deferPlan`, the plan's text is kept for the caller to print (paged). */
export interface CliReporter extends SyncReporter {
  /** The plan's text, when deferred and there was one. */
  planText(): string | undefined;
}

/** The lines of plan, apply, watch and pull: the engine's events, printed as a terminal or a log reads them. */
export function createCliReporter(
  io: CliIO,
  flags: OutputFlags = {},
  options: { deferPlan?: boolean } = {},
): CliReporter {
  const show = flags.showProblem ?? (() => true);
  // On a terminal, errors stand out in red and warnings in yellow; logs and pipes get plain text.
  const tint = pc.createColors(io.stderr.isTTY === true && !io.env.NO_COLOR);
  const color = !flags.json && io.stdout.isTTY === true && !io.env.NO_COLOR;
  let progress: ReturnType<typeof createProgress> | undefined;
  let planText: string | undefined;
  const reporter = (event: SyncEvent) => {
    switch (event.type) {
      case 'target':
        return writeLine(flags.json ? io.stderr : io.stdout, event.announcement);
      case 'warning':
        return writeLine(io.stderr, event.message);
      case 'problem': {
        const p = event.problem;
        if (show(p))
          writeLine(io.stderr, (p.severity === 'error' ? tint.red : tint.yellow)(formatProblem(p)));
        return;
      }
      case 'stopped':
        return writeLine(
          io.stderr,
          event.reason === 'strict'
            ? 'Stopped before any call: --strict and the files above have errors.'
            : `Refusing to apply ${event.file}: ${event.detail}. Nothing was written. Make a new plan with ` +
                `\`cms-sync plan --out ${event.file}\`.`,
        );
      case 'plan': {
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
        // A terminal gets a progress line on stderr; a log (not a TTY) gets one line per step, on
        // stdout with the plan and summary, unless stdout is reserved for --json.
        if (!flags.quiet) progress = createProgress(io.stderr.isTTY || flags.json ? io.stderr : io.stdout);
        return;
      case 'progress':
        return progress?.update(event);
      case 'applied':
        progress?.finish();
        progress = undefined;
        return printApplied(io, flags, color, event);
      case 'items':
      case 'items-done':
        // pull and import draw their own progress line (see progressLine).
        return;
    }
  };
  return Object.assign(reporter, { planText: () => planText });
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
