import { tmpdir } from 'node:os';
import path from 'node:path';
import { applyPlan, type ApplyResult, type ProgressEvent } from '../apply/apply-plan.js';
import { LandedWrites } from '../apply/landed-writes.js';
import type { Config } from '../config/schema.js';
import { SyncError, type FileProblem } from '../errors.js';
import type { ClientStats, CmsClient } from '../remote/client.js';
import { openFailedMedia, type FailedMedia } from '../media/failed-media.js';
import { publicUrlOf, type MediaSource } from '../media/resolve-media.js';
import type { DesiredRecord } from '../records/build-record.js';
import { createUploadAhead, type UploadAhead } from '../apply/upload-ahead.js';
import { openBodySpool, type BodySpool } from '../render/body-spool.js';
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
import { idOfKey } from '../plan/payload.js';
import { completeRecords, type Listings } from '../remote/snapshot.js';
import { listRecords, listRemote, noteOwnWrites, saveListing } from './list-remote.js';
import type { IdBook } from '../plan/payload.js';
import type { PlanFlags } from '../plan/saved-plan.js';
import { countPlan, hasChanges } from '../plan/format-plan.js';
import { readSource, type ScannedKeys, type SourceRead } from '../records/read-source.js';
import { RECORD_RESOURCES, type RecordResource } from '../resources.js';
import { createPathFilter } from '../source/glob.js';
import { contentPrefix } from '../source/content-paths.js';
import { recordIndex } from '../state/record-index.js';
import { searchSortedBase } from '../state/state-lines.js';
import type { StateStore } from '../state/journal.js';
import type { State } from '../state/state-file.js';
import type { SyncEvent, SyncReporter } from './events.js';
import {
  forgetCleanRun,
  readCleanRun,
  recordsOf,
  restampListing,
  type CleanRun,
  type CleanRunPlaces,
} from '../state/clean-run.js';
import {
  changedSince,
  cleanRunPlaces,
  lookAtOf,
  markCleanRun,
  mayUseCleanRun,
  narrowListings,
  onlyEdits,
  untouchedRecords,
} from './clean-pass.js';
import type { SyncOptions } from './options.js';
import { openSession, readOnlyState, type Session, type SessionOptions } from './session.js';
import type { Target } from './target.js';

/** What one plan or apply found and did. */
export interface SyncReport {
  mode: 'plan' | 'apply';
  /** Which CMS: "local" for the embedded one, else its base URL without credentials. */
  target: string;
  /** The exit code the CLI ends with (docs/contract.md, Commands and exit codes). */
  exitCode: number;
  /** Every per-file problem of the pass: of reading and building files, and of the plan. */
  problems: FileProblem[];
  plan: Plan | undefined;
  /** What apply did; undefined when nothing was carried out (plan, an abort, a stop). */
  result: ApplyResult | undefined;
  source: SourceRead['counts'];
  /** Requests and writes sent by the end of the pass. */
  stats: ClientStats;
  /** apply: when the pass began (epoch ms), then ms since: content read and rendered, plan made, applied. */
  timings?: { startedAt: number; read: number; planned: number; applied: number };
  /** Why the pass ended before its plan was made or carried out: the reason of its `stopped` event. */
  stopped?: 'strict' | 'stale-plan';
}

export type RunOptions = SyncOptions &
  SessionOptions & {
    /** Leave the embedded CMS running for the caller (`start` shows it afterwards). */
    keepTarget?: boolean;
  };

/**
 * plan and apply: read content/ and the CMS, compute the plan and (apply) carry it out, telling
 * `reporter` as it goes. The report's exit code is that of docs/contract.md (Commands and exit
 * codes). The target is returned for `keepTarget`; its session is closed either way.
 */
export async function runSync(
  mode: 'plan' | 'apply',
  options: RunOptions,
  reporter: SyncReporter = () => {},
): Promise<{ report: SyncReport; target: Target }> {
  reporter({ type: 'phase', phase: 'config' });
  const session = await openSession(mode, options, reporter);
  try {
    const buildWindow = Number(options.env.CMS_SYNC_TEST_BUILD_WINDOW) || undefined;
    const report = await syncOnce(session, options, reporter, { signal: options.signal, buildWindow });
    return { report, target: session.target };
  } finally {
    await session.close({ keepTarget: options.keepTarget === true });
  }
}

/**
 * One pass of plan (and, in an apply session, apply) on an open session. Watch calls this for
 * every batch of saves; it never throws for a per-record problem, only for run-level failures.
 */
export async function syncOnce(
  session: Session,
  flags: SyncOptions,
  reporter: SyncReporter = () => {},
  options: {
    signal?: AbortSignal | undefined;
    /** Documents built at once; tests make it small to show that bodies are not all held (see readSource). */
    buildWindow?: number | undefined;
    /**
     * With `flags.only` naming exactly these files (relative to content/), documents the last pass
     * listed (a watch's batch of saves): they are read without listing content/ or the hash cache.
     */
    files?: readonly string[] | undefined;
  } = {},
): Promise<SyncReport> {
  const { client, mode, store } = session;
  const { signal } = options;
  const failedMedia = openFailedMedia(session.config.stateDir);
  // Images upload while documents are still being rendered, except where the promise is that
  // nothing is sent before everything is known: plan, a saved plan, --strict.
  const ahead =
    mode === 'apply' && store && !flags.savedPlan && !flags.strict && !flags.confirm
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
  // Bodies wait on disk between the read and the write (see body-spool.ts): beside the state,
  // which an apply has made sure of; a plan writes nothing there, so its spool is a temp file.
  const spool = openBodySpool(mode === 'apply' ? session.config.stateDir : tmpdir());
  // The last clean apply lets this pass leave alone the files it left as they are (see
  // state/clean-run.ts); a pass whose plan is then more than edits of the files it read is made
  // again over everything, before any write.
  const places = cleanRunPlaces(session);
  // --strict sends no request before the files are known good, and the files to read hang on the
  // CMS's changes: it reads everything (and may still leave the mark for the next run).
  const mayMark = mayUseCleanRun(flags, options.files);
  const clean = mayMark && !flags.strict ? readCleanRun(places, session.config) : undefined;
  try {
    let listed: Listings | undefined;
    if (clean) {
      const fast = await syncPass(session, flags, reporter, undefined, signal, failedMedia, {
        spool,
        buildWindow: options.buildWindow,
        files: undefined,
        clean: { mark: clean, places },
      });
      if (!('widen' in fast)) return fast;
      listed = fast.listed;
    }
    const whole = await syncPass(session, flags, reporter, ahead, signal, failedMedia, {
      spool,
      buildWindow: options.buildWindow,
      files: flags.only?.length ? options.files : undefined,
      clean: mayMark ? { mark: undefined, places } : undefined,
      listed,
    });
    if ('widen' in whole) throw new Error('a whole pass never widens');
    return whole;
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
    spool.close();
  }
}

async function syncPass(
  session: Session,
  flags: SyncOptions,
  outer: SyncReporter,
  ahead: UploadAhead | undefined,
  signal: AbortSignal | undefined,
  failedMedia: FailedMedia,
  pass: {
    spool: BodySpool;
    buildWindow: number | undefined;
    files: readonly string[] | undefined;
    /**
     * A pass that may use or write the mark of a clean run: with `mark`, the files that mark
     * vouches for are passed over, and the pass ends with `widen` when that is not enough.
     */
    clean?: { mark: CleanRun | undefined; places: CleanRunPlaces } | undefined;
    /** The CMS's listing, made by a pass that widened. */
    listed?: Listings | undefined;
  },
): Promise<SyncReport | { widen: true; listed: Listings | undefined }> {
  const started = Date.now();
  const { config, target, client, mode } = session;
  // The first Ctrl-C before any record write: nothing to finish, stop where we are.
  const checkpoint = () => signal?.throwIfAborted();
  const { state, openIntents } = session.store ? session.store : await readOnlyState(config, target);
  const refresh = flags.refresh !== false;
  const mark = openIntents.size === 0 ? pass.clean?.mark : undefined;
  // The few records such a pass looks at are found by a search of the state's sorted base.
  if (mark?.sortedBase) searchSortedBase(state);
  // A pass that may widen holds back what it tells (but progress) until its plan is known to stand.
  const held: SyncEvent[] = [];
  let holding = mark !== undefined;
  const report: SyncReporter = (event) =>
    holding && event.type !== 'phase' ? void held.push(event) : outer(event);
  const release = () => {
    holding = false;
    for (const event of held.splice(0)) outer(event);
  };
  let selected = selectedKeys(state, config, flags.only, pass.files);
  /** What the mark says to look at again, and the records the CMS changed since the last listing (and their files). */
  const lookAt = mark && lookAtOf(mark);
  // Such a pass lists the CMS's changes first: the records changed there are looked at again. The
  // listing runs while content/ is listed; the scan waits for it before it passes any file over,
  // and reads every file (a whole pass) when the CMS was listed in full.
  let remoteFirst: Promise<Listings> | undefined = pass.listed && Promise.resolve(pass.listed);
  let passOver: Promise<boolean> | undefined;
  /** What the listing said (a fallback to a full listing): said once, even when the pass widens. */
  const saidByListing: SyncEvent[] = [];
  if (mark && refresh && !remoteFirst) {
    const listingReport: SyncReporter = (event) => {
      if (event.type !== 'phase') saidByListing.push(event);
      report(event);
    };
    // Saved later: by an apply with its writes noted, by a plan only if the CMS changed nothing.
    remoteFirst = listForPlan(session, state, flags, listingReport, undefined, Object.keys(mark.records), {
      save: false,
    });
    passOver = remoteFirst.then(async (listed) => {
      if (!changedSince(listed, state, lookAt!)) return false;
      // Nothing changed in the CMS: the cache may move on without hiding anything from the next run.
      if (mode === 'plan' && lookAt!.changedInCms === 0) {
        await saveListing(listed);
        await restampListing(pass.clean!.places);
      }
      return true;
    });
    passOver.catch(() => {});
  }
  const noRecords = (mark ? recordsOf(mark) : state.records.size) === 0;
  if (!refresh && noRecords) {
    throw new SyncError(
      'CMS_SYNC_STATE',
      '--refresh=false trusts the state, but there is none yet: run once with refresh so records are matched, not ' +
        'created twice.',
    );
  }
  // The listing is network-bound and reading content/ CPU-bound: start both at once (not with
  // --strict, which promises no call before the files are known to be good).
  // A watch's saves of a few files: only their records are read from the CMS, each by its id.
  const byId = pass.files && selected && selected.size <= READ_BY_ID && flags.refresh !== 'full';
  const byIdOf = byId ? selected : undefined;
  const listRemote = () =>
    remoteFirst
      ? remoteFirst
      : byIdOf
        ? listRecords(session.client, state, byIdOf)
        : // Saved later: a plan's once it is read, an apply's at its end with its writes noted.
          listForPlan(session, state, flags, report, undefined, undefined, { save: false });
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
          const protect = new Set(keys.protectedKeys);
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
              selected,
              failedFiles: new Set(keys.failedFiles),
            }),
            sureToWrite(state, known),
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
      spool: pass.spool,
      buildWindow: pass.buildWindow,
      files: pass.files,
      ...(pass.clean && (mode === 'apply' || mark)
        ? {
            clean: {
              mark,
              lookAt: lookAt?.files ?? new Map<string, string | undefined>(),
              ...(passOver ? { ready: passOver } : {}),
            },
          }
        : {}),
      failures: {
        memory: failedMedia,
        retryAfterMs: config.media.retryFailedAfterMs,
        retryAll: flags.retryFailedMedia === true,
        now: new Date(),
      },
      ...aheadHooks,
      onProgress: (progress) => report({ type: 'phase', ...progress }),
    },
    state,
  );
  checkpoint();
  const read = Date.now() - started;
  // Files passed over: the plan looks at the records of the files read, and those the mark or
  // the CMS's changes name; the rest are counted as unchanged.
  const untouched =
    mark && source.clean?.passedOver ? untouchedRecords(mark, state, source, lookAt!) : undefined;
  if (untouched) selected = untouched.selected;
  else if (mark) release();
  for (const problem of source.problems) report({ type: 'problem', problem });
  const hasErrors = source.problems.some((p) => p.severity === 'error');
  const done = (
    fields: Pick<SyncReport, 'exitCode' | 'problems' | 'plan' | 'result'> & Partial<SyncReport>,
  ) => ({
    mode,
    target: target.identity,
    source: source.counts,
    stats: client.stats,
    ...fields,
  });
  if (flags.strict && hasErrors) {
    report({ type: 'stopped', reason: 'strict' });
    return done({
      exitCode: 1,
      problems: source.problems,
      plan: undefined,
      result: undefined,
      stopped: 'strict',
    });
  }

  if (refresh) report({ type: 'phase', phase: 'list' });
  const listedAll: Listings = refresh ? await (remotePending ?? listRemote()) : unread();
  // A plan that passed files over left the cache for the apply after it; one that reads
  // everything saves it, as a whole pass always has.
  if (refresh && !untouched && mode === 'plan') await saveListing(listedAll);
  // Passing files over, the plan looks at the records of the files read alone.
  const remote = untouched && refresh ? narrowListings(listedAll, state, untouched.selected) : listedAll;
  if (refresh && byId) {
    // A saved file that names a record state does not know (a category made in the CMS): the
    // resources it names are listed as a whole pass lists them, so the name is found as it would be.
    const named = namedUnknown(source.desired, state);
    if (named.length > 0)
      Object.assign(remote, pick(await listForPlan(session, state, flags, report, named), named));
  }
  if (refresh) {
    report({ type: 'phase', phase: 'compare' });
    // The listing carried ids, slugs and change markers only: read in full what the plan must compare.
    const changeMarker = config.wire.changeMarker || undefined;
    const wanted = recordsToComplete({
      desired: source.desired,
      remote,
      state,
      resources: config.resources,
      pendingEdits: openIntents,
      prune: flags.prune ?? config.sync.prune,
      ...(selected ? { selected } : {}),
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
    mediaTextFields: { alt: config.wire.mediaAltField, title: config.wire.mediaTitleField },
    trustState: !refresh,
    ...(config.wire.changeMarker ? { changeMarker: config.wire.changeMarker } : {}),
    pendingEdits: openIntents,
    desired: source.desired,
    remote,
    state: planState,
    protectedKeys: new Set(source.protectedKeys),
    ...(selected ? { selected } : {}),
    ...(untouched ? { recordsInState: recordsOf(mark!) } : {}),
    failedFiles: new Set(source.failedFiles),
    resources: config.resources,
    ...planFlags(flags, config),
  };
  let plan = computePlan(planInput);
  if (untouched) {
    if (!onlyEdits(plan, state, source.desired)) {
      for (const event of saidByListing) outer(event);
      return { widen: true, listed: refresh ? listedAll : undefined };
    }
    plan.untouched = untouched.counts;
    release();
  }
  const lightUpdates =
    refresh && flags.diff ? (await import('../plan/field-values.js')).cmsValuesWanted(plan) : undefined;
  if (lightUpdates?.size) {
    // An update of a file the CMS did not change was listed without its fields: read them to diff.
    await completeRecords(client, remote, lightUpdates, config.wire.pageSize);
    plan = computePlan(planInput);
  }
  if (flags.diff) (await import('../plan/field-diff.js')).renderDiffs(plan);
  for (const problem of plan.problems) report({ type: 'problem', problem });
  const problems = [...source.problems, ...plan.problems];
  const failed = hasErrors || plan.problems.some((p) => p.severity === 'error');
  if (flags.out && mode === 'plan')
    await (
      await import('../plan/saved-plan.js')
    ).writeSavedPlan(path.resolve(config.projectDir, flags.out), plan, state, planFlags(flags, config));
  if (flags.savedPlan) {
    const reason = (await import('../plan/saved-plan.js')).stalePlanReason(flags.savedPlan.plan, plan, state);
    if (reason) {
      report({ type: 'stopped', reason: 'stale-plan', file: flags.savedPlan.file, detail: reason });
      return done({ exitCode: 3, problems, plan, result: undefined, stopped: 'stale-plan' });
    }
  }
  const drifted = plan.changes.some((c) => c.action === 'drift');

  const skipped = new Set(problems.filter((p) => p.severity === 'error').map((p) => p.file)).size;
  report({ type: 'plan', plan, skipped });
  if (mode === 'plan' || plan.abort || !session.store) {
    return done({ exitCode: plan.abort ? 3 : failed ? 1 : 0, problems, plan, result: undefined });
  }
  if (
    flags.confirm &&
    hasChanges(plan) &&
    !(await flags.confirm(plan, { identity: target.identity, local: target.local !== undefined }))
  )
    return done({ exitCode: 1, problems, plan, result: undefined });

  checkpoint();
  const book = idBook({
    state: planState,
    remote,
    resources: config.resources,
    ...(remoteMedia ? { remoteMedia } : {}),
  });
  const planned = Date.now() - started;
  const landed = new LandedWrites();
  const result = await carryOut(plan, {
    landed,
    client,
    store: session.store,
    config,
    target,
    report,
    started,
    book,
    skipped,
    failedMedia,
    ...(ahead ? { ahead } : {}),
    ...(signal ? { signal } : {}),
  });
  await noteOwnWrites({ config, identity: target.identity, state }, landed, refresh ? listedAll : undefined);
  if (pass.clean)
    await markCleanRun(pass.clean.places, config, {
      state: session.store.state,
      plan,
      problems,
      result,
      source,
      untouched: untouched ? mark : undefined,
    });
  else forgetCleanRun(config);
  const exitCode = result.interrupted ? 130 : failed || result.failures.length ? 1 : drifted ? 3 : 0;
  const timings = { startedAt: started, read, planned, applied: Date.now() - started };
  return done({ exitCode, problems, plan, result, timings });
}

/** Records a narrowed pass reads one by one rather than listing what changed in the CMS: one page's worth. */
const READ_BY_ID = 100;

/**
 * Only records the plan is sure to write (see upload-ahead.ts): new to state, and every record
 * they name known, or one of them still to be built (more: left to the apply). Made out here, so
 * that what it keeps for the whole run is only what it reads, not the scan's keys of every document.
 */
function sureToWrite(state: State, known: IdBook): (record: DesiredRecord) => boolean | { after: string } {
  return (record) => {
    if (state.records.has(record.key)) return false;
    const unknown = (record.refs ?? [])
      .flatMap((ref) => ref.slugs.map((slug) => `${ref.relation.target}/${slug}`))
      .filter((key) => idOfKey(known, key) === undefined);
    return unknown.length === 0 ? true : unknown.length === 1 ? { after: unknown[0]! } : false;
  };
}

function planFlags(flags: SyncOptions, config: Config): PlanFlags {
  return {
    prune: flags.prune ?? config.sync.prune,
    maxDeletes: flags.maxDeletes ?? config.sync.maxDeletes,
    overwriteDrift: flags.overwriteDrift ?? false,
    only: flags.only ?? [],
    detectRenames: flags.detectRenames ?? true,
  };
}

/**
 * With --only: the keys of the state's records whose file is selected, the only records the plan
 * looks at (see PlanInput.selected). `files`, when the selection is exactly those files (a watch's
 * batch of saves), finds them by name rather than matching every record's file.
 */
function selectedKeys(
  state: State,
  config: Config,
  only: string[] | undefined,
  files: readonly string[] | undefined,
): Set<string> | undefined {
  if (!only?.length) return undefined;
  const prefix = contentPrefix(config.projectDir, config.contentDir);
  const { keysOfFile, keyOfFile } = recordIndex(state);
  const keys = new Set<string>();
  const add = (file: string) => keysOfFile(file).forEach((key) => keys.add(key));
  if (files) files.forEach((file) => add(prefix + file));
  else {
    const selected = createPathFilter(only);
    for (const file of keyOfFile.keys())
      if (file.startsWith(prefix) && selected(file.slice(prefix.length))) add(file);
  }
  return keys;
}

/**
 * The CMS's listing for the plan (see listRemote): what changed since the last run's listing
 * when the cache allows it, else every record; ids, slugs and change markers only, when the CMS
 * has a marker.
 */
function listForPlan(
  session: Session,
  state: State,
  flags: SyncOptions,
  report: SyncReporter,
  resources?: RecordResource[],
  inState?: readonly string[],
  options: { save?: boolean } = {},
): Promise<Listings> {
  return listRemote({
    client: session.client,
    config: session.config,
    identity: session.target.identity,
    state,
    full: flags.refresh === 'full',
    report,
    ...(resources ? { resources } : {}),
    ...(inState ? { inState } : {}),
    ...options,
  });
}

/** The resources of the records `desired` names that are neither in state nor among `desired`. */
function namedUnknown(desired: readonly DesiredRecord[], state: State): RecordResource[] {
  const keys = new Set(desired.map((d) => d.key));
  const named = new Set<RecordResource>();
  for (const record of desired)
    for (const ref of record.refs ?? [])
      for (const slug of ref.slugs) {
        const key = `${ref.relation.target}/${slug}`;
        if (!keys.has(key) && !state.records.has(key)) named.add(ref.relation.target);
      }
  return [...named];
}

function pick(listings: Listings, resources: readonly RecordResource[]): Partial<Listings> {
  return Object.fromEntries(resources.map((r) => [r, listings[r]]));
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
    report: SyncReporter;
    /** Files left out for errors (see formatPlan), counted in the summary. */
    skipped: number;
    started: number;
    book: IdBook;
    ahead?: UploadAhead;
    signal?: AbortSignal;
    failedMedia: FailedMedia;
    landed: LandedWrites;
  },
): Promise<ApplyResult> {
  ctx.report({ type: 'apply-start', plan });
  const result = await applyPlan(plan, {
    client: ctx.client,
    store: ctx.store,
    config: ctx.config,
    book: ctx.book,
    uploadUrlOf: uploadUrlFor(ctx.target),
    failedMedia: ctx.failedMedia,
    landed: ctx.landed,
    ...(ctx.ahead ? { ahead: ctx.ahead } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    onProgress: (event: ProgressEvent) => ctx.report({ type: 'progress', ...event }),
  });
  ctx.report({
    type: 'applied',
    result,
    unchanged: countPlan(plan).unchanged,
    skipped: ctx.skipped,
    ms: Date.now() - ctx.started,
    requests: ctx.client.stats.requests,
  });
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
