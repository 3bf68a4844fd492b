import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, createProject, SECRET_TOKEN, type Project } from '../e2e/harness.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** The tests that only make plans share one reviewed project (plan writes nothing to the CMS). */
let shared: Promise<Project> | undefined;
const sharedProject = () => (shared ??= reviewedProject());
afterAll(async () => {
  await (await shared)?.close();
});

const STORM =
  '---\ntitle: Storm\ncategory: news\n---\n\nWind and rain.\n\n- roads\n- trains\n\nStay inside.\n';
const CALM = '---\ntitle: Calm\ncategory: news\n---\n\nA quiet day.\n';

/** Synced once, then an editor changes storm.md while a colleague edits calm in the CMS. */
async function reviewedProject(): Promise<Project> {
  const p = await createProject({
    'content/categories/news.md': '---\nname: News\n---\n',
    'content/articles/storm.md': STORM,
    'content/articles/calm.md': CALM,
  });
  // In this process: the set-up's apply is not what these tests check, the plans after it are.
  expect((await p.applyInProcess()).exitCode).toBe(0);
  await p.write(
    'content/articles/storm.md',
    STORM.replace('title: Storm', 'title: "Storm: roads closed"').replace('- trains', '- trains and buses'),
  );
  const calm = (await p.records('article')).find((r) => r.slug === 'calm')!;
  await p.api({
    resource: 'article',
    action: 'edit',
    id: calm.id,
    data: { title: 'Calm (edited in the CMS)' },
  });
  await p.write('content/articles/new.md', '---\ntitle: New one\n---\n\nFresh.\n');
  return p;
}

describe('plans a reviewer can read', () => {
  it('plan --diff: summary first, changes by resource, each changed field as old → new or a line diff', async () => {
    const project = await sharedProject();
    const plan = await project.run(['plan', '--diff']);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    const lines = plan.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 4)).toEqual([
      `Target: ${project.cms.url}`,
      'Plan: 1 to create, 1 to update, 0 to delete, 0 to upload, 1 unchanged, 1 drifted.',
      '  category: 1 unchanged',
      '  article: 1 to create, 1 to update, 1 drifted',
    ]);
    expect(plan.stdout).toContain(
      [
        '  ~ article/storm  (body, title)  content/articles/storm.md',
        '      body:',
        '        @@ -1,6 +1,6 @@',
        '         <p>Wind and rain.</p>',
        '         <ul>',
        '           <li>roads</li>',
        '        -  <li>trains</li>',
        '        +  <li>trains and buses</li>',
        '         </ul>',
        '         <p>Stay inside.</p>',
        '      title: "Storm" → "Storm: roads closed"',
      ].join('\n'),
    );
    // Drift: the CMS's value beside the file's.
    expect(plan.stdout).toMatch(
      / {2}! article\/calm {2}changed in the CMS since cms-sync last wrote it \(title\)/,
    );
    expect(plan.stdout).toContain('      title: "Calm (edited in the CMS)" → "Calm"');
    expect(plan.stdout).toContain(
      '  + article/new  content/articles/new.md\n      body: (new, 1 line of HTML)\n      slug: "new"',
    );
    // Without --diff: the same plan, no field values.
    const plain = await project.run(['plan']);
    expect(plain.stdout).not.toContain('→');
    expect(plain.stdout.split('\n')[1]).toBe(lines[1]);
  }, 60_000);

  it('plan --compact prints one line per resource and action; --json --diff carries both values', async () => {
    project = await reviewedProject();
    const compact = await project.run(['plan', '--compact']);
    expect(compact.stdout).toBe(
      [
        `Target: ${project.cms.url}`,
        'Plan: 1 to create, 1 to update, 0 to delete, 0 to upload, 1 unchanged, 1 drifted.',
        '  + article  1 to create',
        '  ~ article  1 to update',
        '  ! article  1 drifted',
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await project.run(['plan', '--json', '--diff'])).stdout);
    const storm = json.plan.changes.find((c: any) => c.key === 'article/storm');
    expect(storm.values.map((v: any) => v.field)).toEqual(['body', 'title']);
    expect(storm.values[1]).toEqual({
      field: 'title',
      cmsField: 'title',
      cms: 'Storm',
      ours: 'Storm: roads closed',
      diff: '"Storm" → "Storm: roads closed"',
    });
    expect(storm.values[0].cms).toContain('<li>trains</li>');
    expect(storm.values[0].diff).toContain('+  <li>trains and buses</li>');
    const calm = json.plan.changes.find((c: any) => c.key === 'article/calm');
    expect(calm).toMatchObject({ action: 'drift', cmsFields: ['title'] });
    expect(calm.values).toEqual([expect.objectContaining({ cms: 'Calm (edited in the CMS)', ours: 'Calm' })]);
    // Without --diff, no values: the JSON stays small.
    const bare = JSON.parse((await project.run(['plan', '--json'])).stdout);
    expect(bare.plan.changes.some((c: any) => 'values' in c)).toBe(false);
    // A saved plan with diffs in it is still one `apply FILE` carries out.
    expect((await project.run(['plan', '--diff', '--out', 'plan.json'])).code).toBe(0);
    expect(JSON.parse(await project.read('plan.json')).plan.changes.some((c: any) => c.values)).toBe(true);
    const applied = await project.run(['apply', 'plan.json']);
    expect(applied.stderr).not.toContain('Refusing');
    expect((await project.records('article')).map((r) => r.title).sort()).toEqual([
      'Calm (edited in the CMS)',
      'New one',
      'Storm: roads closed',
    ]);
  }, 60_000);

  it('never pages when stdout is not a terminal, even with $PAGER set', async () => {
    const project = await sharedProject();
    const marker = path.join(project.dir, 'paged');
    const plan = await project.run(['plan', '--diff'], { env: { PAGER: `touch ${marker}`, LINES: '2' } });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^Target: .*\nPlan: 1 to create/);
    expect(existsSync(marker)).toBe(false);
  }, 60_000);

  // `script` (util-linux) runs the CLI on a pseudo-terminal of 10 rows, as a user's terminal.
  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)(
    'pages a plan longer than the terminal through $PAGER, unless --no-pager or CI',
    async () => {
      const project = await sharedProject();
      const paged = path.join(project.dir, 'paged.txt');
      const onTerminal = (args: string, env: Record<string, string> = {}) => {
        const command = `stty rows 10 cols 120; ${process.execPath} ${BIN} --cwd ${project.dir} ${args}`;
        // Not spawnSync: the local CMS the CLI talks to runs in this process.
        const child = spawn('script', ['-qec', command, '/dev/null'], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            CMS_BASE_URL: project.cms.url,
            CMS_API_TOKEN: SECRET_TOKEN,
            NO_COLOR: '1',
            PAGER: `cat > ${paged}`,
            ...env,
          },
        });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
        return new Promise<string>((resolve) => child.on('close', () => resolve(out)));
      };
      const screen = await onTerminal('plan --diff');
      const text = await readFile(paged, 'utf8');
      expect(text).toMatch(/^Plan: 1 to create, 1 to update/m);
      expect(text).toContain('+  <li>trains and buses</li>');
      expect(screen).not.toContain('Plan:');
      await rm(paged);
      expect(await onTerminal('plan --diff --no-pager')).toContain('Plan: 1 to create');
      expect(await onTerminal('plan --diff', { CI: 'true' })).toContain('Plan: 1 to create');
      // A plan that fits the screen is printed, not paged.
      expect(await onTerminal('plan --compact')).toContain('Plan: 1 to create');
      expect(existsSync(paged)).toBe(false);
    },
    90_000,
  );
});
