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
    expect(afterSet).not.toBe(index);
    expect(afterSet.idsByResource.get('article')?.get(3)).toBe('article/c');
    state.records.delete('article/a');
    expect(recordIndex(state).keyOfFile.has('content/articles/a.md')).toBe(false);
  });

  it('is made again each time for records that do not count their changes (a Map made by hand)', () => {
    const records = new Map([['article/a', entry(1, 'content/articles/a.md')]]);
    const index = recordIndex({ records });
    records.set('article/b', entry(2, 'content/articles/b.md'));
    expect(recordIndex({ records }).keyOfFile.get('content/articles/b.md')).toBe('article/b');
    expect(index.keyOfFile.has('content/articles/b.md')).toBe(false);
  });
});
