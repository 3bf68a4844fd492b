import { spawn, spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, createProject, SECRET_TOKEN, type Project } from '../e2e/harness.js';

// `script` (util-linux) runs the CLI on a pseudo-terminal, as a user's terminal: stdin and stdout TTYs.
const hasScript = spawnSync('script', ['--version']).status === 0;

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** Runs `apply` on a terminal, answering `answer` once the question shows; the screen and exit code. */
function applyOnTerminal(args: string, answer: string | undefined, env: Record<string, string> = {}) {
  const command = `${process.execPath} ${BIN} --cwd ${project!.dir} apply ${args}`;
  // Not spawnSync: the CMS the CLI talks to runs in this process.
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CMS_BASE_URL: project!.cms.url,
      CMS_API_TOKEN: SECRET_TOKEN,
      NO_COLOR: '1',
      ...env,
    },
  });
  let screen = '';
  let answered = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    screen += chunk;
    if (!answered && answer !== undefined && screen.includes('Enter a value:')) {
      answered = true;
      child.stdin.write(`${answer}\n`);
    }
  });
  return new Promise<{ screen: string; code: number | null }>((resolve) =>
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ screen, code });
    }),
  );
}

describe.skipIf(!hasScript)('apply on a terminal, against a CMS other than the local one', () => {
  it("shows the plan and writes nothing unless the answer is 'yes'; --yes and CI do not ask", async () => {
    project = await createProject({ 'content/articles/a.md': '---\ntitle: A\n---\n\nBody.\n' });

    const declined = await applyOnTerminal('', 'y');
    expect(declined.screen).toMatch(/Plan: 1 to create[\s\S]*Only 'yes' will be accepted/);
    expect(declined.screen).toContain('Apply cancelled: nothing was written.');
    expect(declined.code).toBe(1);
    expect(project.cms.stats().writes).toBe(0);

    const approved = await applyOnTerminal('', 'yes');
    expect(approved.code).toBe(0);
    expect(approved.screen).toMatch(/Applied: 1 created/);
    expect(await project.records('article')).toHaveLength(1);

    await project.write('content/articles/b.md', '---\ntitle: B\n---\n\nBody.\n');
    const yes = await applyOnTerminal('--yes', undefined);
    expect(yes.screen).not.toContain('Enter a value');
    expect(yes.code).toBe(0);
    await project.write('content/articles/c.md', '---\ntitle: C\n---\n\nBody.\n');
    const ci = await applyOnTerminal('', undefined, { CI: 'true' });
    expect(ci.screen).not.toContain('Enter a value');
    expect(ci.code).toBe(0);
    expect(await project.records('article')).toHaveLength(3);
  }, 90_000);
});
