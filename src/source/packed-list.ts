/** Where a spooled item's parts lie: its spool's shelf (see spooled-document.ts) and its place there. */
export interface PackedPlace<S> {
  shelf: S;
  at: number;
  length: number;
}

/** How a kind of spooled item (a document, a record) is packed and made again. */
export interface PackedKind<T, S> {
  /** Where the item lies, or undefined for one that is not spooled: it is kept as it is. */
  placeOf(item: T): PackedPlace<S> | undefined;
  /** The item again, as a new object, without its extras. */
  make(key: string, place: PackedPlace<S>): T;
  /** The fields few items have (a file of their own, a language): kept apart for those that do. */
  extras: readonly string[];
}

/** Items per page of the columns: 16 to 32 KiB a column. */
const PAGE_ITEMS = 4096;
/** Bytes per page of keys; a key longer than that is kept as it is. */
const KEY_PAGE = 64 * 1024;

/** The columns of PAGE_ITEMS items: where each key ends in the pages of keys, and where its parts lie. */
interface Page {
  keyEnds: Float64Array;
  at: Float64Array;
  length: Uint32Array;
}

/**
 * Spooled documents or records packed outside V8's heap, for the run's longest stretch, while
 * the render workers run beside it: a spooled item's key and where its parts lie go into typed
 * arrays, and it is made again, as a new object, when it is read. Held as objects, the index
 * would sit on the main heap, which V8 lets grow in proportion to what it holds; typed arrays are
 * outside the collector's account. An item that is not spooled, or of another spool, stays as it is.
 *
 * The arrays are pages of at most 64 KiB, never one block the size of the archive: glibc maps a
 * block larger than its mmap threshold on its own, and freeing one raises that threshold, and the
 * memory every thread's malloc arena keeps, for the rest of the process (see src/write-text.ts).
 */
export class PackedList<T extends { key: string }, S> {
  #count = 0;
  #pages: Page[] = [];
  #keyPages: Buffer[] = [];
  /** Bytes of keys placed: the next key goes here, or at the next page's start if it does not fit. */
  #keysUsed = 0;
  /** Per position, an item kept as it is. */
  #kept = new Map<number, T>();
  #extras = new Map<number, Record<string, unknown>>();
  #shelf: S | undefined;
  #taken = false;

  constructor(private readonly kind: PackedKind<T, S>) {}

  get size(): number {
    return this.#count;
  }

  /** Adds `item` at the end; returns its position. */
  add(item: T): number {
    const i = this.#count;
    if (i % PAGE_ITEMS === 0)
      this.#pages.push({
        keyEnds: new Float64Array(PAGE_ITEMS),
        at: new Float64Array(PAGE_ITEMS),
        length: new Uint32Array(PAGE_ITEMS),
      });
    this.#count += 1;
    const page = this.#pages[this.#pages.length - 1]!;
    const slot = i % PAGE_ITEMS;
    page.keyEnds[slot] = this.#keysUsed;
    const place = this.kind.placeOf(item);
    const bytes = place ? Buffer.byteLength(item.key, 'utf8') : 0;
    // A key with a lone surrogate (a `\uD800` escape in YAML) would not come back from UTF-8 as it was.
    if (
      !place ||
      (this.#shelf && place.shelf !== this.#shelf) ||
      bytes > KEY_PAGE ||
      LONE_SURROGATE.test(item.key)
    ) {
      this.#kept.set(i, item);
      return i;
    }
    this.#shelf = place.shelf;
    let start = this.#keysUsed;
    // A key that does not fit the rest of the last page starts a new one (an empty key fits anywhere).
    if (start + bytes > this.#keyPages.length * KEY_PAGE) {
      start = this.#keyPages.length * KEY_PAGE;
      this.#keyPages.push(Buffer.allocUnsafeSlow(KEY_PAGE));
    }
    if (bytes > 0) this.#keyPages[this.#keyPages.length - 1]!.write(item.key, start % KEY_PAGE, 'utf8');
    this.#keysUsed = start + bytes;
    page.keyEnds[slot] = this.#keysUsed;
    page.at[slot] = place.at;
    page.length[slot] = place.length;
    let extras: Record<string, unknown> | undefined;
    for (const name of this.kind.extras) {
      const value = (item as Record<string, unknown>)[name];
      if (value !== undefined) (extras ??= {})[name] = value;
    }
    if (extras) this.#extras.set(i, extras);
    return i;
  }

  /** The item at `position`: the one kept, or a spooled one made again. */
  at(position: number): T {
    if (!(position >= 0 && position < this.#count)) throw new RangeError(`no item at ${position}`);
    if (this.#taken) throw new Error('the items were taken (see take)');
    return this.#itemAt(position);
  }

  /** Each item in the order added. */
  *[Symbol.iterator](): Generator<T> {
    for (let i = 0; i < this.#count; i++) yield this.at(i);
  }

  /**
   * Each item in the order added, once: an item kept as it is (a document read again after the
   * scan holds its front matter) is let go as it is taken, and the list cannot be read again.
   */
  *take(): Generator<T> {
    this.#taken = true;
    for (let i = 0; i < this.#count; i++) {
      const item = this.#itemAt(i);
      this.#kept.delete(i);
      yield item;
    }
  }

  #itemAt(position: number): T {
    const kept = this.#kept.get(position);
    if (kept) return kept;
    const page = this.#pages[Math.floor(position / PAGE_ITEMS)]!;
    const slot = position % PAGE_ITEMS;
    const item = this.kind.make(this.#keyAt(position, page.keyEnds[slot]!), {
      shelf: this.#shelf!,
      at: page.at[slot]!,
      length: page.length[slot]!,
    });
    const extras = this.#extras.get(position);
    return extras ? Object.assign(item, extras) : item;
  }

  /** The key that ends at `end`: from where the one before it ended, or its page's start if it did not fit there. */
  #keyAt(position: number, end: number): string {
    const before =
      position === 0
        ? 0
        : this.#pages[Math.floor((position - 1) / PAGE_ITEMS)]!.keyEnds[(position - 1) % PAGE_ITEMS]!;
    if (end === before) return '';
    const keyPage = Math.floor((end - 1) / KEY_PAGE);
    const from = keyPage * KEY_PAGE;
    return this.#keyPages[keyPage]!.toString('utf8', Math.max(before, from) - from, end - from);
  }
}

const LONE_SURROGATE = /\p{Surrogate}/u;
