import { SyncError } from '../errors.js';

/** 401/403: the token or the API setting is wrong; every later call would fail the same way. */
export class CmsAuthError extends SyncError {
  readonly httpStatus: number;

  constructor(httpStatus: number, serverMessage: string | undefined, options: { cause?: unknown } = {}) {
    super(
      'CMS_SYNC_AUTH',
      `The CMS refused the request (HTTP ${httpStatus}): check the API token (CMS_API_TOKEN) and that the API is ` +
        `enabled in the dashboard settings.` +
        quoteServer(serverMessage),
      options,
    );
    this.name = 'CmsAuthError';
    this.httpStatus = httpStatus;
  }
}

/** The CMS answered and said no (other 4xx, or `status: "error"`): that record fails, the run goes on. */
export class CmsRejectedError extends SyncError {
  readonly httpStatus: number;
  readonly serverMessage: string | undefined;

  constructor(
    what: string,
    httpStatus: number,
    serverMessage: string | undefined,
    options: { cause?: unknown } = {},
  ) {
    super(
      'CMS_SYNC_REJECTED',
      `The CMS rejected ${what} (HTTP ${httpStatus}).${quoteServer(serverMessage)}`,
      options,
    );
    this.name = 'CmsRejectedError';
    this.httpStatus = httpStatus;
    this.serverMessage = serverMessage;
  }
}

/**
 * A failure worth trying again: 429, 5xx, a timeout, a dropped or refused connection.
 * Thrown by one attempt; the retry loop turns the last one into a `CmsRetryBudgetError`.
 */
export class CmsRetryableError extends SyncError {
  /** Short description for events and the final message, e.g. `HTTP 503` or `ECONNRESET`. */
  readonly reason: string;
  readonly httpStatus: number | undefined;
  /** The server's Retry-After, in ms from when the response arrived. */
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    details: { reason: string; httpStatus?: number; retryAfterMs?: number; cause?: unknown },
    code: 'CMS_SYNC_RETRYABLE' | 'CMS_SYNC_RETRY_BUDGET' = 'CMS_SYNC_RETRYABLE',
  ) {
    super(code, message, { cause: details.cause });
    this.name = 'CmsRetryableError';
    this.reason = details.reason;
    this.httpStatus = details.httpStatus;
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** Retries ran out (attempts, time budget, or a Retry-After longer than we agree to wait). */
export class CmsRetryBudgetError extends CmsRetryableError {
  constructor(message: string, last: CmsRetryableError) {
    super(
      message,
      { reason: last.reason, httpStatus: last.httpStatus, retryAfterMs: last.retryAfterMs, cause: last },
      'CMS_SYNC_RETRY_BUDGET',
    );
    this.name = 'CmsRetryBudgetError';
  }
}

/** A non-idempotent write was sent and no answer came back: it may or may not have happened. */
export class CmsAmbiguousError extends SyncError {
  readonly idempotencyKey: string | undefined;

  constructor(
    what: string,
    reason: string,
    idempotencyKey: string | undefined,
    options: { cause?: unknown } = {},
  ) {
    super(
      'CMS_SYNC_AMBIGUOUS',
      `The connection to the CMS failed after ${what} was sent (${reason}): it may or may not have been carried out. ` +
        'It was not sent again; look the record up in the CMS before retrying.',
      options,
    );
    this.name = 'CmsAmbiguousError';
    this.idempotencyKey = idempotencyKey;
  }
}

/** The CMS answered something we cannot read (not JSON, no envelope, no id where one must be). */
export class CmsProtocolError extends SyncError {
  readonly httpStatus: number | undefined;

  constructor(message: string, httpStatus: number | undefined, options: { cause?: unknown } = {}) {
    super('CMS_SYNC_PROTOCOL', message, options);
    this.name = 'CmsProtocolError';
    this.httpStatus = httpStatus;
  }
}

function quoteServer(serverMessage: string | undefined): string {
  if (!serverMessage) return '';
  const short = serverMessage.length > 300 ? `${serverMessage.slice(0, 300)}…` : serverMessage;
  return ` The CMS said: "${short}"`;
}
