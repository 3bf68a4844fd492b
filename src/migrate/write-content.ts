import { existsSync, lstatSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import matter from 'gray-matter';
import type { MigrationReport } from './report.js';
import type { RecordResource } from '../resources.js';
import { FOLDER_TO_RESOURCE } from '../resources/derived.js';
import { RESOURCE_TABLE } from '../resources/table.js';
import { fileNameProblem } from './slug.js';
import { isInside } from '../source/content-paths.js';
import { createFile, replaceFile } from '../replace-file.js';
import { STARTER_CONTENT } from '../init/starter-content.js';

/** A resource's folder under content/ (its entry in the resource table). */
export type ContentFolder = string;

/** Where a resource's files go: content/<folder>/. */
export function folderOf(resource: RecordResource): ContentFolder {
  return RESOURCE_TABLE[resource].folder;
}

/**
 * A Markdown file with YAML front matter. YAML is written by js-yaml (through gray-matter),
 * never by hand: it quotes `a: b`, `#`, `yes`, `'123'` and dates-as-text correctly. Keys keep
 * the order given; undefined values are left out; lines are never folded.
 */
export function serializeDocument(frontMatter: Record<string, unknown>, body: string): string {
  const data = Object.fromEntries(Object.entries(frontMatter).filter(([, v]) => v !== undefined));
  const text = body.trim() === '' ? '' : `\n${body.replace(/\s+$/, '')}\n`;
  // gray-matter passes the options on to js-yaml's dump; its typings do not list them.
  const document = matter.stringify(text, data, { lineWidth: -1 } as matter.GrayMatterOption<string, never>);
  // With no body, gray-matter still appends a newline after the closing `---`.
  return text === '' ? document.replace(/\n+$/, '\n') : document;
}

/** Whether `abs` is the starter file `init` writes at that place, byte for byte. */
function isUntouchedSample(folder: ContentFolder, slug: string, abs: string): boolean {
  const starter = STARTER_CONTENT[`content/${folder}/${slug}.md`];
  if (starter === undefined) return false;
  try {
    return readFileSync(abs, 'utf8') === starter;
  } catch {
    return false;
  }
}

/**
 * Why writing `abs` would write outside content/, or undefined when it would not: a folder on
 * the way that is a symbolic link leading out of content/ (`content/articles -> ~/.config`), or
 * a file that is itself a link (`welcome.md -> ~/.bashrc`: even inside content/, what it leads to
 * is not the file to write). A repository can hold either; an import or a pull never writes
 * through them.
 */
export function leavesContent(
  contentDir: string,
  abs: string,
  /** Each folder's verdict, kept by the caller: an import writes thousands of files to a few folders. */
  folders: Map<string, string | undefined> = new Map(),
): string | undefined {
  if (lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink()) return 'is a symbolic link';
  const dir = path.dirname(abs);
  if (!folders.has(dir)) folders.set(dir, folderLeavesContent(contentDir, dir));
  return folders.get(dir);
}

function folderLeavesContent(contentDir: string, dir: string): string | undefined {
  // A content/ to be made is made of plain folders.
  if (!existsSync(contentDir)) return undefined;
  let existing = dir;
  while (!existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  try {
    if (isInside(realpathSync(contentDir), realpathSync(existing))) return undefined;
  } catch {
    // Gone meanwhile: judged as leading out.
  }
  return `is in ${path.basename(existing)}/, a symbolic link to a folder outside content/`;
}

/**
 * Writes the file whole, never through a link: a new file is created exclusively (a link put at
 * its name meanwhile fails the write), and a file written over (`force`) is replaced by a rename.
 */
export async function writeInContent(abs: string, text: string, force: boolean): Promise<void> {
  if (force) await replaceFile(abs, text);
  else await createFile(abs, text);
}

/**
 * Writes content/<folder>/<slug>.md files. Existing files are left alone unless `force` (each
 * one is reported); two items with the same slug in one folder: the first wins, the second
 * is reported — picking silently would lose content. A relation key (`author`, `parent`, ...)
 * that names a record no file is written for, and none exists, is reported at `flush()`.
 */
export class ContentWriter {
  /** Folder -> the slugs written (or kept) there: one entry per record of a large import, so no joined keys. */
  readonly #claimed = new Map<ContentFolder, Set<string>>();
  /** `<folder>/<slug>` of each record named through a relation -> who names it, and by which key. */
  readonly #named = new Map<
    string,
    { what: string; key: string; target: RecordResource; folder: ContentFolder; slug: string }
  >();
  readonly #folders = new Set<string>();
  /** Each folder written to: why it leads out of content/, or undefined (see leavesContent). */
  readonly #judged = new Map<string, string | undefined>();
  // Files are written while the next items convert; a bounded number at once keeps memory flat.
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly options: {
      projectDir: string;
      contentDir: string;
      force: boolean;
      report: MigrationReport;
      exists: (file: string) => boolean;
    },
  ) {}

  /**
   * Returns the file (relative to the project) that is being written, or undefined when it will
   * not be; `flush()` waits until every file is on disk.
   */
  async write(
    folder: ContentFolder,
    slug: string,
    frontMatter: Record<string, unknown>,
    body: string,
    what: string,
  ): Promise<string | undefined> {
    const { report } = this.options;
    const invalid = fileNameProblem(slug);
    if (invalid) {
      report.failures.push(`${what}: its slug \`${slug}\` ${invalid}`);
      return undefined;
    }
    const claimed = this.#claimed.get(folder) ?? new Set<string>();
    this.#claimed.set(folder, claimed);
    if (claimed.has(slug)) {
      report.failures.push(
        `${what}: another item already has the slug \`${slug}\` in ${folder}/; not written`,
      );
      return undefined;
    }
    claimed.add(slug);
    this.#noteRelations(folder, frontMatter, what);
    const abs = path.join(this.options.contentDir, folder, `${slug}.md`);
    const rel = path.relative(this.options.projectDir, abs).split(path.sep).join('/');
    // `init`'s sample (`pages/about.md`, `articles/hello-world.md`), as init wrote it, is no one's
    // work: the site's own page of that name takes its place.
    const sample = !this.options.force && this.options.exists(abs) && isUntouchedSample(folder, slug, abs);
    if (!this.options.force && this.options.exists(abs) && !sample) {
      report.existing.push(rel);
      return undefined;
    }
    if (sample)
      report.warnings.push(`${rel}: the sample \`cms-sync init\` wrote, unchanged, is replaced by ${what}`);
    const dir = path.dirname(abs);
    const refused = leavesContent(this.options.contentDir, abs, this.#judged);
    if (refused) {
      report.failures.push(`${what}: ${rel} ${refused}; not written`);
      return undefined;
    }
    if (!this.#folders.has(dir)) {
      await mkdir(dir, { recursive: true });
      this.#folders.add(dir);
    }
    const job: Promise<void> = writeInContent(
      abs,
      serializeDocument(frontMatter, body),
      this.options.force || sample,
    )
      .then(
        () => report.wrote(folder),
        (error: NodeJS.ErrnoException) =>
          void report.failures.push(`${what}: ${rel} could not be written (${error.code ?? error.message})`),
      )
      .finally(() => this.#pending.delete(job));
    this.#pending.add(job);
    if (this.#pending.size >= 32) await Promise.race(this.#pending);
    return rel;
  }

  async flush(): Promise<void> {
    await Promise.all(this.#pending);
    for (const [file, { what, key, target, folder, slug }] of this.#named) {
      if (this.#claimed.get(folder)?.has(slug.normalize('NFC'))) continue;
      if (this.options.exists(path.join(this.options.contentDir, `${file}.md`))) continue;
      this.options.report.warnings.push(
        `${what}: its \`${key}\` names ${target} \`${slug}\`, which the export does not have: add ` +
          `content/${file}.md (plan reports it as an error until then)`,
      );
    }
    this.#named.clear();
  }

  #noteRelations(folder: ContentFolder, frontMatter: Record<string, unknown>, what: string): void {
    const resource = FOLDER_TO_RESOURCE[folder];
    if (!resource) return;
    for (const relation of RESOURCE_TABLE[resource].relations) {
      const value = frontMatter[relation.key];
      for (const slug of Array.isArray(value) ? value : [value]) {
        if (typeof slug !== 'string' || slug === '') continue;
        const target = folderOf(relation.target);
        const file = `${target}/${slug.normalize('NFC')}`;
        if (!this.#named.has(file))
          this.#named.set(file, { what, key: relation.key, target: relation.target, folder: target, slug });
      }
    }
  }
}
