import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, errorOf, ok, startTestCms, TOKEN } from './helpers.js';

type Cms = Awaited<ReturnType<typeof startTestCms>>;
let cms: Cms;

beforeAll(async () => {
  cms = await startTestCms();
});
afterAll(async () => {
  await cms.stop();
});

async function raw(
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${cms.url}${path}`, init);
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe('the endpoint and the envelope', () => {
  it('serves the API at POST {base}/functions/api', async () => {
    expect(cms.apiUrl).toBe(`${cms.url}/functions/api`);
    expect(cms.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const reply = await call(cms, { resource: 'article', action: 'get' });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(reply.body).toEqual({ status: 'success', data: { items: [], total: 0, limit: 50, offset: 0 } });
  });

  it('answers an unknown path with 404 in the error envelope', async () => {
    expect(await raw('/functions/api/')).toMatchObject({
      status: 404,
      body: {
        status: 'error',
        message: 'Nothing at /functions/api/. The API is at POST /functions/api; the read-only view is at /.',
      },
    });
    expect(await raw('/api', { method: 'POST' })).toMatchObject({ status: 404, body: { status: 'error' } });
  });

  it('answers another method with 405, an Allow header and the envelope', async () => {
    const reply = await raw('/functions/api');
    expect(reply).toMatchObject({
      status: 405,
      body: { status: 'error', message: 'The API takes POST requests only, got GET.' },
    });
    expect(reply.headers.get('allow')).toBe('POST');
    expect((await raw('/functions/api', { method: 'PUT' })).status).toBe(405);
    expect((await raw('/', { method: 'DELETE' })).body).toEqual({
      status: 'error',
      message: '/ is read-only: use GET.',
    });
  });

  it('answers bad JSON with 400', async () => {
    expect(errorOf(await call(cms, null, { raw: '{"resource": "article",' }))).toEqual({
      status: 400,
      message: expect.stringMatching(/^The request body is not valid JSON: /),
    });
    expect(errorOf(await call(cms, null, { raw: '' }))).toEqual({
      status: 400,
      message: 'The request body is empty; send a JSON object with "resource" and "action".',
    });
    expect(errorOf(await call(cms, [1, 2]))).toEqual({
      status: 400,
      message: 'The request body must be a JSON object, got an array.',
    });
  });

  it('requires Content-Type: application/json', async () => {
    const reply = await call(
      cms,
      { resource: 'article', action: 'get' },
      { headers: { 'content-type': 'text/plain' } },
    );
    expect(errorOf(reply)).toEqual({
      status: 400,
      message: 'Content-Type must be application/json, got "text/plain".',
    });
  });

  it('refuses a body over 8 MiB with 413', async () => {
    const big = JSON.stringify({
      resource: 'article',
      action: 'add',
      data: { title: 't', body: 'x'.repeat(8 * 1024 * 1024) },
    });
    const reply = await call(cms, null, { raw: big });
    expect(errorOf(reply)).toEqual({ status: 413, message: 'The request body is larger than 8 MiB.' });
    expect(await ok(cms, { resource: 'article', action: 'get', filters: { title: 't' } })).toMatchObject({
      total: 0,
    });
  });

  it('refuses a chunked body that grows past 8 MiB with 413, not a dropped connection', async () => {
    const { request } = await import('node:http');
    const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        cms.apiUrl,
        { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` } },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write('{"resource":"article","action":"add","data":{"title":"t","body":"');
      const chunk = 'x'.repeat(1024 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 9) {
          sent++;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end('"}}');
      };
      pump();
    });
    expect(reply).toEqual({
      status: 413,
      body: JSON.stringify({ status: 'error', message: 'The request body is larger than 8 MiB.' }),
    });
  });

  it('names unknown resources, actions and request fields', async () => {
    expect(errorOf(await call(cms, { resource: 'post', action: 'get' }))).toEqual({
      status: 400,
      message: '"resource" must be one of category, user, article, page, breaking, media, got "post".',
    });
    expect(errorOf(await call(cms, { resource: 'article', action: 'list' }))).toEqual({
      status: 400,
      message: '"action" must be one of get, add, edit, delete, upload_from_url, got "list".',
    });
    expect(errorOf(await call(cms, { resource: 'article', action: 'get', sort: 'id' }))).toEqual({
      status: 400,
      message:
        'Unknown request field "sort". Known fields: resource, action, id, fields, filters, limit, offset, order_by, ' +
        'data.',
    });
    expect(
      errorOf(await call(cms, { resource: 'article', action: 'upload_from_url', data: { url: 'http://x' } })),
    ).toEqual({
      status: 400,
      message: 'Action "upload_from_url" exists only for media; article supports get, add, edit and delete.',
    });
  });
});

describe('authentication', () => {
  it('answers a missing token with 401', async () => {
    expect(errorOf(await call(cms, { resource: 'article', action: 'get' }, { token: null }))).toEqual({
      status: 401,
      message: 'Missing API token: send the header "Authorization: Bearer <API_TOKEN>".',
    });
  });

  it('answers a wrong token with 401, whatever its length, and never echoes it', async () => {
    for (const token of ['nope', `${TOKEN}x`, TOKEN.slice(0, -1), 'a'.repeat(500)]) {
      const reply = await call(cms, { resource: 'article', action: 'get' }, { token });
      expect(errorOf(reply)).toEqual({
        status: 401,
        message: 'Invalid API token: check the token in the API settings of the dashboard.',
      });
    }
  });

  it('accepts any letter case of the Bearer scheme', async () => {
    const reply = await call(
      cms,
      { resource: 'article', action: 'get' },
      { token: null, headers: { authorization: `bearer ${TOKEN}` } },
    );
    expect(reply.status).toBe(200);
  });
});

describe('add, get, edit, delete', () => {
  it('add returns the created record with a numeric id, defaults and timestamps', async () => {
    const before = Date.now();
    const article = await ok(cms, {
      resource: 'article',
      action: 'add',
      data: { title: 'Hello', slug: 'hello', body: '<p>Hi</p>' },
    });
    expect(article).toEqual({
      id: expect.any(Number),
      title: 'Hello',
      slug: 'hello',
      body: '<p>Hi</p>',
      status: 0,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Date.parse(article.created_at)).toBeGreaterThanOrEqual(before - 1);
    expect(article.updated_at).toBe(article.created_at);
  });

  it('keeps a given created_at and custom article fields as-is', async () => {
    const article = await ok(cms, {
      resource: 'article',
      action: 'add',
      data: {
        title: 'Dated',
        created_at: '2024-05-01T09:30:00Z',
        tags: ['a', 'b'],
        meta: { seo: { noindex: true } },
        reading_time: 4,
      },
    });
    expect(article).toMatchObject({
      created_at: '2024-05-01T09:30:00Z',
      tags: ['a', 'b'],
      meta: { seo: { noindex: true } },
      reading_time: 4,
    });
    expect(await ok(cms, { resource: 'article', action: 'get', id: article.id })).toEqual(article);
  });

  it('get by id returns the record; an unknown id is 404', async () => {
    const page = await ok(cms, {
      resource: 'page',
      action: 'add',
      data: { title: 'About', content: '<p>Us</p>' },
    });
    expect(await ok(cms, { resource: 'page', action: 'get', id: page.id })).toEqual(page);
    expect(await ok(cms, { resource: 'page', action: 'get', id: String(page.id) })).toEqual(page);
    expect(errorOf(await call(cms, { resource: 'page', action: 'get', id: 9999 }))).toEqual({
      status: 404,
      message: 'page 9999 does not exist.',
    });
    expect(errorOf(await call(cms, { resource: 'page', action: 'get', id: 'abc' }))).toEqual({
      status: 400,
      message: '"id" must be a positive integer, got "abc".',
    });
  });

  it('edit changes only the fields sent, bumps updated_at and returns the record', async () => {
    const user = await ok(cms, {
      resource: 'user',
      action: 'add',
      data: { name: 'Ada', email: 'ada@example.com', role: 'editor' },
    });
    const edited = await ok(cms, {
      resource: 'user',
      action: 'edit',
      id: user.id,
      data: { role: 'admin', bio: 'Math' },
    });
    expect(edited).toEqual({ ...user, role: 'admin', bio: 'Math', updated_at: expect.any(String) });
    expect(edited.updated_at > user.updated_at).toBe(true);
    expect(await ok(cms, { resource: 'user', action: 'get', id: user.id })).toEqual(edited);
  });

  it('edit of an unknown id is 404; edit without id or data is 400', async () => {
    expect(
      errorOf(await call(cms, { resource: 'user', action: 'edit', id: 4242, data: { name: 'x' } })),
    ).toEqual({ status: 404, message: 'user 4242 does not exist.' });
    expect(errorOf(await call(cms, { resource: 'user', action: 'edit', data: { name: 'x' } }))).toEqual({
      status: 400,
      message: '"id" is required for edit.',
    });
    expect(errorOf(await call(cms, { resource: 'user', action: 'edit', id: 1 }))).toEqual({
      status: 400,
      message: '"data" is required for edit: an object of the record\'s fields.',
    });
    expect(errorOf(await call(cms, { resource: 'user', action: 'edit', id: 1, data: {} }))).toEqual({
      status: 400,
      message: '"data" of edit is empty: send the fields to change.',
    });
  });

  it('delete returns { id, deleted: true }; the record is gone; a second delete is 404', async () => {
    const item = await ok(cms, {
      resource: 'breaking',
      action: 'add',
      data: { title: 'Flash', url: 'https://example.com/flash', status: 1 },
    });
    expect(await ok(cms, { resource: 'breaking', action: 'delete', id: item.id })).toEqual({
      id: item.id,
      deleted: true,
    });
    expect(errorOf(await call(cms, { resource: 'breaking', action: 'get', id: item.id })).status).toBe(404);
    expect(errorOf(await call(cms, { resource: 'breaking', action: 'delete', id: item.id }))).toEqual({
      status: 404,
      message: `breaking ${item.id} does not exist.`,
    });
    expect(errorOf(await call(cms, { resource: 'breaking', action: 'delete' }))).toEqual({
      status: 400,
      message: '"id" is required for delete.',
    });
  });

  it('ids are per resource, numeric, and never reused after a delete', async () => {
    const fresh = await startTestCms();
    try {
      const a1 = await ok(fresh, { resource: 'category', action: 'add', data: { name: 'A' } });
      const a2 = await ok(fresh, { resource: 'category', action: 'add', data: { name: 'B' } });
      const u1 = await ok(fresh, { resource: 'user', action: 'add', data: { name: 'U' } });
      expect([a1.id, a2.id, u1.id]).toEqual([1, 2, 1]);
      await ok(fresh, { resource: 'category', action: 'delete', id: 2 });
      expect((await ok(fresh, { resource: 'category', action: 'add', data: { name: 'C' } })).id).toBe(3);
    } finally {
      await fresh.stop();
    }
  });

  it('add refuses an id; media add points to upload_from_url, media edit changes only title and alt', async () => {
    expect(
      errorOf(await call(cms, { resource: 'article', action: 'add', id: 5, data: { title: 'x' } })),
    ).toEqual({ status: 400, message: '"id" is not allowed in add: the server assigns ids.' });
    expect(
      errorOf(await call(cms, { resource: 'article', action: 'add', data: { id: 5, title: 'x' } })),
    ).toEqual({ status: 400, message: 'data.id is not allowed in add: the server assigns ids.' });
    expect(
      errorOf(await call(cms, { resource: 'media', action: 'add', data: { url: 'http://x/a.png' } })),
    ).toEqual({
      status: 400,
      message:
        'media records cannot be made with add: use action "upload_from_url" with data: { url, title?, alt? }.',
    });
    expect(errorOf(await call(cms, { resource: 'media', action: 'edit', id: 1, data: {} })).message).toBe(
      '"data" of edit is empty: send the fields to change.',
    );
    expect(
      errorOf(await call(cms, { resource: 'media', action: 'edit', id: 1, data: { url: 'http://x/b.png' } }))
        .message,
    ).toMatch(/^media field "url" cannot be edited: only title and alt can/);
    expect(
      errorOf(await call(cms, { resource: 'media', action: 'edit', id: 999, data: { alt: 'x' } })),
    ).toEqual({
      status: 404,
      message: 'media 999 does not exist.',
    });
  });
});

describe('get: fields, filters, limit, offset, order_by', () => {
  let list: Cms;
  beforeAll(async () => {
    list = await startTestCms();
    for (let i = 1; i <= 120; i++) {
      await ok(list, {
        resource: 'article',
        action: 'add',
        data: {
          title: `Post ${String(i).padStart(3, '0')}`,
          slug: `post-${i}`,
          status: i % 3 === 0 ? 1 : 0,
          rank: 200 - i,
        },
      });
    }
  });
  afterAll(async () => {
    await list.stop();
  });

  it('returns { items, total, limit, offset } with limit 50 and offset 0 by default, in id order', async () => {
    const data = await ok(list, { resource: 'article', action: 'get' });
    expect(data.total).toBe(120);
    expect(data.limit).toBe(50);
    expect(data.offset).toBe(0);
    expect(data.items.map((a: any) => a.id)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('pages with limit and offset', async () => {
    const data = await ok(list, {
      resource: 'article',
      action: 'get',
      limit: 100,
      offset: 100,
      fields: ['id'],
    });
    expect(data).toEqual({
      items: Array.from({ length: 20 }, (_, i) => ({ id: 101 + i })),
      total: 120,
      limit: 100,
      offset: 100,
    });
    expect((await ok(list, { resource: 'article', action: 'get', offset: 500 })).items).toEqual([]);
  });

  it('refuses a limit above 100 (no silent clamp), below 1 or not an integer', async () => {
    expect(errorOf(await call(list, { resource: 'article', action: 'get', limit: 101 }))).toEqual({
      status: 400,
      message: '"limit" must be at most 100, got 101; read larger lists page by page with "offset".',
    });
    for (const limit of [0, -1, 2.5, '10']) {
      expect(errorOf(await call(list, { resource: 'article', action: 'get', limit })).message).toMatch(
        /^"limit" must be an integer from 1 to 100, got /,
      );
    }
    expect(errorOf(await call(list, { resource: 'article', action: 'get', offset: -1 }))).toEqual({
      status: 400,
      message: '"offset" must be an integer >= 0, got -1 (number).',
    });
  });

  it('returns only the named fields, for lists and single records', async () => {
    const data = await ok(list, { resource: 'article', action: 'get', fields: ['slug', 'rank'], limit: 2 });
    expect(data.items).toEqual([
      { slug: 'post-1', rank: 199 },
      { slug: 'post-2', rank: 198 },
    ]);
    expect(await ok(list, { resource: 'article', action: 'get', id: 3, fields: ['title'] })).toEqual({
      title: 'Post 003',
    });
  });

  it('refuses an unknown field name in fields', async () => {
    const reply = await call(list, { resource: 'article', action: 'get', fields: ['id', 'titel'] });
    expect(errorOf(reply).status).toBe(400);
    expect(errorOf(reply).message).toMatch(
      /^Unknown field "titel" in "fields" for article\. Known fields: id, title, slug, body, status, category_id, author_id, created_at, updated_at, rank\.$/,
    );
  });

  it('filters by equality on any field; an array means one of', async () => {
    const published = await ok(list, {
      resource: 'article',
      action: 'get',
      filters: { status: 1 },
      limit: 100,
      fields: ['id'],
    });
    expect(published.total).toBe(40);
    expect(published.items.every((a: any) => a.id % 3 === 0)).toBe(true);
    expect(
      await ok(list, {
        resource: 'article',
        action: 'get',
        filters: { slug: ['post-7', 'post-9', 'nope'] },
        fields: ['id'],
      }),
    ).toEqual({
      items: [{ id: 7 }, { id: 9 }],
      total: 2,
      limit: 50,
      offset: 0,
    });
    expect(
      (
        await ok(list, {
          resource: 'article',
          action: 'get',
          filters: { status: '1', rank: 197 },
          fields: ['id'],
        })
      ).items,
    ).toEqual([{ id: 3 }]);
  });

  it('refuses a filter on an unknown field, or a filter value that is an object', async () => {
    expect(
      errorOf(await call(list, { resource: 'article', action: 'get', filters: { colour: 'red' } })).message,
    ).toMatch(/^Unknown field "colour" in "filters" for article\./);
    expect(
      errorOf(await call(list, { resource: 'category', action: 'get', filters: { title: 'x' } })).message,
    ).toBe(
      'Unknown field "title" in "filters" for category. Known fields: id, name, slug, description, parent_id, ' +
        'created_at, updated_at.',
    );
    expect(
      errorOf(await call(list, { resource: 'article', action: 'get', filters: { status: { gt: 1 } } })),
    ).toEqual({
      status: 400,
      message: 'filters.status must be a value or a list of values to match exactly, got an object.',
    });
  });

  it('sorts with order_by "<field> ASC|DESC", ties by id', async () => {
    const desc = await ok(list, {
      resource: 'article',
      action: 'get',
      order_by: 'title DESC',
      limit: 3,
      fields: ['title'],
    });
    expect(desc.items).toEqual([{ title: 'Post 120' }, { title: 'Post 119' }, { title: 'Post 118' }]);
    const byRank = await ok(list, {
      resource: 'article',
      action: 'get',
      order_by: 'rank ASC',
      limit: 2,
      fields: ['id'],
    });
    expect(byRank.items).toEqual([{ id: 120 }, { id: 119 }]);
    const byStatus = await ok(list, {
      resource: 'article',
      action: 'get',
      order_by: 'status desc',
      limit: 3,
      fields: ['id'],
    });
    expect(byStatus.items).toEqual([{ id: 3 }, { id: 6 }, { id: 9 }]);
  });

  it('refuses order_by on an unknown field or in another form', async () => {
    expect(
      errorOf(await call(list, { resource: 'article', action: 'get', order_by: 'popularity DESC' })).message,
    ).toMatch(/^Unknown field "popularity" in "order_by" for article\./);
    expect(errorOf(await call(list, { resource: 'article', action: 'get', order_by: 'title UP' }))).toEqual({
      status: 400,
      message: '"order_by" must look like "<field> ASC" or "<field> DESC", got "title UP".',
    });
  });

  it('refuses id combined with list parameters', async () => {
    expect(errorOf(await call(list, { resource: 'article', action: 'get', id: 1, limit: 5 }))).toEqual({
      status: 400,
      message:
        '"id" reads one record; it cannot be combined with "filters", "limit", "offset" or "order_by".',
    });
  });
});

describe('record validation', () => {
  it('requires title for article, page and breaking, name for category and user', async () => {
    const cases = [
      ['article', 'title'],
      ['page', 'title'],
      ['breaking', 'title'],
      ['category', 'name'],
      ['user', 'name'],
    ] as const;
    for (const [resource, field] of cases) {
      expect(errorOf(await call(cms, { resource, action: 'add', data: { slug: 'x' } }))).toEqual({
        status: 400,
        message: `Field "${field}" is required for ${resource}: send a non-empty string in data.${field}.`,
      });
    }
    expect(
      errorOf(await call(cms, { resource: 'article', action: 'add', data: { title: '   ' } })).message,
    ).toBe('Field "title" is required for article: send a non-empty string in data.title.');
  });

  it('refuses clearing a required field in an edit', async () => {
    const c = await ok(cms, { resource: 'category', action: 'add', data: { name: 'Keep' } });
    expect(
      errorOf(await call(cms, { resource: 'category', action: 'edit', id: c.id, data: { name: null } }))
        .message,
    ).toBe('Field "name" is required for category: send a non-empty string in data.name.');
  });

  it('requires status to be an integer', async () => {
    for (const status of ['1', 1.5, true]) {
      expect(
        errorOf(await call(cms, { resource: 'article', action: 'add', data: { title: 'x', status } }))
          .message,
      ).toMatch(/^article\.status must be an integer, got /);
    }
    expect(
      errorOf(await call(cms, { resource: 'breaking', action: 'add', data: { title: 'x', status: '2' } })),
    ).toEqual({
      status: 400,
      message: 'breaking.status must be an integer, got "2".',
    });
  });

  it('requires strings where strings are expected', async () => {
    expect(
      errorOf(await call(cms, { resource: 'user', action: 'add', data: { name: 'x', email: 42 } })),
    ).toEqual({ status: 400, message: 'user.email must be a string, got 42 (number).' });
    expect(
      errorOf(await call(cms, { resource: 'article', action: 'add', data: { title: ['x'] } })).message,
    ).toBe('article.title must be a string, got an array.');
    expect(
      errorOf(
        await call(cms, { resource: 'page', action: 'add', data: { title: 'x', content: { html: '' } } }),
      ).message,
    ).toBe('page.content must be a string of HTML, got an object.');
  });

  it('requires created_at to be ISO 8601', async () => {
    expect(
      errorOf(
        await call(cms, {
          resource: 'article',
          action: 'add',
          data: { title: 'x', created_at: 'yesterday' },
        }),
      ).message,
    ).toBe(
      'article.created_at must be an ISO 8601 date-time such as "2024-05-01T09:30:00Z", got "yesterday".',
    );
  });

  it('refuses unknown fields on resources other than article, naming the allowed ones', async () => {
    expect(
      errorOf(await call(cms, { resource: 'page', action: 'add', data: { title: 'x', tags: [] } })),
    ).toEqual({
      status: 400,
      message: 'Unknown field "tags" for page. Allowed fields: title, slug, content, status, created_at.',
    });
  });

  it('ignores updated_at sent by a client: the server owns it', async () => {
    const page = await ok(cms, {
      resource: 'page',
      action: 'add',
      data: { title: 'x', updated_at: '2000-01-01T00:00:00Z' },
    });
    expect(page.updated_at).not.toBe('2000-01-01T00:00:00Z');
  });

  it('checks category_id refers to an existing category', async () => {
    expect(
      errorOf(
        await call(cms, { resource: 'article', action: 'add', data: { title: 'x', category_id: 777 } }),
      ),
    ).toEqual({
      status: 400,
      message: 'article.category_id refers to category 777, which does not exist.',
    });
    const category = await ok(cms, {
      resource: 'category',
      action: 'add',
      data: { name: 'Tech', slug: 'tech' },
    });
    const article = await ok(cms, {
      resource: 'article',
      action: 'add',
      data: { title: 'x', category_id: category.id },
    });
    expect(article.category_id).toBe(category.id);
    expect(
      (await ok(cms, { resource: 'article', action: 'edit', id: article.id, data: { category_id: null } }))
        .category_id,
    ).toBeNull();
  });

  it('refuses to delete a category that articles use, naming them', async () => {
    const category = await ok(cms, {
      resource: 'category',
      action: 'add',
      data: { name: 'Used', slug: 'used' },
    });
    const a = await ok(cms, {
      resource: 'article',
      action: 'add',
      data: { title: 'A', slug: 'uses-a', category_id: category.id },
    });
    const b = await ok(cms, {
      resource: 'article',
      action: 'add',
      data: { title: 'B', category_id: category.id },
    });
    expect(errorOf(await call(cms, { resource: 'category', action: 'delete', id: category.id }))).toEqual({
      status: 409,
      message:
        `category ${category.id} cannot be deleted: it is used by article ${a.id} (uses-a), article ${b.id}. ` +
        `Change or delete those first.`,
    });
    await ok(cms, { resource: 'article', action: 'delete', id: a.id });
    await ok(cms, { resource: 'article', action: 'delete', id: b.id });
    expect(await ok(cms, { resource: 'category', action: 'delete', id: category.id })).toEqual({
      id: category.id,
      deleted: true,
    });
  });

  it('checks parent_id of a category', async () => {
    const parent = await ok(cms, { resource: 'category', action: 'add', data: { name: 'Parent' } });
    const child = await ok(cms, {
      resource: 'category',
      action: 'add',
      data: { name: 'Child', parent_id: parent.id },
    });
    expect(
      errorOf(
        await call(cms, {
          resource: 'category',
          action: 'edit',
          id: child.id,
          data: { parent_id: child.id },
        }),
      ).message,
    ).toBe(`category.parent_id cannot be the record's own id (${child.id}).`);
    expect(errorOf(await call(cms, { resource: 'category', action: 'delete', id: parent.id })).message).toBe(
      `category ${parent.id} cannot be deleted: it is used by category ${child.id} (as parent). Change or delete ` +
        `those first.`,
    );
  });
});

describe('dynamic-block elements', () => {
  let mediaId: number;
  beforeAll(async () => {
    // A media record is needed for valid blocks; the server's own page is a fetchable URL.
    mediaId = (await ok(cms, { resource: 'media', action: 'upload_from_url', data: { url: `${cms.url}/` } }))
      .id;
  });

  const block = (id: number | string, size = 'medium') =>
    `<dynamic-block data-id="${id}" data-type="media" data-size="${size}" contenteditable="false"></dynamic-block>`;

  it('accepts the exact form pointing at existing media, in body and content', async () => {
    const body = `<p>a</p>${block(mediaId, 'small')}<p>b</p>${block(mediaId, 'large')}`;
    expect((await ok(cms, { resource: 'article', action: 'add', data: { title: 'x', body } })).body).toBe(
      body,
    );
    expect(
      (await ok(cms, { resource: 'page', action: 'add', data: { title: 'x', content: block(mediaId) } }))
        .content,
    ).toBe(block(mediaId));
  });

  it('refuses a block pointing at media that does not exist', async () => {
    expect(
      errorOf(
        await call(cms, { resource: 'article', action: 'add', data: { title: 'x', body: block(99999) } }),
      ),
    ).toEqual({
      status: 400,
      message:
        'article.body embeds media 99999, which does not exist: upload it first with media upload_from_url.',
    });
  });

  it('refuses any other form, quoting the element', async () => {
    const bad = [
      `<dynamic-block data-type="media" data-id="${mediaId}" data-size="medium" ` +
        `contenteditable="false"></dynamic-block>`,
      `<dynamic-block data-id="${mediaId}" data-type="media" data-size="huge" contenteditable="false"></dynamic-block>`,
      `<dynamic-block data-id="${mediaId}" data-type="media" data-size="medium"></dynamic-block>`,
      `<dynamic-block data-id="${mediaId}" data-type="media" data-size="medium" contenteditable="false" />`,
      `<DYNAMIC-BLOCK data-id="${mediaId}" data-type="media" data-size="medium" ` +
        `contenteditable="false"></DYNAMIC-BLOCK>`,
      `<dynamic-block data-id="x" data-type="media" data-size="medium" contenteditable="false"></dynamic-block>`,
    ];
    for (const element of bad) {
      const reply = await call(cms, {
        resource: 'article',
        action: 'add',
        data: { title: 'x', body: `<p>ok</p>${element}<p>after</p>` },
      });
      expect(errorOf(reply)).toEqual({
        status: 400,
        message:
          `article.body holds a malformed dynamic-block element: ${element} — expected exactly <dynamic-block ` +
          `data-id="<media id>" data-type="media" data-size="small|medium|large" ` +
          `contenteditable="false"></dynamic-block>.`,
      });
    }
    expect(
      errorOf(
        await call(cms, {
          resource: 'page',
          action: 'add',
          data: { title: 'x', content: '<p></dynamic-block></p>' },
        }),
      ).message,
    ).toMatch(/^page\.content holds a malformed dynamic-block element: <\/dynamic-block> — /);
  });

  it('refuses to delete media that a body embeds, naming the records', async () => {
    const reply = await call(cms, { resource: 'media', action: 'delete', id: mediaId });
    expect(errorOf(reply).status).toBe(409);
    expect(errorOf(reply).message).toMatch(
      new RegExp(
        `^media ${mediaId} cannot be deleted: it is used by article \\d+, page \\d+\\. Change or delete those ` +
          `first\\.$`,
      ),
    );
  });
});

describe('unexpected exceptions', () => {
  it('answer 500 in the envelope, without the token', async () => {
    const fresh = await startTestCms();
    try {
      // Make the store's directory unwritable in a way an ordinary write cannot expect: a file
      // where the folder should be.
      const { rm, writeFile } = await import('node:fs/promises');
      const { join } = await import('node:path');
      await rm(join(fresh.dataDir, 'records', 'user'), { recursive: true });
      await writeFile(join(fresh.dataDir, 'records', 'user'), 'not a folder');
      const reply = await call(fresh, { resource: 'user', action: 'add', data: { name: 'x' } });
      expect(reply.status).toBe(500);
      expect(errorOf(reply).message).toMatch(/^Internal server error: ENOTDIR/);
      expect(JSON.stringify(reply.body)).not.toContain(TOKEN);
      // The failure did not leave the user visible, and other resources still work.
      expect((await ok(fresh, { resource: 'user', action: 'get' })).total).toBe(0);
      expect((await ok(fresh, { resource: 'page', action: 'add', data: { title: 'p' } })).id).toBe(1);
    } finally {
      await fresh.stop();
    }
  });
});
