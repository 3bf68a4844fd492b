import { describe, expect, it } from 'vitest';
import { fail, ok, setup } from './helpers.js';

const records = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => ({ id: from + i, title: `t${from + i}` }));

/** A CMS holding `all`, paging honestly but never returning more than `cap` per page. */
function pagingCms(
  all: { id: number }[],
  options: { cap?: number; shape?: (items: unknown[], total: number) => unknown } = {},
) {
  const shape = options.shape ?? ((items, total) => ({ items, total }));
  return (body: Record<string, unknown>) => {
    const limit = Math.min(Number(body.limit ?? 50), options.cap ?? 100);
    const offset = Number(body.offset ?? 0);
    return ok(shape(all.slice(offset, offset + limit), all.length));
  };
}

describe('list', () => {
  it('reads every page with limit 100, offsets in order, sorted by id', async () => {
    const { client, sent } = setup(pagingCms(records(250)));
    const result = await client.list('article');
    expect(result).toMatchObject({ complete: true, total: 250 });
    expect(result.records).toHaveLength(250);
    expect(result.records.at(-1)).toEqual({ id: 250, title: 't250' });
    expect(sent.map((s) => s.body)).toEqual(
      [0, 100, 200].map((offset) => ({
        resource: 'article',
        action: 'get',
        limit: 100,
        offset,
        order_by: 'id ASC',
      })),
    );
  });

  it('reads one more (empty) page when the last page is exactly full', async () => {
    const { client, sent } = setup(pagingCms(records(200), { shape: (items) => items }));
    const result = await client.list('category');
    expect(result).toEqual({ records: records(200), complete: true });
    expect(sent).toHaveLength(3);
  });

  it('passes fields (always with id), filters and order', async () => {
    const { client, sent } = setup(pagingCms(records(3)));
    await client.list('article', { fields: ['slug'], filters: { status: 1 }, orderBy: 'created_at DESC' });
    expect(sent[0]?.body).toEqual({
      resource: 'article',
      action: 'get',
      limit: 100,
      offset: 0,
      order_by: 'created_at DESC',
      fields: ['id', 'slug'],
      filters: { status: 1 },
    });
  });

  it('uses a smaller configured page size', async () => {
    const { client, sent } = setup(pagingCms(records(25)), { wire: { pageSize: 10 } });
    const result = await client.list('page');
    expect(result.records).toHaveLength(25);
    expect(sent.map((s) => s.body.limit)).toEqual([10, 10, 10]);
  });

  it('keeps reading past a short page when the total says more exist (a CMS capping pages at 50)', async () => {
    const { client, sent } = setup(pagingCms(records(120), { cap: 50 }));
    const result = await client.list('article');
    expect(result).toMatchObject({ complete: true, total: 120 });
    expect(result.records).toHaveLength(120);
    expect(sent.map((s) => s.body.offset)).toEqual([0, 50, 100]);
    for (const s of sent) expect(s.body.limit).toBeLessThanOrEqual(100);
  });

  it('is not complete when the total changes while listing', async () => {
    const all = records(150);
    const { client } = setup((body) => {
      const offset = Number(body.offset);
      return ok({ records: all.slice(offset, offset + 100), total: offset === 0 ? 150 : 151 });
    });
    const result = await client.list('article');
    expect(result.complete).toBe(false);
    expect(result.records).toHaveLength(150);
  });

  it('is not complete when the count does not match the total', async () => {
    const { client } = setup(() => ok({ results: records(5), total: 9 }));
    await expect(client.list('article')).resolves.toMatchObject({ complete: false, total: 9 });
  });

  it('is not complete when a record comes back twice (the list shifted)', async () => {
    const all = records(150);
    const { client } = setup((body) => {
      // A record was deleted between the pages: the second page starts one early.
      const offset = Number(body.offset) === 0 ? 0 : 99;
      return ok(all.slice(offset, offset + 100));
    });
    const result = await client.list('article');
    expect(result.complete).toBe(false);
    expect(result.records).toHaveLength(150);
  });

  it('stops, incomplete, when the CMS ignores offset', async () => {
    const { client, sent } = setup(() => ok({ articles: records(100) }));
    const result = await client.list('article');
    expect(result.complete).toBe(false);
    expect(sent).toHaveLength(2);
  });

  it('fails on a record without an id', async () => {
    const { client } = setup(() => ok([{ title: 'no id' }]));
    await expect(client.list('article')).rejects.toMatchObject({ code: 'CMS_SYNC_PROTOCOL' });
  });

  it('propagates a page failure', async () => {
    const { client } = setup((body) =>
      Number(body.offset) === 100 ? fail(400, 'bad offset') : ok(records(100)),
    );
    await expect(client.list('article')).rejects.toMatchObject({ code: 'CMS_SYNC_REJECTED' });
  });
});

describe('list, many pages', () => {
  it('asks for the pages after the first at once when the CMS reports a total, and takes them in order', async () => {
    const { client, sent, events } = setup(pagingCms(records(450)), { concurrency: 4 });
    const result = await client.list('article');
    expect(result).toMatchObject({ complete: true, total: 450 });
    expect(result.records.map((r) => r.id)).toEqual(records(450).map((r) => r.id));
    expect(sent.map((s) => s.body.offset)).toEqual([0, 100, 200, 300, 400]);
    // Against a remote CMS each page is a round trip: after the first answer, four requests go
    // out (the client's concurrency) before the next answer comes back.
    const flow = events.flatMap((e) =>
      e.type === 'request' ? ['ask'] : e.type === 'response' ? ['answer'] : [],
    );
    expect(flow).toEqual([
      'ask',
      'answer',
      'ask',
      'ask',
      'ask',
      'ask',
      'answer',
      'answer',
      'answer',
      'answer',
    ]);
  });

  it('goes on one page at a time when a page in the middle comes back short (the list moved)', async () => {
    const all = records(350);
    const { client, sent } = setup((body) => {
      const offset = Number(body.offset);
      // A record deleted after the first page: the page at 100 is one short, the rest shift.
      const now = offset === 0 ? all : all.filter((r) => r.id !== 150);
      return ok({
        items: now.slice(offset, offset + (offset === 100 ? 99 : 100)),
        total: offset === 0 ? 350 : 349,
      });
    });
    const result = await client.list('article');
    expect(result.complete).toBe(false);
    // 100 gave 99: the pages fetched at 200 and 300 are dropped, reading goes on from 199.
    expect(sent.map((s) => s.body.offset)).toEqual([0, 100, 200, 300, 199, 299]);
    expect(result.records).toHaveLength(349);
  });
});
