import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load-config.js';
import {
  computePlan,
  recordsToComplete,
  type PlanInput,
  type RemoteListing,
} from '../../src/plan/compute-plan.js';
import { detectRenames } from '../../src/plan/detect-renames.js';
import { remoteDigests, sourceDigests } from '../../src/plan/digest.js';
import { comparableDigest } from '../../src/plan/payload.js';
import type { DesiredRecord, RecordRef } from '../../src/records/build-record.js';
import { RESOURCE_TABLE } from '../../src/resources/table.js';
import { RECORD_RESOURCES, type RecordResource, type RemoteRecord } from '../../src/resources.js';
import { emptyState, type State } from '../../src/state/state-file.js';

const config = resolveConfig({}, { projectDir: '/project', env: {} });

function article(slug: string, overrides: Partial<DesiredRecord> = {}): DesiredRecord {
  return {
    key: `article/${slug}`,
    resource: 'article',
    slug,
    file: `content/articles/${slug}.md`,
    values: { slug, title: `Title of ${slug}`, status: 1 },
    html: { field: 'body', template: `<p>About ${slug}</p>`, media: [] },
    ...overrides,
  };
}

/** `category: <slug>` at `line` of an article's front matter. */
function categoryRef(slug: string, line: number): RecordRef {
  return {
    relation: RESOURCE_TABLE.article.relations.find((r) => r.key === 'category')!,
    slugs: [slug],
    line,
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

/** The record as the CMS would hold it after cms-sync wrote `record` with the given media ids. */
function held(record: DesiredRecord, id: number, extra: Record<string, unknown> = {}): RemoteRecord {
  const body = record.html ? { [record.html.field]: record.html.template } : {};
  return { id, ...record.values, ...body, ...extra };
}

/** State as it is right after cms-sync wrote these records. */
function stateAfterWriting(pairs: Array<[DesiredRecord, RemoteRecord]>): State {
  const state = emptyState('local');
  for (const [record, remote] of pairs) {
    const source = sourceDigests(record);
    state.records.set(record.key, {
      id: remote.id,
      file: record.file,
      owner: 'created',
      source,
      remote: remoteDigests(remote, Object.keys(source), (f) => f),
    });
  }
  return state;
}

function input(
  desired: DesiredRecord[],
  remote: RemoteRecord[] | Partial<Record<RecordResource, RemoteListing>>,
  state: State,
  overrides: Partial<PlanInput> = {},
): PlanInput {
  const listing = Object.fromEntries(
    RECORD_RESOURCES.map((r) => [r, { records: [] as RemoteRecord[], complete: true }]),
  ) as Record<RecordResource, RemoteListing>;
  if (Array.isArray(remote)) listing.article.records = remote;
  else Object.assign(listing, remote);
  return {
    desired,
    remote: listing,
    state,
    protectedKeys: new Set(),
    failedFiles: new Set(),
    resources: config.resources,
    prune: false,
    maxDeletes: 20,
    overwriteDrift: false,
    ...overrides,
  };
}

const actions = (plan: ReturnType<typeof computePlan>) => plan.changes.map((c) => `${c.action} ${c.key}`);

describe('computePlan', () => {
  it('creates what the CMS does not have, categories before the articles that point at them', () => {
    const hello = article('hello', { refs: [categoryRef('politics', 4)] });
    const plan = computePlan(input([hello, category('politics')], [], emptyState('local')));
    expect(actions(plan)).toEqual(['create category/politics', 'create article/hello']);
    expect(plan.problems).toEqual([]);
  });

  it('gives creates with the same fields one list of them, which nothing can change', () => {
    const records = [article('a'), article('b'), article('c', { values: { slug: 'c', title: 'C' } })];
    const creates = computePlan(input(records, [], emptyState('local'))).changes;
    expect(creates.map((c) => ('fields' in c ? c.fields : []))).toEqual([
      ['body', 'slug', 'status', 'title'],
      ['body', 'slug', 'status', 'title'],
      ['body', 'slug', 'title'],
    ]);
    const [a, b, c] = creates.map((change) => (change as { fields: string[] }).fields);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
  });

  it('leaves a record alone when neither the file nor the CMS changed', () => {
    const hello = article('hello');
    const remote = held(hello, 7);
    const plan = computePlan(input([hello], [remote], stateAfterWriting([[hello, remote]])));
    expect(actions(plan)).toEqual(['unchanged article/hello']);
  });

  it('updates only the fields whose file content changed', () => {
    const before = article('hello');
    const remote = held(before, 7);
    const after = article('hello', { values: { ...before.values, title: 'A new title' } });
    const plan = computePlan(input([after], [remote], stateAfterWriting([[before, remote]])));
    expect(plan.changes).toMatchObject([
      { action: 'update', key: 'article/hello', id: 7, fields: ['title'] },
    ]);
  });

  it('reports a record edited in the CMS as drift, and replaces it only with overwriteDrift', () => {
    const hello = article('hello');
    const remote = held(hello, 7);
    const state = stateAfterWriting([[hello, remote]]);
    const edited = { ...remote, title: 'Edited by a colleague' };
    expect(computePlan(input([hello], [edited], state)).changes).toMatchObject([
      { action: 'drift', kind: 'changed-in-cms', fields: ['title'] },
    ]);
    expect(computePlan(input([hello], [edited], state, { overwriteDrift: true })).changes).toMatchObject([
      { action: 'update', overwrite: 'drift' },
    ]);
  });

  it('calls a record changed in both places a conflict', () => {
    const hello = article('hello');
    const remote = held(hello, 7);
    const changedFile = article('hello', { values: { ...hello.values, status: 0 } });
    const plan = computePlan(
      input([changedFile], [{ ...remote, title: 'CMS edit' }], stateAfterWriting([[hello, remote]])),
    );
    expect(plan.changes).toMatchObject([{ action: 'drift', kind: 'conflict', fields: ['title'] }]);
  });

  it('reports a managed record deleted in the CMS instead of silently creating it again', () => {
    const hello = article('hello');
    const plan = computePlan(input([hello], [], stateAfterWriting([[hello, held(hello, 7)]])));
    expect(plan.changes).toMatchObject([{ action: 'drift', kind: 'deleted-in-cms' }]);
  });

  describe('an edit whose answer was lost (the run died after sending it)', () => {
    const v1 = article('hello');
    const v2 = article('hello', { values: { ...v1.values, title: 'Second title' } });
    const v3 = article('hello', { values: { ...v1.values, title: 'Third title' } });
    const remoteV1 = held(v1, 7);
    const pending = new Map([
      ['article/hello', [{ source: sourceDigests(v2), sent: { title: comparableDigest('Second title') } }]],
    ]);

    it('is taken as landed when the CMS holds what it sent: the file moved on is an update, not a conflict', () => {
      const plan = computePlan(
        input([v3], [{ ...remoteV1, title: 'Second title' }], stateAfterWriting([[v1, remoteV1]]), {
          pendingEdits: pending,
        }),
      );
      expect(plan.changes).toMatchObject([{ action: 'update', fields: ['title'] }]);
    });

    it('only needs state to learn it when the file still says what was sent', () => {
      const plan = computePlan(
        input([v2], [{ ...remoteV1, title: 'Second title' }], stateAfterWriting([[v1, remoteV1]]), {
          pendingEdits: pending,
        }),
      );
      expect(plan.changes).toMatchObject([{ action: 'adopt', id: 7 }]);
    });

    it("is not an excuse for someone else's change", () => {
      const plan = computePlan(
        input([v3], [{ ...remoteV1, title: 'Edited by a colleague' }], stateAfterWriting([[v1, remoteV1]]), {
          pendingEdits: pending,
        }),
      );
      expect(plan.changes).toMatchObject([{ action: 'drift', kind: 'conflict' }]);
    });

    it('lets --prune delete the record of a file removed since, when the CMS holds what was sent', () => {
      const other = article('other');
      const state = stateAfterWriting([
        [v1, remoteV1],
        [other, held(other, 8)],
      ]);
      const landed = { ...remoteV1, title: 'Second title' };
      const plan = computePlan(
        input([other], [landed, held(other, 8)], state, { pendingEdits: pending, prune: true }),
      );
      expect(plan.changes).toMatchObject([
        { action: 'unchanged', key: 'article/other' },
        { action: 'delete', key: 'article/hello' },
      ]);
      const edited = { ...remoteV1, title: 'Edited by a colleague' };
      expect(
        computePlan(input([other], [edited, held(other, 8)], state, { pendingEdits: pending, prune: true }))
          .changes,
      ).toMatchObject([
        { action: 'drift', kind: 'file-deleted', key: 'article/hello', fields: ['title'] },
        { action: 'unchanged', key: 'article/other' },
      ]);
    });
  });

  describe('with a change marker (updated_at), listings carry only ids, slugs and markers', () => {
    const hello = article('hello');
    const other = article('other');
    const full = held(hello, 7, { updated_at: 't1' });
    const state = stateAfterWriting([[hello, full]]);
    state.records.get('article/hello')!.marker = 't1';
    const light = (
      updatedAt: string,
      extra: RemoteRecord[] = [],
    ): Partial<Record<RecordResource, RemoteListing>> => ({
      article: {
        records: [{ id: 7, slug: 'hello', updated_at: updatedAt }, ...extra],
        complete: true,
        fields: ['id', 'slug', 'updated_at'],
      },
    });

    it('takes a record whose marker is the one state saw as unchanged, without its fields', () => {
      const plan = computePlan(input([hello], light('t1'), state, { changeMarker: 'updated_at' }));
      expect(plan.changes).toMatchObject([{ action: 'unchanged', key: 'article/hello' }]);
      expect(
        recordsToComplete({ ...input([hello], light('t1'), state), changeMarker: 'updated_at' }).get(
          'article',
        ),
      ).toEqual([]);
    });

    it('reads in full the records changed since, and those a file without state may adopt', () => {
      const wanted = recordsToComplete({
        ...input(
          [hello, other],
          light('t2', [
            { id: 9, slug: 'other', updated_at: 't0' },
            { id: 10, slug: 'by-hand', updated_at: 't0' },
          ]),
          state,
        ),
        changeMarker: 'updated_at',
      });
      expect(wanted.get('article')).toEqual([7, 9]);
    });

    it('with --prune, reads in full a record whose file is gone and whose marker moved', () => {
      const wanted = (prune: boolean) =>
        recordsToComplete({ ...input([other], light('t2'), state), changeMarker: 'updated_at', prune }).get(
          'article',
        );
      expect(wanted(false)).toEqual([]);
      expect(wanted(true)).toEqual([7]);
    });
  });

  it('trusts state and reads nothing with --refresh=false: changed files update, deletes wait', () => {
    const hello = article('hello');
    const gone = article('gone');
    const state = stateAfterWriting([
      [hello, held(hello, 7)],
      [gone, held(gone, 8)],
    ]);
    const changed = article('hello', { values: { ...hello.values, title: 'New' } });
    const unread = Object.fromEntries(
      RECORD_RESOURCES.map((r) => [r, { records: [], complete: false }]),
    ) as unknown as Record<RecordResource, RemoteListing>;
    const plan = computePlan({
      ...input([changed], [], state, { prune: true, trustState: true }),
      remote: unread,
    });
    expect(actions(plan).sort()).toEqual(['keep article/gone', 'update article/hello']);
    expect(plan.deletesHeld).toBe(
      'with --refresh=false the CMS is not read, and deletes need a fresh listing',
    );
  });

  it('adopts a record with the same slug when state is lost, instead of creating a duplicate', () => {
    const hello = article('hello');
    // The CMS normalised whitespace between tags: still the same content.
    const remote = held(hello, 7, { body: '  <p>About hello</p>\n' });
    const plan = computePlan(input([hello], [remote], emptyState('local')));
    expect(plan.changes).toMatchObject([{ action: 'adopt', id: 7 }]);
    const changed = computePlan(input([hello], [{ ...remote, title: 'Old title' }], emptyState('local')));
    expect(changed.changes).toMatchObject([{ action: 'update', id: 7, fields: ['title'], owner: 'adopted' }]);
  });

  it('never adopts one CMS record for two keys', () => {
    const hello = article('hello');
    const remote = held(hello, 7);
    const state = stateAfterWriting([
      [article('other', { values: { slug: 'hello', title: 'x', status: 1 } }), remote],
    ]);
    state.records.get('article/other')!.file = 'content/articles/other.md';
    const plan = computePlan(
      input([hello, article('other', { values: { slug: 'hello', title: 'x', status: 1 } })], [remote], state),
    );
    expect(actions(plan)).toContain('create article/hello');
  });

  describe('deletes', () => {
    const gone = article('gone');
    const remote = held(gone, 9);
    const state = () => stateAfterWriting([[gone, remote]]);
    const stay = article('stay');

    it('keeps a record whose file is gone unless prune is on', () => {
      expect(computePlan(input([stay], [remote], state())).changes).toContainEqual(
        expect.objectContaining({ action: 'keep', key: 'article/gone' }),
      );
      expect(computePlan(input([stay], [remote], state(), { prune: true })).changes).toContainEqual(
        expect.objectContaining({ action: 'delete', key: 'article/gone', id: 9 }),
      );
    });

    it('never deletes a record whose file failed to parse', () => {
      const plan = computePlan(
        input([stay], [remote], state(), { prune: true, failedFiles: new Set(['content/articles/gone.md']) }),
      );
      expect(plan.changes).toContainEqual(
        expect.objectContaining({ action: 'keep', key: 'article/gone', reason: 'its file has errors' }),
      );
    });

    it('plans no deletes from an incomplete listing', () => {
      const plan = computePlan(
        input([stay], { article: { records: [remote], complete: false } }, state(), { prune: true }),
      );
      expect(plan.changes.some((c) => c.action === 'delete')).toBe(false);
      expect(plan.deletesHeld).toMatch(/incomplete/);
    });

    it('under --only looks at the selected records alone: others are neither kept, deleted nor moved', () => {
      const other = article('other');
      const otherRemote = held(other, 10);
      const both = stateAfterWriting([
        [gone, remote],
        [other, otherRemote],
      ]);
      const listed = [remote, otherRemote];
      // Only other.md is selected and it is gone too: its record alone is planned.
      const plan = computePlan(
        input([], listed, both, { prune: true, selected: new Set(['article/other']) }),
      );
      expect(actions(plan)).toEqual(['delete article/other']);
      // Nothing selected is gone: no plan at all, and an empty selection is not an empty content/.
      expect(actions(computePlan(input([], listed, both, { prune: true, selected: new Set() })))).toEqual([]);
      // A new file with gone.md's body outside the selection is not its move: gone is not looked at.
      const moved = article('moved', { html: gone.html! });
      const narrowed = computePlan(input([moved], listed, both, { selected: new Set(['article/other']) }));
      expect(actions(narrowed)).toEqual(['create article/moved', 'keep article/other']);
      expect(actions(computePlan(input([moved], listed, both)))).toContain('update article/moved');
    });

    it('never deletes everything because content/ is empty', () => {
      const plan = computePlan(input([], [remote], state(), { prune: true }));
      expect(plan.changes.some((c) => c.action === 'delete')).toBe(false);
      expect(plan.deletesHeld).toMatch(/never deletes everything/);
    });

    it('aborts when more deletes are planned than maxDeletes', () => {
      const plan = computePlan(input([stay], [remote], state(), { prune: true, maxDeletes: 0 }));
      expect(plan.abort).toBe(
        'The plan deletes 1 records, more than --max-deletes 0. Nothing was changed. If that is intended, rerun with ' +
          '--max-deletes 1.',
      );
    });

    it('does not delete users unless the config allows it', () => {
      const user: DesiredRecord = {
        key: 'user/ana',
        resource: 'user',
        slug: 'ana',
        file: 'content/users/ana.md',
        values: { slug: 'ana', name: 'Ana' },
      };
      const userRemote = held(user, 3);
      const plan = computePlan(
        input(
          [stay],
          { user: { records: [userRemote], complete: true } },
          stateAfterWriting([[user, userRemote]]),
          { prune: true },
        ),
      );
      expect(plan.changes).toContainEqual(expect.objectContaining({ action: 'keep', key: 'user/ana' }));
    });

    it('never touches records that someone else created in the CMS', () => {
      const stranger = { id: 40, slug: 'by-hand', title: 'Made in the CMS' };
      const plan = computePlan(input([stay], [stranger], emptyState('local'), { prune: true }));
      expect(plan.changes.filter((c) => c.key.includes('by-hand'))).toEqual([]);
    });

    it('runs deletes last, articles before categories', () => {
      const politics = category('politics');
      const catRemote = held(politics, 2);
      const s = stateAfterWriting([
        [gone, remote],
        [politics, catRemote],
      ]);
      const plan = computePlan(
        input(
          [stay],
          {
            article: { records: [remote], complete: true },
            category: { records: [catRemote], complete: true },
          },
          s,
          { prune: true },
        ),
      );
      expect(actions(plan)).toEqual([
        'create article/stay',
        'delete article/gone',
        'delete category/politics',
      ]);
    });
  });

  it('uploads each distinct image once, however many records use it', () => {
    const map = {
      kind: 'file' as const,
      contentPath: 'images/map.png',
      file: 'content/images/map.png',
      sha256: 'abc',
      identity: 'sha256:abc',
    };
    const known = {
      kind: 'url' as const,
      url: 'https://example.com/a.png',
      identity: 'url:https://example.com/a.png',
    };
    const other = {
      ...map,
      contentPath: 'images/other.png',
      file: 'content/images/other.png',
      identity: 'sha256:def',
    };
    // An image twice in one body, with another between: its record is named once.
    const records = ['a', 'b', 'c'].map((slug) =>
      article(slug, { html: { field: 'body', template: '<p>x</p>', media: [map, known, other, map] } }),
    );
    const state = emptyState('local');
    state.media['url:https://example.com/a.png'] = { id: 5, source: 'https://example.com/a.png' };
    const plan = computePlan(input(records, [], state));
    expect(plan.uploads).toEqual([
      { source: map, usedBy: ['article/a', 'article/b', 'article/c'] },
      { source: other, usedBy: ['article/a', 'article/b', 'article/c'] },
    ]);
  });

  it('reports an article whose category exists nowhere, at the line of `category:`', () => {
    const plan = computePlan(
      input([article('hello', { refs: [categoryRef('sport', 5)] })], [], emptyState('local')),
    );
    expect(plan.problems).toEqual([
      expect.objectContaining({
        file: 'content/articles/hello.md',
        line: 5,
        severity: 'error',
        message: expect.stringContaining('category `sport` does not exist'),
      }),
    ]);
    expect(plan.changes).toEqual([]);
  });
});

describe('renames', () => {
  const body = (text: string) => ({ field: 'body' as const, template: text && `<p>${text}</p>`, media: [] });
  /** `old-name` written by cms-sync as id 7, its file now renamed to `new-name` with the same body. */
  function renamed(text = 'The same story') {
    const before = article('old-name', { html: body(text) });
    const remote = held(before, 7);
    const after = article('new-name', { html: body(text) });
    return { before, remote, after, state: stateAfterWriting([[before, remote]]) };
  }

  /** renamed(), with a second gone record (id 8) whose body is `text`. */
  function renamedBesideAnother(slug: string, text: string) {
    const { before, remote } = renamed();
    const other = article(slug, { html: body(text) });
    const otherRemote = held(other, 8);
    const state = stateAfterWriting([
      [before, remote],
      [other, otherRemote],
    ]);
    return { remote, otherRemote, state };
  }

  it('plans a file renamed without slug: as one edit of its record, not a create and an orphan', () => {
    const { remote, after, state } = renamed();
    const plan = computePlan(input([after], [remote], state, { prune: true }));
    expect(plan.changes).toEqual([
      expect.objectContaining({
        action: 'update',
        key: 'article/new-name',
        movedFrom: 'article/old-name',
        id: 7,
        fields: ['slug', 'title'],
      }),
    ]);
    expect(plan.problems).toEqual([]);
  });

  it('reads no body of a new file when no record of state lost its file (a cold apply reads none)', () => {
    let reads = 0;
    const counted = (record: DesiredRecord): DesiredRecord => {
      const { html } = record;
      return Object.defineProperty({ ...record }, 'html', {
        enumerable: true,
        get: () => {
          reads++;
          return html;
        },
      });
    };
    const { before, after, state } = renamed();
    const detect = (desired: DesiredRecord[], from: State) =>
      detectRenames({
        desired,
        state: from,
        desiredKeys: new Set(desired.map((d) => d.key)),
        protectedKeys: new Set(),
        failedFiles: new Set(),
      }).moves;
    expect(
      detect([counted(after), counted(article('other', { html: body('Other') }))], emptyState('local')),
    ).toEqual(new Map());
    expect(detect([counted(after), before], state)).toEqual(new Map());
    expect(reads).toBe(0);
    expect(detect([counted(after)], state)).toEqual(new Map([['article/new-name', 'article/old-name']]));
    expect(reads).toBeGreaterThan(0);
  });

  it('with detectRenames false, creates the new record and keeps or deletes the old one as before', () => {
    const { remote, after, state } = renamed();
    expect(actions(computePlan(input([after], [remote], state, { detectRenames: false })))).toEqual([
      'create article/new-name',
      'keep article/old-name',
    ]);
  });

  it('takes two candidates on either side as no rename: creates, with a note naming the candidates', () => {
    const { before, remote, after } = renamed();
    const twin = article('twin', { html: body('The same story') });
    const twinRemote = held(twin, 8);
    const state = stateAfterWriting([
      [before, remote],
      [twin, twinRemote],
    ]);
    const plan = computePlan(input([after], [remote, twinRemote], state));
    expect(actions(plan)).toEqual(['create article/new-name', 'keep article/old-name', 'keep article/twin']);
    expect(plan.problems).toMatchObject([
      {
        severity: 'warning',
        file: 'content/articles/new-name.md',
        message: expect.stringContaining('article/twin'),
      },
    ]);

    const { state: oneGone } = renamed();
    const copy = article('copy', { html: body('The same story') });
    const both = computePlan(input([after, copy], [remote], oneGone));
    expect(actions(both)).toEqual([
      'create article/copy',
      'create article/new-name',
      'keep article/old-name',
    ]);
    expect(both.problems).toHaveLength(2);
  });

  it('never takes a record whose file failed, or one with an empty body, or of another resource, as renamed', () => {
    const { remote, after, state } = renamed();
    const failed = computePlan(
      input([after], [remote], state, { failedFiles: new Set(['content/articles/old-name.md']) }),
    );
    expect(actions(failed)).toEqual(['create article/new-name', 'keep article/old-name']);

    const empty = renamed('');
    expect(actions(computePlan(input([empty.after], [empty.remote], empty.state)))[0]).toBe(
      'create article/new-name',
    );

    const page: DesiredRecord = {
      ...after,
      key: 'page/new-name',
      resource: 'page',
      file: 'content/pages/new-name.md',
    };
    expect(actions(computePlan(input([page], [remote], state)))).toEqual([
      'keep article/old-name',
      'create page/new-name',
    ]);
  });

  describe('by front matter history (aliases, redirect_from)', () => {
    const aliases = (...slugs: string[]) => ({ formerSlugs: { slugs, key: 'aliases', line: 3 } });

    it('moves the record a new file names, even with a new body', () => {
      const { remote, state } = renamed();
      const after = article('new-name', { html: body('Rewritten from the top'), ...aliases('old-name') });
      const plan = computePlan(input([after], [remote], state, { prune: true }));
      expect(plan.changes).toEqual([
        expect.objectContaining({
          action: 'update',
          key: 'article/new-name',
          movedFrom: 'article/old-name',
          id: 7,
          fields: ['body', 'slug', 'title'],
        }),
      ]);
      expect(plan.problems).toEqual([]);
    });

    it("finds a Jekyll post by the name its URL has, without the file name's date", () => {
      const before = article('2019-01-01-old-name', { html: body('Old text') });
      const remote = held(before, 7);
      const after = article('new-name', { html: body('New text'), ...aliases('old-name') });
      const plan = computePlan(input([after], [remote], stateAfterWriting([[before, remote]])));
      expect(plan.changes).toMatchObject([{ action: 'update', movedFrom: 'article/2019-01-01-old-name' }]);
    });

    it('settles a body that matches two gone records, when the front matter names one', () => {
      const { remote, otherRemote: twinRemote, state } = renamedBesideAnother('twin', 'The same story');
      const after = article('new-name', { html: body('The same story'), ...aliases('twin') });
      const plan = computePlan(input([after], [remote, twinRemote], state));
      expect(actions(plan)).toEqual(['update article/new-name', 'keep article/old-name']);
      expect(plan.changes[0]).toMatchObject({ movedFrom: 'article/twin', id: 8 });
    });

    it('is no move when history and body disagree, or two files name one record: a create and a note', () => {
      const { remote, otherRemote, state } = renamedBesideAnother('other', 'Another story');
      const split = article('new-name', { html: body('The same story'), ...aliases('other') });
      const plan = computePlan(input([split], [remote, otherRemote], state));
      expect(actions(plan)).toEqual([
        'create article/new-name',
        'keep article/old-name',
        'keep article/other',
      ]);
      expect(plan.problems).toEqual([
        expect.objectContaining({
          file: 'content/articles/new-name.md',
          line: 3,
          severity: 'warning',
          message:
            'its `aliases` names article/other and its body is that of article/old-name, whose files are gone: ' +
            'more than one candidate, so it is not taken as a rename and is created as a new record (give it the ' +
            'old `slug:` to keep the old record)',
        }),
      ]);

      const a = article('a', { html: body('First'), ...aliases('old-name') });
      const b = article('b', { html: body('Second'), ...aliases('/posts/old-name/', 'old-name') });
      const two = computePlan(input([a, b], [remote], renamed().state));
      expect(actions(two)).toEqual(['create article/a', 'create article/b', 'keep article/old-name']);
      expect(two.problems.map((p) => p.message)).toEqual([
        expect.stringContaining(
          'its `aliases` names article/old-name, whose files are gone, and article/b points there too',
        ),
        expect.stringContaining('and article/a points there too'),
      ]);
    });

    it('never moves a record whose file is still there', () => {
      const { before, remote, state } = renamed();
      const after = article('new-name', { html: body('New text'), ...aliases('old-name') });
      const plan = computePlan(input([before, after], [remote], state));
      expect(actions(plan)).toEqual(['create article/new-name', 'unchanged article/old-name']);
      expect(plan.problems).toEqual([]);
    });
  });

  it('moves the record even when its body and title stay and only the file name changed, with --refresh=false', () => {
    const { after, state } = renamed();
    const plan = computePlan(
      input([after], { article: { records: [], complete: false } }, state, { trustState: true }),
    );
    expect(plan.changes).toMatchObject([
      { action: 'update', key: 'article/new-name', movedFrom: 'article/old-name' },
    ]);
  });
});
