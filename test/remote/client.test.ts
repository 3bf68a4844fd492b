import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient, type ClientEvent } from '../../src/remote/client.js';
import {
  CmsAuthError,
  CmsProtocolError,
  CmsRejectedError,
  CmsRetryBudgetError,
} from '../../src/remote/errors.js';
import { backoffCeiling, DEFAULT_RETRY } from '../../src/remote/retry.js';
import { fail, mockCms, ok, ORIGIN, PATH, rejection, setup, TOKEN, type Answer } from './helpers.js';

const authMessage = (status: number) =>
  `The CMS refused the request (HTTP ${status}): check the API token (CMS_API_TOKEN) and that the API is enabled in ` +
  `the dashboard settings.`;

describe('the envelope', () => {
  it('returns data of a success envelope, sending the documented request', async () => {
    const { client, sent } = setup(() => ok({ id: 3, title: 'Hello' }));
    await expect(client.call({ resource: 'article', action: 'get', id: 3 })).resolves.toEqual({
      id: 3,
      title: 'Hello',
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      path: PATH,
      body: { resource: 'article', action: 'get', id: 3 },
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    });
    expect(sent[0]?.headers).not.toHaveProperty('idempotency-key');
  });

  it('puts the endpoint under a base URL that has a path', async () => {
    const { client, sent } = setup(() => ok([]), {
      baseUrl: `${ORIGIN}/cms/`,
      wire: { endpointPath: '/api/v2' },
    });
    await client.call({ resource: 'page', action: 'get' });
    expect(sent[0]?.path).toBe('/cms/api/v2');
  });

  it('treats status "error" with HTTP 200 as a rejection, without retrying', async () => {
    const { client, sent } = setup(() => fail(200, 'Title is required'));
    const error = await rejection(client.add('article', { slug: 'x' }));
    expect(error).toBeInstanceOf(CmsRejectedError);
    expect(error).toMatchObject({
      code: 'CMS_SYNC_REJECTED',
      httpStatus: 200,
      serverMessage: 'Title is required',
      message: 'The CMS rejected article.add (HTTP 200). The CMS said: "Title is required"',
    });
    expect(sent).toHaveLength(1);
  });

  it('rejects a 400 once, with the server message', async () => {
    const { client, sent, clock } = setup(() => fail(400, 'Unknown field: foo'));
    const error = await rejection(client.edit('article', 4, { foo: 1 }));
    expect(error).toBeInstanceOf(CmsRejectedError);
    expect(error).toMatchObject({ httpStatus: 400, message: expect.stringContaining('Unknown field: foo') });
    expect(sent).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('reports a body that is not JSON as a protocol error (not retried unless 5xx)', async () => {
    const { client, sent } = setup(() => ({ statusCode: 200, data: '<html>Welcome</html>' }));
    const error = await rejection(client.call({ resource: 'article', action: 'get' }));
    expect(error).toBeInstanceOf(CmsProtocolError);
    expect(error.message).toContain('wire.endpointPath');
    expect(sent).toHaveLength(1);
  });

  it('retries a 5xx whose body is not JSON', async () => {
    const { client, sent } = setup((_, i) =>
      i === 0 ? { statusCode: 502, data: 'Bad Gateway' } : ok({ id: 1 }),
    );
    await expect(client.call({ resource: 'article', action: 'get', id: 1 })).resolves.toEqual({ id: 1 });
    expect(sent).toHaveLength(2);
  });

  it('reports a JSON body without the envelope as a protocol error', async () => {
    const { client } = setup(() => ({ statusCode: 200, data: { id: 1 } }));
    await expect(client.call({ resource: 'article', action: 'get' })).rejects.toMatchObject({
      code: 'CMS_SYNC_PROTOCOL',
    });
  });
});

describe('authentication failures', () => {
  it.each([401, 403])('HTTP %i stops at once with the token advice', async (status) => {
    const { client, sent, clock } = setup(() => fail(status, 'API access is disabled'));
    const error = await rejection(client.call({ resource: 'article', action: 'get' }));
    expect(error).toBeInstanceOf(CmsAuthError);
    expect(error.code).toBe('CMS_SYNC_AUTH');
    expect(error.message).toBe(`${authMessage(status)} The CMS said: "API access is disabled"`);
    expect(sent).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('is an auth error even when the body is not JSON', async () => {
    const { client } = setup(() => ({ statusCode: 401, data: 'Unauthorized' }));
    await expect(client.get('article', 1)).rejects.toThrow(authMessage(401));
  });
});

describe('retries', () => {
  it('retries a 503 with a full-jitter delay, then returns the answer', async () => {
    const randoms = [0.3, 0.9];
    const { client, sent, clock, events } = setup((_, i) => (i < 2 ? fail(503, 'busy') : ok({ id: 7 })), {
      random: () => randoms.shift() ?? 0,
    });
    await expect(client.get('article', 7)).resolves.toEqual({ id: 7 });
    expect(sent).toHaveLength(3);
    expect(clock.sleeps).toEqual([Math.floor(0.3 * 250), Math.floor(0.9 * 500)]);
    clock.sleeps.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(backoffCeiling(DEFAULT_RETRY, i + 1));
    });
    expect(events.filter((e) => e.type === 'retry')).toEqual([
      {
        type: 'retry',
        action: 'article.get',
        attempt: 1,
        delayMs: 75,
        reason: 'HTTP 503 Service Unavailable: busy',
      },
      {
        type: 'retry',
        action: 'article.get',
        attempt: 2,
        delayMs: 450,
        reason: 'HTTP 503 Service Unavailable: busy',
      },
    ]);
    expect(client.stats).toMatchObject({ requests: 3, retries: 2, writes: 0 });
  });

  it('keeps every delay within its full-jitter bound over many draws', async () => {
    const draws = Array.from({ length: 5 }, (_, i) => (i * 0.37) % 1);
    const { client, clock } = setup(() => fail(500, 'oops'), { random: () => draws.shift() ?? 0.999 });
    await rejection(client.call({ resource: 'article', action: 'get' }));
    expect(clock.sleeps).toHaveLength(5);
    clock.sleeps.forEach((ms, i) => expect(ms).toBeLessThan(backoffCeiling(DEFAULT_RETRY, i + 1)));
  });

  it('honours Retry-After in seconds: no request before it', async () => {
    const { client, sent, clock } = setup((_, i) =>
      i === 0 ? fail(429, 'slow down', { 'retry-after': '3' }) : ok([]),
    );
    await client.call({ resource: 'article', action: 'get' });
    expect(clock.sleeps).toEqual([3000]);
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(3000);
    expect(client.stats.rateLimited).toBe(1);
  });

  it('honours Retry-After as an HTTP date', async () => {
    let first = true;
    const { client, sent, clock } = setup(() => {
      if (!first) return ok([]);
      first = false;
      return fail(503, 'maintenance', { 'retry-after': new Date(clock.now() + 5000).toUTCString() });
    });
    await client.call({ resource: 'article', action: 'get' });
    expect(clock.sleeps).toEqual([5000]);
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(5000);
  });

  it('fails, saying so, when Retry-After is beyond maxRetryAfterMs', async () => {
    const { client, sent, clock } = setup(() => fail(429, 'quota', { 'retry-after': '600' }));
    const error = await rejection(client.call({ resource: 'article', action: 'get' }));
    expect(error).toBeInstanceOf(CmsRetryBudgetError);
    expect(error.code).toBe('CMS_SYNC_RETRY_BUDGET');
    expect(error.message).toBe(
      'The CMS at http://cms.test (article.get) asked to wait 600 s before trying again (Retry-After, HTTP 429 Too ' +
        'Many Requests: quota), ' +
        'longer than the 120 s this client waits (sync.retry.maxRetryAfterMs). Try again later, or raise ' +
        'sync.retry.maxRetryAfterMs in sync.config.ts.',
    );
    expect(sent).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('gives up after maxAttempts with CMS_SYNC_RETRY_BUDGET', async () => {
    const { client, sent, clock } = setup(() => fail(503, 'down'), { random: () => 0.999 });
    const error = await rejection(client.call({ resource: 'article', action: 'get' }));
    expect(error.code).toBe('CMS_SYNC_RETRY_BUDGET');
    expect(error.message).toBe(
      'The CMS at http://cms.test (article.get) did not answer successfully after 6 attempts over 7.7 s (last: HTTP ' +
        '503 Service Unavailable: down).',
    );
    expect(sent).toHaveLength(6);
    expect(clock.sleeps).toHaveLength(5);
  });

  it('gives up when the time budget would be exceeded, within that budget', async () => {
    const { client, sent, clock } = setup(() => fail(503, 'down'), {
      random: () => 0.999,
      retry: { maxAttempts: 100, budgetMs: 20_000 },
    });
    const start = clock.now();
    const error = await rejection(client.call({ resource: 'article', action: 'get' }));
    expect(error.code).toBe('CMS_SYNC_RETRY_BUDGET');
    expect(error.message).toMatch(
      /would exceed the retry budget of 20 s \(sync\.retry\.budgetMs in sync\.config\.ts\)/,
    );
    expect(clock.now() - start).toBeLessThanOrEqual(20_000);
    expect(sent.length).toBeLessThan(100);
  });

  it('sends the same idempotency key on every retry of one write, a new one per write', async () => {
    const { client, sent } = setup((_, i) => (i % 3 < 2 ? fail(503, 'x') : ok({ id: 5, title: 't' })));
    await client.edit('article', 5, { title: 't' });
    await client.edit('article', 5, { title: 't' });
    const keys = sent.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys.slice(0, 3)).size).toBe(1);
    expect(new Set(keys.slice(3)).size).toBe(1);
    expect(keys[3]).not.toBe(keys[0]);
  });

  it("uses the caller's idempotency key, or none when the header is disabled", async () => {
    const one = setup(() => ok({ id: 9 }));
    await one.client.add('article', { title: 't' }, { idempotencyKey: 'article/hello@1' });
    expect(one.sent[0]?.headers['idempotency-key']).toBe('article/hello@1');
    const none = setup(() => ok({ id: 9 }), { wire: { idempotencyHeader: false } });
    await none.client.add('article', { title: 't' });
    expect(Object.keys(none.sent[0]?.headers ?? {})).not.toContain('idempotency-key');
  });
});

describe('records', () => {
  it('get: the record with a numeric id, or undefined on 404 or an empty answer', async () => {
    const { client } = setup((body) =>
      body.id === 1 ? ok({ item: { id: '1', title: 'A' } }) : body.id === 2 ? fail(404, 'Not found') : ok([]),
    );
    await expect(client.get('article', 1)).resolves.toEqual({ id: 1, title: 'A' });
    await expect(client.get('article', 2)).resolves.toBeUndefined();
    await expect(client.get('article', 3)).resolves.toBeUndefined();
  });

  it('add: sends data, reads the id wherever it is', async () => {
    const answers: Answer[] = [
      ok({ id: 10, title: 'T' }),
      ok({ record: { id: '11' } }),
      ok({ result: 'ok' }),
    ];
    const { client, sent } = setup(() => answers.shift()!);
    await expect(client.add('article', { title: 'T' })).resolves.toEqual({
      id: 10,
      record: { id: 10, title: 'T' },
    });
    await expect(client.add('article', { title: 'U' })).resolves.toEqual({ id: 11, record: undefined });
    expect(sent[0]?.body).toEqual({ resource: 'article', action: 'add', data: { title: 'T' } });
    await expect(client.add('article', { title: 'V' })).rejects.toThrow(
      /no id we can read \(keys: result\).*wire\.idPaths/,
    );
  });

  it('names the payload and the upload URL as the config says, for a CMS that differs from the spec', async () => {
    const { client, sent } = setup(() => ok({ id: 5 }), {
      wire: { payloadKey: 'fields', uploadUrlField: 'source' },
    });
    await client.add('page', { title: 'T' });
    await client.edit('page', 5, { title: 'U' });
    await client.uploadFromUrl('https://example.com/a.png');
    expect(sent.map((s) => s.body)).toEqual([
      { resource: 'page', action: 'add', fields: { title: 'T' } },
      { resource: 'page', action: 'edit', id: 5, fields: { title: 'U' } },
      { resource: 'media', action: 'upload_from_url', fields: { source: 'https://example.com/a.png' } },
    ]);
  });

  it('edit and delete send the id; a 404 on delete counts as done', async () => {
    const { client, sent } = setup((body) =>
      body.action === 'delete' ? fail(404, 'No such record') : ok({ affected: 1 }),
    );
    await expect(client.edit('page', 3, { title: 'x' })).resolves.toBeUndefined();
    await expect(client.delete('page', 3)).resolves.toBeUndefined();
    expect(sent.map((s) => s.body)).toEqual([
      { resource: 'page', action: 'edit', id: 3, data: { title: 'x' } },
      { resource: 'page', action: 'delete', id: 3 },
    ]);
    expect(client.stats).toMatchObject({
      requests: 2,
      writes: 2,
      byAction: { 'page.edit': 1, 'page.delete': 1 },
    });
  });

  it('delete fails on another rejection', async () => {
    const { client } = setup(() => fail(409, 'In use'));
    await expect(client.delete('category', 3)).rejects.toBeInstanceOf(CmsRejectedError);
  });

  it.each([
    [{ id: 21 }, 21],
    [{ media_id: '22', url: 'u' }, 22],
    [{ mediaId: 23 }, 23],
  ])('uploadFromUrl reads the media id from %j', async (data, id) => {
    const { client, sent } = setup(() => ok(data));
    const result = await client.uploadFromUrl('https://files.test/a.png', { alt: 'A map' });
    expect(result.id).toBe(id);
    expect(sent[0]?.body).toEqual({
      resource: 'media',
      action: 'upload_from_url',
      data: { alt: 'A map', url: 'https://files.test/a.png' },
    });
  });
});

describe('options', () => {
  it('rejects bad options in the p-queue style', () => {
    const base = { baseUrl: ORIGIN, token: TOKEN };
    expect(() => createClient({ ...base, concurrency: 0 })).toThrow(
      'Expected `concurrency` to be an integer >= 1, got `0` (number).',
    );
    expect(() => createClient({ ...base, rps: -1 })).toThrow(/`rps`/);
    expect(() => createClient({ ...base, baseUrl: 'cms.test' })).toThrow(/`baseUrl`/);
    expect(() => createClient({ ...base, wire: { pageSize: 500 } })).toThrow(/`wire\.pageSize`/);
    expect(() => createClient({ ...base, token: '' })).toThrow(/CMS_API_TOKEN/);
  });

  it('never sends a limit above 100', async () => {
    const { client, sent } = setup(() => ok([]));
    await expect(client.call({ resource: 'article', action: 'get', limit: 150 })).rejects.toMatchObject({
      code: 'CMS_SYNC_CONFIG',
    });
    expect(sent).toHaveLength(0);
  });

  it('stops waiting when aborted', async () => {
    const controller = new AbortController();
    const { client, sent } = setup(() => fail(503, 'x'), {
      signal: controller.signal,
      sleep: async () => controller.abort(new Error('stopped by user')),
    });
    await expect(client.call({ resource: 'article', action: 'get' })).rejects.toThrow('stopped by user');
    expect(sent).toHaveLength(1);
  });

  it('survives a listener that throws', async () => {
    const { client } = setup(() => ok({ id: 1 }), {
      onEvent: () => {
        throw new Error('listener bug');
      },
    });
    await expect(client.add('article', { title: 't' })).resolves.toMatchObject({ id: 1 });
  });
});

describe('the token', () => {
  it('never appears in errors, events or stats, even when the server echoes it', async () => {
    const echo = `invalid token ${TOKEN}`;
    const scenarios: Answer[] = [
      fail(401, echo),
      fail(403, echo),
      fail(400, echo),
      fail(200, echo),
      fail(503, echo),
      { statusCode: 200, data: `<p>${TOKEN}</p>` },
      fail(429, echo, { 'retry-after': '9999' }),
    ];
    const seen: string[] = [];
    for (const answer of scenarios) {
      const events: ClientEvent[] = [];
      const { client } = setup(() => answer, { onEvent: (e) => events.push(e) });
      const error = await rejection(client.add('article', { title: 't' }));
      seen.push(error.message, String(error.stack), JSON.stringify(events), JSON.stringify(client.stats));
      expect(error.message).toContain('[redacted]');
    }
    for (const text of seen) expect(text).not.toContain(TOKEN);
  });
});

describe('rate limiting (fake timers)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('spaces 20 calls at rps=5 at least 200 ms apart', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { dispatcher, sent } = mockCms(() => ok([]));
    const client = createClient({ baseUrl: ORIGIN, token: TOKEN, dispatcher, rps: 5, concurrency: 4 });
    const calls = Array.from({ length: 20 }, () => client.call({ resource: 'article', action: 'get' }));
    await vi.runAllTimersAsync();
    await Promise.all(calls);
    expect(sent).toHaveLength(20);
    const gaps = sent.slice(1).map((s, i) => s.at - sent[i]!.at);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(200);
    expect(sent.at(-1)!.at - sent[0]!.at).toBeGreaterThanOrEqual(19 * 200);
  });

  it('holds every call back until a 429 Retry-After has passed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { dispatcher, sent } = mockCms((_, i) =>
      i === 0 ? fail(429, 'later', { 'retry-after': '2' }) : ok([]),
    );
    const client = createClient({
      baseUrl: ORIGIN,
      token: TOKEN,
      dispatcher,
      concurrency: 4,
      random: () => 0,
    });
    const first = client.call({ resource: 'article', action: 'get' });
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toHaveLength(1);
    const until = sent[0]!.at + 2000;
    const others = Array.from({ length: 5 }, () => client.call({ resource: 'page', action: 'get' }));
    await vi.advanceTimersByTimeAsync(1999);
    expect(sent).toHaveLength(1);
    await vi.runAllTimersAsync();
    await Promise.all([first, ...others]);
    expect(sent).toHaveLength(7);
    for (const s of sent.slice(1)) expect(s.at).toBeGreaterThanOrEqual(until);
    expect(client.stats.rateLimited).toBe(1);
  });
});
