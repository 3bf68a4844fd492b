import { describe, expect, it } from 'vitest';
import { PackedColumn } from '../../src/remote/packed-column.js';

type Value = string | number | null;
const isValue = (value: unknown): value is Value =>
  value === null || typeof value === 'string' || typeof value === 'number';

/** Values a CMS may send as slugs or markers, and text the packing itself uses. */
const VALUES: Value[] = [
  'plain-slug',
  '2026-11-27T08:24:14.078Z',
  '',
  '=starts-with-equals',
  'two\nlines',
  'trailing\n',
  '\n',
  'caf\u00e9 \u65b0\u95fb \u{1f600}',
  'say "hi" \\ back',
  1_795_767_853,
  0,
  -1.5,
  null,
];

/** The column written and read back, as a run saves and the next loads it. */
const reloaded = (column: PackedColumn<Value>) =>
  PackedColumn.read(JSON.parse(JSON.stringify(column)) as unknown, column.length, isValue)!;

describe('a packed column of the listing cache', () => {
  it('reads back every value as it was written, one row or many', () => {
    for (const value of VALUES) expect(reloaded(PackedColumn.of([value])).values()).toEqual([value]);
    const column = reloaded(PackedColumn.of(VALUES));
    expect(column.values()).toEqual(VALUES);
    expect(VALUES.map((_, i) => column.at(i))).toEqual(VALUES);
    expect(reloaded(PackedColumn.of<Value>([])).values()).toEqual([]);
  });

  it('writes back the rows set and added since the load, in their place', () => {
    const loaded = reloaded(PackedColumn.of(VALUES));
    const changed = loaded.copy();
    changed.set(0, 'first\nchanged');
    changed.set(4, 42);
    changed.set(VALUES.length - 1, '=last');
    changed.set(VALUES.length, 'added');
    changed.set(VALUES.length + 1, null);
    const expected: Value[] = [...VALUES];
    expected[0] = 'first\nchanged';
    expected[4] = 42;
    expected[VALUES.length - 1] = '=last';
    expected.push('added', null);
    expect(changed.values()).toEqual(expected);
    expect(reloaded(changed).values()).toEqual(expected);
    // The copy's changes are its own; the loaded text is written back as it was.
    expect(loaded.values()).toEqual(VALUES);
    expect(reloaded(loaded).values()).toEqual(VALUES);
    // Rows kept by index, loaded and changed alike.
    const kept = changed.keep((i) => i % 2 === 0);
    expect(kept.values()).toEqual(expected.filter((_, i) => i % 2 === 0));
    expect(reloaded(kept).values()).toEqual(expected.filter((_, i) => i % 2 === 0));
  });

  it('is not read from text of another number of rows, or with a row that is not a value', () => {
    const text = JSON.parse(JSON.stringify(PackedColumn.of<Value>(['a', 'b', 7]))) as string;
    expect(PackedColumn.read(text, 3, isValue)?.values()).toEqual(['a', 'b', 7]);
    expect(PackedColumn.read(text, 2, isValue)).toBeUndefined();
    expect(PackedColumn.read(text, 4, isValue)).toBeUndefined();
    expect(PackedColumn.read(`${text}\n`, 3, isValue)).toBeUndefined();
    expect(PackedColumn.read(text.replace('=7', '=[7'), 3, isValue)).toBeUndefined();
    expect(PackedColumn.read(text.replace('=7', '={}'), 3, isValue)).toBeUndefined();
    expect(PackedColumn.read(['a', 'b', 7], 3, isValue)).toBeUndefined();
    expect(PackedColumn.read('', 0, isValue)?.values()).toEqual([]);
    expect(PackedColumn.read('a', 0, isValue)).toBeUndefined();
    // One empty row is an empty text.
    expect(PackedColumn.read('', 1, isValue)?.values()).toEqual(['']);
  });

  it('gives its text in pieces of at most 16 K characters, never cutting a surrogate pair', () => {
    // A loaded column of 40,000 rows with some set and some added: about a megabyte of text.
    const values = Array.from({ length: 40_000 }, (_, i): Value => (i % 3 ? `a-story-${i}-🎉🎉` : i));
    const loaded = reloaded(PackedColumn.of(values)).copy();
    for (let i = 0; i < 40_000; i += 997) loaded.set(i, `set-${i}-${'é'.repeat(i % 50)}`);
    for (let i = 0; i < 5_000; i++) loaded.set(loaded.length, `added-${i}-🎉`);
    const pieces = [...loaded.textPieces()];
    expect(pieces.join('')).toBe(loaded.toJSON());
    expect(pieces.length).toBeGreaterThan(40);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(16 * 1024 + 100);
    for (const piece of pieces) {
      expect(piece.charCodeAt(piece.length - 1) & 0xfc00).not.toBe(0xd800);
      expect(piece.charCodeAt(0) & 0xfc00).not.toBe(0xdc00);
    }
    expect(reloaded(loaded).values()).toEqual(loaded.values());
  });
});
