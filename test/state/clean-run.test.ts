import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { CLEAN_RUN_FILE, readCleanRun, writeCleanRun } from '../../src/state/clean-run.js';

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
