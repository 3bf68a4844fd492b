import path from 'node:path';
import { MEDIA_EXTENSIONS, type RecordResource } from '../resources.js';
import { FOLDER_TO_RESOURCE } from '../resources/derived.js';
import { DOCUMENT_EXTENSION, isIgnoredName } from './file-names.js';

export { isDocumentName, isIgnoredFolder, isIgnoredName } from './file-names.js';

const MEDIA_EXTENSION = new RegExp(`\\.(?:${MEDIA_EXTENSIONS.join('|')})$`, 'i');

export function isMediaName(name: string): boolean {
  return MEDIA_EXTENSION.test(name) && !isIgnoredName(name);
}

/** The file name without `.md`/`.markdown`, NFC: macOS file systems may hand back NFD names. */
export function documentStem(fileName: string): string {
  return path.basename(fileName).replace(DOCUMENT_EXTENSION, '').normalize('NFC');
}

/** `articles/2024/x.md` (relative to content/) -> `article`; files outside the resource folders -> undefined. */
export function resourceOfPath(pathInContent: string): RecordResource | undefined {
  const slash = pathInContent.indexOf('/');
  if (slash === -1) return undefined;
  const folder = pathInContent.slice(0, slash);
  // hasOwn: a folder named `constructor` must not find Object.prototype.constructor.
  return Object.hasOwn(FOLDER_TO_RESOURCE, folder) ? FOLDER_TO_RESOURCE[folder] : undefined;
}

/** Path relative to `from`, with forward slashes on every platform. */
export function toPosixRelative(from: string, absPath: string): string {
  return path.relative(from, absPath).split(path.sep).join('/');
}

/**
 * What a path relative to content/ is prefixed with to be relative to the project: `content/`
 * (forward slashes), or nothing when content/ is the project folder itself.
 */
export function contentPrefix(projectDir: string, contentDir: string): string {
  const inProject = toPosixRelative(projectDir, contentDir);
  return inProject === '' ? '' : `${inProject}/`;
}

/** Whether `absPath` is `root` or below it (both absolute and resolved; no file system access). */
export function isInside(root: string, absPath: string): boolean {
  const relative = path.relative(root, absPath);
  return (
    relative === '' ||
    (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative))
  );
}

/** Why a slug cannot be used, or undefined if it can. */
export function slugProblem(slug: string): string | undefined {
  if (slug.trim() === '') return 'is empty';
  if (slug.includes('/')) return 'contains "/"';
  if (slug === '.' || slug === '..') return `is "${slug}", which names a folder, not a record`;
  // A newline, NUL or escape in a slug ends up in URLs, file names and terminal output.
  const unsafe = unsafeCharacter(slug);
  return unsafe && `contains ${unsafe}`;
}

/**
 * The first character of a name that would change what is shown around it, in words
 * ("the control character U+000A"), or undefined: a control character (a line break starts a
 * line of its own in a plan or a CI log, where `::` begins a command to the runner), or a
 * bidirectional control (U+202E shows `gpj.md` for `md.jpg`: a review reads another name than
 * the one synced).
 */
export function unsafeCharacter(name: string): string | undefined {
  const found = /[\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u.exec(name);
  if (!found) return undefined;
  const code = `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  return /\p{Cc}/u.test(found[0]) ? `the control character ${code}` : `the bidirectional control ${code}`;
}
