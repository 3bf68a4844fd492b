import { linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, ok, startTestCms, tempDir } from './helpers.js';

/**
 * Records in the generated resource: well past the ~125,000 at which a spread of every id into
 * one call overflowed the stack. `CMS_SYNC_LARGE_RECORDS=1000000` runs the full-size check,
 * which spends most of its time creating and removing the files.
 */
const RECORDS = Number(process.env.CMS_SYNC_LARGE_RECORDS ?? 150_000);
/** ext4 allows 65,000 links to one inode. */
const LINKS_PER_FILE = 60_000;

let dataDir: string | undefined;
// rmSync: the promise API's recursive rm spends several times the CPU on this many entries.
afterAll(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

/**
 * Writes `count` article files in the server's on-disk format. The loader takes a record's id
 * from its file name, so every file can be a hard link to one of a few small files: a directory
 * entry each, no data blocks, and generated in a fraction of the time of separate files.
 */
function generateArticles(dir: string, count: number): void {
  const articles = join(dir, 'records', 'article');
  mkdirSync(articles, { recursive: true });
  let source = '';
  for (let id = 1; id <= count; id++) {
    if ((id - 1) % LINKS_PER_FILE === 0) {
      source = join(dir, `generated-${id}.json`);
      writeFileSync(source, JSON.stringify({ title: 'Generated', slug: 'generated', status: 1 }) + '\n');
    }
    linkSync(source, join(articles, `${id}.json`));
  }
}

describe('start-up with a very large resource', () => {
  it(`starts with ${RECORDS.toLocaleString('en')} articles in one resource and serves them`, async () => {
    dataDir = await tempDir('cms-large-');
    generateArticles(dataDir, RECORDS);
    const cms = await startTestCms({ dataDir });
    try {
      const page = await ok(cms, {
        resource: 'article',
        action: 'get',
        limit: 2,
        order_by: 'id DESC',
        fields: ['id', 'title'],
      });
      expect(page).toEqual({
        items: [
          { id: RECORDS, title: 'Generated' },
          { id: RECORDS - 1, title: 'Generated' },
        ],
        total: RECORDS,
        limit: 2,
        offset: 0,
      });
      const added = await ok(cms, {
        resource: 'article',
        action: 'add',
        data: { title: 'After the big load' },
      });
      expect(added.id).toBe(RECORDS + 1);
      expect((await call(cms, { resource: 'article', action: 'get', id: 1 })).body).toMatchObject({
        status: 'success',
        data: { id: 1 },
      });
    } finally {
      await cms.stop();
    }
  }, 120_000);
});
