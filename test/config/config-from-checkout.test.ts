import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../e2e/harness.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

it('a project scaffolded by cms-sync run from a checkout plans, with no node_modules of its own', async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-checkout-'));
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };

  const init = await runCli(['init'], env, dir);
  expect(init.code).toBe(0);
  expect(existsSync(path.join(dir, 'node_modules'))).toBe(false);

  // sync.config.ts says `import { defineConfig } from 'cms-sync'`: the cms-sync that runs it.
  const plan = await runCli(['plan', '--json'], env, dir);
  expect(plan.stderr).not.toContain('sync.config.ts');
  expect(plan.code).toBe(0);
  expect(JSON.parse(plan.stdout).plan.counts).toMatchObject({ create: 3, upload: 1 });
});
