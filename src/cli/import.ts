import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { importContent, type ImportContentOptions } from '../sync/import-content.js';
import { writeLine, type CliIO, projectDirOf, type SetExit } from './io.js';

interface ImportFlags {
  out?: string;
  force?: boolean;
  ghostUrl?: string;
}

const HELP = `
Converts another CMS's export into content/ files, which \`cms-sync plan\` and \`apply\` then
publish. Nothing is sent to any CMS. Existing files are never overwritten without --force.

  wordpress FILE.xml   WXR 1.1/1.2 (Tools > Export): posts -> articles, pages, categories,
                       authors -> users
  ghost FILE.json      Ghost export (Settings > Labs > Export): posts, pages, tags ->
                       categories, users

Front matter kept beyond what cms-sync sends (excerpt, featured_image, tags, author, parent):
plan warns about these keys unless resources.<resource>.passThrough lists them.

Examples:
  $ cms-sync import wordpress export.xml
  $ cms-sync import ghost ghost-export.json --ghost-url https://old.example.com
`;

function absoluteUrl(value: string): string {
  if (!/^https?:\/\/[^/]/i.test(value) || !URL.canParse(value))
    throw new InvalidArgumentError(`Expected \`--ghost-url\` to be an http(s) URL, got \`${value}\`.`);
  return value;
}

export function registerImport(program: Command, io: CliIO, setExit: SetExit): void {
  program
    .command('import')
    .description('convert a WordPress (WXR) or Ghost (JSON) export into content/ files')
    .argument('<source>', 'wordpress or ghost')
    .argument('<file>', 'the export file')
    .option('--out <dir>', 'content folder to write into (default: the config contentDir, content/)')
    .option('--force', 'overwrite files that already exist')
    .option(
      '--ghost-url <url>',
      'Ghost: the old site address, put where the export says __GHOST_URL__',
      absoluteUrl,
    )
    .addHelpText('after', HELP)
    .action(async (source: string, file: string, flags: ImportFlags) => {
      const projectDir = projectDirOf(io, program.opts().cwd);
      const progress = progressLine(io.stderr);
      const { report, contentDir, ms } = await importContent(
        {
          projectDir,
          env: io.env,
          source: source as ImportContentOptions['source'],
          file,
          ...(flags.out ? { out: flags.out } : {}),
          force: flags.force === true,
          ...(flags.ghostUrl ? { ghostUrl: flags.ghostUrl } : {}),
        },
        (event) => {
          if (event.type === 'items') progress.update(event.done, event.total);
          else if (event.type === 'items-done') progress.finish();
        },
      );
      const where = path.relative(projectDir, contentDir) || '.';
      const seconds = (ms / 1000).toFixed(1);
      writeLine(
        io.stdout,
        report.format(
          `Imported ${source === 'wordpress' ? 'WordPress' : 'Ghost'} export ${file} into ${where}/ in ${seconds}s:`,
        ),
      );
      writeLine(io.stdout, 'Next: `cms-sync plan` shows what apply would send.');
      if (report.failures.length) setExit(1);
    });
}

/** On a terminal, one line rewritten in place; in a log, a line per tenth of a large export. */
export function progressLine(stream: NodeJS.WritableStream & { isTTY?: boolean }) {
  const tty = stream.isTTY === true;
  const started = Date.now();
  let drawn = false;
  let lastTenth = 0;
  let lastDraw = 0;
  return {
    update(done: number, total: number): void {
      const now = Date.now();
      const rate = done / Math.max((now - started) / 1000, 0.001);
      if (tty) {
        if (now - lastDraw < 100 && done < total) return;
        lastDraw = now;
        stream.write(`\r\x1b[2K[${done}/${total}] ${rate.toFixed(0)} items/s`);
        drawn = true;
        return;
      }
      const tenth = total >= 1000 ? Math.floor((done * 10) / total) : 0;
      if (tenth > lastTenth) {
        lastTenth = tenth;
        stream.write(`${done}/${total} items (${rate.toFixed(0)}/s)\n`);
      }
    },
    finish(): void {
      if (drawn) stream.write('\r\x1b[2K');
    },
  };
}
