import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import type { Config } from '../config/schema.js';
import { editMediaText, textEntry } from '../media/edit-media.js';
import { isImageFailure, type FailedMedia } from '../media/failed-media.js';
import { withoutImages } from '../media/fallback.js';
import { findMedia } from '../media/media-library.js';
import type { MediaText } from '../media/media-text.js';
import type { MediaSource } from '../media/resolve-media.js';
import { markerField, type Change, type Plan } from '../plan/compute-plan.js';
import { remoteDigests, sourceDigests } from '../plan/digest.js';
import { apiName, comparableDigest, rememberId, resolveFields, type IdBook } from '../plan/payload.js';
import type { DesiredRecord } from '../records/build-record.js';
import { plainRecord } from '../records/spooled-record.js';
import type { CmsClient } from '../remote/client.js';
import { CmsAmbiguousError, CmsAuthError, CmsProtocolError } from '../remote/errors.js';
import type { RemoteRecord } from '../resources.js';
import type { StateStore } from '../state/journal.js';
import type { StateRecord } from '../state/state-file.js';
import { RESOURCE_TABLE } from '../resources/table.js';
import type { LandedWrites } from './landed-writes.js';
import type { UploadAhead } from './upload-ahead-types.js';

/** Everything apply touches, passed in: the only code that writes to the CMS. */
export interface ApplyContext {
  client: CmsClient;
  store: StateStore;
  config: Config;
  /** Ids known before the run (from the plan); filled in as the CMS hands out new ones. */
  book: IdBook;
  /** The URL the CMS should fetch a media source from. */
  uploadUrlOf: (source: Exclude<MediaSource, { kind: 'existing' }>) => string;
  onProgress?: (event: ProgressEvent) => void;
  /** Uploads started while documents were still being rendered (see upload-ahead.ts). */
  ahead?: UploadAhead;
  /** Remote images the CMS failed to fetch, remembered so the next runs do not send them again at once. */
  failedMedia?: FailedMedia;
  /**
   * Aborted at Ctrl-C: no write starts after it; writes already sent finish and are journaled,
   * and state is saved. The result then says how many were not started.
   */
  signal?: AbortSignal;
  /** Noted as each record write or delete lands, for the listing cache. */
  landed?: LandedWrites;
}

export interface ProgressEvent {
  done: number;
  total: number;
  /** What just finished, e.g. "+ article/hello". */
  label: string;
  ok: boolean;
}

export interface ApplyFailure {
  key: string;
  file: string;
  message: string;
}

export interface ApplyResult {
  created: number;
  updated: number;
  deleted: number;
  adopted: number;
  uploaded: number;
  failures: ApplyFailure[];
  /** Records written without an image the CMS could not fetch (media.onMissing), one line each. */
  warnings?: string[];
  /** Why planned deletes were not carried out, when they were not. */
  deletesSkipped?: string;
  /** Set when the signal stopped the apply: planned writes (uploads, records, deletes) never started. */
  interrupted?: { notStarted: number };
}

/** A write that was not started because the apply was interrupted: neither done nor failed. */
export class NotStarted extends Error {
  constructor() {
    super('not started: interrupted');
    this.name = 'NotStarted';
  }
}

/**
 * Carries out a plan. Each record waits only for what it needs — its media uploads and its
 * category — so uploads and record writes overlap; the client's limits keep the pace. Deletes
 * run last, articles before the categories they point at. Every confirmed write is journaled
 * before the next step depends on it.
 */
export async function applyPlan(plan: Plan, ctx: ApplyContext): Promise<ApplyResult> {
  const result: ApplyResult = { created: 0, updated: 0, deleted: 0, adopted: 0, uploaded: 0, failures: [] };
  const writes = plan.changes.filter(
    (c) =>
      c.action === 'create' ||
      c.action === 'update' ||
      c.action === 'adopt' ||
      c.action === 'forget' ||
      c.action === 'unchanged',
  );
  const deletes = plan.changes.filter((c) => c.action === 'delete');
  const total = plan.uploads.length + writes.filter((c) => c.action !== 'unchanged').length + deletes.length;
  let done = 0;
  let fatal: unknown;
  let notStarted = 0;
  const stopped = () => ctx.signal?.aborted === true;
  const progress = (label: string, ok: boolean) => ctx.onProgress?.({ done: ++done, total, label, ok });
  const fail = (key: string, file: string, error: unknown) => {
    if (error instanceof CmsAuthError) fatal ??= error;
    result.failures.push({ key, file, message: error instanceof Error ? error.message : String(error) });
  };

  // Media the CMS already had (found in its library when state did not know them).
  for (const found of plan.knownMedia)
    await ctx.store.mediaUploaded(found.identity, { id: found.id, source: found.source });
  const uploads = new Map<string, Promise<boolean>>();
  const library = mediaLibrary(ctx.client);
  // No more uploads wait in the client's queue than it sends at once, so that after an interrupt
  // none is sent that had not already gone out.
  const uploadSlots = pLimit(ctx.client.concurrency);
  const send = (source: MediaSource, text: MediaText | undefined) =>
    uploadSlots(() =>
      stopped() ? Promise.reject(new NotStarted()) : uploadSource(source, ctx, library, text),
    );
  // Why an image a record needs failed, by identity: the record's error names it.
  const imageErrors = new Map<string, string>();
  // Remote images the CMS could not fetch: with media.onMissing 'warn' or 'drop', records go without them.
  const unreachable = new Set<string>();
  for (const upload of plan.uploads) {
    uploads.set(
      upload.source.identity,
      (ctx.ahead?.started(upload.source.identity, upload.text) ?? send(upload.source, upload.text)).then(
        (id) => {
          ctx.book.mediaIdByIdentity.set(upload.source.identity, id);
          result.uploaded += 1;
          progress(`^ ${describeSource(upload.source)}`, true);
          return true;
        },
        (error: unknown) => {
          if (error instanceof NotStarted) {
            notStarted += 1;
            return false;
          }
          imageErrors.set(
            upload.source.identity,
            `upload of ${describeSource(upload.source)} failed: ${(error as Error).message}`,
          );
          if (error instanceof CmsAuthError) fatal ??= error;
          if (upload.source.kind === 'url' && isImageFailure(error)) unreachable.add(upload.source.identity);
          progress(`^ ${describeSource(upload.source)}`, false);
          return false;
        },
      ),
    );
  }

  for (const edit of plan.mediaEdits ?? []) {
    uploads.set(
      edit.identity,
      uploadSlots(() =>
        stopped()
          ? Promise.reject(new NotStarted())
          : editMediaText(edit, { client: ctx.client, store: ctx.store, wire: ctx.config.wire }),
      ).then(
        () => {
          if (edit.send) progress(`~ media ${edit.source}`, true);
          return true;
        },
        (error: unknown) => {
          if (error instanceof NotStarted) {
            notStarted += 1;
            return false;
          }
          imageErrors.set(edit.identity, `alt/title of ${edit.source} not set: ${(error as Error).message}`);
          if (error instanceof CmsAuthError) fatal ??= error;
          if (edit.send) progress(`~ media ${edit.source}`, false);
          return false;
        },
      ),
    );
  }

  // Only the writes of records that others name (see the resource table's relations) are waited
  // for by another write: the rest are not kept, so a large apply holds no promise per record.
  const recordWrites = new Map<string, Promise<boolean>>();
  const tasks: Promise<void>[] = [];
  // Record writes in progress at once, each from its journaled intent to its confirmed state:
  // enough to keep the client's slots full while some wait for an image, and few enough that a
  // cold apply of 10,000 records neither holds 10,000 payloads in memory at once (V8 then lets
  // the heap grow to twice that before it collects) nor leaves 10,000 open intents to check
  // when it dies. Uploads stay outside it, so a record in the window that waits for its image
  // never holds that upload back.
  const windowSize = Math.max(WRITE_WINDOW, 4 * ctx.client.concurrency);
  // Each write enters the window only when a place is free, so no queue holds a task per record.
  const inWindow = new Set<Promise<void>>();
  let thrown: { error: unknown } | undefined;
  // Writes enter the window in apply order, so a record is in it before any record that names
  // it and waits for it: a full window can never wait on a write still outside it.
  for (const change of writes) {
    if (change.action === 'unchanged') {
      // Same slug, new file name (a rename), or inputs not yet remembered: only state changes.
      // Otherwise nothing at all, not even a task: a no-op run has 10,000 of these.
      const entry = ctx.store.state.records.get(change.movedFrom ?? change.key);
      const inputMoved =
        change.input &&
        (change.input.hash !== entry?.input?.hash || change.input.fileSha !== entry?.input?.fileSha);
      if (entry && (entry.file !== change.file || inputMoved || change.movedFrom)) {
        tasks.push(
          ctx.store.recordWritten(
            change.key,
            { ...entry, file: change.file, ...(change.input ? { input: change.input } : {}) },
            change.movedFrom,
          ),
        );
      }
      continue;
    }
    while (inWindow.size >= windowSize) await Promise.race(inWindow);
    const task = (async (): Promise<boolean> => {
      if (fatal) return false;
      if (stopped()) {
        notStarted += 1;
        return false;
      }
      if (change.action === 'forget') {
        await ctx.store.recordWritten(change.key, null);
        progress(`  ${change.key} (already gone from the CMS)`, true);
        return true;
      }
      let record = change.record;
      const waits: Array<Promise<boolean>> = [];
      const imageWaits: Array<[string, Promise<boolean>]> = [];
      if (record.html)
        for (const m of record.html.media) {
          const w = uploads.get(m.identity);
          if (w) imageWaits.push([m.identity, w]);
        }
      for (const ref of record.refs ?? [])
        for (const slug of ref.slugs) {
          const w = recordWrites.get(`${ref.relation.target}/${slug}`);
          if (w) waits.push(w);
        }
      const [others, images] = await Promise.all([
        Promise.all(waits),
        Promise.all(imageWaits.map(([, w]) => w)),
      ]);
      const missing = new Set(imageWaits.filter((_, i) => !images[i]).map(([identity]) => identity));
      let ready = !others.includes(false) && missing.size === 0;
      const { onMissing } = ctx.config.media;
      if (
        !ready &&
        onMissing !== 'error' &&
        !others.includes(false) &&
        [...missing].every((i) => unreachable.has(i))
      ) {
        // The CMS could not fetch these remote images: as the next runs will (see failed-media.ts), the record
        // goes without them.
        record = withoutImages(plainRecord(record), missing, onMissing);
        ready = true;
        const how = onMissing === 'warn' ? 'as a plain <img> of its URL' : 'without it';
        for (const line of notReadyLines(change.record, imageErrors))
          (result.warnings ??= []).push(`${line}; published ${how} (media.onMissing: '${onMissing}')`);
      }
      if (stopped()) {
        notStarted += 1;
        return false;
      }
      if (!ready) {
        fail(change.key, change.file, new Error(notReadyMessage(record, imageErrors)));
        progress(`${symbol(change)} ${change.key}`, false);
        return false;
      }
      if (fatal) return false;
      try {
        await writeRecord(record === change.record ? change : { ...change, record }, ctx, result);
        progress(`${symbol(change)} ${change.key}`, true);
        return true;
      } catch (error) {
        fail(change.key, change.file, error);
        progress(`${symbol(change)} ${change.key}`, false);
        return false;
      }
    })();
    if (NAMED.has(change.resource)) recordWrites.set(change.key, task);
    const settled = task.then(
      () => {
        inWindow.delete(settled);
      },
      (error: unknown) => {
        inWindow.delete(settled);
        thrown ??= { error };
      },
    );
    inWindow.add(settled);
  }
  await Promise.all([...tasks, ...inWindow, ...uploads.values()]);
  if (thrown) throw thrown.error;
  // Uploads started ahead for records the plan then left alone (drift, errors): done all the
  // same, and remembered in state for the run that needs them.
  for (const early of (await ctx.ahead?.settle()) ?? []) {
    if (early.uploaded && !uploads.has(early.identity)) result.uploaded += 1;
  }

  // Deletes: one resource at a time, in the plan's (reverse dependency) order, and only after a
  // run without errors (as rclone does): a failure may mean the picture the plan had is wrong.
  if (deletes.length > 0 && result.failures.length > 0) {
    result.deletesSkipped =
      `${deletes.length} delete${deletes.length === 1 ? '' : 's'} not done: ` +
      `${result.failures.length} error${result.failures.length === 1 ? '' : 's'} earlier in this run. Fix them and ` +
      `run again.`;
  }
  for (const group of result.deletesSkipped ? [] : groupByResource(deletes)) {
    if (fatal) break;
    await Promise.all(
      group.map(async (change) => {
        if (change.action !== 'delete') return;
        if (stopped()) {
          notStarted += 1;
          return;
        }
        try {
          const idempotencyKey = randomUUID();
          await ctx.store.intend(change.key, 'delete', idempotencyKey);
          await ctx.client.delete(change.resource, change.id, { idempotencyKey });
          await ctx.store.recordWritten(change.key, null);
          ctx.landed?.removed(change);
          result.deleted += 1;
          progress(`- ${change.key}`, true);
        } catch (error) {
          fail(change.key, change.file, error);
          progress(`- ${change.key}`, false);
        }
      }),
    );
  }

  if (stopped()) result.interrupted = { notStarted };
  await ctx.store.save();
  if (fatal) throw fatal;
  return result;
}

/** Record writes in progress at once, at least (see applyPlan). */
const WRITE_WINDOW = 32;

/** Resources some relation names: a write of theirs may be waited for by another write. */
const NAMED = new Set(
  Object.values(RESOURCE_TABLE).flatMap((descriptor) => descriptor.relations.map((r) => r.target)),
);

/** What an upload needs: the client and the state it is journaled in. */
export type UploadContext = Pick<ApplyContext, 'client' | 'store' | 'uploadUrlOf' | 'failedMedia'>;

/**
 * Uploads one image (journaled before, remembered in state after) and resolves with its media
 * id. A lost answer, or an upload a dead run sent, is looked up in the library before the file
 * is sent again.
 */
export async function uploadSource(
  source: MediaSource,
  ctx: UploadContext,
  library: MediaLibraryView,
  text?: MediaText,
): Promise<number> {
  if (source.kind === 'existing') return source.id;
  const url = ctx.uploadUrlOf(source);
  const done = async (id: number) => {
    await ctx.store.mediaUploaded(source.identity, {
      id,
      source: source.kind === 'file' ? source.file : source.url,
      ...(text ? textEntry(text) : {}),
    });
    if (source.kind === 'url') await ctx.failedMedia?.forget(source.url);
    return id;
  };
  const extra = text ? { alt: text.alt, ...(text.title === undefined ? {} : { title: text.title }) } : {};
  // An earlier run died after sending this upload: the file may already be in the library.
  if (ctx.store.openIntents.has(source.identity)) {
    const found = findMedia(await library.list(false), source, url);
    if (found !== undefined) return done(found);
  }
  const idempotencyKey = randomUUID();
  await ctx.store.intend(source.identity, 'upload', idempotencyKey);
  try {
    try {
      return await done((await ctx.client.uploadFromUrl(url, extra, { idempotencyKey })).id);
    } catch (error) {
      if (!(error instanceof CmsAmbiguousError)) throw error;
      // The answer was lost: look in the library before uploading the file a second time.
      const found = findMedia(await library.list(true), source, url);
      if (found !== undefined) return done(found);
      return done((await ctx.client.uploadFromUrl(url, extra, { idempotencyKey })).id);
    }
  } catch (error) {
    // The CMS could not fetch this remote image: the next runs treat it as missing for a while.
    if (source.kind === 'url' && isImageFailure(error))
      await ctx.failedMedia?.remember(source.url, error instanceof Error ? error.message : String(error));
    throw error;
  }
}

/** Why a record was not written: each image it needs that failed, at its line, or the category. */
function notReadyMessage(record: DesiredRecord, imageErrors: ReadonlyMap<string, string>): string {
  const images = notReadyLines(record, imageErrors);
  return images.length
    ? `not written: ${images.join('; ')}`
    : 'not written: an image or a record it names failed';
}

function notReadyLines(record: DesiredRecord, imageErrors: ReadonlyMap<string, string>): string[] {
  const lines = (record.html?.media ?? []).flatMap((m, i) => {
    const why = imageErrors.get(m.identity);
    const at = record.html?.text?.[i];
    return why ? [`${at ? `${record.file}:${at.line}:${at.column}: ` : ''}${why}`] : [];
  });
  return [...new Set(lines)];
}

/** The media library, listed at most once per run unless a fresh copy is asked for. */
export interface MediaLibraryView {
  list(fresh: boolean): Promise<RemoteRecord[]>;
}

export function mediaLibrary(client: CmsClient): MediaLibraryView {
  let listing: Promise<RemoteRecord[]> | undefined;
  return {
    list(fresh) {
      if (fresh || !listing) listing = client.list('media').then((r) => r.records);
      return listing;
    },
  };
}

async function writeRecord(
  change: Extract<Change, { action: 'create' | 'update' | 'adopt' }>,
  ctx: ApplyContext,
  result: ApplyResult,
): Promise<void> {
  const record = change.record;
  const resource = ctx.config.resources[record.resource];
  const digests = sourceDigests(record);
  const fields = Object.keys(digests);
  const entryFor = (id: number, owner: StateRecord['owner'], held: RemoteRecord): StateRecord => ({
    id,
    file: record.file,
    owner,
    source: digests,
    remote: remoteDigests(held, fields, (f) => apiName(f, resource)),
    ...(record.input ? { input: record.input } : {}),
    ...markerField(held, ctx.config.wire.changeMarker || undefined),
  });

  // Journaled, then noted for the listing cache.
  const landed = async (entry: StateRecord) => {
    await ctx.store.recordWritten(change.key, entry, change.movedFrom);
    ctx.landed?.wrote(change, entry);
  };

  if (change.action === 'adopt') {
    await landed({
      id: change.id,
      file: record.file,
      owner: change.owner,
      source: digests,
      remote: change.baseline,
      ...(change.marker !== undefined ? { marker: change.marker } : {}),
      ...(record.input ? { input: record.input } : {}),
    });
    remember(record, change.id, ctx.book);
    result.adopted += 1;
    return;
  }

  const payload = (names: string[]) => {
    const { data, unresolved } = resolveFields(record, names, ctx.book, resource);
    if (unresolved.length) throw new Error(`cannot send ${unresolved.join(', ')}: an id it needs is unknown`);
    return data;
  };

  if (change.action === 'update') {
    const idempotencyKey = randomUUID();
    const data = payload(change.fields);
    const sent = Object.fromEntries(
      change.fields.map((f) => [f, comparableDigest(data[apiName(f, resource)])]),
    );
    await ctx.store.intend(change.key, 'edit', idempotencyKey, { source: digests, sent });
    const returned = await ctx.client.edit(record.resource, change.id, data, { idempotencyKey });
    // What the CMS holds after the write is the baseline, so a CMS that normalises stays quiet.
    const held =
      returned && hasFields(returned, fields, resource) ? returned : await mustGet(ctx, record, change.id);
    await landed(entryFor(change.id, change.owner, held));
    remember(record, change.id, ctx.book);
    result.updated += 1;
    return;
  }

  const idempotencyKey = randomUUID();
  await ctx.store.intend(change.key, 'add', idempotencyKey);
  let id: number;
  let held: RemoteRecord | undefined;
  let owner: StateRecord['owner'] = 'created';
  try {
    const added = await ctx.client.add(record.resource, payload(fields), { idempotencyKey });
    id = added.id;
    held = added.record;
  } catch (error) {
    // The add may have happened (no answer, or an answer without a readable id): look before
    // sending it again, so nothing is created twice.
    if (!(error instanceof CmsAmbiguousError || error instanceof CmsProtocolError)) throw error;
    const found = await findBySlug(ctx, record);
    if (found) {
      id = found.id;
      held = found;
      owner = 'created';
    } else if (error instanceof CmsProtocolError) {
      // The CMS answered, so it saw the request; sending it again could create a twin.
      throw error;
    } else {
      const added = await ctx.client.add(record.resource, payload(fields), { idempotencyKey });
      id = added.id;
      held = added.record;
    }
  }
  if (!held || !hasFields(held, fields, resource)) held = await mustGet(ctx, record, id);
  await landed(entryFor(id, owner, held));
  remember(record, id, ctx.book);
  result.created += 1;
}

async function findBySlug(ctx: ApplyContext, record: DesiredRecord): Promise<RemoteRecord | undefined> {
  const slugField = apiName('slug', ctx.config.resources[record.resource]);
  const claimed = new Set(
    [...ctx.store.state.records].filter(([k]) => k.startsWith(`${record.resource}/`)).map(([, e]) => e.id),
  );
  const { records } = await ctx.client.list(record.resource, { filters: { [slugField]: record.slug } });
  return records
    .filter((r) => r[slugField] === record.slug && !claimed.has(r.id))
    .sort((a, b) => b.id - a.id)[0];
}

async function mustGet(ctx: ApplyContext, record: DesiredRecord, id: number): Promise<RemoteRecord> {
  const held = await ctx.client.get(record.resource, id);
  if (!held) throw new Error(`${record.key} (id ${id}) is not in the CMS right after it was written`);
  return held;
}

function hasFields(
  held: RemoteRecord,
  fields: string[],
  resource: Config['resources'][keyof Config['resources']],
): boolean {
  return fields.every((f) => apiName(f, resource) in held);
}

/** Only the ids of records some relation names are ever looked up: an apply of every article keeps none of theirs. */
function remember(record: DesiredRecord, id: number, book: IdBook): void {
  if (NAMED.has(record.resource)) rememberId(book, record.key, id);
}

/** Deletes that may run side by side: one resource, one depth (children before their parents). */
function groupByResource(changes: Change[]): Change[][] {
  const groups: Change[][] = [];
  const depth = (change: Change) => (change.action === 'delete' ? (change.depth ?? 0) : 0);
  for (const change of changes) {
    const last = groups.at(-1);
    if (last && last[0]!.resource === change.resource && depth(last[0]!) === depth(change)) last.push(change);
    else groups.push([change]);
  }
  return groups;
}

function symbol(change: Change): string {
  return change.action === 'create'
    ? '+'
    : change.action === 'update'
      ? '~'
      : change.action === 'delete'
        ? '-'
        : '=';
}

function describeSource(source: MediaSource): string {
  return source.kind === 'file' ? source.file : source.kind === 'url' ? source.url : `cms-media:${source.id}`;
}
