import { open } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/errors.js';
import { buildRecord } from '../../src/records/build-record.js';
import { resolveConfig } from '../../src/config/load-config.js';
import { DEFAULT_LIMITS } from '../../src/source/limits.js';
import { isDocumentFailure, parseDocument } from '../../src/source/read-document.js';
import { scanContent } from '../../src/source/scan-content.js';
import { makeProject } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function scan(
  files: Record<string, string>,
  options: { sparse?: Record<string, number>; limits?: Partial<typeof DEFAULT_LIMITS> } = {},
) {
  const project = await makeProject(files);
  cleanups.push(project.cleanup);
  for (const [file, size] of Object.entries(options.sparse ?? {})) {
    // A sparse file: its size is real, but it takes no disk space and reads as zeros.
    const handle = await open(path.join(project.dir, file), 'w');
    await handle.truncate(size);
    await handle.close();
  }
  const result = await scanContent({
    projectDir: project.dir,
    contentDir: project.contentDir,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
  });
  return { ...result, messages: result.problems.map(formatProblem) };
}

const good = { 'content/articles/good.md': '---\ntitle: Good\n---\nText.\n' };

describe('limits on one file: an error at that file, and the others are read', () => {
  it('refuses a file over limits.maxFileBytes by its size, without reading it', async () => {
    // 3 GiB is more than Node can read into one buffer: reading it would fail differently.
    const result = await scan(
      { ...good, 'content/articles/huge.md': '', 'content/articles/big.md': '' },
      { sparse: { 'content/articles/huge.md': 3 * 1024 ** 3, 'content/articles/big.md': 50 * 1024 ** 2 } },
    );
    expect(result.documents.map((d) => d.key)).toEqual(['article/good']);
    expect(result.messages).toEqual([
      'content/articles/big.md:1:1: file is 50 MiB, over the limit of 5 MiB for a Markdown file; split it into ' +
        'several documents, or raise `limits.maxFileBytes` in sync.config.ts if this file is meant to be this way',
      'content/articles/huge.md:1:1: file is 3072 MiB, over the limit of 5 MiB for a Markdown file; split it into ' +
        'several documents, or raise `limits.maxFileBytes` in sync.config.ts if this file is meant to be this way',
    ]);
    expect(result.protectedKeys).toEqual(['article/big', 'article/huge']);
  });

  it('takes limits.maxFileBytes from the config', async () => {
    const result = await scan(
      { ...good, 'content/articles/long.md': `---\ntitle: Long\n---\n${'x'.repeat(2000)}\n` },
      { limits: { maxFileBytes: 1000 } },
    );
    expect(result.messages).toEqual([
      expect.stringMatching(
        /^content\/articles\/long\.md:1:1: file is 2.0 KiB, over the limit of 1000 bytes for a Markdown file; .*`limits\.maxFileBytes`/,
      ),
    ]);
  });

  it(
    'refuses a YAML alias bomb in a passed-through key, at the alias, quickly and without the memory it asks ' +
      'for',
    async () => {
      const bomb = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
      for (let i = 1; i < 12; i++)
        bomb.push(
          `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
            .fill(`*${String.fromCharCode(96 + i)}`)
            .join(',')}]`,
        );
      const result = await scan({
        ...good,
        'content/articles/bomb.md': `---\ntitle: Bomb\nslug: bomb-story\nextra:\n  ${bomb.join('\n  ')}\n---\nBody\n`,
      });
      expect(result.documents.map((d) => d.key)).toEqual(['article/good']);
      expect(result.messages).toEqual([
        'content/articles/bomb.md:6:1: front matter expands its YAML aliases (*name) beyond the limit of 100 uses; ' +
          'raise `limits.maxYamlAliases` in sync.config.ts if this file is meant to be this way',
      ]);
      expect(result.protectedKeys).toEqual(['article/bomb', 'article/bomb-story']);
    },
  );

  it('reads a few aliases and merge keys as js-yaml did; dates stay text, to be checked', async () => {
    const result = await scan({
      'content/articles/a.md':
        '---\ntitle: A\ndate: 2024-05-01\nbase: &b { x: 1 }\nmore:\n  <<: *b\n  y: 2\n---\n',
    });
    expect(result.messages).toEqual([]);
    expect(result.documents[0]!.frontMatter).toEqual({
      title: 'A',
      date: '2024-05-01',
      base: { x: 1 },
      more: { x: 1, y: 2 },
    });
  });

  it(
    'refuses front matter over limits.maxFrontMatterBytes, and with more keys than ' +
      'limits.maxFrontMatterKeys',
    async () => {
      const keys = Array.from({ length: 1500 }, (_, i) => `k${i}: ${i}`).join('\n');
      const jsonKeys = Array.from({ length: 1500 }, (_, i) => `"k${i}": ${i}`).join(',');
      const result = await scan({
        ...good,
        'content/articles/keys.md': `---\ntitle: Keys\n${keys}\n---\n`,
        'content/articles/keys-json.md': `---json\n{${jsonKeys}}\n---\n`,
        'content/articles/big-head.md':
          `---\ntitle: Big\nslug: big-head-story\nblob: ` + `"${'x'.repeat(300 * 1024)}"\n---\n`,
      });
      expect(result.documents.map((d) => d.key)).toEqual(['article/good']);
      expect(result.messages).toEqual([
        'content/articles/big-head.md:1:1: front matter is 300.0 KiB, over the limit of 256 KiB; raise ' +
          '`limits.maxFrontMatterBytes` in sync.config.ts if this file is meant to be this way',
        'content/articles/keys-json.md:1:1: front matter has 1500 keys, more than the limit of 1000; raise ' +
          '`limits.maxFrontMatterKeys` in sync.config.ts if this file is meant to be this way',
        'content/articles/keys.md:1002:1: front matter has 1501 keys, more than the limit of 1000; raise ' +
          '`limits.maxFrontMatterKeys` in sync.config.ts if this file is meant to be this way',
      ]);
      expect(result.protectedKeys).toContain('article/big-head-story');
    },
  );

  it(
    'refuses front matter nested by the thousand before the YAML parser sees it (it would take the process ' +
      'down)',
    async () => {
      const result = await scan({
        ...good,
        'content/articles/deep.md': `---\ntitle: Deep\nx: ${'['.repeat(100_000)}\n---\n`,
        'content/articles/dashes.md': `---\ntitle: Dashes\nx:\n${'- '.repeat(10_000)}a\n---\n`,
      });
      expect(result.documents.map((d) => d.key)).toEqual(['article/good']);
      expect(result.messages).toEqual([
        'content/articles/dashes.md:4:1: front matter is nested about 10000 deep here (lists and mappings inside one ' +
          'another), more than the limit of 100; raise `limits.maxNestingDepth` in sync.config.ts if this file is ' +
          'meant to be this way',
        'content/articles/deep.md:3:1: front matter is nested about 100000 deep here (lists and mappings inside one ' +
          'another), more than the limit of 100; raise `limits.maxNestingDepth` in sync.config.ts if this file is ' +
          'meant to be this way',
      ]);
    },
  );
});

describe('slugs', () => {
  const where = {
    file: 'content/articles/x.md',
    absPath: '/p/content/articles/x.md',
    resource: 'article' as const,
  };
  it.each([
    ['..', 'is "..", which names a folder, not a record'],
    ['.', 'is ".", which names a folder, not a record'],
    ['"a\\nb"', 'contains the control character U+000A'],
    ['"a\\0b"', 'contains the control character U+0000'],
    ['"a\\u001b[31mb"', 'contains the control character U+001B'],
    ['a/b', 'contains "/"'],
  ])('refuses slug: %s at its line', (slug, why) => {
    const result = parseDocument(new TextEncoder().encode(`---\ntitle: X\nslug: ${slug}\n---\n`), where);
    expect(isDocumentFailure(result) && result.problems.map(formatProblem)).toEqual([
      `content/articles/x.md:3:1: the slug from \`slug\` ${why}; a slug needs at least one visible character, no "/" ` +
        `and no control characters, and cannot be "." or ".."`,
    ]);
  });

  it('refuses a file named .md or ...md whose stem would be the slug', () => {
    const result = parseDocument(new TextEncoder().encode('---\ntitle: X\n---\n'), {
      ...where,
      file: 'content/articles/...md',
      absPath: '/p/content/articles/...md',
    });
    expect(isDocumentFailure(result) && result.problems.map(formatProblem)).toEqual([
      'content/articles/...md:1:1: the slug from the file name is "..", which names a folder, not a record; a slug ' +
        'needs at least one visible character, no "/" and no control characters, and cannot be "." or ".."',
    ]);
  });
});

describe('front matter of the wrong type', () => {
  it('reports `title: 5` as a number, not as missing', async () => {
    const doc = parseDocument(new TextEncoder().encode('---\ntitle: 5\n---\n'), {
      file: 'content/pages/x.md',
      absPath: '/p/content/pages/x.md',
      resource: 'page',
    });
    if (isDocumentFailure(doc)) throw new Error('parsed');
    const config = resolveConfig({}, { projectDir: '/p', env: {} });
    const { problems } = await buildRecord(doc, {
      config,
      render: () => ({ html: '', images: [], problems: [] }),
      media: { resolve: async () => ({ ok: false, message: '' }), hashFile: async () => undefined },
    });
    expect(problems.map(formatProblem)).toEqual([
      'content/pages/x.md:2:1: `title` must be text, got a number (5); quote it if it is meant as text: title: "..."',
    ]);
  });
});
