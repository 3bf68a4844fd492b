import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WIRE,
  readId,
  readListData,
  readMediaId,
  readRecord,
  resolveWire,
} from '../../src/remote/wire.js';

const wire = DEFAULT_WIRE;

describe('readListData', () => {
  const a = { id: 1 };
  const b = { id: 2 };

  it.each([
    ['a bare array', [a, b]],
    ['{items}', { items: [a, b], total: 2 }],
    ['{records}', { records: [a, b] }],
    ['{results}', { results: [a, b] }],
    ['{rows}', { rows: [a, b] }],
    ['{articles} (the resource plural)', { articles: [a, b] }],
    ['the only array property, whatever its name', { entries: [a, b], page: 1 }],
    ['nested one level', { result: { items: [a, b] }, ok: true }],
  ])('reads %s', (_, data) => {
    expect(readListData(data, 'article', wire).items).toEqual([a, b]);
  });

  it('prefers a known key over another array', () => {
    expect(readListData({ tags: ['x'], items: [a] }, 'article', wire).items).toEqual([a]);
  });

  it('reads the total beside the array, top level or nested', () => {
    expect(readListData({ items: [a], total: 7 }, 'article', wire).total).toBe(7);
    expect(readListData({ items: [a], meta: { total: '9' } }, 'article', wire).total).toBe(9);
    expect(readListData({ result: { rows: [a], total_count: 3 } }, 'article', wire).total).toBe(3);
    expect(readListData([a], 'article', wire).total).toBeUndefined();
  });

  it('reads null data as an empty list', () => {
    expect(readListData(null, 'article', wire).items).toEqual([]);
  });

  it('names the keys it tried when no array can be found', () => {
    expect(() => readListData({ foo: 1, bar: 'x' }, 'page', wire)).toThrow(
      expect.objectContaining({ code: 'CMS_SYNC_PROTOCOL', message: expect.stringContaining('pages') }),
    );
    expect(() => readListData({ a: [1], b: [2] }, 'page', wire)).toThrow(/wire\.listKeys/);
  });

  it('honours configured list keys', () => {
    const custom = resolveWire({ listKeys: ['hits'] });
    expect(readListData({ hits: [a], other: [b] }, 'article', custom).items).toEqual([a]);
  });
});

describe('readId', () => {
  it.each([
    ['data.id', { id: 5 }, 5],
    ['a numeric string', { id: '42' }, 42],
    ['record.id', { record: { id: 6 } }, 6],
    ['item.id', { item: { id: '7' } }, 7],
    ['data.id', { data: { id: 8 } }, 8],
    ['any single nested object with an id', { article: { id: 9, title: 't' }, ok: true }, 9],
    ['a top-level id before a nested one', { id: 1, record: { id: 2 } }, 1],
  ])('reads %s', (_, data, expected) => {
    expect(readId(data, wire)).toBe(expected);
  });

  it.each([
    ['no id', { ok: true }],
    ['two nested objects with ids', { a: { id: 1 }, b: { id: 2 } }],
    ['a non-numeric id', { id: 'abc' }],
    ['a fractional id', { id: 1.5 }],
    ['a negative id', { id: -3 }],
    ['null', null],
  ])('returns undefined for %s', (_, data) => {
    expect(readId(data, wire)).toBeUndefined();
  });
});

describe('readMediaId', () => {
  it.each([
    ['id', { id: 11 }, 11],
    ['media_id', { media_id: '12', url: 'x' }, 12],
    ['mediaId', { mediaId: 13 }, 13],
    ['a nested media object', { media: { media_id: 14 } }, 14],
    ['a bare number', 15, 15],
    ['a bare numeric string', '16', 16],
  ])('reads %s', (_, data, expected) => {
    expect(readMediaId(data, wire)).toBe(expected);
  });

  it('returns undefined when no key holds an id', () => {
    expect(readMediaId({ url: 'https://x/y.png' }, wire)).toBeUndefined();
  });
});

describe('readRecord', () => {
  it('reads the record, a nested record, or the one matching list item, normalising the id', () => {
    expect(readRecord({ id: '3', title: 'T' }, 'article', wire)).toEqual({ id: 3, title: 'T' });
    expect(readRecord({ record: { id: 3, title: 'T' } }, 'article', wire, 3)).toEqual({ id: 3, title: 'T' });
    expect(readRecord({ items: [{ id: 2 }, { id: 3, title: 'T' }] }, 'article', wire, 3)).toEqual({
      id: 3,
      title: 'T',
    });
  });

  it('reads a record held deeper where recordPaths says, and its id there', () => {
    const deep = resolveWire({ recordPaths: ['result.entry'] });
    const answer = { result: { entry: { id: '7', title: 'T' } } };
    expect(readRecord(answer, 'article', wire, 7)).toBeUndefined();
    expect(readRecord(answer, 'article', deep, 7)).toEqual({ id: 7, title: 'T' });
    expect(readId(answer, deep)).toBe(7);
    expect(readRecord({ result: { entry: { id: 8 } } }, 'article', deep, 7)).toBeUndefined();
  });

  it('does not take a record with another id', () => {
    expect(readRecord({ id: 4, title: 'T' }, 'article', wire, 3)).toBeUndefined();
    expect(readRecord({ affected: 1 }, 'article', wire, 3)).toBeUndefined();
  });
});

describe('resolveWire', () => {
  it('rejects a page size above the API maximum rather than sending it', () => {
    expect(() => resolveWire({ pageSize: 250 })).toThrow(
      "Expected `wire.pageSize` to be an integer between 1 and 100 (the API's maximum limit), got `250` (number).",
    );
    expect(() => resolveWire({ pageSize: 0 })).toThrow(/wire\.pageSize/);
  });

  it('rejects an endpoint path without a leading slash and a bad header name', () => {
    expect(() => resolveWire({ endpointPath: 'functions/api' })).toThrow(/wire\.endpointPath/);
    expect(() => resolveWire({ idempotencyHeader: 'bad header' })).toThrow(/wire\.idempotencyHeader/);
  });

  it('keeps defaults for options left undefined', () => {
    expect(resolveWire({ pageSize: undefined, idempotencyHeader: false })).toEqual({
      ...DEFAULT_WIRE,
      idempotencyHeader: false,
    });
  });
});
