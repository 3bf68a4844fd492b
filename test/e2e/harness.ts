import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveContent } from '../../src/media/serve-content.js';
import { startLocalCms, type LocalCms, type LocalCmsOptions } from '../../src/server/index.js';
import type {
  ImportOptions,
  ImportResult,
  PlanOptions,
  SyncOptions,
  SyncResult,
} from '../../src/sync/public-types.js';

export const BIN = fileURLToPath(new URL('../../bin/cms-sync.js', import.meta.url));
/** A distinctive token: every test output is searched for it. */
export const SECRET_TOKEN = 'tok_e2e_5f1c9a0b7d2e4f63a8c1';

/** A tiny valid PNG; `variant` appends bytes after IEND so files differ in content. */
export function png(variant = 0): Buffer {
  const base = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );
  return variant === 0 ? base : Buffer.concat([base, Buffer.from(`variant-${variant}`)]);
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A user's project in a temp folder, a local CMS of its own on an ephemeral port (started in
 * the test, so the test can read its stats and records), and `content/` served so the CMS can
 * fetch local images. `run` executes the real CLI in a child process.
 */
export interface Project {
  dir: string;
  cms: LocalCms;
  /** Every stdout/stderr text of every run, to check the token never leaks. */
  outputs: string[];
  write(file: string, content: string | Buffer): Promise<void>;
  remove(file: string): Promise<void>;
  read(file: string): Promise<string>;
  run(args: string[], options?: { env?: Record<string, string | undefined> }): Promise<RunResult>;
  /**
   * An apply through the library in this process (`sync` of dist/index.js, the same engine the CLI
   * runs), with the environment `run` gives the CLI: for a test's set-up where that apply is not
   * what the test checks, as it spares a CLI process start. It prints nothing.
   */
  applyInProcess(options?: SyncOptions): Promise<SyncResult>;
  /** A plan through the library in this process (`plan` of dist/index.js), for a set-up as `applyInProcess`. */
  planInProcess(options?: PlanOptions): Promise<SyncResult>;
  /** An import (`importContent` of dist/index.js) in this process, for a set-up as `applyInProcess`. */
  importInProcess(options: ImportOptions): Promise<ImportResult>;
  /** One API call to the CMS, as another user of the CMS would make it. */
  api(body: Record<string, unknown>): Promise<any>;
  /** Every record of a resource, in id order. */
  records(resource: string): Promise<Array<Record<string, any>>>;
  /** Restart the CMS with other options on the same data. */
  restartCms(options: Partial<LocalCmsOptions>): Promise<void>;
  /** Stop the CMS for a while: its port refuses connections until `startCms`. */
  stopCms(): Promise<void>;
  /** Start the stopped CMS again on the same data and the SAME port, so running CLIs reach it. */
  startCms(options?: Partial<LocalCmsOptions>): Promise<void>;
  /** Start a long-running CLI (e.g. `watch`) in a child process; read its output as it comes. */
  spawn(args: string[], options?: { env?: Record<string, string | undefined> }): LiveRun;
  close(): Promise<void>;
}

/** A CLI process still running: its output so far, line by line, and a way to stop it. */
export interface LiveRun {
  stdoutLines: string[];
  stderrLines: string[];
  /**
   * Resolves with the first line of `stream` (default stdout) from index `after` on (default 0),
   * already printed or still to come, that matches; rejects after `timeoutMs` or at exit.
   */
  waitForLine(
    match: RegExp | ((line: string) => boolean),
    options?: { stream?: 'stdout' | 'stderr'; timeoutMs?: number; after?: number },
  ): Promise<string>;
  /** Resolves when the process exits by itself (or after `stop`). */
  exited: Promise<RunResult>;
  /** Sends SIGINT (Ctrl-C) and waits for the exit; SIGKILL after `timeoutMs`. */
  stop(options?: { signal?: NodeJS.Signals; timeoutMs?: number }): Promise<RunResult>;
}

export async function createProject(
  files: Record<string, string | Buffer>,
  cmsOptions: Partial<LocalCmsOptions> = {},
): Promise<Project> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-e2e-'));
  const dataDir = path.join(dir, 'cms-data');
  let cms = await startLocalCms({ dataDir, port: 0, token: SECRET_TOKEN, ...cmsOptions });
  let cmsStopped = false;
  const media = await serveContent(path.join(dir, 'content'));
  const outputs: string[] = [];
  const live = new Set<LiveRun>();
  const cliEnv = (extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CMS_BASE_URL: cms.url,
      CMS_API_TOKEN: SECRET_TOKEN,
      CMS_MEDIA_BASE_URL: media.baseUrl,
      NO_COLOR: '1',
      // A log gets a progress line once a phase lasts 5 s, which a loaded machine can reach in any
      // test: only the tests of progress ask for those lines (test/e2e/progress.test.ts).
      CMS_SYNC_PROGRESS_LOG_MS: '3600000',
    };
    for (const [key, value] of Object.entries(extra)) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    return env;
  };
  const project: Project = {
    dir,
    get cms() {
      return cms;
    },
    outputs,
    async write(file, content) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), content);
    },
    async remove(file) {
      await rm(path.join(dir, file));
    },
    read: (file) => readFile(path.join(dir, file), 'utf8'),
    async run(args, options = {}) {
      const env = cliEnv(options.env);
      const result = await runCli(['--cwd', dir, ...args], env);
      outputs.push(result.stdout, result.stderr);
      return result;
    },
    async applyInProcess(options = {}) {
      const { sync } = await import('../../dist/index.js');
      return sync({ ...options, projectDir: dir, env: cliEnv(options.env) });
    },
    async planInProcess(options = {}) {
      const { plan } = await import('../../dist/index.js');
      return plan({ ...options, projectDir: dir, env: cliEnv(options.env) });
    },
    async importInProcess(options) {
      const { importContent } = await import('../../dist/index.js');
      return importContent({ ...options, projectDir: dir, env: cliEnv(options.env) });
    },
    async api(body) {
      const response = await fetch(cms.apiUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET_TOKEN}` },
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as { status: string; data?: any; message?: string };
      if (json.status !== 'success') throw new Error(`CMS said: ${json.message}`);
      return json.data;
    },
    async records(resource) {
      const data = await project.api({ resource, action: 'get', limit: 100, order_by: 'id ASC' });
      return data.items;
    },
    async restartCms(options) {
      await cms.close();
      cms = await startLocalCms({ dataDir, port: 0, token: SECRET_TOKEN, ...options });
    },
    async stopCms() {
      await cms.close();
      cmsStopped = true;
    },
    async startCms(options = {}) {
      const port = Number(new URL(cms.url).port);
      cms = await startLocalCms({ dataDir, port, token: SECRET_TOKEN, ...cmsOptions, ...options });
      cmsStopped = false;
    },
    spawn(args, options = {}) {
      const run = spawnCli(['--cwd', dir, ...args], cliEnv(options.env));
      live.add(run);
      void run.exited.then((result) => {
        live.delete(run);
        outputs.push(result.stdout, result.stderr);
      });
      return run;
    },
    async close() {
      // Teardown after kill -9 runs can be slow (requests in flight, fsynced writes): say which
      // step is slow, should it be.
      const started = Date.now();
      const step = async (name: string, work: () => Promise<unknown>) => {
        const at = Date.now();
        await work();
        if (Date.now() - at > 2000)
          console.error(
            `[harness] close: ${name} took ${Date.now() - at} ms (${Date.now() - started} ms into close)`,
          );
      };
      await step('stopping live CLI runs', () =>
        Promise.all([...live].map((run) => run.stop({ signal: 'SIGKILL' }))),
      );
      await step('closing the media server', () => media.close());
      if (!cmsStopped) await step('closing the local CMS', () => cms.close());
      await step('removing the project', () => rm(dir, { recursive: true, force: true }));
    },
  };
  for (const [file, content] of Object.entries(files)) await project.write(file, content);
  return project;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Spawns the real CLI and keeps it running; see `LiveRun`. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv): LiveRun {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = { stdout: [] as string[], stderr: [] as string[] };
  const text = { stdout: '', stderr: '' };
  const waiters = new Set<() => void>();
  for (const stream of ['stdout', 'stderr'] as const) {
    let partial = '';
    child[stream].setEncoding('utf8').on('data', (chunk: string) => {
      text[stream] += chunk;
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      lines[stream].push(...parts);
      for (const wake of [...waiters]) wake();
    });
  }
  const exited = new Promise<RunResult>((resolve) => {
    child.on('close', (code, signal) => {
      resolve({ code: code ?? (signal ? 128 : -1), stdout: text.stdout, stderr: text.stderr });
      for (const wake of [...waiters]) wake();
    });
  });
  let done = false;
  void exited.then(() => (done = true));
  return {
    stdoutLines: lines.stdout,
    stderrLines: lines.stderr,
    exited,
    waitForLine(match, options = {}) {
      const test = typeof match === 'function' ? match : (line: string) => match.test(line);
      const stream = options.stream ?? 'stdout';
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines[stream].slice(options.after ?? 0).find(test);
          if (found !== undefined) return finish(() => resolve(found));
          if (done)
            finish(() =>
              reject(
                new Error(
                  `The CLI exited before printing the line expected.\nstdout:\n${text.stdout}\nstderr:\n${text.stderr}`,
                ),
              ),
            );
        };
        const timer = setTimeout(
          () =>
            finish(() =>
              reject(
                new Error(
                  `No such line within ${options.timeoutMs ?? 10_000} ` +
                    `ms.\nstdout:\n${text.stdout}\nstderr:\n${text.stderr}`,
                ),
              ),
            ),
          options.timeoutMs ?? 10_000,
        );
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      });
    },
    async stop({ signal = 'SIGINT', timeoutMs = 10_000 } = {}) {
      if (!done) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

/** The exact element of the spec for a media id and size. */
export function dynamicBlock(id: number, size: 'small' | 'medium' | 'large' = 'medium'): string {
  return (
    `<dynamic-block data-id="${id}" data-type="media" data-size="${size}" ` +
    `contenteditable="false"></dynamic-block>`
  );
}
