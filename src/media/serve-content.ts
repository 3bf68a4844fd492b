import type { Stats } from 'node:fs';
import { realpath, type FileHandle } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { MEDIA_EXTENSIONS } from '../resources.js';
import { mimeOfExtension } from '../server/media/mime.js';
import { isInside } from '../source/content-paths.js';
import { openRegular } from '../source/open-regular.js';

/**
 * Serves the media files of content/ on loopback, so the local CMS can fetch them with
 * `upload_from_url` without any public URL. Only media extensions are served, and nothing whose
 * real path (symbolic links followed) is outside content/.
 *
 * This server runs inside `watch`, `start` and `apply`: a request that fails in any way is
 * answered with a status and never thrown, since an error escaping the handler would end the
 * whole process and leave its lock behind.
 */
export async function serveContent(
  contentDir: string,
): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const root = await realpath(contentDir).catch(() => path.resolve(contentDir));
  const server = createServer((req, res) => {
    handle(root, req, res).catch(() => answer(res, 500, 'could not serve the file'));
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

async function handle(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET') return answer(res, 405, 'only GET is served');
  let requested: string;
  try {
    requested = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  } catch {
    return answer(res, 400, 'bad path');
  }
  const file = path.resolve(root, `.${requested}`);
  const ext = path.extname(file).slice(1).toLowerCase();
  if (
    requested.includes('\0') ||
    !isInside(root, file) ||
    !(MEDIA_EXTENSIONS as readonly string[]).includes(ext)
  ) {
    return answer(res, 404, 'not found');
  }
  // The real path decides: a link under content/ to a file elsewhere is not served.
  const real = await realpath(file).catch(() => undefined);
  if (real === undefined) return answer(res, 404, 'not found');
  if (!isInside(root, real)) return answer(res, 403, 'outside content/');

  let handle: FileHandle;
  let info: Stats;
  try {
    // Not through a link or into a pipe put there since the realpath, nor through a folder
    // swapped for a link out of content/ (open-regular.ts).
    ({ handle, stat: info } = await openRegular(real, root));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTREG' || code === 'EOUTSIDE'
      ? answer(res, 404, 'not found')
      : answer(res, 403, 'not readable');
  }
  try {
    res.writeHead(200, {
      'content-type': mimeOfExtension(ext) ?? 'application/octet-stream',
      'content-length': info.size,
    });
  } catch {
    await handle.close().catch(() => {});
    return answer(res, 500, 'could not read the file');
  }
  const stream = handle.createReadStream();
  // A read that fails half-way cannot change the status any more: cut the response short, so the
  // client sees a truncated body rather than a complete-looking one.
  stream.on('error', () => res.destroy());
  res.on('close', () => stream.destroy());
  stream.pipe(res);
}

function answer(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'text/plain' }).end(`${text}\n`);
}
