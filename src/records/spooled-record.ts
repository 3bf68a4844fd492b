import type { BodySpool, SpooledText, SpoolPlace } from '../render/body-spool.js';
import { refsFromState } from '../resources/derived.js';
import type { RecordResource } from '../resources.js';
import type { RecordInput } from '../state/state-file.js';
import type { DesiredRecord, RecordRef } from './build-record.js';
import type { FormerSlugs } from './front-matter.js';
import type { RecordHtml } from './packed-html.js';

/** What of a built record waits in the spool: all but its key, its file and its body (held apart). */
interface Kept {
  values: Record<string, unknown>;
  html?: Omit<RecordHtml, 'template'>;
  input?: RecordInput;
}

/** A record as read back: its parts, made once per read (see BodySpool.keep). */
interface Parts extends Kept {
  view?: { html?: RecordHtml; refs?: RecordRef[] };
}

/**
 * A built record whose fields wait in the run's spool: memory holds its key, its file and where
 * the rest is, so a cold apply holds an index of the folder rather than the folder. Its fields
 * are read back on use; they must not be changed (a copy, as `withoutImages` makes, may be).
 * Where its parts and its HTML lie are fields of its own, not objects: one record per document.
 */
class SpooledRecord implements DesiredRecord {
  readonly #spool: BodySpool;
  readonly #at: number;
  readonly #length: number;
  /** Where its HTML is in the spool (-1: it has no body). */
  readonly #htmlAt: number;
  readonly #htmlLength: number;
  /** Kept in memory: few files have it, and the plan reads it for every record gone or new. */
  formerSlugs?: FormerSlugs;
  siteId?: { value: string; line: number };

  constructor(
    readonly key: string,
    readonly resource: RecordResource,
    readonly slug: string,
    readonly file: string,
    spool: BodySpool,
    parts: SpoolPlace,
    html: SpoolPlace | undefined,
  ) {
    this.#spool = spool;
    this.#at = parts.at;
    this.#length = parts.length;
    this.#htmlAt = html?.at ?? -1;
    this.#htmlLength = html?.length ?? 0;
  }

  get values(): Record<string, unknown> {
    return this.#parts().values;
  }

  get input(): RecordInput | undefined {
    return this.#parts().input;
  }

  get refs(): RecordRef[] | undefined {
    const parts = this.#view();
    if (!('refs' in parts.view!) && parts.input?.refs)
      parts.view!.refs = refsFromState(this.resource, parts.input.refs);
    return parts.view!.refs;
  }

  get html(): RecordHtml | undefined {
    const parts = this.#view();
    if (!('html' in parts.view!) && parts.html) {
      const [spool, at, length] = [this.#spool, this.#htmlAt, this.#htmlLength];
      parts.view!.html = {
        ...parts.html,
        get template() {
          return spool.textAt(at, length);
        },
      };
    }
    return parts.view!.html;
  }

  #parts(): Parts {
    return this.#spool.valueAt(this.#at, this.#length) as Parts;
  }

  #view(): Parts {
    const parts = this.#parts();
    parts.view ??= {};
    return parts;
  }
}

/**
 * The record with its fields moved to the spool. `template` is where its HTML already is (the
 * spool's own, see buildRecord's holdHtml), when it has a body.
 */
export function spoolRecord(record: DesiredRecord, spool: BodySpool, template?: SpooledText): DesiredRecord {
  const html = template && spool.placeOf(template);
  if (record.unchangedSince || (record.html && !html)) return record;
  const kept: Kept = { values: record.values };
  if (record.html) {
    const { field, media, text, digest } = record.html;
    kept.html = { field, media, ...(text ? { text } : {}), ...(digest !== undefined ? { digest } : {}) };
  }
  if (record.input) kept.input = record.input;
  // Refs come back from input.refs, as for a record taken from state (see refsFromState).
  if (record.refs && !record.input?.refs) return record;
  const spooled = new SpooledRecord(
    record.key,
    record.resource,
    record.slug,
    record.file,
    spool,
    spool.place(kept),
    record.html ? html : undefined,
  );
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
