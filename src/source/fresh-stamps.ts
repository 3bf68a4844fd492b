/** Where a stamp newer than the last run is told (see Fresh). */
export interface FreshWhere {
  /** When the last run wrote its state (ms; see stat-many.ts). */
  than: number;
  /** One Int32 word both threads see, set to 1 once either has seen such a stamp. */
  signal: SharedArrayBuffer;
}

/**
 * Tells both threads, as soon as either stats it, that a document changed after the last run
 * wrote its state: the scan will read it, so the main thread may load what reading takes
 * while statting goes on (see ScanOptions.onChangeFound). Told by ctime, which every write and
 * rename of a file sets (mtime can be set back: `cp -p`, `tar`, `touch -d`). A hint only: whether
 * a document is read is decided by comparing its stamp with its line in the cache, as before.
 * Used by the stat worker: nothing here may import anything.
 */
export class Fresh {
  readonly #word: Int32Array;

  constructor(private readonly where: FreshWhere) {
    this.#word = new Int32Array(where.signal, 0, 1);
  }

  /** Tells if `ctimeMs`, a stamp's ctime, is after the last run. */
  stamp(ctimeMs: number): void {
    if (ctimeMs > this.where.than && this.#word[0] === 0) Atomics.store(this.#word, 0, 1);
  }

  /** `stamp` for rows from..to of a stamp table's numbers (see stamp-table.ts). */
  look(numbers: Float64Array, from: number, to: number): void {
    for (let i = from; i < to && this.#word[0] === 0; i++) this.stamp(numbers[4 * i + 2]!);
  }

  /** Whether either thread has seen a stamp after the last run. */
  seen(): boolean {
    return Atomics.load(this.#word, 0) === 1;
  }
}
