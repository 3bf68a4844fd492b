import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_TEMPLATE } from './config-template.js';
import { STARTER_CONTENT } from './starter-content.js';
import { WORKFLOW_TEMPLATE } from './workflow-template.js';

/**
 * What the state folder holds that must not be committed: the local CMS's data, the lock and
 * journal of a run in flight, and this checkout's own copy of the last state it saved.
 * `.cms-sync/state.json` is deliberately absent: it is committed.
 */
export const GITIGNORE_LINES = ['.cms-sync/local-cms/', '.cms-sync/lock', '.cms-sync/journal.jsonl', '.cms-sync/last-state.json', '.cms-sync/file-hashes.json', '.cms-sync/state-index.json'] as const;

export type ScaffoldOutcome = 'created' | 'overwritten' | 'skipped' | 'updated' | 'unchanged';

export interface ScaffoldEntry {
  file: string;
  outcome: ScaffoldOutcome;
  /** Why a file was skipped or what an update added. */
  note?: string;
}

/** Writes the starter project into `projectDir`; never overwrites a file unless `force`. */
export async function scaffold(projectDir: string, options: { force: boolean }): Promise<ScaffoldEntry[]> {
  const entries: ScaffoldEntry[] = [];
  const files: Record<string, string> = { 'sync.config.ts': CONFIG_TEMPLATE, '.github/workflows/cms-sync.yml': WORKFLOW_TEMPLATE };
  // Starter articles dropped into a content/ that already has files would be published to a
  // real CMS by the next apply, so an existing content/ is left alone unless --force.
  const contentHasFiles = await hasFiles(path.join(projectDir, 'content'));
  for (const [file, text] of Object.entries(STARTER_CONTENT)) {
    if (contentHasFiles && !options.force) entries.push({ file, outcome: 'skipped', note: 'content/ already has files' });
    else files[file] = text;
  }
  for (const [file, text] of Object.entries(files)) entries.push(await writeOne(projectDir, file, text, options.force));
  entries.push(await mergeGitignore(projectDir));
  return entries.sort((a, b) => a.file.localeCompare(b.file));
}

async function writeOne(projectDir: string, file: string, text: string, force: boolean): Promise<ScaffoldEntry> {
  const abs = path.join(projectDir, file);
  const exists = existsSync(abs);
  if (exists && !force) return { file, outcome: 'skipped', note: 'already exists' };
  await mkdir(path.dirname(abs), { recursive: true });
  await writeFile(abs, text);
  return { file, outcome: exists ? 'overwritten' : 'created' };
}

/** Appends only the ignore lines that are missing; never rewrites what the user wrote. */
async function mergeGitignore(projectDir: string): Promise<ScaffoldEntry> {
  const file = '.gitignore';
  const abs = path.join(projectDir, file);
  const current = existsSync(abs) ? await readFile(abs, 'utf8') : undefined;
  const present = new Set((current ?? '').split(/\r?\n/).map((line) => line.trim()));
  // A blanket `.cms-sync/` would also hide state.json, which must be committed: say so.
  const blanket = ['.cms-sync', '.cms-sync/', '/.cms-sync', '/.cms-sync/'].find((line) => present.has(line));
  const missing = GITIGNORE_LINES.filter((line) => !present.has(line) && !present.has(`/${line}`));
  if (missing.length === 0) return { file, outcome: 'unchanged', ...(blanket ? { note: blanketNote(blanket) } : {}) };
  const block = `# cms-sync: commit .cms-sync/state.json, ignore the rest of .cms-sync/\n${missing.join('\n')}\n`;
  const separator = current === undefined || current === '' ? '' : current.endsWith('\n') ? '\n' : '\n\n';
  await writeFile(abs, (current ?? '') + separator + block);
  const note = `added ${missing.join(', ')}${blanket ? `; ${blanketNote(blanket)}` : ''}`;
  return { file, outcome: current === undefined ? 'created' : 'updated', note };
}

function blanketNote(line: string): string {
  return `the line \`${line}\` also ignores .cms-sync/state.json, which should be committed: remove it`;
}

async function hasFiles(dir: string): Promise<boolean> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.length > 0;
}
