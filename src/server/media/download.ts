import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { request, type Dispatcher } from 'undici';
import { ApiError } from '../http/envelope.js';
import { TEMP_SUFFIX } from '../storage/atomic-write.js';
import { checkUploadHost, type UploadHostRules } from './host-rules.js';
import { chooseMime, filenameFor } from './mime.js';

export interface DownloadLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
}

export const DEFAULT_DOWNLOAD_LIMITS: DownloadLimits = {
  maxBytes: 50 * 1024 * 1024,
  timeoutMs: 15_000,
  maxRedirects: 5,
};

/** A fetched file, fsynced in a temp file, waiting to be moved into the media library. */
export interface Download {
  tempPath: string;
  size: number;
  sha256: string;
  mime: string;
  filename: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches `sourceUrl` (http/https only, loopback included: cms-sync serves local content files
 * on 127.0.0.1 for this) into a temp file under `tempDir`. Redirects are followed by hand so
 * each hop's scheme is checked; the whole exchange shares one timeout; the size cap aborts the
 * download as soon as it is crossed rather than after buffering the file.
 */
export async function download(
  sourceUrl: string,
  tempDir: string,
  dispatcher: Dispatcher,
  limits: DownloadLimits = DEFAULT_DOWNLOAD_LIMITS,
  hosts: UploadHostRules = {},
): Promise<Download> {
  let url = parseHttpUrl(sourceUrl, 'data.url', hosts);
  const signal = AbortSignal.timeout(limits.timeoutMs);
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await request(url, {
        method: 'GET',
        dispatcher,
        signal,
        headers: { 'user-agent': 'cms-sync-local-cms' },
      });
      if (REDIRECTS.has(response.statusCode)) {
        await response.body.dump();
        const location = header(response.headers, 'location');
        if (!location)
          throw new ApiError(
            502,
            `${shown(url)} answered HTTP ${response.statusCode} without a Location header.`,
          );
        if (redirects >= limits.maxRedirects)
          throw new ApiError(400, `${shown(sourceUrl)} redirects more than ${limits.maxRedirects} times.`);
        url = parseHttpUrl(new URL(location, url).href, `The redirect from ${shown(url)}`, hosts);
        continue;
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        await response.body.dump();
        // An origin 4xx will not change on retry (400); a 5xx might (502, which clients retry).
        throw new ApiError(
          response.statusCode >= 500 ? 502 : 400,
          `Could not fetch ${shown(url)}: the server answered HTTP ${response.statusCode}.`,
        );
      }
      const declared = Number(header(response.headers, 'content-length'));
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        response.body.destroy();
        throw tooLarge(url, limits);
      }
      const mime = chooseMime(header(response.headers, 'content-type'), new URL(url).pathname);
      const filename = filenameFor(new URL(sourceUrl), mime);
      return { ...(await saveBody(response.body, tempDir, url, limits)), mime, filename };
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (signal.aborted)
      throw new ApiError(504, `Fetching ${shown(sourceUrl)} took longer than ${limits.timeoutMs / 1000} s.`);
    throw new ApiError(502, `Could not fetch ${shown(url)}: ${(error as Error).message}.`);
  }
}

async function saveBody(
  body: Dispatcher.ResponseData['body'],
  tempDir: string,
  url: string,
  limits: DownloadLimits,
): Promise<Omit<Download, 'mime' | 'filename'>> {
  await mkdir(tempDir, { recursive: true });
  const tempPath = join(tempDir, `.${randomBytes(8).toString('hex')}${TEMP_SUFFIX}`);
  const file = await open(tempPath, 'w', 0o644);
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limits.maxBytes) {
        body.destroy();
        throw tooLarge(url, limits);
      }
      hash.update(chunk);
      await file.write(chunk);
    }
    await file.sync();
  } catch (error) {
    await file.close();
    await rm(tempPath, { force: true });
    throw error;
  }
  await file.close();
  return { tempPath, size, sha256: hash.digest('hex') };
}

function parseHttpUrl(value: string, what: string, hosts: UploadHostRules): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ApiError(
      400,
      `${what} must be an absolute http or https URL, got ${JSON.stringify(value.slice(0, 200))}.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ApiError(
      400,
      `${what} must use http or https; ${url.protocol} URLs cannot be uploaded. Serve the file over HTTP and pass ` +
        `that URL.`,
    );
  }
  checkUploadHost(url, hosts, what);
  return url.href;
}

function tooLarge(url: string, limits: DownloadLimits): ApiError {
  return new ApiError(
    400,
    `The file at ${shown(url)} is larger than ${limits.maxBytes / 1024 / 1024} MiB, the upload limit.`,
  );
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A URL as quoted in messages and kept for display: without credentials it might carry. */
export function shown(value: string): string {
  try {
    const url = new URL(value);
    url.username = '';
    url.password = '';
    return url.href;
  } catch {
    return value;
  }
}
