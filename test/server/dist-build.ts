import { spawnSync } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The kill -9 test runs the built server (dist/server) in a child process. `npm test` builds dist/
 * first; when run alone, build it here if it is missing or older than src/server. tsc emits even
 * when other folders have type errors, so its exit code is not checked — only that the files we
 * need exist afterwards.
 */
export async function ensureBuilt(): Promise<void> {
  const built = await mtime(join(ROOT, 'dist', 'server', 'index.js'));
  if (built >= (await newest(join(ROOT, 'src', 'server')))) return;
  spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    { cwd: ROOT, stdio: 'ignore' },
  );
  if ((await mtime(join(ROOT, 'dist', 'server', 'index.js'))) === 0)
    throw new Error('could not build dist/: run `npm run build` and look at its errors');
}

async function mtime(path: string): Promise<number> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return 0;
  }
}

async function newest(dir: string): Promise<number> {
  let latest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, await mtime(join(entry.parentPath, entry.name)));
  }
  return latest;
}
