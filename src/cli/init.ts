import type { Command } from 'commander';
import type { ScaffoldEntry } from '../init/scaffold.js';
import { writeLine, type CliIO, projectDirOf, type SetExit } from './io.js';

const HELP = `
Writes sync.config.ts, a starter content/ (a category, an article with an image, a page),
the .gitignore lines for .cms-sync/ (the state files stay committed) and a GitHub Actions
workflow (.github/workflows/cms-sync.yml: plan on pull requests, apply on the default branch).
Existing files are never overwritten without --force; each one skipped is listed.
--force rewrites only sync.config.ts and the workflow, saving each previous version beside it
as <file>.<UTC time>.bak (e.g. sync.config.ts.20260115T093000Z.bak). .gitignore only gains
missing lines. The starter content goes only into a missing or empty content/: init never
writes into a content/ that holds anything, with or without --force.

Examples:
  cms-sync init
  cms-sync init --cwd ../newsroom --force
`;

const MARK: Record<ScaffoldEntry['outcome'], string> = {
  created: '+',
  overwritten: '!',
  updated: '~',
  skipped: '-',
  unchanged: '=',
};

export function registerInit(program: Command, io: CliIO, _setExit: SetExit): void {
  program
    .command('init')
    .description('scaffold sync.config.ts, a starter content/, .gitignore lines and a CI workflow')
    .option(
      '--force',
      'rewrite sync.config.ts and the workflow, keeping a .bak copy of each (never content/)',
    )
    .addHelpText('after', HELP)
    .action(async (options: { force?: boolean }) => {
      const projectDir = projectDirOf(io, program.opts().cwd);
      const { scaffold } = await import('../init/scaffold.js');
      const entries = await scaffold(projectDir, { force: options.force === true });
      for (const e of entries)
        writeLine(io.stdout, `${MARK[e.outcome]} ${e.file} ${e.outcome}${e.note ? ` (${e.note})` : ''}`);
      const forceable = entries.filter((e) => e.outcome === 'skipped' && e.rewritable).length;
      if (forceable) {
        const [files, them] =
          forceable === 1 ? ['1 existing file', 'it'] : [`${forceable} existing files`, 'them'];
        writeLine(
          io.stdout,
          `\n${files} kept; \`init --force\` rewrites ${them}, saving the old as <file>.<time>.bak`,
        );
      }
      // The installed binary, never a registry fetch: `npx cms-sync` alone would download any
      // package published under that name when the project does not have it.
      writeLine(
        io.stdout,
        '\nNext: `npx --no-install cms-sync plan` shows what apply would send' +
          ' (to the local CMS until CMS_BASE_URL is set).',
      );
    });
}
