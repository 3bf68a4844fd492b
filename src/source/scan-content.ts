import { lstatSync, opendirSync, statSync, type Dir, type Dirent, type Stats } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import { realContentDir } from './open-regular.js';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { byCodeUnit as compare } from '../compare.js';
import { listedDigest } from '../digest.js';
import { SyncError, type FileProblem } from '../errors.js';
import { ownCopy } from '../own-copy.js';
import { versionOrUnknown } from '../own-version.js';
import { documentRead } from '../process-tuning.js';
import {
  contentPrefix,
  documentStem,
  isDocumentName,
  isIgnoredFolder,
  isInside,
  isMediaName,
  resourceOfPath,
  slugProblem,
} from './content-paths.js';
import { DEFAULT_LANGUAGES, translatedSlug, type Languages } from './languages.js';
import { pathIdentity, sortBundles } from './layout.js';
import type { ContentLimits } from './limits.js';
import { kindOf } from './open-regular.js';
import { FolderCache, type FolderListing } from './folder-cache.js';
import { createPathFilter } from './glob.js';
import type { HashCache } from './hash-cache.js';
import { statOnTwoThreads, type StatTwice } from './stat-many.js';
import type { BodySpool } from '../render/body-spool.js';
import { spoolDocument } from './spooled-document.js';
import {
  isDocumentFailure,
  readDocument,
  type DocumentFailure,
  type KnownFiles,
  type ReadDocumentOptions,
  type SourceDocument,
  type UnparsedDocument,
} from './read-document.js';

/**
 * Files read between two turns of the event loop, where the listing of the CMS running meanwhile
 * takes its answers in and sends its next requests: each turn moves it by one page per
 * connection, so turns that come too seldom leave pages of the listing to wait for after the
 * last file is read; at this pace the listing is done before the scan is (`npm run bench`).
 */
const YIELD_EVERY = 100;
/** The same for documents passed over after a stat (see UntouchedFiles): each costs a few microseconds. */
const YIELD_EVERY_PASSED = 2000;
/** The same for the entries of a folder as content/ is listed. */
const YIELD_EVERY_LISTED = 5000;

export interface ScanResult {
  /** Sorted by key. */
  documents: SourceDocument[];
  /** Files `known` recognised as unchanged since the last write: hashed, not parsed. Sorted by key. */
  unchanged: UnparsedDocument[];
  /**
   * Files that exist but could not be read/parsed or were rejected: their remote records must
   * never be treated as deleted.
   */
  failedFiles: string[];
  /** Keys claimed by failed files when they can be known (e.g. the file-name stem key), also to be protected. */
  protectedKeys: string[];
  /** `file` relative to projectDir. */
  problems: FileProblem[];
  /** Media files under content/ (any folder), relative to projectDir. Not narrowed by `only`; none with `files`. */
  mediaFiles: string[];
  /** With `untouched` that took the listing: the documents passed over unread. */
  untouched?: number;
  /** With `folderCache`: the folders of content/ whose listing was kept, and those read. */
  folders?: { reused: number; read: number };
}

/**
 * Documents a scan may pass over unread, as the last clean run left them (see state/clean-run.ts).
 * Asked only of a whole listing of content/ without problems.
 */
export interface UntouchedFiles {
  /**
   * Told every file content/ lists (documents, then images, each sorted, relative to the
   * project), and the listedDigest of both: false when they are not the clean run's files, and then no
   * document is passed over.
   */
  listed(documents: readonly string[], media: readonly string[], digest: string): boolean;
  /**
   * Whether the document `file` is passed over when its stamp is the one the hash cache holds
   * (false for a file the clean run says to look at again).
   */
  mayPassOver(file: string): boolean;
  /** True when mayPassOver is true of every file (none to look at again): then it is not asked. */
  mayPassOverAll?(): boolean;
  /**
   * Whether the files `listed` took may be passed over after all, awaited once they were: what
   * that needs may still be coming (a listing of the CMS), and the stats are taken meanwhile.
   */
  ready?(): Promise<boolean>;
  /** How many documents the clean run listed: from STAT_TWICE_FROM, they are statted on two threads. */
  expected: number;
  /**
   * When the clean run wrote its mark (ms): a document with a later ctime changed after that run,
   * and will be read (see fresh-stamps.ts). Infinity or absent: no document is taken as changed.
   */
  lastRun?: number;
}

/**
 * Documents from which a scan that may pass them over stats them on two threads (stat-many.ts).
 * Below, the worker costs about what it saves.
 */
export const STAT_TWICE_FROM = 5000;

export interface ScanOptions {
  projectDir: string;
  /** Absolute path of content/. */
  contentDir: string;
  /**
   * Globs matched against paths relative to contentDir, e.g. "articles/**"; a glob naming a
   * folder selects all below it.
   */
  only?: string[];
  /**
   * Exactly these files (relative to contentDir), documents an earlier scan listed: they are taken
   * without listing content/, which costs what the folders hold. A path that is no longer a plain
   * file inside content/ (gone, or reached through a link) makes the scan list content/ after all.
   * What only the whole listing tells (that a file is a page bundle's resource, or a Hugo list
   * page) is not known then: the caller must check what the scan's records become (a watch's
   * narrowed pass takes only edits of records state knows).
   */
  files?: readonly string[] | undefined;
  /** Files whose bytes are those of the last write need not be parsed (see UnparsedDocument). */
  known?: KnownFiles;
  /** sha256 of files by their stat, so unchanged files need not be read (see HashCache). */
  hashCache?: HashCache;
  /** Per-file limits (config `limits`). */
  limits?: ContentLimits | undefined;
  /** Translations (config `languages`): which file names carry a language, and which one keeps plain slugs. */
  languages?: Languages | undefined;
  /** Where each document's body is kept until it is built (see ReadDocumentOptions). */
  holdBody?: ReadDocumentOptions['holdBody'];
  /**
   * Where each document's front matter and body wait until it is built (see spooled-document.ts):
   * memory then holds only its key, file and hash. Takes the place of `holdBody`.
   */
  spool?: BodySpool | undefined;
  /** Told now and then how many of the files to read are read (for a progress line). */
  onProgress?: (done: number, total: number) => void;
  /**
   * Called at most once, while documents are still being statted on two threads, when a stat shows
   * one changed since the last run (see fresh-stamps.ts): the moment to load what reading it
   * takes, while the other thread stats.
   */
  onChangeFound?: () => void;
  /** Documents that may be passed over unread (a whole listing only, with `hashCache`). */
  untouched?: UntouchedFiles | undefined;
  /**
   * Where what each folder of content/ held is kept, so that a folder with the stamp it had is not
   * read again (see folder-cache.ts), and whether this scan writes it back (an apply).
   */
  folderCache?: { file: string; save: boolean; now?: () => number } | undefined;
}

/**
 * Reads every document under content/. Layout (docs/contract.md, Layout): `.md`/`.markdown` files anywhere
 * below a resource folder (`articles/2024/x.md` is article `x`: subfolders only organise files,
 * the slug still comes from front matter or the file stem). Other Markdown files, hidden files
 * and folders, and editor leftovers are ignored without a message.
 */
export async function scanContent(options: ScanOptions): Promise<ScanResult> {
  // Started before content/ is listed, so that the worker is up by the time the paths are known.
  const cacheFile = mayPassOver(options) && options.hashCache?.path;
  // On one core the two threads would only take turns.
  const twice =
    cacheFile && options.untouched!.expected >= STAT_TWICE_FROM && availableParallelism() > 1
      ? statOnTwoThreads(
          cacheFile,
          {
            contentDir: options.contentDir,
            prefix: contentPrefix(options.projectDir, options.contentDir),
            sep: path.sep,
          },
          options.untouched!.lastRun ?? Infinity,
        )
      : undefined;
  try {
    return await scanWith(options, twice);
  } finally {
    twice?.stop();
  }
}

/** Whether documents may be passed over unread: a whole listing, with the hash cache to vouch for them. */
function mayPassOver(
  options: ScanOptions,
): options is ScanOptions & { untouched: UntouchedFiles; hashCache: HashCache } {
  return (
    options.untouched !== undefined &&
    options.hashCache !== undefined &&
    !options.files &&
    !options.only?.length
  );
}

async function scanWith(options: ScanOptions, twice: StatTwice | undefined): Promise<ScanResult> {
  const { projectDir, contentDir } = options;
  const selected = options.only?.length ? createPathFilter(options.only) : () => true;
  const languages = options.languages ?? DEFAULT_LANGUAGES;
  // What reading a changed document takes is loaded as soon as the stats show one (see
  // onChangeFound), while the worker stats: at a turn of the listing, or between two chunks.
  let warmed = false;
  const warm = () => {
    if (warmed || !options.onChangeFound) return;
    warmed = true;
    options.onChangeFound();
  };
  const prefix = contentPrefix(projectDir, contentDir);
  const listed = options.files && (await listFiles(contentDir, projectDir, languages, options.files));
  const folders =
    !listed && options.folderCache
      ? new FolderCache({
          ...options.folderCache,
          key: {
            contentDir,
            prefix,
            sep: path.sep,
            languages,
            version: versionOrUnknown(),
          },
        })
      : undefined;
  const listing =
    listed ||
    (await listContent(contentDir, projectDir, languages, () => twice?.changeSeen() && warm(), folders));
  // The digest of a listing no folder of which changed is the one kept with it.
  let filesDigest = folders?.digest;
  const digestOf = () => (filesDigest ??= listedDigest([...listing.documents, ...listing.mediaFiles]));
  const { mediaFiles, linked } = listing;
  const inContent = (file: string) => file.slice(prefix.length);
  const layout = listing.indexes
    ? layoutProblems(listing.documents, prefix, languages, selected)
    : { records: listing.documents, problems: [] };

  const toRead = options.only?.length
    ? layout.records.filter((file) => selected(inContent(file)))
    : layout.records;
  const { known, hashCache, limits, spool } = options;
  const passOver = mayPassOver(options) && listing.problems.length === 0 ? options.untouched : undefined;
  if (passOver && twice) {
    const skip: number[] = [];
    if (linked.size > 0) toRead.forEach((file, i) => linked.get(file)?.refused && skip.push(i));
    twice.stat(
      toRead,
      // Refused links are never statted (a stat follows the link).
      { contentDir, prefixLength: prefix.length, sep: path.sep, skip },
      // The cache's lines of the files this thread reads however they stand.
      [
        ...(passOver.mayPassOverAll?.() ? [] : toRead.filter((name) => !passOver.mayPassOver(name))),
        ...mediaFiles,
      ],
    );
  }
  // This thread stats its share while what `ready` waits for is still coming.
  const sameFiles = passOver?.listed(listing.documents, mediaFiles, digestOf()) === true;
  folders?.save(filesDigest);
  const statting = sameFiles && twice ? twice.finish(warm) : undefined;
  const untouched = sameFiles && ((await passOver?.ready?.()) ?? true) ? passOver : undefined;
  // A worker whose stats will not be used is let go now, not after the scan has read every file.
  if (!untouched) twice?.stop();
  const statted = untouched ? await statting : undefined;
  if (statted?.excerpt) hashCache!.useExcerpt(statted.excerpt);
  const same = statted?.same;
  let passedOver = 0;
  const mayPassOverAll = untouched?.mayPassOverAll?.() === true;
  const problems: FileProblem[] = [
    ...listing.problems.filter((p) => selected(p.inContent)).map((p) => p.problem),
    ...layout.problems,
  ];
  const total = toRead.length;
  const failedFiles: string[] = [];
  const protectedKeys = new Set<string>();
  // One claimant per key but for duplicates: an array for every key would add up over many files.
  const byKey = new Map<string, Scanned | Scanned[]>();
  // With a spool, a document's body is held as a plain string only until the document as a whole
  // (front matter and body) goes to the spool, just below.
  const holdBody = spool ? (text: string) => ({ toString: () => text }) : options.holdBody;
  // Where content/ really is, taken when a first document is read (a pass that reads none needs it not).
  let within: string | undefined;
  /** Reads a listed document: what its path makes it is taken from its name now. */
  const read = (file: string, absPath: string, readPath: string | undefined) => {
    const place = inContent(file);
    const identity = pathIdentity(place, languages);
    return readDocument(absPath, {
      projectDir,
      resource: resourceOfPath(place)!,
      file,
      known,
      hashCache,
      limits,
      readPath,
      within: (within ??= realContentDir(contentDir)),
      stem: identity.stem,
      lang: identity.lang,
      languages,
      holdBody,
    });
  };
  for (let i = 0; i < total; i++) {
    const file = toRead[i]!;
    const link = linked.size > 0 ? linked.get(file) : undefined;
    // Made only for a file this loop stats or reads: most of an archive's are passed over by `same`.
    const absPathOf = () => `${contentDir}${path.sep}${inContent(file)}`;
    if (
      untouched &&
      !link?.refused &&
      (mayPassOverAll || untouched.mayPassOver(file)) &&
      (same ? same[i] === 1 : hashCache!.has(file, statted ? statted.stampOf(i) : statOrNot(absPathOf())))
    ) {
      passedOver++;
      if (i % YIELD_EVERY_PASSED === YIELD_EVERY_PASSED - 1) {
        options.onProgress?.(i + 1, total);
        await new Promise((resolve) => setImmediate(resolve));
      }
      continue;
    }
    let result = link?.refused ?? read(file, absPathOf(), link?.readPath);
    if (isDocumentFailure(result)) {
      problems.push(...result.problems);
      failedFiles.push(file);
      result.claimedKeys.forEach((k) => protectedKeys.add(k));
    } else {
      if (!('unparsed' in result)) {
        documentRead();
        if (spool) result = spoolDocument(result, spool);
      }
      const same = byKey.get(result.key);
      byKey.set(
        result.key,
        same === undefined ? result : Array.isArray(same) ? [...same, result] : [same, result],
      );
    }
    // Files are read synchronously (see readDocument); let the listing of the CMS, which runs
    // meanwhile, take its answers in now and then instead of only after the last file.
    if (i % YIELD_EVERY === YIELD_EVERY - 1) {
      options.onProgress?.(i + 1, total);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  const documents: SourceDocument[] = [];
  const unchanged: UnparsedDocument[] = [];
  // Only files that share a key need their path's identity again: taken again from the path then.
  const identityOf = (file: string) => pathIdentity(inContent(file), languages);
  // Values, not entries: an entry is a [key, value] array made for each document.
  for (const claimants of byKey.values()) {
    if (!Array.isArray(claimants)) {
      if ('unparsed' in claimants) unchanged.push(claimants);
      else documents.push(claimants);
      continue;
    }
    // Neither file wins: picking one would make the record flip between them from run to run.
    const { key } = claimants[0]!;
    protectedKeys.add(key);
    for (const doc of claimants) {
      failedFiles.push(doc.file);
      // The key the file has by its path alone (no `slug:`), protected while it cannot be synced.
      const identity = identityOf(doc.file);
      protectedKeys.add(`${doc.resource}/${translatedSlug(identity.stem, identity.lang, languages)}`);
      problems.push(duplicateProblem(doc, claimants));
    }
  }

  documents.sort((a, b) => compare(a.key, b.key));
  unchanged.sort((a, b) => compare(a.key, b.key));
  problems.push(...caseOnlyWarnings([documents, unchanged]));
  problems.sort((a, b) => compare(a.file, b.file) || a.line - b.line || a.column - b.column);
  return {
    documents,
    unchanged,
    failedFiles: failedFiles.sort(compare),
    protectedKeys: [...protectedKeys]
      .filter((k) => slugProblem(k.slice(k.indexOf('/') + 1)) === undefined)
      .sort(compare),
    problems,
    mediaFiles,
    ...(untouched ? { untouched: passedOver } : {}),
    ...(folders ? { folders: { reused: folders.reused, read: folders.read } } : {}),
  };
}

/** A file's stat, or an empty one (a file that is gone is not as it was): it is read, and the read reports it. */
function statOrNot(file: string): Stats {
  try {
    return statSync(file, { throwIfNoEntry: false }) ?? NO_STAT;
  } catch {
    return NO_STAT;
  }
}

const NO_STAT = { isFile: () => false } as Stats;

/**
 * The documents that are records, and a warning for what the layout keeps from being one: the
 * Markdown files inside a page bundle (one line per bundle, at its index) and Hugo list pages.
 * Asked only of a listing with an index file: in any other, every document is a record.
 */
function layoutProblems(
  documents: string[],
  /** The names' content/ prefix. */
  prefix: string,
  languages: Languages,
  selected: (inContent: string) => boolean,
): { records: string[]; problems: FileProblem[] } {
  const paths = documents.map((file) => file.slice(prefix.length));
  const identities = paths.map((inContent) => pathIdentity(inContent, languages));
  const { records, resources, listPages } = sortBundles(paths, languages, identities);
  const problems: FileProblem[] = [];
  if (records.length === paths.length) return { records: documents, problems };
  // Each path's place in the listing: its name there (not made again) and its identity.
  const at = new Map(paths.map((p, i) => [p, i]));
  const warn = (inContent: string, message: string) => {
    if (selected(inContent))
      problems.push({
        file: documents[at.get(inContent)!]!,
        line: 1,
        column: 1,
        message,
        severity: 'warning',
      });
  };
  // The records directly in each bundle folder (its index files), found in one pass over all records.
  const indexesOf = new Map<string, string[]>([...resources.keys()].map((folder) => [folder, []]));
  if (indexesOf.size > 0) for (const p of records) indexesOf.get(path.posix.dirname(p))?.push(p);
  for (const [folder, files] of resources) {
    // At the bundle's index in the default language, if it has one: the file a writer opens first.
    const indexes = indexesOf.get(folder)!;
    const index = indexes.find((p) => identities[at.get(p)!]!.lang === undefined) ?? indexes[0] ?? files[0]!;
    const names = files.map((f) => f.slice(folder.length + 1));
    const shown =
      names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
    warn(
      index,
      `is a page bundle, so the other Markdown files in its folder (${shown}) are its resources, not records; ` +
        `move them out of ${folder}/ to sync them on their own`,
    );
  }
  for (const p of listPages)
    warn(
      p,
      'is a Hugo list page (`_index.md`), which has no record in the CMS, so it is skipped; the documents in its ' +
        'folder are synced as usual (move it to pages/ to sync it as a page)',
    );
  return { records: records.map((p) => documents[at.get(p)!]!), problems };
}

/**
 * Keys that differ only in case (`article/Case`, `article/case`): two records here, but on a
 * checkout on macOS or Windows, whose file names ignore case, one file overwrites the other, and
 * a CMS that ignores case in slugs sees one. A warning at each, not an error: both are synced.
 * Only keys with a capital letter are kept to compare with, so most sites (none) cost a test each.
 */
function caseOnlyWarnings(lists: ReadonlyArray<ReadonlyArray<{ key: string; file: string }>>): FileProblem[] {
  const capitals = /\p{Lu}/u;
  const folded = new Map<string, Array<{ key: string; file: string }>>();
  for (const list of lists)
    for (const doc of list)
      if (capitals.test(doc.key)) {
        const lower = doc.key.toLowerCase();
        folded.set(lower, [...(folded.get(lower) ?? []), doc]);
      }
  if (folded.size === 0) return [];
  for (const list of lists)
    for (const doc of list) if (!capitals.test(doc.key)) folded.get(doc.key)?.push(doc);
  const warnings: FileProblem[] = [];
  for (const alike of folded.values()) {
    if (alike.length < 2) continue;
    for (const doc of alike)
      warnings.push({
        file: doc.file,
        line: 1,
        column: 1,
        severity: 'warning',
        message:
          `key "${doc.key}" differs only in case from ${alike
            .filter((d) => d !== doc)
            .map((d) => `"${d.key}" (${d.file})`)
            .join(', ')}: on macOS and Windows one file overwrites the other, and a CMS that ignores ` +
          'case in slugs sees one; rename one of them or give it another `slug`',
      });
  }
  return warnings;
}

/** One of two or more files that claim one key (a file known unchanged has no front matter lines). */
export function duplicateProblem<
  T extends { file: string; key: string; frontMatterLines?: Record<string, number> },
>(doc: T, claimants: readonly T[]): FileProblem {
  const others = claimants.filter((d) => d !== doc).map((d) => d.file);
  const fromSlug = doc.frontMatterLines !== undefined && Object.hasOwn(doc.frontMatterLines, 'slug');
  // Names that print alike: the same letters, one composed (é) and one decomposed (e + ´), as
  // macOS writes them. Nothing on screen tells them apart, so the message says it.
  const lookAlike = others.some((f) => f !== doc.file && f.normalize('NFC') === doc.file.normalize('NFC'))
    ? ' (the two names are the same text in two Unicode forms, composed and decomposed: keep one file)'
    : '';
  return {
    file: doc.file,
    line: fromSlug ? (doc.frontMatterLines?.['slug'] ?? 1) : 1,
    column: 1,
    message:
      `key "${doc.key}" is also claimed by ${others.join(', ')}; both files are skipped until one of them ` +
      `changes its ${fromSlug ? '`slug`' : 'file name or sets a different `slug`'}${lookAlike}`,
    severity: 'error',
  };
}

type Scanned = SourceDocument | UnparsedDocument;

/** What a listed document has beyond its name: it is reached through a symbolic link, or refused. */
interface LinkedDocument {
  /** The real path to read. */
  readPath?: string;
  /** Set instead of reading the file: a link that leads outside content/ or nowhere. */
  refused?: DocumentFailure;
}

/**
 * content/'s documents as listed: their names alone, as a listing of 100,000 documents would
 * otherwise hold objects and strings for each, made for every document though most are passed
 * over unread. Their paths in content/ and on disk, resource and identity are made from the name
 * for the documents read.
 */
interface Listing {
  /** Relative to projectDir, forward slashes; sorted. */
  documents: string[];
  /** The documents reached through a symbolic link, or refused, by name. */
  linked: Map<string, LinkedDocument>;
  /** Whether a document is an index file (a page bundle's, a list page): then the layout is looked at. */
  indexes: boolean;
  mediaFiles: string[];
  /** Problems with links, by path relative to contentDir (for `only`). */
  problems: Array<{ inContent: string; problem: FileProblem }>;
}

interface PendingLink {
  absPath: string;
  inContent: string;
  /** Real paths of the folders walked to reach the link, content/ first. */
  chain: readonly string[];
}

/**
 * Lists content/. Symbolic links are judged by their real path, after the plain tree and in
 * path order (so the outcome never depends on timing): one that leads outside content/ is
 * refused; a folder link inside content/ is followed once, unless it leads back to a folder it
 * is in (a loop) or to a folder already read through another link.
 */
async function listContent(
  contentDir: string,
  projectDir: string,
  languages: Languages,
  /** Called at each turn the listing gives the event loop. */
  onTurn?: () => void,
  /** What each folder held when last listed: a folder with the stamp it had is not read again. */
  folders?: FolderCache,
): Promise<Listing> {
  const documents: string[] = [];
  const linked = new Map<string, LinkedDocument>();
  const mediaFiles: string[] = [];
  const problems: Listing['problems'] = [];
  const links: PendingLink[] = [];
  /** Documents' names that are not regular files (a named pipe, a socket, a device). */
  const specials: PendingLink[] = [];
  // Relative paths are built while walking, not computed per file with path.relative which is slow over many files.
  // One prefix string shared by every path, not a copy of "content/" in each of them.
  const prefix = contentPrefix(projectDir, contentDir);
  const inProject = (inContent: string) => prefix + inContent;
  let indexes = false;
  const root = await realpath(contentDir).catch(() => contentDir);
  // Folders are read without waiting (entriesOf), so the listing of the CMS, which runs meanwhile,
  // gets a turn now and then to connect and send its requests (see YIELD_EVERY): counted over the
  // whole walk, as one large folder and many small ones take as long.
  let sinceTurn = 0;
  /** Whether `entries` more make it time for a turn: checked per entry, without a promise each. */
  const due = (entries: number) => (sinceTurn += entries) >= YIELD_EVERY_LISTED;
  const turn = async () => {
    sinceTurn = 0;
    await new Promise((resolve) => setImmediate(resolve));
    onTurn?.();
  };
  const walk = async (dir: string, prefix: string, real: string, chain: readonly string[]): Promise<void> => {
    // Kept only for a folder reached without a link, statted before it is read (folder-cache.ts).
    const cache = dir === real ? folders : undefined;
    const stamp = cache && lstatOrNot(dir);
    const here = [...chain, real];
    const kept = cache?.reuse(prefix, stamp, inProject(prefix));
    if (kept) {
      for (const file of kept.documents) documents.push(file);
      for (const file of kept.media) mediaFiles.push(file);
      indexes ||= kept.indexes;
      if (due(kept.documents.length)) await turn();
      await Promise.all(
        kept.folders.map((name) =>
          walk(`${dir}${path.sep}${name}`, `${prefix}${name}/`, `${real}${path.sep}${name}`, here),
        ),
      );
      return;
    }
    const entries = entriesOf(dir, prefix === '');
    const subfolders: Array<Promise<void>> = [];
    // What the folder cache keeps of this folder, unless it holds a link; nothing is gathered for
    // a folder it will not keep (changed too lately: the usual case of a file just renamed in).
    const mine: (FolderListing & { documents: string[]; media: string[]; folders: string[] }) | undefined =
      cache?.mayKeep(stamp) ? { documents: [], media: [], folders: [], indexes: false } : undefined;
    /** A link or a special file among its entries: the folder is listed afresh each run. */
    let uncached = false;
    // The same for every document in the folder: its first folder in content/ names it.
    const resource = prefix === '' ? undefined : resourceOfPath(prefix);
    const folderInProject = inProject(prefix);
    for (const entry of entries) {
      if (due(1)) await turn();
      const inContent = `${prefix}${entry.name}`;
      if (entry.isSymbolicLink()) {
        uncached = true;
        links.push({ absPath: `${dir}${path.sep}${entry.name}`, inContent, chain: here });
        continue;
      }
      if (entry.isDirectory()) {
        if (!isIgnoredFolder(entry.name)) {
          mine?.folders.push(entry.name);
          subfolders.push(
            walk(`${dir}${path.sep}${entry.name}`, `${inContent}/`, `${real}${path.sep}${entry.name}`, here),
          );
        }
        continue;
      }
      if (!entry.isFile()) {
        // A named pipe, a socket or a device is never read (a pipe would block the read for
        // good), but a document's name is refused aloud, so it is not taken as deleted.
        if (resource && isDocumentName(entry.name)) {
          uncached = true;
          specials.push({ absPath: `${dir}${path.sep}${entry.name}`, inContent, chain: here });
        }
        continue;
      }
      if (isMediaName(entry.name)) (mine?.media ?? mediaFiles).push(inProject(inContent));
      if (!resource || !isDocumentName(entry.name)) continue;
      if (isIndexFile(entry.name, inContent, languages)) {
        indexes = true;
        if (mine) mine.indexes = true;
      }
      // Joined into a flat string of its own (see ownCopy): a document keeps its file until it is
      // planned, the hash cache until it is saved; its parts would be twice its size.
      const file = [folderInProject, entry.name].join('');
      if (dir !== real) linked.set(file, { readPath: `${real}${path.sep}${entry.name}` });
      (mine?.documents ?? documents).push(file);
    }
    if (mine) {
      // Sorted as the whole listing is (below), which then finds runs already in order.
      mine.documents.sort();
      mine.media.sort(compare);
      for (const file of mine.documents) documents.push(file);
      for (const file of mine.media) mediaFiles.push(file);
    }
    cache?.note(prefix, stamp, uncached ? undefined : mine);
    await Promise.all(subfolders);
  };
  await walk(contentDir, '', root, []);

  /** Real path of each folder followed through a link -> the link's path in content/. */
  const followed = new Map<string, string>();
  const refuse = (link: PendingLink, severity: FileProblem['severity'], message: string) => {
    const file = inProject(link.inContent);
    const problem: FileProblem = { file, line: 1, column: 1, message, severity };
    const resource = isDocumentName(path.basename(link.absPath)) ? resourceOfPath(link.inContent) : undefined;
    if (resource && severity === 'error') {
      const stem = documentStem(link.inContent);
      const claimedKeys = slugProblem(stem) === undefined ? [`${resource}/${stem}`] : [];
      indexes ||= isIndexFile(path.basename(link.absPath), link.inContent, languages);
      linked.set(file, { refused: { problems: [problem], claimedKeys } });
      documents.push(file);
    } else problems.push({ inContent: link.inContent, problem });
  };
  while (links.length > 0) {
    links.sort((a, b) => compare(b.inContent, a.inContent));
    const link = links.pop()!;
    const name = path.basename(link.absPath);
    const isDocument = isDocumentName(name) && resourceOfPath(link.inContent) !== undefined;
    let real: string;
    try {
      real = await realpath(link.absPath);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      if (isDocument)
        refuse(link, 'error', `is a symbolic link that leads nowhere (${code}); fix the link or remove it`);
      continue;
    }
    const info = await stat(real).catch(() => undefined);
    if (!isInside(root, real)) {
      // An image link is judged where it is used (resolve-media): an unused one harms nothing.
      if (isDocument || info?.isDirectory()) {
        const what = info?.isDirectory() ? 'folder' : 'file';
        refuse(
          link,
          'error',
          `is a symbolic link to ${real}, a ${what} outside content/: cms-sync never reads anything outside ` +
            `content/; ` +
            `move the ${what} into content/ or replace the link with a copy`,
        );
      }
      continue;
    }
    if (info?.isDirectory()) {
      if (isIgnoredFolder(name)) continue;
      if (link.chain.some((folder) => isInside(real, folder))) {
        refuse(
          link,
          'warning',
          'is a symbolic link to a folder that contains it (a loop), so it is not followed; remove the link',
        );
        continue;
      }
      const already = followed.get(real);
      if (already !== undefined) {
        refuse(
          link,
          'warning',
          `is a symbolic link to the folder already read through ${inProject(already)}, so it is not followed again`,
        );
        continue;
      }
      followed.set(real, link.inContent);
      await walk(link.absPath, `${link.inContent}/`, real, link.chain);
      continue;
    }
    if (!info?.isFile()) {
      if (isDocument && info) refuse(link, 'error', notRegular(info));
      continue;
    }
    if (isMediaName(name)) mediaFiles.push(inProject(link.inContent));
    const resource = isDocument ? resourceOfPath(link.inContent) : undefined;
    if (resource) {
      indexes ||= isIndexFile(name, link.inContent, languages);
      const file = inProject(link.inContent);
      linked.set(file, { readPath: real });
      documents.push(file);
    }
  }
  // Found by the folders' walks, those through links too.
  for (const special of specials) refuse(special, 'error', notRegular(lstatOrNot(special.absPath)));
  // By name: in the order of their paths in content/, which all names start alike.
  // With no compare function, strings sort in code-unit order (as byCodeUnit), and faster.
  documents.sort();
  return { documents, linked, indexes, mediaFiles: mediaFiles.sort(compare), problems };
}

/**
 * Whether the document `name` at `inContent` is an index file (see pathIdentity), told from the
 * start of its name for most: an index file's stem is `index` or `_index` before any language, and
 * the NFC form of a name starts so only if the name does (NFC turns no other character into these).
 */
function isIndexFile(name: string, inContent: string, languages: Languages): boolean {
  return (
    (name.startsWith('index') || name.startsWith('_index')) &&
    pathIdentity(inContent, languages).index !== undefined
  );
}

/**
 * The listing of exactly `files`, as listContent would list them, or undefined when one of them is
 * not a plain file reached without a link (the walk judges links), or sits in a folder the walk
 * passes over.
 */
async function listFiles(
  contentDir: string,
  projectDir: string,
  languages: Languages,
  files: readonly string[],
): Promise<Listing | undefined> {
  const prefix = contentPrefix(projectDir, contentDir);
  const root = await realpath(contentDir).catch(() => undefined);
  if (root === undefined) return undefined;
  const documents: string[] = [];
  const linked = new Map<string, LinkedDocument>();
  let indexes = false;
  for (const inContent of [...new Set(files)].sort(compare)) {
    const parts = inContent.split('/');
    const name = parts.at(-1)!;
    if (parts.some((part) => part === '' || part === '.' || part === '..')) return undefined;
    if (parts.slice(0, -1).some(isIgnoredFolder) || !isDocumentName(name)) return undefined;
    if (!resourceOfPath(inContent)) return undefined;
    const absPath = `${contentDir}${path.sep}${parts.join(path.sep)}`;
    const [info, real] = await Promise.all([
      lstat(absPath).catch(() => undefined),
      realpath(absPath).catch(() => undefined),
    ]);
    if (!info?.isFile() || real !== `${root}${path.sep}${parts.join(path.sep)}`) return undefined;
    indexes ||= isIndexFile(name, inContent, languages);
    const file = ownCopy(prefix + inContent);
    // As the walk does when content/ itself is reached through a link.
    if (root !== contentDir) linked.set(file, { readPath: real });
    documents.push(file);
  }
  return { documents, linked, indexes, mediaFiles: [], problems: [] };
}

/** The folder's lstat, or undefined: a folder that cannot be statted is read, and fails there as it must. */
function notRegular(info: Stats | undefined): string {
  return (
    `is ${info ? kindOf(info) : 'a special file'}, not a regular file: cms-sync reads only regular files; ` +
    'replace it with one or remove it'
  );
}

function lstatOrNot(dir: string): Stats | undefined {
  try {
    return lstatSync(dir);
  } catch {
    return undefined;
  }
}

/**
 * The entries of a folder, read a batch at a time: each is garbage once looked at. An array of
 * them all, as `readdir` gives, keeps every entry of a large folder alive until the last is looked
 * at, so the collector copies each of them twice (young, then old generation).
 */
function* entriesOf(dir: string, isRoot: boolean): Generator<Dirent> {
  let folder: Dir;
  try {
    folder = opendirSync(dir, { bufferSize: 1024 });
  } catch (error) {
    throw listingError(dir, isRoot, error);
  }
  try {
    for (let entry = folder.readSync(); entry; entry = folder.readSync()) yield entry;
  } catch (error) {
    throw listingError(dir, false, error);
  } finally {
    folder.closeSync();
  }
}

function listingError(dir: string, isRoot: boolean, error: unknown): SyncError {
  const code = (error as NodeJS.ErrnoException).code;
  if (isRoot && code === 'ENOENT') {
    // An absent content/ must not read as "every file was deleted".
    return new SyncError(
      'CMS_SYNC_INPUT',
      `No content folder at ${dir}. Create content/ with articles/, pages/, ... or run in the project directory ` +
        `(--cwd).`,
      { cause: error },
    );
  }
  return new SyncError(
    'CMS_SYNC_INPUT',
    `The folder ${dir} could not be listed (${code ?? 'unknown error'}).`,
    {
      cause: error,
    },
  );
}
