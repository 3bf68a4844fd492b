import { JsonPieces, jsonParts } from '../json-parts.js';
import type { Change } from '../plan/compute-plan.js';
import { changeToJson, hasChanges, planToJson } from '../plan/format-plan.js';
import { runSync, type SyncReport } from '../sync/run-sync.js';
import type { SessionOptions } from '../sync/session.js';
import type { Target } from '../sync/target.js';
import { interruptSignal, writeLine, writeParts, type CliIO } from './io.js';
import { printPaged } from './pager.js';
import { createCliReporter } from './reporter.js';
import type { SyncFlags } from './sync-options.js';

/**
 * plan and apply (and start): run the engine with the CLI's reporter, then print the --json
 * document. Returns the exit code of docs/contract.md (Commands and exit codes). `keepTarget`
 * leaves the embedded CMS running for the caller (npm start shows it afterwards).
 */
export async function runSyncCommand(
  mode: 'plan' | 'apply',
  flags: SyncFlags,
  io: CliIO,
  options: Omit<SessionOptions, 'env' | 'signal'> & { keepTarget?: boolean },
): Promise<{ exitCode: number; target: Target }> {
  const signal = interruptSignal(io);
  const what = mode === 'apply' ? 'writes start; those in flight finish and are saved' : 'requests';
  const stopping = () =>
    writeLine(io.stderr, `Stopping: no new ${what}. Press Ctrl-C again to quit at once.`);
  signal.addEventListener('abort', stopping, { once: true });
  try {
    // A plan alone is printed after the run, so that a long one can go through a pager.
    const reporter = createCliReporter(io, flags, { deferPlan: mode === 'plan' });
    const { report, target } = await runSync(mode, { ...flags, ...options, env: io.env, signal }, reporter);
    const planText = reporter.planText();
    if (planText !== undefined)
      await printPaged(io, planText, { json: flags.json === true, pager: flags.pager !== false });
    if (flags.json && !flags.quiet && report.plan && !report.stopped)
      await writeParts(io.stdout, jsonLine(report));
    return { exitCode: exitCodeOf(report, flags), target };
  } finally {
    signal.removeEventListener('abort', stopping);
  }
}

/**
 * What --json prints: the plan, and after an apply what it did, how long it took and its exit code.
 * The text of one JSON.stringify of that document, made in parts: the plan's changes one at a
 * time, and each upload's users (a logo's are every document) a few at a time. Made whole, a long
 * plan would be held three times over at the end of the run: an object per change, the text, and
 * its bytes on their way out.
 */
export function* syncJsonParts(report: SyncReport): Generator<string> {
  const { mode, target, source, stats } = report;
  const { changes } = report.plan!;
  const plan = planToJson(report.plan!, report.problems, { withChanges: false }) as {
    changes: unknown;
    uploads: Array<{ usedBy: unknown }>;
  };
  plan.changes = JsonPieces.list(changeJson(changes));
  plan.uploads = plan.uploads.map((upload) => ({
    ...upload,
    usedBy: JsonPieces.list(upload.usedBy as string[]),
  }));
  const { result, timings, exitCode } = report;
  yield* jsonParts(
    result
      ? { mode, target, source, plan, result, stats, timings, exitCode }
      : { mode, target, source, plan, stats },
  );
}

function* changeJson(changes: readonly Change[]): Generator<Record<string, unknown>> {
  for (const change of changes) yield changeToJson(change);
}

function* jsonLine(report: SyncReport): Generator<string> {
  yield* syncJsonParts(report);
  yield '\n';
}

/** --detailed-exitcode: a plan with changes exits 2 where it would exit 0. */
function exitCodeOf(report: SyncReport, flags: SyncFlags): number {
  const planned = report.plan !== undefined && report.result === undefined && !report.stopped;
  return report.exitCode === 0 && planned && flags.detailedExitcode && hasChanges(report.plan!)
    ? 2
    : report.exitCode;
}
