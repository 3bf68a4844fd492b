import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProject, SECRET_TOKEN, type Project } from './harness.js';
import { readState } from '../helpers/state.js';

const story = (title: string, text: string) => `---\ntitle: ${title}\n---\n\n${text}\n`;

let project: Project | undefined;
afterEach(async () => {
  if (project) expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project?.close();
  project = undefined;
});

async function renamedProject(): Promise<Project> {
  const p = await createProject({
    'content/articles/council-budget.md': story('Council passes the budget', 'The vote was close.'),
    'content/articles/other.md': story('Other', 'Something else.'),
  });
  // In this process: the runs after the rename are what the tests check.
  expect((await p.applyInProcess()).exitCode).toBe(0);
  const text = await p.read('content/articles/council-budget.md');
  await p.remove('content/articles/council-budget.md');
  await p.write('content/articles/budget-passes.md', text);
  return p;
}

describe('a file renamed without slug:', () => {
  it('is one edit of its record: same id, new slug, state follows it, and a rerun writes nothing', async () => {
    project = await renamedProject();
    const [before] = (await project.records('article')).filter((a) => a.slug === 'council-budget');

    const plan = await project.run(['plan']);
    expect(plan.stdout).toContain('→ article/council-budget → article/budget-passes');
    expect(plan.stdout).toContain('Plan: 0 to create, 1 to update');

    project.cms.resetStats();
    const apply = await project.run(['apply', '--prune']);
    expect(apply.code, apply.stderr).toBe(0);
    const writes = project.cms.stats().writeLog.map((w) => `${w.action} ${w.resource}`);
    expect(writes).toEqual(['edit article']);
    const articles = await project.records('article');
    expect(articles.map((a) => a.slug).sort()).toEqual(['budget-passes', 'other']);
    expect(articles.find((a) => a.slug === 'budget-passes')!.id).toBe(before!.id);

    const state = readState(project.dir);
    expect(Object.keys(state.records).sort()).toEqual(['article/budget-passes', 'article/other']);
    expect(state.records['article/budget-passes'].file).toBe('content/articles/budget-passes.md');

    project.cms.resetStats();
    expect((await project.run(['apply', '--prune'])).code).toBe(0);
    expect(project.cms.stats().writes).toBe(0);
  });

  it('with --no-detect-renames is a create, and the old record stays until --prune', async () => {
    project = await renamedProject();
    const plan = await project.run(['plan', '--no-detect-renames']);
    expect(plan.stdout).toContain('+ article/budget-passes');
    expect(plan.stdout).toContain('kept: file removed; run with --prune');
    expect((await project.run(['apply', '--no-detect-renames'])).code).toBe(0);
    expect((await project.records('article')).map((a) => a.slug).sort()).toEqual([
      'budget-passes',
      'council-budget',
      'other',
    ]);
  });

  it('is not taken as a rename when two new files share the old body: both are created, with a note', async () => {
    project = await renamedProject();
    await project.write('content/articles/budget-copy.md', story('Copy', 'The vote was close.'));
    const apply = await project.run(['apply']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).toMatch(/budget-copy\.md:1:1: .*not taken as a rename/);
    expect((await project.records('article')).map((a) => a.slug).sort()).toEqual([
      'budget-copy',
      'budget-passes',
      'council-budget',
      'other',
    ]);
  });
});

describe('a file renamed with its old address or its own id in front matter (aliases, redirect_from, id)', () => {
  let site: Project;
  let ids: Map<string, number>;
  beforeAll(async () => {
    site = await createProject({
      'content/articles/council-budget.md': story('Council passes the budget', 'The vote was close.'),
      'content/articles/2019-05-01-storm.md': story('Storm', 'Wind tonight.'),
      'content/articles/fire.md': story('Fire', 'Smoke downtown.'),
      'content/articles/quake.md': '---\ntitle: Quake\nid: wp-1042\n---\n\nThe ground shook.\n',
    });
    expect((await site.applyInProcess()).exitCode).toBe(0);
    ids = new Map((await site.records('article')).map((a) => [a.slug as string, a.id as number]));
    // Renamed, and rewritten: the body no longer matches, the front matter keeps the old address.
    await site.remove('content/articles/council-budget.md');
    await site.write(
      'content/articles/budget-passes.md',
      '---\ntitle: Budget passes\naliases:\n  - /posts/council-budget/\n---\n\nThe vote was close: 5 to 4.\n',
    );
    await site.remove('content/articles/2019-05-01-storm.md');
    await site.write(
      'content/articles/storm-update.md',
      '---\ntitle: Storm update\nredirect_from: /2019/05/01/storm.html\n---\n\nWind all night.\n',
    );
    // Renamed and rewritten, keeping the site's own id.
    await site.remove('content/articles/quake.md');
    await site.write(
      'content/articles/earthquake-report.md',
      '---\ntitle: Earthquake report\nid: wp-1042\n---\n\nThe ground shook for a minute.\n',
    );
    // Two files claim one old record: neither is it.
    await site.remove('content/articles/fire.md');
    await site.write('content/articles/fire-a.md', '---\ntitle: Fire A\naliases: [fire]\n---\n\nSmoke.\n');
    await site.write('content/articles/fire-b.md', '---\ntitle: Fire B\naliases: [fire]\n---\n\nFlames.\n');
  });
  afterAll(async () => {
    expect(site.outputs.join('\n')).not.toContain(SECRET_TOKEN);
    await site.close();
  });

  it('plans one edit of the named record, a create and a note for a contested one, no unsent-key warning', async () => {
    const plan = await site.run(['plan']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('→ article/council-budget → article/budget-passes');
    expect(plan.stdout).toContain('→ article/2019-05-01-storm → article/storm-update');
    expect(plan.stdout).toContain('→ article/quake → article/earthquake-report');
    expect(plan.stdout).toContain('+ article/fire-a');
    expect(plan.stdout).toContain('+ article/fire-b');
    expect(plan.stderr).toContain(
      'content/articles/fire-a.md:3:1: warning: its `aliases` names article/fire, whose files are gone, and ' +
        'article/fire-b points there too: more than one candidate, so it is not taken as a rename',
    );
    expect(plan.stderr).not.toContain('is not sent to the CMS');

    const off = await site.run(['plan', '--no-detect-renames']);
    expect(off.stdout).toContain('+ article/budget-passes');
    expect(off.stdout).toContain('+ article/storm-update');
    expect(off.stdout).toContain('+ article/earthquake-report');
    expect(off.stdout).not.toContain('→');
  });

  it('keeps the ids of the renamed records through apply, and state follows them', async () => {
    const apply = await site.run(['apply', '--prune']);
    expect(apply.code, apply.stderr).toBe(0);
    const articles = await site.records('article');
    const idOf = (slug: string) => articles.find((a) => a.slug === slug)?.id;
    expect(articles.map((a) => a.slug).sort()).toEqual([
      'budget-passes',
      'earthquake-report',
      'fire-a',
      'fire-b',
      'storm-update',
    ]);
    expect(idOf('budget-passes')).toBe(ids.get('council-budget'));
    expect(idOf('earthquake-report')).toBe(ids.get('quake'));
    expect(idOf('storm-update')).toBe(ids.get('2019-05-01-storm'));
    expect(articles.find((a) => a.slug === 'budget-passes')!.body).toContain('5 to 4');
    const state = readState(site.dir);
    expect(Object.keys(state.records).sort()).toEqual([
      'article/budget-passes',
      'article/earthquake-report',
      'article/fire-a',
      'article/fire-b',
      'article/storm-update',
    ]);
  });
});
