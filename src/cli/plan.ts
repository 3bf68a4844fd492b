import type { Command } from 'commander';
import { type CliIO, projectDirOf, type SetExit } from './io.js';
import { runSyncCommand } from './sync-command.js';
import { addSyncOptions, syncFlags } from './sync-options.js';

export function registerPlan(program: Command, io: CliIO, setExit: SetExit): void {
  addSyncOptions(program.command('plan'))
    .description('show what apply would do; writes nothing anywhere')
    .option('--detailed-exitcode', 'exit 2 when there are changes (0: none, 1: error)')
    .option('--out <file>', 'also save the plan, for `cms-sync apply <file>` to carry out exactly')
    .option(
      '--diff',
      "show each changed field: the CMS's value against the file's (with --json: both values)",
    )
    .option('--compact', 'only the counts: one line per resource and action')
    .option('--no-pager', 'never show a long plan through $PAGER (or less) on a terminal')
    .addHelpText(
      'after',
      '\nExamples:\n  cms-sync plan --only "articles/**" --detailed-exitcode\n  cms-sync plan --out plan.json && ' +
        'cms-sync apply plan.json\n  cms-sync plan --diff --only "articles/story-0099.md"',
    )
    .action(async (options: Record<string, unknown>) => {
      const { exitCode } = await runSyncCommand('plan', syncFlags(options), io, {
        projectDir: projectDirOf(io, program.opts().cwd),
      });
      setExit(exitCode);
    });
}
