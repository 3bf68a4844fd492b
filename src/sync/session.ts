import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ClientFactoryOptions, ConfigClient } from '../config/define-config.js';
import { loadConfig } from '../config/load-config.js';
import type { Config } from '../config/schema.js';
import { createClient, type CmsClient } from '../remote/client.js';
import { StateStore } from '../state/journal.js';
import { acquireLock } from '../state/lock.js';
import { moveLocalState, STATE_FILE, type State } from '../state/state-file.js';
import type { Intent } from '../state/journal.js';
import type { SyncReporter } from './events.js';
import type { SyncOptions } from './options.js';
import { localStateDir, openTarget, stateDirOf, type Target } from './target.js';

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

export interface SessionOptions {
  projectDir: string;
  /** Where CMS_BASE_URL, the token and the other settings of docs/contract.md are read. */
  env: NodeJS.ProcessEnv;
  port?: number;
  command?: string;
  /** `start`: the embedded CMS is what it is for, in CI too. */
  allowLocal?: boolean;
  /** Aborted at Ctrl-C: a plan session's reads stop at once (an apply session's writes are stopped by applyPlan). */
  signal?: AbortSignal;
}

export async function openSession(
  mode: 'plan' | 'apply',
  options: SessionOptions & Pick<SyncOptions, 'local' | 'tokenFile' | 'concurrency' | 'rps'>,
  report: SyncReporter = () => {},
): Promise<Session> {
  const flags = options;
  const config = await loadConfig(options.projectDir, options.env, { readOnly: mode === 'plan' });
  const target = await openTarget(config, options.env, {
    serveMedia: mode === 'apply',
    ...(options.port !== undefined ? { port: options.port } : {}),
    local: flags.local ? 'only' : options.allowLocal ? 'allowed' : undefined,
    tokenFile: flags.tokenFile,
    report,
  });
  let releaseLock: (() => Promise<void>) | undefined;
  try {
    report({
      type: 'target',
      identity: target.identity,
      baseUrl: target.baseUrl,
      announcement: target.announcement,
    });
    let store: StateStore | undefined;
    if (mode === 'apply') {
      ({ store, release: releaseLock } = await openStore(config, target, options.command ?? 'apply', report));
    }
    const clientOptions = {
      baseUrl: target.baseUrl,
      token: target.token,
      wire: config.wire,
      concurrency: flags.concurrency ?? config.sync.concurrency,
      rps: flags.rps ?? config.sync.rps,
      timeoutMs: config.sync.timeoutMs,
      retry: config.sync.retry,
      ...(mode === 'plan' && options.signal ? { signal: options.signal } : {}),
    };
    // A config's factory is typed without Node's types (see ConfigClient); what it gets and
    // gives back are the real ClientOptions and CmsClient.
    const client = config.target.client
      ? (config.target.client(
          clientOptions as unknown as ClientFactoryOptions,
          createClient as unknown as (o: ClientFactoryOptions) => ConfigClient,
        ) as unknown as CmsClient)
      : createClient(clientOptions);
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

/**
 * Locks and opens the target's state. The embedded CMS's state lives apart from the committed
 * one (see stateDirOf); one an older cms-sync left in the committed place is moved out first,
 * under the lock of that place.
 */
export async function openStore(
  config: Config,
  target: Target,
  command: string,
  report: SyncReporter = () => {},
): Promise<{ store: StateStore; release: () => Promise<void> }> {
  const stateDir = stateDirOf(config, target);
  const release = await acquireLock(stateDir, command);
  try {
    if (await moveLeftoverLocalState(config, stateDir, command)) {
      const from = `${shown(config, config.stateDir)}/${STATE_FILE}`;
      report({
        type: 'warning',
        message:
          `Moved the local CMS's state from ${from} to ${shown(config, localStateDir(config))}/: ` +
          'it does not belong in the committed state. Commit the removal.',
      });
    }
    return { store: await StateStore.open(stateDir, target.identity), release };
  } catch (error) {
    await release();
    throw error;
  }
}

async function moveLeftoverLocalState(config: Config, stateDir: string, command: string): Promise<boolean> {
  if (stateDir === config.stateDir) return moveLocalState(config.stateDir, localStateDir(config));
  // The committed place has its own lock: move only while holding it, and leave the move to a
  // later run while a run on the real target holds it.
  let release: (() => Promise<void>) | undefined;
  try {
    release = await acquireLock(config.stateDir, command);
  } catch {
    return false;
  }
  try {
    return await moveLocalState(config.stateDir, localStateDir(config));
  } finally {
    await release();
  }
}

/**
 * The state a plan reads (and never writes): for the embedded CMS, still in the committed place
 * if no apply has moved it yet.
 */
export async function readOnlyState(
  config: Config,
  target: Target,
): Promise<{ state: State; openIntents: Map<string, Intent[]> }> {
  const stateDir = stateDirOf(config, target);
  const notMovedYet =
    !existsSync(path.join(stateDir, STATE_FILE)) && existsSync(path.join(config.stateDir, STATE_FILE));
  if (stateDir !== config.stateDir && notMovedYet) {
    const leftover = await StateStore.readOnly(config.stateDir, target.identity).catch(() => undefined);
    if (leftover) return leftover;
  }
  return StateStore.readOnly(stateDir, target.identity);
}

function shown(config: Config, dir: string): string {
  return path.relative(config.projectDir, dir) || '.';
}
