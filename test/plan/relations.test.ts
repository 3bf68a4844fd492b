import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load-config.js';
import { formatProblem } from '../../src/errors.js';
import { computePlan, idBook, type PlanInput, type RemoteListing } from '../../src/plan/compute-plan.js';
import { sourceDigests } from '../../src/plan/digest.js';
import { resolveFields } from '../../src/plan/payload.js';
import { buildRecord, type DesiredRecord, type RecordRef } from '../../src/records/build-record.js';
import { RECORD_RESOURCES, type RecordResource, type RemoteRecord } from '../../src/resources.js';
import { RESOURCE_TABLE } from '../../src/resources/table.js';
import type { SourceDocument } from '../../src/source/read-document.js';
import { emptyState, type State } from '../../src/state/state-file.js';

const config = resolveConfig({}, { projectDir: '/p', env: {} });

function ref(resource: RecordResource, key: string, slugs: string[], line = 3): RecordRef {
  return { relation: RESOURCE_TABLE[resource].relations.find((r) => r.key === key)!, slugs, line };
}

function record(resource: RecordResource, slug: string, refs: RecordRef[] = []): DesiredRecord {
  const folder = RESOURCE_TABLE[resource].folder;
  return {
    key: `${resource}/${slug}`,
    resource,
    slug,
    file: `content/${folder}/${slug}.md`,
    values: resource === 'article' ? { slug, title: slug, status: 1 } : { slug, name: slug },
    ...(refs.length ? { refs } : {}),
  };
}

function input(desired: DesiredRecord[], overrides: Partial<PlanInput> = {}, remote: RemoteRecord[] = []) {
  const listing = Object.fromEntries(
    RECORD_RESOURCES.map((r) => [r, { records: r === 'user' ? remote : [], complete: true }]),
  ) as unknown as Record<RecordResource, RemoteListing>;
  return {
    desired,
    remote: listing,
    state: emptyState('local'),
    protectedKeys: new Set<string>(),
    failedFiles: new Set<string>(),
    resources: config.resources,
    prune: false,
    maxDeletes: 20,
    overwriteDrift: false,
    ...overrides,
  } satisfies PlanInput;
}

const actions = (plan: ReturnType<typeof computePlan>) => plan.changes.map((c) => `${c.action} ${c.key}`);

describe('relations in the plan', () => {
  it('names an unknown slug at its key, with the closest known slugs, from files and from the CMS', () => {
    const plan = computePlan(
      input(
        [
          record('user', 'jane-doe'),
          record('user', 'joe'),
          record('article', 'a', [ref('article', 'author', ['jane-deo'], 4)]),
          record('article', 'b', [ref('article', 'authors', ['joe', 'zed'], 5)]),
        ],
        {},
        [{ id: 9, slug: 'zoe', name: 'Zoe' }],
      ),
    );
    expect(plan.problems.map(formatProblem)).toEqual([
      'content/articles/a.md:4:1: user `jane-deo` does not exist in content/users/ or in the CMS: did you mean ' +
        '`jane-doe`? Known user slugs: `jane-doe`, `joe`, `zoe`. Fix `author:` or add content/users/jane-deo.md',
      'content/articles/b.md:5:1: user `zed` does not exist in content/users/ or in the CMS. ' +
        'Known user slugs: `zoe`, `joe`, `jane-doe`. Fix `authors:` or add content/users/zed.md',
    ]);
    expect(actions(plan)).toEqual(['create user/jane-doe', 'create user/joe']);
  });

  it('says so when the named file has errors, and when nothing of that resource exists', () => {
    const plan = computePlan(
      input(
        [
          record('article', 'a', [ref('article', 'author', ['broken'])]),
          record('article', 'b', [ref('article', 'category', ['news'])]),
        ],
        { protectedKeys: new Set(['user/broken']) },
      ),
    );
    expect(plan.problems.map((p) => p.message)).toEqual([
      '`author` names user/broken, whose file has errors (see them): fix it first',
      'category `news` does not exist in content/categories/ or in the CMS. There are no category records yet. ' +
        'Fix `category:` or add content/categories/news.md',
    ]);
  });

  it('writes a parent category before its children and users before articles, whatever their names', () => {
    const plan = computePlan(
      input([
        record('article', 'a', [
          ref('article', 'authors', ['zz', 'aa']),
          ref('article', 'category', ['a-leaf']),
        ]),
        record('category', 'a-leaf', [ref('category', 'parent', ['m-middle'])]),
        record('category', 'm-middle', [ref('category', 'parent', ['z-top'])]),
        record('category', 'z-top'),
        record('category', 'b-other', [ref('category', 'parent', ['z-top'])]),
        record('user', 'zz'),
        record('user', 'aa'),
      ]),
    );
    expect(plan.problems).toEqual([]);
    expect(actions(plan)).toEqual([
      'create category/z-top',
      'create category/b-other',
      'create category/m-middle',
      'create category/a-leaf',
      'create user/aa',
      'create user/zz',
      'create article/a',
    ]);
  });

  it('refuses a loop of parents at each `parent` in it, and what hangs below it', () => {
    const plan = computePlan(
      input([
        record('category', 'a', [ref('category', 'parent', ['b'], 2)]),
        record('category', 'b', [ref('category', 'parent', ['c'], 3)]),
        record('category', 'c', [ref('category', 'parent', ['a'], 4)]),
        record('category', 'child', [ref('category', 'parent', ['a'], 5)]),
        record('category', 'self', [ref('category', 'parent', ['self'], 6)]),
        record('article', 'post', [ref('article', 'category', ['child'], 7)]),
        record('category', 'fine'),
      ]),
    );
    expect(plan.problems.map(formatProblem).sort()).toEqual([
      'content/articles/post.md:7:1: `category` names category/child, which cannot be written (see its error)',
      'content/categories/a.md:2:1: `parent` makes a loop (category a → b → c → a): a category cannot be its ' +
        'own ancestor; remove `parent` from one of them',
      'content/categories/b.md:3:1: `parent` makes a loop (category a → b → c → a): a category cannot be its ' +
        'own ancestor; remove `parent` from one of them',
      'content/categories/c.md:4:1: `parent` makes a loop (category a → b → c → a): a category cannot be its ' +
        'own ancestor; remove `parent` from one of them',
      'content/categories/child.md:5:1: `parent` names category/a, which cannot be written (see its error)',
      'content/categories/self.md:6:1: `parent` makes a loop (category self → self): a category cannot be its ' +
        'own ancestor; remove `parent` from one of them',
    ]);
    expect(actions(plan)).toEqual(['create category/fine']);
  });

  it('finds a loop closed by one edited file through what state kept of the unchanged ones', () => {
    const state: State = emptyState('local');
    state.records.set('category/a', {
      id: 1,
      file: 'content/categories/a.md',
      owner: 'created',
      source: {},
      remote: {},
      input: { hash: 'h', media: [], refs: { parent: { slugs: ['b'], line: 2 } } },
    });
    const unchanged: DesiredRecord = {
      ...record('category', 'a', [ref('category', 'parent', ['b'], 2)]),
      values: {},
      unchangedSince: state.records.get('category/a'),
    };
    const plan = computePlan(
      input([unchanged, record('category', 'b', [ref('category', 'parent', ['a'], 3)])], { state }),
    );
    expect(plan.problems.map((p) => `${p.file}:${p.line}`)).toEqual([
      'content/categories/a.md:2',
      'content/categories/b.md:3',
    ]);
  });

  it('deletes children before their parents, each depth on its own', () => {
    const state: State = emptyState('local');
    const kept = (id: number, slug: string, parent?: string) => {
      state.records.set(`category/${slug}`, {
        id,
        file: `content/categories/${slug}.md`,
        owner: 'created',
        source: {},
        remote: {},
        input: {
          hash: 'h',
          media: [],
          ...(parent ? { refs: { parent: { slugs: [parent], line: 2 } } } : {}),
        },
      });
      return { id, slug, name: slug };
    };
    const listed = [kept(1, 'z-top'), kept(2, 'a-leaf', 'm-middle'), kept(3, 'm-middle', 'z-top')];
    const base = input([record('category', 'other')], { state, prune: true });
    const plan = computePlan({
      ...base,
      remote: { ...base.remote, category: { records: listed, complete: true } },
    });
    expect(
      plan.changes.filter((c) => c.action === 'delete').map((c) => [c.key, (c as { depth?: number }).depth]),
    ).toEqual([
      ['category/a-leaf', 2],
      ['category/m-middle', 1],
      ['category/z-top', undefined],
    ]);
  });

  it('keeps relations symbolic until sent: the digest names slugs, the payload the ids', () => {
    const post = record('article', 'p', [
      ref('article', 'category', ['news']),
      ref('article', 'author', ['jane']),
      ref('article', 'authors', ['joe', 'jane']),
    ]);
    const digests = sourceDigests(post);
    expect(Object.keys(digests).sort()).toEqual([
      'author_id',
      'author_ids',
      'category_id',
      'slug',
      'status',
      'title',
    ]);
    const fields = ['author_id', 'author_ids', 'category_id'];
    const book = idBook({
      ...input([]),
      remote: {
        ...input([]).remote,
        user: {
          records: [
            { id: 7, slug: 'jane' },
            { id: 8, slug: 'joe' },
          ],
          complete: true,
        },
      },
    });
    expect(resolveFields(post, fields, book, config.resources.article)).toEqual({
      data: { author_id: 7, author_ids: [8, 7] },
      unresolved: ['category_id'],
    });
    book.idByKey!.set('category/news', 3);
    const renamed = resolveConfig(
      { resources: { article: { fields: { author_ids: 'writers' } } } },
      {
        projectDir: '/p',
        env: {},
      },
    );
    expect(resolveFields(post, fields, book, renamed.resources.article).data).toEqual({
      author_id: 7,
      writers: [8, 7],
      category_id: 3,
    });
  });
});

describe('relations in front matter', () => {
  async function build(resource: RecordResource, frontMatter: Record<string, unknown>) {
    const folder = RESOURCE_TABLE[resource].folder;
    const doc: SourceDocument = {
      key: `${resource}/x`,
      resource,
      slug: 'x',
      file: `content/${folder}/x.md`,
      absPath: `/p/content/${folder}/x.md`,
      frontMatter,
      frontMatterLines: Object.fromEntries(Object.keys(frontMatter).map((key, i) => [key, i + 2])),
      body: '',
      bodyLine: 10,
      hash: 'h',
    };
    return buildRecord(doc, {
      config,
      render: () => ({ html: '', images: [], problems: [] }),
      media: { resolve: async () => ({ ok: false, message: '' }), hashFile: async () => undefined },
    });
  }

  it('reads author, authors (one or a list, each once) and parent into refs that state keeps', async () => {
    const article = await build('article', { title: 'T', author: 'jane', authors: ['joe', 'jane', 'joe'] });
    expect(article.problems).toEqual([]);
    expect(article.record!.refs!.map((r) => [r.relation.key, r.slugs, r.line])).toEqual([
      ['author', ['jane'], 3],
      ['authors', ['joe', 'jane'], 4],
    ]);
    expect(article.record!.input!.refs).toEqual({
      author: { slugs: ['jane'], line: 3 },
      authors: { slugs: ['joe', 'jane'], line: 4 },
    });
    const one = await build('article', { title: 'T', authors: 'jane' });
    expect(one.record!.refs!.map((r) => r.slugs)).toEqual([['jane']]);
    const category = await build('category', { name: 'N', parent: 'top' });
    expect(category.record!.refs!.map((r) => [r.relation.field, r.slugs])).toEqual([['parent_id', ['top']]]);
  });

  it('refuses what is not a slug, pointing a list under `author` to `authors`', async () => {
    const bad = await build('article', { title: 'T', author: ['a', 'b'], authors: [1], category: '' });
    expect(bad.problems.map(formatProblem)).toEqual([
      'content/articles/x.md:5:1: `category` must not be empty',
      'content/articles/x.md:3:1: `author` names one user, got a list: use `authors:` for several',
      'content/articles/x.md:4:1: `authors` must be the slug of a user (content/users/<slug>.md), got a number (1)',
    ]);
    const typo = await build('article', { title: 'T', athor: 'jane' });
    expect(typo.problems.map((p) => p.message)).toEqual([
      expect.stringContaining('`athor` looks like a typo of `author`'),
    ]);
  });
});
