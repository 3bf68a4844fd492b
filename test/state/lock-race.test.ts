import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Contender, deadPid, ensureClaimCodeBuilt } from './contenders.js';

const ROUNDS = 30;
let dir: string;
let contenders: Contender[] = [];

beforeAll(async () => {
  await ensureClaimCodeBuilt();
  dir = await mkdtemp(join(tmpdir(), 'cms-lock-race-'));
  contenders = Array.from({ length: 4 }, () => new Contender('lock', dir));
}, 60_000);
afterAll(async () => {
  await Promise.all(contenders.map((c) => c.close()));
  await rm(dir, { recursive: true, force: true });
});

describe('the state lock under a race', () => {
  it('a lock left by a dead apply is taken over by exactly one of the applies that find it, every time', async () => {
    const gone = await deadPid();
    for (let round = 0; round < ROUNDS; round++) {
      // Every other round the stale lock is in the format written before locks had nonces.
      const since = `2026-01-01T00:00:${String(round).padStart(2, '0')}.000Z`;
      const stale =
        round % 2 === 0
          ? { pid: gone, host: hostname(), nonce: randomBytes(16).toString('hex'), since, command: 'apply' }
          : { pid: gone, host: hostname(), since, command: 'apply' };
      await writeFile(join(dir, 'lock'), JSON.stringify(stale));

      const racing = contenders.slice(0, 2 + (round % 3));
      for (const contender of racing) contender.send('take');
      const answers = await Promise.all(racing.map((c) => c.next()));
      expect(
        answers.filter((a) => a === 'won'),
        `round ${round}: ${answers.join(', ')}`,
      ).toHaveLength(1);
      expect(answers.filter((a) => a !== 'won')).toEqual(racing.slice(1).map(() => 'held CMS_SYNC_LOCKED'));

      const winner = racing[answers.indexOf('won')]!;
      const lock = JSON.parse(await readFile(join(dir, 'lock'), 'utf8')) as { pid: number };
      expect(lock.pid).toBe(winner.pid);
      winner.send('release');
      expect(await winner.next()).toBe('released');
      // Nothing is left behind: no lock, no breaker, no temp file.
      expect(await readdir(dir)).toEqual([]);
    }
  }, 120_000);

  it('a live holder keeps its lock against every contender', async () => {
    const [holder, ...others] = contenders as [Contender, ...Contender[]];
    holder.send('take');
    expect(await holder.next()).toBe('won');
    for (const other of others) other.send('take');
    expect(await Promise.all(others.map((c) => c.next()))).toEqual(others.map(() => 'held CMS_SYNC_LOCKED'));
    holder.send('release');
    expect(await holder.next()).toBe('released');
    expect(await readdir(dir)).toEqual([]);
  });
});
