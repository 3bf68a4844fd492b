/** The small newsroom the apply tests start from, and what one run lists. */
import { png } from './harness.js';

/** A small newsroom: two categories, three articles sharing one map image, a page, a breaking item. */
export function newsroom(): Record<string, string | Buffer> {
  return {
    'content/categories/politics.md': '---\nname: Politics\ndescription: Parliament and government\n---\n',
    'content/categories/climate.md': '---\nname: Climate\n---\n',
    'content/images/map.png': png(1),
    'content/images/chart.png': png(2),
    'content/articles/budget-vote.md': [
      '---',
      'title: Budget passes after late-night vote',
      'date: 2026-11-20',
      'category: politics',
      '---',
      '',
      'The budget passed **by two votes**.',
      '',
      '![Map of the districts](../images/map.png "large")',
      '',
    ].join('\n'),
    'content/articles/flood-warning.md': [
      '---',
      'title: Flood warning for the river valley',
      'category: climate',
      'draft: true',
      '---',
      '',
      'Water levels are rising.',
      '',
      '![Map][map]',
      '',
      '<img src="../images/chart.png" data-size="small">',
      '',
      '[map]: ../images/map.png',
      '',
    ].join('\n'),
    'content/articles/election-night.md':
      '---\ntitle: Election night, live\ncategory: politics\n---\n\n![](/images/map.png)\n\n```md\n![not an ' +
      'image](nope.png)\n```\n',
    'content/pages/about.md': '---\ntitle: About us\n---\n\nWe report on the valley.\n',
    'content/breaking/storm.md':
      '---\ntitle: Storm closes the bridge\nurl: https://example.com/live/storm\n---\n',
  };
}

/** One listing page per record resource: what every run reads. */
export function listCalls(): Record<string, number> {
  return { 'article.get': 1, 'breaking.get': 1, 'category.get': 1, 'page.get': 1, 'user.get': 1 };
}
