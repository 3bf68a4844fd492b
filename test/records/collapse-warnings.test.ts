import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load-config.js';
import { formatProblem, type FileProblem } from '../../src/errors.js';
import { collapseWarnings, warningKind } from '../../src/records/collapse-warnings.js';
import { buildCategory } from '../helpers/build-category.js';

const config = resolveConfig({}, { projectDir: '/p', env: {} });

/** The problems buildRecord itself gives a category file, so a change of its wording shows here. */
async function problemsOf(name: string, frontMatter: string): Promise<FileProblem[]> {
  return (await buildCategory(config, frontMatter, { name })).problems;
}

describe('collapseWarnings', () => {
  it('shows a key that many files carry once, with how many and the first few', async () => {
    const problems: FileProblem[] = [];
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f'])
      problems.push(...(await problemsOf(name, 'weight: 3')));
    problems.push(...(await problemsOf('g', 'icon: x')));
    expect(problems).toHaveLength(7);
    expect(collapseWarnings(problems).map(formatProblem)).toEqual([
      'content/categories/a.md:3:1: warning: front matter `weight` is not sent to the CMS (in 6 files: here, ' +
        'content/categories/b.md:3, content/categories/c.md:3, content/categories/d.md:3 and 2 more): list it in ' +
        'resources.category.passThrough in sync.config.ts to send it',
      'content/categories/g.md:3:1: warning: front matter `icon` is not sent to the CMS: list it in ' +
        'resources.category.passThrough in sync.config.ts to send it',
    ]);
  });

  it('names every file when there are few, and keeps errors and other warnings as they are, in order', async () => {
    const error: FileProblem = {
      file: 'content/x.md',
      line: 2,
      column: 1,
      message: 'boom',
      severity: 'error',
    };
    const other: FileProblem = {
      file: 'content/y.md',
      line: 1,
      column: 1,
      message: 'hm',
      severity: 'warning',
    };
    const weights = [...(await problemsOf('a', 'weight: 1')), ...(await problemsOf('b', 'weight: 2'))];
    expect(collapseWarnings([error, weights[0]!, other, weights[1]!]).map((p) => p.message)).toEqual([
      'boom',
      'front matter `weight` is not sent to the CMS (in 2 files: here, content/categories/b.md:3): list it in ' +
        'resources.category.passThrough in sync.config.ts to send it',
      'hm',
    ]);
  });

  it('collapses any warning many files share, by its kind: the message without what is particular to a file', () => {
    const alt = (file: string, src: string, text: string, line: number): FileProblem => ({
      file,
      line,
      column: 1,
      severity: 'warning',
      message:
        `image \`${src}\` has alt ${JSON.stringify(text)} here, but the CMS keeps one alt per file and its media ` +
        `record has "Map" (from article/a): give every use of the file the same alt and title, or use a copy`,
    });
    const problems = [
      alt('content/articles/b.md', '../images/map.png', 'A map', 4),
      alt('content/articles/c.md', '../images/chart.png', 'Chart 2', 12),
      alt('content/articles/c.md', '../images/map.png', 'The map', 20),
    ];
    expect(collapseWarnings(problems).map(formatProblem)).toEqual([
      `${formatProblem(problems[0]!)} (3 times in 2 files: here, content/articles/c.md:12, content/articles/c.md:20)`,
    ]);
  });

  it('keeps a front matter key in the kind, since each key is its own fix', () => {
    expect(warningKind('front matter `tags` is not sent to the CMS')).not.toBe(
      warningKind('front matter `weight` is not sent to the CMS'),
    );
    expect(warningKind('data-size="huge" is not a size; use small (using "medium")')).toBe(
      warningKind('data-size="tiny" is not a size; use small (using "medium")'),
    );
  });
});
