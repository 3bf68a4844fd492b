import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load-config.js';
import { formatProblem } from '../../src/errors.js';
import { buildRecord } from '../../src/records/build-record.js';
import { renderMarkdown } from '../../src/render/render-markdown.js';
import { isDocumentFailure, parseDocument } from '../../src/source/read-document.js';
import { DEFAULT_LIMITS } from '../../src/source/limits.js';

// Worker threads run compiled JavaScript: the pool is tested as built (npm test builds first).
const { createRenderPool } = (await import(
  new URL('../../dist/render/render-pool.js', import.meta.url).href
)) as typeof import('../../src/render/render-pool.js');

const render = (markdown: string) => renderMarkdown(markdown, { defaultSize: 'medium' });
const nestedLists = (depth: number) =>
  Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}- item`).join('\n');

describe('Markdown that would overflow the stack or take quadratic time', () => {
  it('refuses 2,000 nested block quotes at the line, naming the limit, instead of overflowing the stack', () => {
    const result = render(`# Title\n\n${'>'.repeat(2000)} deep\n`);
    expect(result.html).toBe('');
    expect(result.problems).toEqual([
      {
        line: 3,
        column: 1,
        severity: 'error',
        message:
          'blocks are nested about 2000 deep here (block quotes and lists), more than the limit of 100; raise ' +
          '`limits.maxNestingDepth` in sync.config.ts if this file is meant to be this way',
      },
    ]);
  });

  it('refuses lists nested by the thousand (their parsing time grows with the cube of the depth)', () => {
    expect(render(nestedLists(1000)).problems).toEqual([
      expect.objectContaining({
        line: 101,
        severity: 'error',
        message: expect.stringContaining('limits.maxNestingDepth'),
      }),
    ]);
    expect(render(nestedLists(50)).problems).toEqual([]);
  });

  it("turns raw HTML nested by the thousand, which the line check does not count, into the document's error", () => {
    const result = render(`Intro\n\n${'<div>'.repeat(20_000)}\n`);
    expect(result).toEqual({
      html: '',
      images: [],
      problems: [
        {
          line: 1,
          column: 1,
          severity: 'error',
          message:
            'the document is nested too deeply to render (elements inside one another by the thousand); flatten it',
        },
      ],
    });
  });

  it(
    'refuses a paragraph with 50,000 emphasis markers at its first line, but not as many spread over paragraphs or ' +
      'in code',
    () => {
      expect(render(`Intro\n\n${'a*'.repeat(50_000)}\n`).problems).toEqual([
        {
          line: 3,
          column: 1,
          severity: 'error',
          message:
            'this paragraph has more than 5000 emphasis markers (*, _ or ~), whose matching takes time that grows ' +
            'with ' +
            'the square of their number; escape them (\\*) or split the paragraph, or raise ' +
            '`limits.maxEmphasisMarkers` in sync.config.ts if this file is meant to be this way',
        },
      ]);
      expect(
        render(
          Array(60)
            .fill(`${'**b** '.repeat(25)}`)
            .join('\n\n'),
        ).problems,
      ).toEqual([]);
      expect(render(`\`\`\`\n${'*'.repeat(20_000)}\n\`\`\`\n`).problems).toEqual([]);
    },
  );

  it('takes the limits it is given', () => {
    expect(
      renderMarkdown('> > > x\n', {
        defaultSize: 'medium',
        limits: { ...DEFAULT_LIMITS, maxNestingDepth: 2 },
      }).problems,
    ).toEqual([
      expect.objectContaining({ line: 1, message: expect.stringContaining('more than the limit of 2') }),
    ]);
  });
});

describe('the render time budget (worker threads)', () => {
  it(
    'fails a document over budget, replaces its worker, and renders the jobs queued behind it',
    { timeout: 60_000 },
    async () => {
      // Quadratic emphasis let through by a raised limit: seconds of work, far over the budget.
      const slow = `${'a*'.repeat(40_000)}\n`;
      const pool = createRenderPool({
        defaultSize: 'medium',
        size: 1,
        budgetMs: 300,
        limits: { maxNestingDepth: 100, maxEmphasisMarkers: 1e9 },
      });
      try {
        const [lost, after] = await Promise.all([
          pool.render(slow).then(
            () => undefined,
            (error: unknown) => error,
          ),
          pool.render('# After\n'),
        ]);
        expect(lost).toMatchObject({
          name: 'RenderBudgetError',
          message:
            'rendering took longer than the budget of 300 ms and was stopped; raise `limits.renderBudgetMs` in ' +
            'sync.config.ts if this file is meant to be this way',
        });
        expect(after.html).toBe('<h1>After</h1>');
        expect((await pool.render('# Again\n')).html).toBe('<h1>Again</h1>');
      } finally {
        await pool.close();
      }
    },
  );

  it('makes a render that fails a positioned error of its document, not of the run', async () => {
    const doc = parseDocument(new TextEncoder().encode('---\ntitle: Slow\n---\nBody\n'), {
      file: 'content/articles/slow.md',
      absPath: '/p/content/articles/slow.md',
      resource: 'article',
    });
    if (isDocumentFailure(doc)) throw new Error('parsed');
    const config = resolveConfig({}, { projectDir: '/p', env: {} });
    const failing = () =>
      Promise.reject(new Error('rendering took longer than the budget of 10000 ms and was stopped'));
    const { record, problems } = await buildRecord(doc, {
      config,
      render: failing,
      media: { resolve: async () => ({ ok: false, message: '' }), hashFile: async () => undefined },
    });
    expect(record).toBeUndefined();
    expect(problems.map(formatProblem)).toEqual([
      'content/articles/slow.md:4:1: the body could not be rendered: rendering took longer than the budget of 10000 ' +
        'ms and was stopped',
    ]);
  });
});
