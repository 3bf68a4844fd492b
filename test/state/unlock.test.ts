import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { acquireLock } from '../../src/state/lock.js';
import { Contender, deadPid, ensureClaimCodeBuilt } from './contenders.js';

let project: string;
let stateDir: string;
const contenders: Contender[] = [];

beforeAll(async () => {
  await ensureClaimCodeBuilt();
}, 60_000);
afterEach(async () => {
  await Promise.all(contenders.splice(0).map((c) => c.close()));
  await rm(project, { recursive: true, force: true });
});
afterAll(async () => {
  await Promise.all(contenders.map((c) => c.close()));
});

async function newProject(): Promise<void> {
  project = await mkdtemp(join(tmpdir(), 'cms-unlock-'));
  stateDir = join(project, '.cms-sync');
  await mkdir(stateDir);
}

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const sink = (key: 'stdout' | 'stderr') =>
    new Writable({ write: (chunk, _encoding, done) => ((out[key] += String(chunk)), done()) });
  const never = new Promise<void>(() => {});
  const io: CliIO = {
    stdout: sink('stdout'),
    stderr: sink('stderr'),
    env: {},
    cwd: project,
    interrupted: never,
  };
  const code = await main(args, io);
  return { code, ...out };
}

async function holder(): Promise<{ contender: Contender; since: string }> {
  const contender = new Contender('lock', stateDir);
  contenders.push(contender);
  contender.send('take');
  expect(await contender.next()).toBe('won');
  const lock = JSON.parse(await readFile(join(stateDir, 'lock'), 'utf8')) as { since: string };
  return { contender, since: lock.since };
}

describe('cms-sync unlock', () => {
  it('refuses to remove the lock of an apply that still runs here, naming it; --force removes it', async () => {
    await newProject();
    const { contender, since } = await holder();
    const refused = await cli(['unlock']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toBe(
      'The state lock is held by a cms-sync that is still running ' +
        `(apply, pid ${contender.pid} on ${hostname()} since ${since}). Wait for it to finish or stop it. ` +
        'Removing it while its holder runs lets two runs write at once (records created twice); ' +
        'if you are sure, run `cms-sync unlock --force`.\n',
    );
    expect(existsSync(join(stateDir, 'lock'))).toBe(true);

    const forced = await cli(['unlock', '--force']);
    const removed = `Removed the state lock (apply, pid ${contender.pid} on ${hostname()} since ${since}).\n`;
    expect(forced).toEqual({ code: 0, stdout: removed, stderr: '' });
    expect(await readdir(stateDir)).toEqual([]);
  });

  it("a holder whose lock was forced away does not remove the next holder's lock when it ends", async () => {
    await newProject();
    const { contender } = await holder();
    expect((await cli(['unlock', '--force'])).code).toBe(0);
    const next = await holder();
    contender.send('release');
    expect(await contender.next()).toBe('released');
    const lock = JSON.parse(await readFile(join(stateDir, 'lock'), 'utf8')) as { pid: number };
    expect(lock.pid).toBe(next.contender.pid);
  });

  it('removes without --force a lock whose holder is gone', async () => {
    await newProject();
    const pid = await deadPid();
    const since = '2026-01-01T00:00:00.000Z';
    await writeFile(
      join(stateDir, 'lock'),
      JSON.stringify({ pid, host: hostname(), since, command: 'apply' }),
    );
    expect(await cli(['unlock'])).toEqual({
      code: 0,
      stdout:
        `Removed the state lock (apply, pid ${pid} on ${hostname()} since ${since}): ` +
        'its holder is no longer running.\n',
      stderr: '',
    });
    expect(await readdir(stateDir)).toEqual([]);
    expect(await cli(['unlock'])).toEqual({ code: 0, stdout: 'There was no state lock.\n', stderr: '' });
  });

  it("finds the embedded local CMS's state lock, which lives apart from the committed state", async () => {
    await newProject();
    const localState = join(stateDir, 'local-cms', 'state');
    await mkdir(localState, { recursive: true });
    const pid = await deadPid();
    const since = '2026-01-01T00:00:00.000Z';
    await writeFile(
      join(localState, 'lock'),
      JSON.stringify({ pid, host: hostname(), since, command: 'watch' }),
    );
    const result = await cli(['unlock']);
    expect(result.stdout).toContain(`Removed the state lock (watch, pid ${pid}`);
    expect(await readdir(localState)).toEqual([]);
  });

  it('keeps a lock from another host, and one it cannot read, unless forced', async () => {
    await newProject();
    const since = '2026-01-01T00:00:00.000Z';
    const host = 'build-server-7';
    await writeFile(join(stateDir, 'lock'), JSON.stringify({ pid: 4242, host, since, command: 'watch' }));
    const elsewhere = await cli(['unlock']);
    expect(elsewhere.code).toBe(3);
    const who = `watch, pid 4242 on ${host} since ${since}`;
    expect(elsewhere.stderr).toContain(`held by a cms-sync on another host (${who})`);
    expect((await cli(['unlock', '--force'])).code).toBe(0);

    await writeFile(join(stateDir, 'lock'), 'held by hand\n');
    const unreadable = await cli(['unlock']);
    expect(unreadable.code).toBe(3);
    expect(unreadable.stderr).toContain(
      'is not a lock cms-sync can read (not JSON); its holder cannot be told. ' +
        'If no other cms-sync is running, run `cms-sync unlock --force`.',
    );
    const forced = await cli(['unlock', '--force']);
    expect(forced).toEqual({
      code: 0,
      stdout: 'Removed the state lock (unreadable: not JSON).\n',
      stderr: '',
    });
    expect(await readdir(stateDir)).toEqual([]);
  });
});

describe('taking the state lock', () => {
  it('takes an unreadable lock as held and says how to remove it', async () => {
    await newProject();
    await writeFile(join(stateDir, 'lock'), '');
    await expect(acquireLock(stateDir, 'apply')).rejects.toThrow(
      `The state lock ${join(stateDir, 'lock')} is not a lock cms-sync can read (not JSON), so it is taken as held. ` +
        'If no other cms-sync is running, remove it with `cms-sync unlock --force`.',
    );
  });

  it.runIf(existsSync('/proc/self/stat'))(
    'takes over a lock whose pid now belongs to another process',
    async () => {
      await newProject();
      // The lock names this very pid, but a start time that is not this process's.
      const start = Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[19]);
      const since = '2026-01-01T00:00:00.000Z';
      const nonce = 'ab'.repeat(16);
      const lock = {
        pid: process.pid,
        host: hostname(),
        nonce,
        since,
        command: 'apply',
        startTime: start - 1,
      };
      await writeFile(join(stateDir, 'lock'), JSON.stringify(lock));
      const release = await acquireLock(stateDir, 'apply');
      const taken = JSON.parse(await readFile(join(stateDir, 'lock'), 'utf8')) as unknown;
      expect(taken).toMatchObject({ pid: process.pid, startTime: start });
      await release();
      expect(await readdir(stateDir)).toEqual([]);
    },
  );
});
