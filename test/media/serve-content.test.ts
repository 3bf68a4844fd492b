import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeProject } from '../source/helpers.js';

// Reads of files whose name holds `unreadable` fail, as on a disk error or a file without read
// permission (the tests may run as root, for whom permissions do not stop a read).
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const open: typeof real.open = async (file, ...rest) => {
    const name = String(file);
    if (name.includes('unreadable-open'))
      throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    const handle = await real.open(file, ...rest);
    if (!name.includes('unreadable-read')) return handle;
    const info = await handle.stat();
    await handle.close();
    const failing = () =>
      new Readable({
        read() {
          this.destroy(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }));
        },
      });
    return {
      stat: async () => info,
      close: async () => {},
      createReadStream: failing,
    } as unknown as typeof handle;
  };
  return { ...real, default: { ...real, open }, open };
});

const { serveContent } = await import('../../src/media/serve-content.js');

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function serve(files: Record<string, string>) {
  const project = await makeProject(files);
  cleanups.push(project.cleanup);
  await mkdir(project.contentDir, { recursive: true });
  const server = await serveContent(project.contentDir);
  cleanups.unshift(server.close);
  const get = async (pathname: string) => {
    const response = await fetch(new URL(pathname.replace(/^\//, ''), server.baseUrl));
    return { status: response.status, body: await response.text().catch(() => '(cut short)') };
  };
  return { project, get, baseUrl: server.baseUrl };
}

describe('the content server (content/ for the local CMS)', () => {
  it('serves a media file under content/', async () => {
    const { get } = await serve({ 'content/images/a.png': 'PNG' });
    expect(await get('/images/a.png')).toEqual({ status: 200, body: 'PNG' });
  });

  it('answers a path that does not decode with 400 and goes on serving', async () => {
    const { get } = await serve({ 'content/images/a.png': 'PNG' });
    expect((await get('/%ZZ')).status).toBe(400);
    expect((await get('/images/%E0%A4%A.png')).status).toBe(400);
    expect(await get('/images/a.png')).toEqual({ status: 200, body: 'PNG' });
  });

  it(
    'answers a file it cannot open with 403, and one whose read fails by cutting the answer short; it goes on ' +
      'serving',
    async () => {
      const { get, baseUrl } = await serve({
        'content/images/unreadable-open.png': 'X',
        'content/images/unreadable-read.png': 'X'.repeat(1000),
        'content/images/a.png': 'PNG',
      });
      expect((await get('/images/unreadable-open.png')).status).toBe(403);
      const cut = await fetch(new URL('images/unreadable-read.png', baseUrl)).then(
        (r) => r.text().then((t) => t.length),
        (error: unknown) => error,
      );
      expect(cut).not.toBe(1000);
      expect(await get('/images/a.png')).toEqual({ status: 200, body: 'PNG' });
    },
  );

  it('never serves a file whose real path is outside content/', async () => {
    const { project, get } = await serve({ 'outside/secret.png': 'SECRET', 'content/images/a.png': 'PNG' });
    await symlink(
      path.join(project.dir, 'outside/secret.png'),
      path.join(project.contentDir, 'images/x.png'),
    );
    await symlink(path.join(project.dir, 'outside'), path.join(project.contentDir, 'linked'));
    await symlink('/etc/passwd', path.join(project.contentDir, 'images/passwd.png'));
    expect((await get('/images/x.png')).status).toBe(403);
    expect((await get('/linked/secret.png')).status).toBe(403);
    expect((await get('/images/passwd.png')).status).toBe(403);
    expect((await get('/images/x.png')).body).not.toContain('SECRET');
    expect((await get('/../outside/secret.png')).status).toBe(404);
    expect((await get('/images/%2e%2e/%2e%2e/outside/secret.png')).status).toBe(404);
  });

  it('serves a link that stays inside content/', async () => {
    const { project, get } = await serve({ 'content/images/a.png': 'PNG' });
    await writeFile(path.join(project.contentDir, 'b.png'), 'B');
    await symlink(path.join(project.contentDir, 'b.png'), path.join(project.contentDir, 'images/b.png'));
    expect(await get('/images/b.png')).toEqual({ status: 200, body: 'B' });
  });
});
