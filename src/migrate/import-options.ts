import type { MigrationReport } from './report.js';

/** What every importer is given: where the export is, where content goes, and what to report to. */
export interface ImportOptions {
  /** The export, as the user named it (for messages), and its absolute path. */
  file: string;
  absPath: string;
  projectDir: string;
  contentDir: string;
  force: boolean;
  report: MigrationReport;
  /** Called after each item of the second pass. */
  onProgress?: (done: number, total: number) => void;
}
