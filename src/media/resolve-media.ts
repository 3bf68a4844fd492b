import type { Stats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { sha256 } from '../sha256.js';
import { isInside } from '../source/content-paths.js';
import type { HashCache } from '../source/hash-cache.js';
import { kindOf, openRegular } from '../source/open-regular.js';
import { retryDue, type FailedMedia } from './failed-media.js';

/** Where an image comes from; `identity` is what "upload once" is keyed by. */
export type MediaSource =
  | { kind: 'existing'; id: number; identity: string }
  | { kind: 'url'; url: string; identity: string }
  | {
      kind: 'file';
      /** Path relative to content/, with forward slashes: appended to the public base URL. */
      contentPath: string;
      /** Path relative to the project, for messages. */
      file: string;
      sha256: string;
      identity: string;
    };

/**
 * `missing`: the image cannot be had — a local file that is not there, or a remote image the CMS
 * failed to fetch not long ago — so media.onMissing decides; any other failure is an error.
 */
export type ResolveResult =
  { ok: true; source: MediaSource } | { ok: false; message: string; missing?: boolean };

export interface MediaResolver {
  resolve(src: string, documentAbsPath: string): Promise<ResolveResult>;
  /** sha256 of a file under content/ (path relative to it), or undefined when it cannot be read. */
  hashFile(contentPath: string): Promise<string | undefined>;
}

/**
 * Resolves image references of documents. Local files are hashed once per run (many records
 * share an image), which is also what makes "one upload per distinct content" possible.
 */
export function createMediaResolver(options: {
  projectDir: string;
  contentDir: string;
  canServeLocalFiles: boolean;
  hashCache?: HashCache;
  /** Remote images that failed (see failed-media.ts), retried once `retryAfterMs` has passed or with `retryAll`. */
  failures?: { memory: FailedMedia; retryAfterMs: number; retryAll: boolean; now: Date } | undefined;
}): MediaResolver {
  const { hashCache } = options;
  // content/ itself may be a link; what is inside is judged against where it really is.
  const root = realpath(options.contentDir).catch(() => path.resolve(options.contentDir));
  // One realpath, one stat and at most one read per image and run, however many references it has.
  const reals = new Map<string, Promise<string | undefined>>();
  const stats = new Map<string, Promise<Stats | undefined>>();
  const hashes = new Map<string, Promise<string | undefined>>();
  const realOf = (absPath: string) => once(reals, absPath, () => realpath(absPath).catch(() => undefined));
  /** The file's real path if it is inside content/, 'outside' if a link leads out, undefined if it is not there. */
  const insideReal = async (absPath: string): Promise<string | 'outside' | undefined> => {
    const real = await realOf(absPath);
    if (real === undefined) return undefined;
    return isInside(await root, real) ? real : 'outside';
  };
  // Stat, read and hash the real path, never the link: what is checked is what is read.
  const statOf = (real: string) => once(stats, real, () => stat(real).catch(() => undefined));
  const hashOf = (absPath: string) =>
    once(hashes, absPath, async () => {
      const real = await insideReal(absPath);
      if (real === undefined || real === 'outside') return undefined;
      // The stat is taken before the read, never after: the cache records a stat no newer than the bytes hashed.
      const info = await statOf(real);
      if (!info?.isFile()) return undefined;
      const file = toPosix(path.relative(options.projectDir, absPath));
      const cached = hashCache?.get(file, info);
      if (cached) return cached;
      // Opened as a regular file inside content/, not a pipe or link put there since the stat.
      const sha = await openRegular(real, await root).then(
        async ({ handle }) => {
          try {
            return sha256(await handle.readFile());
          } finally {
            await handle.close();
          }
        },
        () => undefined,
      );
      if (sha) hashCache?.set(file, info, sha);
      return sha;
    });

  return {
    hashFile: (contentPath) => hashOf(path.join(options.contentDir, contentPath)),
    async resolve(src, documentAbsPath) {
      const trimmed = src.trim();
      const existing = /^cms-media:(\d+)$/.exec(trimmed);
      if (existing)
        return {
          ok: true,
          source: { kind: 'existing', id: Number(existing[1]), identity: `id:${existing[1]}` },
        };
      if (/^https?:\/\//i.test(trimmed)) {
        if (!URL.canParse(trimmed))
          return { ok: false, message: `image URL \`${trimmed}\` is not a valid URL` };
        const url = new URL(trimmed).href;
        const failed = options.failures?.memory.get(url);
        const { retryAfterMs = 0, retryAll = true, now = new Date() } = options.failures ?? {};
        if (failed && !retryAll && !retryDue(failed, retryAfterMs, now)) {
          const due = new Date(Date.parse(failed.at) + retryAfterMs).toISOString();
          return {
            ok: false,
            missing: true,
            message:
              `image \`${trimmed}\` could not be uploaded at ${failed.at} (${failed.message}); it is tried again ` +
              `after ${due}, or now with --retry-failed-media`,
          };
        }
        return { ok: true, source: { kind: 'url', url, identity: `url:${url}` } };
      }
      if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) || trimmed.startsWith('//')) {
        return {
          ok: false,
          message:
            `image \`${trimmed}\` has a scheme cms-sync cannot upload from: use a file under content/, an ` +
            `http(s) URL, or cms-media:<id>`,
        };
      }
      if (trimmed === '') return { ok: false, message: 'image has an empty source' };

      const withoutSuffix = trimmed.replace(/[?#].*$/, '');
      let decoded: string;
      try {
        decoded = decodeURI(withoutSuffix);
      } catch {
        decoded = withoutSuffix;
      }
      // "/images/a.png" is taken from the root of content/, anything else from the document's folder.
      const absPath = decoded.startsWith('/')
        ? path.join(options.contentDir, decoded)
        : path.resolve(path.dirname(documentAbsPath), decoded);
      const contentPath = path.relative(options.contentDir, absPath);
      if (contentPath.startsWith('..') || path.isAbsolute(contentPath)) {
        return {
          ok: false,
          message: `image \`${trimmed}\` is outside content/: move the file under content/ so it can be published`,
        };
      }
      const real = await insideReal(absPath);
      if (real === 'outside') {
        return {
          ok: false,
          message:
            `image \`${trimmed}\` is a symbolic link to ${await realOf(absPath)}, outside content/: cms-sync never ` +
            `uploads ` +
            'anything from outside content/; copy the file into content/ instead of linking to it',
        };
      }
      const info = real === undefined ? undefined : await statOf(real);
      if (info && !info.isFile()) {
        return {
          ok: false,
          message:
            `image \`${trimmed}\` is ${kindOf(info)}, not a regular file: cms-sync uploads only regular files; ` +
            'replace it with the image',
        };
      }
      if (!info) {
        return {
          ok: false,
          missing: true,
          message:
            `image \`${trimmed}\` not found (looked for ` +
            `${toPosix(path.relative(options.projectDir, absPath))}): fix the path or add the file`,
        };
      }
      if (!options.canServeLocalFiles) {
        return {
          ok: false,
          message:
            `image \`${trimmed}\` is a local file, but no public URL is configured for content/: set ` +
            `media.publicBaseUrl in sync.config.ts or CMS_MEDIA_BASE_URL so the CMS can fetch it`,
        };
      }
      const sha256 = await hashOf(absPath);
      if (!sha256) return { ok: false, message: `image \`${trimmed}\` could not be read` };
      return {
        ok: true,
        source: {
          kind: 'file',
          contentPath: toPosix(contentPath),
          file: toPosix(path.relative(options.projectDir, absPath)),
          sha256,
          identity: `sha256:${sha256}`,
        },
      };
    },
  };
}

/** The memoised value of `key`, made by `make` the first time it is asked for. */
function once<T>(memo: Map<string, T>, key: string, make: () => T): T {
  let value = memo.get(key);
  if (value === undefined) memo.set(key, (value = make()));
  return value;
}

/** The URL the CMS fetches a local file from: the public base plus the path, each segment encoded. */
export function publicUrlOf(contentPath: string, publicBaseUrl: string): string {
  const base = publicBaseUrl.endsWith('/') ? publicBaseUrl : `${publicBaseUrl}/`;
  return new URL(contentPath.split('/').map(encodeURIComponent).join('/'), base).href;
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}
