import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordStore } from '../../src/server/storage/record-store.js';
import { call, errorOf, ok, removeDir, startTestCms, tempDir } from './helpers.js';

let cms: Awaited<ReturnType<typeof startTestCms>>;
beforeAll(async () => {
  cms = await startTestCms();
});
afterAll(async () => {
  await cms.stop();
});

describe('a record that cannot be stored leaves nothing behind', () => {
  it('refuses 5,000 nested arrays with a 400 and every listing still works', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const raw = `{"resource":"article","action":"add","data":{"title":"Deep","nested":${deep}}}`;
    const reply = await call(cms, undefined, { raw });
    expect(errorOf(reply)).toEqual({
      status: 400,
      message: 'The request body nests arrays or objects more than 64 levels deep; flatten the data.',
    });
    const listed = await call(cms, { resource: 'article', action: 'get', filters: { title: 'Deep' } });
    expect(listed.body).toEqual({ status: 'success', data: { items: [], total: 0, limit: 50, offset: 0 } });
  });

  it('accepts nesting up to the limit, brackets inside strings not counted', async () => {
    const nested = '['.repeat(60) + ']'.repeat(60);
    const raw = `{"resource":"article","action":"add","data":{"title":"Nested [[[[ {{{{","nested":${nested}}}`;
    expect((await call(cms, undefined, { raw })).body).toMatchObject({ status: 'success' });
  });

  it('keeps nothing in memory when the record cannot be serialised (the store alone)', async () => {
    const dir = await tempDir();
    try {
      const store = await RecordStore.open(dir);
      // A BigInt makes JSON.stringify throw, as a stack overflow on deep nesting does.
      await expect(
        store.exclusive(async () => store.insert('article', () => ({ title: 'x', big: 10n }))),
      ).rejects.toThrow(/BigInt/);
      expect(store.count('article')).toBe(0);
      expect(() => JSON.stringify(store.list('article'))).not.toThrow();
      await store.drain();
    } finally {
      await removeDir(dir);
    }
  });
});

describe('field names that are also names of Object.prototype', () => {
  it('stores, returns, filters and reloads fields named toString, constructor, __proto__, hasOwnProperty', async () => {
    const raw = JSON.stringify({ resource: 'article', action: 'add', data: { title: 'Proto' } }).replace(
      '"title":"Proto"',
      '"title":"Proto","toString":"text","constructor":7,"__proto__":{"polluted":true},"hasOwnProperty":null',
    );
    const added = await call(cms, undefined, { raw });
    expect(added.body.status).toBe('success');
    const record = (added.body as { data: Record<string, unknown> }).data;
    expect(Object.keys(record)).toEqual(
      expect.arrayContaining(['toString', 'constructor', '__proto__', 'hasOwnProperty']),
    );
    expect(record['toString']).toBe('text');
    expect(record['constructor']).toBe(7);
    expect(Object.getOwnPropertyDescriptor(record, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();

    const id = record['id'] as number;
    const text = await readFile(join(cms.dataDir, 'records', 'article', `${id}.json`), 'utf8');
    expect(JSON.parse(text)).toMatchObject({ toString: 'text', constructor: 7, hasOwnProperty: null });
    expect(text).toContain('"__proto__": {');

    const picked = await ok(cms, {
      resource: 'article',
      action: 'get',
      id,
      fields: ['toString', 'constructor'],
    });
    expect(picked).toEqual({ toString: 'text', constructor: 7 });
    const filtered = await ok(cms, {
      resource: 'article',
      action: 'get',
      filters: { constructor: 7 },
      fields: ['id'],
    });
    expect(filtered.items).toEqual([{ id }]);
  });

  it('does not take a field another article lacks from Object.prototype', async () => {
    await ok(cms, { resource: 'article', action: 'add', data: { title: 'Plain' } });
    const all = await ok(cms, {
      resource: 'article',
      action: 'get',
      fields: ['title', 'toString'],
      filters: { title: 'Plain' },
    });
    expect(all.items).toEqual([{ title: 'Plain', toString: null }]);
  });

  it('refuses toString on a resource without custom fields instead of dropping it', async () => {
    const reply = await call(cms, { resource: 'user', action: 'add', data: { name: 'N', toString: 'x' } });
    expect(errorOf(reply).message).toMatch(/^Unknown field "toString" for user\./);
  });
});

describe('category parents', () => {
  it('refuses an edit that makes a parent chain loop, naming the loop', async () => {
    const a = await ok(cms, { resource: 'category', action: 'add', data: { name: 'A' } });
    const b = await ok(cms, { resource: 'category', action: 'add', data: { name: 'B', parent_id: a.id } });
    const c = await ok(cms, { resource: 'category', action: 'add', data: { name: 'C', parent_id: b.id } });
    const reply = await call(cms, {
      resource: 'category',
      action: 'edit',
      id: a.id,
      data: { parent_id: c.id },
    });
    expect(errorOf(reply)).toEqual({
      status: 400,
      message:
        `category.parent_id ${c.id} would make a loop (category ${a.id} → ${c.id} → ${b.id} → ${a.id}): ` +
        'a category cannot be its own ancestor.',
    });
    expect((await ok(cms, { resource: 'category', action: 'get', id: a.id })).parent_id).toBeUndefined();
    const self = await call(cms, {
      resource: 'category',
      action: 'edit',
      id: b.id,
      data: { parent_id: b.id },
    });
    expect(errorOf(self).message).toMatch(/cannot be the record's own id/);
    // Moving a subtree elsewhere without a loop is fine.
    const d = await ok(cms, { resource: 'category', action: 'add', data: { name: 'D' } });
    expect(
      (await ok(cms, { resource: 'category', action: 'edit', id: b.id, data: { parent_id: d.id } }))
        .parent_id,
    ).toBe(d.id);
  });
});

describe('URL fields', () => {
  it.each([
    'javascript:alert(1)',
    ' JavaScript:alert(1)',
    'java\tscript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
  ])('refuses breaking.url %j', async (url) => {
    const reply = await call(cms, { resource: 'breaking', action: 'add', data: { title: 'T', url } });
    expect(errorOf(reply)).toMatchObject({
      status: 400,
      message: expect.stringMatching(
        /^breaking\.url must be an http or https URL, or a relative one; [a-z]+: URLs are refused/,
      ),
    });
  });

  it.each(['https://example.com/news', 'http://example.com', '/news/1', 'news/1', '//example.com/x', ''])(
    'accepts breaking.url %j',
    async (url) => {
      expect((await ok(cms, { resource: 'breaking', action: 'add', data: { title: 'T', url } })).url).toBe(
        url,
      );
    },
  );
});

describe('filter sizes', () => {
  it('refuses a filter with more than 1,000 values, and filters over 64 KiB, with a 400', async () => {
    const many = Array.from({ length: 700_000 }, (_, i) => i);
    const reply = await call(cms, { resource: 'article', action: 'get', filters: { id: many } });
    expect(errorOf(reply)).toEqual({
      status: 400,
      message:
        'filters.id lists 700000 values; at most 1000 are accepted. Split the read into several requests.',
    });
    const long = await call(cms, {
      resource: 'article',
      action: 'get',
      filters: { title: 'x'.repeat(70_000) },
    });
    expect(errorOf(long).message).toMatch(/^"filters" is \d+ bytes of JSON; at most 65536 are accepted\./);
  });

  it('still matches loosely: a number and its decimal string, null and a missing field', async () => {
    const x = await ok(cms, {
      resource: 'article',
      action: 'add',
      data: { title: 'Loose', status: 3, rank: '12' },
    });
    const ids = async (filters: unknown) =>
      (
        await ok(cms, {
          resource: 'article',
          action: 'get',
          filters: { title: 'Loose', ...(filters as object) },
        })
      ).items.map((r: { id: number }) => r.id);
    expect(await ids({ status: '3' })).toEqual([x.id]);
    expect(await ids({ status: [' 3 ', 9] })).toEqual([x.id]);
    expect(await ids({ status: '' })).toEqual([]);
    expect(await ids({ rank: 12 })).toEqual([x.id]);
    expect(await ids({ rank: '12.0' })).toEqual([]);
    expect(await ids({ slug: null })).toEqual([x.id]);
    expect(await ids({ status: true })).toEqual([]);
  });
});
