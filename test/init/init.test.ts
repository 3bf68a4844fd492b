import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import matter from 'gray-matter';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project } from '../e2e/harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** An empty project where `import 'cms-sync'` resolves, as after `npm i -D cms-sync`. */
async function emptyProject(): Promise<Project> {
  const p = await createProject({});
  await mkdir(path.join(p.dir, 'node_modules'), { recursive: true });
  await symlink(ROOT, path.join(p.dir, 'node_modules', 'cms-sync'), 'dir');
  return p;
}

/** YAML through gray-matter's bundled js-yaml: no new dependency for one parse. */
function parseYaml(text: string): any {
  return matter(`---\n${text}\n---\n`).data;
}

describe('cms-sync init', () => {
  it('scaffolds a project that plans cleanly against a CMS', async () => {
    project = await emptyProject();
    const init = await project.run(['init']);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    for (const file of [
      'sync.config.ts',
      '.gitignore',
      '.github/workflows/cms-sync.yml',
      'content/articles/hello-world.md',
      'content/categories/news.md',
      'content/pages/about.md',
      'content/images/first-chart.svg',
    ]) {
      expect(init.stdout).toContain(`+ ${file} created`);
    }
    expect(await project.read('sync.config.ts')).toContain("import { defineConfig } from 'cms-sync';");

    const plan = await project.run(['plan', '--json']);
    expect(plan.stderr).not.toMatch(/:\d+:\d+: /);
    expect(plan.code).toBe(0);
    const json = JSON.parse(plan.stdout);
    expect(json.plan.problems).toEqual([]);
    expect(json.plan.counts).toMatchObject({ create: 3, upload: 1 });

    const apply = await project.run(['apply']);
    expect(apply.code).toBe(0);
    const [article] = await project.records('article');
    expect(article).toMatchObject({ title: 'Hello from cms-sync', status: 0 });
    expect(article!.body).toMatch(
      /<dynamic-block data-id="\d+" data-type="media" data-size="medium" contenteditable="false"><\/dynamic-block>/,
    );
  });

  it('never overwrites without --force, and says what it skipped', async () => {
    project = await emptyProject();
    await project.run(['init']);
    await project.write('sync.config.ts', '// mine\n');
    await project.write('content/pages/about.md', '---\ntitle: Mine\n---\n');

    const again = await project.run(['init']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('- sync.config.ts skipped (already exists)');
    expect(again.stdout).toContain(
      '- content/pages/about.md skipped (content/ already has files: init never writes there)',
    );
    expect(again.stdout).toContain('= .github/workflows/cms-sync.yml unchanged');
    expect(again.stdout).toContain(
      '1 existing file kept; `init --force` rewrites it, saving the old as <file>.<time>.bak\n',
    );
    expect(await project.read('sync.config.ts')).toBe('// mine\n');
    expect(await project.read('content/pages/about.md')).toBe('---\ntitle: Mine\n---\n');
  });

  it('appends only the missing .gitignore lines and keeps state.json committed', async () => {
    project = await emptyProject();
    await writeFile(path.join(project.dir, '.gitignore'), 'node_modules/\n.cms-sync/lock\n');
    const init = await project.run(['init']);
    expect(init.stdout).toContain(
      '~ .gitignore updated (added .cms-sync/local-cms/, .cms-sync/lock.break-*, .cms-sync/.lock.*.tmp, ' +
        '.cms-sync/journal.jsonl, .cms-sync/last-state.json, .cms-sync/file-hashes.json, .cms-sync/clean-run.json, ' +
        '.cms-sync/content-folders*, .cms-sync/state-index.json, .cms-sync/listing-cache/)',
    );
    const ignore = await project.read('.gitignore');
    expect(ignore.startsWith('node_modules/\n.cms-sync/lock\n')).toBe(true);
    expect(ignore.match(/^\.cms-sync\/lock$/gm)).toHaveLength(1);
    expect(ignore).not.toMatch(/^\.cms-sync\/(state\.json)?$/m);

    const again = await project.run(['init']);
    expect(again.stdout).toContain('= .gitignore unchanged');
    expect(await project.read('.gitignore')).toBe(ignore);
  });

  it('does not write a linked .gitignore through: says which lines to add', async () => {
    project = await emptyProject();
    const elsewhere = path.join(project.dir, 'profile');
    await writeFile(elsewhere, 'export PATH=$HOME/bin:$PATH\n');
    await symlink(elsewhere, path.join(project.dir, '.gitignore'));
    const init = await project.run(['init']);
    expect(init.stdout).toMatch(
      /\.gitignore skipped \(a symbolic link, not written through: add \.cms-sync\/local-cms\//,
    );
    expect(await readFile(elsewhere, 'utf8')).toBe('export PATH=$HOME/bin:$PATH\n');
  });

  it('writes a workflow that plans on pull requests and applies on main, one apply at a time', async () => {
    project = await emptyProject();
    await project.run(['init']);
    const text = await readFile(path.join(project.dir, '.github/workflows/cms-sync.yml'), 'utf8');
    const wf = parseYaml(text);
    expect(Object.keys(wf.on)).toEqual(expect.arrayContaining(['pull_request', 'push']));
    expect(wf.on.push.branches).toEqual(['main']);
    expect(wf.jobs.plan.if).toContain('pull_request');
    const planRun = wf.jobs.plan.steps.map((s: any) => s.run ?? '').join('\n');
    expect(planRun).toContain('cms-sync plan --json --diff > plan.json');
    expect(planRun).toContain('cms-sync ci-report plan.json --log plan.log');
    expect(wf.jobs.apply.concurrency).toEqual({
      group: expect.stringContaining('cms-sync-apply'),
      'cancel-in-progress': false,
    });
    expect(wf.jobs.apply.permissions).toEqual({ contents: 'write' });
    const commit = wf.jobs.apply.steps.find((s: any) => s.name === 'Commit state');
    expect(commit.if).toBe('always()');
    expect(commit.run).toContain('[skip ci]');
    expect(commit.run).toContain('git add .cms-sync/state.jsonl .cms-sync/state.log.jsonl');
    expect(text).not.toMatch(/tok_|CMS_API_TOKEN: [^$]/);
  });
});
