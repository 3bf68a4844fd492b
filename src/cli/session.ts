import { loadConfig } from '../config/load-config.js';
import type { Config } from '../config/schema.js';
import { createClient, type CmsClient } from '../remote/client.js';
import { StateStore } from '../state/journal.js';
import { acquireLock } from '../state/lock.js';
import { writeLine, type CliIO } from './io.js';
import type { SyncFlags } from './run-sync.js';
import { openTarget, type Target } from './target.js';

/**
 * What a plan or apply works with, opened once: config, the CMS (started in-process when it is
 * the embedded one), the API client, and — for apply — the state lock and the state store.
 * watch keeps one session open across many syncs.
 */
export interface Session {
  mode: 'plan' | 'apply';
  config: Config;
  target: Target;
  client: CmsClient;
  /** Present in an apply session: the state, locked for this process. */
  store: StateStore | undefined;
  close(options?: { keepTarget?: boolean }): Promise<void>;
}

export async function openSession(mode: 'plan' | 'apply', flags: SyncFlags, io: CliIO, options: { projectDir: string; port?: number; command?: string }): Promise<Session> {
  const config = await loadConfig(options.projectDir, io.env, { readOnly: mode === 'plan' });
  const target = await openTarget(config, io.env, { serveMedia: mode === 'apply', ...(options.port !== undefined ? { port: options.port } : {}) });
  let releaseLock: (() => Promise<void>) | undefined;
  try {
    writeLine(flags.json ? io.stderr : io.stdout, target.announcement);
    let store: StateStore | undefined;
    if (mode === 'apply') {
      releaseLock = await acquireLock(config.stateDir, options.command ?? 'apply');
      store = await StateStore.open(config.stateDir, target.identity);
    }
    const clientOptions = {
      baseUrl: target.baseUrl,
      token: target.token,
      wire: config.wire,
      concurrency: flags.concurrency ?? config.sync.concurrency,
      rps: flags.rps ?? config.sync.rps,
      timeoutMs: config.sync.timeoutMs,
      retry: config.sync.retry,
    };
    const client = config.target.client ? config.target.client(clientOptions, createClient) : createClient(clientOptions);
    return {
      mode,
      config,
      target,
      client,
      store,
      async close({ keepTarget = false } = {}) {
        await client.close();
        await store?.close();
        await releaseLock?.();
        if (!keepTarget) await target.close();
      },
    };
  } catch (error) {
    await releaseLock?.();
    await target.close();
    throw error;
  }
}
