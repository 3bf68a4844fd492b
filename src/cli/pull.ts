import path from 'node:path';
import type { Command } from 'commander';
import { pullContent } from '../sync/pull.js';
import { writeLine, type CliIO, projectDirOf, type SetExit } from './io.js';
import { createCliReporter } from './reporter.js';

interface PullFlags {
  out?: string;
  force?: boolean;
}

const HELP = `
Writes every record of the CMS (articles, pages, categories, breaking, users) into content/
files, and records them in the state (.cms-sync/state.jsonl) as adopted: a \`cms-sync plan\` right after
shows no changes. Bodies become Markdown; media blocks become ![](cms-media:<id> "<size>").
Existing files are never overwritten without --force.

Example:
  $ CMS_BASE_URL=https://cms.example.com CMS_API_TOKEN=... cms-sync pull
`;

export function registerPull(program: Command, io: CliIO, setExit: SetExit): void {
  program
    .command('pull')
    .description("write the CMS's records into content/ files (bootstrap a repo from an existing CMS)")
    .option(
      '--out <dir>',
      'content folder to write into (default: the config contentDir, content/); records are adopted only there',
    )
    .option('--force', 'overwrite files that already exist')
    .addHelpText('after', HELP)
    .action(async (flags: PullFlags) => {
      const projectDir = projectDirOf(io, program.opts().cwd);
      const pulled = await pullContent(
        { projectDir, env: io.env, ...(flags.out ? { out: flags.out } : {}), force: flags.force === true },
        createCliReporter(io, {}, { items: 'Pulling' }),
      );
      const { report, contentDir } = pulled;
      const where = path.relative(projectDir, contentDir) || '.';
      writeLine(io.stdout, report.format(`Pulled into ${where}/:`));
      if (!pulled.adopting) {
        writeLine(
          io.stdout,
          `Not adopted: ${where}/ is not this project's content directory, so state was left alone.`,
        );
      } else {
        writeLine(
          io.stdout,
          `Adopted ${pulled.adopted} record${pulled.adopted === 1 ? '' : 's'}; ${pulled.exact} round-trip exactly ` +
            `(their files render to what the CMS holds).`,
        );
        if (pulled.differing.size) {
          writeLine(
            io.stdout,
            `${pulled.differing.size} differ: the next apply updates them with what their files render to:`,
          );
          for (const [key, fields] of [...pulled.differing].sort(([a], [b]) => a.localeCompare(b)))
            writeLine(io.stdout, `  ${key} (${fields.join(', ')})`);
        }
      }
      if (report.failures.length) setExit(1);
    });
}
