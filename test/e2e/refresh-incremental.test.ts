import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, SECRET_TOKEN, type Project } from './harness.js';

/**
 * A refresh that costs what changed: the CMS's listing is cached, and a run asks only for the
 * records changed since the last one (newest first) plus the count. Pages of two records, so
 * that three articles take two pages; no lookback, since every write here is seconds old.
 * ORDER_QUIRK makes the client ignore or refuse `order_by` (a CMS that does not sort);
 * EVERY_RUNS sets sync.fullRefresh.everyRuns.
 */
const CONFIG = `
export default {
  wire: { pageSize: 2, changeMarkerLookbackMs: 0 },
  sync: { fullRefresh: { everyRuns: Number(process.env.EVERY_RUNS ?? 100) } },
  target: {
    client: (options, createDefault) => {
      const client = createDefault(options);
      const quirk = process.env.ORDER_QUIRK;
      if (!quirk) return client;
      const call = client.call;
      client.call = (request, o) => {
        if (!request.order_by?.endsWith(' DESC')) return call(request, o);
        if (quirk === 'ignore') {
          const { order_by, ...rest } = request;
          return call(rest, o);
        }
        return call({ ...request, order_by: 'no_such_field DESC' }, o);
      };
      return client;
    },
  },
};
`;

const article = (title: string) => `---\ntitle: ${title}\n---\n\nText of ${title}.\n`;

interface PlanJson {
  plan: { changes: Array<{ key: string; action: string; id?: number; kind?: string; owner?: string }> };
}

describe('a refresh that reads only what changed in the CMS', () => {
  let project: Project;
  /** The CLI's run with the CMS's calls counted: list calls per resource, and every request. */
  const counted = async (args: string[], env: Record<string, string> = {}) => {
    project.cms.resetStats();
    const result = await project.run(args, { env });
    const { byAction, requests } = project.cms.stats();
    return { ...result, byAction, requests };
  };
  const plan = async (env: Record<string, string> = {}) => {
    const result = await counted(['plan', '--json'], env);
    const changes = (JSON.parse(result.stdout) as PlanJson).plan.changes;
    // --json moves the target's line to stderr: the rest is what the run had to say.
    const said = result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('Target: '));
    return { ...result, said, change: (key: string) => changes.find((c) => c.key === key) };
  };
  const cacheEntry = async (resource: string) => {
    const dir = path.join(project.dir, '.cms-sync', 'listing-cache');
    const [file] = await readdir(dir);
    const cache = JSON.parse(await readFile(path.join(dir, file!), 'utf8'));
    expect(JSON.stringify(cache)).not.toContain(SECRET_TOKEN);
    return cache.resources[resource] as { runs: number; fullAt: number; records: { ids: number[] } };
  };
  const idOf = async (slug: string) => (await project.records('article')).find((a) => a.slug === slug)!.id;

  beforeAll(async () => {
    project = await createProject({
      'sync.config.ts': CONFIG,
      'content/articles/a.md': article('A'),
      'content/articles/b.md': article('B'),
      'content/articles/c.md': article('C'),
    });
    // In this process: the runs the tests look at are the CLI's, after these.
    expect((await project.applyInProcess()).exitCode).toBe(0);
    // The first run after the apply reads what it wrote: those are the changes. So may the
    // second, as its listing began within milliseconds of those writes' times.
    for (let i = 0; i < 2; i++) expect((await project.planInProcess()).exitCode).toBe(0);
  });
  afterAll(async () => {
    expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
    await project.close();
  });

  it('makes one list call per resource that matters on a no-op, and the next no-op stays there', async () => {
    for (let run = 0; run < 2; run++) {
      const noop = await counted(['plan']);
      expect(noop.code).toBe(0);
      expect(noop.stderr).toBe('');
      // Articles, and the categories and users they may name; pages and breaking news have no
      // files and no state, so they are not read at all.
      expect(noop.byAction).toEqual({ 'article.get': 1, 'category.get': 1, 'user.get': 1 });
      expect(noop.requests).toBe(3);
    }
    expect(await cacheEntry('article')).toMatchObject({ records: { ids: expect.any(Array) } });
    expect((await cacheEntry('article')).records.ids).toHaveLength(3);
  });

  it('sees an edit and a create made in the CMS, and a file adopts the created record by slug', async () => {
    await project.api({
      resource: 'article',
      action: 'edit',
      id: await idOf('a'),
      data: { title: 'A, by hand' },
    });
    const made = await project.api({
      resource: 'article',
      action: 'add',
      data: { title: 'D', slug: 'd', body: '<p>Text of D.</p>', status: 1 },
    });
    await project.write('content/articles/d.md', article('D'));
    const result = await plan();
    expect(result.code).toBe(0);
    expect(result.said).toEqual([]);
    expect(result.change('article/a')).toMatchObject({ action: 'drift' });
    expect(result.change('article/d')).toMatchObject({ action: 'adopt', id: made.id });
    // Two pages (the changes fill the first; the second shows where they end), then the edited
    // record and the one a file adopts read in full.
    expect(result.byAction['article.get']).toBe(4);
    expect((await cacheEntry('article')).records.ids).toHaveLength(4);
  });

  it('sees a managed record deleted in the CMS, by listing in full when the count disagrees', async () => {
    await project.api({ resource: 'article', action: 'delete', id: await idOf('b') });
    const result = await plan();
    expect(result.change('article/b')).toMatchObject({ action: 'drift', kind: 'deleted-in-cms' });
    expect(result.said).toEqual([
      'The CMS holds another number of article records than the last listing and the changes since add up to ' +
        '(records were deleted in the CMS): listed every one.',
    ]);
    expect((await cacheEntry('article')).records.ids).toHaveLength(3);
  });

  it('sees a delete hidden by a create (the same count)', async () => {
    await project.api({ resource: 'article', action: 'delete', id: await idOf('c') });
    await project.api({
      resource: 'article',
      action: 'add',
      data: { title: 'E', slug: 'e', body: '<p>E</p>' },
    });
    const result = await plan();
    expect(result.change('article/c')).toMatchObject({ action: 'drift', kind: 'deleted-in-cms' });
    expect(result.said).toEqual([expect.stringContaining('The CMS holds another number of article records')]);
  });

  it('lists in full on --refresh=full, and then reads only changes again', async () => {
    const full = await counted(['plan', '--refresh=full']);
    expect(full.stderr).toBe('');
    // Four articles in pages of two, in id order, and the two records the plan reads in full (the
    // one edited by hand, the one a file may adopt).
    expect(full.byAction['article.get']).toBe(4);
    expect((await cacheEntry('article')).runs).toBe(0);
    const next = await counted(['plan']);
    expect(next.code).toBe(0);
    expect((await cacheEntry('article')).runs).toBe(1);
  });

  it('lists in full every N runs (sync.fullRefresh.everyRuns)', async () => {
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      await project.run(['plan'], { env: { EVERY_RUNS: '3' } });
      runs.push((await cacheEntry('article')).runs);
    }
    // After one listing of changes (above): a second, then the third run lists in full, then changes again.
    expect(runs).toEqual([2, 0, 1]);
  });

  it('takes the records apply deleted out of the cache, so the next run does not list in full', async () => {
    // d was only planned so far: adopt it, with an edit that makes it the newest record, then
    // remove its file (the CMS's newest record is then older than the newest one listed before).
    await project.write('content/articles/d.md', article('D, edited'));
    expect((await project.run(['apply'])).code).toBe(3);
    await project.remove('content/articles/d.md');
    const pruned = await project.run(['apply', '--prune', '--json']);
    expect(JSON.parse(pruned.stdout).result).toMatchObject({ deleted: 1 });
    const next = await plan();
    expect(next.said).toEqual([]);
    // One page of changes, and a (changed by hand, still drifted) read in full.
    expect(next.byAction['article.get']).toBe(2);
  });

  for (const [quirk, line] of [
    [
      'ignore',
      'The CMS did not list records by `updated_at` newest first, so only changes could not be read: ' +
        'listed every record of article.',
    ],
    [
      'refuse',
      'The CMS refused to list records by `updated_at` newest first, so only changes could not be read: ' +
        'listed every record of category, user, article.',
    ],
  ] as const) {
    it(`lists in full, saying so once, when the CMS does not sort by the marker (${quirk}s order_by)`, async () => {
      // Records changed by hand since, in id order: a CMS that ignores the order lists them oldest first.
      for (const slug of ['a', 'e'])
        await project.api({
          resource: 'article',
          action: 'edit',
          id: await idOf(slug),
          data: { title: `${slug}!` },
        });
      const result = await plan({ ORDER_QUIRK: quirk });
      expect(result.said).toEqual([expect.stringContaining(line)]);
      expect(result.change('article/c')).toMatchObject({ action: 'drift', kind: 'deleted-in-cms' });
    });
  }
});

describe("the listing cache after an apply: what the run's own writes left", () => {
  let project: Project;
  afterAll(async () => {
    await project.close();
  });

  it('holds a row per record created or edited, with the marker the CMS gave it, one row per record', async () => {
    project = await createProject({
      'sync.config.ts': CONFIG,
      'content/articles/a.md': article('A'),
      'content/articles/b.md': article('B'),
    });
    expect((await project.run(['apply'])).code).toBe(0);
    await project.write('content/articles/a.md', article('A, edited'));
    await project.write('content/articles/c.md', article('C'));
    expect((await project.run(['apply'])).code).toBe(0);
    const [file] = await readdir(path.join(project.dir, '.cms-sync', 'listing-cache'));
    const cache = JSON.parse(
      await readFile(path.join(project.dir, '.cms-sync', 'listing-cache', file!), 'utf8'),
    );
    const { ids, slugs, markers } = cache.resources.article.records as {
      ids: number[];
      slugs: string;
      markers: string;
    };
    const rows = ids.map((id, i) => [id, slugs.split('\n')[i], markers.split('\n')[i]]);
    const cms = (await project.records('article')).map((r) => [r.id, r.slug, r.updated_at]);
    expect(rows.sort()).toEqual(cms.sort());
    expect(cms).toHaveLength(3);
  });
});
