import path from 'node:path';
import { applyPlan, type ApplyResult, type ProgressEvent } from '../apply/apply-plan.js';
import type { Config } from '../config/schema.js';
import { collapseWarnings } from '../records/collapse-warnings.js';
import { formatProblem, redactCredentials, SyncError, type FileProblem } from '../errors.js';
import type { CmsClient } from '../remote/client.js';
import { openFailedMedia, type FailedMedia } from '../media/failed-media.js';
import { publicUrlOf, type MediaSource } from '../media/resolve-media.js';
import type { DesiredRecord } from '../records/build-record.js';
import { createUploadAhead, type UploadAhead } from '../apply/upload-ahead.js';
import {
  computePlan,
  idBook,
  mayAbort,
  markerOf,
  needsMediaLibrary,
  recordsToComplete,
  type Plan,
  type RemoteListing,
} from '../plan/compute-plan.js';
import { apiName, idOfKey } from '../plan/payload.js';
import { completeRecords, listAll } from '../remote/snapshot.js';
import type { IdBook } from '../plan/payload.js';
import type { PlanFlags, SavedPlan } from '../plan/saved-plan.js';
import { countPlan, formatPlan, hasChanges, planToJson, skippedNote } from '../plan/format-plan.js';
import pc from 'picocolors';
import { readSource, type ScannedKeys, type SourceRead } from '../records/read-source.js';
import { RECORD_RESOURCES, type RecordResource } from '../resources.js';
import { createPathFilter } from '../source/glob.js';
import type { StateStore } from '../state/journal.js';
import type { State } from '../state/state-file.js';
import { interruptSignal, writeLine, type CliIO } from './io.js';
import { printPaged } from './pager.js';
import { createProgress } from './progress.js';
import { openSession, readOnlyState, type Session, type SessionOptions } from './session.js';
import type { Target } from './target.js';

export interface SyncFlags {
  json?: boolean;
  concurrency?: number;
  rps?: number;
  only?: string[];
  prune?: boolean;
  maxDeletes?: number;
  overwriteDrift?: boolean;
  /** false (--no-detect-renames): a renamed file is a new record, its old one a removal. */
  detectRenames?: boolean;
  detailedExitcode?: boolean;
  strict?: boolean;
  /** For callers that print their own line per sync (watch): no plan, progress or summary. */
  quiet?: boolean;
  /** false: trust the state for what the CMS holds and read nothing from it (like Terraform's -refresh=false). */
  refresh?: boolean;
  /** Which per-file problems to print (all by default); every one is in the report either way. */
  showProblem?: (problem: FileProblem) => boolean;
  /** plan: also write the plan to this file, for a later `apply FILE`. */
  out?: string;
  /** apply: the saved plan to carry out exactly, refused if it no longer holds. */
  savedPlan?: { file: string; plan: SavedPlan };
  /** --local: the embedded local CMS, even in CI or with a base URL set. */
  local?: boolean;
  /** --token-file: read the API token from this file rather than the environment. */
  tokenFile?: string;
  /** plan --diff: each changed field's diff (text), both sides of it (--json). */
  diff?: boolean;
  /** plan --compact: counts only, one line per resource and action. */
  compact?: boolean;
  /** plan --no-pager (false): never page the plan. */
  pager?: boolean;
  /** --retry-failed-media: upload remote images that failed lately again now. */
  retryFailedMedia?: boolean;
}

export interface SyncOutcome {
  exitCode: number;
  target: Target;
}

/** What one plan or apply found and did. */
export interface SyncReport {
  exitCode: number;
  /** Every per-file problem of the pass: of reading and building files, and of the plan. */
  problems: FileProblem[];
  plan: Plan | undefined;
  result: ApplyResult | undefined;
  source: SourceRead['counts'];
}

/**
 * plan and apply: read content/ and the CMS, compute the plan, print it, and (apply) carry it
 * out. Returns the exit code of docs/contract.md (Commands and exit codes). `keepTarget` leaves
 * the embedded CMS running for the caller (npm start shows it afterwards).
 */
export async function runSync(
  mode: 'plan' | 'apply',
  flags: SyncFlags,
  io: CliIO,
  options: SessionOptions & { keepTarget?: boolean },
): Promise<SyncOutcome> {
  const signal = interruptSignal(io);
  const what = mode === 'apply' ? 'writes start; those in flight finish and are saved' : 'requests';
  const stopping = () =>
    writeLine(io.stderr, `Stopping: no new ${what}. Press Ctrl-C again to quit at once.`);
  signal.addEventListener('abort', stopping, { once: true });
  const session = await openSession(mode, flags, io, { ...options, signal });
  try {
    const report = await syncOnce(session, flags, io, { signal });
    return { exitCode: report.exitCode, target: session.target };
  } finally {
    signal.removeEventListener('abort', stopping);
    await session.close({ keepTarget: options.keepTarget === true });
  }
}

/**
 * One pass of plan (and, in an apply session, apply) on an open session. Watch calls this for
 * every batch of saves; it never throws for a per-record problem, only for run-level failures.
 */
export async function syncOnce(
  session: Session,
  flags: SyncFlags,
  io: CliIO,
  options: { signal?: AbortSignal } = {},
): Promise<SyncReport> {
  const { client, mode, store } = session;
  const { signal } = options;
  const failedMedia = openFailedMedia(session.config.stateDir);
  // Images upload while documents are still being rendered, except where the promise is that
  // nothing is sent before everything is known: plan, a saved plan, --strict.
  const ahead =
    mode === 'apply' && store && !flags.savedPlan && !flags.strict
      ? createUploadAhead({
          client,
          store,
          uploadUrlOf: uploadUrlFor(session.target),
          checkLibrary: flags.refresh !== false,
          signal,
          wire: session.config.wire,
          failedMedia,
        })
      : undefined;
  try {
    return await syncPass(session, flags, io, ahead, signal, failedMedia);
  } catch (error) {
    if (!signal?.aborted) throw error;
    // Stopped before any record was written; only uploads started ahead may have been sent.
    const uploaded = (await ahead?.settle())?.filter((u) => u.uploaded).length ?? 0;
    await store?.save();
    const interrupted = (message: string) =>
      new SyncError('CMS_SYNC_INTERRUPTED', message, { cause: error, exitCode: 130 });
    if (mode === 'plan')
      throw interrupted('Interrupted: the plan was not finished; nothing was written anywhere.');
    const images = `${uploaded} image${uploaded === 1 ? '' : 's'}`;
    const sent = uploaded ? `${images} uploaded (kept in state); no record written` : 'nothing was written';
    throw interrupted(
      `Interrupted before apply began: ${sent}. Run \`cms-sync apply\` again to carry out the plan.`,
    );
  } finally {
    // Nothing may still be in flight when the caller saves state and closes the client.
    await ahead?.settle();
  }
}

async function syncPass(
  session: Session,
  flags: SyncFlags,
  io: CliIO,
  ahead: UploadAhead | undefined,
  signal: AbortSignal | undefined,
  failedMedia: FailedMedia,
): Promise<SyncReport> {
  const started = Date.now();
  const { config, target, client, mode } = session;
  const color = !flags.json && io.stdout.isTTY === true && !io.env.NO_COLOR;
  // The first Ctrl-C before any record write: nothing to finish, stop where we are.
  const checkpoint = () => signal?.throwIfAborted();
  const { state, openIntents } = session.store ? session.store : await readOnlyState(config, target);
  const refresh = flags.refresh !== false;
  if (!refresh && Object.keys(state.records).length === 0) {
    throw new SyncError(
      'CMS_SYNC_STATE',
      '--refresh=false trusts the state, but there is none yet: run once with refresh so records are matched, not ' +
        'created twice.',
    );
  }
  // The listing is network-bound and reading content/ CPU-bound: start both at once (not with
  // --strict, which promises no call before the files are known to be good).
  const listRemote = () => listAll(client, (resource) => lightFields(config, resource));
  const remotePending = refresh && !flags.strict ? listRemote() : undefined;
  remotePending?.catch(() => {});
  // Uploads ahead: each image is offered as a document resolves it; the gate opens once the
  // listing is read and the scan shows the plan cannot stop on --max-deletes (an abort promises
  // that nothing was sent).
  const aheadHooks = ahead && {
    onRecord: (record: DesiredRecord) => ahead.offer(record),
    onScanned: (keys: ScannedKeys) => {
      const listed = refresh ? remotePending : Promise.resolve(unread());
      listed?.then(
        (remote) => {
          const protect = protectedKeys(keys.protectedKeys, state, flags.only);
          const known = idBook({ state, remote, resources: config.resources });
          ahead.open(
            !mayAbort({
              ...planFlags(flags, config),
              state,
              remote,
              resources: config.resources,
              trustState: !refresh,
              claimed: keys.claimed,
              protectedKeys: protect,
              failedFiles: new Set(keys.failedFiles),
            }),
            // Only records the plan is sure to write (see upload-ahead.ts): new to state, and every
            // record they name known, or one of them still to be built (more: left to the apply).
            (record) => {
              if (state.records[record.key] !== undefined) return false;
              const unknown = (record.refs ?? [])
                .flatMap((ref) => ref.slugs.map((slug) => `${ref.relation.target}/${slug}`))
                .filter((key) => idOfKey(known, key) === undefined);
              return unknown.length === 0 ? true : unknown.length === 1 ? { after: unknown[0]! } : false;
            },
          );
        },
        () => ahead.open(false),
      );
    },
  };
  const source = await readSource(
    config,
    {
      only: flags.only,
      // --diff shows our side of a drifted field too, so every record is built, as for --overwrite-drift.
      overwriteDrift: flags.overwriteDrift || flags.diff,
      canServeLocalFiles: target.mediaBaseUrl !== undefined || target.local !== undefined,
      saveHashes: mode === 'apply',
      failures: {
        memory: failedMedia,
        retryAfterMs: config.media.retryFailedAfterMs,
        retryAll: flags.retryFailedMedia === true,
        now: new Date(),
      },
      ...aheadHooks,
    },
    state,
  );
  checkpoint();
  const read = Date.now() - started;
  const show = flags.showProblem ?? (() => true);
  // On a terminal, errors stand out in red and warnings in yellow; logs and pipes get plain text.
  const tint = pc.createColors(io.stderr.isTTY === true && !io.env.NO_COLOR);
  const problemLine = (p: FileProblem) => (p.severity === 'error' ? tint.red : tint.yellow)(formatProblem(p));
  for (const p of collapseWarnings(source.problems.filter(show))) writeLine(io.stderr, problemLine(p));
  const hasErrors = source.problems.some((p) => p.severity === 'error');
  if (flags.strict && hasErrors) {
    writeLine(io.stderr, 'Stopped before any call: --strict and the files above have errors.');
    return {
      exitCode: 1,
      problems: source.problems,
      plan: undefined,
      result: undefined,
      source: source.counts,
    };
  }

  const remote = refresh ? await (remotePending ?? listRemote()) : unread();
  if (refresh) {
    // The listing carried ids, slugs and change markers only: read in full what the plan must compare.
    const changeMarker = config.wire.changeMarker || undefined;
    const wanted = recordsToComplete({
      desired: source.desired,
      remote,
      state,
      resources: config.resources,
      pendingEdits: openIntents,
      ...(changeMarker ? { changeMarker } : {}),
    });
    for (const resource of RECORD_RESOURCES) {
      // A CMS without the marker field gets its every record read in full.
      if (changeMarker && remote[resource].records.some((r) => markerOf(r, changeMarker) === undefined))
        wanted.set(
          resource,
          remote[resource].records.map((r) => r.id),
        );
    }
    await completeRecords(client, remote, wanted, config.wire.pageSize);
  }
  checkpoint();
  // The plan is made against the images state knew before any upload ahead, so it still lists
  // those uploads (applyPlan waits for them rather than starting them again).
  const planState: State = ahead ? { ...state, media: ahead.knownBefore } : state;
  // Only when state does not know some image (e.g. it was lost): the library has it, maybe.
  const remoteMedia =
    refresh && needsMediaLibrary(source.desired, planState)
      ? ahead
        ? await ahead.library()
        : (await client.list('media')).records
      : undefined;
  const planInput = {
    ...(flags.diff ? { fieldValues: true } : {}),
    ...(remoteMedia ? { remoteMedia } : {}),
    trustState: !refresh,
    ...(config.wire.changeMarker ? { changeMarker: config.wire.changeMarker } : {}),
    pendingEdits: openIntents,
    desired: source.desired,
    remote,
    state: planState,
    protectedKeys: protectedKeys(source.protectedKeys, state, flags.only),
    failedFiles: new Set(source.failedFiles),
    resources: config.resources,
    ...planFlags(flags, config),
  };
  let plan = computePlan(planInput);
  const lightUpdates =
    refresh && flags.diff ? (await import('../plan/field-diff.js')).cmsValuesWanted(plan) : undefined;
  if (lightUpdates?.size) {
    // An update of a file the CMS did not change was listed without its fields: read them to diff.
    await completeRecords(client, remote, lightUpdates, config.wire.pageSize);
    plan = computePlan(planInput);
  }
  for (const p of plan.problems) if (show(p)) writeLine(io.stderr, problemLine(p));
  const problems = [...source.problems, ...plan.problems];
  const failed = hasErrors || plan.problems.some((p) => p.severity === 'error');
  if (flags.out && mode === 'plan')
    await (
      await import('../plan/saved-plan.js')
    ).writeSavedPlan(path.resolve(config.projectDir, flags.out), plan, state, planFlags(flags, config));
  if (flags.savedPlan) {
    const reason = (await import('../plan/saved-plan.js')).stalePlanReason(flags.savedPlan.plan, plan, state);
    if (reason) {
      writeLine(
        io.stderr,
        `Refusing to apply ${flags.savedPlan.file}: ${reason}. Nothing was written. Make a new plan with \`cms-sync ` +
          `plan --out ${flags.savedPlan.file}\`.`,
      );
      return { exitCode: 3, problems, plan, result: undefined, source: source.counts };
    }
  }
  const drifted = plan.changes.some((c) => c.action === 'drift');

  const skipped = new Set(problems.filter((p) => p.severity === 'error').map((p) => p.file)).size;
  const shown = { color, skipped, diff: flags.diff === true, compact: flags.compact === true };
  if (!flags.json && !flags.quiet && mode === 'plan')
    await printPaged(io, formatPlan(plan, shown), { json: false, pager: flags.pager !== false });
  else if (!flags.json && !flags.quiet) writeLine(io.stdout, formatPlan(plan, shown));
  if (mode === 'plan' || plan.abort || !session.store) {
    if (flags.json && !flags.quiet)
      writeLine(
        io.stdout,
        JSON.stringify({
          mode,
          target: target.identity,
          source: source.counts,
          plan: planToJson(plan, problems),
          stats: client.stats,
        }),
      );
    const exitCode = plan.abort ? 3 : failed ? 1 : flags.detailedExitcode && hasChanges(plan) ? 2 : 0;
    return { exitCode, problems, plan, result: undefined, source: source.counts };
  }

  checkpoint();
  const book = idBook({
    state: planState,
    remote,
    resources: config.resources,
    ...(remoteMedia ? { remoteMedia } : {}),
  });
  const planned = Date.now() - started;
  const result = await carryOut(plan, {
    client,
    store: session.store,
    config,
    target,
    io,
    started,
    book,
    json: flags.json === true,
    quiet: flags.quiet === true,
    skipped,
    color,
    failedMedia,
    ...(ahead ? { ahead } : {}),
    ...(signal ? { signal } : {}),
  });
  const exitCode = result.interrupted ? 130 : failed || result.failures.length ? 1 : drifted ? 3 : 0;
  if (flags.json && !flags.quiet) {
    // When the pass began (epoch ms), then ms since: content read and rendered, plan made, applied.
    const timings = { startedAt: started, read, planned, applied: Date.now() - started };
    writeLine(
      io.stdout,
      JSON.stringify({
        mode,
        target: target.identity,
        source: source.counts,
        plan: planToJson(plan, problems),
        result,
        stats: client.stats,
        timings,
        exitCode,
      }),
    );
  }
  return { exitCode, problems, plan, result, source: source.counts };
}

function planFlags(flags: SyncFlags, config: Config): PlanFlags {
  return {
    prune: flags.prune ?? config.sync.prune,
    maxDeletes: flags.maxDeletes ?? config.sync.maxDeletes,
    overwriteDrift: flags.overwriteDrift ?? false,
    only: flags.only ?? [],
    detectRenames: flags.detectRenames ?? true,
  };
}

/** With --only, records outside the selection are not looked at, so they are not deleted either. */
function protectedKeys(fromFiles: readonly string[], state: State, only: string[] | undefined): Set<string> {
  const keys = new Set(fromFiles);
  if (only?.length) {
    const selected = createPathFilter(only);
    for (const [key, entry] of Object.entries(state.records)) {
      const inContent = entry.file.replace(/^content\//, '');
      if (!selected(inContent)) keys.add(key);
    }
  }
  return keys;
}

/** What a listing asks for: ids, slugs and the change marker, when the CMS has one. */
function lightFields(config: Config, resource: RecordResource): string[] | undefined {
  const marker = config.wire.changeMarker;
  return marker ? ['id', apiName('slug', config.resources[resource]), marker] : undefined;
}

/** No listing at all (--refresh=false): every resource unread, so nothing is concluded from absence. */
function unread(): Record<RecordResource, RemoteListing> {
  return Object.fromEntries(
    RECORD_RESOURCES.map((r) => [r, { records: [], complete: false }]),
  ) as unknown as Record<RecordResource, RemoteListing>;
}

async function carryOut(
  plan: Plan,
  ctx: {
    client: CmsClient;
    store: StateStore;
    config: Config;
    target: Target;
    io: CliIO;
    json: boolean;
    quiet: boolean;
    /** Files left out for errors (see formatPlan), counted in the summary. */
    skipped: number;
    color: boolean;
    started: number;
    book: IdBook;
    ahead?: UploadAhead;
    signal?: AbortSignal;
    failedMedia: FailedMedia;
  },
): Promise<ApplyResult> {
  // A terminal gets a progress line on stderr; a log (not a TTY) gets one line per step, on
  // stdout with the plan and summary, unless stdout is reserved for --json.
  const progress = createProgress(ctx.io.stderr.isTTY || ctx.json ? ctx.io.stderr : ctx.io.stdout);
  const result = await applyPlan(plan, {
    client: ctx.client,
    store: ctx.store,
    config: ctx.config,
    book: ctx.book,
    uploadUrlOf: uploadUrlFor(ctx.target),
    failedMedia: ctx.failedMedia,
    ...(ctx.ahead ? { ahead: ctx.ahead } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(ctx.quiet ? {} : { onProgress: (event: ProgressEvent) => progress.update(event) }),
  });
  progress.finish();
  for (const failure of result.failures) {
    const line = `${failure.file ? `${failure.file}: ` : ''}${failure.key}: ${failure.message}`;
    writeLine(ctx.io.stderr, redactCredentials(line));
  }
  for (const warning of result.warnings ?? []) writeLine(ctx.io.stderr, redactCredentials(warning));
  if (result.deletesSkipped) writeLine(ctx.io.stderr, result.deletesSkipped);
  if (result.interrupted) {
    const { created, updated, deleted, uploaded, adopted } = result;
    const done = `${created} created, ${updated} updated, ${deleted} deleted, ${uploaded} uploaded, ${adopted} adopted`;
    const all = created + updated + deleted + uploaded + adopted;
    const failed = result.failures.length ? `, ${result.failures.length} failed` : '';
    writeLine(
      ctx.io.stderr,
      `Interrupted: stopped starting writes and let those in flight finish. Done: ${done} (${all} in all); ` +
        `${result.interrupted.notStarted} not started${failed}. State saved: run \`cms-sync apply\` again to finish.`,
    );
    return result;
  }
  if (ctx.quiet) return result;
  const seconds = ((Date.now() - ctx.started) / 1000).toFixed(1);
  const counts = countPlan(plan);
  const out = ctx.json ? ctx.io.stderr : ctx.io.stdout;
  writeLine(
    out,
    `Applied: ${result.created} created, ${result.updated} updated, ${result.deleted} deleted, ${result.uploaded} ` +
      `uploaded, ${result.adopted} adopted, ${counts.unchanged} ` +
      `unchanged${result.failures.length ? `, ${result.failures.length} failed` : ''}` +
      `${skippedNote(ctx.skipped, ctx.color ? pc : pc.createColors(false))} in ${seconds}s ` +
      `(${ctx.client.stats.requests} requests).`,
  );
  return result;
}

/** The URL the CMS fetches an image from: its own URL, or the public URL of a file under content/. */
function uploadUrlFor(target: Target): (source: Exclude<MediaSource, { kind: 'existing' }>) => string {
  return (source) => {
    if (source.kind === 'url') return source.url;
    if (!target.mediaBaseUrl)
      throw new Error(`${source.file} needs media.publicBaseUrl (or CMS_MEDIA_BASE_URL) to be uploaded`);
    return publicUrlOf(source.contentPath, target.mediaBaseUrl);
  };
}

export function projectDirOf(io: CliIO, cwdFlag: string | undefined): string {
  return path.resolve(io.cwd, cwdFlag ?? '.');
}
