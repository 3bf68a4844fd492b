import { describe, expect, it } from 'vitest';
import { LandedWrites } from '../../src/apply/landed-writes.js';
import type { Change } from '../../src/plan/compute-plan.js';
import type { DesiredRecord } from '../../src/records/build-record.js';

// What the change's record holds is not read: only its key, resource and id.
const record = {} as DesiredRecord;
const base = { resource: 'article' as const, file: 'content/articles/a.md', record };

describe('the writes an apply notes for the listing cache', () => {
  it('notes each write whose answer holds a marker, for the record the plan named', () => {
    const landed = new LandedWrites();
    landed.wrote({ ...base, action: 'create', key: 'article/new', fields: [] }, { id: 10, marker: 'm1' });
    landed.wrote(
      { ...base, action: 'update', key: 'article/edited', id: 11, fields: [], owner: 'created' },
      { id: 11, marker: 'm2' },
    );
    landed.wrote(
      { ...base, action: 'adopt', key: 'article/adopted', id: 12, baseline: {}, owner: 'adopted' },
      { id: 12, marker: 1_800_000_000 },
    );
    // No marker in the answer, and an edit that left another record than the one planned.
    landed.wrote({ ...base, action: 'create', key: 'article/nomark', fields: [] }, { id: 13 });
    landed.wrote(
      { ...base, action: 'update', key: 'article/other', id: 14, fields: [], owner: 'created' },
      { id: 15, marker: 'm3' },
    );
    landed.wrote(
      { ...base, action: 'create', key: 'category/news', resource: 'category', fields: [] },
      {
        id: 3,
        marker: 'm4',
      },
    );
    expect(landed.written.get('article')).toEqual({
      ids: [10, 11, 12],
      keys: ['article/new', 'article/edited', 'article/adopted'],
      markers: ['m1', 'm2', 1_800_000_000],
    });
    expect(landed.written.get('category')).toEqual({ ids: [3], keys: ['category/news'], markers: ['m4'] });
    expect(landed.deleted.size).toBe(0);
  });

  it('notes each delete, by resource', () => {
    const landed = new LandedWrites();
    const gone = (resource: 'article' | 'page', id: number): Extract<Change, { action: 'delete' }> => ({
      action: 'delete',
      key: `${resource}/${id}`,
      resource,
      file: 'x.md',
      id,
    });
    landed.removed(gone('article', 1));
    landed.removed(gone('article', 2));
    landed.removed(gone('page', 7));
    expect(landed.deleted).toEqual(
      new Map([
        ['article', new Set([1, 2])],
        ['page', new Set([7])],
      ]),
    );
    expect(landed.written.size).toBe(0);
  });
});
