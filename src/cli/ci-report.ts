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

With --pr-comment (in a pull_request run), it also posts the plan on the pull request: its
summary and the first changes with their diffs (from \`plan --json --diff\`), linked to the job
summary, in one comment that later runs edit in place. It needs GITHUB_TOKEN with
\`pull-requests: write\`, and reads GITHUB_REPOSITORY, GITHUB_EVENT_PATH and GITHUB_API_URL as
Actions sets them. A comment that cannot be posted (a fork's read-only token) is a warning.

Example:
  cms-sync plan --json --diff > plan.json 2> plan.log
  cms-sync ci-report plan.json --log plan.log --pr-comment
`;

export function registerCiReport(program: Command, io: CliIO, _setExit: SetExit): void {
  program
    .command('ci-report')
    .description('turn `plan --json` output into GitHub Actions annotations and a job summary')
    .argument('<file>', 'the JSON that `cms-sync plan --json` or `apply --json` printed')
    .option('--log <file>', "the same run's stderr, for the file problems it lists (path:line:col: message)")
    .option('--pr-comment', 'also post the plan as a comment on the pull request, or update the one posted')
    .addHelpText('after', HELP)
    .action(async (file: string, options: { log?: string; prComment?: boolean }) => {
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
      if (options.prComment)
        await postComment(io, report.commentMarkdown(doc, { summaryUrl: runUrl(io.env) }));
    });
}

/** The run's page, whose summary tab holds the job summary. */
function runUrl(env: NodeJS.ProcessEnv): string | undefined {
  const {
    GITHUB_SERVER_URL: server = 'https://github.com',
    GITHUB_REPOSITORY: repo,
    GITHUB_RUN_ID: run,
  } = env;
  if (!repo || !run) return undefined;
  const attempt =
    env.GITHUB_RUN_ATTEMPT && env.GITHUB_RUN_ATTEMPT !== '1' ? `/attempts/${env.GITHUB_RUN_ATTEMPT}` : '';
  return `${server}/${repo}/actions/runs/${run}${attempt}`;
}

/**
 * Posts or updates the pull request comment. What keeps it from being posted is said (as a
 * warning annotation when GitHub refused it), never a failure of the job: the plan step's own
 * exit code is what fails it.
 */
async function postComment(io: CliIO, body: string): Promise<void> {
  const github = await import('../init/github-comment.js');
  const { GITHUB_TOKEN: token, GITHUB_REPOSITORY: repository, GITHUB_EVENT_PATH: eventPath } = io.env;
  let pullRequest: number | undefined;
  if (eventPath) {
    try {
      pullRequest = github.pullRequestNumber(JSON.parse(await readFile(eventPath, 'utf8')));
    } catch {
      pullRequest = undefined;
    }
  }
  const missing = !token
    ? 'GITHUB_TOKEN is not set'
    : !repository
      ? 'GITHUB_REPOSITORY is not set'
      : undefined;
  if (missing || !pullRequest) {
    const why = missing ?? 'the event (GITHUB_EVENT_PATH) is not a pull request';
    writeLine(io.stderr, `No pull request comment: ${why}.`);
    return;
  }
  try {
    const done = await github.upsertPlanComment(
      {
        apiUrl: io.env.GITHUB_API_URL || 'https://api.github.com',
        token: token!,
        repository: repository!,
        pullRequest,
        fetch,
      },
      body,
    );
    writeLine(
      io.stderr,
      `Plan ${done.action} on pull request #${pullRequest}${done.url ? `: ${done.url}` : ''}.`,
    );
  } catch (error) {
    const { escapeData } = await import('../init/ci-report.js');
    writeLine(
      io.stdout,
      `::warning title=cms-sync::${escapeData(`No pull request comment: ${(error as Error).message}`)}`,
    );
  }
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
