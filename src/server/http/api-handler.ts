import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { dispatch, type ApiContext } from '../api/dispatch.js';
import { parseRequest } from '../api/parse-request.js';
import type { FaultInjector } from '../faults/fault-injector.js';
import type { TokenBucket } from '../faults/token-bucket.js';
import { logWrite, type ServerStats } from '../stats.js';
import { checkBearer } from './auth.js';
import { ApiError, sendError, sendSuccess } from './envelope.js';
import { readJsonBody } from './read-body.js';

export interface ApiHandlerOptions {
  token: string;
  apiDisabled: boolean;
  latencyMs: number;
  rateLimit: TokenBucket | undefined;
  faults: FaultInjector;
  stats: ServerStats;
  context: ApiContext;
  log: (line: string) => void;
}

/**
 * POST {base}/functions/api. The order matters to what a client can observe: latency first
 * (it stands for the network), then the refusals that apply before reading a body (API off,
 * token, rate), then the request itself; `--fail` strikes before anything is applied and
 * `--drop` after the write is durable.
 */
/**
 * Requests that arrive this soon after a 429 was answered were sent before the client could
 * have read it (they were in flight), so they do not count as ignoring its Retry-After.
 */
const IN_FLIGHT_GRACE_MS = 50;

export function createApiHandler(options: ApiHandlerOptions) {
  const { stats } = options;
  // The latest 429's answer time and Retry-After deadline, to count clients that send too early.
  let refusedAt = -Infinity;
  let retryAfterUntil = -Infinity;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    stats.requests++;
    const arrived = Date.now();
    if (arrived < retryAfterUntil && arrived > refusedAt + IN_FLIGHT_GRACE_MS) stats.earlyAfterRetryAfter++;
    try {
      if (options.latencyMs > 0) await sleep(options.latencyMs);
      if (options.apiDisabled) {
        throw new ApiError(
          403,
          'The API is disabled: it must be enabled in the dashboard settings (API section) before requests are served.',
        );
      }
      checkBearer(req.headers.authorization, options.token);
      const slot = options.rateLimit?.take();
      if (slot && !slot.ok) {
        stats.rateLimited++;
        refusedAt = Date.now();
        retryAfterUntil = Math.max(retryAfterUntil, refusedAt + slot.retryAfterSeconds * 1000);
        throw new ApiError(
          429,
          `Too many requests: this server allows a limited number of requests per second. Retry after ` +
            `${slot.retryAfterSeconds} s.`,
          {
            'retry-after': String(slot.retryAfterSeconds),
          },
        );
      }
      const request = parseRequest(await readJsonBody(req));
      const key = `${request.resource}.${request.action}`;
      stats.byAction[key] = (stats.byAction[key] ?? 0) + 1;
      if (options.faults.shouldFail()) {
        stats.failed++;
        throw new ApiError(500, 'Injected failure (--fail): nothing was applied.');
      }
      const result = await dispatch(request, options.context);
      if (result.wrote) {
        stats.writes++;
        logWrite(stats, { at: Date.now(), ...result.wrote });
        if (options.faults.shouldDrop()) {
          stats.dropped++;
          // The write is durable; the client just never hears about it (an ambiguous outcome).
          req.socket.destroy();
          return;
        }
      }
      sendSuccess(res, result.data);
    } catch (error) {
      if (error instanceof ApiError) {
        sendError(res, error.status, error.message, error.headers);
        if (error.status === 413) req.resume();
        return;
      }
      options.log(
        `local CMS: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      sendError(res, 500, `Internal server error: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
}
