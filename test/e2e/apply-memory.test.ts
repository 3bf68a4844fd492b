import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { createProject, SECRET_TOKEN, type Project } from './harness.js';

/**
 * A cold apply holds in memory only the bodies of the documents it is building: every other
 * document waits in the run's spool on disk, front matter and Markdown from the scan until it is
 * built, HTML and fields from the build until it is written. Memory itself is measured by
 * `node bench/scale.mjs`; here the window is made small and the bodies in memory at once are
 * counted, and a second apply shows that what is decided over the whole folder (duplicate keys,
 * files that fail, deletes) is still decided over the whole folder.
 */

const ARTICLES = 12;
let project: Project;
let cold: {
  source: {
    documents: number;
    rendered: number;
    spool?: { texts: number; values: number; bytes: number; heldAtOnce: number };
  };
  result: { created: number };
};

beforeAll(async () => {
  const files: Record<string, string> = { 'content/categories/news.md': '---\nname: News\n---\n' };
  for (let i = 0; i < ARTICLES; i++)
    files[`content/articles/story-${i}.md`] =
      `---\ntitle: Story ${i}\ncategory: news\n---\n\n## Part of story ${i}\n\nThe council met on day ${i}.\n`;
  project = await createProject(files);
  const run = await project.run(['apply', '--json'], { env: { CMS_SYNC_TEST_BUILD_WINDOW: '2' } });
  expect(run.code, run.stderr).toBe(0);
  cold = JSON.parse(run.stdout);
});

afterAll(async () => {
  expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project.close();
});

describe('a cold apply in bounded memory', () => {
  it('holds no more bodies at once than it builds at once, every other one on disk', () => {
    expect(cold.result.created).toBe(ARTICLES + 1);
    expect(cold.source.rendered).toBe(ARTICLES);
    // Every document's Markdown went to the spool at the scan, and every rendered body's HTML...
    expect(cold.source.spool?.texts).toBe(cold.source.documents + cold.source.rendered);
    // ...and every document's front matter, and every built record's fields: memory keeps their
    // keys and where the rest is.
    expect(cold.source.spool?.values).toBe(2 * cold.source.documents);
    expect(cold.source.spool?.heldAtOnce).toBeGreaterThan(0);
    expect(cold.source.spool?.heldAtOnce).toBeLessThanOrEqual(2);
  });

  it('writes the bodies it read back from the spool, and leaves no spool file behind', async () => {
    const articles = await project.records('article');
    expect(articles).toHaveLength(ARTICLES);
    for (const article of articles) {
      const i = /^story-(\d+)$/.exec(article.slug)![1];
      expect(article.body).toContain(`<h2>Part of story ${i}</h2>`);
      expect(article.body).toContain(`The council met on day ${i}.`);
    }
    expect((await readdir(path.join(project.dir, '.cms-sync'))).filter((f) => f.includes('spool'))).toEqual(
      [],
    );
  });
});

describe('a later apply over the same small windows', () => {
  let later: { code: number; stdout: string; stderr: string };
  let doc: {
    plan: {
      counts: Record<string, number>;
      changes: Array<{ action: string; key: string; reason?: string }>;
    };
  };
  beforeAll(async () => {
    // The first and the last document claim one key; a document late in the folder fails to
    // build; one file is gone. Each is judged over the whole folder, not the window it is built in.
    await project.write(
      'content/articles/zz-copy.md',
      '---\ntitle: A copy\nslug: story-0\n---\n\nSame key.\n',
    );
    await project.write('content/articles/story-9.md', '---\ncategory: news\n---\n\nNo title any more.\n');
    await project.remove('content/articles/story-5.md');
    later = await project.run(['apply', '--json', '--prune', '--max-deletes', '1'], {
      env: { CMS_SYNC_TEST_BUILD_WINDOW: '2' },
    });
    doc = JSON.parse(later.stdout);
  }, 60_000);

  it('skips both files of a duplicate key and keeps their record, whichever window each is in', () => {
    expect(later.code, later.stderr).toBe(1);
    expect(later.stderr).toMatch(
      /content\/articles\/story-0\.md:1:1: key "article\/story-0" is also claimed by/,
    );
    expect(later.stderr).toMatch(
      /content\/articles\/zz-copy\.md:3:1: key "article\/story-0" is also claimed by/,
    );
    const story0 = doc.plan.changes.find((c) => c.key === 'article/story-0');
    expect(story0?.action).toBe('keep');
  });

  it('keeps the record of a file that fails in a later window, and deletes only the file that is gone', async () => {
    expect(later.stderr).toMatch(/content\/articles\/story-9\.md:\d+:1: .*title/);
    expect(doc.plan.changes.find((c) => c.key === 'article/story-9')?.action).toBe('keep');
    expect(doc.plan.changes.filter((c) => c.action === 'delete').map((c) => c.key)).toEqual([
      'article/story-5',
    ]);
    const slugs = (await project.records('article')).map((a) => a.slug);
    expect(slugs).toContain('story-9');
    expect(slugs).toContain('story-0');
    expect(slugs).not.toContain('story-5');
    expect(slugs).toHaveLength(ARTICLES - 1);
  });
});
