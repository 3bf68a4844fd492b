import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium package; CHROMIUM_PATH points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Only an explicit opt-out skips the browser tests; a missing browser is a failure. */
export const SKIP_BROWSER = process.env.CMS_SYNC_SKIP_BROWSER === '1';

// Without the background-networking flags Chromium dials out at start-up, and on a closed
// network those refused connections slow or stall the launch.
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile (playwright wants it as userDataDir, not as an arg). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}, so the local CMS page cannot be checked in a browser.\n` +
        'Install it (as root: apt-get update && apt-get install -y --no-install-recommends chromium), ' +
        'or set CHROMIUM_PATH to a Chromium binary, or set CMS_SYNC_SKIP_BROWSER=1 to skip these tests on purpose.',
    );
  }
  const profile = await mkdtemp(path.join(tmpdir(), 'cms-sync-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1100, height: 900 }, timeout: 20_000 });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
