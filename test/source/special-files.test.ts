import { execFileSync, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/errors.js';
import { createMediaResolver } from '../../src/media/resolve-media.js';
import { serveContent } from '../../src/media/serve-content.js';
import { openRegular, realContentDir } from '../../src/source/open-regular.js';
import { readDocument } from '../../src/source/read-document.js';
import { scanContent } from '../../src/source/scan-content.js';
import { makeProject } from './helpers.js';

// What a careful attacker with a hand in content/ can put there besides files: named pipes (a
// plain open of one waits for a writer for good), links swapped in after the scan, names that
// are not UTF-8, that print alike, or that reorder themselves on screen.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function project(files: Record<string, string>) {
  const p = await makeProject(files);
  cleanups.push(p.cleanup);
  return p;
}

function mkfifo(file: string): void {
  execFileSync('mkfifo', [file]);
}

async function scan(p: { dir: string; contentDir: string }) {
  const result = await scanContent({ projectDir: p.dir, contentDir: p.contentDir });
  return { ...result, messages: result.problems.map(formatProblem) };
}

const NOT_REGULAR = 'not a regular file: cms-sync reads only regular files; replace it with one or remove it';

describe.skipIf(process.platform === 'win32')('special files and names in content/', () => {
  it('refuses a named pipe with a document name, directly or through a link, as a failed file', async () => {
    const p = await project({ 'content/articles/good.md': '---\ntitle: Good\n---\n' });
    mkfifo(path.join(p.contentDir, 'articles/pipe.md'));
    await mkdir(path.join(p.contentDir, 'shared'));
    mkfifo(path.join(p.contentDir, 'shared/other.md'));
    await symlink('../shared/other.md', path.join(p.contentDir, 'articles/linked.md'));
    const result = await scan(p);
    expect(result.documents.map((d) => d.key)).toEqual(['article/good']);
    expect(result.messages).toEqual([
      `content/articles/linked.md:1:1: is a named pipe, ${NOT_REGULAR}`,
      `content/articles/pipe.md:1:1: is a named pipe, ${NOT_REGULAR}`,
    ]);
    // Failed, not gone: its record is kept, never taken as deleted.
    expect(result.failedFiles).toEqual(['content/articles/linked.md', 'content/articles/pipe.md']);
    expect(result.protectedKeys).toEqual(['article/linked', 'article/pipe']);
    // And the next scan, which may keep the folder's listing, still sees it.
    expect((await scan(p)).failedFiles).toEqual(['content/articles/linked.md', 'content/articles/pipe.md']);
  });

  it('reads what it opened: a pipe or link swapped in after the scan is refused, not waited on', async () => {
    const p = await project({ 'secret.md': '---\ntitle: Secret\n---\nSECRET\n' });
    await mkdir(path.join(p.contentDir, 'articles'), { recursive: true });
    const pipe = path.join(p.contentDir, 'articles/a.md');
    mkfifo(pipe);
    // Should the open ever wait again, a writer comes by after a while (leaving a mark first), so
    // the test fails rather than hangs.
    const waited = path.join(p.dir, 'waited');
    const rescue = spawn('sh', ['-c', 'sleep 5; touch "$2"; : > "$1"', 'sh', pipe, waited], {
      stdio: 'ignore',
    });
    cleanups.push(async () => void rescue.kill());
    expect(readDocument(pipe, { projectDir: p.dir, resource: 'article' })).toMatchObject({
      problems: [{ file: 'content/articles/a.md', message: `is a named pipe, ${NOT_REGULAR}` }],
    });
    expect(existsSync(waited)).toBe(false);
    const link = path.join(p.contentDir, 'articles/b.md');
    await symlink(path.join(p.dir, 'secret.md'), link);
    expect(readDocument(link, { projectDir: p.dir, resource: 'article' })).toMatchObject({
      problems: [
        {
          file: 'content/articles/b.md',
          message: 'became a symbolic link while cms-sync was reading it; run again',
        },
      ],
    });
  });

  // A folder swapped for a link between the scan (which follows no linked folder) and the read:
  // O_NOFOLLOW guards only the last step of the path, so the file is checked to be where it was looked for.
  it.skipIf(process.platform !== 'linux')(
    'reads nothing through a folder that became a link out of content/ after the scan',
    async () => {
      const p = await project({
        'private/notes/a.md': '---\ntitle: Secret\n---\nSECRET\n',
        'private/notes/photo.png': 'PRIVATE PNG',
      });
      await mkdir(p.contentDir, { recursive: true });
      await symlink(path.join(p.dir, 'private/notes'), path.join(p.contentDir, 'articles'));
      const within = realContentDir(p.contentDir);
      const doc = path.join(p.contentDir, 'articles/a.md');
      expect(readDocument(doc, { projectDir: p.dir, resource: 'article', within })).toMatchObject({
        problems: [
          {
            file: 'content/articles/a.md',
            message:
              'was reached through a folder that became a link out of content/ while cms-sync was reading it; ' +
              'run again',
          },
        ],
      });
      await expect(openRegular(path.join(p.contentDir, 'articles/photo.png'), within)).rejects.toMatchObject({
        code: 'EOUTSIDE',
      });
      // What is inside content/ is read as before.
      await mkdir(path.join(p.contentDir, 'pages'));
      writeFileSync(path.join(p.contentDir, 'pages/about.md'), '---\ntitle: About\n---\n');
      const about = path.join(p.contentDir, 'pages/about.md');
      expect(readDocument(about, { projectDir: p.dir, resource: 'page', within })).toMatchObject({
        key: 'page/about',
      });
    },
  );

  it('says that a name is not valid UTF-8, rather than that the file does not exist', async () => {
    const p = await project({ 'content/articles/good.md': '---\ntitle: Good\n---\n' });
    const dir = Buffer.from(path.join(p.contentDir, 'articles/'));
    writeFileSync(Buffer.concat([dir, Buffer.from([0x62, 0xff, 0x2e, 0x6d, 0x64])]), '---\ntitle: B\n---\n');
    const result = await scan(p);
    expect(result.documents.map((d) => d.key)).toEqual(['article/good']);
    expect(result.messages).toEqual([
      'content/articles/b\uFFFD.md:1:1: the file name is not valid UTF-8 (shown with \uFFFD where its bytes ' +
        'are): rename the file',
    ]);
    expect(result.failedFiles).toEqual(['content/articles/b\uFFFD.md']);
  });

  it('names two files that print alike (composed and decomposed) as such', async () => {
    const p = await project({
      'content/articles/caf\u00e9.md': '---\ntitle: One\n---\n',
      'content/articles/cafe\u0301.md': '---\ntitle: Two\n---\n',
    });
    const result = await scan(p);
    expect(result.documents).toEqual([]);
    expect(result.messages).toHaveLength(2);
    for (const message of result.messages)
      expect(message).toContain(
        'both files are skipped until one of them changes its file name or sets a different `slug` (the two ' +
          'names are the same text in two Unicode forms, composed and decomposed: keep one file)',
      );
  });

  it('warns at keys that differ only in case, and syncs both', async () => {
    const p = await project({
      'content/articles/Case.md': '---\ntitle: Upper\n---\n',
      'content/articles/case.md': '---\ntitle: Lower\n---\n',
      'content/articles/other.md': '---\ntitle: Other\nslug: Other\n---\n',
    });
    const result = await scan(p);
    expect(result.documents.map((d) => d.key)).toEqual(['article/Case', 'article/Other', 'article/case']);
    expect(result.messages).toEqual([
      'content/articles/Case.md:1:1: warning: key "article/Case" differs only in case from "article/case" ' +
        '(content/articles/case.md): on macOS and Windows one file overwrites the other, and a CMS that ignores ' +
        'case in slugs sees one; rename one of them or give it another `slug`',
      'content/articles/case.md:1:1: warning: key "article/case" differs only in case from "article/Case" ' +
        '(content/articles/Case.md): on macOS and Windows one file overwrites the other, and a CMS that ignores ' +
        'case in slugs sees one; rename one of them or give it another `slug`',
    ]);
  });

  it('refuses a file name with a bidirectional control, which shows it in another order', async () => {
    const p = await project({
      'content/articles/good.md': '---\ntitle: Good\n---\n',
      'content/articles/x\u202Egpj.md': '---\ntitle: Spoof\nslug: spoof\n---\n',
    });
    const result = await scan(p);
    expect(result.documents.map((d) => d.key)).toEqual(['article/good']);
    expect(result.problems).toMatchObject([
      {
        file: 'content/articles/x\u202Egpj.md',
        message: 'the file name contains the bidirectional control U+202E: rename the file',
      },
    ]);
  });

  it('an image that is a named pipe: a clear error, a hash that does not wait, a 404 from the server', async () => {
    const p = await project({ 'content/images/a.png': 'PNG' });
    mkfifo(path.join(p.contentDir, 'images/pipe.png'));
    const resolver = createMediaResolver({
      projectDir: p.dir,
      contentDir: p.contentDir,
      canServeLocalFiles: true,
    });
    const doc = path.join(p.contentDir, 'articles/a.md');
    expect(await resolver.resolve('../images/pipe.png', doc)).toEqual({
      ok: false,
      message:
        'image `../images/pipe.png` is a named pipe, not a regular file: cms-sync uploads only regular files; ' +
        'replace it with the image',
    });
    expect(await resolver.hashFile('images/pipe.png')).toBeUndefined();
    const server = await serveContent(p.contentDir);
    cleanups.unshift(server.close);
    const get = (name: string) => fetch(new URL(name, server.baseUrl)).then((r) => r.status);
    expect(await get('images/pipe.png')).toBe(404);
    expect(await get('images/a.png')).toBe(200);
  });
});
