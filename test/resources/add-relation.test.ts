import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyPlan } from '../../src/apply/apply-plan.js';
import { resolveConfig } from '../../src/config/load-config.js';
import { formatProblem } from '../../src/errors.js';
import { computePlan, idBook, type PlanInput } from '../../src/plan/compute-plan.js';
import { buildRecord, type DesiredRecord } from '../../src/records/build-record.js';
import { createClient } from '../../src/remote/client.js';
import { RECORD_RESOURCES, type RecordResource } from '../../src/resources.js';
import type { RemoteListing } from '../../src/remote/snapshot.js';
import { startLocalCms } from '../../src/server/index.js';
import type { SourceDocument } from '../../src/source/read-document.js';
import { StateStore } from '../../src/state/journal.js';

// The real resource table with one more relation, an article's `editor` (a user, sent as
// `editor_id`): the only change. Nothing else in src/ is told about it, and the whole way from
// front matter to the CMS must carry it.
vi.mock('../../src/resources/table.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/resources/table.js')>();
  const editor = { key: 'editor', target: 'user', field: 'editor_id', many: false } as const;
  return {
    ...real,
    RESOURCE_TABLE: {
      ...real.RESOURCE_TABLE,
      article: {
        ...real.RESOURCE_TABLE.article,
        relations: [...real.RESOURCE_TABLE.article.relations, editor],
      },
    },
  };
});

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  // Last made, first undone: the CMS stops before its folder goes.
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const config = resolveConfig({}, { projectDir: '/p', env: {} });

async function build(resource: RecordResource, slug: string, frontMatter: Record<string, unknown>) {
  const folder = { article: 'articles', user: 'users' }[resource as 'article' | 'user'];
  const lines = Object.fromEntries(Object.keys(frontMatter).map((key, i) => [key, i + 2]));
  const doc: SourceDocument = {
    key: `${resource}/${slug}`,
    resource,
    slug,
    file: `content/${folder}/${slug}.md`,
    absPath: `/p/content/${folder}/${slug}.md`,
    frontMatter,
    frontMatterLines: lines,
    body: 'Text.',
    bodyLine: Object.keys(frontMatter).length + 3,
    hash: `hash-of-${slug}`,
  };
  return buildRecord(doc, {
    config,
    render: (markdown) => ({ html: `<p>${markdown}</p>`, images: [], problems: [] }),
    media: {
      resolve: async () => ({ ok: false, message: 'no media here' }),
      hashFile: async () => undefined,
    },
  });
}

function emptyListing(): Record<RecordResource, RemoteListing> {
  return Object.fromEntries(
    RECORD_RESOURCES.map((r) => [r, { records: [], complete: true }]),
  ) as unknown as Record<RecordResource, RemoteListing>;
}

describe('a relation added to the resource table, and nothing else', () => {
  it('is read from front matter, checked, ordered, bound to an id and stored by the CMS', async () => {
    const ed = await build('user', 'ed', { name: 'Ed' });
    const post = await build('article', 'post', { title: 'Post', editor: 'ed' });
    const typo = await build('article', 'typo', { title: 'Typo', editor: 'eb' });
    const list = await build('article', 'list', { title: 'List', editor: ['ed', 'ed'] });
    // The config knows the new field as a managed one (its API name can be changed).
    expect(config.resources.article.fields.editor_id).toBe('editor_id');
    expect(list.problems.map(formatProblem)).toEqual([
      'content/articles/list.md:3:1: `editor` names one user, got a list',
    ]);
    expect(post.record!.refs?.map((r) => [r.relation.key, r.slugs, r.line])).toEqual([['editor', ['ed'], 3]]);

    const desired = [post.record!, typo.record!, ed.record!] as DesiredRecord[];
    const state = {
      version: 1,
      target: 'local',
      records: new Map(),
      media: {},
    } as unknown as PlanInput['state'];
    const input: PlanInput = {
      desired,
      remote: emptyListing(),
      state,
      protectedKeys: new Set(),
      failedFiles: new Set(),
      resources: config.resources,
      prune: false,
      maxDeletes: 20,
      overwriteDrift: false,
    };
    const plan = computePlan(input);
    expect(plan.problems.map(formatProblem)).toEqual([
      'content/articles/typo.md:3:1: user `eb` does not exist in content/users/ or in the CMS: did you mean `ed`? ' +
        'Known user slugs: `ed`. Fix `editor:` or add content/users/eb.md',
    ]);
    // The user is written before the article that names it, though `article` sorts first.
    expect(plan.changes.map((c) => `${c.action} ${c.key}`)).toEqual([
      'create user/ed',
      'create article/post',
    ]);

    const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-relation-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const cms = await startLocalCms({ dataDir: path.join(dir, 'cms'), port: 0, token: 'tok_relation_test' });
    cleanups.push(() => cms.close());
    const client = createClient({ baseUrl: cms.url, token: 'tok_relation_test' });
    cleanups.push(() => client.close());
    const store = await StateStore.open(path.join(dir, 'state'), 'local');
    const result = await applyPlan(plan, {
      client,
      store,
      config,
      book: idBook(input),
      uploadUrlOf: () => 'http://127.0.0.1/none',
    });
    expect(result.failures).toEqual([]);
    const users = (await client.list('user')).records;
    const articles = (await client.list('article')).records;
    expect(articles.map((a) => [a.slug, a.editor_id])).toEqual([['post', users[0]!.id]]);
  });
});
