import type { ResolvedResource } from '../config/schema.js';
import type { DesiredRecord } from '../records/build-record.js';
import { PLACEHOLDER_PREFIX } from '../render/bind-media.js';
import type { RecordResource, RemoteRecord } from '../resources.js';
import { apiName, refValue, sameValue, type IdBook } from './payload.js';

/**
 * One field a change writes (or that drifted), with both sides: what the CMS holds now and what
 * the file says. `cms` is absent when the CMS was not read (`--refresh=false`) and on a create.
 */
export interface FieldValue {
  /** cms-sync's name of the field (the front matter's). */
  field: string;
  /** The CMS's own name of the field (the wire mapping, `resources.<name>.fields`). */
  cmsField: string;
  cms?: unknown;
  ours: unknown;
  /** The field holds HTML (the rendered body), diffed line by line. */
  html?: true;
  /**
   * The readable diff (field-diff.ts), filled in by the engine once the plan is final: laying HTML
   * out and diffing it loads an HTML parser and a diff library, which a run without --diff never needs.
   */
  diff?: string[];
}

const PLACEHOLDER = new RegExp(`(<dynamic-block data-id=")${PLACEHOLDER_PREFIX}(\\d+)(")`, 'g');

/**
 * Both sides of each named field, keyed by the CMS's field name. Our side is what the write would
 * send: ids the CMS has given out are filled in, and an image not uploaded yet shows as
 * `new image <file>`, a category not created yet as `category/<slug>`. Fields whose two sides
 * are the same (allowing for the CMS's normalising) are left out.
 */
export function fieldValues(
  record: DesiredRecord,
  held: RemoteRecord | undefined,
  fields: readonly string[],
  book: IdBook,
  resource: ResolvedResource,
): FieldValue[] {
  const out: FieldValue[] = [];
  // A record taken unrendered from state (its file unchanged) has no values to show.
  if (record.unchangedSince) return out;
  for (const field of fields) {
    const cmsField = apiName(field, resource);
    const ours = ourValue(record, field, book);
    const value: FieldValue = { field, cmsField, ours };
    if (record.html?.field === field) value.html = true;
    if (held && cmsField in held) {
      value.cms = held[cmsField];
      if (sameValue(ours, held[cmsField])) continue;
    }
    out.push(value);
  }
  return out;
}

function ourValue(record: DesiredRecord, field: string, book: IdBook): unknown {
  const ref = record.refs?.find((r) => r.relation.field === field);
  if (ref) {
    // The id once the CMS has handed one out; until then the key it will be bound to.
    const value = refValue(ref, book);
    if (value !== undefined) return value;
    const keys = ref.slugs.map((slug) => `${ref.relation.target}/${slug}`);
    return ref.relation.many ? keys : keys[0];
  }
  if (record.html && field === record.html.field) {
    const media = record.html.media;
    return record.html.template.replace(PLACEHOLDER, (_match, open: string, index: string, close: string) => {
      const source = media[Number(index)];
      if (!source) return `${open}${PLACEHOLDER_PREFIX}${index}${close}`;
      if (source.kind === 'existing') return `${open}${source.id}${close}`;
      const id = book.mediaIdByIdentity.get(source.identity);
      if (id !== undefined) return `${open}${id}${close}`;
      return `${open}new image ${source.kind === 'file' ? source.file : source.url}${close}`;
    });
  }
  // A field the record sent before and no longer has is cleared.
  return field in record.values ? record.values[field] : null;
}

/** A short value as one line: strings quoted (JSON), cleared values as `(none)`. */
export function shortValue(value: unknown): string {
  if (value === undefined || value === null || value === '') return '(none)';
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** A short field's change as one line: `old → new`, or the new value alone on a create. */
export function shortChange(value: FieldValue): string {
  return 'cms' in value ? `${shortValue(value.cms)} → ${shortValue(value.ours)}` : shortValue(value.ours);
}

/**
 * The lines that show a field's change: the diff the engine rendered on `--diff` (field-diff.ts);
 * a plan whose diffs were not rendered shows a short field's change and an HTML field's size.
 */
export function shownChange(value: FieldValue): string[] {
  if (value.diff) return value.diff;
  if (!value.html || typeof value.ours !== 'string') return [shortChange(value)];
  const lines = value.ours === '' ? 0 : value.ours.split('\n').length;
  return [`(${'cms' in value ? 'changed' : 'new'}, ${lines} line${lines === 1 ? '' : 's'} of HTML)`];
}

/**
 * Records whose CMS side a diff lacks: a listing that carried only ids, slugs and change markers
 * leaves out the fields of records the CMS did not change since our last write, and an update of
 * such a record still needs the CMS's value to be shown.
 */
export function cmsValuesWanted(plan: {
  // Structural, not compute-plan's Plan: compute-plan imports this module.
  changes: ReadonlyArray<{ action: string; resource: RecordResource; id?: number; values?: FieldValue[] }>;
}): Map<RecordResource, number[]> {
  const wanted = new Map<RecordResource, number[]>();
  for (const change of plan.changes) {
    if ((change.action !== 'update' && change.action !== 'drift') || change.id === undefined) continue;
    if (!change.values?.some((value) => !('cms' in value))) continue;
    const ids = wanted.get(change.resource) ?? [];
    ids.push(change.id);
    wanted.set(change.resource, ids);
  }
  return wanted;
}
