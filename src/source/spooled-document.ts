import type { BodySpool } from '../render/body-spool.js';
import { RECORD_RESOURCES, type RecordResource } from '../resources.js';
import { RESOURCE_TABLE } from '../resources/table.js';
import type { SourceDocument } from './read-document.js';
import { ownCopy } from '../own-copy.js';
import { PackedList } from './packed-list.js';

/**
 * What of a scanned document waits in the spool until it is built. Its body is a text of the spool
 * (where it lies is kept here), not part of this value: a value goes through V8's serializer,
 * which hands back a new buffer outside the heap each time, and the bodies are most of the bytes.
 */
interface Kept {
  frontMatter: Record<string, unknown>;
  frontMatterLines: Record<string, number>;
  bodyAt: number;
  bodyLength: number;
  /** Read only when the document is built, so not held in memory for every file scanned. */
  absPath: string;
  hash: string;
  bodyLine: number;
}

/**
 * What every spooled document and record of a run shares, held once rather than by each of them:
 * the spool, and the prefix by which a file is named by default (`content/articles/<slug>.md`,
 * learnt from the first file so named). A document whose file is named so keeps no file of its
 * own: at 100,000 documents, that is a string fewer each for the whole run.
 */
export class Shelf {
  #prefix: string | undefined;

  constructor(readonly spool: BodySpool) {}

  /**
   * Gives `held` its file when it is not the one its key names by default (see fileOf): most
   * documents keep none.
   */
  keepFile(held: { ownFile?: string }, key: string, resource: RecordResource, file: string): void {
    const tail = defaultTail(key, resource);
    if (this.#prefix === undefined && file.endsWith(tail)) this.#prefix = file.slice(0, -tail.length);
    if (this.#prefix === undefined || file !== this.#prefix + tail) held.ownFile = file;
  }

  /**
   * The file of a document of this key that keeps none (see keepFile): a flat string, since a
   * caller may hold it for the rest of the run.
   */
  fileOf(key: string, resource: RecordResource): string {
    return ownCopy(this.#prefix! + defaultTail(key, resource));
  }
}

const shelves = new WeakMap<BodySpool, Shelf>();

/** The shelf of a spool's documents and records (one per spool). */
export function shelfOf(spool: BodySpool): Shelf {
  let shelf = shelves.get(spool);
  if (!shelf) shelves.set(spool, (shelf = new Shelf(spool)));
  return shelf;
}

function defaultTail(key: string, resource: RecordResource): string {
  return `${RESOURCE_TABLE[resource].folder}/${slugOfKey(key, resource)}.md`;
}

/**
 * A scanned document whose front matter and body wait in the run's spool: the scan reads every
 * file before the first is built, so memory holds per file only what the scan and the order of
 * building need of it (its key) and where the rest is. The rest is read back on use and must not
 * be changed. Its slug is the end of its key and its resource the start, made when read; its file
 * is kept only when it is not the default one (see Shelf): each a string or a field per document
 * fewer to hold.
 */
class SpooledDocument implements SourceDocument {
  declare lang?: string;
  /** Declared, not a field: a document whose file is named by default has no room for one. */
  declare ownFile?: string;

  constructor(
    readonly key: string,
    // Where the rest lies, in fields of its own (an object per document to say so would add up),
    // read by packedDocuments alone.
    readonly shelf: Shelf,
    readonly partsAt: number,
    readonly partsLength: number,
  ) {}

  get resource(): RecordResource {
    return resourceOfKey(this.key);
  }

  get slug(): string {
    return slugOfKey(this.key, this.resource);
  }

  get file(): string {
    return this.ownFile ?? this.shelf.fileOf(this.key, this.resource);
  }

  get frontMatter(): Record<string, unknown> {
    return this.kept().frontMatter;
  }

  get frontMatterLines(): Record<string, number> {
    return this.kept().frontMatterLines;
  }

  get body(): string {
    const { bodyAt, bodyLength } = this.kept();
    return this.shelf.spool.textAt(bodyAt, bodyLength);
  }

  get absPath(): string {
    return this.kept().absPath;
  }

  get hash(): string {
    return this.kept().hash;
  }

  get bodyLine(): number {
    return this.kept().bodyLine;
  }

  // A method, not a private (#) one: that would add a field to every document.
  private kept(): Kept {
    return this.shelf.spool.valueAt(this.partsAt, this.partsLength) as Kept;
  }
}

/** Documents waiting to be built, packed (see PackedList). */
export function packedDocuments(): PackedList<SourceDocument, Shelf> {
  return new PackedList<SourceDocument, Shelf>({
    placeOf: (doc) =>
      doc instanceof SpooledDocument
        ? { shelf: doc.shelf, at: doc.partsAt, length: doc.partsLength }
        : undefined,
    make: (key, { shelf, at, length }) => new SpooledDocument(key, shelf, at, length),
    extras: ['ownFile', 'lang'],
  });
}

/**
 * The document with its front matter and body moved to the spool (a text and a value per document). A
 * document whose key is not `resource/slug` stays as it is.
 */
export function spoolDocument(doc: SourceDocument, spool: BodySpool): SourceDocument {
  if (!slugEndsKey(doc)) return doc;
  const { frontMatter, frontMatterLines, body, absPath, hash, bodyLine } = doc;
  const { at: bodyAt, length: bodyLength } = spool.placeOf(spool.hold(body))!;
  const kept: Kept = { frontMatter, frontMatterLines, bodyAt, bodyLength, absPath, hash, bodyLine };
  const { at, length } = spool.place(kept);
  const shelf = shelfOf(spool);
  // One flat string: a key joined from its resource and slug is held as a node over both.
  const key = ownCopy(doc.key);
  const spooled = new SpooledDocument(key, shelf, at, length);
  shelf.keepFile(spooled, key, doc.resource, doc.file);
  if (doc.lang !== undefined) spooled.lang = doc.lang;
  return spooled;
}

/** The resource a key `resource/slug` starts with, as the one constant string of that name. */
export function resourceOfKey(key: string): RecordResource {
  for (const resource of RECORD_RESOURCES)
    if (key.charCodeAt(resource.length) === SLASH && key.startsWith(resource)) return resource;
  throw new Error(`${key} is not a key of a record`);
}

const SLASH = 0x2f;

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
