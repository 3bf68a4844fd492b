import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCms, type LocalCms, type LocalCmsOptions } from '../../src/server/index.js';

export const TOKEN = 'test-token-0123456789';

export interface Reply {
  status: number;
  headers: Headers;
  body: { status: 'success'; data: any } | { status: 'error'; message: string };
}

export async function tempDir(prefix = 'cms-server-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** A local CMS on an ephemeral port with its own temp data dir; `stop()` closes it and removes the dir. */
export async function startTestCms(
  options: Partial<LocalCmsOptions> = {},
): Promise<LocalCms & { dataDir: string; stop(): Promise<void> }> {
  const dataDir = options.dataDir ?? (await tempDir());
  let cms: LocalCms;
  try {
    cms = await startLocalCms({ token: TOKEN, ...options, dataDir, port: options.port ?? 0 });
  } catch (error) {
    if (!options.dataDir) await removeDir(dataDir);
    throw error;
  }
  return {
    ...cms,
    dataDir,
    stop: async () => {
      await cms.close();
      if (!options.dataDir) await removeDir(dataDir);
    },
  };
}

/** One API call as a client makes it; `token: null` sends no Authorization header. */
export async function call(
  cms: { apiUrl: string },
  body: unknown,
  init: { token?: string | null; raw?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const token = init.token === undefined ? TOKEN : init.token;
  const response = await fetch(cms.apiUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...init.headers,
    },
    body: init.raw ?? JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Reply['body'],
  };
}

/** `data` of a successful call; fails the test with the server's message otherwise. */
export async function ok(cms: { apiUrl: string }, body: unknown): Promise<any> {
  const reply = await call(cms, body);
  if (reply.body.status !== 'success')
    throw new Error(`expected success, got HTTP ${reply.status}: ${reply.body.message}`);
  return reply.body.data;
}

export function errorOf(reply: Reply): { status: number; message: string } {
  if (reply.body.status !== 'error')
    throw new Error(`expected an error, got success: ${JSON.stringify(reply.body.data)}`);
  return { status: reply.status, message: reply.body.message };
}
