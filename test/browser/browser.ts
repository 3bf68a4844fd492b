import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createBrotliDecompress } from 'node:zlib';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium package, used when it is there. */
const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** Only an explicit opt-out skips the browser tests; a missing browser is a failure. */
export const SKIP_BROWSER = process.env.CMS_SYNC_SKIP_BROWSER === '1';

// Without the background-networking flags Chromium dials out at start-up, and on a closed
// network those refused connections slow or stall the launch.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile (playwright wants it as userDataDir, not as an arg). */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = await findChromium();
  const profile = await mkdtemp(path.join(tmpdir(), 'cms-sync-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ARGS,
    viewport: { width: 1100, height: 900 },
    timeout: 20_000,
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** CHROMIUM_PATH if set, else the system's Chromium, else the one the devDependencies ship. */
async function findChromium(): Promise<string> {
  const chosen = process.env.CHROMIUM_PATH;
  if (chosen) {
    if (!existsSync(chosen)) throw new Error(`CHROMIUM_PATH is ${chosen}, which does not exist.`);
    return chosen;
  }
  if (existsSync(SYSTEM_CHROMIUM)) return SYSTEM_CHROMIUM;
  return packagedChromium();
}

/**
 * The Chromium inside the @sparticuz/chromium package (a brotli-compressed headless shell for
 * x64 Linux), so a fresh `npm ci` can run these tests without a system browser or a download.
 * Unpacked once per package version under node_modules/.cache. Not through the package's own
 * `executablePath()`: that unpacks to a fixed /tmp/chromium shared by every checkout and user
 * of the machine, and takes whatever file is there, even one another process is still writing.
 */
async function packagedChromium(): Promise<string> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `No Chromium found: ${SYSTEM_CHROMIUM} is missing, and the Chromium that @sparticuz/chromium ships runs ` +
        `on x64 Linux only (this is ${process.platform}/${process.arch}). Set CHROMIUM_PATH to a Chromium binary, ` +
        'or CMS_SYNC_SKIP_BROWSER=1 to skip these tests on purpose.',
    );
  }
  // The package's entry is build/cjs/index.cjs; the compressed files sit in bin/ at its root.
  const packageDir = path.join(
    path.dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')),
    '..',
    '..',
  );
  const { version } = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8')) as {
    version: string;
  };
  const packed = path.join(packageDir, 'bin', 'chromium.br');
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const cache = path.join(root, 'node_modules', '.cache', 'cms-sync-chromium', version);
  const binary = path.join(cache, 'chromium');
  if (existsSync(binary)) return binary;
  await mkdir(cache, { recursive: true });
  // Written beside it under a name of its own, then renamed: a reader sees the whole binary or none.
  const partial = `${binary}.${process.pid}.partial`;
  try {
    await pipeline(
      createReadStream(packed),
      createBrotliDecompress(),
      createWriteStream(partial, { mode: 0o755 }),
    );
    await rename(partial, binary);
  } finally {
    await rm(partial, { force: true });
  }
  return binary;
}
