import { describe, expect, it } from 'vitest';
import { MigrationReport } from '../../src/migrate/report.js';

describe('MigrationReport', () => {
  it('counts what was left out in every item, but keeps only the names it shows', () => {
    const report = new MigrationReport();
    for (let i = 1; i <= 1000; i++) {
      // An item may leave out the same kind twice: it is named, and counted as an item, once.
      report.drop('<style> elements (page CSS)', `post ${i} "Post ${i}"`);
      if (i % 2 === 0) report.drop('<style> elements (page CSS)', `post ${i} "Post ${i}"`);
    }
    report.drop('<form> elements', 'post 7 "Post 7"');

    // A large import leaves out a kind in thousands of items: their names are not all kept.
    expect(report.dropped.get('<style> elements (page CSS)')?.names).toHaveLength(5);
    expect(report.format('Imported').split('\n').slice(6)).toEqual([
      'Left out (no place for them in Markdown or the CMS):',
      '    1500  <style> elements (page CSS): post 1 "Post 1", post 2 "Post 2", post 3 "Post 3", post 4 "Post 4", ' +
        'post 5 "Post 5", and 995 more',
      '       1  <form> elements: post 7 "Post 7"',
    ]);
  });
});
