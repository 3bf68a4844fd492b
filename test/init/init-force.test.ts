import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_TEMPLATE } from '../../src/init/config-template.js';
import { scaffold } from '../../src/init/scaffold.js';
import { WORKFLOW_TEMPLATE } from '../../src/init/workflow-template.js';
import { createProject, type Project } from '../e2e/harness.js';

const WORKFLOW = '.github/workflows/cms-sync.yml';
const AT = () => new Date('2026-01-15T09:30:00.123Z');

let project: Project | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await project?.close();
  project = undefined;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-init-'));
  dirs.push(dir);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  return dir;
}

/** Every file under `dir`, relative, with its text. */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const abs = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, abs)] = await readFile(abs, 'utf8');
  }
  return out;
}

const SITE = {
  'sync.config.ts': "import { defineConfig } from 'cms-sync';\nexport default defineConfig({});\n",
  [WORKFLOW]: 'name: ours\non: push\njobs: {}\n',
  'content/pages/about.md': '---\ntitle: About the Gazette\n---\nWe have published since 1887.\n',
  'content/articles/budget.md': '---\ntitle: Budget\n---\nNumbers.\n',
};

describe('cms-sync init --force on a real site', () => {
  it('rewrites only the config and the workflow, each saved as a .bak, and never touches content/', async () => {
    project = await createProject(SITE);
    const forced = await project.run(['init', '--force']);
    expect(forced.stderr).toBe('');
    expect(forced.code).toBe(0);
    const saved = String.raw`\(previous version saved as ([\w.-]+)\.\d{8}T\d{6}Z\.bak\)$`;
    expect(forced.stdout).toMatch(new RegExp(String.raw`^! sync\.config\.ts overwritten ${saved}`, 'm'));
    const workflowLine = String.raw`^! \.github/workflows/cms-sync\.yml overwritten ${saved}`;
    expect(forced.stdout).toMatch(new RegExp(workflowLine, 'm'));
    const skipped = 'skipped (content/ already has files: init never writes there)';
    expect(forced.stdout).toContain(`- content/pages/about.md ${skipped}`);
    expect(forced.stdout).not.toContain('content/pages/about.md overwritten');

    const files = await tree(project.dir);
    // The site's own content, byte for byte, and no starter content beside it.
    const content = Object.keys(files).filter((f) => f.startsWith('content/'));
    expect(content.sort()).toEqual(['content/articles/budget.md', 'content/pages/about.md']);
    expect(files['content/pages/about.md']).toBe(SITE['content/pages/about.md']);
    expect(files['content/articles/budget.md']).toBe(SITE['content/articles/budget.md']);
    // The managed files are the templates, and what they held before sits beside them.
    expect(files['sync.config.ts']).toBe(CONFIG_TEMPLATE);
    expect(files[WORKFLOW]).toBe(WORKFLOW_TEMPLATE);
    const configBak = Object.keys(files).find((f) => /^sync\.config\.ts\.\d{8}T\d{6}Z\.bak$/.test(f));
    const workflowBak = Object.keys(files).find((f) =>
      /^\.github\/workflows\/cms-sync\.yml\.\d{8}T\d+Z\.bak$/.test(f),
    );
    expect(files[configBak!]).toBe(SITE['sync.config.ts']);
    expect(files[workflowBak!]).toBe(SITE[WORKFLOW]);
    // Actions runs only *.yml / *.yaml, and cms-sync loads only sync.config.{ts,mts,js,mjs}.
    expect(workflowBak).not.toMatch(/\.ya?ml$/);
    expect(files['.gitignore']).toContain('.cms-sync/lock');
  });

  it('names the copy by the UTC time, never replaces an earlier one, makes none for the template itself', async () => {
    const dir = await tempDir({ 'sync.config.ts': '// first\n', [WORKFLOW]: WORKFLOW_TEMPLATE });
    const first = await scaffold(dir, { force: true, now: AT });
    const savedAs = (name: string) => ({
      file: 'sync.config.ts',
      outcome: 'overwritten',
      note: `previous version saved as ${name}`,
    });
    expect(first).toContainEqual(savedAs('sync.config.ts.20260115T093000Z.bak'));
    expect(first).toContainEqual({ file: WORKFLOW, outcome: 'unchanged' });

    await writeFile(path.join(dir, 'sync.config.ts'), '// second\n');
    const second = await scaffold(dir, { force: true, now: AT });
    expect(second).toContainEqual(savedAs('sync.config.ts.20260115T093000Z-1.bak'));

    const files = await tree(dir);
    expect(files['sync.config.ts.20260115T093000Z.bak']).toBe('// first\n');
    expect(files['sync.config.ts.20260115T093000Z-1.bak']).toBe('// second\n');
    expect(Object.keys(files).filter((f) => f.startsWith('.github/'))).toEqual([WORKFLOW]);
  });

  it('leaves a content/ that holds anything alone, even a dot file, and fills an empty one', async () => {
    const kept = await tempDir({ 'content/.gitkeep': '' });
    const keptEntries = await scaffold(kept, { force: true, now: AT });
    expect(
      keptEntries.filter((e) => e.file.startsWith('content/')).every((e) => e.outcome === 'skipped'),
    ).toBe(true);
    expect(await readdir(path.join(kept, 'content'))).toEqual(['.gitkeep']);

    const empty = await tempDir();
    await mkdir(path.join(empty, 'content'));
    await scaffold(empty, { force: true, now: AT });
    expect(Object.keys(await tree(path.join(empty, 'content'))).sort()).toEqual([
      'articles/hello-world.md',
      'categories/news.md',
      'images/first-chart.svg',
      'pages/about.md',
    ]);
  });

  it('replaces a symlinked config instead of writing through it to the file it points at', async () => {
    const elsewhere = await tempDir({ 'shared.config.ts': '// shared by several sites\n' });
    const dir = await tempDir();
    await symlink(path.join(elsewhere, 'shared.config.ts'), path.join(dir, 'sync.config.ts'));
    await scaffold(dir, { force: true, now: AT });
    expect(await readFile(path.join(elsewhere, 'shared.config.ts'), 'utf8')).toBe(
      '// shared by several sites\n',
    );
    expect((await lstat(path.join(dir, 'sync.config.ts'))).isSymbolicLink()).toBe(false);
    expect(await readFile(path.join(dir, 'sync.config.ts'), 'utf8')).toBe(CONFIG_TEMPLATE);
    const saved = await readFile(path.join(dir, 'sync.config.ts.20260115T093000Z.bak'), 'utf8');
    expect(saved).toBe('// shared by several sites\n');
  });

  it('writes no sync.config.ts beside a sync.config.js, which it would shadow', async () => {
    const dir = await tempDir({ 'sync.config.js': 'export default {};\n' });
    const entries = await scaffold(dir, { force: true, now: AT });
    const note = 'sync.config.js is the config: init leaves it as it is';
    expect(entries).toContainEqual({ file: 'sync.config.ts', outcome: 'skipped', note });
    const files = await tree(dir);
    expect(files['sync.config.js']).toBe('export default {};\n');
    expect(Object.keys(files).filter((f) => f.startsWith('sync.config'))).toEqual(['sync.config.js']);
  });
});
