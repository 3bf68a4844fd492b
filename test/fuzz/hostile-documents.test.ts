import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load-config.js';
import type { FileProblem } from '../../src/errors.js';
import { buildRecord } from '../../src/records/build-record.js';
import { renderMarkdown } from '../../src/render/render-markdown.js';
import { scanContent } from '../../src/source/scan-content.js';

/** mulberry32: a small deterministic PRNG, so a failure is reproduced by the same seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = 20261126;
const COUNT = 40;
const rand = random(SEED);
const int = (min: number, max: number) => min + Math.floor(rand() * (max - min + 1));
const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
const fm = (body: string, extra = '') => `---\ntitle: Fuzz\n${extra}---\n${body}`;

/** Each makes one hostile document: text, or raw bytes. */
const generators: Record<string, () => string | Uint8Array> = {
  deepQuotes: () => fm(`${'>'.repeat(int(150, 4000))} x\n`),
  deepLists: () => fm(Array.from({ length: int(120, 600) }, (_, i) => `${'  '.repeat(i)}- x`).join('\n')),
  // Template syntax sends a body through the template expander, which parses it before rendering.
  templatedDeepLists: () =>
    fm(
      `${Array.from({ length: int(300, 3000) }, (_, i) => `${'  '.repeat(i)}- x`).join('\n')}\n` +
        '{% raw %}x{% endraw %}\n',
    ),
  templatedDeepQuotes: () => fm(`${'>'.repeat(int(3000, 20000))} {{< note >}}x{{< /note >}}\n`),
  dashLists: () => fm(`${'- '.repeat(int(200, 5000))}x\n`),
  deepHtml: () => fm(`${pick(['<div>', '<span>', '<b><i>'])}`.repeat(int(3000, 8000))),
  emphasisRun: () => fm(`${pick(['a*', '*a ', '_a', 'a__', '~~a'])}`.repeat(int(3000, 12000))),
  brackets: () => fm(`${pick(['[', '![', '[a](', '<'])}`.repeat(int(2000, 20000))),
  aliasBomb: () => {
    const rows = ['a: &a [x,x,x,x,x,x,x,x,x]'];
    for (let i = 1; i < int(6, 14); i++)
      rows.push(
        `${'abcdefghijklmnop'[i]}: &${'abcdefghijklmnop'[i]} [${Array(9)
          .fill(`*${'abcdefghijklmnop'[i - 1]}`)
          .join(',')}]`,
      );
    return fm('Body\n', `extra:\n  ${rows.join('\n  ')}\n`);
  },
  manyKeys: () =>
    fm('Body\n', `${Array.from({ length: int(1000, 20000) }, (_, i) => `k${i}: ${i}`).join('\n')}\n`),
  hugeKey: () => fm('Body\n', `${'k'.repeat(int(1000, 400_000))}: v\n`),
  deepFlow: () => fm('Body\n', `x: ${pick(['[', '{a: ', '[{'])}`.repeat(int(200, 20000)) + '\n'),
  brokenFrontMatter: () =>
    pick([
      '---\ntitle: [unclosed\n---\n',
      '---\ntitle: x\n',
      '---\n\ttitle: tab\n---\n',
      '---\n: \n---\n',
      '---\n- a list\n---\n',
      '---json\n{"title": }\n---\n',
      '---js\nmodule.exports={}\n---\n',
      `---\ntitle: x\nslug: "${pick(['..', '.', 'a\\nb', 'a\\0b', 'a/b'])}"\n---\n`,
    ]),
  binary: () => Uint8Array.from({ length: int(10, 5000) }, () => int(0, 255)),
  utf16: () => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(fm('Hello\n'), 'utf16le')]),
  latin1: () => Buffer.from(fm('Caf\u00e9 na\u00efve\n'), 'latin1'),
  nul: () => fm(`a\u0000b\u0000${'\u0000'.repeat(int(1, 1000))}\n`),
  controls: () => fm(Array.from({ length: int(100, 3000) }, () => String.fromCharCode(int(0, 31))).join('')),
  wrongTypes: () =>
    fm(
      'Body\n',
      pick(['', 'title: 5\n', 'title: [a]\n', 'date: not-a-date\n', 'status: "x"\n', 'category: {}\n']),
    ).replace('title: Fuzz\n', ''),
  mixed: () =>
    fm(
      Array.from({ length: int(3, 8) }, () =>
        pick(['> '.repeat(50), '**', '`', '```\n', '<div>', '![x](', '\\', '|a|b|\n|-|-|\n', '\n\n']),
      )
        .join('')
        .repeat(int(10, 400)),
    ),
};

const names = Object.keys(generators);
const files: Array<[string, string | Uint8Array]> = Array.from({ length: COUNT }, (_, i) => {
  const kind = names[i % names.length]!;
  return [
    `content/${pick(['articles', 'pages'])}/${String(i).padStart(2, '0')}-${kind}.md`,
    generators[kind]!(),
  ];
});

let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe(`hostile documents (seed ${SEED})`, () => {
  it(
    'never end the run: each fails alone with a positioned problem naming its file, and the good file gets through',
    { timeout: 120_000 },
    async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-fuzz-'));
      const all: Array<[string, string | Uint8Array]> = [
        ...files,
        ['content/articles/zz-good.md', '---\ntitle: Good\n---\nFine **text**.\n'],
      ];
      for (const [file, content] of all) {
        await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
        await writeFile(path.join(dir, file), content);
      }
      const config = resolveConfig(
        { resources: { article: { passThrough: true }, page: { passThrough: true } } },
        { projectDir: dir, env: {} },
      );
      const scan = await scanContent({
        projectDir: dir,
        contentDir: config.contentDir,
        limits: config.limits,
      });
      const problems: FileProblem[] = [...scan.problems];
      const built: string[] = [];
      const media = {
        resolve: async () => ({ ok: false as const, message: 'no images in this test' }),
        hashFile: async () => undefined,
      };
      const render = (markdown: string) =>
        renderMarkdown(markdown, { defaultSize: 'medium', limits: config.limits });
      for (const doc of scan.documents) {
        const result = await buildRecord(doc, { config, render, media });
        problems.push(...result.problems);
        if (result.record) built.push(result.record.file);
      }

      expect(built).toContain('content/articles/zz-good.md');
      const names = new Set(all.map(([file]) => file));
      for (const problem of problems) {
        expect(names.has(problem.file), `a problem names ${problem.file}`).toBe(true);
        expect(problem.line).toBeGreaterThanOrEqual(1);
        expect(problem.column).toBeGreaterThanOrEqual(1);
        expect(problem.message).not.toMatch(/^$|Maximum call stack|undefined/);
      }
      // Every file is accounted for: built, or failed with an error of its own.
      const failed = new Set(problems.filter((p) => p.severity === 'error').map((p) => p.file));
      for (const [file] of all)
        expect(built.includes(file) || failed.has(file), `${file} is built or reported`).toBe(true);
    },
  );
});
