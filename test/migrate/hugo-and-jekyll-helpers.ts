import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SITES = fileURLToPath(new URL('../fixtures/sites/', import.meta.url));

/** A temp project holding a copy of a fixture site as `site/`, so messages name `site/...`. */
export async function projectWithSite(name: string): Promise<{
  dir: string;
  read: (file: string) => Promise<string>;
  files: (folder?: string) => Promise<string[]>;
  /** Writes a site of these files (by path) as the folder `name` of the project. */
  site: (name: string, files: Record<string, string>) => Promise<void>;
  close: () => Promise<void>;
}> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-site-'));
  await cp(path.join(SITES, name), path.join(dir, 'site'), { recursive: true });
  return {
    dir,
    read: (file) => readFile(path.join(dir, file), 'utf8'),
    async files(folder = 'content') {
      const entries = await readdir(path.join(dir, folder), { recursive: true, withFileTypes: true });
      return entries
        .filter((e) => e.isFile())
        .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
        .sort();
    },
    async site(name, files) {
      for (const [file, text] of Object.entries(files)) {
        const at = path.join(dir, name, file);
        await mkdir(path.dirname(at), { recursive: true });
        await writeFile(at, text);
      }
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The import summary with its timing taken out. */
export function summary(stdout: string): string {
  return stdout.replace(/ in \d+\.\ds:/, ' in Xs:');
}
