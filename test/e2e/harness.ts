import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveContent } from '../../src/media/serve-content.js';
import { startLocalCms, type LocalCms, type LocalCmsOptions } from '../../src/server/index.js';

export const BIN = fileURLToPath(new URL('../../bin/cms-sync.js', import.meta.url));
/** A distinctive token: every test output is searched for it. */
export const SECRET_TOKEN = 'tok_e2e_5f1c9a0b7d2e4f63a8c1';

/** A tiny valid PNG; `variant` appends bytes after IEND so files differ in content. */
export function png(variant = 0): Buffer {
  const base = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
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
  /** One API call to the CMS, as another user of the CMS would make it. */
  api(body: Record<string, unknown>): Promise<any>;
  /** Every record of a resource, in id order. */
  records(resource: string): Promise<Array<Record<string, any>>>;
  /** Restart the CMS with other options on the same data. */
  restartCms(options: Partial<LocalCmsOptions>): Promise<void>;
  close(): Promise<void>;
}

export async function createProject(files: Record<string, string | Buffer>, cmsOptions: Partial<LocalCmsOptions> = {}): Promise<Project> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-e2e-'));
  const dataDir = path.join(dir, 'cms-data');
  let cms = await startLocalCms({ dataDir, port: 0, token: SECRET_TOKEN, ...cmsOptions });
  const media = await serveContent(path.join(dir, 'content'));
  const outputs: string[] = [];
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
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        CMS_BASE_URL: cms.url,
        CMS_API_TOKEN: SECRET_TOKEN,
        CMS_MEDIA_BASE_URL: media.baseUrl,
        NO_COLOR: '1',
      };
      for (const [key, value] of Object.entries(options.env ?? {})) {
        if (value === undefined) delete env[key];
        else env[key] = value;
      }
      const result = await runCli(['--cwd', dir, ...args], env);
      outputs.push(result.stdout, result.stderr);
      return result;
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
    async close() {
      await media.close();
      await cms.close();
      await rm(dir, { recursive: true, force: true });
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

/** The exact element of the spec for a media id and size. */
export function dynamicBlock(id: number, size: 'small' | 'medium' | 'large' = 'medium'): string {
  return `<dynamic-block data-id="${id}" data-type="media" data-size="${size}" contenteditable="false"></dynamic-block>`;
}
