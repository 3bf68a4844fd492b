import type { Command } from 'commander';
import type { CliIO } from './io.js';
import type { SetExit } from './main.js';
import { projectDirOf, runSync } from './run-sync.js';
import { addSyncOptions, syncFlags } from './sync-options.js';

export function registerApply(program: Command, io: CliIO, setExit: SetExit): void {
  addSyncOptions(program.command('apply'))
    .description('make the CMS match content/: upload media, create, update and (with --prune) delete records')
    .option('--dry-run', 'only plan; the same as `cms-sync plan`')
    .addHelpText('after', '\nExamples:\n  cms-sync apply\n  CMS_BASE_URL=https://cms.example.com CMS_API_TOKEN=... cms-sync apply --prune --rps 10')
    .action(async (options: Record<string, unknown>) => {
      const mode = options.dryRun ? 'plan' : 'apply';
      const { exitCode } = await runSync(mode, syncFlags(options), io, { projectDir: projectDirOf(io, program.opts().cwd) });
      setExit(exitCode);
    });
}
