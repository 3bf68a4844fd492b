import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPathFilter, matchesGlob } from '../../src/source/glob.js';

const cases: Array<[string, string, boolean]> = [
  ['articles/a.md', 'articles/**', true],
  ['articles/2024/05/a.md', 'articles/**', true],
  ['articles/a.md', 'articles/*', true],
  ['articles/2024/a.md', 'articles/*', false],
  ['articles/2024/a.md', 'articles/**/*.md', true],
  ['articles/a.md', 'articles/**/*.md', true],
  ['pages/a.md', 'articles/**', false],
  ['articles/a.md', '**/a.md', true],
  ['articles/ab.md', 'articles/a?.md', true],
  ['articles/a.md', 'articles/a?.md', false],
  ['articles/b.md', 'articles/[a-c].md', true],
  ['articles/d.md', 'articles/[!a-c].md', true],
  ['articles/b.md', 'articles/[!a-c].md', false],
  ['pages/x.md', '{articles,pages}/*.md', true],
  ['users/x.md', '{articles,pages}/*.md', false],
  ['articles/x.markdown', 'articles/*.{md,markdown}', true],
  ['articles/a.b.md', 'articles/a.b.md', true],
  ['articles/aXb.md', 'articles/a.b.md', false],
  ['articles/(draft)+1.md', 'articles/(draft)+1.md', true],
  ['articles-old/a.md', 'articles/**', false],
];

describe('matchesGlob', () => {
  it.each(cases)('%s against %s -> %s', (file, pattern, expected) => {
    expect(matchesGlob(file, pattern)).toBe(expected);
  });

  it("agrees with Node's own (experimental) path.matchesGlob on every case", () => {
    for (const [file, pattern, expected] of cases)
      expect([file, pattern, path.posix.matchesGlob(file, pattern)]).toEqual([file, pattern, expected]);
  });

  it('compares in NFC, whatever form the file name or pattern is in', () => {
    expect(matchesGlob('articles/café.md'.normalize('NFD'), 'articles/café.md'.normalize('NFC'))).toBe(true);
    expect(matchesGlob('articles/café.md'.normalize('NFC'), 'articles/caf?.md'.normalize('NFD'))).toBe(true);
  });
});

describe('createPathFilter', () => {
  it('selects a file by its own path or by a parent folder, with any of several globs', () => {
    const selected = createPathFilter(['./articles/', 'pages/about.md']);
    expect(selected('articles/2024/a.md')).toBe(true);
    expect(selected('pages/about.md')).toBe(true);
    expect(selected('pages/contact.md')).toBe(false);
  });
});
