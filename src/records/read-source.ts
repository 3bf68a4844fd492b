import pLimit from 'p-limit';
import { byCodeUnit } from '../compare.js';
import type { Config } from '../config/schema.js';
import type { FileProblem } from '../errors.js';
import type { FailedMedia } from '../media/failed-media.js';
import { createMediaResolver } from '../media/resolve-media.js';
import { openHashCache } from '../source/hash-cache.js';
import { scanContent } from '../source/scan-content.js';
import {
  isDocumentFailure,
  readDocument,
  type KnownFiles,
  type SourceDocument,
} from '../source/read-document.js';
import type { State } from '../state/state-file.js';
import { buildRecord, reuseRecord, type DesiredRecord } from './build-record.js';
import { createRenderer } from '../render/renderer.js';

export interface SourceRead {
  /**
   * Documents read; how many had to be rendered (the rest were unchanged since the last write);
   * and how many files (documents and images) had to be read and hashed (the rest were vouched
   * for by an unchanged stat, see HashCache).
   */
  counts: { documents: number; rendered: number; hashed: number };
  desired: DesiredRecord[];
  problems: FileProblem[];
  failedFiles: string[];
  protectedKeys: string[];
}

export interface ReadSourceOptions {
  only?: string[] | undefined;
  overwriteDrift?: boolean | undefined;
  canServeLocalFiles: boolean;
  /** Called once content/ is scanned, before anything is rendered: the keys files claim (see ScannedKeys). */
  onScanned?: (keys: ScannedKeys) => void;
  /** Called for each record as soon as it is built without errors, or taken from state (uploads can start early). */
  onRecord?: (record: DesiredRecord) => void;
  /** Remote images that failed lately: missing until their retry is due (see failed-media.ts). */
  failures?: { memory: FailedMedia; retryAfterMs: number; retryAll: boolean; now: Date } | undefined;
  /** Write what was hashed to the hash cache (apply); `plan` only reads it, since it writes nothing. */
  saveHashes?: boolean;
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
  const keyOfFile = new Map<string, string>();
  for (const key in state.records) keyOfFile.set(state.records[key]!.file, key);
  const known: KnownFiles = (file, hash) => {
    const key = keyOfFile.get(file);
    return key !== undefined && state.records[key]!.input?.fileSha === hash
      ? { key, slug: key.slice(key.indexOf('/') + 1) }
      : undefined;
  };
  const hashCache = openHashCache(config.stateDir);
  const scan = await scanContent({
    projectDir: config.projectDir,
    contentDir: config.contentDir,
    hashCache,
    limits: config.limits,
    ...(options.only ? { only: options.only } : {}),
    ...(options.overwriteDrift ? {} : { known }),
  });
  options.onScanned?.({
    claimed: new Set([...scan.documents, ...scan.unchanged].map((d) => d.key)),
    protectedKeys: scan.protectedKeys,
    failedFiles: scan.failedFiles,
  });
  const resolver = createMediaResolver({
    projectDir: config.projectDir,
    contentDir: config.contentDir,
    canServeLocalFiles: options.canServeLocalFiles,
    hashCache,
    failures: options.failures,
  });
  const media = resolver;
  const problems = [...scan.problems];
  const failedFiles = [...scan.failedFiles];
  const keys = [...scan.protectedKeys];
  // An unchanged file whose images or pipeline changed must be parsed after all.
  const docs: Array<SourceDocument | undefined> = scan.documents;
  const reused: DesiredRecord[] = [];
  // The record as state has it, if its file, images and pipeline are unchanged. Most records have
  // no local image: those are checked without waiting on anything (an await per record adds up).
  const reuse = async (
    doc: Pick<SourceDocument, 'key' | 'resource' | 'slug' | 'file' | 'hash'>,
  ): Promise<DesiredRecord | undefined> => {
    const entry = state.records[doc.key];
    return reuseRecord(doc, entry, {
      config,
      imageHashes: await Promise.all((entry?.input?.media ?? []).map((p) => media.hashFile(p))),
    });
  };
  for (const stub of scan.unchanged) {
    const entry = state.records[stub.key];
    const record = entry?.input?.media.length
      ? await reuse(stub)
      : reuseRecord(stub, entry, { config, imageHashes: [] });
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
    });
    if (isDocumentFailure(doc)) {
      problems.push(...doc.problems);
      failedFiles.push(stub.file);
      keys.push(stub.key, ...doc.claimedKeys);
    } else docs.push(doc);
  }
  const documentCount = docs.length + reused.length;
  // Parsed files can still be as at the last write (e.g. state written before file hashes were kept).
  for (const [i, doc] of docs.entries()) {
    const record = !doc || options.overwriteDrift ? undefined : await reuse(doc);
    if (record) {
      reused.push(record);
      docs[i] = undefined;
    }
  }
  const toBuild = docs.flatMap((doc, i) => (doc ? [i] : []));
  const toRender = toBuild.filter(
    (i) => docs[i]!.resource === 'article' || docs[i]!.resource === 'page',
  ).length;
  const renderer = await createRenderer({
    defaultSize: config.media.defaultSize,
    captions: config.markdown.captions,
    limits: config.limits,
    documents: toRender,
  });
  const limit = pLimit(32);
  const built: Array<{
    key: string;
    file: string;
    record: DesiredRecord | undefined;
    problems: FileProblem[];
  }> = [];
  for (const record of reused) {
    built.push({ key: record.key, file: record.file, record, problems: [] });
    options.onRecord?.(record);
  }
  await Promise.all(
    toBuild.map((i) =>
      limit(async () => {
        // Each document is let go once built: holding every body until the last one is rendered
        // would keep the whole content folder in memory twice (Markdown and HTML).
        const doc = docs[i]!;
        docs[i] = undefined;
        const { record, problems } = await buildRecord(doc, { config, render: renderer.render, media });
        built.push({ key: doc.key, file: doc.file, record, problems });
        if (record) options.onRecord?.(record);
      }),
    ),
  ).finally(() => renderer.close());
  const desired: DesiredRecord[] = [];
  for (const { key, file, record, problems: own } of built) {
    problems.push(...own);
    if (record) desired.push(record);
    else {
      failedFiles.push(file);
      keys.push(key);
    }
  }
  // Every document and image was looked at unless --only narrowed the scan: forget the rest.
  if (options.saveHashes) hashCache.save({ complete: !options.only?.length });
  desired.sort((a, b) => byCodeUnit(a.key, b.key));
  problems.sort((a, b) => byCodeUnit(a.file, b.file) || a.line - b.line);
  return {
    counts: { documents: documentCount, rendered: renderer.count, hashed: hashCache.hashed },
    desired,
    problems,
    failedFiles,
    protectedKeys: keys,
  };
}
