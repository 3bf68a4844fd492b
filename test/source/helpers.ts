import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A throwaway project: `files` maps paths relative to the project to their contents. */
export async function makeProject(
  files: Record<string, string | Uint8Array>,
): Promise<{ dir: string; contentDir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-source-'));
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(dir, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
  return {
    dir,
    contentDir: path.join(dir, 'content'),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
