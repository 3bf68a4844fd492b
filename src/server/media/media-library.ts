import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { RecordStore } from '../storage/record-store.js';
import { fsyncDirectory } from '../storage/atomic-write.js';
import type { Download } from './download.js';

/**
 * The bytes of media files: `<data>/media/<id>/<filename>`, next to their records in
 * `<data>/records/media/`. Downloads land in `<data>/media/.incoming/` first.
 */
export class MediaLibrary {
  readonly root: string;
  readonly incomingDir: string;

  constructor(dataDir: string) {
    this.root = join(dataDir, 'media');
    this.incomingDir = join(this.root, '.incoming');
  }

  /**
   * Clears what a crash can leave: half-downloaded temp files, and file folders whose record was
   * never written (the crash came between moving the file and writing its record).
   */
  async sweep(store: RecordStore): Promise<void> {
    await rm(this.incomingDir, { recursive: true, force: true });
    await mkdir(this.incomingDir, { recursive: true });
    for (const name of await readdir(this.root)) {
      if (/^\d+$/.test(name) && !store.get('media', Number(name)))
        await rm(join(this.root, name), { recursive: true, force: true });
    }
  }

  /** Moves a finished download into place for media `id`, durably; call inside the store's queue. */
  async place(id: number, download: Download): Promise<void> {
    const dir = join(this.root, String(id));
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await rename(download.tempPath, join(dir, download.filename));
    await fsyncDirectory(dir);
    await fsyncDirectory(this.root);
  }

  async remove(id: number): Promise<void> {
    await rm(join(this.root, String(id)), { recursive: true, force: true });
  }

  /** Streams media `id` if `filename` is its file; false when there is no such file. */
  async serve(
    res: ServerResponse,
    id: number,
    filename: string,
    mime: string,
    method: string,
  ): Promise<boolean> {
    const path = join(this.root, String(id), filename);
    let size: number;
    try {
      size = (await stat(path)).size;
    } catch {
      return false;
    }
    res.writeHead(200, {
      'content-type': mime,
      'content-length': size,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      // An uploaded SVG or HTML file must not run script with this origin's authority.
      'content-security-policy': "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'",
    });
    if (method === 'HEAD') {
      res.end();
      return true;
    }
    createReadStream(path)
      .on('error', () => res.destroy())
      .pipe(res);
    return true;
  }
}
