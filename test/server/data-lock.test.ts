import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { findRunningLocalCms } from '../../src/server/index.js';
import { Contender, deadPid, ensureClaimCodeBuilt, ROOT } from '../state/contenders.js';

const ROUNDS = 30;
let dir: string;
let contenders: Contender[] = [];

beforeAll(async () => {
  await ensureClaimCodeBuilt();
  dir = await mkdtemp(join(tmpdir(), 'cms-data-race-'));
  contenders = Array.from({ length: 4 }, () => new Contender('data', dir));
}, 60_000);
afterAll(async () => {
  await Promise.all(contenders.map((c) => c.close()));
  await rm(dir, { recursive: true, force: true });
});

describe('one local CMS per data dir, under a race', () => {
  it('a claim left by a server killed with -9 is taken over by exactly one of the servers that find it', async () => {
    const gone = await deadPid();
    for (let round = 0; round < ROUNDS; round++) {
      // Every other round the stale claim is in the format written before claims had nonces.
      const stale =
        round % 2 === 0
          ? {
              pid: gone,
              host: hostname(),
              nonce: randomBytes(16).toString('hex'),
              since: new Date().toISOString(),
              command: 'local CMS',
              url: 'http://127.0.0.1:1',
            }
          : { pid: gone, url: `http://127.0.0.1:${round + 1}` };
      await writeFile(join(dir, 'server.json'), JSON.stringify(stale));

      const racing = contenders.slice(0, 2 + (round % 3));
      for (const contender of racing) contender.send('take');
      const answers = await Promise.all(racing.map((c) => c.next()));
      expect(
        answers.filter((a) => a === 'won'),
        `round ${round}: ${answers.join(', ')}`,
      ).toHaveLength(1);
      expect(answers.filter((a) => a !== 'won')).toEqual(racing.slice(1).map(() => 'held CMS_SYNC_LOCKED'));

      const winner = racing[answers.indexOf('won')]!;
      expect((JSON.parse(await readFile(join(dir, 'server.json'), 'utf8')) as { pid: number }).pid).toBe(
        winner.pid,
      );
      winner.send('release');
      expect(await winner.next()).toBe('released');
      expect(await readdir(dir)).toEqual([]);
    }
  }, 120_000);
});

describe('finding a running local CMS through server.json', () => {
  const SECRET = 'tok_claim_7d1e0c5a9b3f4e21';
  let trap: Server;
  let trapPort: number;
  const requests: string[] = [];
  const projects: string[] = [];
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i?.family === 'IPv4' && !i.internal)?.address;

  beforeAll(async () => {
    // Stands for whatever listens where a planted claim points: it must never hear from us.
    trap = createServer((req, res) => {
      requests.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.end('{}');
    });
    await new Promise<void>((resolve) => trap.listen(0, '0.0.0.0', resolve));
    trapPort = (trap.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => trap.close(resolve));
    await Promise.all(projects.map((p) => rm(p, { recursive: true, force: true })));
  });

  async function plant(claim: Record<string, unknown>): Promise<string> {
    const project = await mkdtemp(join(tmpdir(), 'cms-claim-'));
    projects.push(project);
    await mkdir(join(project, '.cms-sync', 'local-cms'), { recursive: true });
    await mkdir(join(project, 'content', 'articles'), { recursive: true });
    await writeFile(join(project, 'content', 'articles', 'hello.md'), '---\ntitle: Hello\n---\n\nHi.\n');
    await writeFile(join(project, '.cms-sync', 'local-cms', 'server.json'), JSON.stringify(claim));
    return project;
  }

  async function plan(project: string): Promise<{ code: number; out: string }> {
    let out = '';
    const sink = () => new Writable({ write: (chunk, _encoding, done) => ((out += String(chunk)), done()) });
    const env = { CMS_API_TOKEN: SECRET };
    const io: CliIO = {
      stdout: sink(),
      stderr: sink(),
      env,
      cwd: project,
      interrupted: new Promise(() => {}),
    };
    const code = await main(['plan'], io);
    return { code, out };
  }

  const ownStart = () => Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[19]);
  const linux = existsSync('/proc/self/stat');

  it('ignores a committed claim of a process that is not a cms-sync, and uses a local CMS of its own', async () => {
    for (const url of ['http://example.invalid', `http://127.0.0.1:${trapPort}`]) {
      const project = await plant({ pid: 1, url });
      const run = await plan(project);
      expect(requests).toEqual([]);
      expect(run.out).toContain('(embedded; data in .cms-sync/local-cms)');
      expect(run.code).toBe(0);
      expect(await findRunningLocalCms(join(project, '.cms-sync', 'local-cms'))).toBeUndefined();
    }
  });

  it.runIf(linux)('ignores a live pid that is not a cms-sync when no start time vouches for it', async () => {
    const project = await plant({ pid: process.pid, url: `http://127.0.0.1:${trapPort}` });
    expect((await plan(project)).code).toBe(0);
    expect(requests).toEqual([]);
    expect(await findRunningLocalCms(join(project, '.cms-sync', 'local-cms'))).toBeUndefined();
  });

  it.runIf(linux)("ignores a claim whose start time is not its pid's (a reused pid)", async () => {
    const project = await plant({
      pid: process.pid,
      startTime: ownStart() + 1,
      url: `http://127.0.0.1:${trapPort}`,
    });
    expect((await plan(project)).code).toBe(0);
    expect(requests).toEqual([]);
    expect(await findRunningLocalCms(join(project, '.cms-sync', 'local-cms'))).toBeUndefined();
  });

  it.runIf(linux)('never sends the token beyond loopback, even to a server of ours', async () => {
    const urls = [
      'http://10.1.2.3:1',
      `https://127.0.0.1:${trapPort}`,
      `http://user:pw@127.0.0.1:${trapPort}`,
    ];
    if (external) urls.push(`http://${external}:${trapPort}`);
    for (const url of urls) {
      const project = await plant({ pid: process.pid, startTime: ownStart(), url });
      const run = await plan(project);
      expect(requests, url).toEqual([]);
      expect(run.out).not.toContain(SECRET);
      expect(await findRunningLocalCms(join(project, '.cms-sync', 'local-cms')), url).toBeUndefined();
    }
  });

  it('uses a running `cms-sync serve` on the same data, and a second serve there is refused', async () => {
    const project = await plant({ pid: 1, url: 'http://example.invalid' });
    const bin = join(ROOT, 'bin', 'cms-sync.js');
    const env = { PATH: process.env.PATH, CMS_API_TOKEN: SECRET };
    const args = [bin, 'serve', '--port', '0'];
    const serve = spawn(process.execPath, args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((resolve) => serve.once('exit', resolve));
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        serve.stdout!.on('data', (chunk: Buffer) => {
          out += String(chunk);
          if (out.includes('Press Ctrl-C')) resolve();
        });
        serve.stderr!.on('data', (chunk: Buffer) => (out += String(chunk)));
        serve.once('exit', () => reject(new Error(`serve exited:\n${out}`)));
      });
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
      const run = await plan(project);
      const running = `(already running, pid ${serve.pid}; data in .cms-sync/local-cms)`;
      expect(run.out).toContain(`Using the local CMS at ${url} ${running}`);
      expect(run.code).toBe(0);

      const second = spawnSync(process.execPath, args, { cwd: project, env, encoding: 'utf8' });
      expect(second.status).toBe(3);
      expect(second.stderr).toContain(`is already served by process ${serve.pid} at ${url}.`);
    } finally {
      serve.kill('SIGTERM');
      await exited;
    }
    expect(requests).toEqual([]);
  }, 60_000);

  it.runIf(linux)('uses a live local CMS of ours on loopback', async () => {
    const project = await plant({
      pid: process.pid,
      startTime: ownStart(),
      url: `http://127.0.0.1:${trapPort}`,
    });
    const url = `http://127.0.0.1:${trapPort}`;
    expect(await findRunningLocalCms(join(project, '.cms-sync', 'local-cms'))).toEqual({
      pid: process.pid,
      url,
    });
  });
});
