import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { cleanRunWrittenAt, CLEAN_RUN_FILE, readCleanRun, writeCleanRun } from '../../src/state/clean-run.js';
import { acquireLock } from '../../src/state/lock.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-clean-run-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const facts = {
  listing: { files: 'f', media: 'm', pipeline: 'p' },
  dependencies: { files: [], stamps: 's' },
  records: { article: 1 },
  sortedBase: true,
  attention: { records: [], files: [], failed: [] },
};

it('leaves no mark, and reads none, for a config JSON cannot hold: the run goes on whole', async () => {
  const places = { stateDir: dir, recordsDir: dir, listingCache: undefined };
  const plain = { projectDir: dir } as unknown as Config;
  await writeCleanRun(places, plain, facts);
  expect(readCleanRun(places, plain)).toMatchObject({ records: { article: 1 } });

  const cyclic = { projectDir: dir } as Record<string, unknown>;
  cyclic.self = cyclic;
  expect(readCleanRun(places, cyclic as unknown as Config)).toBeUndefined();
  await writeCleanRun(places, cyclic as unknown as Config, facts);
  expect(existsSync(path.join(dir, CLEAN_RUN_FILE))).toBe(false);
});

it("dates the last run by its mark, not by the state folder, which the next run's lock changes first", async () => {
  const places = { stateDir: dir, recordsDir: dir, listingCache: undefined };
  expect(cleanRunWrittenAt(dir)).toBe(Infinity);
  await writeCleanRun(places, { projectDir: dir } as unknown as Config, facts);
  const written = statSync(path.join(dir, CLEAN_RUN_FILE)).mtimeMs;
  await new Promise((resolve) => setTimeout(resolve, 20));
  const release = await acquireLock(dir, 'apply');
  try {
    expect(statSync(dir).mtimeMs).toBeGreaterThan(written);
    expect(cleanRunWrittenAt(dir)).toBe(written);
  } finally {
    await release();
  }
});
