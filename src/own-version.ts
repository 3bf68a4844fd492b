import { createRequire } from 'node:module';

/** The version in cms-sync's own package.json, found by the package's own name wherever it is installed. */
export function packageVersion(): string {
  return (createRequire(import.meta.url)('cms-sync/package.json') as { version: string }).version;
}
