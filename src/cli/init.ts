import type { Command } from 'commander';
import type { ScaffoldEntry } from '../init/scaffold.js';
import { writeLine, type CliIO } from './io.js';
import type { SetExit } from './main.js';
import { projectDirOf } from './run-sync.js';

const HELP = `
Writes sync.config.ts, a starter content/ (a category, an article with an image, a page),
the .gitignore lines for .cms-sync/ (state.json stays committed) and a GitHub Actions
workflow (.github/workflows/cms-sync.yml: plan on pull requests, apply on main).
Existing files are never overwritten without --force; each one skipped is listed.

Examples:
  cms-sync init
  cms-sync init --cwd ../newsroom --force
`;

const MARK: Record<ScaffoldEntry['outcome'], string> = { created: '+', overwritten: '!', updated: '~', skipped: '-', unchanged: '=' };

export function registerInit(program: Command, io: CliIO, _setExit: SetExit): void {
  program
    .command('init')
    .description('scaffold sync.config.ts, a starter content/, .gitignore lines and a CI workflow')
    .option('--force', 'overwrite files that already exist')
    .addHelpText('after', HELP)
    .action(async (options: { force?: boolean }) => {
      const projectDir = projectDirOf(io, program.opts().cwd);
      const { scaffold } = await import('../init/scaffold.js');
      const entries = await scaffold(projectDir, { force: options.force === true });
      for (const e of entries) writeLine(io.stdout, `${MARK[e.outcome]} ${e.file} ${e.outcome}${e.note ? ` (${e.note})` : ''}`);
      const skipped = entries.filter((e) => e.outcome === 'skipped').length;
      if (skipped) writeLine(io.stdout, `\n${skipped} existing file${skipped === 1 ? '' : 's'} skipped; rerun with --force to overwrite.`);
      writeLine(io.stdout, '\nNext: `cms-sync plan` shows what apply would send (to the local CMS until CMS_BASE_URL is set).');
    });
}
