import { createRequire } from 'node:module';
import type { Dispatcher, Pool } from 'undici';

const require = createRequire(import.meta.url);

/** undici's `request`, called on a dispatcher: what the client sends every exchange with. */
export type RequestOn = (dispatcher: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

export interface LoadedPool {
  Pool: typeof Pool;
  request: RequestOn;
  /** False when undici's files have moved and the whole package was loaded instead. */
  direct: boolean;
}

/**
 * undici's Pool and its `request`, loaded from their own files rather than through undici's
 * index, which also loads fetch, WebSocket, the proxy agents, mocks and caches: ~35 ms instead of
 * ~95 ms in a fresh process, a sixth of a no-op run over 10,000 files. undici has no `exports`
 * map, so these paths are open to us, but they are not its documented API: if a new version
 * moves them, the client loads the whole package as before (and a test says so).
 */
export function loadPool(): LoadedPool {
  try {
    const PoolClass = require('undici/lib/dispatcher/pool.js') as typeof Pool;
    const request = require('undici/lib/api/api-request.js') as (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
    if (typeof PoolClass !== 'function' || typeof request !== 'function') throw new TypeError('undici layout changed');
    return { Pool: PoolClass, request: (dispatcher, options) => request.call(dispatcher, options), direct: true };
  } catch {
    const undici = require('undici') as typeof import('undici');
    return { Pool: undici.Pool, request: (dispatcher, options) => dispatcher.request(options), direct: false };
  }
}

/** A dispatcher given by the caller (tests, a proxy) brings its own `request`. */
export const requestOnDispatcher: RequestOn = (dispatcher, options) => dispatcher.request(options);
