import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt } from './dist-build.js';
import { ok, removeDir, startTestCms, tempDir, TOKEN } from './helpers.js';

const SERVE_CHILD = fileURLToPath(new URL('./fixtures/serve-child.mjs', import.meta.url));
let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = await tempDir('cms-crash-');
}, 60_000);
afterAll(async () => {
  await removeDir(dir);
});

/** Starts the built local CMS in a child process and resolves with its URL from its startup line. */
function serveChild(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [SERVE_CHILD, dataDir, TOKEN], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^Local CMS listening on (http:\/\/127\.0\.0\.1:\d+) /m.exec(out);
      if (match) resolve({ child, url: match[1]! });
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening:\n${out}`)));
  });
}

it('loses no acknowledged write and tears no file when killed with SIGKILL mid-stream', async () => {
  const { child, url } = await serveChild(dir);
  const api = { apiUrl: `${url}/functions/api` };
  const acknowledged = new Map<number, Record<string, unknown>>();
  let killed = false;
  const exited = new Promise((resolve) => child.once('exit', resolve));

  // 8 clients write as fast as they can; the kill lands after 150 acknowledgements, mid-stream.
  const client = async (n: number) => {
    for (let i = 0; !killed; i++) {
      try {
        const record = await ok(api, {
          resource: 'article',
          action: 'add',
          data: { title: `Client ${n} #${i}`, slug: `c${n}-${i}`, body: `<p>${'x'.repeat(2000)}</p>` },
        });
        acknowledged.set(record.id, record);
        if (acknowledged.size >= 150 && !killed) {
          killed = true;
          child.kill('SIGKILL');
        }
      } catch {
        return; // the connection died with the server
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, n) => client(n)));
  await exited;
  expect(acknowledged.size).toBeGreaterThanOrEqual(150);

  // Every file left on disk is whole JSON (temp files aside).
  const files = await readdir(join(dir, 'records', 'article'));
  const recordFiles = files.filter((f) => /^\d+\.json$/.test(f));
  for (const file of recordFiles) {
    const text = await readFile(join(dir, 'records', 'article', file), 'utf8');
    expect(() => JSON.parse(text), file).not.toThrow();
  }

  const cms = await startTestCms({ dataDir: dir });
  try {
    const all: Array<Record<string, unknown> & { id: number }> = [];
    for (let offset = 0; ; offset += 100) {
      const page = await ok(cms, { resource: 'article', action: 'get', limit: 100, offset });
      all.push(...page.items);
      if (offset + 100 >= page.total) break;
    }
    const byId = new Map(all.map((r) => [r.id, r]));
    expect(byId.size).toBe(all.length);
    for (const [id, record] of acknowledged) expect(byId.get(id)).toEqual(record);
    expect(all.length).toBe(recordFiles.length);
    const next = await ok(cms, { resource: 'article', action: 'add', data: { title: 'after the crash' } });
    expect(next.id).toBeGreaterThan(Math.max(...byId.keys()));
  } finally {
    await cms.close();
  }
});
