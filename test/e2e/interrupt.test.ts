import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, SECRET_TOKEN, type Project } from './harness.js';
import { readState } from '../helpers/state.js';

// Enough records, on a CMS slow enough, that an apply is still writing when the signal comes: at
// --concurrency 2 and 60 ms a write, 60 articles take about 2 s to write, and the signal follows the
// first one.
const ARTICLES = 60;

function manyArticles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < ARTICLES; i += 1)
    files[`content/articles/a${i}.md`] = `---\ntitle: Article ${i}\n---\n\nBody ${i}.\n`;
  return files;
}

let project: Project | undefined;
afterEach(async () => {
  if (project) expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project?.close();
  project = undefined;
});

async function allArticles(p: Project): Promise<Array<Record<string, any>>> {
  const all: Array<Record<string, any>> = [];
  for (let offset = 0; ; offset += 100) {
    const data = await p.api({ resource: 'article', action: 'get', limit: 100, offset, order_by: 'id ASC' });
    all.push(...data.items);
    if (data.items.length < 100) return all;
  }
}

/** Every article the CMS holds is in state (or an open intent of the journal, to be checked next run). */
async function expectStateMatchesCms(p: Project): Promise<void> {
  const state = readState(p.dir) as { records: Record<string, { id: number }> };
  const inState = new Set(Object.values(state.records).map((r) => r.id));
  const journal = await readFile(path.join(p.dir, '.cms-sync/journal.jsonl'), 'utf8').catch(() => '');
  const openKeys = new Set(
    journal
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((e) => e.t === 'intent')
      .map((e) => e.key),
  );
  for (const article of await allArticles(p)) {
    if (!inState.has(article.id)) expect(openKeys.has(`article/${article.slug}`)).toBe(true);
  }
}

/**
 * The rerun finishes what the interrupted run left, and makes nothing twice. The CMS was slow only so
 * that the signal came while writing: the rerun finds it as fast as it is (same data, same port).
 */
async function expectRerunCompletes(p: Project): Promise<void> {
  await p.stopCms();
  await p.startCms({ latencyMs: 0 });
  const rerun = await p.run(['apply']);
  expect(rerun.code).toBe(0);
  const articles = await allArticles(p);
  expect(articles).toHaveLength(ARTICLES);
  expect(new Set(articles.map((a) => a.slug)).size).toBe(ARTICLES);
  expect((await p.run(['plan', '--detailed-exitcode'])).code).toBe(0);
}

describe('Ctrl-C and SIGTERM in apply: a clean stop, nothing lost, nothing twice', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} mid-apply stops starting writes, saves state, says what was done and exits 130`, async () => {
      project = await createProject(manyArticles(), { latencyMs: 60 });
      const run = project.spawn(['apply', '--concurrency', '2', '--verbose']);
      await run.waitForLine(/^\+ article\//, { timeoutMs: 30_000 });
      const result = await run.stop({ signal });
      expect(result.code).toBe(130);
      expect(result.stderr).toMatch(
        /Interrupted: stopped starting writes and let those in flight finish\. Done: \d+ created, .* \d+ not started\. State saved: run `cms-sync apply` again to finish\./,
      );
      const created = (await allArticles(project)).length;
      expect(created).toBeGreaterThan(0);
      expect(created).toBeLessThan(ARTICLES);
      // Everything written is in the saved state; no intent is left open by a clean stop.
      const state = readState(project.dir);
      expect(Object.keys(state.records)).toHaveLength(created);
      await expectStateMatchesCms(project);
      await expectRerunCompletes(project);
    }, 90_000);
  }

  it('a Ctrl-C before the first write stops with nothing written', async () => {
    project = await createProject(manyArticles(), { latencyMs: 400 });
    const run = project.spawn(['apply']);
    await run.waitForLine(/^Target: /);
    const result = await run.stop({ signal: 'SIGINT' });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(
      'Interrupted before apply began: nothing was written. Run `cms-sync apply` again to carry out the plan.',
    );
    expect(project.cms.stats().writes ?? 0).toBe(0);
    expect(await allArticles(project)).toHaveLength(0);
  }, 60_000);

  it('a second Ctrl-C exits at once, and the next run replays the journal without duplicates', async () => {
    // Slower, so the writes in flight after the first Ctrl-C are still going at the second.
    project = await createProject(manyArticles(), { latencyMs: 80 });
    const run = project.spawn(['apply', '--concurrency', '2', '--verbose']);
    await run.waitForLine(/^\+ article\//, { timeoutMs: 30_000 });
    void run.stop({ signal: 'SIGINT' });
    await run.waitForLine(/^Stopping: no new writes start/, { stream: 'stderr' });
    const result = await run.stop({ signal: 'SIGINT' });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(
      'SIGINT again: stopped at once. Writes in flight when it came are in the journal: the next run replays it and ' +
        'checks them, so nothing is sent twice.',
    );
    expect((await allArticles(project)).length).toBeLessThan(ARTICLES);
    await expectRerunCompletes(project);
  }, 90_000);

  it('Ctrl-C in plan exits 130 at once', async () => {
    project = await createProject(manyArticles(), { latencyMs: 2000 });
    const run = project.spawn(['plan']);
    await run.waitForLine(/^Target: /);
    const result = await run.stop({ signal: 'SIGINT', timeoutMs: 5000 });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('Interrupted: the plan was not finished; nothing was written anywhere.');
  }, 60_000);
});
