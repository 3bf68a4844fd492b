import path from 'node:path';
import type { ClientFactoryOptions, ConfigClient } from '../config/define-config.js';
import { planToJson } from '../plan/format-plan.js';
import { createClient as createCmsClient } from '../remote/client.js';
import type { SyncEvent as EngineEvent, SyncReporter } from './events.js';
import { importContent as importEngine } from './import-content.js';
import type { SyncOptions as EngineOptions } from './options.js';
import type {
  ImportOptions,
  ImportResult,
  PlanOptions,
  PlanSummary,
  PullOptions,
  PullResult,
  RunOptions,
  SyncEvent,
  SyncOptions,
  SyncResult,
} from './public-types.js';
import { pullContent } from './pull.js';
import { runSync, type SyncReport } from './run-sync.js';

// cms-sync as a library: options in, a result out, events to an optional reporter. Nothing here
// prints or ends the process; the CLI (src/cli/) is one caller of these functions.

/** Reads content/ and the CMS and works out what apply would do. Writes nothing to the CMS. */
export async function plan(options: PlanOptions = {}): Promise<SyncResult> {
  return run('plan', options);
}

/** Makes the CMS match content/: plans, then uploads media and creates, updates and (with `prune`) deletes records. */
export async function sync(options: SyncOptions = {}): Promise<SyncResult> {
  return run('apply', options);
}

/**
 * Carries out exactly a plan saved by `plan({ out })`, with the options it was made with; refused
 * (result `stopped: 'stale-plan'`, exit code 3, nothing written) if the files or the CMS changed since.
 */
export async function apply(planFile: string, options: RunOptions = {}): Promise<SyncResult> {
  const projectDir = path.resolve(options.projectDir ?? process.cwd());
  const { readSavedPlan } = await import('../plan/saved-plan.js');
  const saved = await readSavedPlan(path.resolve(projectDir, planFile));
  return run(
    'apply',
    { ...options, projectDir },
    { ...saved.flags, savedPlan: { file: planFile, plan: saved } },
  );
}

/**
 * Writes every record of the CMS into content/ files, adopted in state so that a plan right
 * after shows nothing to do.
 */
export async function pull(options: PullOptions = {}): Promise<PullResult> {
  const { projectDir, env, reporter, out, force } = options;
  const pulled = await pullContent(
    {
      projectDir: path.resolve(projectDir ?? process.cwd()),
      env: env ?? process.env,
      ...(out !== undefined ? { out } : {}),
      ...(force !== undefined ? { force } : {}),
    },
    toPublic(reporter),
  );
  const { report } = pulled;
  return {
    contentDir: pulled.contentDir,
    written: pulled.written,
    adopted: pulled.adopting ? pulled.adopted : 0,
    exact: pulled.exact,
    differing: pulled.differing,
    failures: report.failures,
    warnings: report.warnings,
  };
}

/** Converts a WordPress (WXR) or Ghost (JSON) export into content/ files. Nothing is sent to any CMS. */
export async function importContent(options: ImportOptions): Promise<ImportResult> {
  const { projectDir, env, reporter, signal: _signal, ...rest } = options;
  const imported = await importEngine(
    { ...rest, projectDir: path.resolve(projectDir ?? process.cwd()), env: env ?? process.env },
    toPublic(reporter),
  );
  const { report } = imported;
  return {
    contentDir: imported.contentDir,
    written: report.written,
    skipped: report.skipped,
    existing: report.existing,
    failures: report.failures,
    warnings: report.warnings,
  };
}

/**
 * The API client cms-sync uses (the envelope, retries with backoff, rate limits, paging): for a
 * script of your own, or for a config's `target.client` to wrap.
 */
export const createClient = createCmsClient as unknown as (options: ClientFactoryOptions) => ConfigClient;

async function run(
  mode: 'plan' | 'apply',
  options: PlanOptions,
  saved: Pick<EngineOptions, 'savedPlan' | 'prune' | 'maxDeletes' | 'overwriteDrift' | 'only'> = {},
): Promise<SyncResult> {
  const { projectDir, env, signal, reporter, ...engine } = options;
  const { report } = await runSync(
    mode,
    {
      ...engine,
      ...saved,
      projectDir: path.resolve(projectDir ?? process.cwd()),
      env: env ?? process.env,
      ...(signal ? { signal } : {}),
    },
    toPublic(reporter),
  );
  return toResult(report);
}

function toResult(report: SyncReport): SyncResult {
  const result: SyncResult = {
    mode: report.mode,
    target: report.target,
    exitCode: report.exitCode,
    problems: report.problems,
    plan: report.plan && (planToJson(report.plan, report.problems) as PlanSummary),
    result: report.result,
    source: report.source,
    stats: report.stats,
  };
  if (report.timings) result.timings = report.timings;
  if (report.stopped) result.stopped = report.stopped;
  return result;
}

/** The engine's events as the library's types say them: a plan as `--json` shows it. */
function toPublic(reporter: ((event: SyncEvent) => void) | undefined): SyncReporter | undefined {
  if (!reporter) return undefined;
  return (event: EngineEvent) => {
    if (event.type === 'plan')
      reporter({ type: 'plan', plan: planToJson(event.plan) as PlanSummary, skipped: event.skipped });
    else if (event.type === 'apply-start') reporter({ type: 'apply-start' });
    else reporter(event);
  };
}
