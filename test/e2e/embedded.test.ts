import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalCms } from '../../src/server/index.js';
import { runCli } from './harness.js';

const SAMPLE = fileURLToPath(new URL('../../content', import.meta.url));

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('the embedded default target', () => {
  it('with no CMS_BASE_URL, syncs the sample site into the local CMS and says so first', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-embedded-'));
    await cp(SAMPLE, path.join(dir, 'content'), { recursive: true });
    const env = { PATH: process.env.PATH, NO_COLOR: '1' };

    const first = await runCli(['--cwd', dir, 'apply'], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout.split('\n')[0]).toMatch(
      /^Using the local CMS at http:\/\/127\.0\.0\.1:\d+ \(embedded; data in \.cms-sync\/local-cms\)\. Set CMS_BASE_URL and CMS_API_TOKEN to sync to your CMS\.$/,
    );
    expect(first.stdout).toMatch(/Applied: 13 created, 0 updated, 0 deleted, 5 uploaded/);

    const second = await runCli(['--cwd', dir, 'apply', '--json'], env);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout).stats.writes).toBe(0);

    // The next run takes the port the last one had, so a browser tab left open on it still works.
    const url = (run: { stdout: string }) => /Using the local CMS at (\S+) /.exec(run.stdout)?.[1];
    const third = await runCli(['--cwd', dir, 'plan'], env);
    expect(url(third)).toBeDefined();
    expect(url(third)).toBe(url(first));

    // What the run left behind is a CMS anyone can start again on the same data.
    const cms = await startLocalCms({ dataDir: path.join(dir, '.cms-sync/local-cms'), port: 0 });
    try {
      const response = await fetch(cms.apiUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${cms.token}` },
        body: JSON.stringify({ resource: 'article', action: 'get', fields: ['slug', 'body'], limit: 100 }),
      });
      const { data } = (await response.json()) as { data: { items: Array<{ slug: string; body: string }> } };
      expect(data.items.map((a) => a.slug).sort()).toEqual([
        'budget-vote-passes',
        'city-festival-returns',
        'coastal-towns-plan',
        'flood-defences-funding',
        'river-levels-record-high',
      ]);
      for (const article of data.items)
        expect(article.body).toMatch(
          /<dynamic-block data-id="\d+" data-type="media" data-size="(small|medium|large)" contenteditable="false"><\/dynamic-block>/,
        );
      expect(first.stdout + second.stdout + second.stderr).not.toContain(cms.token);
    } finally {
      await cms.close();
    }
  });
});
