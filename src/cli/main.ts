import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { redactCredentials, SyncError } from '../errors.js';
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

export async function main(argv: string[], given?: CliIO): Promise<number> {
  const io = given ?? processIO();
  // Only the real process can drain its event loop with the command unfinished.
  const unguard = given ? () => {} : guardUnfinished(io.stderr);
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

/** The version in cms-sync's own package.json, found by the package's own name wherever it is installed. */
function packageVersion(): string {
  return (createRequire(import.meta.url)('cms-sync/package.json') as { version: string }).version;
}
