import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { SyncError } from '../errors.js';
import { writeLine, type CliIO } from './io.js';
import type { SetExit } from './main.js';
import { projectDirOf } from './run-sync.js';

const HELP = `
Turns the output of \`plan --json\` or \`apply --json\` into GitHub Actions annotations
(::error file=…,line=…,col=…::message on stdout) and, when GITHUB_STEP_SUMMARY is set, appends
a Markdown table of the changes to the job summary. Its exit code is 0 whenever it could read
the JSON: the plan or apply step's own exit code is what fails the job.

Example:
  cms-sync plan --json > plan.json 2> plan.log
  cms-sync ci-report plan.json --log plan.log
`;

export function registerCiReport(program: Command, io: CliIO, _setExit: SetExit): void {
  program
    .command('ci-report')
    .description('turn `plan --json` output into GitHub Actions annotations and a job summary')
    .argument('<file>', 'the JSON that `cms-sync plan --json` or `apply --json` printed')
    .option('--log <file>', 'the same run\'s stderr, for the file problems it lists (path:line:col: message)')
    .addHelpText('after', HELP)
    .action(async (file: string, options: { log?: string }) => {
      const projectDir = projectDirOf(io, program.opts().cwd);
      const { annotations, parseSyncJson, summaryMarkdown, withLogProblems } = await import('../init/ci-report.js');
      const text = await readInput(projectDir, file);
      let doc;
      try {
        doc = parseSyncJson(text, file);
      } catch (error) {
        throw new SyncError('CMS_SYNC_INPUT', (error as Error).message, { cause: error });
      }
      doc = withLogProblems(doc, options.log ? await readInput(projectDir, options.log) : undefined);
      for (const line of annotations(doc)) writeLine(io.stdout, line);
      const summaryFile = io.env.GITHUB_STEP_SUMMARY;
      if (summaryFile) await appendFile(summaryFile, summaryMarkdown(doc) + '\n');
      else writeLine(io.stderr, 'GITHUB_STEP_SUMMARY is not set: no job summary written (this is not a GitHub Actions step).');
    });
}

async function readInput(projectDir: string, file: string): Promise<string> {
  try {
    return await readFile(path.resolve(projectDir, file), 'utf8');
  } catch (error) {
    throw new SyncError('CMS_SYNC_INPUT', `${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`, { cause: error });
  }
}
