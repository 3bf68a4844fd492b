import { afterEach, describe, expect, it } from 'vitest';
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
  expect((await p.run(['apply'])).code).toBe(0);
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
