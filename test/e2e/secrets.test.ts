import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, SECRET_TOKEN, type Project } from './harness.js';
import { readState, readStateText, writeState } from '../helpers/state.js';

const PASSWORD = 'pw_9c2e7a41d0';

function site(): Record<string, string> {
  return {
    'content/articles/storm.md': '---\ntitle: Storm on the coast\n---\n\nWind and rain.\n',
    'content/pages/about.md': '---\ntitle: About\n---\n\nWho we are.\n',
  };
}

let project: Project | undefined;
afterEach(async () => {
  if (project) {
    expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
    expect(project.outputs.join('\n')).not.toContain(PASSWORD);
  }
  await project?.close();
  project = undefined;
});

/** The test CMS's URL with a user and password in it. */
const withCredentials = (url: string) => url.replace('http://', `http://alice:${PASSWORD}@`);

describe('credentials in CMS_BASE_URL are never printed or stored', () => {
  it('hides them on the Target line and keeps them out of state.json', async () => {
    project = await createProject(site());
    const env = { CMS_BASE_URL: withCredentials(project.cms.url) };
    const apply = await project.run(['apply'], { env });
    expect(apply.code).toBe(0);
    expect(apply.stdout.split('\n')[0]).toBe(`Target: ${project.cms.url.replace('http://', 'http://***@')}`);
    expect(await readStateText(project.dir)).not.toContain(PASSWORD);
    expect(readState(project.dir).target).toBe(project.cms.url);
    const plan = await project.run(['plan', '--json', '--detailed-exitcode'], { env });
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.stdout).target).toBe(project.cms.url);
  }, 60_000);

  it('reads a state an older version wrote with them as the same target, and writes it without', async () => {
    project = await createProject(site());
    const env = { CMS_BASE_URL: withCredentials(project.cms.url) };
    // Only the scene: the runs with the old state are what is checked.
    expect((await project.applyInProcess()).exitCode).toBe(0);
    const state = readState(project.dir);
    await writeState(project.dir, { ...state, target: withCredentials(project.cms.url) });
    // The run writes nothing to the CMS, but saves the state so the secret leaves the file.
    const apply = await project.run(['apply', '--json'], { env });
    expect(apply.code).toBe(0);
    expect(JSON.parse(apply.stdout).stats.writes).toBe(0);
    expect(await readStateText(project.dir)).not.toContain(PASSWORD);
    expect(readState(project.dir).target).toBe(project.cms.url);
    // ...and it reads the same with or without them in the URL.
    expect((await project.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  }, 60_000);

  it('hides them in error messages', async () => {
    project = await createProject(site());
    const apply = await project.run(['apply'], {
      env: { CMS_BASE_URL: withCredentials(project.cms.url), CMS_API_TOKEN: undefined },
    });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toBe(
      `No API token: set CMS_API_TOKEN (or --token-file) to the token from the CMS dashboard (settings, API) to sync ` +
        `to ${project.cms.url.replace('http://', 'http://***@')}.\n`,
    );
  }, 60_000);
});

describe('the API token', () => {
  it('refuses one with a line break inside, with a message (not a silent exit 13)', async () => {
    project = await createProject(site());
    const result = await project.run(['plan'], {
      env: { CMS_API_TOKEN: `${SECRET_TOKEN.slice(0, 8)}\n${SECRET_TOKEN.slice(8)}` },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'The environment variable CMS_API_TOKEN contains a line break or another control character, which cannot be ' +
        'sent in an HTTP header: copy the token again, as one line.\n',
    );
  }, 60_000);

  it('refuses one with whitespace around it, saying so', async () => {
    project = await createProject(site());
    const result = await project.run(['plan'], { env: { CMS_API_TOKEN: ` ${SECRET_TOKEN}\n` } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'The environment variable CMS_API_TOKEN has spaces or line breaks before or after the token: remove them (a ' +
        'token has none).\n',
    );
  }, 60_000);

  it(
    'is read from --token-file or CMS_API_TOKEN_FILE (a trailing line break is fine), so it is not in ' +
      'ps',
    async () => {
      project = await createProject(site());
      await writeFile(path.join(project.dir, 'cms-token'), `${SECRET_TOKEN}\n`);
      const fromFlag = await project.run(['apply', '--token-file', 'cms-token'], {
        env: { CMS_API_TOKEN: undefined },
      });
      expect(fromFlag.stderr).toBe('');
      expect(fromFlag.code).toBe(0);
      const fromEnv = await project.run(['plan', '--detailed-exitcode'], {
        env: { CMS_API_TOKEN: undefined, CMS_API_TOKEN_FILE: path.join(project.dir, 'cms-token') },
      });
      expect(fromEnv.code).toBe(0);
      const missing = await project.run(['plan'], {
        env: { CMS_API_TOKEN: undefined, CMS_API_TOKEN_FILE: 'nowhere' },
      });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toBe(
        'The token file nowhere (CMS_API_TOKEN_FILE) could not be read (ENOENT): check the path.\n',
      );
    },
    60_000,
  );

  it('warns once when it would go over plain http:// beyond this machine, never for loopback', async () => {
    // cms.invalid never answers: one retry of each call (not five with their backoff) still asks it
    // more than once, so a warning per request would show.
    project = await createProject({
      ...site(),
      'sync.config.ts': 'export default { sync: { retry: { maxAttempts: 2 } } };\n',
    });
    const loopback = await project.run(['plan']);
    expect(loopback.stderr).not.toContain('Warning');
    const remote = await project.run(['plan'], { env: { CMS_BASE_URL: 'http://cms.invalid' } });
    expect(remote.code).toBe(1);
    const warning =
      'Warning: the API token is sent over plain http:// to cms.invalid, so anyone on the way can read it. Use ' +
      'https:// for a CMS beyond this machine.';
    expect(remote.stderr.split('\n').filter((line) => line === warning)).toHaveLength(1);
  }, 60_000);
});
