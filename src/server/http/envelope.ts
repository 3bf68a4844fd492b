import { STATUS_CODES, type ServerResponse } from 'node:http';

/**
 * A failure the API reports to the client: its HTTP status and a message for a human.
 * Anything else thrown while handling a request becomes a 500.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.headers = headers;
  }
}

export function sendSuccess(res: ServerResponse, data: unknown): void {
  sendJson(res, 200, { status: 'success', data });
}

export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { status: 'error', message }, headers);
}

/**
 * A whole HTTP response with an error envelope, for answering on a raw socket where Node's HTTP
 * layer gave up on the request (malformed, too slow): the client still gets the envelope.
 */
export function rawErrorResponse(status: number, message: string): string {
  const text = JSON.stringify({ status: 'error', message });
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(text)}`,
    'Cache-Control: no-store',
    'Connection: close',
    '',
    text,
  ].join('\r\n');
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}
