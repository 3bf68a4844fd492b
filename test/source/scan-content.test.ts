import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SyncError, formatProblem } from '../../src/errors.js';
import { scanContent } from '../../src/source/scan-content.js';
import { makeProject } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function scan(files: Record<string, string | Uint8Array>, only?: string[]) {
  const project = await makeProject(files);
  cleanups.push(project.cleanup);
  const result = await scanContent({
    projectDir: project.dir,
    contentDir: project.contentDir,
    ...(only ? { only } : {}),
  });
  return { ...result, dir: project.dir, messages: result.problems.map(formatProblem) };
}

describe('scanContent: progress', () => {
  it('says now and then how many of the files to read are read, so a terminal can show "Scanning n/N"', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 250; i += 1)
      files[`content/articles/story-${i}.md`] = `---\ntitle: Story ${i}\n---\n`;
    const project = await makeProject(files);
    cleanups.push(project.cleanup);
    const told: Array<[number, number]> = [];
    await scanContent({
      projectDir: project.dir,
      contentDir: project.contentDir,
      onProgress: (done, total) => told.push([done, total]),
    });
    expect(told).toEqual([
      [100, 250],
      [200, 250],
    ]);
  });
});

describe('scanContent: layout', () => {
  it('maps the resource folders to records, recursing into subfolders, and ignores everything else', async () => {
    const result = await scan({
      'content/articles/hello.md': '---\ntitle: Hello\n---\nHi.\n',
      'content/articles/2024/budget-vote.markdown': '---\ntitle: Budget\n---\n',
      'content/pages/about.md': '# About\n',
      'content/categories/politics.md': '---\nname: Politics\n---\n',
      'content/breaking/flood.md': '---\ntitle: Flood\n---\n',
      'content/users/jdoe.md': '---\nname: Jane Doe\n---\n',
      'content/README.md': '# How to write here\n',
      'content/drafts/idea.md': '# not a resource folder\n',
      'content/articles/notes.txt': 'not markdown',
      'README.md': '# project readme\n',
    });
    expect(result.documents.map((d) => [d.key, d.file])).toEqual([
      ['article/budget-vote', 'content/articles/2024/budget-vote.markdown'],
      ['article/hello', 'content/articles/hello.md'],
      ['breaking/flood', 'content/breaking/flood.md'],
      ['category/politics', 'content/categories/politics.md'],
      ['page/about', 'content/pages/about.md'],
      ['user/jdoe', 'content/users/jdoe.md'],
    ]);
    const hello = result.documents.find((d) => d.key === 'article/hello');
    expect(hello).toMatchObject({
      resource: 'article',
      slug: 'hello',
      frontMatter: { title: 'Hello' },
      body: 'Hi.\n',
      bodyLine: 4,
    });
    expect(hello?.absPath).toBe(path.join(result.dir, 'content/articles/hello.md'));
    expect(result.problems).toEqual([]);
    expect(result.failedFiles).toEqual([]);
  });

  it('ignores hidden files and editor leftovers without a message', async () => {
    const result = await scan({
      'content/articles/real.md': '# Real\n',
      'content/articles/.#real.md': 'emacs lock',
      'content/articles/real.md~': 'backup',
      'content/articles/.real.md.swp': 'vim swap',
      'content/articles/4913': 'vim probe',
      'content/articles/#real.md#': 'emacs autosave',
      'content/articles/.hidden.md': '---\n: broken\n---\n',
      'content/articles/.git/x.md': '# inside a hidden folder\n',
    });
    expect(result.documents.map((d) => d.key)).toEqual(['article/real']);
    expect(result.problems).toEqual([]);
  });

  it('lists media files anywhere under content/, matching extensions case-insensitively', async () => {
    const result = await scan({
      'content/images/chart.png': 'png',
      'content/articles/photos/PORTRAIT.JPG': 'jpg',
      'content/files/report.pdf': 'pdf',
      'content/images/notes.txt': 'no',
      'content/images/.thumb.png': 'hidden',
    });
    expect(result.mediaFiles).toEqual([
      'content/articles/photos/PORTRAIT.JPG',
      'content/files/report.pdf',
      'content/images/chart.png',
    ]);
  });

  it.each<{ what: string; files: Record<string, string>; message: RegExp }>([
    // Rather than reporting everything as deleted.
    { what: 'content/ does not exist', files: { 'README.md': '' }, message: /^No content folder at / },
    {
      what: 'content/ cannot be listed',
      files: { content: 'a file where the folder should be' },
      message: /^The folder \S+content could not be listed \(ENOTDIR\)\.$/,
    },
  ])('stops with a SyncError that says so when $what', async ({ files, message }) => {
    const project = await makeProject(files);
    cleanups.push(project.cleanup);
    const error = await scanContent({ projectDir: project.dir, contentDir: project.contentDir }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SyncError);
    expect(error).toMatchObject({ code: 'CMS_SYNC_INPUT', message: expect.stringMatching(message) });
  });
});

describe('scanContent: slugs and keys', () => {
  it('takes the slug from front matter, else from the file name', async () => {
    const result = await scan({
      'content/articles/2024-05-01-draft-name.md': '---\ntitle: Vote\nslug: budget-vote\n---\n',
      'content/articles/plain.md': '---\ntitle: Plain\n---\n',
    });
    expect(result.documents.map((d) => [d.key, d.slug])).toEqual([
      ['article/budget-vote', 'budget-vote'],
      ['article/plain', 'plain'],
    ]);
  });

  it('normalizes a decomposed (NFD) file name to an NFC slug', async () => {
    const nfd = 'café-crème'.normalize('NFD');
    expect(nfd).not.toBe('café-crème');
    const result = await scan({ [`content/articles/${nfd}.md`]: '# Menu\n' });
    expect(result.documents).toHaveLength(1);
    expect(result.documents[0]?.slug).toBe('café-crème'.normalize('NFC'));
    expect(result.documents[0]?.key).toBe('article/café-crème'.normalize('NFC'));
  });

  it('skips both files that claim one key, names each in the other, and protects the key', async () => {
    const result = await scan({
      'content/articles/hello.md': '# Hello\n',
      'content/articles/hello-again.md': '---\ntitle: Again\nslug: hello\n---\n',
      'content/articles/other.md': '# Other\n',
    });
    expect(result.documents.map((d) => d.key)).toEqual(['article/other']);
    expect(result.failedFiles).toEqual(['content/articles/hello-again.md', 'content/articles/hello.md']);
    expect(result.protectedKeys).toEqual(['article/hello', 'article/hello-again']);
    expect(result.messages).toEqual([
      'content/articles/hello-again.md:3:1: key "article/hello" is also claimed by content/articles/hello.md; both ' +
        'files are skipped until one of them changes its `slug`',
      'content/articles/hello.md:1:1: key "article/hello" is also claimed by content/articles/hello-again.md; both ' +
        'files are skipped until one of them changes its file name or sets a different `slug`',
    ]);
  });

  it('refuses a slug with "/" and a slug that is not a string, at the slug line', async () => {
    const result = await scan({
      'content/articles/a.md': '---\ntitle: A\nslug: news/a\n---\n',
      'content/articles/b.md': '---\ntitle: B\nslug: 2024\n---\n',
    });
    expect(result.documents).toEqual([]);
    expect(result.messages).toEqual([
      'content/articles/a.md:3:1: the slug from `slug` contains "/"; a slug needs at least one visible character, no ' +
        '"/" and no control characters, and cannot be "." or ".."',
      'content/articles/b.md:3:1: `slug` must be a string, got a number; quote it: slug: "2024"',
    ]);
    expect(result.protectedKeys).toEqual(['article/2024', 'article/a', 'article/b']);
  });
});

describe('scanContent: file contents', () => {
  it('reads UTF-8 with BOM and CRLF line endings, hashing the raw bytes', async () => {
    const raw = Buffer.from(
      '\uFEFF---\r\ntitle: Café\r\ntags:\r\n  - a\r\n---\r\nLine one\r\nLine two\r\n',
      'utf8',
    );
    const result = await scan({ 'content/articles/bom.md': raw });
    expect(result.problems).toEqual([]);
    const doc = result.documents[0];
    expect(doc).toMatchObject({
      frontMatter: { title: 'Café', tags: ['a'] },
      frontMatterLines: { title: 2, tags: 3 },
      body: 'Line one\nLine two\n',
      bodyLine: 6,
      hash: createHash('sha256').update(raw).digest('hex'),
    });
  });

  it('positions a YAML error at the line and column in the file, skips the file and protects its key', async () => {
    const result = await scan({
      'content/articles/good.md': '---\ntitle: Good\n---\n',
      'content/articles/broken.md':
        '---\ntitle: Broken\nslug: broken-story\ndate: 2024-05-01\n  extra: oops\n---\nBody\n',
    });
    expect(result.documents.map((d) => d.key)).toEqual(['article/good']);
    expect(result.messages).toEqual([
      'content/articles/broken.md:4:7: front matter is not valid YAML: Nested mappings are not allowed in compact ' +
        'mappings',
    ]);
    expect(result.failedFiles).toEqual(['content/articles/broken.md']);
    // Both the file-name key and the slug readable from the broken block are protected.
    expect(result.protectedKeys).toEqual(['article/broken', 'article/broken-story']);
  });

  it('reports a duplicated front matter key where the duplicate is', async () => {
    const result = await scan({ 'content/pages/about.md': '---\ntitle: About\n\ntitle: About us\n---\n' });
    expect(result.messages).toEqual([
      'content/pages/about.md:4:1: front matter is not valid YAML: duplicated mapping key',
    ]);
  });

  it('refuses JavaScript front matter without running it', async () => {
    const result = await scan({
      'content/articles/evil.md': '---js\n{ title: (globalThis.__cmsSyncPwned = "ran") }\n---\nBody\n',
      'content/articles/evil-too.md': '---javascript\nglobalThis.__cmsSyncPwned = "ran"\n---\n',
    });
    expect((globalThis as Record<string, unknown>)['__cmsSyncPwned']).toBeUndefined();
    expect(result.documents).toEqual([]);
    expect(result.messages).toEqual([
      'content/articles/evil-too.md:1:4: JavaScript front matter (---js) is refused: cms-sync never runs code from ' +
        'content files. Write the front matter in YAML (---) instead',
      'content/articles/evil.md:1:4: JavaScript front matter (---js) is refused: cms-sync never runs code from ' +
        'content files. Write the front matter in YAML (---) instead',
    ]);
    expect(result.protectedKeys).toEqual(['article/evil', 'article/evil-too']);
  });

  it('refuses front matter that is not a mapping', async () => {
    const result = await scan({ 'content/categories/list.md': '---\n- politics\n- climate\n---\n' });
    expect(result.messages).toEqual([
      'content/categories/list.md:2:1: front matter must be a mapping of keys to values (`title: Hello`), not a list',
    ]);
    expect(result.failedFiles).toEqual(['content/categories/list.md']);
  });

  it('reports front matter that is never closed', async () => {
    const result = await scan({ 'content/articles/open.md': '---\ntitle: Open\n\nThe body starts here.\n' });
    expect(result.messages).toEqual([
      'content/articles/open.md:1:1: front matter opened with --- on line 1 is never closed; add a line with --- ' +
        'after the last key',
    ]);
  });

  it('reads JSON front matter and treats a leading thematic break as body', async () => {
    const result = await scan({
      'content/articles/json.md': '---json\n{\n  "title": "From JSON",\n  "draft": true\n}\n---\nText\n',
      'content/articles/rule.md': '----\n\nText after a rule\n',
    });
    expect(result.problems).toEqual([]);
    expect(result.documents[0]).toMatchObject({
      frontMatter: { title: 'From JSON', draft: true },
      frontMatterLines: { title: 3, draft: 4 },
      bodyLine: 7,
    });
    expect(result.documents[1]).toMatchObject({
      frontMatter: {},
      body: '----\n\nText after a rule\n',
      bodyLine: 1,
    });
  });

  it("reads Hugo's JSON front matter (a file opening with an object), keeps a body opening with a tag", async () => {
    const result = await scan({
      'content/articles/hugo-json.md':
        '{\n  "title": "Brace {in} \\"quotes\\"",\n  "tags": ["a", "}"],\n  "draft": true\n}\nText with {{< x >}}\n',
      'content/articles/one-line.md': '{"title": "One line"}  \nBody\n',
      'content/articles/shortcode.md': '{{< youtube abc >}}\n',
      'content/articles/liquid.md': '{% raw %}x{% endraw %}\n',
      'content/articles/open-brace.md': '{\n  "title": "Never closed"\nBody\n',
      'content/articles/bad-json.md': '{\n  "title": "Bad",\n  draft: true\n}\nBody\n',
    });
    // V8 words the reason; where it is, and what to do, are ours.
    expect(result.messages).toEqual([
      expect.stringMatching(/^content\/articles\/bad-json\.md:3:3: front matter is not valid JSON: /),
      'content/articles/open-brace.md:1:1: front matter opened with { on line 1 is never closed; end the JSON ' +
        'object with } before the body',
    ]);
    const read = Object.fromEntries(
      result.documents.map((d) => [
        d.file,
        { frontMatter: d.frontMatter, lines: d.frontMatterLines, body: d.body, bodyLine: d.bodyLine },
      ]),
    );
    expect(read).toEqual({
      'content/articles/hugo-json.md': {
        frontMatter: { title: 'Brace {in} "quotes"', tags: ['a', '}'], draft: true },
        lines: { title: 2, tags: 3, draft: 4 },
        body: 'Text with {{< x >}}\n',
        bodyLine: 6,
      },
      'content/articles/one-line.md': {
        frontMatter: { title: 'One line' },
        lines: { title: 1 },
        body: 'Body\n',
        bodyLine: 2,
      },
      'content/articles/shortcode.md': {
        frontMatter: {},
        lines: {},
        body: '{{< youtube abc >}}\n',
        bodyLine: 1,
      },
      'content/articles/liquid.md': {
        frontMatter: {},
        lines: {},
        body: '{% raw %}x{% endraw %}\n',
        bodyLine: 1,
      },
    });
  });

  it('reports a file that is not UTF-8 at the first bad byte', async () => {
    const latin1 = Buffer.concat([
      Buffer.from('---\ntitle: Caf'),
      Buffer.from([0xe9]),
      Buffer.from('\n---\n'),
    ]);
    const result = await scan({ 'content/articles/latin1.md': latin1 });
    expect(result.messages).toEqual([
      'content/articles/latin1.md:2:11: file is not valid UTF-8 (byte 0xE9 here is not part of a UTF-8 character); ' +
        'save the file with UTF-8 encoding',
    ]);
    expect(result.protectedKeys).toEqual(['article/latin1']);
  });

  it('gives the line of every top-level front matter key, quoted keys and block values included', async () => {
    const fm = [
      '---',
      '# a comment',
      'title: "Budget: the vote"',
      'summary: |',
      '  title: not a key',
      '  more',
      "'quoted key': 1",
      'category: politics',
      'draft: false',
      '---',
      'Body',
    ].join('\n');
    const result = await scan({ 'content/articles/lines.md': fm });
    expect(result.documents[0]?.frontMatterLines).toEqual({
      title: 3,
      summary: 4,
      'quoted key': 7,
      category: 8,
      draft: 9,
    });
    expect(result.documents[0]?.bodyLine).toBe(11);
  });
});

describe('scanContent: only', () => {
  const files = {
    'content/articles/a.md': '# A\n',
    'content/articles/2024/b.md': '# B\n',
    'content/pages/about.md': '# About\n',
    'content/users/jdoe.md': '---\nname: J\n---\n',
    'content/pages/broken.md': '---\n: [\n---\n',
  };

  it('reads only the files the globs select', async () => {
    expect((await scan(files, ['articles/**'])).documents.map((d) => d.key)).toEqual([
      'article/a',
      'article/b',
    ]);
    expect((await scan(files, ['articles/*.md'])).documents.map((d) => d.key)).toEqual(['article/a']);
    expect((await scan(files, ['{pages,users}/*.md'])).documents.map((d) => d.key)).toEqual([
      'page/about',
      'user/jdoe',
    ]);
    // A folder name selects everything below it.
    expect((await scan(files, ['articles'])).documents.map((d) => d.key)).toEqual(['article/a', 'article/b']);
  });

  it('does not read, or complain about, unselected files', async () => {
    const result = await scan(files, ['articles/**']);
    expect(result.problems).toEqual([]);
    expect(result.failedFiles).toEqual([]);
  });
});

describe('scanContent: files known unchanged since the last write', () => {
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  const hello = '---\ntitle: Hello\nslug: hi\n---\nHi.\n';

  it('hashes them but does not parse them, and parses a file whose bytes moved', async () => {
    const project = await makeProject({
      'content/articles/hello.md': hello,
      'content/articles/other.md': '---\ntitle: Other\n---\n',
    });
    cleanups.push(project.cleanup);
    const known = (file: string, hash: string) =>
      file === 'content/articles/hello.md' && hash === sha(hello)
        ? { key: 'article/hi', slug: 'hi' }
        : undefined;
    const result = await scanContent({ projectDir: project.dir, contentDir: project.contentDir, known });
    expect(result.unchanged).toEqual([
      {
        unparsed: true,
        key: 'article/hi',
        resource: 'article',
        slug: 'hi',
        file: 'content/articles/hello.md',
        absPath: path.join(project.dir, 'content/articles/hello.md'),
        stem: 'hello',
        hash: sha(hello),
      },
    ]);
    expect(result.documents.map((d) => d.key)).toEqual(['article/other']);
  });

  it('still finds two files claiming one key when one of them is known unchanged', async () => {
    const project = await makeProject({
      'content/articles/hello.md': hello,
      'content/articles/copy.md': '---\ntitle: Copy\nslug: hi\n---\n',
    });
    cleanups.push(project.cleanup);
    const known = (file: string) =>
      file === 'content/articles/hello.md' ? { key: 'article/hi', slug: 'hi' } : undefined;
    const result = await scanContent({ projectDir: project.dir, contentDir: project.contentDir, known });
    expect(result.documents).toEqual([]);
    expect(result.unchanged).toEqual([]);
    expect(result.failedFiles).toEqual(['content/articles/copy.md', 'content/articles/hello.md']);
    expect(result.protectedKeys).toContain('article/hi');
  });
});
