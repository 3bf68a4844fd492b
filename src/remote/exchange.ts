import { STATUS_CODES } from 'node:http';
import type { Dispatcher } from 'undici';
import type { RequestOn } from './load-pool.js';
import { redact } from '../errors.js';
import type { ApiRequest } from '../resources.js';
import {
  CmsAmbiguousError,
  CmsAuthError,
  CmsProtocolError,
  CmsRejectedError,
  CmsRetryableError,
} from './errors.js';
import { parseRetryAfter } from './retry.js';
import { isObject } from './wire.js';

/** Failures before anything reached the server: safe to retry for every action. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Failures after the request may have reached the server. */
const MAYBE_SENT = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

const RETRYABLE_STATUS = new Set([408, 425, 429]);

/** Actions that must not be sent twice when we cannot tell whether the first one happened. */
const NON_IDEMPOTENT = new Set(['add', 'upload_from_url']);

export interface ExchangeContext {
  dispatcher: Dispatcher;
  /** undici's `request`, on `dispatcher`. */
  request: RequestOn;
  origin: string;
  path: string;
  token: string;
  timeoutMs: number;
  idempotencyHeader: string | false;
  now: () => number;
}

export interface ExchangeResult {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  bytesSent: number;
}

/** Sends one request and reads the whole body. Network failures come out classified. */
export async function exchange(
  ctx: ExchangeContext,
  request: ApiRequest,
  idempotencyKey: string | undefined,
  signal: AbortSignal | undefined,
): Promise<ExchangeResult> {
  const body = JSON.stringify(request);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    authorization: `Bearer ${ctx.token}`,
  };
  if (idempotencyKey !== undefined && ctx.idempotencyHeader) {
    headers[ctx.idempotencyHeader.toLowerCase()] = idempotencyKey;
  }
  try {
    const response = await ctx.request(ctx.dispatcher, {
      origin: ctx.origin,
      path: ctx.path,
      method: 'POST',
      headers,
      body,
      signal: signal ?? null,
      headersTimeout: ctx.timeoutMs,
      bodyTimeout: ctx.timeoutMs,
    });
    const text = await response.body.text();
    return {
      statusCode: response.statusCode,
      headers: response.headers,
      text,
      bytesSent: Buffer.byteLength(body),
    };
  } catch (error) {
    throw classifyTransportError(error, request, idempotencyKey, ctx.origin, signal);
  }
}

function classifyTransportError(
  error: unknown,
  request: ApiRequest,
  idempotencyKey: string | undefined,
  origin: string,
  signal: AbortSignal | undefined,
): unknown {
  if (signal?.aborted) return signal.reason ?? error;
  const code = errorCode(error);
  if (code === undefined) return error;
  const what = describe(request);
  if (NOT_SENT.has(code)) {
    return new CmsRetryableError(`Could not connect to the CMS at ${origin} (${code}).`, {
      reason: code,
      cause: error,
    });
  }
  if (MAYBE_SENT.has(code) || code.startsWith('HPE_')) {
    if (NON_IDEMPOTENT.has(request.action))
      return new CmsAmbiguousError(what, code, idempotencyKey, { cause: error });
    return new CmsRetryableError(`The connection to the CMS at ${origin} failed during ${what} (${code}).`, {
      reason: code,
      cause: error,
    });
  }
  return error;
}

/** Turns a complete HTTP answer into the envelope's `data`, or throws the matching error. */
export function interpret(
  result: ExchangeResult,
  request: ApiRequest,
  ctx: Pick<ExchangeContext, 'token' | 'now' | 'path'>,
): unknown {
  const { statusCode } = result;
  const envelope = parseJson(result.text);
  const serverMessage =
    isObject(envelope) && typeof envelope.message === 'string'
      ? clip(redact(envelope.message, ctx.token))
      : undefined;
  const what = describe(request);

  if (statusCode === 401 || statusCode === 403) throw new CmsAuthError(statusCode, serverMessage);
  if (RETRYABLE_STATUS.has(statusCode) || statusCode >= 500) {
    const statusText = STATUS_CODES[statusCode] ?? '';
    const said = serverMessage ? `: ${serverMessage}` : '';
    const reason = `HTTP ${statusCode}${statusText ? ` ${statusText}` : ''}${said}`;
    const retryAfterMs = parseRetryAfter(result.headers['retry-after'], ctx.now());
    throw new CmsRetryableError(`The CMS answered ${what} with ${reason}.`, {
      reason,
      httpStatus: statusCode,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  if (envelope === undefined) {
    const snippet = clip(redact(result.text.trim(), ctx.token).replace(/\s+/g, ' '), 80);
    throw new CmsProtocolError(
      `The CMS answered ${what} with HTTP ${statusCode} and a body that is not JSON ` +
        `(${snippet ? `"${snippet}"` : 'empty'}). ` +
        `Check CMS_BASE_URL and that the API lives at ${ctx.path} (wire.endpointPath).`,
      statusCode,
    );
  }
  if (!isObject(envelope) || (envelope.status !== 'success' && envelope.status !== 'error')) {
    throw new CmsProtocolError(
      `The CMS answered ${what} with HTTP ${statusCode} but without the {"status": ...} envelope the API describes.`,
      statusCode,
    );
  }
  if (envelope.status === 'error' || statusCode >= 300)
    throw new CmsRejectedError(what, statusCode, serverMessage);
  return envelope.data;
}

export function isNonIdempotent(request: ApiRequest): boolean {
  return NON_IDEMPOTENT.has(request.action);
}

export function describe(request: ApiRequest): string {
  const id = request.id === undefined ? '' : ` ${request.id}`;
  return `${request.resource}.${request.action}${id}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function errorCode(error: unknown): string | undefined {
  if (!isObject(error)) return undefined;
  if (typeof error.code === 'string') return error.code;
  // Node wraps some socket failures: the useful code is one level down.
  return isObject(error.cause) && typeof error.cause.code === 'string' ? error.cause.code : undefined;
}

function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
