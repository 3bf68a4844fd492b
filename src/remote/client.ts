import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import type { Pool } from 'undici';
import { SyncError } from '../errors.js';
import type { ApiRequest, RemoteRecord, Resource } from '../resources.js';
import { CmsAmbiguousError, CmsProtocolError, CmsRejectedError, CmsRetryableError } from './errors.js';
import { describe, exchange, interpret, type ExchangeContext } from './exchange.js';
import { loadPool, requestOnDispatcher } from './load-pool.js';
import { resolveOptions, type ClientEvent, type ClientOptions } from './options.js';
import { Throttle } from './rate-limit.js';
import { readAll, type ListOptions, type ListResult } from './read-all.js';
import { withRetries } from './retry.js';
import {
  MAX_PAGE_SIZE,
  invalid,
  isObject,
  mediaTextFields,
  readId,
  readListData,
  readMediaId,
  readRecord,
  type WireOptions,
} from './wire.js';

export type { ClientEvent, ClientOptions } from './options.js';
export type { ListOptions, ListResult } from './read-all.js';
export { DEFAULT_WIRE, readId, readListData, readMediaId, type WireOptions } from './wire.js';

export interface ClientStats {
  /** HTTP requests sent, retries included. */
  requests: number;
  /** Requests per `<resource>.<action>`. */
  byAction: Record<string, number>;
  /** Requests of any action other than `get`. */
  writes: number;
  retries: number;
  /** 429 answers. */
  rateLimited: number;
  /** Writes that failed with CmsAmbiguousError. */
  ambiguous: number;
  bytesSent: number;
  bytesReceived: number;
}

export interface CallOptions {
  /** Sent in the idempotency header and kept across retries; a random one when omitted. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface CmsClient {
  /**
   * One API call; returns the envelope's `data`. 429, 5xx, timeouts and failed connections are
   * retried, except that `add` and `upload_from_url` throw CmsAmbiguousError when the request
   * may have reached the CMS without an answer coming back.
   */
  call(request: ApiRequest, options?: CallOptions): Promise<unknown>;
  /** Every record, page by page; see ListResult.complete before trusting absences. */
  list(resource: Resource, options?: ListOptions): Promise<ListResult>;
  /** The record, or undefined when the CMS answers 404 or an empty result. */
  get(resource: Resource, id: number): Promise<RemoteRecord | undefined>;
  /** `record` is the created record when the CMS returned it (more than its id). */
  add(
    resource: Resource,
    data: Record<string, unknown>,
    options?: { idempotencyKey?: string },
  ): Promise<{ id: number; record: RemoteRecord | undefined }>;
  /** The record as stored, when the CMS returned it. */
  edit(
    resource: Resource,
    id: number,
    data: Record<string, unknown>,
    options?: { idempotencyKey?: string },
  ): Promise<RemoteRecord | undefined>;
  /** A 404 counts as done (an earlier attempt may have deleted it). */
  delete(resource: Resource, id: number, options?: { idempotencyKey?: string }): Promise<void>;
  uploadFromUrl(
    url: string,
    extra?: { title?: string; alt?: string },
    options?: { idempotencyKey?: string },
  ): Promise<{ id: number; record: Record<string, unknown> | undefined }>;
  /** A snapshot copy. */
  readonly stats: ClientStats;
  /** Requests it keeps in flight at once (ClientOptions.concurrency). */
  readonly concurrency: number;
  close(): Promise<void>;
}

export function createClient(options: ClientOptions): CmsClient {
  const settings = resolveOptions(options);
  const { wire, url, token, now, sleep, random, signal: clientSignal } = settings;
  // One keep-alive pool per client; an injected dispatcher belongs to the caller. undici loads
  // with the first request: a no-op run with --refresh=false makes none and need not pay for it.
  let ownPool: Pool | undefined;
  const openPool = (): Pick<ExchangeContext, 'dispatcher' | 'request'> => {
    const { Pool: PoolClass, request } = loadPool();
    ownPool = new PoolClass(url.origin, {
      connections: settings.concurrency,
      headersTimeout: settings.timeoutMs,
      bodyTimeout: settings.timeoutMs,
      connectTimeout: settings.timeoutMs,
    });
    return { dispatcher: ownPool, request };
  };
  const base: Omit<ExchangeContext, 'dispatcher' | 'request'> = {
    origin: url.origin,
    path: `${url.pathname.replace(/\/+$/, '')}${wire.endpointPath}`,
    token,
    timeoutMs: settings.timeoutMs,
    idempotencyHeader: wire.idempotencyHeader,
    now,
  };
  let ready: ExchangeContext | undefined;
  const contextOf = (): ExchangeContext =>
    (ready ??= {
      ...base,
      ...(options.dispatcher ? { dispatcher: options.dispatcher, request: requestOnDispatcher } : openPool()),
    });
  const where = `The CMS at ${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  const slots = pLimit(settings.concurrency);
  const throttle = new Throttle({ rps: settings.rps, now, sleep: (ms) => sleep(ms) });
  const stats: ClientStats = {
    requests: 0,
    byAction: {},
    writes: 0,
    retries: 0,
    rateLimited: 0,
    ambiguous: 0,
    bytesSent: 0,
    bytesReceived: 0,
  };
  let closed = false;

  const emit = (event: ClientEvent): void => {
    try {
      options.onEvent?.(event);
    } catch {
      // A faulty listener must not turn a sent write into a failed (or ambiguous) one.
    }
  };

  // One HTTP exchange. The concurrency slot is held from taking a rate token to reading the
  // body; taking the token inside the slot means a token is spent only when the request really
  // goes out, so sends stay spaced even when slots free up in a burst. Backoff waits happen
  // outside the slot (in withRetries) so a sleeping retry does not block other calls.
  const attempt = (
    request: ApiRequest,
    key: string | undefined,
    signal: AbortSignal | undefined,
    n: number,
  ) =>
    slots(async () => {
      const action = `${request.resource}.${request.action}`;
      const ctx = contextOf();
      await throttle.acquire(signal);
      stats.requests++;
      stats.byAction[action] = (stats.byAction[action] ?? 0) + 1;
      if (request.action !== 'get') stats.writes++;
      emit({ type: 'request', action, attempt: n });
      const started = now();
      let result;
      try {
        result = await exchange(ctx, request, key, signal);
      } catch (error) {
        if (error instanceof CmsAmbiguousError) stats.ambiguous++;
        throw error;
      }
      stats.bytesSent += result.bytesSent;
      stats.bytesReceived += Buffer.byteLength(result.text);
      emit({
        type: 'response',
        action,
        attempt: n,
        httpStatus: result.statusCode,
        durationMs: now() - started,
      });
      try {
        const data = interpret(result, request, ctx);
        throttle.speedUp();
        return data;
      } catch (error) {
        if (error instanceof CmsRetryableError) onRetryable(error, action);
        throw error;
      }
    });

  const onRetryable = (error: CmsRetryableError, action: string): void => {
    const { retryAfterMs } = error;
    // A Retry-After speaks for the server, not for this one call: hold every call back. One we
    // will not wait for fails this call instead, and must not stall the others either.
    const pause = retryAfterMs !== undefined && retryAfterMs <= settings.retry.maxRetryAfterMs;
    if (pause) throttle.pauseUntil(now() + retryAfterMs);
    if (error.httpStatus === 429) {
      throttle.slowDown();
      stats.rateLimited++;
      emit({ type: 'rate-limited', action, retryAfterMs, pausedUntil: throttle.pausedUntil });
    }
  };

  const call = async (request: ApiRequest, callOptions: CallOptions = {}): Promise<unknown> => {
    if (closed) throw new SyncError('CMS_SYNC_CONFIG', 'The CMS client was used after close().');
    if (request.limit !== undefined && request.limit > MAX_PAGE_SIZE) {
      throw invalid('limit', `at most ${MAX_PAGE_SIZE} (the API's maximum)`, request.limit);
    }
    const signals = [clientSignal, callOptions.signal].filter((s) => s !== undefined);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const key = request.action === 'get' ? undefined : (callOptions.idempotencyKey ?? randomUUID());
    const action = `${request.resource}.${request.action}`;
    return withRetries((n) => attempt(request, key, signal, n), {
      policy: settings.retry,
      random,
      sleep,
      now,
      signal,
      target: `${where} (${describe(request)})`,
      onRetry: ({ attempt: n, delayMs, error }) => {
        stats.retries++;
        emit({ type: 'retry', action, attempt: n, delayMs, reason: error.reason });
      },
    });
  };

  // add, edit and upload carry their fields under `data` unless the CMS names it otherwise.
  const withPayload = (request: ApiRequest, data: Record<string, unknown>): ApiRequest => ({
    ...request,
    [wire.payloadKey]: data,
  });

  const isNotFound = (error: unknown) => error instanceof CmsRejectedError && error.httpStatus === 404;

  return {
    call,
    list: (resource, listOptions = {}) => readAll((request) => call(request), resource, listOptions, wire),

    async get(resource, id) {
      let data: unknown;
      try {
        data = await call({ resource, action: 'get', id });
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
      const record = readRecord(data, resource, wire, id);
      if (record || isEmpty(data, resource, wire)) return record;
      throw new CmsProtocolError(
        `Could not read the ${resource} record ${id} in the CMS's answer.`,
        undefined,
      );
    },

    async add(resource, data, writeOptions = {}) {
      const answer = await call(withPayload({ resource, action: 'add' }, data), writeOptions);
      const id = readId(answer, wire);
      if (id === undefined) {
        throw new CmsProtocolError(
          `The CMS accepted ${resource}.add but its answer holds no id we can read (${shape(answer)}); ` +
            'the record was probably created. Set `wire.idPaths` to where your CMS puts the id.',
          undefined,
        );
      }
      return { id, record: fullRecord(readRecord(answer, resource, wire, id)) };
    },

    async edit(resource, id, data, writeOptions = {}) {
      const answer = await call(withPayload({ resource, action: 'edit', id }, data), writeOptions);
      return fullRecord(readRecord(answer, resource, wire, id));
    },

    async delete(resource, id, writeOptions = {}) {
      try {
        await call({ resource, action: 'delete', id }, writeOptions);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },

    async uploadFromUrl(fileUrl, extra = {}, writeOptions = {}) {
      const answer = await call(
        withPayload(
          { resource: 'media', action: 'upload_from_url' },
          { ...mediaTextFields(extra, wire, 'omit'), [wire.uploadUrlField]: fileUrl },
        ),
        writeOptions,
      );
      const id = readMediaId(answer, wire);
      if (id === undefined) {
        throw new CmsProtocolError(
          `The CMS accepted media.upload_from_url but its answer holds no media id we can read (${shape(answer)}); ` +
            'set `wire.mediaIdKeys` to the key your CMS uses.',
          undefined,
        );
      }
      return { id, record: isObject(answer) ? answer : undefined };
    },

    get stats(): ClientStats {
      return { ...stats, byAction: { ...stats.byAction } };
    },

    concurrency: settings.concurrency,

    async close() {
      if (closed) return;
      closed = true;
      await ownPool?.close();
    },
  };
}

/** A record with fields besides its id: a bare `{id}` says nothing about what the CMS holds. */
function fullRecord(record: RemoteRecord | undefined): RemoteRecord | undefined {
  return record && Object.keys(record).length > 1 ? record : undefined;
}

function isEmpty(data: unknown, resource: string, wire: WireOptions): boolean {
  if (data === null || data === undefined) return true;
  if (isObject(data) && Object.keys(data).length === 0) return true;
  try {
    return readListData(data, resource, wire).items.length === 0;
  } catch {
    return false;
  }
}

/** The keys of an answer, for messages: never its values, which could quote anything. */
function shape(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (isObject(value)) return `keys: ${Object.keys(value).slice(0, 10).join(', ') || 'none'}`;
  return typeof value;
}
