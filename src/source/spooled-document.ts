import type { BodySpool } from '../render/body-spool.js';
import type { RecordResource } from '../resources.js';
import type { SourceDocument } from './read-document.js';
import { ownCopy } from '../own-copy.js';

/** What of a scanned document waits in the spool until it is built. */
interface Kept {
  frontMatter: Record<string, unknown>;
  frontMatterLines: Record<string, number>;
  body: string;
  /** Read only when the document is built, so not held in memory for every file scanned. */
  absPath: string;
  hash: string;
}

/**
 * A scanned document whose front matter and body wait in the run's spool: the scan reads every
 * file before the first is built, so memory holds per file only what the scan and the order of
 * building need of it (its key and file) and where the rest is. The rest is read back on use
 * and must not be changed. Its slug is the end of its key, made when read: a string per document
 * fewer to hold.
 */
class SpooledDocument implements SourceDocument {
  declare lang?: string;

  constructor(
    readonly key: string,
    readonly resource: RecordResource,
    readonly file: string,
    readonly bodyLine: number,
    // Where the rest lies, in fields of its own: an object per document to say so would add up.
    private readonly spool: BodySpool,
    private readonly at: number,
    private readonly length: number,
  ) {}

  get slug(): string {
    return slugOfKey(this.key, this.resource);
  }

  get frontMatter(): Record<string, unknown> {
    return this.#kept().frontMatter;
  }

  get frontMatterLines(): Record<string, number> {
    return this.#kept().frontMatterLines;
  }

  get body(): string {
    return this.#kept().body;
  }

  get absPath(): string {
    return this.#kept().absPath;
  }

  get hash(): string {
    return this.#kept().hash;
  }

  #kept(): Kept {
    return this.spool.valueAt(this.at, this.length) as Kept;
  }
}

/**
 * The document with its front matter and body moved to the spool (one value per document). A
 * document whose key is not `resource/slug` stays as it is.
 */
export function spoolDocument(doc: SourceDocument, spool: BodySpool): SourceDocument {
  if (!slugEndsKey(doc)) return doc;
  const { frontMatter, frontMatterLines, body, absPath, hash } = doc;
  const kept: Kept = { frontMatter, frontMatterLines, body, absPath, hash };
  const { at, length } = spool.place(kept);
  // One flat string: a key joined from its resource and slug is held as a node over both.
  const key = ownCopy(doc.key);
  const spooled = new SpooledDocument(key, doc.resource, doc.file, doc.bodyLine, spool, at, length);
  if (doc.lang !== undefined) spooled.lang = doc.lang;
  return spooled;
}

/** Whether the key is `resource/slug`, so that the slug can be read back from it (slugOfKey). */
export function slugEndsKey(doc: { key: string; resource: string; slug: string }): boolean {
  const { key, resource, slug } = doc;
  return (
    key.length === resource.length + 1 + slug.length && key.startsWith(`${resource}/`) && key.endsWith(slug)
  );
}

export function slugOfKey(key: string, resource: string): string {
  return key.slice(resource.length + 1);
}
