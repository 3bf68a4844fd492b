import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../config/load-config.js';
import { createClient } from '../remote/client.js';
import type { StateStore } from '../state/journal.js';
import { progressLine } from './import.js';
import { writeLine, type CliIO } from './io.js';
import type { SetExit } from './main.js';
import { projectDirOf } from './run-sync.js';
import { openStore } from './session.js';
import { openTarget } from './target.js';

interface PullFlags {
  out?: string;
  force?: boolean;
}

const HELP = `
Writes every record of the CMS (articles, pages, categories, breaking, users) into content/
files, and records them in the state (.cms-sync/state.json) as adopted: a \`cms-sync plan\` right after
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
      const config = await loadConfig(projectDir, io.env);
      const contentDir = flags.out ? path.resolve(projectDir, flags.out) : config.contentDir;
      const adopting = path.resolve(contentDir) === path.resolve(config.contentDir);
      const target = await openTarget(config, io.env, { serveMedia: false, stderr: io.stderr });
      const client = createClient({
        baseUrl: target.baseUrl,
        token: target.token,
        wire: config.wire,
        concurrency: config.sync.concurrency,
        rps: config.sync.rps,
        timeoutMs: config.sync.timeoutMs,
      });
      let release: (() => Promise<void>) | undefined;
      let store: StateStore | undefined;
      try {
        writeLine(io.stdout, target.announcement);
        if (adopting) {
          ({ store, release } = await openStore(config, target, 'pull', io));
        }
        const { MigrationReport } = await import('../migrate/report.js');
        const report = new MigrationReport();
        const progress = progressLine(io.stderr);
        const { pullRecords } = await import('../migrate/pull.js');
        const result = await pullRecords({
          config,
          client,
          store,
          contentDir,
          force: flags.force === true,
          report,
          onProgress: progress.update,
        });
        progress.finish();
        await store?.save();
        const where = path.relative(projectDir, contentDir) || '.';
        writeLine(io.stdout, report.format(`Pulled into ${where}/:`));
        if (!adopting) {
          writeLine(
            io.stdout,
            `Not adopted: ${where}/ is not this project's content directory, so state was left alone.`,
          );
        } else {
          writeLine(
            io.stdout,
            `Adopted ${result.adopted} record${result.adopted === 1 ? '' : 's'}; ${result.exact} round-trip exactly ` +
              `(their files render to what the CMS holds).`,
          );
          if (result.differing.size) {
            writeLine(
              io.stdout,
              `${result.differing.size} differ: the next apply updates them with what their files render to:`,
            );
            for (const [key, fields] of [...result.differing].sort(([a], [b]) => a.localeCompare(b)))
              writeLine(io.stdout, `  ${key} (${fields.join(', ')})`);
          }
        }
        if (report.failures.length) setExit(1);
      } finally {
        await store?.close();
        await client.close();
        await release?.();
        await target.close();
      }
    });
}
