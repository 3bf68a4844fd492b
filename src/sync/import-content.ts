import { stat } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { SyncError } from '../errors.js';
import type { MigrationReport } from '../migrate/report.js';
import type { SyncReporter } from './events.js';

export interface ImportContentOptions {
  projectDir: string;
  /** Read for the config's environment overrides. */
  env: NodeJS.ProcessEnv;
  /**
   * `wordpress` (a WXR file from Tools > Export), `ghost` (a JSON export from Settings > Labs >
   * Export), `hugo` or `jekyll` (a site's folder; `jekyll` also reads Eleventy sites).
   */
  source: 'wordpress' | 'ghost' | 'hugo' | 'jekyll';
  /** The export file (or, for hugo and jekyll, the site's folder), relative to the project. */
  file: string;
  /** Content folder to write into, relative to the project. @default the config's contentDir */
  out?: string;
  /** Overwrite files that already exist. @default false */
  force?: boolean;
  /** Ghost: the old site address, put where the export says __GHOST_URL__. */
  ghostUrl?: string;
  /** The path links to imported posts and pages are rewritten to; must contain `{slug}`. */
  linkPath?: string;
}

export interface ImportContentReport {
  /** Absolute path of the folder written into. */
  contentDir: string;
  /** Counts per folder, skips with their reasons, warnings and failures. */
  report: MigrationReport;
  ms: number;
}

/** Another CMS's export into content/ files; nothing is sent to any CMS. */
export async function importContent(
  options: ImportContentOptions,
  reporter: SyncReporter = () => {},
): Promise<ImportContentReport> {
  const { source, file, projectDir } = options;
  if (!['wordpress', 'ghost', 'hugo', 'jekyll'].includes(source)) {
    throw new SyncError(
      'CMS_SYNC_INPUT',
      `Unknown export type \`${String(source)}\`: use \`cms-sync import wordpress FILE.xml\`, ` +
        `\`import ghost FILE.json\`, \`import hugo SITE_DIR\` or \`import jekyll SITE_DIR\`.`,
    );
  }
  const site = source === 'hugo' || source === 'jekyll';
  const config = await loadConfig(projectDir, options.env);
  const contentDir = options.out ? path.resolve(projectDir, options.out) : config.contentDir;
  const absPath = path.resolve(projectDir, file);
  const info = await stat(absPath).catch(() => undefined);
  if (site ? !info?.isDirectory() : !info?.isFile())
    throw new SyncError(
      'CMS_SYNC_INPUT',
      `${file}: no such ${site ? 'folder' : 'file'} (looked in ${projectDir}).`,
    );

  const { MigrationReport } = await import('../migrate/report.js');
  const report = new MigrationReport();
  const common = {
    file,
    absPath,
    projectDir,
    contentDir,
    force: options.force === true,
    report,
    onProgress: (done: number, total: number) => reporter({ type: 'items', done, total }),
  };
  const started = Date.now();
  const linkPath = options.linkPath ? { linkPath: options.linkPath } : {};
  if (source === 'wordpress') {
    const { importWordPress } = await import('../migrate/wordpress.js');
    await importWordPress({ ...common, ...linkPath });
  } else if (source === 'ghost') {
    const { importGhost } = await import('../migrate/ghost.js');
    await importGhost({
      ...common,
      ...linkPath,
      ...(options.ghostUrl ? { ghostUrl: options.ghostUrl } : {}),
    });
  } else if (source === 'hugo') {
    const { importHugo } = await import('../migrate/hugo.js');
    await importHugo({ ...common, ...linkPath });
  } else {
    const { importJekyll } = await import('../migrate/jekyll.js');
    await importJekyll({ ...common, ...linkPath });
  }
  reporter({ type: 'items-done' });
  return { contentDir, report, ms: Date.now() - started };
}
