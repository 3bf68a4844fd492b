import type { Server } from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  annotations,
  COMMENT_LIMIT,
  COMMENT_MARKER,
  commentMarkdown,
  summaryMarkdown,
  type SyncJson,
} from '../../src/init/ci-report.js';
import { createProject, SECRET_TOKEN, type Project } from '../e2e/harness.js';
import { playback, RECORDED } from './github-playback.js';

let project: Project | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await project?.close();
  project = undefined;
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

const GITHUB_TOKEN = 'ghs_pr_comment_token_0123456789';

describe('ci-report --pr-comment', () => {
  it('posts the plan on the pull request once, then edits that comment in place (recorded exchange)', async () => {
    project = await createProject({
      'content/articles/storm.md': '---\ntitle: Storm\n---\n\nWind and rain.\n',
      'content/articles/broken.md': '---\ntitle: [oops\n---\n',
    });
    // In this process: the apply only sets the scene (broken.md makes it exit 1); the plan after it feeds the report.
    await project.applyInProcess();
    await project.write(
      'content/articles/storm.md',
      '---\ntitle: Storm warning\n---\n\nWind and heavy rain.\n',
    );
    const plan = await project.run(['plan', '--json', '--diff']);
    await project.write('plan.json', plan.stdout);
    await project.write('plan.log', plan.stderr);
    await project.write(
      'event.json',
      JSON.stringify({ action: 'synchronize', number: 42, pull_request: { number: 42 } }),
    );
    await project.write('summary.md', '');

    const env = (apiUrl: string) => ({
      GITHUB_API_URL: apiUrl,
      GITHUB_TOKEN,
      GITHUB_REPOSITORY: 'newsroom/site',
      GITHUB_EVENT_PATH: path.join(project!.dir, 'event.json'),
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_RUN_ID: '777',
      GITHUB_STEP_SUMMARY: path.join(project!.dir, 'summary.md'),
    });
    const report = ['ci-report', 'plan.json', '--log', 'plan.log', '--pr-comment'];

    const first = await playback(RECORDED.runs[0]!);
    servers.push(first.server);
    const posted = await project.run(report, { env: env(first.url) });
    expect(posted.code).toBe(0);
    expect(posted.stderr).toContain(
      'Plan created on pull request #42: https://github.com/newsroom/site/pull/42#issuecomment-2002.',
    );
    expect(first.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /repos/newsroom/site/issues/42/comments?per_page=100&page=1',
      'POST /repos/newsroom/site/issues/42/comments',
    ]);
    for (const r of first.received) {
      expect(r.authorization).toBe(`Bearer ${GITHUB_TOKEN}`);
      expect(r.apiVersion).toBe('2022-11-28');
    }
    const body: string = first.received[1]!.body.body;
    expect(body.startsWith(`${COMMENT_MARKER}\n### cms-sync plan`)).toBe(true);
    expect(body).toContain('**1** update');
    expect(body).toContain('- `~` update `article/storm` (`body`, `title`)');
    expect(body).toContain('title: "Storm" → "Storm warning"');
    expect(body).toContain('+<p>Wind and heavy rain.</p>');
    expect(body).toContain('**1 file has problems**');
    expect(body).toContain('[job summary](https://github.com/newsroom/site/actions/runs/777)');

    // The next push: the bot's comment is found (the reviewer's, with the marker, is not) and edited.
    const second = await playback(RECORDED.runs[1]!);
    servers.push(second.server);
    const edited = await project.run(report, { env: env(second.url) });
    expect(edited.code).toBe(0);
    expect(edited.stderr).toContain('Plan updated on pull request #42');
    expect(second.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /repos/newsroom/site/issues/42/comments?per_page=100&page=1',
      'PATCH /repos/newsroom/site/issues/comments/2002',
    ]);
    expect(second.received[1]!.body.body).toBe(body);

    // A read-only token (a fork's pull request): a warning, the job is not failed by it.
    const refused = await playback(RECORDED.runs[2]!);
    servers.push(refused.server);
    const warned = await project.run(report, { env: env(refused.url) });
    expect(warned.code).toBe(0);
    expect(warned.stdout).toContain(
      '::warning title=cms-sync::No pull request comment: GitHub answered GET ' +
        '/repos/newsroom/site/issues/42/comments with HTTP 403: Resource not accessible by integration',
    );
    for (const text of project.outputs) expect(text).not.toContain(GITHUB_TOKEN);
    expect(project.outputs.join('')).not.toContain(SECRET_TOKEN);
  }, 90_000);
});

/** A `plan --json --diff` document of `n` updated records, each with a title change and a body diff. */
function bigPlan(n: number): SyncJson {
  const changes = Array.from({ length: n }, (_, i) => {
    const slug = `story-${String(i).padStart(4, '0')}`;
    // A rewritten story: every paragraph of it changed, so its diff is long (and folded).
    const paragraphs = Array.from({ length: 12 }, (_, p) => p);
    const hunk = [
      '@@ -1,13 +1,13 @@',
      ' <h2>Story</h2>',
      ...paragraphs.map((p) => `-<p>Paragraph ${p} of story ${i}, as the CMS holds it today.</p>`),
      ...paragraphs.map((p) => `+<p>Paragraph ${p} of story ${i}, as the pull request rewrites it.</p>`),
    ];
    return {
      action: 'update',
      key: `article/${slug}`,
      file: `content/articles/${slug}.md`,
      fields: ['body', 'title'],
      values: [
        { field: 'body', cmsField: 'body', diff: hunk.join('\n') },
        { field: 'title', cmsField: 'title', diff: `"Old ${i}" → "New ${i}"` },
      ],
    };
  });
  return {
    mode: 'plan',
    target: 'https://cms.example',
    plan: { counts: { update: n }, changes, problems: [] },
  };
}

describe('the pull request comment', () => {
  it('stays under GitHub 65,536 characters for a 5,000-record plan, pointing to the job summary for the rest', () => {
    const url = 'https://github.com/newsroom/site/actions/runs/777';
    const markdown = commentMarkdown(bigPlan(5000), { summaryUrl: url });
    expect(markdown.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    const shown = markdown.match(/^- `~` update /gm)!.length;
    // The size, not the count of changes, is what cut the list here.
    expect(shown).toBeGreaterThan(10);
    expect(shown).toBeLessThan(50);
    expect(markdown).toContain(`… and ${5000 - shown} more, see the [job summary](${url}).`);
    // Long diffs are folded, short ones shown.
    expect(markdown).toContain('<details><summary>diff of <code>article/story-0000</code>');
    // With a tight limit, the cut still holds and still says how many were left out.
    const tight = commentMarkdown(bigPlan(5000), { summaryUrl: url, limit: 3000 });
    expect(tight.length).toBeLessThanOrEqual(3000);
    expect(tight).toMatch(/… and \d+ more, see the \[job summary\]/);
  });
});

describe('annotations', () => {
  it('makes one annotation per file, at most 10 of each kind, and lists the other files in the job summary', () => {
    const problems: SyncJson['plan']['problems'] = Array.from({ length: 25 }, (_, i) => ({
      file: `content/articles/bad-${String(i).padStart(2, '0')}.md`,
      line: 2,
      column: 1,
      severity: 'error' as const,
      message: '`title` is required',
    }));
    problems.push(
      { file: 'content/articles/bad-00.md', line: 5, column: 3, severity: 'error', message: 'image missing' },
      { file: 'content/articles/bad-00.md', line: 9, column: 1, severity: 'warning', message: 'unknown key' },
    );
    const doc: SyncJson = { mode: 'plan', plan: { changes: [], problems } };
    const lines = annotations(doc);
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe(
      '::error file=content/articles/bad-00.md,line=2,col=1,title=cms-sync (3)::2:1: `title` is required%0A' +
        '5:3: image missing%0A9:1: warning: unknown key'.replace('warning: ', ''),
    );
    expect(lines[1]).toBe(
      '::error file=content/articles/bad-01.md,line=2,col=1,title=cms-sync::`title` is required',
    );
    const summary = summaryMarkdown(doc);
    expect(summary).toContain('**Not annotated (15)**: GitHub shows 10 annotations of each kind');
    expect(summary).toContain('- `content/articles/bad-24.md`: 2:1: `title` is required');
    // Every problem stays in the summary's list.
    expect(summary.match(/^- `content\/articles\/bad-\d\d\.md:\d+:\d+`/gm)).toHaveLength(27);
  });

  it('shows HTML and mentions from field names and messages as text: nothing folds, no one is pinged', () => {
    const doc: SyncJson = {
      mode: 'plan',
      plan: {
        changes: [
          {
            action: 'update',
            key: 'article/storm',
            file: 'content/articles/storm.md',
            fields: ['x<details><summary>typo fix only, reviewed by @acme/editors</summary>'],
          },
        ],
        problems: [
          {
            file: 'content/articles/a.md',
            line: 1,
            column: 1,
            severity: 'error',
            message: 'see <details><summary>nothing</summary> and ask @acme/editors',
          },
        ],
      },
    };
    const comment = commentMarkdown(doc, { summaryUrl: 'https://x.example/s' });
    // A field name is a code span: GitHub shows it exactly as written, renders no HTML in it and
    // pings no one from it.
    expect(comment).toContain('(`x<details><summary>typo fix only, reviewed by @acme/editors</summary>`)');
    // A message (in the job summary) is text: its HTML escaped, its mention broken by a
    // zero-width space.
    for (const text of [summaryMarkdown(doc)]) {
      expect(text).toContain(
        'see &lt;details&gt;&lt;summary&gt;nothing&lt;/summary&gt; and ask @\u200bacme/editors',
      );
      expect(text).not.toContain('<details><summary>nothing');
    }
  });
});
