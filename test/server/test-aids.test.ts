import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FaultInjector, mulberry32 } from '../../src/server/faults/fault-injector.js';
import { TokenBucket } from '../../src/server/faults/token-bucket.js';
import { call, errorOf, ok, removeDir, startTestCms, tempDir, TOKEN } from './helpers.js';

const addUser = (name: string) => ({ resource: 'user', action: 'add', data: { name } });

describe('--api-disabled', () => {
  it('refuses every request with 403 and says the API must be enabled in the dashboard', async () => {
    const cms = await startTestCms({ apiDisabled: true });
    try {
      for (const token of [TOKEN, null]) {
        expect(errorOf(await call(cms, { resource: 'article', action: 'get' }, { token }))).toEqual({
          status: 403,
          message:
            'The API is disabled: it must be enabled in the dashboard settings (API section) before requests are ' +
            'served.',
        });
      }
    } finally {
      await cms.stop();
    }
  });
});

describe('--rps', () => {
  it('answers 429 with Retry-After in seconds and the error envelope once the bucket is empty', async () => {
    const cms = await startTestCms({ rps: 2 });
    try {
      // Six at once against a bucket of two: even on a slow machine at most a third token refills.
      const replies = await Promise.all(
        Array.from({ length: 6 }, () => call(cms, { resource: 'article', action: 'get' })),
      );
      const passed = replies.filter((r) => r.status === 200);
      const limited = replies.filter((r) => r.status !== 200);
      expect(passed.length).toBeGreaterThanOrEqual(2);
      expect(limited.length).toBeGreaterThanOrEqual(3);
      for (const reply of limited) {
        expect(reply.headers.get('retry-after')).toBe('1');
        expect(errorOf(reply)).toEqual({
          status: 429,
          message:
            'Too many requests: this server allows a limited number of requests per second. Retry after 1 s.',
        });
      }
      expect(cms.stats().rateLimited).toBe(limited.length);
    } finally {
      await cms.stop();
    }
  });

  it('refills at the given rate (token bucket, fake clock)', () => {
    let now = 0;
    const bucket = new TokenBucket(2, () => now);
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([
      { ok: true },
      { ok: true },
      { ok: false, retryAfterSeconds: 1 },
    ]);
    now = 499;
    expect(bucket.take().ok).toBe(false);
    now = 500;
    expect(bucket.take()).toEqual({ ok: true });
    const slow = new TokenBucket(0.25, () => now);
    expect(slow.take()).toEqual({ ok: true });
    expect(slow.take()).toEqual({ ok: false, retryAfterSeconds: 4 });
  });
});

describe('--latency', () => {
  it('delays each API request by the given milliseconds', async () => {
    const cms = await startTestCms({ latencyMs: 250 });
    try {
      const started = performance.now();
      await ok(cms, { resource: 'article', action: 'get' });
      expect(performance.now() - started).toBeGreaterThanOrEqual(245);
    } finally {
      await cms.stop();
    }
  });
});

describe('--fail', () => {
  it('--fail 1 answers 500 every time and applies nothing', async () => {
    const dir = await tempDir();
    const cms = await startTestCms({ dataDir: dir, failRate: 1 });
    try {
      for (let i = 0; i < 3; i++) {
        expect(errorOf(await call(cms, addUser(`u${i}`)))).toEqual({
          status: 500,
          message: 'Injected failure (--fail): nothing was applied.',
        });
      }
      expect(cms.stats()).toMatchObject({ requests: 3, failed: 3, writes: 0, byAction: { 'user.add': 3 } });
      expect(cms.stats().writeLog).toEqual([]);
      await cms.stop();
      // Nothing reached the disk either.
      expect(await readdir(join(dir, 'records', 'user'))).toEqual([]);
      const check = await startTestCms({ dataDir: dir });
      expect((await ok(check, { resource: 'user', action: 'get' })).total).toBe(0);
      expect((await ok(check, addUser('first real'))).id).toBe(1);
      await check.stop();
    } finally {
      await removeDir(dir);
    }
  });

  it('with a seed, fails the same requests on every run', async () => {
    const outcomes = async () => {
      const cms = await startTestCms({ failRate: 0.5, seed: 42 });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 12; i++)
          statuses.push((await call(cms, { resource: 'article', action: 'get' })).status);
        return statuses;
      } finally {
        await cms.stop();
      }
    };
    const first = await outcomes();
    expect(first).toEqual(await outcomes());
    expect(first).toContain(500);
    expect(first).toContain(200);
  });
});

describe('--drop', () => {
  it('--drop 1 applies the write durably, then cuts the connection without an answer', async () => {
    const cms = await startTestCms({ dropRate: 1 });
    try {
      await expect(call(cms, addUser('Dropped'))).rejects.toThrow(/fetch failed/);
      // Reads are never dropped, and they show the write happened.
      expect((await ok(cms, { resource: 'user', action: 'get' })).items).toEqual([
        expect.objectContaining({ id: 1, name: 'Dropped' }),
      ]);
      expect(cms.stats()).toMatchObject({
        writes: 1,
        dropped: 1,
        writeLog: [{ at: expect.any(Number), resource: 'user', action: 'add', id: 1 }],
      });
    } finally {
      await cms.stop();
    }
  });

  it('draws reproducibly from the seed (mulberry32)', () => {
    const a = mulberry32(7);
    const b = mulberry32(7);
    const draws = Array.from({ length: 5 }, () => a());
    expect(draws).toEqual(Array.from({ length: 5 }, () => b()));
    expect(draws.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(mulberry32(8)()).not.toBe(draws[0]);
    const injector = new FaultInjector({ dropRate: 0.5, seed: 7 });
    const again = new FaultInjector({ dropRate: 0.5, seed: 7, failRate: 0 });
    expect(Array.from({ length: 20 }, () => injector.shouldDrop())).toEqual(
      Array.from({ length: 20 }, () => again.shouldDrop()),
    );
  });
});

describe('--normalize-html', () => {
  it('stores body/content with whitespace between tags collapsed and trimmed', async () => {
    const cms = await startTestCms({ normalizeHtml: true });
    try {
      const article = await ok(cms, {
        resource: 'article',
        action: 'add',
        data: { title: 'x', body: '\n<h1>Title</h1>\n\n<p>Some  text</p>\n  <ul>\n <li>a</li>\n</ul>\n' },
      });
      expect(article.body).toBe('<h1>Title</h1><p>Some  text</p><ul><li>a</li></ul>');
      const page = await ok(cms, {
        resource: 'page',
        action: 'add',
        data: { title: '  spaced  ', content: ' <p>a</p> <p>b</p> ' },
      });
      expect(page).toMatchObject({ title: '  spaced  ', content: '<p>a</p><p>b</p>' });
    } finally {
      await cms.stop();
    }
  });

  it('is off by default: HTML is stored byte for byte', async () => {
    const cms = await startTestCms();
    try {
      const body = '\n<h1>Title</h1>\n\n<p>x</p>\n';
      expect((await ok(cms, { resource: 'article', action: 'add', data: { title: 'x', body } })).body).toBe(
        body,
      );
    } finally {
      await cms.stop();
    }
  });
});

describe('stats', () => {
  it('counts requests sent after a 429 but before its Retry-After (beyond those already in flight)', async () => {
    const cms = await startTestCms({ rps: 1 });
    try {
      await ok(cms, { resource: 'user', action: 'get' });
      const refused = await call(cms, { resource: 'user', action: 'get' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      await new Promise((resolve) => setTimeout(resolve, 100)); // past the in-flight grace
      expect((await call(cms, { resource: 'user', action: 'get' })).status).toBe(429);
      expect(cms.stats()).toMatchObject({ rateLimited: 2, earlyAfterRetryAfter: 1 });
    } finally {
      await cms.stop();
    }
  });

  it('counts requests, actions and writes, in-process and at /__cms/stats; reset clears them', async () => {
    const cms = await startTestCms();
    try {
      await ok(cms, addUser('a'));
      await ok(cms, { resource: 'user', action: 'edit', id: 1, data: { bio: 'b' } });
      await ok(cms, { resource: 'user', action: 'get' });
      await call(cms, { resource: 'user', action: 'get' }, { token: 'wrong' });
      const expected = {
        requests: 4,
        byAction: { 'user.add': 1, 'user.edit': 1, 'user.get': 1 },
        writes: 2,
        rateLimited: 0,
        earlyAfterRetryAfter: 0,
        failed: 0,
        dropped: 0,
        writeLog: [
          { at: expect.any(Number), resource: 'user', action: 'add', id: 1 },
          { at: expect.any(Number), resource: 'user', action: 'edit', id: 1 },
        ],
      };
      expect(cms.stats()).toEqual(expected);
      const authorization = `Bearer ${TOKEN}`;
      const overHttp = await (await fetch(`${cms.url}/__cms/stats`, { headers: { authorization } })).json();
      expect(overHttp).toEqual({ status: 'success', data: expected });
      const reset = await fetch(`${cms.url}/__cms/stats/reset`, {
        method: 'POST',
        headers: { authorization },
      });
      expect(reset.status).toBe(200);
      expect(cms.stats()).toEqual({
        requests: 0,
        byAction: {},
        writes: 0,
        rateLimited: 0,
        earlyAfterRetryAfter: 0,
        failed: 0,
        dropped: 0,
        writeLog: [],
      });
      await ok(cms, { resource: 'user', action: 'get' });
      expect(cms.stats().requests).toBe(1);
      cms.resetStats();
      expect(cms.stats().requests).toBe(0);
    } finally {
      await cms.stop();
    }
  });
});

describe('option checks', () => {
  it('rejects bad test-aid values with a message naming each', async () => {
    await expect(startTestCms({ failRate: 2, rps: 0 })).rejects.toThrow(
      'Invalid local CMS options: Expected `rps` to be a number > 0, got `0` (number); Expected `failRate` to be a ' +
        'probability from 0 to 1, got `2` (number).',
    );
  });
});
