import type { BodySpool } from '../render/body-spool.js';
import type { RecordResource } from '../resources.js';
import type { SourceDocument } from './read-document.js';

/** What of a scanned document waits in the spool until it is built. */
interface Kept {
  frontMatter: Record<string, unknown>;
  frontMatterLines: Record<string, number>;
  body: string;
}

/**
 * A scanned document whose front matter and body wait in the run's spool: the scan reads every
 * file before the first is built, so memory holds per file only what the plan needs of it (its
 * key, file and hash) and where the rest is. The rest is read back on use and must not be changed.
 */
class SpooledDocument implements SourceDocument {
  lang?: string;

  constructor(
    readonly key: string,
    readonly resource: RecordResource,
    readonly slug: string,
    readonly file: string,
    readonly absPath: string,
    readonly hash: string,
    readonly bodyLine: number,
    // Where the rest lies, in fields of its own: an object per document to say so would add up.
    private readonly spool: BodySpool,
    private readonly at: number,
    private readonly length: number,
  ) {}

  get frontMatter(): Record<string, unknown> {
    return this.#kept().frontMatter;
  }

  get frontMatterLines(): Record<string, number> {
    return this.#kept().frontMatterLines;
  }

  get body(): string {
    return this.#kept().body;
  }

  #kept(): Kept {
    return this.spool.valueAt(this.at, this.length) as Kept;
  }
}

/** The document with its front matter and body moved to the spool (one value per document). */
export function spoolDocument(doc: SourceDocument, spool: BodySpool): SourceDocument {
  const { frontMatter, frontMatterLines, body } = doc;
  const kept: Kept = { frontMatter, frontMatterLines, body };
  const { at, length } = spool.place(kept);
  const spooled = new SpooledDocument(
    doc.key,
    doc.resource,
    doc.slug,
    doc.file,
    doc.absPath,
    doc.hash,
    doc.bodyLine,
    spool,
    at,
    length,
  );
  if (doc.lang !== undefined) spooled.lang = doc.lang;
  return spooled;
}
