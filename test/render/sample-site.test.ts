import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/render/render-markdown.js';

const article = async (slug: string): Promise<string> => {
  const text = await readFile(new URL(`../../content/articles/${slug}.md`, import.meta.url), 'utf8');
  return text.slice(text.indexOf('\n---\n', 3) + 5);
};

describe('rendering the sample articles', () => {
  it('finds each kind of image the sample shows off, with its size', async () => {
    const river = renderMarkdown(await article('river-levels-record-high'), { defaultSize: 'medium' });
    const funding = renderMarkdown(await article('flood-defences-funding'), { defaultSize: 'medium' });
    const budget = renderMarkdown(await article('budget-vote-passes'), { defaultSize: 'medium' });
    expect(river.images.map((i) => [i.src, i.kind, i.size])).toEqual([
      ['../images/river-flood.png', 'markdown', 'medium'],
      ['../images/rainfall-chart.png', 'reference', 'medium'],
    ]);
    expect(funding.images.map((i) => [i.src, i.kind, i.size])).toEqual([
      ['../images/river-flood.png', 'markdown', 'medium'],
      ['../images/rainfall-chart.png', 'html', 'small'],
    ]);
    expect(budget.images.map((i) => [i.src, i.kind, i.size])).toEqual([
      ['../images/parliament-dusk.png', 'markdown', 'large'],
    ]);
    expect([...river.problems, ...funding.problems, ...budget.problems]).toEqual([]);
    expect(river.html).toContain('<td align="right">133</td>');
  });
});
