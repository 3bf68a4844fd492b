import { Command, CommanderError } from 'commander';
import { redactCredentials, SyncError } from '../errors.js';
import { tuneThisProcess } from '../process-tuning.js';
import { guardUnfinished, processIO, writeLine, type CliIO, type SetExit } from './io.js';
import { registerApply } from './apply.js';
import { registerCiReport } from './ci-report.js';
import { registerImport } from './import.js';
import { registerInit } from './init.js';
import { registerPlan } from './plan.js';
import { registerPull } from './pull.js';
import { registerServe } from './serve.js';
import { registerStart } from './start.js';
import { registerUnlock } from './unlock.js';
import { registerWatch } from './watch.js';
import { packageVersion } from '../own-version.js';

/** The top-level help's tail: what a newcomer needs beyond the commands (docs/contract.md). */
const TOP_HELP = `
Environment:
  CMS_BASE_URL           the CMS to sync to (unset: the embedded local CMS in .cms-sync/local-cms/)
  CMS_API_TOKEN          its API token (never printed or written); CMS_API_TOKEN_FILE reads it from a file
  CMS_MEDIA_BASE_URL     where the CMS can fetch content/ to upload local images (CI sets the commit's raw URL)
  CMS_SYNC_LOCAL=1       use the embedded local CMS even in CI or with CMS_BASE_URL set (also --local)
  CMS_SYNC_CONFIG_TIMEOUT_MS  how long sync.config.ts may take to load
  CI                     set: no pager, no question before apply, no fallback to the local CMS
  NO_COLOR, PAGER        plain output; the pager for long plans (empty: none)

Exit codes:
  0 done   1 a file or a write failed, bad input, auth   2 plan --detailed-exitcode found changes
  3 stopped by a safety check (too many deletes, drift, lock, stale saved plan)   130 interrupted

Example:
  $ cms-sync init                       # sync.config.ts, a starter content/, a CI workflow
  $ cms-sync plan --diff                # what would change, field by field (local CMS by default)
  $ CMS_BASE_URL=https://cms.example.com CMS_API_TOKEN=... cms-sync apply   # asks before writing
`;

export async function main(argv: string[], given?: CliIO): Promise<number> {
  const io = given ?? processIO();
  // Only the real process can drain its event loop with the command unfinished.
  const unguard = given ? () => {} : guardUnfinished(io.stderr);
  if (!given) tuneThisProcess();
  try {
    return await runCommand(argv, io);
  } finally {
    unguard();
  }
}

async function runCommand(argv: string[], io: CliIO): Promise<number> {
  let exitCode = 0;
  const setExit: SetExit = (code) => {
    exitCode = Math.max(exitCode, code);
  };
  const program = new Command('cms-sync')
    .description('Keep a CMS in line with a git repository of Markdown files.')
    .version(packageVersion(), '-V, --version', 'print the version of cms-sync')
    .option('--cwd <dir>', 'work in this directory instead of the current one')
    .addHelpText('after', TOP_HELP)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .showHelpAfterError('(run `cms-sync --help` for usage)');

  for (const register of [
    registerPlan,
    registerApply,
    registerImport,
    registerPull,
    registerServe,
    registerStart,
    registerUnlock,
    registerWatch,
    registerInit,
    registerCiReport,
  ])
    register(program, io, setExit);

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 1;
    }
    if (error instanceof SyncError) {
      writeLine(io.stderr, redactCredentials(error.message));
      return error.exitCode;
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    writeLine(io.stderr, redactCredentials(`cms-sync failed unexpectedly: ${detail}`));
    return 1;
  }
  return exitCode;
}
