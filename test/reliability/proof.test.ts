import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serveContent } from '../../src/media/serve-content.js';
import { BIN, createProject, png, SECRET_TOKEN, type Project } from '../e2e/harness.js';
import { readStateIfAny, removeState } from '../helpers/state.js';

/**
 * The proof of "nothing lost, nothing twice": the real CLI against the local CMS with its
 * fault switches. Each test prints its figures (the README's reliability section quotes them).
 */

function newsroom(count: number, version = 1): Record<string, string | Buffer> {
  const files: Record<string, string | Buffer> = { 'content/categories/news.md': '---\nname: News\n---\n' };
  for (let i = 0; i < 10; i += 1) files[`content/images/photo-${i}.png`] = png(100 + i);
  for (let i = 0; i < count; i += 1) {
    const image = i % 5 === 0 ? `\n![Photo](../images/photo-${(i / 5) % 10}.png)\n` : '';
    files[`content/articles/story-${i}.md`] =
      `---\ntitle: Story ${i}, version ${version}\ncategory: news\n---\n\nParagraph of story ${i}.\n${image}`;
  }
  return files;
}

async function rewrite(project: Project, count: number, version: number): Promise<void> {
  for (const [file, content] of Object.entries(newsroom(count, version)))
    if (file.includes('/articles/')) await project.write(file, content);
}

/** Every record of the resource, and how many slugs occur more than once. */
async function census(
  project: Project,
  resource: string,
): Promise<{ records: Array<Record<string, any>>; duplicates: number }> {
  const records: Array<Record<string, any>> = [];
  for (let offset = 0; ; offset += 100) {
    const page = await withoutInjectedFailures(() =>
      project.api({ resource, action: 'get', limit: 100, offset, order_by: 'id ASC' }),
    );
    records.push(...page.items);
    if (page.items.length < 100) break;
  }
  const slugs = records.map((r) => r.slug ?? r.sha256);
  return { records, duplicates: slugs.length - new Set(slugs).size };
}

/** The test's own reads go through a CMS that may still inject 500s: those are asked again. */
async function withoutInjectedFailures<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await read();
    } catch (error) {
      if (attempt === 20 || !String(error).includes('Injected failure')) throw error;
    }
  }
}

function figures(name: string, values: Record<string, unknown>): void {
  console.log(
    `[proof] ${name}: ${Object.entries(values)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
}

let project: Project | undefined;
// Closing the local CMS lets requests in progress finish and waits for its fsynced writes, which
// after kill -9 runs can take longer than the default hook timeout; the harness says which step
// of a slow close it was.
afterEach(async () => {
  if (project) expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project?.close();
  project = undefined;
}, 120_000);

describe('reliability proof', () => {
  it(
    '(a) 100 records read in pages of 25, with 10% injected 500s and 10% drops after commit: converged, ' +
      '0 duplicates, a rerun writes nothing',
    async () => {
      // Pages of 25: the rerun's listing of the articles still reads several pages, under faults too.
      project = await createProject(
        { ...newsroom(100), 'sync.config.ts': 'export default { wire: { pageSize: 25 } };\n' },
        { failRate: 0.1, dropRate: 0.1, seed: 7 },
      );
      const first = await project.run(['apply', '--concurrency', '8']);
      const faults = project.cms.stats();
      expect(first.code, first.stderr).toBe(0);
      // The faults did happen (5 to 12 of each kind in practice).
      expect(faults.failed).toBeGreaterThan(0);
      expect(faults.dropped).toBeGreaterThan(0);

      const articles = await census(project, 'article');
      const media = await census(project, 'media');
      expect(articles.records).toHaveLength(100);
      expect(articles.duplicates).toBe(0);
      expect(media.records).toHaveLength(10);
      expect(media.duplicates).toBe(0);
      expect(articles.records.every((a) => a.title.endsWith('version 1'))).toBe(true);

      project.cms.resetStats();
      const second = await project.run(['apply']);
      expect(second.code).toBe(0);
      expect(project.cms.stats().writes).toBe(0);
      figures('(a) faults', {
        requests: faults.requests,
        'injected 500s': faults.failed,
        'dropped after commit': faults.dropped,
        articles: articles.records.length,
        media: media.records.length,
        duplicates: articles.duplicates + media.duplicates,
        'rerun writes': 0,
      });
    },
  );

  it(
    '(b) kill -9 after a random number of CMS writes in 10 runs of a 40-record apply, each followed by a ' +
      'rerun: converged, 0 duplicates, state always readable',
    async () => {
      // 40 records: each run still has more record writes than it keeps in flight at once (32), so a
      // kill can land with the window full, or refilling, or among the uploads ahead of it.
      project = await createProject(newsroom(40), { latencyMs: 3 });
      const env = {
        PATH: process.env.PATH,
        NO_COLOR: '1',
        CMS_BASE_URL: project.cms.url,
        CMS_API_TOKEN: SECRET_TOKEN,
      };
      const content = await serveContent(path.join(project.dir, 'content'));
      const baseUrl = content.baseUrl;
      const killedAt: number[] = [];
      let random = 42;
      const nextRandom = () => (random = (random * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      for (let k = 1; k <= 10; k += 1) {
        // Every round changes all 40 files, so each run has 40 writes to be killed in.
        if (k > 1) await rewrite(project, 40, k);
        // Killed once the CMS has taken a random number of this run's writes, not after a random
        // delay: on a busy machine a delay can end before the first write, and prove nothing.
        // The count starts from nothing each run: stats() copies the write log on every look,
        // every millisecond, on the thread that serves the CMS, so the log is kept to one run's.
        const cms = project.cms;
        cms.resetStats();
        const target = 1 + Math.floor(nextRandom() * 36);
        const killed = await runAndKill(
          ['--cwd', project.dir, 'apply', '--concurrency', '4'],
          { ...env, CMS_MEDIA_BASE_URL: baseUrl },
          () => cms.stats().writes >= target,
        );
        killedAt.push(killed ? cms.stats().writes : -1);
        // Whatever the kill left of the state files reads back whole.
        expect(() => readStateIfAny(project!.dir)).not.toThrow();
      }
      await content.close();
      // Every run was killed in the middle of its writes (a run that finished first shows as -1).
      expect(killedAt.every((writes) => writes > 0)).toBe(true);
      const final = await project.run(['apply', '--concurrency', '4']);
      expect(
        final.code,
        final.stderr +
          final.stdout
            .split('\n')
            .filter((l) => /^ {2}[!]|Plan:|abort|Nothing/.test(l))
            .slice(0, 8)
            .join('\n'),
      ).toBe(0);

      const articles = await census(project, 'article');
      const media = await census(project, 'media');
      expect(articles.records).toHaveLength(40);
      expect(articles.duplicates).toBe(0);
      expect(media.duplicates).toBe(0);
      expect(articles.records.every((a) => a.title.endsWith('version 10'))).toBe(true);
      project.cms.resetStats();
      expect((await project.run(['apply'])).code).toBe(0);
      expect(project.cms.stats().writes).toBe(0);
      figures('(b) kill -9', {
        'CMS writes before each kill': killedAt.join(' '),
        articles: articles.records.length,
        media: media.records.length,
        duplicates: articles.duplicates + media.duplicates,
        'rerun writes': 0,
      });
    },
    // Eleven CLI runs against a CMS with latency: its own budget, so a busy machine does not fail it.
    120_000,
  );

  it('(c) state deleted: the next plan creates nothing', async () => {
    project = await createProject(newsroom(50));
    // The first apply only sets the scene: the plan and the apply without state are what is checked.
    expect((await project.applyInProcess()).exitCode).toBe(0);
    await removeState(project.dir);
    const plan = JSON.parse((await project.run(['plan', '--json'])).stdout) as {
      plan: { counts: { create: number; update: number; adopt: number; upload: number } };
    };
    expect(plan.plan.counts).toMatchObject({ create: 0, update: 0, upload: 0, adopt: 51 });
    project.cms.resetStats();
    expect((await project.run(['apply'])).code).toBe(0);
    expect(project.cms.stats().writes).toBe(0);
    figures('(c) lost state', {
      creates: plan.plan.counts.create,
      adopted: plan.plan.counts.adopt,
      uploads: plan.plan.counts.upload,
    });
  });

  it(
    '(d) server --rps 30, client --concurrency 8 --rps 120: 429s under 5%, none sent before its ' +
      'Retry-After',
    async () => {
      project = await createProject(newsroom(100), { rps: 30 });
      const result = await project.run(['apply', '--concurrency', '8', '--rps', '120']);
      expect(result.code, result.stderr).toBe(0);
      const stats = project.cms.stats();
      const share = stats.rateLimited / stats.requests;
      // The limit did bite: a client that never went over it would show nothing.
      expect(stats.rateLimited).toBeGreaterThan(0);
      expect(stats.earlyAfterRetryAfter).toBe(0);
      expect(share).toBeLessThan(0.05);
      figures('(d) rate limit', {
        requests: stats.requests,
        '429s': stats.rateLimited,
        share: `${(share * 100).toFixed(1)}%`,
        'sent before Retry-After': stats.earlyAfterRetryAfter,
      });
    },
    60_000,
  );
});

/** Runs the CLI and kills it with SIGKILL once `due()` holds; true if it was killed, false if it ended first. */
function runAndKill(args: string[], env: NodeJS.ProcessEnv, due: () => boolean): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: 'ignore' });
    let killed = false;
    const timer = setInterval(() => {
      if (killed || !due()) return;
      killed = child.kill('SIGKILL');
    }, 1);
    child.on('error', reject);
    child.on('close', () => {
      clearInterval(timer);
      resolve(killed);
    });
  });
}
