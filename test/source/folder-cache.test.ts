import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { mkdir, realpath, rename, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/errors.js';
import { listedDigest } from '../../src/digest.js';
import { FOLDER_CACHE_FILE, FolderCache, type FolderListing } from '../../src/source/folder-cache.js';
import { openHashCache } from '../../src/source/hash-cache.js';
import { scanContent, type ScanOptions } from '../../src/source/scan-content.js';
import { makeProject } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** Ten seconds on: every folder is old enough for its stamp to be kept (see RACY_MS). */
const later = () => Date.now() + 10_000;

async function project(files: Record<string, string>) {
  const made = await makeProject(files);
  cleanups.push(made.cleanup);
  // The cache keeps only folders reached without a link: the temporary folder may be one (macOS).
  const dir = await realpath(made.dir);
  return {
    dir,
    contentDir: path.join(dir, 'content'),
    cacheFile: path.join(dir, '.cms-sync', FOLDER_CACHE_FILE),
  };
}

type Project = Awaited<ReturnType<typeof project>>;

/** What a scan lists and reports, to compare a scan through the cache with one without. */
async function listed(p: Project, extra: Partial<ScanOptions> = {}) {
  const result = await scanContent({ projectDir: p.dir, contentDir: p.contentDir, ...extra });
  return {
    seen: {
      documents: result.documents.map((d) => [d.key, d.file]),
      failed: result.failedFiles,
      media: result.mediaFiles,
      problems: result.problems.map(formatProblem),
    },
    folders: result.folders,
  };
}

const cached = (p: Project, now: () => number = later, save = true) =>
  listed(p, { folderCache: { file: p.cacheFile, save, now } });

/** Writes to a folder only once its last change is in the past of the file system's clock. */
const step = () => sleep(25);

describe('the folder cache', () => {
  it('lists as a listing without it does through every change to content/, reading changed folders only', async () => {
    const p = await project({
      'content/articles/a.md': '---\ntitle: A\n---\n',
      'content/articles/b.md': '---\ntitle: B\n---\n',
      'content/articles/2024/c.md': '---\ntitle: C\n---\n',
      'content/articles/.drafts/d.md': '---\ntitle: D\n---\n',
      'content/articles/notes.txt': 'not a document',
      'content/articles/post/index.md': '---\ntitle: Post\n---\n',
      'content/articles/post/photo.png': 'png',
      'content/images/x.png': 'png',
      'content/pages/about.md': '# About\n',
      'content/shared/e.md': '---\ntitle: E\n---\n',
    });
    const folders = 7; // content, articles, 2024, post, images, pages, shared
    const first = await cached(p);
    expect(first.seen).toEqual((await listed(p)).seen);
    expect(first.folders).toEqual({ reused: 0, read: folders });
    const again = await cached(p);
    expect(again.seen).toEqual(first.seen);
    expect(again.folders).toEqual({ reused: folders, read: 0 });

    const a = (...parts: string[]) => path.join(p.contentDir, ...parts);
    const changes: Array<[string, () => Promise<unknown>]> = [
      ['a file added', () => writeFile(a('articles', 'f.md'), '---\ntitle: F\n---\n')],
      ['a file removed from a subfolder', () => rm(a('articles', '2024', 'c.md'))],
      ['a folder renamed', () => rename(a('articles', '2024'), a('articles', '2025'))],
      ['a file renamed', () => rename(a('articles', 'b.md'), a('articles', 'b2.md'))],
      ['a resource of a bundle added', () => writeFile(a('articles', 'post', 'other.md'), '# x\n')],
      ['an image added', () => writeFile(a('images', 'y.jpg'), 'jpg')],
      [
        'a folder with documents added',
        async () => {
          await mkdir(a('articles', 'new'));
          await writeFile(a('articles', 'new', 'g.md'), '---\ntitle: G\n---\n');
        },
      ],
      [
        'a link to a document added',
        () => symlink(path.join('..', 'pages', 'about.md'), a('articles', 'h.md')),
      ],
      ['a link to a folder added', () => symlink(path.join('..', 'shared'), a('articles', 'linked'))],
      ['a file added in the linked folder', () => writeFile(a('shared', 'i.md'), '---\ntitle: I\n---\n')],
      [
        'a link to a document outside content/',
        () => symlink(path.join(p.dir, 'outside.md'), a('pages', 'out.md')),
      ],
      [
        'the links removed',
        async () => {
          await rm(a('articles', 'h.md'));
          await rm(a('articles', 'linked'));
          await rm(a('pages', 'out.md'));
        },
      ],
      [
        // Its size too: the same number of entries, names of the same length.
        'a file renamed, the folder given back the times it was kept with',
        async () => {
          const kept = new Date('2020-01-01');
          await utimes(a('articles'), kept, kept);
          await cached(p);
          await step();
          await rename(a('articles', 'a.md'), a('articles', 'z.md'));
          await utimes(a('articles'), kept, kept);
        },
      ],
      [
        'a folder that became a file',
        async () => {
          await rm(a('articles', '2025'), { recursive: true });
          await writeFile(a('articles', '2025'), 'now a file');
        },
      ],
      [
        'content/articles replaced by another folder',
        async () => {
          await rename(a('articles'), path.join(p.dir, 'old-articles'));
          await mkdir(a('articles'));
          await writeFile(a('articles', 'k.md'), '---\ntitle: K\n---\n');
        },
      ],
      ['a folder emptied', () => rm(a('articles', 'k.md'))],
    ];
    for (const [change, make] of changes) {
      await step();
      await make();
      const fresh = (await listed(p)).seen;
      // Twice: the first run through the cache reads what changed; the second reuses what it kept.
      for (const run of [1, 2])
        expect({ change, run, seen: (await cached(p)).seen }).toEqual({ change, run, seen: fresh });
    }
    // Read again: only what changed since (here, nothing), once no link is left in content/.
    expect((await cached(p)).folders?.read).toBe(0);
  });

  it('reads a folder with a link on every run: where a link leads changes with no folder changing', async () => {
    const p = await project({
      'content/articles/a.md': '---\ntitle: A\n---\n',
      'content/shared/b.md': '---\ntitle: B\n---\n',
    });
    await symlink(path.join('..', 'shared'), path.join(p.contentDir, 'articles', 'linked'));
    await cached(p);
    expect((await cached(p)).folders).toEqual({ reused: 2, read: 1 });
  });

  it('keeps no folder changed too lately for its stamp to be trusted', async () => {
    const p = await project({ 'content/articles/a.md': '---\ntitle: A\n---\n' });
    await cached(p, Date.now);
    expect((await cached(p, Date.now)).folders).toEqual({ reused: 0, read: 2 });
    expect((await cached(p)).folders).toEqual({ reused: 0, read: 2 });
    expect((await cached(p)).folders).toEqual({ reused: 2, read: 0 });
  });

  it('is written by a run that may write (an apply), never by a plan', async () => {
    const p = await project({ 'content/articles/a.md': '---\ntitle: A\n---\n' });
    await cached(p, later, false);
    expect(existsSync(p.cacheFile)).toBe(false);
    await cached(p);
    expect(existsSync(p.cacheFile)).toBe(true);
    expect((await cached(p, later, false)).folders).toEqual({ reused: 2, read: 0 });
  });

  it('is not used when it is cut short, damaged, of another version, or kept for other languages', async () => {
    const p = await project({
      'content/articles/a.md': '---\ntitle: A\n---\n',
      'content/articles/a.fr.md': '---\ntitle: A\n---\n',
    });
    const want = (await listed(p)).seen;
    await cached(p);
    const whole = readFileSync(p.cacheFile, 'utf8');
    const damaged = [
      whole.slice(0, whole.length - 10),
      whole.replace('\0articles/\0', '\0articles/\0x\0'),
      whole.replace(/^cms-sync content folders \d+/, 'cms-sync content folders 0'),
      'garbage',
      '',
    ];
    for (const text of damaged) {
      await writeFile(p.cacheFile, text);
      const run = await cached(p);
      expect(run.seen).toEqual(want);
      expect(run.folders).toEqual({ reused: 0, read: 2 });
    }
    // Another `languages`: a.fr.md is now in the default language, and claims a's key.
    const languages = { default: 'fr' };
    const withFrench = await listed(p, { languages });
    const run = await listed(p, { languages, folderCache: { file: p.cacheFile, save: true, now: later } });
    expect(run.seen).toEqual(withFrench.seen);
    expect(run.folders).toEqual({ reused: 0, read: 2 });
  });

  it('hands a scan that passes files over the digest of the listing it kept, which is the listing’s own', async () => {
    const p = await project({
      'content/articles/a.md': '---\ntitle: A\n---\n',
      'content/images/x.png': 'png',
    });
    const digests: string[] = [];
    const lists: string[] = [];
    const options = (): Partial<ScanOptions> => ({
      hashCache: openHashCache(path.join(p.dir, '.cms-sync')),
      untouched: {
        listed: (documents, media, digest) => {
          digests.push(digest);
          lists.push(listedDigest([...documents, ...media]));
          return false;
        },
        mayPassOver: () => true,
        expected: 1,
      },
      folderCache: { file: p.cacheFile, save: true, now: later },
    });
    await listed(p, options());
    const reused = await listed(p, options());
    expect(reused.folders).toEqual({ reused: 3, read: 0 });
    expect(digests).toEqual(lists);
    await step();
    await writeFile(path.join(p.contentDir, 'images', 'y.png'), 'png');
    await listed(p, options());
    await listed(p, options());
    expect(digests).toEqual(lists);
    expect(new Set(digests).size).toBe(2);
  });
});

describe('the folder cache file', () => {
  it('is not written for a folder that changed too lately to be kept: its stale stamp never matches', async () => {
    const p = await project({ 'content/articles/a.md': '---\ntitle: A\n---\n' });
    await cached(p);
    const before = statSync(p.cacheFile);
    await step();
    await writeFile(path.join(p.contentDir, 'articles', 'b.md'), '---\ntitle: B\n---\n');
    const run = await cached(p, Date.now);
    expect(run.folders).toEqual({ reused: 1, read: 1 });
    expect(run.seen).toEqual((await listed(p)).seen);
    const after = statSync(p.cacheFile);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    // Once old enough, the folder is kept again.
    expect((await cached(p)).folders).toEqual({ reused: 1, read: 1 });
    expect((await cached(p)).folders).toEqual({ reused: 2, read: 0 });
  });

  it('gives no folder from a file replaced after its header was read (another run saved meanwhile)', async () => {
    const p = await project({ 'content/articles/a.md': '---\ntitle: A\n---\n' });
    await cached(p);
    const stat = lstatSync(path.join(p.contentDir, 'articles'));
    const options = { file: p.cacheFile, key: 'k', save: true, now: later };
    const first = new FolderCache(options);
    first.note('articles/', stat, {
      documents: ['content/articles/a.md'],
      media: [],
      folders: [],
      indexes: false,
    });
    first.save(undefined);
    const reading = new FolderCache(options);
    const other = new FolderCache(options);
    expect(other.reuse('articles/', stat, 'content/articles/')?.documents).toEqual(['content/articles/a.md']);
    // The same lengths, other names: the names of the file read first would be read from this one.
    const b = { documents: ['content/articles/b.md'], media: [], folders: [], indexes: false };
    other.note('articles/', stat, b);
    other.save(undefined);
    expect(reading.reuse('articles/', stat, 'content/articles/')).toBeUndefined();
    expect(new FolderCache(options).reuse('articles/', stat, 'content/articles/')?.documents).toEqual([
      'content/articles/b.md',
    ]);
  });

  it('reuses nothing from a file whose names would lead out of their folder', async () => {
    const p = await project({ 'content/articles/a.md': '---\ntitle: A\n---\n' });
    const stat = lstatSync(path.join(p.contentDir, 'articles'));
    const options = { file: p.cacheFile, key: 'k', save: true, now: later };
    const crafted: Array<Partial<FolderListing>> = [
      { documents: ['content/articles/../../secret.md'] },
      { documents: ['content/pages/about.md'] },
      { documents: ['content/articles/sub/b.md'] },
      { media: ['content/articles/..'] },
      { folders: ['..'] },
      { folders: ['a/b'] },
      { folders: [''] },
    ];
    for (const listing of crafted) {
      const writer = new FolderCache(options);
      writer.note('articles/', stat, { documents: [], media: [], folders: [], indexes: false, ...listing });
      writer.save(undefined);
      expect({
        listing,
        reused: new FolderCache(options).reuse('articles/', stat, 'content/articles/'),
      }).toEqual({
        listing,
        reused: undefined,
      });
    }
    const writer = new FolderCache(options);
    const fine = {
      documents: ['content/articles/a.md'],
      media: ['content/articles/x.png'],
      folders: ['2024'],
      indexes: false,
    };
    writer.note('articles/', stat, fine);
    writer.save(undefined);
    expect(new FolderCache(options).reuse('articles/', stat, 'content/articles/')).toEqual(fine);
  });
});
