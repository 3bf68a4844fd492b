import { constants, existsSync, lstatSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createFile, replaceFile } from '../replace-file.js';
import { CONFIG_FILES } from '../config/load-config.js';
import { CONFIG_TEMPLATE } from './config-template.js';
import { STARTER_CONTENT } from './starter-content.js';
import { WORKFLOW_TEMPLATE } from './workflow-template.js';

/**
 * What the state folder holds that must not be committed: the local CMS's data, the lock and
 * journal of a run in flight, this checkout's own copy of the last state it saved, and its caches.
 * The state itself (`.cms-sync/state.jsonl` and `state.log.jsonl`) is deliberately absent: it is committed.
 */
export const GITIGNORE_LINES = [
  '.cms-sync/local-cms/',
  '.cms-sync/lock',
  '.cms-sync/lock.break-*',
  '.cms-sync/.lock.*.tmp',
  '.cms-sync/journal.jsonl',
  '.cms-sync/last-state.json',
  '.cms-sync/file-hashes.json',
  '.cms-sync/clean-run.json',
  '.cms-sync/content-folders*',
  '.cms-sync/state-index.json',
  '.cms-sync/listing-cache/',
] as const;

export type ScaffoldOutcome = 'created' | 'overwritten' | 'skipped' | 'updated' | 'unchanged';

export interface ScaffoldEntry {
  file: string;
  outcome: ScaffoldOutcome;
  /** Why a file was skipped, what an update added, or where the replaced version was saved. */
  note?: string;
  /** A managed file kept as it is that `--force` would rewrite. */
  rewritable?: boolean;
}

export interface ScaffoldOptions {
  /** Rewrite the managed files (config and workflow) that differ, each saved first beside itself. */
  force: boolean;
  /** The clock, for the name of the saved copies. */
  now?: () => Date;
}

/**
 * Writes the starter project into `projectDir`. Never overwrites a file unless `force`, and even
 * then only the files init manages: `sync.config.ts` and the workflow, each saved first as
 * `<file>.<UTC time>.bak`. `.gitignore` only ever gains missing lines. The starter `content/` goes
 * only into a missing or empty `content/`: anything in there is the site, which the next apply
 * would publish, so no flag makes init write into it.
 */
export async function scaffold(projectDir: string, options: ScaffoldOptions): Promise<ScaffoldEntry[]> {
  const entries: ScaffoldEntry[] = [];
  const stamp = backupStamp((options.now ?? (() => new Date()))());
  const managed: Record<string, string> = {
    'sync.config.ts': CONFIG_TEMPLATE,
    '.github/workflows/cms-sync.yml': WORKFLOW_TEMPLATE,
  };
  // A sync.config.ts beside the user's sync.config.js would be the one cms-sync loads.
  const otherConfig = CONFIG_FILES.find(
    (name) => name !== 'sync.config.ts' && existsSync(path.join(projectDir, name)),
  );
  for (const [file, text] of Object.entries(managed)) {
    if (file === 'sync.config.ts' && otherConfig && !existsSync(path.join(projectDir, file))) {
      entries.push({
        file,
        outcome: 'skipped',
        note: `${otherConfig} is the config: init leaves it as it is`,
      });
    } else {
      entries.push(await writeManaged(projectDir, file, text, options.force, stamp));
    }
  }
  const contentInUse = await holdsAnything(path.join(projectDir, 'content'));
  for (const [file, text] of Object.entries(STARTER_CONTENT)) {
    if (!contentInUse) entries.push(await writeNew(projectDir, file, text));
    else
      entries.push({ file, outcome: 'skipped', note: 'content/ already has files: init never writes there' });
  }
  entries.push(await mergeGitignore(projectDir));
  return entries.sort((a, b) => a.file.localeCompare(b.file));
}

async function writeManaged(
  projectDir: string,
  file: string,
  text: string,
  force: boolean,
  stamp: string,
): Promise<ScaffoldEntry> {
  const abs = path.join(projectDir, file);
  const current = await readFile(abs, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (current === undefined) return writeNew(projectDir, file, text);
  if (current === text) return { file, outcome: 'unchanged' };
  if (!force) return { file, outcome: 'skipped', note: 'already exists', rewritable: true };
  const saved = await saveBeside(abs, stamp);
  await replaceFile(abs, text);
  return { file, outcome: 'overwritten', note: `previous version saved as ${path.basename(saved)}` };
}

/** Creates `file`; one that appeared meanwhile is left as it is. */
async function writeNew(projectDir: string, file: string, text: string): Promise<ScaffoldEntry> {
  const abs = path.join(projectDir, file);
  await mkdir(path.dirname(abs), { recursive: true });
  try {
    // Whole or not at all: an init stopped halfway leaves no file cut short that a rerun would keep.
    await createFile(abs, text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      return { file, outcome: 'skipped', note: 'already exists' };
    throw error;
  }
  return { file, outcome: 'created' };
}

/**
 * Copies `abs` to `<abs>.<stamp>.bak`, never over an earlier copy. The suffix comes last so the
 * copy is inert: Actions runs only `.yml`/`.yaml` workflows and cms-sync loads only `sync.config.*`
 * files that end in a script extension.
 */
async function saveBeside(abs: string, stamp: string): Promise<string> {
  for (let n = 0; ; n++) {
    const candidate = `${abs}.${stamp}${n === 0 ? '' : `-${n}`}.bak`;
    try {
      await copyFile(abs, candidate, constants.COPYFILE_EXCL);
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** `20261126T064510Z`: sorts by time and has no character a file system or shell dislikes. */
function backupStamp(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/** Appends only the ignore lines that are missing; never rewrites what the user wrote. */
async function mergeGitignore(projectDir: string): Promise<ScaffoldEntry> {
  const file = '.gitignore';
  const abs = path.join(projectDir, file);
  const current = existsSync(abs) ? await readFile(abs, 'utf8') : undefined;
  const present = new Set((current ?? '').split(/\r?\n/).map((line) => line.trim()));
  // A blanket `.cms-sync/` would also hide the state, which must be committed: say so.
  const blanket = ['.cms-sync', '.cms-sync/', '/.cms-sync', '/.cms-sync/'].find((line) => present.has(line));
  const missing = GITIGNORE_LINES.filter((line) => !present.has(line) && !present.has(`/${line}`));
  if (missing.length === 0)
    return { file, outcome: 'unchanged', ...(blanket ? { note: blanketNote(blanket) } : {}) };
  const header =
    '# cms-sync: commit .cms-sync/state.jsonl and state.log.jsonl, ignore the rest of .cms-sync/';
  const block = `${header}\n${missing.join('\n')}\n`;
  const separator = current === undefined || current === '' ? '' : current.endsWith('\n') ? '\n' : '\n\n';
  // A link is left as it is: written through, it would change whatever file it leads to.
  if (lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink())
    return {
      file,
      outcome: 'skipped',
      note: `a symbolic link, not written through: add ${missing.join(', ')}`,
    };
  await replaceFile(abs, (current ?? '') + separator + block);
  const note = `added ${missing.join(', ')}${blanket ? `; ${blanketNote(blanket)}` : ''}`;
  return { file, outcome: current === undefined ? 'created' : 'updated', note };
}

function blanketNote(line: string): string {
  return (
    `the line \`${line}\` also ignores .cms-sync/state.jsonl and state.log.jsonl, which should be committed: ` +
    'remove it'
  );
}

/** Anything at all, dot files included: a `.gitkeep` says the folder is already someone's. */
async function holdsAnything(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length > 0;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A missing folder is empty; a file or an unreadable folder named content/ is not ours to fill.
    return code !== 'ENOENT';
  }
}
