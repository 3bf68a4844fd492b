import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { spawnCli, type LiveRun } from '../e2e/harness.js';

let dir: string | undefined;
let watcher: LiveRun | undefined;
afterEach(async () => {
  await watcher?.stop();
  watcher = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

it("names the local CMS's page of each record a sync wrote, which shows that record", async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-watch-url-'));
  await mkdir(path.join(dir, 'content/articles'), { recursive: true });
  await writeFile(
    path.join(dir, 'content/articles/harbour.md'),
    '---\ntitle: Harbour opens\n---\nOn Monday.\n',
  );
  // No CMS_BASE_URL: the embedded local CMS, whose pages the line links.
  watcher = spawnCli(['--cwd', dir, 'watch'], { PATH: process.env.PATH, NO_COLOR: '1' });
  const first = await watcher.waitForLine(/first sync → /, { timeoutMs: 20_000 });
  const url = /\+ article\/harbour (http:\/\/127\.0\.0\.1:\d+\/view\/article\/\d+)/.exec(first)?.[1];
  expect(url, first).toBeDefined();
  const page = await (await fetch(url!)).text();
  expect(page).toContain('Harbour opens');

  const after = watcher.stdoutLines.length;
  await writeFile(
    path.join(dir, 'content/articles/harbour.md'),
    '---\ntitle: Harbour delayed\n---\nOn Thursday.\n',
  );
  const edited = await watcher.waitForLine(/harbour\.md → ~ article\/harbour/, { after, timeoutMs: 20_000 });
  expect(edited).toContain(`~ article/harbour ${url}`);
}, 60_000);
