import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

// The README's "Use it from code" example, run as a user would (against the built dist/, through
// the package's own name), on a copy of the sample site with the embedded local CMS.
const EXAMPLE = fileURLToPath(new URL('../../examples/use-from-code.mjs', import.meta.url));
const SAMPLE = fileURLToPath(new URL('../../content', import.meta.url));

let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('runs examples/use-from-code.mjs: plans and syncs the sample site, then finds nothing to do', async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-example-'));
  await cp(SAMPLE, path.join(dir, 'content'), { recursive: true });
  const env = { PATH: process.env.PATH, NO_COLOR: '1' };
  const run = () => promisify(execFile)(process.execPath, [EXAMPLE, dir!], { env });

  const first = await run();
  expect(first.stderr).toBe('');
  expect(first.stdout).toBe(
    'Plan for local: 13 to create, 0 to update, 0 to delete, 5 uploads\n' +
      'Synced: 13 created, 0 updated, 0 deleted, 5 uploaded\n',
  );
  const second = await run();
  expect(second.stdout).toBe(
    'Plan for local: 0 to create, 0 to update, 0 to delete, 0 uploads\nNothing to do.\n',
  );
}, 120_000);
