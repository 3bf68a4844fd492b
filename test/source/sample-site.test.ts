import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanContent } from '../../src/source/scan-content.js';

const projectDir = fileURLToPath(new URL('../..', import.meta.url));

describe('the sample site in content/', () => {
  it('scans cleanly into every resource, with its images listed as media', async () => {
    const result = await scanContent({ projectDir, contentDir: path.join(projectDir, 'content') });
    expect(result.problems).toEqual([]);
    expect(result.failedFiles).toEqual([]);
    const count = (resource: string): number =>
      result.documents.filter((d) => d.resource === resource).length;
    expect(['article', 'breaking', 'category', 'page', 'user'].map(count)).toEqual([5, 1, 3, 2, 2]);
    expect(result.mediaFiles).toContain('content/images/river-flood.png');
    // Every article names a category that exists.
    const categories = result.documents.filter((d) => d.resource === 'category').map((d) => d.slug);
    for (const article of result.documents.filter((d) => d.resource === 'article')) {
      expect(categories).toContain(article.frontMatter['category']);
    }
  });
});
