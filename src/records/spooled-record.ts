import type { BodySpool, SpooledText, SpoolPlace } from '../render/body-spool.js';
import { refsFromState } from '../resources/derived.js';
import type { RecordResource } from '../resources.js';
import { resourceOfKey, shelfOf, slugEndsKey, slugOfKey, type Shelf } from '../source/spooled-document.js';
import type { RecordInput } from '../state/state-file.js';
import { PackedList, type PackedKind } from '../source/packed-list.js';
import type { DesiredRecord, RecordRef } from './build-record.js';
import type { FormerSlugs } from './front-matter.js';
import type { RecordHtml } from './packed-html.js';

/**
 * What of a built record waits in the spool: all but its key, its file and its body, which is
 * held apart (`html.at` and `html.length` say where).
 */
interface Kept {
  values: Record<string, unknown>;
  html?: Omit<RecordHtml, 'template'> & SpoolPlace;
  input?: RecordInput;
}

/** A record as read back: its parts, made once per read (see BodySpool.keep). */
interface Parts extends Kept {
  view?: { html?: RecordHtml; refs?: RecordRef[] };
}

/**
 * A built record whose fields wait in the run's spool: memory holds its key and where the rest is
 * (its resource and slug are the start and end of its key, its file the default one unless it keeps
 * its own: see Shelf), so a cold apply holds an index of the folder rather than the folder. Its
 * fields are read back on use; they must not be changed (a copy, as `withoutImages` makes, may be).
 * Where its parts lie are fields of its own, not an object: one object per document. Where its
 * HTML lies is kept with its parts.
 */
class SpooledRecord implements DesiredRecord {
  readonly #shelf: Shelf;
  readonly #at: number;
  readonly #length: number;
  /**
   * Kept in memory: few files have it, and the plan reads it for every record gone or new.
   * Declared, not fields: a record without them has no room for them.
   */
  declare formerSlugs?: FormerSlugs;
  declare siteId?: { value: string; line: number };
  /** Declared, not a field: a record whose file is named by default has no room for one. */
  declare ownFile?: string;

  constructor(
    readonly key: string,
    shelf: Shelf,
    parts: SpoolPlace,
  ) {
    this.#shelf = shelf;
    this.#at = parts.at;
    this.#length = parts.length;
  }

  get resource(): RecordResource {
    return resourceOfKey(this.key);
  }

  /** The end of its key (see slugEndsKey): a string per record fewer to hold. */
  get slug(): string {
    return slugOfKey(this.key, this.resource);
  }

  get file(): string {
    return this.ownFile ?? this.#shelf.fileOf(this.key, this.resource);
  }

  get values(): Record<string, unknown> {
    return this.parts().values;
  }

  get input(): RecordInput | undefined {
    return this.parts().input;
  }

  get refs(): RecordRef[] | undefined {
    const parts = this.view();
    if (!('refs' in parts.view!) && parts.input?.refs)
      parts.view!.refs = refsFromState(this.resource, parts.input.refs);
    return parts.view!.refs;
  }

  get html(): RecordHtml | undefined {
    const parts = this.view();
    if (!('html' in parts.view!) && parts.html) {
      const { at, length, ...html } = parts.html;
      const { spool } = this.#shelf;
      parts.view!.html = {
        ...html,
        get template() {
          return spool.textAt(at, length);
        },
      };
    }
    return parts.view!.html;
  }

  /** How a record is packed while it waits (see PackedList): its key, where its parts lie, and the rest it holds. */
  static readonly packed: PackedKind<DesiredRecord, Shelf> = {
    placeOf: (record) =>
      record instanceof SpooledRecord
        ? { shelf: record.#shelf, at: record.#at, length: record.#length }
        : undefined,
    make: (key, { shelf, at, length }) => new SpooledRecord(key, shelf, { at, length }),
    extras: ['ownFile', 'formerSlugs', 'siteId'],
  };

  // Methods, not private (#) ones: those add a field to every record.
  private parts(): Parts {
    return this.#shelf.spool.valueAt(this.#at, this.#length) as Parts;
  }

  private view(): Parts {
    const parts = this.parts();
    parts.view ??= {};
    return parts;
  }
}

/** Built records, packed until the render is done (see PackedList). */
export function packedRecords(): PackedList<DesiredRecord, Shelf> {
  return new PackedList(SpooledRecord.packed);
}

/**
 * The record with its fields moved to the spool. `template` is where its HTML already is (the
 * spool's own, see buildRecord's holdHtml), when it has a body.
 */
export function spoolRecord(record: DesiredRecord, spool: BodySpool, template?: SpooledText): DesiredRecord {
  const place = template && spool.placeOf(template);
  if (record.unchangedSince || (record.html && !place) || !slugEndsKey(record)) return record;
  // Refs come back from input.refs, as for a record taken from state (see refsFromState).
  if (record.refs && !record.input?.refs) return record;
  const kept: Kept = { values: record.values };
  if (record.html) {
    const { field, media, text, digest } = record.html;
    const { at, length } = place!;
    kept.html = {
      field,
      media,
      ...(text ? { text } : {}),
      ...(digest !== undefined ? { digest } : {}),
      at,
      length,
    };
  }
  if (record.input) kept.input = record.input;
  const shelf = shelfOf(spool);
  const spooled = new SpooledRecord(record.key, shelf, spool.place(kept));
  shelf.keepFile(spooled, record.key, record.resource, record.file);
  if (record.formerSlugs) spooled.formerSlugs = record.formerSlugs;
  if (record.siteId) spooled.siteId = record.siteId;
  return spooled;
}

/** The record as a plain object, which a spread copies whole (a spooled record's fields are read on use). */
export function plainRecord(record: DesiredRecord): DesiredRecord {
  if (!(record instanceof SpooledRecord)) return record;
  const { key, resource, slug, file, values, refs, html, input, formerSlugs, siteId } = record;
  return {
    key,
    resource,
    slug,
    file,
    values,
    ...(refs ? { refs } : {}),
    ...(html ? { html } : {}),
    ...(input ? { input } : {}),
    ...(formerSlugs ? { formerSlugs } : {}),
    ...(siteId ? { siteId } : {}),
  };
}
