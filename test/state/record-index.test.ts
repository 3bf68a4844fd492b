import { describe, expect, it } from 'vitest';
import { recordIndex } from '../../src/state/record-index.js';
import { emptyState, type StateRecord } from '../../src/state/state-file.js';

const entry = (id: number, file: string): StateRecord => ({
  id,
  file,
  owner: 'created',
  source: {},
  remote: {},
});

const sorted = (map: ReadonlyMap<string, readonly string[]>) =>
  new Map([...map].map(([resource, keys]) => [resource, [...keys].sort()]));

describe('the index of a state’s records', () => {
  it('gathers keys by resource, ids and files in one pass, kept until the records change', () => {
    const state = emptyState('local');
    state.records.set('article/a', entry(1, 'content/articles/a.md'));
    state.records.set('category/news', entry(7, 'content/categories/news.md'));
    state.records.set('article/b', entry(2, 'content/articles/b.md'));
    const index = recordIndex(state);
    expect(index.keysByResource).toEqual(
      new Map([
        ['article', ['article/a', 'article/b']],
        ['category', ['category/news']],
      ]),
    );
    expect(index.idsByResource.get('article')).toEqual(
      new Map([
        [1, 'article/a'],
        [2, 'article/b'],
      ]),
    );
    expect(index.keyOfFile.get('content/categories/news.md')).toBe('category/news');
    // Every stage of a run that asks gets the same index, without walking the records again.
    expect(recordIndex(state)).toBe(index);
    expect(recordIndex({ records: state.records })).toBe(index);

    state.records.set('article/c', entry(3, 'content/articles/c.md'));
    const afterSet = recordIndex(state);
    expect(afterSet.idsByResource.get('article')?.get(3)).toBe('article/c');
    state.records.delete('article/a');
    expect(recordIndex(state).keyOfFile.has('content/articles/a.md')).toBe(false);
  });

  it('is brought up to date with what changed, as if gathered again from every record', () => {
    const state = emptyState('local');
    const fresh = () => recordIndex({ records: new Map(state.records) });
    const same = () => {
      const index = recordIndex(state);
      const again = fresh();
      expect(sorted(index.keysByResource)).toEqual(sorted(again.keysByResource));
      expect(index.idsByResource).toEqual(again.idsByResource);
      expect(new Set(index.keyOfFile.keys())).toEqual(new Set(again.keyOfFile.keys()));
      for (const file of again.keyOfFile.keys())
        expect([...index.keysOfFile(file)].sort()).toEqual([...again.keysOfFile(file)].sort());
    };
    for (let i = 0; i < 20; i++)
      state.records.set(`article/s${i}`, entry(i + 1, `content/articles/s${i}.md`));
    state.records.set('category/news', entry(100, 'content/categories/news.md'));
    const index = recordIndex(state);
    // A record written again, one renamed, one removed, two records of one file (a slug changed,
    // the old record kept), then that file's first record removed, and a removal of nothing.
    state.records.set('article/s1', entry(2, 'content/articles/s1.md'));
    state.records.set('article/s2', entry(3, 'content/articles/moved.md'));
    state.records.delete('article/s3');
    state.records.set('article/renamed', entry(40, 'content/articles/s4.md'));
    same();
    expect(recordIndex(state)).toBe(index);
    expect(index.keysOfFile('content/articles/s4.md')).toEqual(['article/s4', 'article/renamed']);
    state.records.delete('article/s4');
    state.records.delete('article/none');
    state.records.set('article/s5', entry(41, 'content/articles/s5.md'));
    state.records.set('category/news', entry(101, 'content/categories/news.md'));
    same();
    expect(index.keysOfFile('content/articles/s4.md')).toEqual(['article/renamed']);
    expect(index.idsByResource.get('article')?.has(6)).toBe(false);
    // More changes than are noted: gathered again from every record, still right.
    for (let i = 0; i < 5000; i++)
      state.records.set(`article/n${i}`, entry(1000 + i, `content/articles/n${i}.md`));
    same();
  });

  it('is made again each time for records that do not count their changes (a Map made by hand)', () => {
    const records = new Map([['article/a', entry(1, 'content/articles/a.md')]]);
    const index = recordIndex({ records });
    records.set('article/b', entry(2, 'content/articles/b.md'));
    expect(recordIndex({ records }).keyOfFile.get('content/articles/b.md')).toBe('article/b');
    expect(index.keyOfFile.has('content/articles/b.md')).toBe(false);
  });
});
