import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

// What a new user does: `npm i -D cms-sync` in a project of their own, then init, plan, apply.
// Installs from the npm cache (the registry when something is missing): 30 to 90 s.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a user's shell, not of this test run: no CI (which refuses the embedded
 * local CMS), none of the npm_* settings `npm test` passes down (npm_config_local_prefix would
 * send the install into this checkout), and no node_modules/.bin of this checkout on PATH.
 */
function userEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig']);
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const npm = key.toLowerCase().startsWith('npm_') && !keep.has(key);
    if (key === 'CI' || key.startsWith('VITEST') || npm) continue;
    env[key] = value;
  }
  const bins = `node_modules${path.sep}.bin`;
  env.PATH = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => !dir.includes(bins))
    .join(path.delimiter);
  env.NO_COLOR = '1';
  return env;
}

function run(command: string, args: string[], cwd: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

let tmp: string | undefined;
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

it('packs into a tarball that installs into an empty project, where init, plan and apply run', async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'cms-sync-pack-'));

  // The dist/ that `npm test` has just built: no second build here.
  const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], ROOT);
  expect(pack.code, pack.stderr).toBe(0);
  const [packed] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = packed!.files.map((f) => f.path);
  const needed = ['package.json', 'README.md', 'bin/cms-sync.js', 'dist/index.js', 'dist/index.d.ts'];
  for (const file of [
    ...needed,
    'dist/bundle/main.js',
    'dist/bundle/render-worker.js',
    'dist/bundle/watch-worker.js',
    'dist/bundle/zod.cjs',
    'dist/bundle/yaml.cjs',
    'dist/bundle/gray-matter.cjs',
    'dist/bundle/THIRD-PARTY-NOTICES.txt',
  ])
    expect(files).toContain(file);
  // What runs, and nothing else: no sources, tests, benches, fixtures, source maps or stray scripts.
  // The bundle's .cjs files are the packages it carries (scripts/bundle.mjs, LATER); beside them,
  // the licenses of every package whose code it carries.
  const shipped =
    /^(package\.json|README\.md|LICENSE|bin\/cms-sync\.js|dist\/.+\.(js|d\.ts)|dist\/bundle\/([^/]+\.cjs|THIRD-PARTY-NOTICES\.txt))$/;
  expect(files.filter((f) => !shipped.test(f))).toEqual([]);

  const project = path.join(tmp, 'project');
  await mkdir(project);
  const empty = { name: 'fresh-project', version: '1.0.0', private: true };
  await writeFile(path.join(project, 'package.json'), `${JSON.stringify(empty, null, 2)}\n`);
  const tarball = path.join(tmp, packed!.filename);
  const install = await run(
    'npm',
    ['install', '-D', '--no-audit', '--no-fund', '--prefer-offline', tarball],
    project,
  );
  expect(install.code, install.stderr).toBe(0);
  const manifest = JSON.parse(
    await readFile(path.join(project, 'node_modules', 'cms-sync', 'package.json'), 'utf8'),
  );
  expect(manifest.private).toBeUndefined();
  expect(manifest.engines.node).toMatch(/^>=20/);

  // npx finds the bin the install linked; the commands after run that same link without npm's start-up.
  const version = await run('npx', ['--no-install', 'cms-sync', '--version'], project);
  expect(version.stdout).toBe(`${manifest.version}\n`);
  const bin = path.join(project, 'node_modules', '.bin', 'cms-sync');

  const init = await run(bin, ['init'], project);
  expect(init.code, init.stderr).toBe(0);
  expect(init.stdout).toContain('+ sync.config.ts created');

  // The type check reads only the config and the two files below, so it runs beside plan and apply.
  const [, tsc] = await Promise.all([planAndApply(project), typeCheck(project)]);
  const errors = tsc.stdout.trim().split('\n');
  expect(errors).toHaveLength(1);
  const wrongType = "error TS2322: Type 'string' is not assignable to type 'number'";
  expect(errors[0]).toMatch(new RegExp(`^wrong\\.config\\.ts\\(\\d+,\\d+\\): ${wrongType}`));
}, 240_000);

async function planAndApply(project: string): Promise<void> {
  const bin = path.join(project, 'node_modules', '.bin', 'cms-sync');
  const plan = await run(bin, ['plan', '--json'], project);
  expect(plan.code, plan.stderr).toBe(0);
  expect(JSON.parse(plan.stdout).plan.counts).toMatchObject({ create: 3, upload: 1 });

  const apply = await run(bin, ['apply'], project);
  expect(apply.code, apply.stderr).toBe(0);
  expect(apply.stdout).toMatch(/Applied: 3 created, 0 updated, 0 deleted, 1 uploaded/);
}

/**
 * The scaffolded config type-checks against the installed package's declarations, and those
 * declarations are real: a wrong value in a copy of it is an error.
 */
async function typeCheck(project: string): Promise<Result> {
  const config = await readFile(path.join(project, 'sync.config.ts'), 'utf8');
  expect(config).toContain('// concurrency: 4,');
  await writeFile(
    path.join(project, 'wrong.config.ts'),
    config.replace('// concurrency: 4,', "concurrency: 'four',"),
  );
  // A build script using the library type-checks too, with no @types/node in the project.
  await writeFile(
    path.join(project, 'use.ts'),
    [
      "import { plan, sync, SyncError, type SyncEvent, type SyncResult } from 'cms-sync';",
      'export async function publish(projectDir: string): Promise<number> {',
      '  const events: SyncEvent[] = [];',
      '  const planned: SyncResult = await plan({ projectDir, only: ["articles/**"] });',
      '  if (planned.plan?.counts.create === 0) return 0;',
      '  const synced = await sync({ projectDir, reporter: (event) => events.push(event) });',
      "  if (synced.stopped) throw new SyncError('CMS_SYNC_STATE', `stopped: ${synced.stopped}`);",
      '  return synced.result?.created ?? 0;',
      '}',
      '',
    ].join('\n'),
  );
  const compilerOptions = { module: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: [] };
  const tsconfig = { compilerOptions, files: ['sync.config.ts', 'wrong.config.ts', 'use.ts'] };
  await writeFile(path.join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
  return run(process.execPath, [TSC, '-p', project, '--pretty', 'false'], project);
}
