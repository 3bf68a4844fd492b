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

/**
 * Spooled documents or records packed outside V8's heap, for the run's longest stretch, while
 * the render workers run beside it: a spooled item's key and where its parts lie go into typed
 * arrays, and it is made again, as a new object, when it is read. Held as objects, the index
 * would sit on the main heap, which V8 lets grow in proportion to what it holds; typed arrays are
 * outside the collector's account. An item that is not spooled, or of another spool, stays as it is.
 */
export class PackedList<T extends { key: string }, S> {
  #count = 0;
  #keys: Buffer;
  #keysUsed = 0;
  #keyEnds: Uint32Array;
  #at: Float64Array;
  #length: Uint32Array;
  /** Per position, an item kept as it is. */
  #kept = new Map<number, T>();
  #extras = new Map<number, Record<string, unknown>>();
  #shelf: S | undefined;
  #taken = false;

  /**
   * `expected`: how many items, and how many bytes their keys take in UTF-8, when the caller knows:
   * the columns are made that size at once rather than grown by doubling (which leaves room unused).
   */
  constructor(
    private readonly kind: PackedKind<T, S>,
    expected?: { items: number; keyBytes: number },
  ) {
    const items = Math.max(expected?.items ?? 0, 256);
    this.#keys = Buffer.allocUnsafe(Math.max(expected?.keyBytes ?? 0, 16 * 1024));
    this.#keyEnds = new Uint32Array(items);
    this.#at = new Float64Array(items);
    this.#length = new Uint32Array(items);
  }

  get size(): number {
    return this.#count;
  }

  /** Adds `item` at the end; returns its position. */
  add(item: T): number {
    const i = this.#count;
    if (i === this.#at.length) this.#grow();
    this.#count += 1;
    const start = this.#keysUsed;
    this.#keyEnds[i] = start;
    const place = this.kind.placeOf(item);
    // A key with a lone surrogate (a `\uD800` escape in YAML) would not come back from UTF-8 as it was.
    if (!place || (this.#shelf && place.shelf !== this.#shelf) || LONE_SURROGATE.test(item.key)) {
      this.#kept.set(i, item);
      return i;
    }
    this.#shelf = place.shelf;
    const room = Buffer.byteLength(item.key, 'utf8');
    if (start + room > this.#keys.length) {
      const keys = Buffer.allocUnsafe(Math.max(2 * this.#keys.length, start + room));
      this.#keys.copy(keys, 0, 0, start);
      this.#keys = keys;
    }
    this.#keysUsed += this.#keys.write(item.key, start, 'utf8');
    this.#keyEnds[i] = this.#keysUsed;
    this.#at[i] = place.at;
    this.#length[i] = place.length;
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
    const from = position === 0 ? 0 : this.#keyEnds[position - 1]!;
    const item = this.kind.make(this.#keys.toString('utf8', from, this.#keyEnds[position]), {
      shelf: this.#shelf!,
      at: this.#at[position]!,
      length: this.#length[position]!,
    });
    const extras = this.#extras.get(position);
    return extras ? Object.assign(item, extras) : item;
  }

  #grow(): void {
    const size = 2 * this.#at.length;
    const keyEnds = new Uint32Array(size);
    keyEnds.set(this.#keyEnds);
    this.#keyEnds = keyEnds;
    const at = new Float64Array(size);
    at.set(this.#at);
    this.#at = at;
    const length = new Uint32Array(size);
    length.set(this.#length);
    this.#length = length;
  }
}

const LONE_SURROGATE = /\p{Surrogate}/u;
