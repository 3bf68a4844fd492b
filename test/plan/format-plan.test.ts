import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load-config.js';
import { computePlan, type PlanInput, type RemoteListing } from '../../src/plan/compute-plan.js';
import { remoteDigests, sourceDigests } from '../../src/plan/digest.js';
import { fieldDiff, prettyHtml, renderDiffs } from '../../src/plan/field-diff.js';
import { formatPlan, planToJson } from '../../src/plan/format-plan.js';
import { apiName } from '../../src/plan/payload.js';
import type { DesiredRecord } from '../../src/records/build-record.js';
import { RECORD_RESOURCES, type RecordResource, type RemoteRecord } from '../../src/resources.js';
import { emptyState, type State } from '../../src/state/state-file.js';

// The CMS calls the article body `html` and the title `headline`: the wire mapping.
const config = resolveConfig(
  { resources: { article: { fields: { body: 'html', title: 'headline' } } } },
  { projectDir: '/project', env: {} },
);
const resource = config.resources.article;

const BODY = '<h2>Intro</h2><p>First paragraph.</p><ul><li>one</li><li>two</li></ul><p>Last words.</p>';

function article(slug: string, values: Record<string, unknown> = {}, body = BODY): DesiredRecord {
  return {
    key: `article/${slug}`,
    resource: 'article',
    slug,
    file: `content/articles/${slug}.md`,
    values: { slug, title: `Title of ${slug}`, status: 1, ...values },
    html: { field: 'body', template: body, media: [] },
  };
}

function category(slug: string): DesiredRecord {
  return {
    key: `category/${slug}`,
    resource: 'category',
    slug,
    file: `content/categories/${slug}.md`,
    values: { slug, name: slug.toUpperCase() },
  };
}

/** The record as the CMS holds it after cms-sync wrote `record`, under the CMS's field names. */
function held(record: DesiredRecord, id: number): RemoteRecord {
  const out: RemoteRecord = { id };
  const fields = record.resource === 'article' ? resource : config.resources[record.resource];
  for (const [field, value] of Object.entries(record.values)) out[apiName(field, fields)] = value;
  if (record.html) out[apiName(record.html.field, fields)] = record.html.template;
  return out;
}

function stateAfterWriting(pairs: Array<[DesiredRecord, RemoteRecord]>): State {
  const state = emptyState('local');
  for (const [record, remote] of pairs) {
    const source = sourceDigests(record);
    const fields = config.resources[record.resource];
    state.records.set(record.key, {
      id: remote.id,
      file: record.file,
      owner: 'created',
      source,
      remote: remoteDigests(remote, Object.keys(source), (f) => apiName(f, fields)),
    });
  }
  return state;
}

function input(
  desired: DesiredRecord[],
  remote: RemoteRecord[],
  state: State,
  extra: Partial<PlanInput> = {},
) {
  const listing = Object.fromEntries(
    RECORD_RESOURCES.map((r) => [r, { records: [] as RemoteRecord[], complete: true }]),
  ) as Record<RecordResource, RemoteListing>;
  for (const record of remote) {
    const resource = 'name' in record ? 'category' : 'article';
    listing[resource].records.push(record);
  }
  return {
    desired,
    remote: listing,
    state,
    protectedKeys: new Set<string>(),
    failedFiles: new Set<string>(),
    resources: config.resources,
    prune: false,
    maxDeletes: 20,
    overwriteDrift: false,
    ...extra,
  } satisfies PlanInput;
}

/** A plan with one of each: a create per resource, an update, a drift, an unchanged record. */
function mixedPlan(fieldValues: boolean) {
  const edited = article('edited');
  const drifted = article('drifted');
  const same = article('same');
  const news = category('news');
  const heldNews = held(news, 1);
  const heldEdited = held(edited, 10);
  const heldDrifted = held(drifted, 11);
  const state = stateAfterWriting([
    [edited, heldEdited],
    [drifted, heldDrifted],
    [same, held(same, 12)],
    [news, heldNews],
  ]);
  const editedNow = article(
    'edited',
    { title: 'A better title' },
    BODY.replace('First paragraph.', 'First paragraph, rewritten.'),
  );
  const inCms = {
    ...heldDrifted,
    headline: 'Changed by a colleague',
    html: `${BODY}<p>Added in the CMS.</p>`,
  };
  const plan = computePlan(
    input(
      [editedNow, drifted, same, article('fresh'), category('sport'), news],
      [heldNews, heldEdited, inCms, held(same, 12)],
      state,
      { fieldValues },
    ),
  );
  // As the engine does on --diff, once the plan is final.
  if (fieldValues) renderDiffs(plan);
  return plan;
}

describe('formatPlan', () => {
  it('starts with the summary (by action, then by resource, files skipped), then groups changes by resource', () => {
    const text = formatPlan(mixedPlan(false), { color: false, skipped: 2 });
    const lines = text.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'Plan: 2 to create, 1 to update, 0 to delete, 0 to upload, 2 unchanged, 1 drifted, 2 files skipped ' +
        '(errors above).',
      '  category: 1 to create, 1 unchanged',
      '  article: 1 to create, 1 to update, 1 unchanged, 1 drifted',
    ]);
    const headers = lines.filter((line) => /^\S+ \(\d+\)$/.test(line));
    expect(headers).toEqual(['category (1)', 'article (3)']);
    // Each change sits under its resource's header.
    const at = (s: string) => lines.findIndex((line) => line.includes(s));
    expect(at('+ category/sport')).toBeGreaterThan(at('category (1)'));
    expect(at('+ category/sport')).toBeLessThan(at('article (3)'));
    expect(at('~ article/edited')).toBeGreaterThan(at('article (3)'));
    expect(text).not.toContain('article/same');
    expect(text).not.toContain('@@');
  });

  it('names drifted fields as the CMS does (html, headline), not by the front matter name', () => {
    const plan = mixedPlan(false);
    const text = formatPlan(plan, { color: false });
    expect(text).toMatch(
      /! article\/drifted {2}changed in the CMS since cms-sync last wrote it \(html, headline\)/,
    );
    const drift = (planToJson(plan) as any).changes.find((c: any) => c.action === 'drift');
    expect(drift.fields).toEqual(['body', 'title']);
    expect(drift.cmsFields).toEqual(['html', 'headline']);
    expect(drift.message).toContain('(html, headline)');
  });

  it('with diff, shows short fields as old → new and HTML as a unified diff of one block per line', () => {
    const text = formatPlan(mixedPlan(true), { color: false, diff: true });
    expect(text).toContain('Diffs: - what the CMS holds, + what the files say.');
    const lines = text.split('\n');
    const update = lines.indexOf('  ~ article/edited  (body, title)  content/articles/edited.md');
    expect(update).toBeGreaterThan(0);
    expect(lines.slice(update + 1, update + 10)).toEqual([
      '      html (body in the file):',
      '        @@ -1,5 +1,5 @@',
      '         <h2>Intro</h2>',
      '        -<p>First paragraph.</p>',
      '        +<p>First paragraph, rewritten.</p>',
      '         <ul>',
      '           <li>one</li>',
      '           <li>two</li>',
      '      headline (title in the file): "Title of edited" → "A better title"',
    ]);
    expect(text).toContain('      headline (title in the file): "Title of edited" → "A better title"');
    // Drift: the CMS's value beside ours, under the CMS's names.
    expect(text).toContain(
      '      headline (title in the file): "Changed by a colleague" → "Title of drifted"',
    );
    expect(text).toContain('        -<p>Added in the CMS.</p>');
    // A create shows its new values.
    expect(text).toContain('      headline (title in the file): "Title of fresh"');
    expect(text).toContain('      html (body in the file): (new, 7 lines of HTML)');
  });

  it('compact: the summary and one line per resource and action, no list', () => {
    const text = formatPlan(mixedPlan(true), { color: false, compact: true, diff: true });
    expect(text.split('\n')).toEqual([
      'Plan: 2 to create, 1 to update, 0 to delete, 0 to upload, 2 unchanged, 1 drifted.',
      '  + category  1 to create',
      '  + article   1 to create',
      '  ~ article   1 to update',
      '  ! article   1 drifted',
    ]);
  });

  it('carries both sides of each changed field in JSON, with the readable diff', () => {
    const json = planToJson(mixedPlan(true)) as any;
    const update = json.changes.find((c: any) => c.action === 'update');
    expect(update.fields).toEqual(['body', 'title']);
    expect(update.values).toEqual([
      expect.objectContaining({ field: 'body', cmsField: 'html', cms: BODY, html: true }),
      {
        field: 'title',
        cmsField: 'headline',
        cms: 'Title of edited',
        ours: 'A better title',
        diff: '"Title of edited" → "A better title"',
      },
    ]);
    expect(update.values[0].diff).toContain('+<p>First paragraph, rewritten.</p>');
    expect(json.byResource.article).toMatchObject({ create: 1, update: 1, drift: 1, unchanged: 1 });
    // Without --diff the plan carries no values (and the JSON none).
    expect((planToJson(mixedPlan(false)) as any).changes.some((c: any) => 'values' in c)).toBe(false);
  });
});

describe('fieldDiff', () => {
  it('lays out HTML one block element per line, so the CMS reflowing whitespace is no difference', () => {
    expect(prettyHtml('<p>a <em>b</em></p><blockquote><p>q</p></blockquote>')).toBe(
      '<p>a <em>b</em></p>\n<blockquote>\n  <p>q</p>\n</blockquote>',
    );
    const value = { field: 'body', cmsField: 'body', html: true as const };
    expect(fieldDiff({ ...value, cms: '<p>x</p>\n\n  <p>y</p>', ours: '<p>x</p><p>y</p>' })).toEqual([
      '(same once laid out)',
    ]);
    expect(fieldDiff({ field: 'status', cmsField: 'status', cms: 0, ours: 1 })).toEqual(['0 → 1']);
    expect(fieldDiff({ field: 'category_id', cmsField: 'category_id', cms: null, ours: 3 })).toEqual([
      '(none) → 3',
    ]);
  });
});
