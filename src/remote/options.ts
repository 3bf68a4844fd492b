import type { Dispatcher } from 'undici';
import { redactCredentials, SyncError } from '../errors.js';
import { resolveRetry, type RetryOptions } from './retry.js';
import { invalid, resolveWire, type WireOptions } from './wire.js';

export interface ClientOptions {
  /** Where the CMS lives, e.g. `https://cms.example.com`; the endpoint path is appended. */
  baseUrl: string;
  /** The API token; sent as `Authorization: Bearer …` and never shown anywhere. */
  token: string;
  wire?: Partial<WireOptions>;
  /** Requests in flight at once (and pool connections). @default 4 */
  concurrency?: number;
  /** Requests per second ceiling; 0 or undefined for none. @default 0 */
  rps?: number;
  /** Per request: time to wait for the headers, and between body chunks. @default 30000 */
  timeoutMs?: number;
  retry?: Partial<RetryOptions>;
  signal?: AbortSignal;
  /** Called synchronously; a listener that throws is ignored rather than failing the call. */
  onEvent?: (event: ClientEvent) => void;
  /** For tests: uniform in [0, 1). @default Math.random */
  random?: () => number;
  /** For tests. @default a setTimeout that rejects on abort */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** For tests: epoch ms. @default Date.now */
  now?: () => number;
  /** For tests (e.g. an undici MockAgent); not closed by `close()`. @default one undici Pool */
  dispatcher?: Dispatcher;
}

/** `action` is `<resource>.<action>`, e.g. `article.add`. */
export type ClientEvent =
  | { type: 'request'; action: string; attempt: number }
  | { type: 'response'; action: string; attempt: number; httpStatus: number; durationMs: number }
  | { type: 'retry'; action: string; attempt: number; delayMs: number; reason: string }
  | {
      type: 'rate-limited';
      action: string;
      retryAfterMs: number | undefined;
      pausedUntil: number | undefined;
    };

export interface Settings {
  url: URL;
  token: string;
  wire: WireOptions;
  concurrency: number;
  rps: number;
  timeoutMs: number;
  retry: RetryOptions;
  signal: AbortSignal | undefined;
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
}

export function resolveOptions(options: ClientOptions): Settings {
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch (error) {
    const shown = redactCredentials(options.baseUrl);
    throw new SyncError('CMS_SYNC_CONFIG', `Expected \`baseUrl\` to be an http(s) URL, got \`${shown}\`.`, {
      cause: error,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid('baseUrl', 'an http(s) URL', url.protocol);
  if (typeof options.token !== 'string' || options.token === '') {
    // The value is not shown: it may be a token with a typo.
    throw new SyncError('CMS_SYNC_CONFIG', 'Expected `token` to be a non-empty string (set CMS_API_TOKEN).');
  }
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw invalid('concurrency', 'an integer >= 1', concurrency);
  const rps = options.rps ?? 0;
  if (!Number.isFinite(rps) || rps < 0) throw invalid('rps', 'a number >= 0 (0 for no limit)', rps);
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw invalid('timeoutMs', 'an integer >= 1', timeoutMs);
  return {
    url,
    token: options.token,
    wire: resolveWire(options.wire),
    concurrency,
    rps,
    timeoutMs,
    retry: resolveRetry(options.retry),
    signal: options.signal,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? defaultSleep,
    now: options.now ?? Date.now,
  };
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
