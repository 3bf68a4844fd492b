import path from 'node:path';
import { loadConfig } from '../config/load-config.js';
import type { MigrationReport } from '../migrate/report.js';
import type { PullResult } from '../migrate/pull.js';
import { createClient } from '../remote/client.js';
import type { StateStore } from '../state/journal.js';
import type { SyncReporter } from './events.js';
import { openStore } from './session.js';
import { openTarget } from './target.js';

export interface PullOptions {
  projectDir: string;
  /** Where CMS_BASE_URL and the token are read. */
  env: NodeJS.ProcessEnv;
  /** Content folder to write into, relative to the project; records are adopted only when it is the config's. */
  out?: string;
  /** Overwrite files that already exist. @default false */
  force?: boolean;
}

export interface PullReport extends PullResult {
  /** Absolute path of the folder written into. */
  contentDir: string;
  /** Whether records were adopted in state (the folder is the project's content directory). */
  adopting: boolean;
  /** Counts per folder, skips with their reasons, warnings and failures. */
  report: MigrationReport;
}

/**
 * Every record of the CMS into content/ files, adopted in state when they go to the project's
 * own content directory, so that a plan right after shows nothing to do.
 */
export async function pullContent(
  options: PullOptions,
  reporter: SyncReporter = () => {},
): Promise<PullReport> {
  const config = await loadConfig(options.projectDir, options.env);
  const contentDir = options.out ? path.resolve(options.projectDir, options.out) : config.contentDir;
  const adopting = path.resolve(contentDir) === path.resolve(config.contentDir);
  const target = await openTarget(config, options.env, { serveMedia: false, report: reporter });
  const client = createClient({
    baseUrl: target.baseUrl,
    token: target.token,
    wire: config.wire,
    concurrency: config.sync.concurrency,
    rps: config.sync.rps,
    timeoutMs: config.sync.timeoutMs,
  });
  let release: (() => Promise<void>) | undefined;
  let store: StateStore | undefined;
  try {
    reporter({
      type: 'target',
      identity: target.identity,
      baseUrl: target.baseUrl,
      announcement: target.announcement,
    });
    if (adopting) ({ store, release } = await openStore(config, target, 'pull', reporter));
    const { MigrationReport } = await import('../migrate/report.js');
    const report = new MigrationReport();
    const { pullRecords } = await import('../migrate/pull.js');
    const result = await pullRecords({
      config,
      client,
      store,
      contentDir,
      force: options.force === true,
      report,
      onProgress: (done, total) => reporter({ type: 'items', done, total }),
    });
    reporter({ type: 'items-done' });
    await store?.save();
    return { ...result, contentDir, adopting, report };
  } finally {
    await store?.close();
    await client.close();
    await release?.();
    await target.close();
  }
}
