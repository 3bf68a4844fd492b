import { createPatch } from 'diff';
import { fromHtml } from 'hast-util-from-html';
import { format } from 'hast-util-format';
import { toHtml } from 'hast-util-to-html';
import { shortChange, type FieldValue } from './field-values.js';

// Loaded only by a run that shows diffs (`--diff`): see FieldValue.diff.

/**
 * HTML laid out one block element per line, nested blocks indented (hast-util-format, the
 * layout of rehype-format), so that a line diff shows which paragraph, list item or image
 * changed. Whitespace between blocks is the layout's own, so a CMS that reflows it shows no
 * difference.
 */
export function prettyHtml(html: string): string {
  const tree = fromHtml(html, { fragment: true });
  format(tree);
  return toHtml(tree).trim();
}

/**
 * A readable diff of one field, as lines: for HTML a unified diff (hunks only) of the CMS's
 * value against ours, each pretty-printed; for a short field `old → new`. A create shows the
 * new value alone (HTML as its line count).
 */
export function fieldDiff(value: FieldValue, options: { context?: number } = {}): string[] {
  const known = 'cms' in value;
  if (!value.html || typeof value.ours !== 'string') return [shortChange(value)];
  const ours = prettyHtml(value.ours);
  if (!known) {
    const lines = ours === '' ? 0 : ours.split('\n').length;
    return [`(new, ${lines} line${lines === 1 ? '' : 's'} of HTML)`];
  }
  const cms = typeof value.cms === 'string' ? prettyHtml(value.cms) : '';
  const patch = createPatch(value.cmsField, `${cms}\n`, `${ours}\n`, '', '', {
    context: options.context ?? 3,
  });
  // Drop the file header (Index, ===, ---, +++): the field name says what is diffed.
  const lines = patch.split('\n');
  const first = lines.findIndex((line) => line.startsWith('@@'));
  const hunks = first < 0 ? [] : lines.slice(first);
  while (hunks.length && hunks.at(-1) === '') hunks.pop();
  return hunks.length ? hunks.filter((l) => l !== '\\ No newline at end of file') : ['(same once laid out)'];
}

/** Renders the diff of every field value in the plan (see FieldValue.diff). */
export function renderDiffs(plan: { changes: ReadonlyArray<object> }): void {
  for (const change of plan.changes) {
    const values = 'values' in change ? (change.values as FieldValue[] | undefined) : undefined;
    for (const value of values ?? []) value.diff = fieldDiff(value);
  }
}
