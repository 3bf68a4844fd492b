import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { MEDIA_EXTENSIONS } from '../resources.js';

const TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp',
  svg: 'image/svg+xml', avif: 'image/avif', pdf: 'application/pdf', mp4: 'video/mp4',
};

/**
 * Serves the media files of content/ on loopback, so the local CMS can fetch them with
 * `upload_from_url` without any public URL. Only media extensions are served, and nothing
 * outside content/.
 */
export async function serveContent(contentDir: string): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const root = path.resolve(contentDir);
  const server = createServer(async (req, res) => {
    const requested = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = path.resolve(root, `.${requested}`);
    const ext = path.extname(file).slice(1).toLowerCase();
    const inside = file.startsWith(root + path.sep);
    const info = inside && (MEDIA_EXTENSIONS as readonly string[]).includes(ext) ? await stat(file).catch(() => undefined) : undefined;
    if (req.method !== 'GET' || !info?.isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[ext] ?? 'application/octet-stream', 'content-length': info.size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
