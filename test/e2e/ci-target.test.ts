import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hasState, legacyStateJson, readState, removeState } from '../helpers/state.js';
import { createProject, SECRET_TOKEN, type Project } from './harness.js';

function site(): Record<string, string> {
  return {
    'content/articles/storm.md': '---\ntitle: Storm on the coast\n---\n\nWind and rain.\n',
    'content/pages/about.md': '---\ntitle: About\n---\n\nWho we are.\n',
  };
}

/** No CMS_BASE_URL: the embedded local CMS of the project (its own token, its own data). */
const LOCAL = { CMS_BASE_URL: undefined, CMS_API_TOKEN: undefined, CMS_MEDIA_BASE_URL: undefined };
const LOCAL_STATE = '.cms-sync/local-cms/state';

let project: Project | undefined;
afterEach(async () => {
  if (project) expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project?.close();
  project = undefined;
});

const exists = (p: Project, file: string) => existsSync(path.join(p.dir, file));

describe('state belongs to one target', () => {
  it('keeps the local CMS state out of the committed .cms-sync/state.json', async () => {
    project = await createProject(site());
    const first = await project.run(['apply'], { env: LOCAL });
    expect(first.code).toBe(0);
    expect(hasState(project.dir)).toBe(false);
    expect(readState(project.dir, LOCAL_STATE).target).toBe('local');
    // The same content then goes to the real CMS with a state of its own: nothing refused.
    const real = await project.run(['apply']);
    expect(real.code).toBe(0);
    expect(readState(project.dir).target).toBe(project.cms.url);
    // And the local state still stands for the local CMS: nothing to do there.
    expect((await project.run(['plan', '--detailed-exitcode'], { env: LOCAL })).code).toBe(0);
  }, 90_000);

  it(
    'moves a local state an older version left in .cms-sync/state.json, with its journal, and creates nothing ' +
      'twice',
    async () => {
      project = await createProject(site());
      // The set-up: a local state to move; the run under test is the CLI's below.
      expect((await project.applyInProcess({ env: LOCAL })).exitCode).toBe(0);
      // As an older version left it: the local state in the committed place.
      await project.write('.cms-sync/state.json', legacyStateJson(readState(project.dir, LOCAL_STATE)));
      const state = readState(project.dir, LOCAL_STATE) as { lineage: string; serial: number };
      await project.write(
        '.cms-sync/journal.jsonl',
        `${JSON.stringify({ t: 'header', lineage: state.lineage, serial: state.serial })}\n`,
      );
      await removeState(project.dir, LOCAL_STATE);

      // plan reads it where it is and moves nothing.
      expect((await project.run(['plan', '--detailed-exitcode'], { env: LOCAL })).code).toBe(0);
      expect(exists(project, '.cms-sync/state.json')).toBe(true);

      const apply = await project.run(['apply', '--json'], { env: LOCAL });
      expect(apply.code).toBe(0);
      expect(apply.stderr).toContain(
        "Moved the local CMS's state from .cms-sync/state.json to .cms-sync/local-cms/state/: it does not belong in " +
          'the committed state. Commit the removal.',
      );
      expect(JSON.parse(apply.stdout).stats.writes).toBe(0);
      expect(exists(project, '.cms-sync/state.json')).toBe(false);
      expect(exists(project, '.cms-sync/journal.jsonl')).toBe(false);
      expect(readState(project.dir, LOCAL_STATE).lineage).toBe(state.lineage);
    },
    90_000,
  );

  it('a real target moves a leftover local state out of its way and adopts its records by slug', async () => {
    project = await createProject(site());
    // The set-up: a local state left over; the runs under test are the CLI's below.
    expect((await project.applyInProcess({ env: LOCAL })).exitCode).toBe(0);
    await project.write('.cms-sync/state.json', legacyStateJson(readState(project.dir, LOCAL_STATE)));
    await removeState(project.dir, LOCAL_STATE);
    // The records are already in the real CMS (made by hand, or by a run whose state was lost).
    await project.api({
      resource: 'article',
      action: 'add',
      data: { title: 'Storm on the coast', slug: 'storm', body: '<p>Wind and rain.</p>' },
    });

    // plan treats the leftover as no state, rather than stopping on "belongs to another CMS".
    expect((await project.run(['plan'])).code).toBe(0);
    const apply = await project.run(['apply']);
    expect(apply.code).toBe(0);
    expect(readState(project.dir).target).toBe(project.cms.url);
    expect(readState(project.dir, LOCAL_STATE).target).toBe('local');
    expect((await project.records('article')).map((a) => a.slug)).toEqual(['storm']);
  }, 90_000);
});

describe('in CI, the embedded local CMS only when asked for', () => {
  it('fails loudly when CMS_BASE_URL is missing, saying what to set, and writes nothing', async () => {
    project = await createProject(site());
    for (const command of ['plan', 'apply', 'watch']) {
      const result = await project.run([command], { env: { ...LOCAL, CI: 'true' } });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        'No CMS to sync to: CMS_BASE_URL is not set, and in CI cms-sync does not fall back to a throwaway local CMS. ' +
          "Set CMS_BASE_URL and CMS_API_TOKEN (from the repository's secrets), or pass --local (or CMS_SYNC_LOCAL=1) " +
          'to use the embedded local CMS on purpose.\n',
      );
    }
    expect(hasState(project.dir)).toBe(false);
    expect(exists(project, '.cms-sync/local-cms')).toBe(false);
  }, 60_000);

  it('uses it with --local or CMS_SYNC_LOCAL=1, and when CI is "false"', async () => {
    project = await createProject(site());
    const flag = await project.run(['apply', '--local'], { env: { ...LOCAL, CI: 'true' } });
    expect(flag.code).toBe(0);
    expect(flag.stdout.split('\n')[0]).toMatch(
      /^Using the local CMS at http:\/\/127\.0\.0\.1:\d+ \(embedded/,
    );
    expect(
      (
        await project.run(['plan', '--detailed-exitcode'], {
          env: { ...LOCAL, CI: '1', CMS_SYNC_LOCAL: '1' },
        })
      ).code,
    ).toBe(0);
    expect(
      (await project.run(['plan', '--detailed-exitcode'], { env: { ...LOCAL, CI: 'false' } })).code,
    ).toBe(0);
    // --local wins over a CMS_BASE_URL that is set.
    const local = await project.run(['plan', '--local']);
    expect(local.stdout.split('\n')[0]).toMatch(/^Using the local CMS/);
    expect(hasState(project.dir)).toBe(false);
    expect(readState(project.dir, LOCAL_STATE).target).toBe('local');
  }, 90_000);
});
