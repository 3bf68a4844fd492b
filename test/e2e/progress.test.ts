import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, createProject, SECRET_TOKEN, type Project } from './harness.js';

// `script` (util-linux) runs the CLI on a pseudo-terminal: stdout and stderr are a TTY, as in a user's terminal.
const hasScript = spawnSync('script', ['--version']).status === 0;

/** A progress line, as a log shows it. */
const PROGRESS = /^(Reading the config|Scanning content\/|Rendering|Listing the CMS|Comparing with the CMS)/;
/** Lines between two progress lines in a log: a short run never lasts the default, so the tests ask for 1 ms. */
const EVERY_MS = { CMS_SYNC_PROGRESS_LOG_MS: '1' };

let project: Project;
beforeAll(async () => {
  const files: Record<string, string> = {};
  // Two kinds of warning, each in several files: a front matter key not sent, an image left in a code block.
  for (const name of ['a', 'b', 'c'])
    files[`content/articles/${name}.md`] = `---\ntitle: ${name}\ntags: [x]\n---\n\nStory ${name}.\n`;
  for (const name of ['d', 'e'])
    files[`content/articles/${name}.md`] = `---\ntitle: ${name}\n---\n\n<pre><img src="x.png"></pre>\n`;
  project = await createProject(files);
});
afterAll(async () => {
  expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project.close();
});

const warnings = (stderr: string) => stderr.split('\n').filter((line) => line.includes(': warning: '));

describe('progress and warnings in a log (not a terminal)', () => {
  it('prints plain progress lines on stderr while phases last, and one warning line per kind', async () => {
    const plan = await project.run(['plan'], { env: EVERY_MS });
    expect(plan.code, plan.stderr).toBe(0);
    const lines = plan.stderr.split('\n').filter((line) => PROGRESS.test(line));
    expect(lines.length).toBeGreaterThan(0);
    expect(plan.stderr).not.toContain('\x1b');
    expect(plan.stdout.split('\n').filter((line) => PROGRESS.test(line))).toEqual([]);
    expect(warnings(plan.stderr)).toEqual([
      'content/articles/a.md:3:1: warning: front matter `tags` is not sent to the CMS (in 3 files: here, ' +
        'content/articles/b.md:3, content/articles/c.md:3): list it in resources.article.passThrough in ' +
        'sync.config.ts to send it',
      expect.stringMatching(
        /^content\/articles\/d\.md:\d+:\d+: warning: <img> inside <pre> .* \(in 2 files: here, content\/articles\/e\.md:\d+\)$/,
      ),
    ]);
  });

  it('prints no progress with --json, and every warning with --verbose', async () => {
    const plan = await project.run(['plan', '--json', '--verbose'], { env: EVERY_MS });
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).plan).toBeDefined();
    expect(plan.stderr.split('\n').filter((line) => PROGRESS.test(line))).toEqual([]);
    expect(warnings(plan.stderr).map((line) => line.slice(0, line.indexOf(':')))).toEqual([
      'content/articles/a.md',
      'content/articles/b.md',
      'content/articles/c.md',
      'content/articles/d.md',
      'content/articles/e.md',
    ]);
  });
});

describe('progress of import (and pull), through the same reporter', () => {
  it('counts the items converted in a log', async () => {
    const xml = fileURLToPath(new URL('../fixtures/migrate/wordpress/export.xml', import.meta.url));
    const imported = await project.run(['import', 'wordpress', xml, '--out', 'imported'], { env: EVERY_MS });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(/^Importing \d+\/9$/m);
    expect(imported.stdout).not.toMatch(/^Importing/m);
  });
});

describe.skipIf(!hasScript)('progress on a terminal', () => {
  it('draws a line in place from the first output on, and takes it away before every other line', async () => {
    const command = `${process.execPath} ${BIN} --cwd ${project.dir} plan --no-pager`;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        CMS_BASE_URL: project.cms.url,
        CMS_API_TOKEN: SECRET_TOKEN,
        NO_COLOR: '1',
      },
    });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    project.outputs.push(screen);
    expect(code, screen).toBe(0);
    // The first thing on the screen is the progress line, before the target is even known.
    expect(screen.startsWith('\r\x1b[2KReading the config, opening the CMS and state…')).toBe(true);
    expect(screen.indexOf('\x1b[2KRendering ')).toBeGreaterThan(0);
    expect(screen.indexOf('\x1b[2KRendering ')).toBeLessThan(screen.indexOf('Plan: '));
    // Each drawing is followed by the next drawing or by an erase: never by other text on its line.
    const erase = '\r\x1b[2K';
    const shown = screen
      .replace(/\r\n/g, '\n')
      .split(erase)
      // A piece that neither ends its line nor is the last was a drawing, taken away by the next erase.
      .filter((piece, i, pieces) => piece.includes('\n') || i === pieces.length - 1)
      .join('');
    const lines = shown.split('\n');
    expect(lines.filter((line) => PROGRESS.test(line) || line.includes('…'))).toEqual([]);
    expect(lines[0]).toMatch(/^Target: http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines).toContain('Plan: 5 to create, 0 to update, 0 to delete, 0 to upload, 0 unchanged.');
  }, 60_000);
});
