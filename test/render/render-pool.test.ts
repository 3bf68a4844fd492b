import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/render/render-markdown.js';

// Worker threads run compiled JavaScript: the pool is tested as built (npm test builds first).
const { createRenderPool } = (await import(new URL('../../dist/render/render-pool.js', import.meta.url).href)) as typeof import('../../src/render/render-pool.js');

const documents = Array.from({ length: 40 }, (_, i) => `# Story ${i}\n\nText with **bold** and a [link](https://example.com/${i}).\n\n![Photo ${i}](../images/p${i % 3}.png "${['small', 'medium', 'large'][i % 3]}")\n\n| a | b |\n| - | - |\n| ${i} | x |\n`);

describe('the render pool', () => {
  it('gives byte for byte what rendering in this thread gives, in order, across workers', async () => {
    const pool = createRenderPool({ defaultSize: 'medium', size: 2 });
    try {
      const pooled = await Promise.all(documents.map((d) => pool.render(d)));
      expect(pooled).toEqual(documents.map((d) => renderMarkdown(d, { defaultSize: 'medium' })));
      expect(pooled[2]!.images).toEqual([expect.objectContaining({ src: '../images/p2.png', size: 'large', line: 5 })]);
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
