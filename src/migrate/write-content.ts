import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import matter from 'gray-matter';
import type { MigrationReport } from './report.js';
import { fileNameProblem } from './slug.js';

export type ContentFolder = 'articles' | 'pages' | 'categories' | 'breaking' | 'users';

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

/**
 * Writes content/<folder>/<slug>.md files. Existing files are left alone unless `force` (each
 * one is reported); two items with the same slug in one folder: the first wins, the second
 * is reported — picking silently would lose content.
 */
export class ContentWriter {
  readonly #claimed = new Set<string>();
  readonly #folders = new Set<string>();
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
    const key = `${folder}/${slug}`;
    if (this.#claimed.has(key)) {
      report.failures.push(
        `${what}: another item already has the slug \`${slug}\` in ${folder}/; not written`,
      );
      return undefined;
    }
    this.#claimed.add(key);
    const abs = path.join(this.options.contentDir, folder, `${slug}.md`);
    const rel = path.relative(this.options.projectDir, abs).split(path.sep).join('/');
    if (!this.options.force && this.options.exists(abs)) {
      report.existing.push(rel);
      return undefined;
    }
    const dir = path.dirname(abs);
    if (!this.#folders.has(dir)) {
      await mkdir(dir, { recursive: true });
      this.#folders.add(dir);
    }
    const job: Promise<void> = writeFile(abs, serializeDocument(frontMatter, body), 'utf8')
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
  }
}
