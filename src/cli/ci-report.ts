import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { SyncError } from '../errors.js';
import { writeLine, type CliIO, projectDirOf, type SetExit } from './io.js';

const HELP = `
Turns the output of \`plan --json\` or \`apply --json\` into GitHub Actions annotations
(::error file=…,line=…,col=…::message on stdout) and, when GITHUB_STEP_SUMMARY is set, appends
a Markdown table of the changes to the job summary. With --log it first prints that log on
stderr. File names and messages are escaped or defused so that none can act as a workflow
command, and terminal escapes are removed. Its exit code is 0 whenever it could read the JSON:
the plan or apply step's own exit code is what fails the job. When the JSON is missing or
empty (the run stopped first), the annotation and the summary say why, and it exits 1.

Example:
  cms-sync plan --json > plan.json 2> plan.log
  cms-sync ci-report plan.json --log plan.log
`;

export function registerCiReport(program: Command, io: CliIO, _setExit: SetExit): void {
  program
    .command('ci-report')
    .description('turn `plan --json` output into GitHub Actions annotations and a job summary')
    .argument('<file>', 'the JSON that `cms-sync plan --json` or `apply --json` printed')
    .option('--log <file>', "the same run's stderr, for the file problems it lists (path:line:col: message)")
    .addHelpText('after', HELP)
    .action(async (file: string, options: { log?: string }) => {
      const projectDir = projectDirOf(io, program.opts().cwd);
      const report = await import('../init/ci-report.js');
      const summaryFile = io.env.GITHUB_STEP_SUMMARY;
      const summarize = async (markdown: string) => {
        if (summaryFile) await appendFile(summaryFile, markdown + '\n');
        else
          writeLine(
            io.stderr,
            'GITHUB_STEP_SUMMARY is not set: no job summary written (not an Actions step).',
          );
      };
      // The step that wrote these may have stopped early, or never run: a missing file is a
      // fact to report, not a reason to leave the summary empty.
      const log = options.log ? await readInput(projectDir, options.log) : undefined;
      if (log) for (const line of report.safeLogLines(log)) writeLine(io.stderr, line);
      const text = await readInput(projectDir, file);
      let doc;
      try {
        if (text === undefined)
          throw new Error(`${file} was not written: the step that writes it failed or was skipped.`);
        doc = report.parseSyncJson(text, file);
      } catch (error) {
        const failure = report.failureReport((error as Error).message, log);
        writeLine(io.stdout, failure.annotation);
        await summarize(failure.summary);
        throw new SyncError('CMS_SYNC_INPUT', (error as Error).message, { cause: error });
      }
      doc = report.withLogProblems(doc, log);
      for (const line of report.annotations(doc)) writeLine(io.stdout, line);
      await summarize(report.summaryMarkdown(doc));
    });
}

/** The file's text, or undefined when there is no such file. */
async function readInput(projectDir: string, file: string): Promise<string | undefined> {
  try {
    return await readFile(path.resolve(projectDir, file), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    const why = code ?? (error as Error).message;
    throw new SyncError('CMS_SYNC_INPUT', `${file}: cannot read it (${why}).`, { cause: error });
  }
}
