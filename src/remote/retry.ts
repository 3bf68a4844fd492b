import { CmsRetryBudgetError, CmsRetryableError } from './errors.js';
import { invalid } from './wire.js';

export interface RetryOptions {
  /** Attempts in all, the first one included. @default 6 */
  maxAttempts: number;
  /** Ceiling of the first backoff; it doubles per attempt. @default 250 */
  baseDelayMs: number;
  /** Largest backoff ceiling. @default 30000 */
  maxDelayMs: number;
  /** A longer Retry-After fails the call with a message saying so; it is never shortened. @default 120000 */
  maxRetryAfterMs: number;
  /** Total time one call may spend, retries and waits included. @default 300000 */
  budgetMs: number;
}

export const DEFAULT_RETRY: RetryOptions = Object.freeze({
  maxAttempts: 6,
  baseDelayMs: 250,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
  budgetMs: 300_000,
});

export function resolveRetry(partial: Partial<RetryOptions> = {}): RetryOptions {
  const policy = { ...DEFAULT_RETRY };
  for (const key of Object.keys(DEFAULT_RETRY) as (keyof RetryOptions)[]) {
    const value = partial[key];
    if (value === undefined) continue;
    const min = key === 'maxAttempts' ? 1 : 0;
    if (!Number.isInteger(value) || value < min) throw invalid(`retry.${key}`, `an integer >= ${min}`, value);
    policy[key] = value;
  }
  return policy;
}

export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; why: 'attempts' | 'retry-after-too-long' | 'budget'; delayMs?: number };

/** Upper bound of the full-jitter backoff after attempt `attempt` (1-based). */
export function backoffCeiling(policy: RetryOptions, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
}

/**
 * Pure retry policy: after `attempt` failed attempts and `elapsedMs` spent, wait how long?
 * Full jitter (uniform in [0, ceiling)); a Retry-After is a floor, never shortened.
 */
export function decideRetry(
  policy: RetryOptions,
  state: { attempt: number; elapsedMs: number; retryAfterMs?: number | undefined },
  random: () => number,
): RetryDecision {
  if (state.attempt >= policy.maxAttempts) return { retry: false, why: 'attempts' };
  const retryAfterMs = state.retryAfterMs;
  if (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs) {
    return { retry: false, why: 'retry-after-too-long', delayMs: retryAfterMs };
  }
  const jittered = Math.floor(random() * backoffCeiling(policy, state.attempt));
  const delayMs = Math.max(retryAfterMs ?? 0, jittered);
  if (state.elapsedMs + delayMs > policy.budgetMs) return { retry: false, why: 'budget', delayMs };
  return { retry: true, delayMs };
}

/** Retry-After as ms from `nowMs`: delay-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  // An HTTP-date always names a day or month; Date.parse alone would read "-5" as a year.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

export interface RetryLoopOptions {
  policy: RetryOptions;
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
  signal?: AbortSignal | undefined;
  /** Names what was tried, for the final message: "The CMS at https://host (article.add)". */
  target: string;
  onRetry?: (info: { attempt: number; delayMs: number; error: CmsRetryableError }) => void;
}

/** Runs `attempt` until it succeeds, throws something not retryable, or the policy gives up. */
export async function withRetries<T>(
  attempt: (n: number) => Promise<T>,
  options: RetryLoopOptions,
): Promise<T> {
  const started = options.now();
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!(error instanceof CmsRetryableError)) throw error;
      const elapsedMs = options.now() - started;
      const decision = decideRetry(
        options.policy,
        { attempt: n, elapsedMs, retryAfterMs: error.retryAfterMs },
        options.random,
      );
      if (!decision.retry) throw giveUp(decision, n, elapsedMs, error, options);
      options.onRetry?.({ attempt: n, delayMs: decision.delayMs, error });
      await options.sleep(decision.delayMs, options.signal);
    }
  }
}

function giveUp(
  decision: Extract<RetryDecision, { retry: false }>,
  attempts: number,
  elapsedMs: number,
  last: CmsRetryableError,
  { policy, target }: RetryLoopOptions,
): CmsRetryBudgetError {
  const tries = `${attempts} attempt${attempts === 1 ? '' : 's'} over ${seconds(elapsedMs)}`;
  switch (decision.why) {
    case 'attempts':
      return new CmsRetryBudgetError(
        `${target} did not answer successfully after ${tries} (last: ${last.reason}).`,
        last,
      );
    case 'retry-after-too-long':
      return new CmsRetryBudgetError(
        `${target} asked to wait ${seconds(decision.delayMs ?? 0)} before trying again (Retry-After, ` +
          `${last.reason}), ` +
          `longer than the ${seconds(policy.maxRetryAfterMs)} this client waits (sync.retry.maxRetryAfterMs). ` +
          'Try again later, or raise sync.retry.maxRetryAfterMs in sync.config.ts.',
        last,
      );
    case 'budget':
      return new CmsRetryBudgetError(
        `${target} did not answer successfully after ${tries} (last: ${last.reason}); ` +
          `waiting another ${seconds(decision.delayMs ?? 0)} would exceed the retry budget of ` +
          `${seconds(policy.budgetMs)} (sync.retry.budgetMs in sync.config.ts).`,
        last,
      );
  }
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${Number((ms / 1000).toFixed(1))} s` : `${Math.round(ms / 1000)} s`;
}
