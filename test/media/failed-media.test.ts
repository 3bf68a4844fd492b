import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openFailedMedia } from '../../src/media/failed-media.js';
import { createMediaResolver } from '../../src/media/resolve-media.js';

const HOUR = 60 * 60 * 1000;
const url = 'https://cdn.example/photo.png';

describe('remote images that failed are remembered, and tried again once the retry is due', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const resolverAt = (memory: ReturnType<typeof openFailedMedia>, now: Date, retryAll = false) =>
    createMediaResolver({
      projectDir: dir!,
      contentDir: path.join(dir!, 'content'),
      canServeLocalFiles: true,
      failures: { memory, retryAfterMs: 24 * HOUR, retryAll, now },
    });

  it('is missing for 24 hours after the failure (read from .cms-sync/), then uploaded again', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-failed-'));
    const at = new Date('2026-11-20T10:00:00Z');
    await openFailedMedia(dir, () => at).remember(url, 'HTTP 502');
    const memory = openFailedMedia(dir);
    expect(memory.get(url)).toEqual({ at: at.toISOString(), message: 'HTTP 502' });

    const soon = await resolverAt(memory, new Date(at.getTime() + 23 * HOUR)).resolve(url, 'x.md');
    expect(soon).toMatchObject({ ok: false, missing: true });
    expect(!soon.ok && soon.message).toBe(
      `image \`${url}\` could not be uploaded at 2026-11-20T10:00:00.000Z (HTTP 502); it is tried again after ` +
        '2026-11-21T10:00:00.000Z, or now with --retry-failed-media',
    );
    const due = await resolverAt(memory, new Date(at.getTime() + 24 * HOUR)).resolve(url, 'x.md');
    expect(due).toMatchObject({ ok: true, source: { kind: 'url', url } });
    const forced = await resolverAt(memory, new Date(at.getTime() + HOUR), true).resolve(url, 'x.md');
    expect(forced.ok).toBe(true);

    await memory.forget(url);
    expect(openFailedMedia(dir).get(url)).toBeUndefined();
  });
});
