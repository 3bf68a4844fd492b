import { describe, expect, it } from 'vitest';
import { CmsRetryBudgetError, CmsRetryableError } from '../../src/remote/errors.js';
import {
  DEFAULT_RETRY,
  backoffCeiling,
  decideRetry,
  parseRetryAfter,
  resolveRetry,
  withRetries,
} from '../../src/remote/retry.js';

const policy = DEFAULT_RETRY;

describe('decideRetry (full jitter)', () => {
  it('doubles the ceiling per attempt up to maxDelayMs', () => {
    expect([1, 2, 3, 4, 8, 20].map((n) => backoffCeiling(policy, n))).toEqual([
      250, 500, 1000, 2000, 30_000, 30_000,
    ]);
  });

  it('spreads the delay over [0, ceiling)', () => {
    const at = (r: number, attempt: number) => decideRetry(policy, { attempt, elapsedMs: 0 }, () => r);
    expect(at(0, 3)).toEqual({ retry: true, delayMs: 0 });
    expect(at(0.5, 3)).toEqual({ retry: true, delayMs: 500 });
    expect(at(0.999, 3)).toEqual({ retry: true, delayMs: 999 });
  });

  it('waits at least the Retry-After', () => {
    expect(decideRetry(policy, { attempt: 1, elapsedMs: 0, retryAfterMs: 5000 }, () => 0.9)).toEqual({
      retry: true,
      delayMs: 5000,
    });
  });

  it('gives up after maxAttempts, on a too-long Retry-After, and past the budget', () => {
    const r = () => 0.5;
    expect(decideRetry(policy, { attempt: 6, elapsedMs: 0 }, r)).toEqual({ retry: false, why: 'attempts' });
    expect(decideRetry(policy, { attempt: 1, elapsedMs: 0, retryAfterMs: 120_001 }, r)).toMatchObject({
      retry: false,
      why: 'retry-after-too-long',
    });
    expect(decideRetry(policy, { attempt: 1, elapsedMs: 299_900, retryAfterMs: 200 }, r)).toMatchObject({
      retry: false,
      why: 'budget',
    });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads delay-seconds and HTTP dates', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter(['2', '9'], now)).toBe(2000);
  });

  it('reads a date in the past as no wait, and garbage as absent', () => {
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('resolveRetry', () => {
  it('validates like p-queue', () => {
    expect(() => resolveRetry({ maxAttempts: 0 })).toThrow(
      'Expected `retry.maxAttempts` to be an integer >= 1, got `0` (number).',
    );
    expect(resolveRetry({ baseDelayMs: 10 }).baseDelayMs).toBe(10);
  });
});

describe('withRetries', () => {
  const retryable = (reason: string, retryAfterMs?: number) =>
    new CmsRetryableError(`failed: ${reason}`, {
      reason,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });

  function loop(random = () => 0.5) {
    let clock = 0;
    const sleeps: number[] = [];
    return {
      sleeps,
      options: {
        policy,
        random,
        now: () => clock,
        sleep: async (ms: number) => {
          sleeps.push(ms);
          clock += ms;
        },
        target: 'The CMS at http://host (article.get)',
      },
    };
  }

  it('returns the first success', async () => {
    const { options, sleeps } = loop();
    let n = 0;
    await expect(
      withRetries(async () => (++n < 3 ? Promise.reject(retryable('HTTP 503')) : 'ok'), options),
    ).resolves.toBe('ok');
    expect(sleeps).toEqual([125, 250]);
  });

  it('does not retry other errors', async () => {
    const { options } = loop();
    let n = 0;
    const boom = new Error('boom');
    await expect(
      withRetries(async () => {
        n++;
        throw boom;
      }, options),
    ).rejects.toBe(boom);
    expect(n).toBe(1);
  });

  it('ends with CMS_SYNC_RETRY_BUDGET naming the attempts, time and last failure', async () => {
    const { options } = loop(() => 0.999);
    const error = await withRetries(async () => {
      throw retryable('HTTP 503 Service Unavailable');
    }, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CmsRetryBudgetError);
    expect(error).toBeInstanceOf(CmsRetryableError);
    expect(error).toMatchObject({
      code: 'CMS_SYNC_RETRY_BUDGET',
      message:
        'The CMS at http://host (article.get) did not answer successfully after 6 attempts over 7.7 s (last: HTTP 503 Service Unavailable).',
    });
    expect((error as Error).cause).toBeInstanceOf(CmsRetryableError);
  });
});
