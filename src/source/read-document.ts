import { statSync, type Stats } from 'node:fs';
import type { FileProblem } from '../errors.js';
import type { RecordResource } from '../resources.js';
import { PackedText } from '../packed-text.js';
import { ownCopy } from '../own-copy.js';
import { sha256 } from '../sha256.js';
import { documentStem, slugProblem, toPosixRelative, unsafeCharacter } from './content-paths.js';
import { decodeText } from './decode-text.js';
import type { HashCache } from './hash-cache.js';
import { parseFrontMatter } from './front-matter.js';
import { DEFAULT_LANGUAGES, isLanguageTag, translatedSlug, type Languages } from './languages.js';
import { DEFAULT_LIMITS, formatBytes, raiseHint, type ContentLimits } from './limits.js';
import { readRegularSync, readScratch, unreadableReason } from './open-regular.js';

export interface SourceDocument {
  /** `${resource}/${slug}` */
  key: string;
  resource: RecordResource;
  /**
   * From front matter `slug` (a string), else the file name stem (a page bundle's folder name);
   * NFC-normalized; `-<lang>` added for a translation out of the default language.
   */
  slug: string;
  /** The language from the file name or front matter `lang`, lower case; unset when neither names one. */
  lang?: string;
  /** Path relative to projectDir, forward slashes, e.g. "content/articles/hello.md". */
  file: string;
  absPath: string;
  frontMatter: Record<string, unknown>;
  /** 1-based line of each top-level front matter key, for positioned messages. */
  frontMatterLines: Record<string, number>;
  /**
   * The Markdown body (BOM stripped, CRLF normalized to LF). Held deflated and unpacked on each
   * read (see PackedText): a scan holds every document's body until it is rendered.
   */
  readonly body: string;
  /** 1-based line in the file where the body starts. */
  bodyLine: number;
  /** sha256 hex of the raw file bytes. */
  hash: string;
}

/**
 * A file the caller already knows unchanged (same path, same bytes as at the last write): hashed,
 * or only stat'd when the hash cache vouches for its bytes, but not decoded or parsed, since
 * state has everything built from it.
 */
export interface UnparsedDocument {
  unparsed: true;
  key: string;
  resource: RecordResource;
  slug: string;
  file: string;
  absPath: string;
  /** The real path its bytes were read from, when `absPath` is a symbolic link (see ReadDocumentOptions). */
  readPath?: string | undefined;
  /** What its path says (see ReadDocumentOptions), to read it after all with the same key. */
  stem?: string | undefined;
  lang?: string | undefined;
  hash: string;
}

/** Says which file is known unchanged: its key and slug when `hash` is that of the last write. */
export type KnownFiles = (file: string, hash: string) => { key: string; slug: string } | undefined;

/** A file that could not become a document. Its records must be left alone, never deleted. */
export interface DocumentFailure {
  problems: FileProblem[];
  /** Keys the file claims as far as they can be known: its file-name key, and a readable `slug:`. */
  claimedKeys: string[];
}

export interface ReadDocumentOptions {
  projectDir: string;
  resource: RecordResource;
  known?: KnownFiles | undefined;
  /**
   * Where the sha256 of files whose stat has not changed is kept: such a file is not even read
   * when `known` knows it.
   */
  hashCache?: HashCache | undefined;
  /** `absPath` relative to projectDir with forward slashes, when the caller has it already. */
  file?: string;
  /** Per-file limits (config `limits`). */
  limits?: ContentLimits | undefined;
  /**
   * Where the bytes are read from when `absPath` is a symbolic link: its real path, which the
   * caller has checked is inside content/. Images are still resolved from `absPath`'s folder.
   */
  readPath?: string | undefined;
  /** The real path of content/: a file opened elsewhere (a folder swapped for a link) is not read. */
  within?: string | undefined;
  /** The slug when front matter sets none (see pathIdentity); default: the file name without extension. */
  stem?: string | undefined;
  /** The language the file name gives (`post.es.md`), lower case. */
  lang?: string | undefined;
  /** Translations (config `languages`). */
  languages?: Languages | undefined;
  /** Where the body is kept until it is read (e.g. a run's spool on disk); default: in memory, deflated. */
  holdBody?: ((text: string) => { toString(): string }) | undefined;
}

/** The bytes of each file read, until the next: readDocument is done with them when it returns. */
const scratch = readScratch();

/**
 * Reads one document. Synchronously on purpose: for the many small files of a content folder,
 * readFileSync is much faster than fs/promises (no file-handle and thread-pool round trips per
 * file), and nothing else needs the event loop meanwhile.
 */
export function readDocument(
  absPath: string,
  options: ReadDocumentOptions & { known?: undefined },
): SourceDocument | DocumentFailure;
export function readDocument(
  absPath: string,
  options: ReadDocumentOptions,
): SourceDocument | UnparsedDocument | DocumentFailure;
export function readDocument(
  absPath: string,
  options: ReadDocumentOptions,
): SourceDocument | UnparsedDocument | DocumentFailure {
  const file = options.file ?? toPosixRelative(options.projectDir, absPath);
  const { known, hashCache } = options;
  // A file whose bytes state vouches for: its key and slug as they were, nothing parsed.
  const unparsed = (unchanged: { key: string; slug: string }, hash: string) => ({
    unparsed: true as const,
    key: unchanged.key,
    resource: options.resource,
    slug: unchanged.slug,
    file,
    absPath,
    readPath: options.readPath,
    stem: options.stem,
    lang: options.lang,
    hash,
  });
  let stashed: Stats | undefined;
  const limits = options.limits ?? DEFAULT_LIMITS;
  const source = options.readPath ?? absPath;
  let bytes: Buffer;
  try {
    // Stat before reading, never after: the recorded stat must be no newer than the bytes hashed.
    // The size is judged here too, so a huge file is refused without being read.
    const stat = statSync(source);
    if (stat.size > limits.maxFileBytes)
      return tooBig(pathOf(file, options), options.resource, stat.size, limits);
    const cached = hashCache?.get(file, stat);
    const unchanged = cached && known?.(file, cached);
    if (unchanged) return unparsed(unchanged, cached);
    // What is read is what was opened: a regular file, not a link or a pipe put there since.
    const read = readRegularSync(source, limits.maxFileBytes, options.within, scratch);
    // It grew between the stat and the read.
    if (!read.bytes || read.bytes.length > limits.maxFileBytes)
      return tooBig(pathOf(file, options), options.resource, read.bytes?.length ?? read.stat.size, limits);
    bytes = read.bytes;
    if (hashCache) stashed = read.stat;
  } catch (error) {
    return failure(pathOf(file, options), options.resource, [], 1, 1, unreadableMessage(file, error));
  }
  const hash = sha256(bytes);
  if (stashed) hashCache!.set(file, stashed, hash);
  const unchanged = known?.(file, hash);
  if (unchanged) return unparsed(unchanged, hash);
  const { stem, lang, languages, holdBody } = options;
  return parseDocument(
    bytes,
    { file, absPath, resource: options.resource, limits, stem, lang, languages, holdBody },
    hash,
  );
}

function tooBig(
  file: FailedPath,
  resource: RecordResource,
  size: number,
  limits: ContentLimits,
): DocumentFailure {
  const message =
    `file is ${formatBytes(size)}, over the limit of ${formatBytes(limits.maxFileBytes)} for a ` +
    `Markdown file; split it into several documents, or ${raiseHint('maxFileBytes')}`;
  return failure(file, resource, [], 1, 1, message);
}

/** The pure part of readDocument: bytes in, document or positioned problems out. */
export function parseDocument(
  bytes: Uint8Array,
  where: {
    file: string;
    absPath: string;
    resource: RecordResource;
    limits?: ContentLimits | undefined;
  } & Pick<ReadDocumentOptions, 'stem' | 'lang' | 'languages' | 'holdBody'>,
  hash = sha256(bytes),
): SourceDocument | DocumentFailure {
  const { absPath, resource } = where;
  const file = pathOf(where.file, where);
  const languages = where.languages ?? DEFAULT_LANGUAGES;
  const limits = where.limits ?? DEFAULT_LIMITS;
  const decoded = decodeText(bytes);
  if (!decoded.ok) return failure(file, resource, [], decoded.line, decoded.column, decoded.message);

  const parsed = parseFrontMatter(decoded.text, limits);
  if ('message' in parsed) {
    return failure(
      file,
      resource,
      parsed.slugHint ? [parsed.slugHint] : [],
      parsed.line,
      parsed.column,
      parsed.message,
    );
  }

  const declared = parsed.data['slug'];
  if (declared !== undefined && typeof declared !== 'string') {
    const got = declared === null ? 'nothing' : `a ${declared instanceof Date ? 'date' : typeof declared}`;
    const hint = typeof declared === 'number' ? [String(declared)] : [];
    return failure(
      file,
      resource,
      hint,
      parsed.lines['slug'] ?? 1,
      1,
      `\`slug\` must be a string, got ${got}; quote it: slug: "${String(declared)}"`,
    );
  }
  // A line break or a bidirectional control in a name changes what is shown wherever the file is
  // named (see unsafeCharacter): the file is refused, named safely.
  const unsafe = unsafeCharacter(file.file);
  if (unsafe) return failure(file, resource, [], 1, 1, `the file name contains ${unsafe}: rename the file`);
  const language = languageOf(parsed.data, file, languages);
  if ('message' in language) {
    const hints = typeof declared === 'string' ? [declared] : [];
    return failure(file, resource, hints, parsed.lines['lang'] ?? 1, 1, language.message);
  }
  const lang = language.lang;
  const base = ownCopy((declared ?? where.stem ?? documentStem(absPath)).normalize('NFC'));
  const slug = translatedSlug(base, lang, languages);
  const invalid = slugProblem(slug);
  if (invalid) {
    const origin = declared === undefined ? 'the file name' : '`slug`';
    return failure(
      file,
      resource,
      [],
      parsed.lines['slug'] ?? 1,
      1,
      `the slug from ${origin} ${invalid}; a slug needs at least one visible character, no "/" and no control ` +
        `characters, and cannot be "." or ".."`,
    );
  }

  const body = where.holdBody ? where.holdBody(parsed.body) : new PackedText(parsed.body);
  // `lang` is read here, into the key: it is not a field for the records stage to report as unsent.
  const { lang: _lang, ...frontMatter } = parsed.data;
  return {
    key: `${resource}/${slug}`,
    resource,
    slug,
    ...(lang === undefined ? {} : { lang }),
    file: file.file,
    absPath,
    frontMatter,
    frontMatterLines: parsed.lines,
    get body() {
      return body.toString();
    },
    bodyLine: parsed.bodyLine,
    hash,
  };
}

export function isDocumentFailure(
  result: SourceDocument | UnparsedDocument | DocumentFailure,
): result is DocumentFailure {
  return 'problems' in result;
}

/** A file that failed, and the slug and language its path gives, for the keys it claims. */
interface FailedPath {
  file: string;
  stem: string;
  lang: string | undefined;
  languages: Languages;
}

function pathOf(file: string, options: Pick<ReadDocumentOptions, 'stem' | 'lang' | 'languages'>): FailedPath {
  return {
    file,
    stem: options.stem ?? documentStem(file),
    lang: options.lang,
    languages: options.languages ?? DEFAULT_LANGUAGES,
  };
}

/**
 * The document's language: front matter `lang` (a language tag, one of `languages.codes` when
 * those are set, and the one the file name gives if it gives one), else the file name's.
 */
function languageOf(
  data: Record<string, unknown>,
  where: FailedPath,
  languages: Languages,
): { lang: string | undefined } | { message: string } {
  const declared = data['lang'];
  if (declared === undefined) return { lang: where.lang };
  if (typeof declared !== 'string' || !isLanguageTag(declared))
    return {
      message: `\`lang\` must be a language tag such as en, es or pt-br, got ${JSON.stringify(declared) ?? 'nothing'}`,
    };
  const lang = declared.toLowerCase();
  if (languages.codes && lang !== languages.default && !languages.codes.includes(lang))
    return {
      message:
        `\`lang: ${declared}\` is not one of the languages in sync.config.ts (languages.codes: ` +
        `${[languages.default, ...languages.codes].join(', ')}); add it there or fix the key`,
    };
  if (where.lang !== undefined && where.lang !== lang)
    return {
      message:
        `\`lang: ${declared}\` disagrees with the file name, which says \`${where.lang}\`; make them agree or ` +
        `remove \`lang\``,
    };
  return { lang };
}

/**
 * Why `file` could not be read, and what to do. A name that is not valid UTF-8 is listed with
 * U+FFFD in its place, under which no file exists: that, not a missing file, is the cause.
 */
function unreadableMessage(file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' && file.includes('\uFFFD'))
    return 'the file name is not valid UTF-8 (shown with \uFFFD where its bytes are): rename the file';
  const reason = unreadableReason(error);
  if (code === 'ENOTREG')
    return `${reason}: cms-sync reads only regular files; replace it with one or remove it`;
  if (code === 'ELOOP' || code === 'EOUTSIDE') return reason;
  return `file ${reason}; check that it exists and is readable`;
}

function failure(
  where: FailedPath,
  resource: RecordResource,
  slugHints: string[],
  line: number,
  column: number,
  message: string,
): DocumentFailure {
  const { file, lang, languages } = where;
  const keys = [where.stem, ...slugHints.map((s) => s.normalize('NFC'))]
    .map((slug) => translatedSlug(slug, lang, languages))
    .filter((slug) => slugProblem(slug) === undefined)
    .map((slug) => `${resource}/${slug}`);
  return {
    problems: [{ file, line, column, message, severity: 'error' }],
    claimedKeys: [...new Set(keys)],
  };
}
