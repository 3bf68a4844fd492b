import type { Server, ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import { rawErrorResponse } from './envelope.js';

export interface ServerTimeouts {
  /** Time a client has to send the request line and headers. @default 10_000 */
  headersMs: number;
  /** Time a client has to send the whole request, body included. @default 30_000 */
  requestMs: number;
  /** How long an idle keep-alive connection is kept open between requests. @default 5_000 */
  keepAliveMs: number;
  /** How often connections are checked against the two timeouts above. @default 1_000 */
  checkIntervalMs: number;
}

export const DEFAULT_TIMEOUTS: ServerTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  checkIntervalMs: 1_000,
};

/** Connections open at once; a sync uses a handful, so this only stops a flood. */
export const DEFAULT_MAX_CONNECTIONS = 256;

/**
 * The timeouts bound what a slow client (one sending its headers a byte at a time) can hold.
 * Only the receipt of a request is timed: answering may take long (a --latency, an upload).
 * The Host header is checked by the router, so a missing one gets the envelope too.
 */
export function httpServerOptions(timeouts: ServerTimeouts): ServerOptions {
  return {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionsCheckingInterval: timeouts.checkIntervalMs,
    requireHostHeader: false,
  };
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [
    408,
    'The request was not received in time; send the headers and the body without pauses.',
  ],
  HPE_HEADER_OVERFLOW: [431, 'The request headers are too large.'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'The chunk extensions of the request body are too large.'],
};

/**
 * Caps open connections (beyond the cap a new connection is closed at once, before any byte
 * is read) and answers what Node's HTTP parser refuses — malformed requests, timeouts — with
 * the JSON error envelope rather than a bare status line.
 */
export function guardConnections(server: Server, maxConnections: number, timeouts: ServerTimeouts): void {
  server.maxConnections = maxConnections;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const message = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || message?.headersSent) return void socket.destroy();
    const [status, text] = CLIENT_ERRORS[error.code ?? ''] ?? [
      400,
      `The request is not valid HTTP (${error.code ?? error.message}).`,
    ];
    const limits = `within ${timeouts.headersMs / 1000} s, the whole request within ${timeouts.requestMs / 1000} s`;
    const detail = status === 408 ? ` Headers must arrive ${limits}.` : '';
    socket.end(rawErrorResponse(status, text + detail));
  });
}
