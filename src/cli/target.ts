import path from 'node:path';
import type { Config } from '../config/schema.js';
import { SyncError } from '../errors.js';
import type { LocalCms } from '../server/index.js';

/** The CMS a command talks to, and what the run needs to reach it. */
export interface Target {
  baseUrl: string;
  token: string;
  /** What state.json is bound to: "local" for the embedded CMS, else the base URL. */
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

/**
 * With a base URL (CMS_BASE_URL or the config) the run talks to that CMS with the token from
 * the environment. Without one it starts the embedded local CMS in this process, on loopback,
 * with its data in `.cms-sync/local-cms/`, and serves content/ so that CMS can fetch images.
 */
export async function openTarget(config: Config, env: NodeJS.ProcessEnv, options: { port?: number; serveMedia: boolean }): Promise<Target> {
  if (config.target.baseUrl) {
    const token = env[config.target.tokenEnv]?.trim();
    if (!token) {
      throw new SyncError('CMS_SYNC_CONFIG', `No API token: set ${config.target.tokenEnv} to the token from the CMS dashboard (settings, API) to sync to ${config.target.baseUrl}.`);
    }
    return {
      baseUrl: config.target.baseUrl,
      token,
      identity: config.target.baseUrl,
      announcement: `Target: ${config.target.baseUrl}`,
      mediaBaseUrl: config.media.publicBaseUrl,
      local: undefined,
      close: async () => {},
    };
  }

  const { startLocalCms, findRunningLocalCms, readLocalToken, DEFAULT_DATA_DIR } = await import('../server/index.js');
  const dataDir = path.join(config.stateDir, path.relative('.cms-sync', DEFAULT_DATA_DIR));
  const envToken = env[config.target.tokenEnv]?.trim();
  const where = path.relative(config.projectDir, dataDir) || '.';
  const content = options.serveMedia && !config.media.publicBaseUrl ? await (await import('../media/serve-content.js')).serveContent(config.contentDir) : undefined;

  // A `cms-sync serve` (or `npm start`) already running on this data: talk to it, since two
  // servers on one data directory would hand out the same ids.
  const running = await findRunningLocalCms(dataDir);
  if (running?.url) {
    const token = envToken ?? (await readLocalToken(dataDir))?.token;
    if (!token) throw new SyncError('CMS_SYNC_CONFIG', `The local CMS at ${running.url} has no token file in ${where}: set ${config.target.tokenEnv} to the token it was started with.`);
    return {
      baseUrl: running.url,
      token,
      identity: LOCAL_TARGET,
      announcement: `Using the local CMS at ${running.url} (already running, pid ${running.pid}; data in ${where}). Set CMS_BASE_URL and CMS_API_TOKEN to sync to your CMS.`,
      mediaBaseUrl: config.media.publicBaseUrl ?? content?.baseUrl,
      local: undefined,
      close: async () => {
        await content?.close();
      },
    };
  }
  const local = await startLocalCms({ dataDir, port: options.port ?? 0, ...(envToken ? { token: envToken } : {}) }).catch(async (error: unknown) => {
    await content?.close();
    throw error;
  });
  return {
    baseUrl: local.url,
    token: local.token,
    identity: LOCAL_TARGET,
    announcement: `Using the local CMS at ${local.url} (embedded; data in ${where}). Set CMS_BASE_URL and CMS_API_TOKEN to sync to your CMS.`,
    mediaBaseUrl: config.media.publicBaseUrl ?? content?.baseUrl,
    local,
    close: async () => {
      await content?.close();
      await local.close();
    },
  };
}
