import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/render/render-markdown.js';

// Worker threads run compiled JavaScript: the pool is tested as built (npm test builds first).
const { createRenderPool } = (await import(
  new URL('../../dist/render/render-pool.js', import.meta.url).href
)) as typeof import('../../src/render/render-pool.js');

const documents = Array.from(
  { length: 40 },
  (_, i) =>
    `# Story ${i}\n\nText with **bold** and a [link](https://example.com/${i}).\n\n![Photo ${i}](../images/p${i % 3}.png "${['small', 'medium', 'large'][i % 3]}")\n\n| a | b |\n| - | - |\n| ${i} | x |\n`,
);

describe('the render pool', () => {
  it('gives byte for byte what rendering in this thread gives, in order, across workers', async () => {
    const pool = createRenderPool({ defaultSize: 'medium', size: 2 });
    try {
      const pooled = await Promise.all(documents.map((d) => pool.render(d)));
      expect(pooled).toEqual(documents.map((d) => renderMarkdown(d, { defaultSize: 'medium' })));
      expect(pooled[2]!.images).toEqual([
        expect.objectContaining({ src: '../images/p2.png', size: 'large', line: 5 }),
      ]);
    } finally {
      await pool.close();
    }
  });

  it('uses the default size it was made with', async () => {
    const pool = createRenderPool({ defaultSize: 'small', size: 1 });
    try {
      expect((await pool.render('![x](a.png)')).html).toContain('data-size="small"');
    } finally {
      await pool.close();
    }
  });
});

describe('a render worker that dies', () => {
  it('fails only the job it held, and the pool goes on with a new worker', async () => {
    // A heap far too small for this document: its worker runs out of memory.
    const pool = createRenderPool({ defaultSize: 'medium', size: 1, maxHeapMb: 48 });
    const huge = `${'Some **text** with a [link](https://example.com) and `code`.\n\n'.repeat(200_000)}`;
    try {
      const lost = await pool.render(huge).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(lost).toBeInstanceOf(Error);
      expect((lost as Error).name).toBe('WorkerDiedError');
      // The next job is answered (by the worker that took the dead one's place).
      expect((await pool.render('# After\n')).html).toBe('<h1>After</h1>');
    } finally {
      await pool.close();
    }
  }, 30_000);
});

describe('the render pool with plugins', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cms-sync-plugins-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const plugin = (name: string, source: string) => {
    writeFileSync(path.join(dir, name), source);
    return { specifier: `./${name}`, url: pathToFileURL(path.join(dir, name)).href, name, version: '1' };
  };

  it('runs them on every worker, with their options', async () => {
    const mark = plugin(
      'mark.mjs',
      "export default (o) => (tree) => { tree.children.push({ type: 'text', value: o.text }); };\n",
    );
    const pool = createRenderPool({
      defaultSize: 'medium',
      size: 2,
      plugins: { remark: [], rehype: [{ ...mark, options: { text: '+' } }] },
    });
    try {
      const results = await Promise.all(['a', 'b', 'c'].map((d) => pool.render(d)));
      expect(results.map((r) => r.html)).toEqual(['<p>a</p>+', '<p>b</p>+', '<p>c</p>+']);
    } finally {
      await pool.close();
    }
  });

  it('reads math on every worker, with plugins (which see its nodes) and without', async () => {
    const count = plugin(
      'count-math.mjs',
      'export default () => (tree) => { tree.children.push({ type: "paragraph", children: [{ type: "text", ' +
        'value: String(tree.children.filter((n) => n.type === "math").length) }] }); };\n',
    );
    const math = { singleDollar: true };
    const withPlugin = createRenderPool({
      defaultSize: 'medium',
      size: 1,
      math,
      plugins: { remark: [count], rehype: [] },
    });
    const plain = createRenderPool({ defaultSize: 'medium', size: 1, math });
    try {
      const tex = '$a*b$\n\n$$\nx \\\\ y\n$$';
      const html =
        '<p><span class="math math-inline">\\(a*b\\)</span></p>\n<div class="math math-display">\\[x \\\\ y\\]</div>';
      expect((await plain.render(tex)).html).toBe(html);
      expect((await withPlugin.render(tex)).html).toBe(`${html}\n<p>1</p>`);
    } finally {
      await Promise.all([withPlugin.close(), plain.close()]);
    }
  });

  it('fails every job with the run-level error that names the plugin when a worker cannot load it', async () => {
    const broken = plugin('broken.mjs', 'export default function ( {\n');
    const pool = createRenderPool({
      defaultSize: 'medium',
      size: 2,
      plugins: { remark: [broken], rehype: [] },
    });
    try {
      const results = await Promise.allSettled(['a', 'b', 'c'].map((d) => pool.render(d)));
      for (const result of results) {
        expect(result.status).toBe('rejected');
        const error = (result as PromiseRejectedResult).reason as Error & { code?: string };
        expect(error.code).toBe('CMS_SYNC_CONFIG');
        expect(error.message).toMatch(
          /^The remark plugin `\.\/broken\.mjs` in markdown\.remarkPlugins could not be loaded in a render worker: /,
        );
      }
      await expect(pool.render('d')).rejects.toThrow('`./broken.mjs`');
    } finally {
      await pool.close();
    }
  });
});
