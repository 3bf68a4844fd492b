import path from 'node:path';
import type { Command } from 'commander';
import type { PassContext } from '../watch/run-pass.js';
import { writeLine, type CliIO, projectDirOf, type SetExit } from './io.js';
import { manyPasses } from '../process-tuning.js';
import { openSession } from '../sync/session.js';
import { createCliReporter } from './reporter.js';
import { addSyncOptions, syncFlags, type SyncFlags } from './sync-options.js';

/**
 * `cms-sync watch`: one session (config, CMS, client, state lock) for the whole run; a first
 * sync, then one sync per batch of saves. Exits 0 on Ctrl-C once the write in flight is done,
 * 1 when the CMS refuses the token.
 */
export function registerWatch(program: Command, io: CliIO, setExit: SetExit): void {
  addSyncOptions(program.command('watch'))
    .description('apply once, then apply each change to content/ as files are saved (Ctrl-C to stop)')
    .addHelpText(
      'after',
      '\nEach sync prints one line; with --json, one JSON object per line (NDJSON).\n\nExamples:\n  cms-sync watch\n ' +
        ' cms-sync watch --prune --only "articles/**"',
    )
    .action(async (options: Record<string, unknown>) => {
      setExit(await watch(syncFlags(options), io, projectDirOf(io, program.opts().cwd)));
    });
}

async function watch(flags: SyncFlags, io: CliIO, projectDir: string): Promise<number> {
  // chokidar and the loop load only for `watch`, not for every command.
  const [{ createRepeatFilter }, { watchPasses }, { createSyncLoop }, { watchContentOffThread }] =
    await Promise.all([
      import('../watch/repeat-filter.js'),
      import('../watch/run-pass.js'),
      import('../watch/sync-loop.js'),
      import('../watch/watch-off-thread.js'),
    ]);
  // Before the first pass: a limit V8 has already raised holds until its next full collection.
  manyPasses();
  // Each pass prints one line of its own (see runPass): no plan or summary, but progress while it runs.
  const reporter = createCliReporter(io, {
    quiet: true,
    progress: true,
    json: flags.json === true,
    verbose: flags.verbose === true,
  });
  reporter({ type: 'phase', phase: 'config' });
  const session = await openSession(
    'apply',
    { ...flags, projectDir, env: io.env, command: 'watch' },
    reporter,
  );
  // With --json, stdout carries the NDJSON records and nothing else.
  const info = flags.json ? io.stderr : io.stdout;
  const {
    showProblem: _show,
    quiet: _quiet,
    detailedExitcode: _detailed,
    verbose: _verbose,
    ...options
  } = flags;
  const ctx: PassContext = { session, flags: options, io, reporter, repeats: createRepeatFilter() };
  let fatal = false;
  let onFatal: () => void = () => {};
  const fatalSeen = new Promise<void>((resolve) => (onFatal = resolve));
  const loop = createSyncLoop({
    runPass: watchPasses(ctx),
    onFatal: () => {
      fatal = true;
      onFatal();
    },
  });
  let interrupted = false;
  const stop = Promise.race([io.interrupted.then(() => void (interrupted = true)), fatalSeen]);
  try {
    // Watching starts before the first sync, so a save made during it is not missed.
    const watcher = await watchContentOffThread({
      contentDir: session.config.contentDir,
      only: flags.only,
      onChange: (change) => loop.notify(change),
      onError: (error) =>
        writeLine(io.stderr, `The file watcher reported a problem (watching goes on): ${error.message}`),
    });
    try {
      await Promise.race([loop.runNow(), stop]);
      if (!interrupted && !fatal) {
        writeLine(
          info,
          `Watching ${path.relative(session.config.projectDir, session.config.contentDir) || '.'}/ for changes. ` +
            `Press Ctrl-C to stop.`,
        );
        void loop.whenIdle(async () => (await import('../watch/warm-up.js')).warmUp(session));
      }
      await stop;
      if (interrupted && !fatal)
        writeLine(info, 'Stopping: finishing the sync in flight… (Ctrl-C again to quit at once)');
      await loop.stop();
      return fatal ? 1 : 0;
    } finally {
      await watcher.close();
    }
  } finally {
    // Releases the lock; state was already saved at the end of each pass.
    await session.close();
  }
}
