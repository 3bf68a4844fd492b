import { afterEach, expect, it, vi } from 'vitest';
import { scanContent } from '../../src/source/scan-content.js';
import { makeProject } from './helpers.js';

// What the scan tells process-tuning decides whether V8's heap growth is changed for the run
// (src/process-tuning.ts): only documents actually read and parsed count, never files the last
// write vouches for, so a no-op over a large site keeps V8's defaults.
const told = vi.hoisted(() => ({ read: 0 }));
vi.mock('../../src/process-tuning.js', () => ({
  documentRead: () => (told.read += 1),
}));

let cleanup: (() => Promise<void>) | undefined;
afterEach(() => cleanup?.());

it('counts the documents it parses, not those vouched for unchanged', async () => {
  const same = '---\ntitle: Same\n---\nSame.\n';
  const project = await makeProject({
    'content/articles/a.md': same,
    'content/articles/b.md': same.replace('Same', 'Also same'),
    'content/articles/c.md': '---\ntitle: Edited\n---\nNew.\n',
    'content/articles/d.md': '---\ntitle: New\n---\nNew.\n',
  });
  cleanup = project.cleanup;
  const vouched = new Map([
    ['content/articles/a.md', 'a'],
    ['content/articles/b.md', 'b'],
  ]);
  const known = (file: string) => {
    const slug = vouched.get(file);
    return slug ? { key: `article/${slug}`, slug } : undefined;
  };
  const result = await scanContent({ projectDir: project.dir, contentDir: project.contentDir, known });
  expect(result.unchanged).toHaveLength(2);
  expect(result.documents).toHaveLength(2);
  expect(told.read).toBe(2);
});
