import path from 'node:path';
import type { Command } from 'commander';
import { type CliIO, projectDirOf, type SetExit } from './io.js';
import { applyConfirmation } from './confirm.js';
import { runSyncCommand } from './sync-command.js';
import { addSyncOptions, syncFlags } from './sync-options.js';

export function registerApply(program: Command, io: CliIO, setExit: SetExit): void {
  addSyncOptions(program.command('apply'))
    .description(
      'make the CMS match content/: upload media, create, update and (with --prune) delete records',
    )
    .argument(
      '[plan-file]',
      'a plan saved by `cms-sync plan --out`: carried out exactly, or refused with no write if the files or the CMS ' +
        'changed since',
    )
    .option('--dry-run', 'only plan; the same as `cms-sync plan`')
    .option('-y, --yes', "on a terminal, apply without asking (a real CMS's apply asks first; never in CI)")
    .addHelpText(
      'after',
      '\nExamples:\n  cms-sync apply\n  CMS_BASE_URL=https://cms.example.com CMS_API_TOKEN=... cms-sync apply ' +
        '--prune --rps 10\n  cms-sync plan --out plan.json && cms-sync apply plan.json',
    )
    .action(async (planFile: string | undefined, options: Record<string, unknown>) => {
      const mode = options.dryRun ? 'plan' : 'apply';
      const projectDir = projectDirOf(io, program.opts().cwd);
      let flags = syncFlags(options);
      if (planFile) {
        // A saved plan is applied with the flags it was made with, so it means the same thing.
        const { readSavedPlan } = await import('../plan/saved-plan.js');
        const saved = await readSavedPlan(path.resolve(projectDir, planFile));
        flags = { ...flags, ...saved.flags, savedPlan: { file: planFile, plan: saved } };
      }
      const confirm =
        mode === 'apply' ? applyConfirmation(io, { ...flags, yes: options.yes === true }) : undefined;
      const { exitCode } = await runSyncCommand(mode, confirm ? { ...flags, confirm } : flags, io, {
        projectDir,
      });
      setExit(exitCode);
    });
}
