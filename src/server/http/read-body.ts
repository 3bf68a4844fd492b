import type { IncomingMessage } from 'node:http';
import { ApiError } from './envelope.js';

/** Request bodies above this are refused with 413; the largest real body is an article's HTML. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * Arrays and objects nested deeper than this are refused: storing and answering a record means
 * JSON.stringify, which recurses and overflows the stack on a few thousand levels.
 */
export const MAX_JSON_DEPTH = 64;

/** Reads a JSON request body, refusing oversize bodies before buffering them. */
export async function readJsonBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(contentType)) {
    throw new ApiError(
      400,
      `Content-Type must be application/json, got ${contentType ? `"${contentType}"` : 'none'}.`,
    );
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw tooLarge(maxBytes);
  }
  const text = (await collect(req, maxBytes)).toString('utf8');
  if (text.trim() === '')
    throw new ApiError(400, 'The request body is empty; send a JSON object with "resource" and "action".');
  if (nestingExceeds(text, MAX_JSON_DEPTH)) {
    const what = `nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep`;
    throw new ApiError(400, `The request body ${what}; flatten the data.`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, `The request body is not valid JSON: ${(error as Error).message}.`);
  }
}

/** Whether `[`/`{` outside strings nest deeper than `max`: a linear scan, before anything recurses. */
export function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * Buffers the body up to `maxBytes`. Past that it stops buffering and lets the rest drain
 * unread rather than destroying the request: destroying would kill the socket before the 413
 * could be sent (the response says `Connection: close`, so the connection ends after it).
 */
function collect(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // A client gone before its body was read (killed, or it gave up during a slow answer):
    // Node discards the request then, and no 'end' comes. Without this, the handler would wait
    // forever, and so would close(), which lets requests in progress finish.
    const gone = () =>
      reject(new ApiError(400, 'The client closed the connection before its request body was read.'));
    if (req.destroyed) return gone();
    req.once('close', () => {
      if (!req.readableEnded) gone();
    });
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      req.off('data', onData);
      req.resume();
      reject(tooLarge(maxBytes));
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, `The request body is larger than ${maxBytes / 1024 / 1024} MiB.`, {
    connection: 'close',
  });
}
