import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CmsRejectedError, CmsRetryableError } from '../remote/errors.js';
import { stableJson } from '../stable-json.js';
import { writeFileAtomic } from '../state/state-file.js';

export const FAILED_MEDIA_FILE = 'failed-media.json';

/** A remote image the CMS could not fetch, and when. */
export interface MediaFailure {
  /** ISO 8601. */
  at: string;
  message: string;
}

/**
 * Remote images the CMS failed to fetch, kept in `.cms-sync/failed-media.json` (keyed by source
 * URL, with the time), so that one dead image does not cost its retries on every run: until the
 * retry is due it counts as missing (media.onMissing) and is not sent.
 */
export interface FailedMedia {
  /** The failure of this URL, if one is remembered. */
  get(url: string): MediaFailure | undefined;
  remember(url: string, message: string): Promise<void>;
  forget(url: string): Promise<void>;
}

export function openFailedMedia(stateDir: string, now: () => Date = () => new Date()): FailedMedia {
  const file = path.join(stateDir, FAILED_MEDIA_FILE);
  let failures: Record<string, MediaFailure> = {};
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { failures?: Record<string, MediaFailure> };
    // A broken memory is no reason to stop a run: at worst an image is tried again.
    if (parsed && typeof parsed.failures === 'object') failures = { ...parsed.failures };
  } catch {
    failures = {};
  }
  // One write at a time, each of the whole memory: uploads fail concurrently.
  let writing: Promise<void> = Promise.resolve();
  const save = () => {
    const text = `${stableJson({ version: 1, failures }, 2)}\n`;
    writing = writing.then(() => writeFileAtomic(file, text)).catch(() => undefined);
    return writing;
  };
  return {
    get: (url) => (Object.hasOwn(failures, url) ? failures[url] : undefined),
    remember(url, message) {
      failures[url] = { at: now().toISOString(), message };
      return save();
    },
    forget(url) {
      if (!Object.hasOwn(failures, url)) return Promise.resolve();
      delete failures[url];
      return save();
    },
  };
}

/**
 * Whether an upload failed because of the image itself, as the CMS answered: it could not fetch
 * it (a 502/504 after its retries) or refused it (4xx). A CMS that cannot be reached, or fails on
 * its own, says nothing about the image.
 */
export function isImageFailure(error: unknown): boolean {
  if (error instanceof CmsRejectedError) return error.httpStatus !== 429;
  if (error instanceof CmsRetryableError) return error.httpStatus === 502 || error.httpStatus === 504;
  return false;
}

/** When a remembered failure may be tried again. */
export function retryDue(failure: MediaFailure, retryAfterMs: number, now: Date): boolean {
  const at = Date.parse(failure.at);
  return Number.isNaN(at) || now.getTime() - at >= retryAfterMs;
}
