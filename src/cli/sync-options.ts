import { InvalidArgumentError, type Command } from 'commander';
import type { SyncOptions } from '../sync/options.js';
import type { OutputFlags } from './reporter.js';

/** The flags of plan, apply and watch: what to sync (the engine's options) and how to show it. */
export type SyncFlags = SyncOptions &
  OutputFlags & {
    /** plan: exit 2 when there are changes. */
    detailedExitcode?: boolean;
  };

function integer(name: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min)
      throw new InvalidArgumentError(`Expected \`${name}\` to be an integer >= ${min}, got \`${value}\`.`);
    return n;
  };
}

function positive(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0)
      throw new InvalidArgumentError(`Expected \`${name}\` to be a number > 0, got \`${value}\`.`);
    return n;
  };
}

/** The flags plan, apply and watch share. */
export function addSyncOptions(command: Command): Command {
  return command
    .option('--json', 'print one JSON document on stdout and nothing else there')
    .option(
      '--concurrency <n>',
      'requests in flight at once (default 4, or sync.concurrency)',
      integer('--concurrency', 1),
    )
    .option('--rps <n>', 'ceiling on requests per second (default none, or sync.rps)', positive('--rps'))
    .option(
      '--only <glob>',
      'only files matching this glob under content/ (repeatable), e.g. "articles/**"',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--prune', 'delete records whose file is gone (only records cms-sync created or adopted)')
    .option(
      '--max-deletes <n>',
      'abort before any call if more deletes are planned (default 20)',
      integer('--max-deletes', 0),
    )
    .option('--overwrite-drift', 'replace records that were changed in the CMS since cms-sync wrote them')
    .option(
      '--no-detect-renames',
      'a file renamed without `slug:` is a new record (by default, one with the same body as exactly one ' +
        'removed file keeps that record)',
    )
    .option('--strict', 'stop before any call when any file has an error')
    .option(
      '--verbose',
      'every warning on its own line (by default one line per kind, with a count and the first files); in a log, ' +
        'also one line per write',
    )
    .option(
      '--retry-failed-media',
      'upload remote images that failed again now, not when media.retryFailedAfterMs is up',
    )
    .option(
      '--local',
      'sync to the embedded local CMS, even with CMS_BASE_URL set or in CI (or CMS_SYNC_LOCAL=1)',
    )
    .option(
      '--token-file <file>',
      'read the API token from this file, not the environment (or CMS_API_TOKEN_FILE)',
    )
    .option(
      '--refresh <mode>',
      'false: trust the state for what the CMS holds and read nothing from it (no deletes then); full: list ' +
        'every record of the CMS, not only what changed since the last run',
      (value: string): boolean | 'full' => {
        if (value !== 'true' && value !== 'false' && value !== 'full')
          throw new InvalidArgumentError(
            `Expected \`--refresh\` to be true, false or full, got \`${value}\`.`,
          );
        return value === 'full' ? 'full' : value === 'true';
      },
    );
}

export function syncFlags(options: Record<string, unknown>): SyncFlags {
  return options as SyncFlags;
}
