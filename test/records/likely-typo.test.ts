import { describe, expect, it } from 'vitest';
import { likelyTypo } from '../../src/records/build-record.js';

const article = new Set(['title', 'slug', 'date', 'status', 'draft', 'category']);

describe('likelyTypo', () => {
  it('catches case slips, doubled letters, swaps and one-letter slips of managed keys', () => {
    expect(likelyTypo('Draft', article)).toBe('draft');
    expect(likelyTypo('draftt', article)).toBe('draft');
    expect(likelyTypo('tittle', article)).toBe('title');
    expect(likelyTypo('categroy', article)).toBe('category');
    expect(likelyTypo('Category', article)).toBe('category');
    expect(likelyTypo('stauts', article)).toBe('status');
  });

  it('leaves keys that are merely other words alone', () => {
    for (const key of [
      'tags',
      'author',
      'authors',
      'description',
      'image',
      'state',
      'summary',
      'lang',
      'weight',
    ]) {
      expect(likelyTypo(key, article), key).toBeUndefined();
    }
  });
});
