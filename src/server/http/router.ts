import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { RESOURCES, type Resource } from '../../resources.js';
import type { MediaLibrary } from '../media/media-library.js';
import { PAGE_SCRIPT_SOURCE } from '../page/html.js';
import { indexPage, listPage, recordPage, sourcePage, type PageContext } from '../page/pages.js';
import type { ServerStats } from '../stats.js';
import type { RecordStore } from '../storage/record-store.js';
import { ApiError, sendError, sendJson } from './envelope.js';

export const API_PATH = '/functions/api';

export interface RouterOptions {
  api: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  store: RecordStore;
  media: MediaLibrary;
  stats: () => ServerStats;
  resetStats: () => void;
  /** Throws a 401 ApiError unless the request carries the API token. */
  authorize: (req: IncomingMessage) => void;
  /** Throws a 403 ApiError when the Host header does not name this server. */
  checkHost: (req: IncomingMessage) => void;
  log: (line: string) => void;
  /** What the pages show beside the records: status names, source files. */
  pages: PageContext;
}

/**
 * Every path the server answers. The API and the stats (`/__cms/stats`, which can also reset
 * them) need the token; the HTML pages and media files are read-only views for a person on
 * loopback. Every path first checks the Host header.
 */
export function createRouter(options: RouterOptions): RequestListener {
  const { store, pages } = options;
  return (req, res) => {
    route(req, res).catch((error: unknown) => {
      if (error instanceof ApiError) return sendError(res, error.status, error.message, error.headers);
      options.log(
        `local CMS: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      sendError(res, 500, `Internal server error: ${error instanceof Error ? error.message : String(error)}`);
    });
  };

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    options.checkHost(req);
    const url = parseTarget(req.url ?? '/');
    const path = url.pathname;
    const method = req.method ?? 'GET';

    if (path === API_PATH) {
      if (method !== 'POST')
        return methodNotAllowed(res, 'POST', `The API takes POST requests only, got ${method}.`);
      return options.api(req, res);
    }
    if (path === '/__cms/stats/reset') {
      if (method !== 'POST') return methodNotAllowed(res, 'POST', 'Reset the stats with POST.');
      options.authorize(req);
      options.resetStats();
      return sendJson(res, 200, { status: 'success', data: options.stats() });
    }

    const readOnly = method === 'GET' || method === 'HEAD';
    const known =
      path === '/' ||
      path === '/__cms/stats' ||
      path.startsWith('/view/') ||
      path.startsWith('/media/') ||
      path.startsWith('/source/');
    if (known && !readOnly) return methodNotAllowed(res, 'GET, HEAD', `${path} is read-only: use GET.`);

    if (path === '/') return sendHtml(res, indexPage(store, pages));
    if (path === '/__cms/stats') {
      options.authorize(req);
      return sendJson(res, 200, { status: 'success', data: options.stats() });
    }

    const view = /^\/view\/([a-z]+)(?:\/(\d+))?\/?$/.exec(path);
    if (view && isResource(view[1])) {
      if (view[2] === undefined) {
        const offset = Number.parseInt(url.searchParams.get('offset') ?? '0', 10);
        return sendHtml(
          res,
          listPage(store, view[1], Number.isSafeInteger(offset) && offset > 0 ? offset : 0, pages),
        );
      }
      const page = recordPage(store, view[1], Number(view[2]), pages);
      if (page) return sendHtml(res, page);
      return sendError(res, 404, `${view[1]} ${view[2]} does not exist.`);
    }

    const source = /^\/source\/([a-z]+)\/(\d+)$/.exec(path);
    if (source && isResource(source[1])) {
      const page = sourcePage(store, source[1], Number(source[2]), pages);
      if (page) return sendHtml(res, page);
      return sendError(res, 404, `No source file is known for ${source[1]} ${source[2]}.`);
    }

    const media = /^\/media\/(\d+)\/([^/]+)$/.exec(path);
    if (media) {
      const record = store.get('media', Number(media[1]));
      // The name must be the record's own: the path never reaches the disk from the URL alone.
      if (
        record &&
        safeDecode(media[2]!) === record.filename &&
        (await options.media.serve(res, record.id, String(record.filename), String(record.mime), method))
      )
        return;
      return sendError(res, 404, `No media file at ${path}.`);
    }
    return sendError(
      res,
      404,
      `Nothing at ${path}. The API is at POST ${API_PATH}; the read-only view is at /.`,
    );
  }
}

function parseTarget(target: string): URL {
  try {
    return new URL(target, 'http://local');
  } catch {
    throw new ApiError(
      400,
      `The request target ${JSON.stringify(target.slice(0, 200))} is not a valid path.`,
    );
  }
}

function methodNotAllowed(res: ServerResponse, allow: string, message: string): void {
  sendError(res, 405, message, { allow });
}

function sendHtml(res: ServerResponse, html: string): void {
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    // Only our inline CSS, the one script that sizes body frames, and same-origin media; record
    // HTML is further confined to an iframe sandboxed without scripts.
    'content-security-policy':
      `default-src 'none'; style-src 'unsafe-inline'; script-src ${PAGE_SCRIPT_SOURCE}; img-src 'self'; ` +
      "media-src 'self'; frame-src 'self'",
  });
  res.end(html);
}

function isResource(value: string | undefined): value is Resource {
  return (RESOURCES as readonly string[]).includes(value ?? '');
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
