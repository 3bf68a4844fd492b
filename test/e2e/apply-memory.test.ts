import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { createProject, SECRET_TOKEN, type Project } from './harness.js';

/**
 * A cold apply holds in memory only the bodies of the documents it is building: every other
 * body waits in the run's spool on disk, Markdown from the scan until it is rendered and HTML
 * from the render until it is written. Memory itself is measured by `node bench/scale.mjs`;
 * here the window is made small and the bodies in memory at once are counted.
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
    // Every document's Markdown went to the spool at the scan, and every rendered body's HTML.
    expect(cold.source.spool?.texts).toBe(cold.source.documents + cold.source.rendered);
    // ...and every built record's fields: memory keeps its key and where the rest is.
    expect(cold.source.spool?.values).toBe(cold.source.documents);
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
