import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDir, startTestCms, tempDir } from './helpers.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map(removeDir));
});

describe('temp files a crash left in the data dir', () => {
  it('sweeps ours at start: counters at once, token and claim temps once stale; nothing else', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    await mkdir(join(dir, 'records', 'article'), { recursive: true });
    const old = new Date(Date.now() - 10 * 60_000);
    const files = {
      counters: '.counters.json.0123456789ab.tmp',
      oldToken: '.token.0123456789ab.tmp',
      oldClaim: '.server.json.0123456789ab.tmp',
      freshToken: '.token.ba9876543210.tmp',
      record: join('records', 'article', '.1.json.0123456789ab.tmp'),
      notOurs: 'notes.tmp',
      otherDot: '.editor.0123456789ab.tmp',
    };
    for (const name of Object.values(files)) await writeFile(join(dir, name), 'x');
    for (const name of [files.oldToken, files.oldClaim, files.notOurs, files.otherDot])
      await utimes(join(dir, name), old, old);

    const cms = await startTestCms({ dataDir: dir });
    await cms.stop();

    const left = (await readdir(dir)).filter((name) => name.endsWith('.tmp')).sort();
    expect(left).toEqual([files.otherDot, files.freshToken, files.notOurs].sort());
    expect(await readdir(join(dir, 'records', 'article'))).toEqual([]);
  });
});
