import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/errors.js';
import { createMediaResolver } from '../../src/media/resolve-media.js';
import { scanContent } from '../../src/source/scan-content.js';
import { makeProject } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** A project with `files`, then `links` (link path -> target, both relative to the project unless absolute). */
async function project(files: Record<string, string>, links: Record<string, string>) {
  const p = await makeProject(files);
  cleanups.push(p.cleanup);
  for (const [link, target] of Object.entries(links)) {
    const at = path.join(p.dir, link);
    await mkdir(path.dirname(at), { recursive: true });
    await symlink(
      path.isAbsolute(target) ? target : path.relative(path.dirname(at), path.join(p.dir, target)) || '.',
      at,
    );
  }
  return p;
}

async function scan(p: { dir: string; contentDir: string }) {
  const result = await scanContent({ projectDir: p.dir, contentDir: p.contentDir });
  return { ...result, messages: result.problems.map(formatProblem) };
}

describe('symbolic links in content/ (the scan)', () => {
  it(
    'refuses a linked document whose real file is outside content/, at the link, and goes on with the ' +
      'others',
    async () => {
      const p = await project(
        {
          'content/articles/good.md': '---\ntitle: Good\n---\n',
          'secrets/leak.md': '---\ntitle: Secret\n---\nSECRET\n',
        },
        { 'content/articles/leak.md': 'secrets/leak.md', 'content/articles/passwd.md': '/etc/passwd' },
      );
      const result = await scan(p);
      expect(result.documents.map((d) => d.key)).toEqual(['article/good']);
      expect(result.messages).toEqual([
        `content/articles/leak.md:1:1: is a symbolic link to ${path.join(p.dir, 'secrets/leak.md')}, a file outside ` +
          `content/: cms-sync never reads anything outside content/; move the file into content/ or replace the link ` +
          `with a copy`,
        'content/articles/passwd.md:1:1: is a symbolic link to /etc/passwd, a file outside content/: cms-sync never ' +
          'reads anything outside content/; move the file into content/ or replace the link with a copy',
      ]);
      expect(result.failedFiles).toEqual(['content/articles/leak.md', 'content/articles/passwd.md']);
      expect(result.protectedKeys).toEqual(['article/leak', 'article/passwd']);
    },
  );

  it('refuses a linked folder outside content/ without reading what is in it', async () => {
    const p = await project(
      { 'elsewhere/x.md': '---\ntitle: X\n---\n' },
      { 'content/articles/linked': 'elsewhere' },
    );
    const result = await scan(p);
    expect(result.documents).toEqual([]);
    expect(result.messages).toEqual([
      `content/articles/linked:1:1: is a symbolic link to ${path.join(p.dir, 'elsewhere')}, a folder outside ` +
        `content/: cms-sync never reads anything outside content/; move the folder into content/ or replace the link ` +
        `with a copy`,
    ]);
  });

  it('follows a link to a file or a folder that stays inside content/, once', async () => {
    const p = await project(
      { 'content/archive/2023/old.md': '---\ntitle: Old\n---\n', 'content/shared/about.md': '# About\n' },
      {
        'content/articles/2023': 'content/archive/2023',
        'content/articles/again': 'content/archive/2023',
        'content/pages/about.md': 'content/shared/about.md',
      },
    );
    const result = await scan(p);
    expect(result.documents.map((d) => [d.key, d.file])).toEqual([
      ['article/old', 'content/articles/2023/old.md'],
      ['page/about', 'content/pages/about.md'],
    ]);
    expect(result.documents.find((d) => d.key === 'page/about')?.body).toBe('# About\n');
    expect(result.messages).toEqual([
      'content/articles/again:1:1: warning: is a symbolic link to the folder already read through ' +
        'content/articles/2023, so it is not followed again',
    ]);
    expect(result.problems.every((problem) => problem.severity === 'warning')).toBe(true);
  });

  it('reads a linked page bundle by the name of the link, with its resources left out', async () => {
    const p = await project(
      {
        'content/drafts/trip-2024/index.md': '---\ntitle: Trip\n---\n',
        'content/drafts/trip-2024/index.es.md': '---\ntitle: Viaje\n---\n',
        'content/drafts/trip-2024/notes.md': 'notes\n',
      },
      { 'content/articles/trip': 'content/drafts/trip-2024' },
    );
    const result = await scan(p);
    expect(result.documents.map((d) => [d.key, d.file])).toEqual([
      ['article/trip', 'content/articles/trip/index.md'],
      ['article/trip-es', 'content/articles/trip/index.es.md'],
    ]);
    expect(result.messages).toEqual([
      'content/articles/trip/index.md:1:1: warning: is a page bundle, so the other Markdown files in its folder ' +
        '(notes.md) are its resources, not records; move them out of articles/trip/ to sync them on their own',
    ]);
  });

  it('detects loops (two links back up the tree) and reads each file once', { timeout: 20_000 }, async () => {
    const p = await project(
      { 'content/articles/a.md': '---\ntitle: A\n---\n' },
      {
        'content/articles/up1': 'content',
        'content/articles/up2': 'content',
        'content/articles/self': 'content/articles',
      },
    );
    const result = await scan(p);
    expect(result.documents.map((d) => d.file)).toEqual(['content/articles/a.md']);
    expect(result.messages).toEqual([
      'content/articles/self:1:1: warning: is a symbolic link to a folder that contains it (a loop), so it is not ' +
        'followed; remove the link',
      'content/articles/up1:1:1: warning: is a symbolic link to a folder that contains it (a loop), so it is not ' +
        'followed; remove the link',
      'content/articles/up2:1:1: warning: is a symbolic link to a folder that contains it (a loop), so it is not ' +
        'followed; remove the link',
    ]);
  });

  it('reports a link that leads nowhere as the document it claims to be', async () => {
    const p = await project({}, { 'content/articles/gone.md': 'content/articles/missing.md' });
    const result = await scan(p);
    expect(result.messages).toEqual([
      'content/articles/gone.md:1:1: is a symbolic link that leads nowhere (ENOENT); fix the link or remove it',
    ]);
    expect(result.protectedKeys).toEqual(['article/gone']);
  });
});

describe('symbolic links to images (the media resolver)', () => {
  it('refuses an image whose real file is outside content/, and resolves one linked inside', async () => {
    const p = await project(
      { 'content/images/real.png': 'PNG', 'content/articles/a.md': '' },
      { 'content/images/x.png': '/etc/passwd', 'content/images/y.png': 'content/images/real.png' },
    );
    await writeFile(path.join(p.dir, 'outside.png'), 'OUT');
    await symlink(path.join(p.dir, 'outside.png'), path.join(p.contentDir, 'images/z.png'));
    const resolver = createMediaResolver({
      projectDir: p.dir,
      contentDir: p.contentDir,
      canServeLocalFiles: true,
    });
    const doc = path.join(p.contentDir, 'articles/a.md');
    expect(await resolver.resolve('../images/x.png', doc)).toEqual({
      ok: false,
      message:
        'image `../images/x.png` is a symbolic link to /etc/passwd, outside content/: cms-sync never uploads ' +
        'anything from outside content/; copy the file into content/ instead of linking to it',
    });
    expect(await resolver.resolve('/images/z.png', doc)).toMatchObject({
      ok: false,
      message: expect.stringContaining('outside content/'),
    });
    expect(await resolver.hashFile('images/x.png')).toBeUndefined();
    expect(await resolver.resolve('../images/y.png', doc)).toMatchObject({
      ok: true,
      source: { kind: 'file', contentPath: 'images/y.png' },
    });
  });
});
