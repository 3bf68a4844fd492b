import path from 'node:path';
import type { Config } from '../config/schema.js';
import { redactCredentials, SyncError, withoutCredentials } from '../errors.js';
import type { LocalCms } from '../server/index.js';
import type { SyncReporter } from './events.js';
import { readToken } from './token.js';

/** The CMS a command talks to, and what the run needs to reach it. */
export interface Target {
  baseUrl: string;
  token: string;
  /** What state.json is bound to: "local" for the embedded CMS, else the base URL without credentials. */
  identity: string;
  /** The line that says which CMS this is (the first line of every command's output). */
  announcement: string;
  /** Base URL the CMS fetches local media from, if any. */
  mediaBaseUrl: string | undefined;
  /** The embedded CMS, when this run started one. */
  local: LocalCms | undefined;
  close(): Promise<void>;
}

export const LOCAL_TARGET = 'local';

export interface TargetOptions {
  port?: number;
  serveMedia: boolean;
  /**
   * The embedded local CMS: 'only' to use it even when a base URL is set (--local,
   * CMS_SYNC_LOCAL=1); 'allowed' to fall back to it even in CI (`start`). By default it is the
   * fallback without a base URL, except in CI, where a missing CMS_BASE_URL is an error.
   */
  local?: 'only' | 'allowed' | undefined;
  /** --token-file. */
  tokenFile?: string | undefined;
  /** Told of warnings (the token over plain http). */
  report?: SyncReporter;
}

/**
 * With a base URL (CMS_BASE_URL or the config) the run talks to that CMS with the token from
 * the environment. Without one it starts the embedded local CMS in this process, on loopback,
 * with its data in `.cms-sync/local-cms/`, and serves content/ so that CMS can fetch images.
 */
export async function openTarget(
  config: Config,
  env: NodeJS.ProcessEnv,
  options: TargetOptions,
): Promise<Target> {
  const local = options.local ?? (truthy(env.CMS_SYNC_LOCAL) ? 'only' : undefined);
  const tokenSources = {
    env,
    tokenEnv: config.target.tokenEnv,
    tokenFile: options.tokenFile,
    cwd: config.projectDir,
  };
  if (config.target.baseUrl && local !== 'only') {
    const shown = redactCredentials(config.target.baseUrl);
    const token = await readToken(tokenSources);
    if (!token) {
      const where = `the token from the CMS dashboard (settings, API) to sync to ${shown}`;
      throw new SyncError(
        'CMS_SYNC_CONFIG',
        `No API token: set ${config.target.tokenEnv} (or --token-file) to ${where}.`,
      );
    }
    const url = new URL(config.target.baseUrl);
    if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
      options.report?.({
        type: 'warning',
        message:
          `Warning: the API token is sent over plain http:// to ${url.host}, so anyone on the way can read it. ` +
          'Use https:// for a CMS beyond this machine.',
      });
    }
    return {
      baseUrl: config.target.baseUrl,
      token,
      identity: withoutCredentials(config.target.baseUrl),
      announcement: `Target: ${shown}`,
      mediaBaseUrl: config.media.publicBaseUrl,
      local: undefined,
      close: async () => {},
    };
  }
  if (!local && isCi(env)) {
    throw new SyncError(
      'CMS_SYNC_CONFIG',
      'No CMS to sync to: CMS_BASE_URL is not set, and in CI cms-sync does not fall back to a throwaway local CMS. ' +
        "Set CMS_BASE_URL and CMS_API_TOKEN (from the repository's secrets), " +
        'or pass --local (or CMS_SYNC_LOCAL=1) to use the embedded local CMS on purpose.',
    );
  }

  const { startLocalCms, findRunningLocalCms, readLocalToken, DEFAULT_DATA_DIR } =
    await import('../server/index.js');
  const dataDir = path.join(config.stateDir, path.relative('.cms-sync', DEFAULT_DATA_DIR));
  const envToken = await readToken(tokenSources);
  const where = path.relative(config.projectDir, dataDir) || '.';
  const content =
    options.serveMedia && !config.media.publicBaseUrl
      ? await (await import('../media/serve-content.js')).serveContent(config.contentDir)
      : undefined;

  // A `cms-sync serve` (or `npm start`) already running on this data: talk to it, since two
  // servers on one data directory would hand out the same ids.
  const running = await findRunningLocalCms(dataDir);
  if (running?.url) {
    const token = envToken ?? (await readLocalToken(dataDir))?.token;
    if (!token)
      throw new SyncError(
        'CMS_SYNC_CONFIG',
        `The local CMS at ${running.url} has no token file in ${where}: set ${config.target.tokenEnv} to the token ` +
          `it was started with.`,
      );
    return {
      baseUrl: running.url,
      token,
      identity: LOCAL_TARGET,
      announcement:
        `Using the local CMS at ${running.url} (already running, pid ${running.pid}; data in ${where}). ` +
        `Set CMS_BASE_URL and CMS_API_TOKEN to sync to your CMS.`,
      mediaBaseUrl: config.media.publicBaseUrl ?? content?.baseUrl,
      local: undefined,
      close: async () => {
        await content?.close();
      },
    };
  }
  const started = await startLocalCms({
    dataDir,
    port: options.port ?? 0,
    rememberPort: !options.port,
    statusNames: new Map([
      [config.statusMap.draft, 'draft'],
      [config.statusMap.published, 'published'],
    ]),
    sourceProject: {
      dir: config.projectDir,
      contentDir: config.contentDir,
      stateFiles: [path.join(localStateDir(config), 'state.json')],
    },
    ...(envToken ? { token: envToken } : {}),
  }).catch(async (error: unknown) => {
    await content?.close();
    throw error;
  });
  return {
    baseUrl: started.url,
    token: started.token,
    identity: LOCAL_TARGET,
    announcement:
      `Using the local CMS at ${started.url} (embedded; data in ${where}). Set CMS_BASE_URL and ` +
      `CMS_API_TOKEN to sync to your CMS.`,
    mediaBaseUrl: config.media.publicBaseUrl ?? content?.baseUrl,
    local: started,
    close: async () => {
      await content?.close();
      await started.close();
    },
  };
}

/**
 * Where a target's state lives. The embedded CMS is a scratch copy on this machine: its ids
 * mean nothing to the real CMS, so its state lives beside its data (git-ignored with it), never
 * in the committed `.cms-sync/state.json`.
 */
export function stateDirOf(config: Config, target: Pick<Target, 'identity'>): string {
  return target.identity === LOCAL_TARGET ? localStateDir(config) : config.stateDir;
}

export function localStateDir(config: Config): string {
  return path.join(localDataDir(config), 'state');
}

function localDataDir(config: Config): string {
  return path.join(config.stateDir, 'local-cms');
}

/** CI=true (GitHub Actions, GitLab, most runners): any value but empty, "false" or "0". */
export function isCi(env: NodeJS.ProcessEnv): boolean {
  return truthy(env.CI);
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value.toLowerCase() !== 'false' && value !== '0';
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return (
    host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)
  );
}
