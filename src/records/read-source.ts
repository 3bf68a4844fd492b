import { byCodeUnit } from '../compare.js';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import type { FailedMedia } from '../media/failed-media.js';
import { createMediaResolver } from '../media/resolve-media.js';
import { hashCacheOnUse, noHashCache, openHashCache } from '../source/hash-cache.js';
import { FOLDER_CACHE_FILE } from '../source/folder-cache.js';
import { realContentDir } from '../source/open-regular.js';
import { duplicateProblem, scanContent, type UntouchedFiles } from '../source/scan-content.js';
import { cleanRunWrittenAt, MarkNotes, recordsOf, stampsDigest, type CleanRun } from '../state/clean-run.js';
import {
  isDocumentFailure,
  readDocument,
  type KnownFiles,
  type SourceDocument,
} from '../source/read-document.js';
import type { State } from '../state/state-file.js';
import { recordIndex } from '../state/record-index.js';
import { documentRead } from '../process-tuning.js';
import { buildRecord, pipelineFingerprint, reuseRecord, type DesiredRecord } from './build-record.js';
import { createRenderer } from '../render/renderer.js';
import { RESOURCE_TABLE } from '../resources/table.js';
import { pluginsFingerprint, resolvePlugins, type ResolvedPlugins } from '../render/plugins.js';
import { digest } from '../plan/digest.js';
import { SyncError, type FileProblem } from '../errors.js';
import type { RecordResource } from '../resources.js';
import type { BodySpool, SpooledText, SpoolStats } from '../render/body-spool.js';
import { packedRecords, spoolRecord } from './spooled-record.js';
import { packedDocuments } from '../source/spooled-document.js';
import { eachInWindow } from './in-window.js';
import { warmUpReading } from './warm-up-reading.js';

export interface SourceRead {
  /**
   * Documents read; how many had to be rendered (the rest were unchanged since the last write);
   * and how many files (documents and images) had to be read and hashed (the rest were vouched
   * for by an unchanged stat, see HashCache).
   */
  counts: { documents: number; rendered: number; hashed: number; untouched?: number; spool?: SpoolStats };
  desired: DesiredRecord[];
  /**
   * With `clean`: what a clean run records of content/ (see CleanRun), and whether the documents
   * as the last clean run left them were passed over (`counts.untouched` of them).
   */
  clean?: { listing: CleanRun['listing']; passedOver: boolean; notes: MarkNotes };
  problems: FileProblem[];
  failedFiles: string[];
  protectedKeys: string[];
}

export interface ReadSourceOptions {
  only?: string[] | undefined;
  /**
   * With `only`: exactly these files (relative to content/), documents a scan listed before and
   * saved since. They are read without listing content/ or the hash cache: both cost what the
   * folder holds, and saved files have changed anyway.
   */
  files?: readonly string[] | undefined;
  overwriteDrift?: boolean | undefined;
  canServeLocalFiles: boolean;
  /** Called once content/ is scanned, before anything is rendered: the keys files claim (see ScannedKeys). */
  onScanned?: (keys: ScannedKeys) => void;
  /** Called for each record as soon as it is built without errors, or taken from state (uploads can start early). */
  onRecord?: (record: DesiredRecord) => void;
  /** Remote images that failed lately: missing until their retry is due (see failed-media.ts). */
  failures?: { memory: FailedMedia; retryAfterMs: number; retryAll: boolean; now: Date } | undefined;
  /** Told as the read moves: scanning content/, then each document built of those to build. */
  onProgress?: (progress: { phase: 'scan' | 'render'; done?: number; total?: number }) => void;
  /** Write what was hashed to the hash cache (apply); `plan` only reads it, since it writes nothing. */
  saveHashes?: boolean;
  /**
   * Where bodies wait, Markdown until it is rendered and HTML until it is written: without one,
   * every body of the folder is in memory (deflated) by the end of the read.
   */
  spool?: BodySpool | undefined;
  /** Documents built at once (each holds its body in memory meanwhile). @default 32 */
  buildWindow?: number | undefined;
  /**
   * The last clean run (see state/clean-run.ts): documents it left as they are, but for those in
   * `lookAt`, are passed over unread when content/ lists the files it listed. Without a mark,
   * only what a clean run records of content/ is found out.
   */
  clean?:
    | {
        mark: CleanRun | undefined;
        lookAt: ReadonlyMap<string, string | undefined>;
        /** Settled before any file is passed over (lookAt may grow until then): false, none is. */
        ready?: Promise<boolean>;
      }
    | undefined;
}

/**
 * What the scan alone tells: every key a readable file claims, and the keys and files that
 * failed. Rendering can only fail more files, so deletes planned from these are a superset of
 * the final plan's.
 */
export interface ScannedKeys {
  claimed: ReadonlySet<string>;
  protectedKeys: readonly string[];
  failedFiles: readonly string[];
}

/** Bump when the layout rules (bundles, translations) change which file is which record. */
const LAYOUT_VERSION = 1;

/**
 * What outside a file, beyond pipelineFingerprint, changes what it becomes: the layout rules
 * and `languages` (its key, its language field) for every record, and the render plugins for
 * the records that are rendered (articles, pages), so that a plugin's change renders those again
 * and nothing else.
 */
function extraFingerprints(
  config: Config,
  plugins: ResolvedPlugins | undefined,
): { all: string; rendered: string } {
  const all = digest({ layout: LAYOUT_VERSION, languages: config.languages });
  const rendered = plugins && pluginsFingerprint(plugins);
  // Math off adds nothing: records rendered before the option existed are not rendered again.
  const { math } = config.markdown;
  if (!rendered && !math) return { all, rendered: all };
  return {
    all,
    rendered: digest({ all, ...(rendered ? { plugins: rendered } : {}), ...(math ? { math } : {}) }),
  };
}

/**
 * content/ -> desired records. Files with errors are skipped and protected, never taken as
 * deleted; files whose inputs are those of the last write are taken from state unrendered.
 */
export async function readSource(
  config: Config,
  options: ReadSourceOptions,
  state: State,
): Promise<SourceRead> {
  // Files with the bytes of the last write are only hashed, not parsed (see UnparsedDocument);
  // --overwrite-drift needs every record's content, so nothing is taken from state then.
  let keyOfFile: ReadonlyMap<string, string | undefined> | undefined;
  const known: KnownFiles = (file, hash) => {
    // Passing files over, the few read are those that changed (parsed anyway) and those looked at
    // again, whose keys the caller knows: every record is not read to find a file's key.
    keyOfFile ??= clean?.passedOver ? options.clean!.lookAt : recordIndex(state).keyOfFile;
    const key = keyOfFile.get(file);
    return key !== undefined && state.records.get(key)!.input?.fileSha === hash
      ? { key, slug: key.slice(key.indexOf('/') + 1) }
      : undefined;
  };
  const { remarkPlugins, rehypePlugins } = config.markdown;
  // Found (not imported) on every run, so that a plugin's new version renders again what it renders.
  const plugins =
    remarkPlugins.length || rehypePlugins.length
      ? resolvePlugins(config.projectDir, config.markdown)
      : undefined;
  const fingerprints = extraFingerprints(config, plugins);
  const fingerprintOf = (resource: RecordResource) =>
    resource === 'article' || resource === 'page' ? fingerprints.rendered : fingerprints.all;
  const files = options.only?.length ? options.files : undefined;
  // The saved files have changed anyway; their images may not have (and may be large).
  const hashCache = files
    ? noHashCache()
    : openHashCache(config.stateDir, Date.now, { appends: options.saveHashes === true });
  const imageHashes = files ? hashCacheOnUse(config.stateDir) : hashCache;
  let clean: Omit<NonNullable<SourceRead['clean']>, 'notes'> | undefined;
  const notes = new MarkNotes();
  const pipeline = digest([pipelineFingerprint(config), fingerprints.all, fingerprints.rendered]);
  const untouched: UntouchedFiles | undefined = options.clean && {
    async ready() {
      const ready = (await options.clean!.ready) ?? true;
      if (!ready && clean) clean.passedOver = false;
      return ready;
    },
    listed(documents, mediaFiles, filesDigest) {
      const listing = {
        files: filesDigest,
        media: stampsDigest(mediaFiles, config.projectDir),
        pipeline,
      };
      const { mark } = options.clean!;
      const same =
        mark !== undefined &&
        listing.media !== undefined &&
        mark.listing.files === listing.files &&
        mark.listing.media === listing.media &&
        mark.listing.pipeline === pipeline &&
        (mark.dependencies.files.length === 0 ||
          stampsDigest(mark.dependencies.files, config.projectDir) === mark.dependencies.stamps);
      clean = { listing, passedOver: same };
      return same;
    },
    mayPassOver: (file) => !options.clean!.lookAt.has(file),
    // Asked again as it is used: the listing of the CMS may add to lookAt until `ready`.
    mayPassOverAll: () => options.clean!.lookAt.size === 0,
    expected: options.clean.mark ? recordsOf(options.clean.mark) : 0,
    lastRun: cleanRunWrittenAt(config.stateDir),
  };
  options.onProgress?.({ phase: 'scan' });
  const scan = await scanContent({
    projectDir: config.projectDir,
    contentDir: config.contentDir,
    hashCache,
    limits: config.limits,
    languages: config.languages,
    spool: options.spool,
    onProgress: (done, total) => options.onProgress?.({ phase: 'scan', done, total }),
    // The renderer too, though it goes unused when the documents are many (they render on workers).
    onChangeFound: () => void warmUpReading(config.limits),
    ...(options.only ? { only: options.only } : {}),
    ...(files ? { files } : {}),
    ...(options.overwriteDrift ? {} : { known }),
    ...(untouched ? { untouched } : {}),
    ...(files
      ? {}
      : {
          folderCache: {
            file: path.join(config.stateDir, FOLDER_CACHE_FILE),
            save: options.saveHashes === true,
          },
        }),
  });
  options.onScanned?.({
    claimed: keysOf(scan.documents, scan.unchanged),
    protectedKeys: scan.protectedKeys,
    failedFiles: scan.failedFiles,
  });
  const resolver = createMediaResolver({
    projectDir: config.projectDir,
    contentDir: config.contentDir,
    canServeLocalFiles: options.canServeLocalFiles,
    hashCache: imageHashes,
    failures: options.failures,
  });
  const media = resolver;
  const problems = [...scan.problems];
  const failedFiles = [...scan.failedFiles];
  const keys = [...scan.protectedKeys];
  // An unchanged file whose images or pipeline changed must be parsed after all.
  const docs: Array<SourceDocument | undefined> = scan.documents;
  const reused: DesiredRecord[] = [];
  /** Files known unchanged that had to be read after all: the key state gave them may no longer be theirs. */
  const reread = new Set<SourceDocument>();
  // The record as state has it, if its file, images and pipeline are unchanged. Most records have
  // no local image: those are checked without waiting on anything (an await per record adds up).
  const reuse = async (
    doc: Pick<SourceDocument, 'key' | 'resource' | 'slug' | 'file' | 'hash'>,
  ): Promise<DesiredRecord | undefined> => {
    const entry = state.records.get(doc.key);
    return reuseRecord(doc, entry, {
      config,
      imageHashes: await Promise.all((entry?.input?.media ?? []).map((p) => media.hashFile(p))),
      fingerprint: fingerprintOf(doc.resource),
    });
  };
  let within: string | undefined;
  for (const stub of scan.unchanged) {
    const entry = state.records.get(stub.key);
    const record = entry?.input?.media.length
      ? await reuse(stub)
      : reuseRecord(stub, entry, { config, imageHashes: [], fingerprint: fingerprintOf(stub.resource) });
    if (record) {
      reused.push(record);
      continue;
    }
    const doc = readDocument(stub.absPath, {
      projectDir: config.projectDir,
      resource: stub.resource,
      file: stub.file,
      hashCache,
      limits: config.limits,
      readPath: stub.readPath,
      within: (within ??= realContentDir(config.contentDir)),
      stem: stub.stem,
      lang: stub.lang,
      languages: config.languages,
      holdBody: options.spool?.hold,
    });
    if (isDocumentFailure(doc)) {
      problems.push(...doc.problems);
      failedFiles.push(stub.file);
      keys.push(stub.key, ...doc.claimedKeys);
    } else {
      // Read after all (a new pipeline renders every file again): as much to hold as a cold run.
      documentRead();
      docs.push(doc);
      if (doc.key !== stub.key) reread.add(doc);
    }
  }
  // A new layout or `languages` gives such a file another key, which the scan could not check
  // against the others: two files with one key are both skipped, as the scan does.
  if (reread.size > 0) {
    const claimants = new Map<string, Array<SourceDocument | DesiredRecord>>();
    for (const claimant of [...docs, ...reused]) {
      if (!claimant) continue;
      const list = claimants.get(claimant.key);
      if (list) list.push(claimant);
      else claimants.set(claimant.key, [claimant]);
    }
    for (const [key, list] of claimants) {
      if (list.length < 2 || !list.some((c) => reread.has(c as SourceDocument))) continue;
      keys.push(key);
      for (const claimant of list) {
        problems.push(duplicateProblem(claimant, list));
        failedFiles.push(claimant.file);
        const at = docs.indexOf(claimant as SourceDocument);
        if (at !== -1) docs[at] = undefined;
        else reused.splice(reused.indexOf(claimant as DesiredRecord), 1);
      }
    }
  }
  const documentCount = docs.filter(Boolean).length + reused.length + (scan.untouched ?? 0);
  // Parsed files can still be as at the last write (e.g. state written before file hashes were kept).
  for (const [i, doc] of docs.entries()) {
    const record = !doc || options.overwriteDrift ? undefined : await reuse(doc);
    if (record) {
      reused.push(record);
      docs[i] = undefined;
    }
  }
  let toBuild = 0;
  let toRender = 0;
  for (const doc of docs) {
    if (!doc) continue;
    toBuild += 1;
    if (RESOURCE_TABLE[doc.resource].htmlField !== undefined) toRender += 1;
  }
  // Packed until each is built, before the render workers start and the scan's garbage is
  // collected (see beforeRenderWorkers): the documents' objects go with it.
  const waiting = packedDocuments();
  for (const doc of docs) if (doc) waiting.add(doc);
  docs.length = 0;
  const renderer = await createRenderer({
    defaultSize: config.media.defaultSize,
    captions: config.markdown.captions,
    math: config.markdown.math,
    limits: config.limits,
    documents: toRender,
    ...(plugins ? { plugins } : {}),
  });
  // A plugin that fails to load fails every document the same way: that is the run's failure.
  let pluginFailure: SyncError | undefined;
  const render = async (markdown: string) => {
    try {
      return await renderer.render(markdown);
    } catch (error) {
      if (error instanceof SyncError) pluginFailure ??= error;
      throw error;
    }
  };
  const languageField = config.languages.field;
  const { spool } = options;
  let buildCount = 0;
  options.onProgress?.({ phase: 'render', done: 0, total: toBuild });
  const desired: DesiredRecord[] = [];
  for (const record of reused) {
    if (clean) notes.note(record);
    desired.push(record);
    options.onRecord?.(record);
  }
  // Built records wait packed too while the render workers run, and join the rest afterwards.
  // A record's key is its document's (see slugEndsKey).
  const waitingRecords = packedRecords();
  // Each document is made as it is taken and let go once built: holding every body until the
  // last one is rendered would keep the whole content folder in memory twice (Markdown and HTML).
  await eachInWindow(waiting.take(), options.buildWindow ?? 32, async (doc) => {
    spool?.borrow();
    let template: SpooledText | undefined;
    const outcome = await buildRecord(doc, {
      config,
      render,
      media,
      fingerprint: fingerprintOf(doc.resource),
      holdHtml: spool && ((html) => (template = spool.hold(html))),
    }).catch((error: unknown) => {
      spool?.giveBack();
      throw error;
    });
    let { record } = outcome;
    // Articles only: of the CMS's resources, only articles take fields beyond their own.
    if (record && languageField && doc.resource === 'article')
      record.values[languageField] = doc.lang ?? config.languages.default;
    const built = record;
    // Built: from here on only its key and where its fields are stay in memory.
    if (record && spool) record = spoolRecord(record, spool, template);
    spool?.giveBack();
    problems.push(...outcome.problems);
    if (built && record) {
      const position = waitingRecords.add(record);
      if (clean) notes.note(built, position);
      options.onRecord?.(record);
    } else {
      failedFiles.push(doc.file);
      keys.push(doc.key);
    }
    options.onProgress?.({ phase: 'render', done: ++buildCount, total: toBuild });
  }).finally(() => renderer.close());
  if (pluginFailure) throw pluginFailure;
  // Made once, in the order built (the notes' positions), and held as `desired` holds them.
  const builtRecords = [...waitingRecords];
  for (const record of builtRecords) desired.push(record);
  notes.builtAre(builtRecords);
  // Every document and image was looked at unless --only narrowed the scan: forget the rest.
  // (Documents passed over were looked up, images were not: the images are kept as they are.)
  if (options.saveHashes) hashCache.save({ complete: !options.only?.length && scan.untouched === undefined });
  desired.sort((a, b) => byCodeUnit(a.key, b.key));
  problems.sort((a, b) => byCodeUnit(a.file, b.file) || a.line - b.line);
  return {
    counts: {
      documents: documentCount,
      rendered: renderer.count,
      hashed: hashCache.hashed + (imageHashes === hashCache ? 0 : imageHashes.hashed),
      ...(scan.untouched !== undefined ? { untouched: scan.untouched } : {}),
      // Only when bodies went through it: a run that builds nothing reports what it always did.
      ...(spool?.stats.texts ? { spool: { ...spool.stats } } : {}),
    },
    desired,
    problems,
    failedFiles,
    protectedKeys: keys,
    ...(clean ? { clean: { ...clean, notes } } : {}),
  };
}

function keysOf(...lists: ReadonlyArray<ReadonlyArray<{ key: string }>>): Set<string> {
  const keys = new Set<string>();
  for (const list of lists) for (const item of list) keys.add(item.key);
  return keys;
}
