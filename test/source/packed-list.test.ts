import { afterEach, describe, expect, it, vi } from 'vitest';
import { PackedList, type PackedKind } from '../../src/source/packed-list.js';

/** An item of a kind of its own: its key, and where it "lies" (its position and its key's length). */
interface Item {
  key: string;
  at: number;
  length: number;
  note?: string;
}

const kind: PackedKind<Item, string> = {
  placeOf: (item) =>
    item.key.startsWith('kept:') ? undefined : { shelf: 'shelf', at: item.at, length: item.length },
  make: (key, { at, length }) => ({ key, at, length }),
  extras: ['note'],
};

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('PackedList', () => {
  it('gives back every key across its pages, a key that does not fit the rest of a page on the next', () => {
    const items: Item[] = [];
    for (let i = 0; i < 20_000; i++) {
      // From a few bytes to about 3 KiB, ASCII and not: pages of keys fill at odd places.
      const key = `k${i}-${'é日'.repeat((i * 37) % 500)}`;
      items.push({ key, at: i * 1.5, length: i, ...(i % 97 === 0 ? { note: `n${i}` } : {}) });
    }
    // A key of exactly a page of bytes fits a page; one byte more is kept as it is; and an empty one.
    items.push({ key: 'x'.repeat(64 * 1024), at: 1, length: 1 });
    items.push({ key: 'y'.repeat(64 * 1024 + 1), at: 2, length: 2 });
    items.push({ key: '', at: 3, length: 3 });
    items.push({ key: 'kept:not spooled', at: 4, length: 4 });
    items.push({ key: 'after', at: 5, length: 5 });
    const list = new PackedList(kind);
    for (const item of items) list.add(item);
    expect(list.size).toBe(items.length);
    for (const [i, item] of items.entries()) {
      const back = list.at(i);
      expect(back).toEqual(item);
      // Only an item kept as it is comes back as the same object.
      expect(back === item).toBe(item.key.startsWith('kept:') || item.key.length > 64 * 1024);
    }
    expect([...list.take()].map((item) => item.key)).toEqual(items.map((item) => item.key));
  });

  it('gives back an empty key first in the list', () => {
    const list = new PackedList(kind);
    list.add({ key: '', at: 0, length: 0 });
    list.add({ key: 'b', at: 1, length: 1 });
    expect([...list]).toEqual([
      { key: '', at: 0, length: 0 },
      { key: 'b', at: 1, length: 1 },
    ]);
  });

  // glibc maps a block larger than its mmap threshold (128 KiB at start) on its own, and freeing
  // one raises the threshold and what every thread's arena keeps (see src/write-text.ts).
  it('never takes a block larger than 64 KiB, however many items', () => {
    const sizes: number[] = [];
    for (const name of ['Float64Array', 'Uint32Array'] as const) {
      const Base = globalThis[name];
      vi.stubGlobal(
        name,
        class extends Base {
          constructor(length: number) {
            super(length);
            sizes.push(length * Base.BYTES_PER_ELEMENT);
          }
        },
      );
    }
    for (const name of ['allocUnsafe', 'allocUnsafeSlow', 'alloc'] as const) {
      const original = Buffer[name].bind(Buffer);
      vi.spyOn(Buffer, name).mockImplementation(((size: number) => {
        sizes.push(size);
        return original(size);
      }) as never);
    }
    const list = new PackedList(kind);
    for (let i = 0; i < 100_000; i++) list.add({ key: `article/a-long-enough-slug-${i}`, at: i, length: i });
    expect(list.at(99_999).key).toBe('article/a-long-enough-slug-99999');
    expect(sizes.length).toBeGreaterThan(10);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(64 * 1024);
  });
});
