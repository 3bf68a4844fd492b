import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Agent } from 'undici';
import { SyncError } from '../errors.js';
import { FaultInjector } from './faults/fault-injector.js';
import { TokenBucket } from './faults/token-bucket.js';
import { createApiHandler } from './http/api-handler.js';
import { checkBearer } from './http/auth.js';
import {
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_TIMEOUTS,
  guardConnections,
  httpServerOptions,
  type ServerTimeouts,
} from './http/connections.js';
import { sendError } from './http/envelope.js';
import { createHostCheck } from './http/host-check.js';
import { API_PATH, createRouter } from './http/router.js';
import { DEFAULT_DOWNLOAD_LIMITS, type DownloadLimits } from './media/download.js';
import type { UploadHostRules } from './media/host-rules.js';
import { MediaLibrary } from './media/media-library.js';
import { emptyStats, type ServerStats } from './stats.js';
import { claimDataDir } from './storage/data-lock.js';
import { sweepTempFiles } from './storage/atomic-write.js';
import { RecordStore } from './storage/record-store.js';
import { DEFAULT_STATUS_NAMES } from './page/pages.js';
import { sourceFiles, type SourceProject } from './page/source-files.js';
import { ensureLocalToken, TOKEN_FILE } from './token.js';

/** Age after which a temp file in the data dir is a crash's leftover, not a write in progress. */
const STALE_TEMP_MS = 60_000;

export type { ServerStats } from './stats.js';
export { ensureLocalToken, readLocalToken } from './token.js';
export { findRunningLocalCms, type RunningLocalCms } from './storage/data-lock.js';

export { DEFAULT_DATA_DIR } from './data-dir.js';
export type { ServerTimeouts } from './http/connections.js';
export type { UploadHostRules } from './media/host-rules.js';

export interface LocalCmsOptions {
  /** Directory holding records, media files, the id counters and (unless `token` is given) the token. */
  dataDir: string;
  /** @default 0 (an ephemeral port) */
  port?: number;
  /**
   * With port 0: first try the port this data directory's server had last time (kept in
   * `<dataDir>/port`), so a browser tab left open on it still works; any free port if taken.
   */
  rememberPort?: boolean;
  /** Status value -> name for the pages (the project's status map). @default 0 draft, 1 published */
  statusNames?: ReadonlyMap<number, string>;
  /** The project syncing here, so record pages can link the file each record came from. */
  sourceProject?: SourceProject;
  /** @default '127.0.0.1' */
  host?: string;
  /** API token; when absent, the one in `<dataDir>/token` (created on first use). */
  token?: string;
  /** Refuse every API request with 403, like a CMS whose API is off in the dashboard. */
  apiDisabled?: boolean;
  /** Test aid: API requests per second before 429 (token bucket). */
  rps?: number;
  /** Test aid: delay in ms before each API request is handled. */
  latencyMs?: number;
  /** Test aid: probability 0..1 of a 500 before anything is applied. */
  failRate?: number;
  /** Test aid: probability 0..1 that an applied write is answered by a cut connection. */
  dropRate?: number;
  /** Test aid: seed for the fail/drop draws, so a run is reproducible. */
  seed?: number;
  /** Store body/content with whitespace between tags collapsed, as real CMSs do. */
  normalizeHtml?: boolean;
  /** Test hook: tighter limits for upload_from_url downloads. @default 50 MiB, 15 s, 5 redirects */
  downloadLimits?: Partial<DownloadLimits>;
  /**
   * Hosts `upload_from_url` may (`allow`) or may not (`deny`) fetch from: names or addresses as
   * written in the URL, or `*.example.com`. Deny wins; a non-empty allow list refuses the rest.
   * @default {} (any http/https host)
   * @example { allow: ['127.0.0.1', '*.cdn.example.com'], deny: ['169.254.169.254'] }
   */
  uploadHosts?: UploadHostRules;
  /**
   * Host names, besides loopback and the bound address, that clients may use in the Host
   * header (e.g. a name this machine has on the LAN); `'*'` turns the check off.
   * @default []
   */
  allowedHosts?: string[];
  /** Limits on how long a client may take to send a request. @default 10 s headers, 30 s request, 5 s keep-alive */
  timeouts?: Partial<ServerTimeouts>;
  /** Connections open at once; beyond it new ones are closed at once. @default 256 */
  maxConnections?: number;
  /** Where unexpected server errors are reported. @default no output */
  log?: (line: string) => void;
}

export interface LocalCms {
  /** `http://HOST:PORT`, no trailing slash. */
  url: string;
  /** The API endpoint, `${url}/functions/api`. */
  apiUrl: string;
  token: string;
  /** The file the token came from, or undefined when it was passed in. */
  tokenFile: string | undefined;
  stats(): ServerStats;
  resetStats(): void;
  /** Stops accepting requests, waits for writes in progress to be durable, closes connections. */
  close(): Promise<void>;
}

export async function startLocalCms(options: LocalCmsOptions): Promise<LocalCms> {
  checkOptions(options);
  const log = options.log ?? (() => {});
  const host = options.host ?? '127.0.0.1';
  const { token, tokenFile } = options.token
    ? { token: options.token, tokenFile: undefined }
    : await ensureLocalToken(options.dataDir);

  const claim = await claimDataDir(options.dataDir);
  let store: RecordStore;
  const media = new MediaLibrary(options.dataDir);
  try {
    // Temps of files other processes may write too (a token being made, the claim in server.json) are swept only
    // once they are old enough that no writer can still be at work on them.
    await sweepTempFiles(options.dataDir, [TOKEN_FILE, 'server.json'], STALE_TEMP_MS);
    store = await RecordStore.open(options.dataDir);
    await media.sweep(store);
  } catch (error) {
    await claim.release();
    throw error;
  }
  // A dispatcher of our own, so the downloads' keep-alive sockets close with the server.
  const dispatcher = new Agent({ connect: { timeout: DEFAULT_DOWNLOAD_LIMITS.timeoutMs } });

  // One live object, reset in place, so the handler and the accessors always share it.
  const stats = emptyStats();
  const resetStats = () => void Object.assign(stats, emptyStats());
  let url = '';
  let port = 0;
  const api = createApiHandler({
    token,
    apiDisabled: options.apiDisabled ?? false,
    latencyMs: options.latencyMs ?? 0,
    rateLimit: options.rps ? new TokenBucket(options.rps) : undefined,
    faults: new FaultInjector(options),
    stats,
    context: {
      store,
      media,
      baseUrl: () => url,
      normalizeHtml: options.normalizeHtml ?? false,
      dispatcher,
      downloadLimits: { ...DEFAULT_DOWNLOAD_LIMITS, ...options.downloadLimits },
      uploadHosts: options.uploadHosts ?? {},
      now: () => new Date(),
    },
    log,
  });
  // API requests in progress, so close() can let them finish (a download may still be running).
  const inflight = new Set<Promise<void>>();
  const trackedApi: typeof api = (req, res) => {
    const handled = api(req, res);
    inflight.add(handled);
    void handled.finally(() => inflight.delete(handled));
    return handled;
  };
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const server = createServer(
    httpServerOptions(timeouts),
    createRouter({
      api: trackedApi,
      store,
      media,
      stats: () => stats,
      resetStats,
      authorize: (req) => checkBearer(req.headers.authorization, token),
      pages: {
        statusNames: options.statusNames ?? DEFAULT_STATUS_NAMES,
        sources: sourceFiles(options.sourceProject, () => url),
      },
      checkHost: createHostCheck({
        boundHost: host,
        port: () => port,
        allowedHosts: options.allowedHosts ?? [],
      }),
      log,
    }),
  );
  guardConnections(server, options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, timeouts);
  server.on('checkExpectation', (_req, res) =>
    sendError(res, 417, 'Only "Expect: 100-continue" is supported.'),
  );

  try {
    const remembered =
      options.rememberPort && !options.port ? await rememberedPort(options.dataDir) : undefined;
    port = remembered
      ? await listen(server, remembered, host).catch(() => listen(server, 0, host))
      : await listen(server, options.port ?? 0, host);
    if (options.rememberPort)
      await writeFile(path.join(options.dataDir, PORT_FILE), `${port}\n`).catch(() => {});
    url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    await claim.publish(url);
  } catch (error) {
    server.close();
    await dispatcher.close();
    await claim.release();
    throw error;
  }
  return {
    url,
    apiUrl: `${url}${API_PATH}`,
    token,
    tokenFile,
    stats: () => structuredClone(stats),
    resetStats,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.allSettled([...inflight]);
      await store.drain();
      server.closeAllConnections();
      await closed;
      await dispatcher.close();
      await claim.release();
    },
  };
}

/** Where a data directory's server keeps the port it had (see rememberPort). */
const PORT_FILE = 'port';

async function rememberedPort(dataDir: string): Promise<number | undefined> {
  const text = await readFile(path.join(dataDir, PORT_FILE), 'utf8').catch(() => '');
  const port = Number(text.trim());
  return Number.isInteger(port) && port >= 1024 && port <= 65535 ? port : undefined;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const hint =
        error.code === 'EADDRINUSE'
          ? `port ${port} on ${host} is already in use; pick another with --port (0 = any free port)`
          : error.message;
      reject(
        new SyncError('CMS_SYNC_SERVER', `The local CMS could not listen on ${host}:${port}: ${hint}.`, {
          cause: error,
        }),
      );
    });
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function checkOptions(options: LocalCmsOptions): void {
  const problems: string[] = [];
  const check = (name: string, value: number | undefined, ok: (v: number) => boolean, expected: string) => {
    if (value !== undefined && !(Number.isFinite(value) && ok(value)))
      problems.push(`Expected \`${name}\` to be ${expected}, got \`${value}\` (${typeof value})`);
  };
  check(
    'port',
    options.port,
    (v) => Number.isInteger(v) && v >= 0 && v <= 65535,
    'an integer from 0 to 65535',
  );
  check('rps', options.rps, (v) => v > 0, 'a number > 0');
  check('latencyMs', options.latencyMs, (v) => v >= 0, 'a number >= 0');
  check('failRate', options.failRate, (v) => v >= 0 && v <= 1, 'a probability from 0 to 1');
  check('dropRate', options.dropRate, (v) => v >= 0 && v <= 1, 'a probability from 0 to 1');
  check('seed', options.seed, (v) => Number.isInteger(v), 'an integer');
  check('maxConnections', options.maxConnections, (v) => Number.isInteger(v) && v >= 1, 'an integer >= 1');
  for (const name of ['headersMs', 'requestMs', 'keepAliveMs', 'checkIntervalMs'] as const) {
    const ms = (v: number) => Number.isInteger(v) && v >= 1;
    check(`timeouts.${name}`, options.timeouts?.[name], ms, 'an integer >= 1 (milliseconds)');
  }
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  if (timeouts.headersMs > timeouts.requestMs) {
    const [headers, request] = [timeouts.headersMs, timeouts.requestMs];
    problems.push(
      `Expected \`timeouts.headersMs\` (${headers}) to be at most \`timeouts.requestMs\` (${request})`,
    );
  }
  if (problems.length > 0)
    throw new SyncError('CMS_SYNC_CONFIG', `Invalid local CMS options: ${problems.join('; ')}.`);
}
