import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import matter from 'gray-matter';
import { afterEach, describe, expect, it } from 'vitest';
import { readDocument } from '../../src/source/read-document.js';
import { makeProject } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

describe('readDocument', () => {
  it('reads one file the way the scan does (for watch)', async () => {
    const project = await makeProject({
      'content/users/jdoe.md': '---\nname: Jane Doe\nrole: editor\n---\nBio here.\n',
    });
    cleanups.push(project.cleanup);
    const doc = await readDocument(path.join(project.contentDir, 'users/jdoe.md'), {
      projectDir: project.dir,
      resource: 'user',
    });
    expect(doc).toMatchObject({
      key: 'user/jdoe',
      file: 'content/users/jdoe.md',
      frontMatter: { name: 'Jane Doe', role: 'editor' },
      frontMatterLines: { name: 2, role: 3 },
      body: 'Bio here.\n',
      bodyLine: 5,
    });
  });

  it('refuses a file whose name holds a line break, even with a slug of its own', async () => {
    const name = 'articles/z\n::error::injected.md';
    const project = await makeProject({ [`content/${name}`]: '---\ntitle: Z\nslug: zed\n---\nBody\n' });
    cleanups.push(project.cleanup);
    const result = await readDocument(path.join(project.contentDir, name), {
      projectDir: project.dir,
      resource: 'article',
    });
    expect(result).toMatchObject({
      problems: [
        {
          file: 'content/articles/z\n::error::injected.md',
          line: 1,
          message: 'the file name contains the control character U+000A: rename the file',
          severity: 'error',
        },
      ],
    });
    expect(result).not.toHaveProperty('key');
  });

  it('turns a file that cannot be read into a positioned problem that still claims its key', async () => {
    const project = await makeProject({});
    cleanups.push(project.cleanup);
    const abs = path.join(project.contentDir, 'articles/folder.md');
    await mkdir(abs, { recursive: true });
    const result = await readDocument(abs, { projectDir: project.dir, resource: 'article' });
    expect(result).toEqual({
      problems: [
        {
          file: 'content/articles/folder.md',
          line: 1,
          column: 1,
          message:
            'is a folder, not a regular file: cms-sync reads only regular files; replace it with one or remove it',
          severity: 'error',
        },
      ],
      claimedKeys: ['article/folder'],
    });
  });

  it('says exactly what is wrong with front matter after a blank line, instead of a missing title', async () => {
    const project = await makeProject({ 'content/articles/late.md': '\n\n---\ntitle: Late\n---\nBody\n' });
    cleanups.push(project.cleanup);
    const result = await readDocument(path.join(project.contentDir, 'articles/late.md'), {
      projectDir: project.dir,
      resource: 'article',
    });
    expect(result).toMatchObject({
      problems: [
        {
          file: 'content/articles/late.md',
          line: 3,
          column: 1,
          message:
            'front matter must start on the first line, but --- is on line 3: remove the blank line(s) before it',
          severity: 'error',
        },
      ],
    });
  });

  it("reads Hugo's TOML front matter between +++ lines, with key lines and dates as written", async () => {
    const project = await makeProject({
      'content/articles/hugo.md':
        '+++\ntitle = "Hugo"\ndate = 2024-05-01\ndraft = true\n[params]\nx = 1\n+++\nBody\n',
      'content/articles/broken.md': '+++\ntitle = \n+++\nBody\n',
    });
    cleanups.push(project.cleanup);
    const read = (file: string) =>
      readDocument(path.join(project.contentDir, file), { projectDir: project.dir, resource: 'article' });
    expect(await read('articles/hugo.md')).toMatchObject({
      frontMatter: { title: 'Hugo', date: '2024-05-01', draft: true, params: { x: 1 } },
      frontMatterLines: { title: 2, date: 3, draft: 4 },
      body: 'Body\n',
      bodyLine: 8,
    });
    expect(await read('articles/broken.md')).toMatchObject({
      problems: [{ line: 2, message: expect.stringMatching(/^front matter is not valid TOML: /) }],
    });
  });

  it('dates in front matter arrive as written, so an impossible one is not moved to another day', async () => {
    const project = await makeProject({ 'content/articles/d.md': '---\ndate: 2024-05-01\n---\n' });
    cleanups.push(project.cleanup);
    const doc = await readDocument(path.join(project.contentDir, 'articles/d.md'), {
      projectDir: project.dir,
      resource: 'article',
    });
    expect('frontMatter' in doc && doc.frontMatter['date']).toBe('2024-05-01');
  });

  it("leaves gray-matter's input cache empty, so a long watch session does not grow", async () => {
    const project = await makeProject({ 'content/articles/c.md': '---\ntitle: Cached?\n---\nBody\n' });
    cleanups.push(project.cleanup);
    await readDocument(path.join(project.contentDir, 'articles/c.md'), {
      projectDir: project.dir,
      resource: 'article',
    });
    expect(Object.keys((matter as unknown as { cache: Record<string, unknown> }).cache)).toEqual([]);
  });
});
