import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findRunningLocalCms, startLocalCms } from '../../src/server/index.js';
import { call, ok, removeDir, startTestCms, tempDir, TOKEN } from './helpers.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map(removeDir));
});
async function dataDir(): Promise<string> {
  const dir = await tempDir();
  dirs.push(dir);
  return dir;
}

describe('one server per data dir', () => {
  it('refuses a second server on a data dir in use, naming the running one; frees it on close', async () => {
    const dir = await dataDir();
    const first = await startTestCms({ dataDir: dir });
    expect(await findRunningLocalCms(dir)).toEqual({ pid: process.pid, url: first.url });
    await expect(startLocalCms({ dataDir: dir, token: TOKEN, port: 0 })).rejects.toThrow(
      `The local CMS data in ${dir} is already served by process ${process.pid} at ${first.url}. Use that server ` +
        `(set CMS_BASE_URL=${first.url}) or stop it first.`,
    );
    await first.stop();
    expect(await findRunningLocalCms(dir)).toBeUndefined();
    const second = await startTestCms({ dataDir: dir });
    await second.stop();
  });

  it('closes at once after a client died waiting for a slow answer, its request unread', async () => {
    // A sync killed mid-run against a slow CMS: the request arrived, the client is gone before
    // the CMS reads it. close() lets requests in progress finish; this one must not hang it.
    const cms = await startTestCms({ dataDir: await dataDir(), latencyMs: 100 });
    const body = JSON.stringify({ resource: 'article', action: 'get', limit: 1 });
    const socket = connect(Number(new URL(cms.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /functions/api HTTP/1.1\r\nHost: 127.0.0.1:${new URL(cms.url).port}\r\nAuthorization: Bearer ` +
        `${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 150));
    const closing = cms.stop().then(() => 'closed');
    const timeout = new Promise((resolve) => setTimeout(resolve, 3000, 'still open after 3 s'));
    expect(await Promise.race([closing, timeout])).toBe('closed');
  });

  it('takes over the claim of a process that is gone', async () => {
    const dir = await dataDir();
    // A pid far above any in use here stands for a server killed with -9.
    await writeFile(
      join(dir, 'server.json'),
      JSON.stringify({ pid: 2 ** 22 + 12345, url: 'http://127.0.0.1:1' }),
    );
    expect(await findRunningLocalCms(dir)).toBeUndefined();
    const cms = await startTestCms({ dataDir: dir });
    expect(await findRunningLocalCms(dir)).toEqual({ pid: process.pid, url: cms.url });
    await cms.stop();
  });

  it('says when the port is taken', async () => {
    const first = await startTestCms();
    try {
      const port = Number(new URL(first.url).port);
      const dir = await dataDir();
      await expect(startLocalCms({ dataDir: dir, token: TOKEN, port })).rejects.toThrow(
        `The local CMS could not listen on 127.0.0.1:${port}: port ${port} on 127.0.0.1 is already in use; pick ` +
          `another with --port (0 = any free port).`,
      );
      expect(await findRunningLocalCms(dir)).toBeUndefined();
    } finally {
      await first.stop();
    }
  });
});

describe('persistence', () => {
  it('keeps every record across a restart, and ids keep growing past deleted ones', async () => {
    const dir = await dataDir();
    let cms = await startTestCms({ dataDir: dir });
    const category = await ok(cms, {
      resource: 'category',
      action: 'add',
      data: { name: 'News', slug: 'news' },
    });
    const first = await ok(cms, {
      resource: 'article',
      action: 'add',
      data: { title: 'One', category_id: category.id, extra: { a: [1, 2] } },
    });
    const second = await ok(cms, { resource: 'article', action: 'add', data: { title: 'Two' } });
    const edited = await ok(cms, {
      resource: 'article',
      action: 'edit',
      id: first.id,
      data: { title: 'One!' },
    });
    await ok(cms, { resource: 'article', action: 'delete', id: second.id });
    await cms.stop();

    cms = await startTestCms({ dataDir: dir });
    expect(await ok(cms, { resource: 'article', action: 'get' })).toEqual({
      items: [edited],
      total: 1,
      limit: 50,
      offset: 0,
    });
    expect(await ok(cms, { resource: 'category', action: 'get', id: category.id })).toEqual(category);
    // id 2 was the highest and is deleted: only the counter file remembers it was used.
    expect((await ok(cms, { resource: 'article', action: 'add', data: { title: 'Three' } })).id).toBe(3);
    await cms.stop();
  });

  it('stores one JSON file per record and a counter file', async () => {
    const dir = await dataDir();
    const cms = await startTestCms({ dataDir: dir });
    const page = await ok(cms, { resource: 'page', action: 'add', data: { title: 'About' } });
    await ok(cms, { resource: 'page', action: 'add', data: { title: 'Gone' } });
    await ok(cms, { resource: 'page', action: 'delete', id: 2 });
    await cms.stop();
    expect(await readdir(join(dir, 'records', 'page'))).toEqual(['1.json']);
    expect(JSON.parse(await readFile(join(dir, 'records', 'page', '1.json'), 'utf8'))).toEqual(page);
    expect(JSON.parse(await readFile(join(dir, 'counters.json'), 'utf8'))).toMatchObject({
      page: 3,
      article: 1,
    });
  });

  it('gives 200 concurrent adds 200 distinct ids, all on disk', async () => {
    const cms = await startTestCms();
    try {
      const created = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          ok(cms, { resource: 'article', action: 'add', data: { title: `Concurrent ${i}`, slug: `c-${i}` } }),
        ),
      );
      const ids = created.map((a) => a.id as number).sort((a, b) => a - b);
      expect(ids).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      expect((await ok(cms, { resource: 'article', action: 'get', limit: 1 })).total).toBe(200);
      expect((await readdir(join(cms.dataDir, 'records', 'article'))).length).toBe(200);
    } finally {
      await cms.stop();
    }
  });

  it('keeps on disk exactly what memory holds after many concurrent edits and deletes', async () => {
    const dir = await dataDir();
    let cms = await startTestCms({ dataDir: dir });
    const ids = (
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          ok(cms, { resource: 'page', action: 'add', data: { title: `P${i}` } }),
        ),
      )
    ).map((p) => p.id as number);
    await Promise.all([
      ...Array.from({ length: 60 }, (_, i) =>
        ok(cms, { resource: 'page', action: 'edit', id: ids[i % 10], data: { title: `edit ${i}` } }),
      ),
      ...ids.slice(10).map((id) => ok(cms, { resource: 'page', action: 'delete', id })),
    ]);
    const before = await ok(cms, { resource: 'page', action: 'get', limit: 100 });
    expect(before.total).toBe(10);
    await cms.stop();
    cms = await startTestCms({ dataDir: dir });
    expect(await ok(cms, { resource: 'page', action: 'get', limit: 100 })).toEqual(before);
    expect((await ok(cms, { resource: 'page', action: 'add', data: { title: 'next' } })).id).toBe(21);
    await cms.stop();
  });

  it('ignores and sweeps temp files a crash left behind', async () => {
    const dir = await dataDir();
    let cms = await startTestCms({ dataDir: dir });
    const article = await ok(cms, { resource: 'article', action: 'add', data: { title: 'Kept' } });
    await cms.stop();
    const articles = join(dir, 'records', 'article');
    await writeFile(join(articles, '.1.json.0a1b2c.tmp'), '{"id":1,"title":"half-writ');
    await writeFile(join(articles, '.2.json.0a1b2c.tmp'), '');
    await mkdir(join(dir, 'media', '.incoming'), { recursive: true });
    await writeFile(join(dir, 'media', '.incoming', '.abc.tmp'), 'partial download');
    await mkdir(join(dir, 'media', '9'), { recursive: true });
    await writeFile(join(dir, 'media', '9', 'orphan.png'), 'moved but never recorded');

    cms = await startTestCms({ dataDir: dir });
    expect((await ok(cms, { resource: 'article', action: 'get' })).items).toEqual([article]);
    expect(await readdir(articles)).toEqual(['1.json']);
    expect(await readdir(join(dir, 'media', '.incoming'))).toEqual([]);
    expect(await readdir(join(dir, 'media'))).toEqual(['.incoming']);
    expect((await ok(cms, { resource: 'article', action: 'add', data: { title: 'Next' } })).id).toBe(2);
    await cms.stop();
  });

  it('refuses to start on a record file that is not JSON, naming the file', async () => {
    const dir = await dataDir();
    await mkdir(join(dir, 'records', 'user'), { recursive: true });
    await writeFile(join(dir, 'records', 'user', '4.json'), '{"id": 4, "name": ');
    await expect(startLocalCms({ dataDir: dir, token: TOKEN, port: 0 })).rejects.toThrow(
      new RegExp(
        `^The local CMS data file ${join(dir, 'records', 'user', '4.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ` +
          `is not valid JSON \\(.+\\)\\. Restore it from a backup or remove it\\.$`,
      ),
    );
  });

  it('loads 10,000 records quickly and answers filtered reads over them', async () => {
    const dir = await dataDir();
    const articles = join(dir, 'records', 'article');
    await mkdir(articles, { recursive: true });
    const stamp = '2024-01-01T00:00:00.000Z';
    for (let start = 1; start <= 10_000; start += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, i) => {
          const id = start + i;
          const record = {
            id,
            title: `Doc ${id}`,
            slug: `doc-${id}`,
            body: `<p>${'lorem '.repeat(50)}</p>`,
            status: id % 2,
            created_at: stamp,
            updated_at: stamp,
          };
          return writeFile(join(articles, `${id}.json`), JSON.stringify(record));
        }),
      );
    }
    const started = performance.now();
    const cms = await startTestCms({ dataDir: dir });
    const loadMs = performance.now() - started;
    try {
      expect(loadMs).toBeLessThan(5_000);
      const t0 = performance.now();
      const found = await ok(cms, {
        resource: 'article',
        action: 'get',
        filters: { slug: 'doc-9876' },
        fields: ['id'],
      });
      const last = await ok(cms, {
        resource: 'article',
        action: 'get',
        order_by: 'title DESC',
        limit: 100,
        offset: 9_900,
        fields: ['id'],
      });
      expect(performance.now() - t0).toBeLessThan(1_000);
      expect(found).toEqual({ items: [{ id: 9876 }], total: 1, limit: 50, offset: 0 });
      expect(last.items).toHaveLength(100);
      const added = await ok(cms, { resource: 'article', action: 'add', data: { title: 'Doc 10001' } });
      expect(added.id).toBe(10_001);
      const reply = await call(cms, { resource: 'article', action: 'get', filters: { status: 1 }, limit: 1 });
      expect((reply.body as { data: { total: number } }).data.total).toBe(5_000);
    } finally {
      await cms.stop();
    }
  });
});
