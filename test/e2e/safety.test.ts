import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, SECRET_TOKEN, type Project } from './harness.js';
import { copyState, readState, restoreState, writeState } from '../helpers/state.js';

function site(): Record<string, string> {
  return {
    'content/categories/politics.md': '---\nname: Politics\n---\n',
    'content/articles/budget.md':
      '---\ntitle: Budget passes\ncategory: politics\n---\n\nThe budget passed.\n',
    'content/articles/storm.md': '---\ntitle: Storm on the coast\n---\n\nWind and rain.\n',
    'content/pages/about.md': '---\ntitle: About\n---\n\nWho we are.\n',
  };
}

// The runs that only set the scene (a first apply, a saved plan when the test is about applying it)
// go through the library in this process; the CLI runs after them are what each test checks.
let project: Project | undefined;
afterEach(async () => {
  if (project) expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project?.close();
  project = undefined;
});

const bySlug = async (p: Project, resource: string, slug: string) =>
  (await p.records(resource)).find((r) => r.slug === slug);

describe('drift: what someone changed in the CMS is reported, never overwritten silently', () => {
  it('reports an edit, a delete and a new record made by hand, and leaves each alone', async () => {
    project = await createProject(site());
    expect((await project.applyInProcess()).exitCode).toBe(0);
    const storm = (await bySlug(project, 'article', 'storm'))!;
    const about = (await bySlug(project, 'page', 'about'))!;
    await project.api({
      resource: 'article',
      action: 'edit',
      id: storm.id,
      data: { title: 'Storm: roads closed' },
    });
    await project.api({ resource: 'page', action: 'delete', id: about.id });
    const byHand = await project.api({
      resource: 'article',
      action: 'add',
      data: { title: 'Written in the dashboard', slug: 'dashboard-only' },
    });

    project.cms.resetStats();
    const result = await project.run(['apply', '--prune']);
    expect(result.code).toBe(3);
    expect(result.stdout).toContain(
      '! article/storm  changed in the CMS since cms-sync last wrote it (title). Left alone: run with ' +
        "--overwrite-drift to replace it with content/articles/storm.md, or copy the CMS's version into the file.",
    );
    expect(result.stdout).toContain(
      `! page/about  deleted in the CMS (id ${about.id}) after cms-sync wrote it. Left alone: run with ` +
        `--overwrite-drift to create it again, or delete content/pages/about.md.`,
    );
    expect(result.stdout).not.toContain('dashboard-only');
    expect(project.cms.stats().writes).toBe(0);
    expect((await bySlug(project, 'article', 'storm'))!.title).toBe('Storm: roads closed');
    expect(await bySlug(project, 'page', 'about')).toBeUndefined();
    expect((await bySlug(project, 'article', 'dashboard-only'))!.id).toBe(byHand.id);
  });

  it('calls a record changed in both places a conflict, and --overwrite-drift keeps the file', async () => {
    project = await createProject(site());
    await project.applyInProcess();
    const storm = (await bySlug(project, 'article', 'storm'))!;
    await project.api({ resource: 'article', action: 'edit', id: storm.id, data: { title: 'CMS title' } });
    await project.write('content/articles/storm.md', '---\ntitle: File title\n---\n\nWind and rain.\n');

    const conflict = await project.run(['apply']);
    expect(conflict.code).toBe(3);
    expect(conflict.stdout).toContain(
      '! article/storm  changed both in content/articles/storm.md and in the CMS (title).',
    );
    expect((await bySlug(project, 'article', 'storm'))!.title).toBe('CMS title');

    const overwrite = await project.run(['apply', '--overwrite-drift']);
    expect(overwrite.code).toBe(0);
    expect((await bySlug(project, 'article', 'storm'))!.title).toBe('File title');
    project.cms.resetStats();
    expect((await project.run(['apply'])).code).toBe(0);
    expect(project.cms.stats().writes).toBe(0);
  });

  it('does not --prune a record an editor changed in the CMS after its file was removed', async () => {
    project = await createProject(site());
    await project.applyInProcess();
    const storm = (await bySlug(project, 'article', 'storm'))!;
    await project.api({
      resource: 'article',
      action: 'edit',
      id: storm.id,
      data: { title: 'Storm: update' },
    });
    await rm(path.join(project.dir, 'content/articles/storm.md'));

    project.cms.resetStats();
    const pruned = await project.run(['apply', '--prune']);
    expect(pruned.code).toBe(3);
    expect(pruned.stdout).toContain(
      '! article/storm  content/articles/storm.md is gone, but the record was changed in the CMS since ' +
        'cms-sync last wrote it (title). Not deleted: run with --prune --overwrite-drift to delete it anyway',
    );
    expect(project.cms.stats().byAction['article.delete']).toBeUndefined();
    expect((await bySlug(project, 'article', 'storm'))!.title).toBe('Storm: update');

    const forced = await project.run(['apply', '--prune', '--overwrite-drift']);
    expect(forced.code).toBe(0);
    expect(await bySlug(project, 'article', 'storm')).toBeUndefined();
  });

  it('still deletes, with --prune, a record whose file was removed and that nobody changed', async () => {
    project = await createProject(site());
    await project.applyInProcess();
    // A change elsewhere in the CMS moves the listing on, so the run reads what changed.
    const budget = (await bySlug(project, 'article', 'budget'))!;
    await project.api({ resource: 'article', action: 'edit', id: budget.id, data: { title: 'Budget' } });
    await rm(path.join(project.dir, 'content/articles/storm.md'));
    const pruned = await project.run(['apply', '--prune']);
    expect(pruned.stdout).toContain('- article/storm');
    expect(await bySlug(project, 'article', 'storm')).toBeUndefined();
  });
});

describe('saved plans', () => {
  it('apply FILE carries out exactly the saved plan', async () => {
    project = await createProject(site());
    const plan = await project.run(['plan', '--out', 'plan.json']);
    expect(plan.code).toBe(0);
    expect(project.cms.stats().writes).toBe(0);
    const saved = JSON.parse(await project.read('plan.json')) as { plan: { counts: { create: number } } };
    expect(saved.plan.counts.create).toBe(4);

    const apply = await project.run(['apply', 'plan.json']);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Applied: 4 created');
  });

  it('apply FILE carries out a plan that passed unchanged files over', async () => {
    project = await createProject(site());
    // Files changed in the last 2 s are always read again: let them age, so the plan passes them over.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    // The records this apply created are not looked at again: the next run knows them as written.
    expect((await project.applyInProcess()).exitCode).toBe(0);
    await project.write('content/articles/storm.md', '---\ntitle: Storm update\n---\n\nWind and rain.\n');
    const plan = await project.run(['plan', '--out', 'plan.json', '--json']);
    expect(JSON.parse(plan.stdout)).toMatchObject({ source: { untouched: 3 }, plan: { untouched: 3 } });
    const apply = await project.run(['apply', 'plan.json']);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Applied: 0 created, 1 updated');
  });

  it('refuses with zero writes when a file changed since the plan was made', async () => {
    project = await createProject(site());
    await project.applyInProcess();
    await project.write('content/articles/storm.md', '---\ntitle: Storm update\n---\n\nWind and rain.\n');
    await project.planInProcess({ out: 'plan.json' });
    await project.write(
      'content/articles/storm.md',
      '---\ntitle: Storm update, later\n---\n\nWind and rain.\n',
    );

    project.cms.resetStats();
    const result = await project.run(['apply', 'plan.json']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      'Refusing to apply plan.json: the files or the CMS changed since it was made. Nothing was written. Make a new ' +
        'plan with `cms-sync plan --out plan.json`.',
    );
    expect(project.cms.stats().writes).toBe(0);
  });

  it('refuses with zero writes when the CMS changed since the plan was made', async () => {
    project = await createProject(site());
    await project.applyInProcess();
    await project.write('content/pages/about.md', '---\ntitle: About us\n---\n\nWho we are.\n');
    await project.planInProcess({ out: 'plan.json' });
    const about = (await bySlug(project, 'page', 'about'))!;
    await project.api({
      resource: 'page',
      action: 'edit',
      id: about.id,
      data: { content: '<p>Edited by hand</p>' },
    });

    project.cms.resetStats();
    const result = await project.run(['apply', 'plan.json']);
    expect(result.code).toBe(3);
    expect(project.cms.stats().writes).toBe(0);
  });

  it('refuses a plan made before another apply ran', async () => {
    project = await createProject(site());
    await project.planInProcess({ out: 'plan.json' });
    await project.applyInProcess();
    const result = await project.run(['apply', 'plan.json']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /Refusing to apply plan\.json: the state changed since \(serial 0 then, 1 now\): another apply ran/,
    );
  });
});

describe('the state lock', () => {
  it('stops a second apply at once, saying who holds the lock since when', async () => {
    project = await createProject(site());
    const since = '2026-11-22T05:00:00.000Z';
    // This test process is alive: its lock is real.
    await project.write(
      '.cms-sync/lock',
      JSON.stringify({ pid: process.pid, host: hostname(), since, command: 'apply' }),
    );
    const result = await project.run(['apply']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `Another cms-sync (apply, pid ${process.pid} on ${hostname()}) holds the state lock since ${since}. Wait for ` +
        `it to finish; if it is gone, run \`cms-sync unlock\`.`,
    );
    expect(project.cms.stats().writes).toBe(0);

    // Its holder runs: unlock keeps it unless forced.
    expect((await project.run(['unlock'])).code).toBe(3);
    const unlock = await project.run(['unlock', '--force']);
    expect(unlock.stdout).toBe(
      `Removed the state lock (apply, pid ${process.pid} on ${hostname()} since ${since}).\n`,
    );
    expect((await project.run(['apply'])).code).toBe(0);
  });

  it('takes over a lock left by a process that is gone', async () => {
    project = await createProject(site());
    await project.write(
      '.cms-sync/lock',
      JSON.stringify({
        pid: 2 ** 22 + 12345,
        host: hostname(),
        since: '2026-01-01T00:00:00.000Z',
        command: 'apply',
      }),
    );
    const result = await project.run(['apply']);
    expect(result.code).toBe(0);
  });
});

describe('state integrity', () => {
  it('refuses a state.json replaced by an older copy', async () => {
    project = await createProject(site());
    await project.applyInProcess();
    const older = await copyState(project.dir);
    await project.write('content/articles/storm.md', '---\ntitle: Storm, day two\n---\n\nStill raining.\n');
    await project.applyInProcess();
    await restoreState(project.dir, older);

    const result = await project.run(['apply']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      'is an older copy (serial 1) than the one this checkout last saved (serial 2)',
    );
  });

  it('refuses a state.json from another project', async () => {
    project = await createProject(site());
    await project.applyInProcess();
    const state = readState(project.dir);
    await writeState(project.dir, { ...state, lineage: '00000000-0000-4000-8000-000000000000' });
    const result = await project.run(['plan']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      'comes from another project or history (lineage 00000000-0000-4000-8000-000000000000)',
    );
  });
});

describe('a dead or missing CMS', () => {
  it('fails within a bounded time with a clear message, writing nothing to state', async () => {
    project = await createProject(site());
    const deadUrl = await closedPortUrl();
    const started = Date.now();
    const result = await project.run(['apply'], { env: { CMS_BASE_URL: deadUrl } });
    const seconds = (Date.now() - started) / 1000;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /Could not read the \w+ records of the CMS, so nothing can be planned safely: The CMS at http:\/\/127\.0\.0\.1:\d+ \(\w+\.get\) did not answer successfully after 6 attempts over [\d.]+ s \(last: ECONNREFUSED\)/,
    );
    console.log(`[proof] dead server: failed after ${seconds.toFixed(1)} s`);
    expect(seconds).toBeLessThan(60); // bounded: the retry budget, not hours of retries
  }, 90_000);
});

describe('content/ that is missing', () => {
  it('is an error, never "everything was deleted"', async () => {
    project = await createProject(site());
    await project.applyInProcess();
    await rm(path.join(project.dir, 'content'), { recursive: true });
    project.cms.resetStats();
    const result = await project.run(['apply', '--prune']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/content/);
    expect(project.cms.stats().writes).toBe(0);
    expect(await project.records('article')).toHaveLength(2);
  });
});

/** A loopback URL where nothing listens any more. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('deletes after errors', () => {
  it('are not carried out when another record failed in the same run', async () => {
    project = await createProject(site());
    await project.applyInProcess();
    await project.remove('content/pages/about.md');
    // The CMS refuses this one: its body embeds a media id the library does not have.
    await project.write(
      'content/articles/storm.md',
      '---\ntitle: Storm on the coast\n---\n\nWind and rain.\n\n<dynamic-block data-id="999" data-type="media" ' +
        'data-size="medium" contenteditable="false"></dynamic-block>\n',
    );
    project.cms.resetStats();
    const result = await project.run(['apply', '--prune']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      '1 delete not done: 1 error earlier in this run. Fix them and run again.',
    );
    expect(project.cms.stats().byAction['page.delete']).toBeUndefined();
    expect((await project.records('page')).map((p) => p.slug)).toEqual(['about']);
  });
});

describe('a forged state line', () => {
  /**
   * A synced project with an editor's article written in the CMS by hand, and a pull request's one
   * line of committed state that says `key` is that record (copying a real line's digests and marker).
   */
  async function forgedLine(key: string): Promise<Project> {
    const synced = (project = await createProject(site()));
    await synced.applyInProcess();
    const made = await synced.api({
      resource: 'article',
      action: 'add',
      data: { title: 'Our investigation', slug: 'investigation', body: '<p>Months of work.</p>' },
    });
    const state = readState(synced.dir);
    state.records[`article/${key}`] = {
      ...state.records['article/storm'],
      id: Number(made.data?.id ?? made.id),
      file: `content/articles/${key}.md`,
    };
    await writeState(synced.dir, state);
    return synced;
  }

  it("mapping a made-up key to the id of an editor's record does not get that record deleted", async () => {
    project = await forgedLine('old-typo');
    const apply = await project.run(['apply', '--prune']);
    expect(apply.stdout).toContain(
      "the CMS's record with this id has the slug `investigation`, not `old-typo`: not deleted",
    );
    expect(await bySlug(project, 'article', 'investigation')).toBeDefined();
  });

  it("naming the editor's record by its own key does not get it deleted either", async () => {
    // The copied digests and change marker are not the editor's record's: it is found changed
    // since "our" write.
    project = await forgedLine('investigation');
    const apply = await project.run(['apply', '--prune']);
    expect(apply.code).toBe(3);
    expect(apply.stdout).toContain('! article/investigation  content/articles/investigation.md is gone');
    expect(await bySlug(project, 'article', 'investigation')).toBeDefined();
  });
});
