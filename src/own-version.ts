import { createRequire } from 'node:module';

/** The version in cms-sync's own package.json, found by the package's own name wherever it is installed. */
export function packageVersion(): string {
  return (createRequire(import.meta.url)('cms-sync/package.json') as { version: string }).version;
}

/**
 * packageVersion, or 'unknown' for a copy of cms-sync whose package.json cannot be found (run
 * from a source checkout): for what only keys a cache by the version, which must not stop a run.
 */
export function versionOrUnknown(): string {
  try {
    return packageVersion();
  } catch {
    return 'unknown';
  }
}
