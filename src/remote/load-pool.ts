import type { Dispatcher, Pool } from 'undici';
import { beforeHttp } from '../process-tuning.js';
import { requireLater } from '../require-later.js';

type RequestFunction = (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;
const poolFile = requireLater<typeof Pool>('undici/lib/dispatcher/pool.js');
const requestFile = requireLater<RequestFunction>('undici/lib/api/api-request.js');
const undici = requireLater<typeof import('undici')>('undici');

/** undici's `request`, called on a dispatcher: what the client sends every exchange with. */
export type RequestOn = (
  dispatcher: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

/** A dispatcher given by the caller (tests, a proxy), or undici loaded whole, brings its own `request`. */
export const requestOnDispatcher: RequestOn = (dispatcher, options) => dispatcher.request(options);

export interface LoadedPool {
  Pool: typeof Pool;
  request: RequestOn;
  /** False when undici's files have moved and the whole package was loaded instead. */
  direct: boolean;
}

/**
 * undici's Pool and its `request`, loaded from their own files rather than through undici's
 * index, which also loads fetch, WebSocket, the proxy agents, mocks and caches: a large share of a
 * no-op run's start-up. undici has no `exports`
 * map, so these paths are open to us, but they are not its documented API: if a new version
 * moves them, the client loads the whole package as before (and a test says so).
 */
export function loadPool(): LoadedPool {
  beforeHttp();
  try {
    const PoolClass = poolFile();
    const request = requestFile();
    if (typeof PoolClass !== 'function' || typeof request !== 'function')
      throw new TypeError('undici layout changed');
    return {
      Pool: PoolClass,
      request: (dispatcher, options) => request.call(dispatcher, options),
      direct: true,
    };
  } catch {
    return { Pool: undici().Pool, request: requestOnDispatcher, direct: false };
  }
}
