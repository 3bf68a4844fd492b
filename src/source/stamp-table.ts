import { statSync } from 'node:fs';

/** What a stat says of a file that the hash cache compares (see hash-cache.ts). */
export interface Stamp {
  isFile(): boolean;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/**
 * The stamps (size, mtime, ctime, inode, and whether each is a plain file) of many files, taken by
 * two threads at once (see stat-many.ts): each claims the next chunk of paths from a counter both
 * share, stats it, and writes into the same table. Both threads run this code: nothing here may
 * need more than node:fs.
 */
export interface StampTable {
  /** [next index to claim, paths statted]: both changed only through Atomics. */
  control: Int32Array;
  /** size, mtimeMs, ctimeMs, ino of path i at 4i..4i+3. */
  numbers: Float64Array;
  /** What path i is: NOT_YET until statted. */
  kinds: Uint8Array;
  /** 1 where path i's stamp is the one the hash cache holds for it (set by the worker, see COMPARED). */
  same: Uint8Array;
  /**
   * 1 once chunk c (paths c * CHUNK on) is statted, stored through Atomics after its rows: the
   * worker compares a chunk the other thread statted as soon as it is done, not all at the end.
   */
  chunks: Uint8Array;
}

export const NOT_YET = 0;
export const ABSENT = 1;
export const PLAIN_FILE = 2;
export const OTHER = 3;

const NEXT = 0;
const DONE = 1;
/** Set to 1 by the worker once `same` is written whole. */
const COMPARED = 2;
/** Set to 1 by the worker once it has written the stamps it took ahead (see stat-ahead.ts). */
const PREFILLED = 3;

/** Paths claimed at once: small enough that the two threads end close together. */
export const CHUNK = 256;

const NUMBERS_AT = 16;

export function stampTable(count: number): { shared: SharedArrayBuffer; table: StampTable } {
  const shared = new SharedArrayBuffer(NUMBERS_AT + count * 4 * 8 + 2 * count + Math.ceil(count / CHUNK));
  return { shared, table: tableIn(shared, count) };
}

export function tableIn(shared: SharedArrayBuffer, count: number): StampTable {
  const kindsAt = NUMBERS_AT + count * 4 * 8;
  return {
    control: new Int32Array(shared, 0, 4),
    numbers: new Float64Array(shared, NUMBERS_AT, count * 4),
    kinds: new Uint8Array(shared, kindsAt, count),
    same: new Uint8Array(shared, kindsAt + count, count),
    chunks: new Uint8Array(shared, kindsAt + 2 * count, Math.ceil(count / CHUNK)),
  };
}

/** Whether chunk c is statted (an atomic load: its rows are then seen as written). */
export function chunkStatted(table: StampTable, c: number): boolean {
  return Atomics.load(table.chunks, c) === 1;
}

/** Said by the worker once `same` is written (a store both threads see in order with those writes). */
export function markCompared(table: StampTable): void {
  Atomics.store(table.control, COMPARED, 1);
}

export function compared(table: StampTable): boolean {
  return Atomics.load(table.control, COMPARED) === 1;
}

/** Said by the worker once it has written the stamps it took ahead, before any chunk is claimed. */
export function markPrefilled(table: StampTable): void {
  Atomics.store(table.control, PREFILLED, 1);
}

/**
 * Read by this thread once the worker has said it has written the stamps it took ahead: an atomic
 * load of what an atomic store wrote after them, so that this thread sees them, and stats none of
 * them again.
 */
export function seePrefilled(table: StampTable): void {
  Atomics.load(table.control, PREFILLED);
}

/**
 * Stats chunks of the table's paths (path i is `pathOf(i)`, none when empty) until none is left
 * to claim, or `most` chunks are statted, and calls `afterChunk` with the rows of each once they
 * are written: true when it stopped at `most`. A row already written (a stamp the worker took
 * ahead) is not statted again.
 */
export function statClaimed(
  pathOf: (i: number) => string,
  table: StampTable,
  afterChunk?: (from: number, to: number) => void,
  most = Infinity,
): boolean {
  const { control, numbers, kinds } = table;
  const count = kinds.length;
  for (let chunks = 0; chunks < most; chunks++) {
    const from = Atomics.add(control, NEXT, CHUNK);
    if (from >= count) return false;
    const to = Math.min(from + CHUNK, count);
    for (let i = from; i < to; i++) if (kinds[i] === NOT_YET) statInto(pathOf(i), i, numbers, kinds);
    Atomics.store(table.chunks, from / CHUNK, 1);
    Atomics.add(control, DONE, to - from);
    Atomics.notify(control, DONE);
    afterChunk?.(from, to);
  }
  return true;
}

/**
 * Where document i is: content/ joined with its name less the content/ prefix the names share.
 * The names cross to the worker; the paths, which are as long again, are made where they are statted.
 */
export function pathsOf(where: PathsOf, names: readonly string[]): (i: number) => string {
  const skip = new Set(where.skip);
  const { contentDir, prefixLength, sep } = where;
  return (i) => (skip.has(i) ? '' : `${contentDir}${sep}${names[i]!.slice(prefixLength)}`);
}

export interface PathsOf {
  contentDir: string;
  /** The length of the names' content/ prefix (see source/content-paths.ts). */
  prefixLength: number;
  sep: string;
  /** Documents not to stat (a link refused: a stat would follow it). */
  skip: readonly number[];
}

/** Whether every path is statted. */
export function allStatted(table: StampTable): boolean {
  return Atomics.load(table.control, DONE) >= table.kinds.length;
}

/** Waits (blocking: a worker only) until every path is statted, by either thread. */
export function waitAllStatted(table: StampTable): void {
  for (;;) {
    const done = Atomics.load(table.control, DONE);
    if (done >= table.kinds.length) return;
    Atomics.wait(table.control, DONE, done);
  }
}

export function statInto(file: string, i: number, numbers: Float64Array, kinds: Uint8Array): void {
  if (file === '') {
    kinds[i] = ABSENT;
    return;
  }
  let info;
  try {
    info = statSync(file, { throwIfNoEntry: false });
  } catch {
    info = undefined;
  }
  if (!info) {
    kinds[i] = ABSENT;
    return;
  }
  numbers[4 * i] = info.size;
  numbers[4 * i + 1] = info.mtimeMs;
  numbers[4 * i + 2] = info.ctimeMs;
  numbers[4 * i + 3] = info.ino;
  kinds[i] = info.isFile() ? PLAIN_FILE : OTHER;
}

/** A view of one row of the table, moved from row to row (one object, not one per file). */
export class TableStamp implements Stamp {
  at = 0;
  constructor(private readonly table: Pick<StampTable, 'numbers' | 'kinds'>) {}
  isFile(): boolean {
    return this.table.kinds[this.at] === PLAIN_FILE;
  }
  get size(): number {
    return this.table.numbers[4 * this.at]!;
  }
  get mtimeMs(): number {
    return this.table.numbers[4 * this.at + 1]!;
  }
  get ctimeMs(): number {
    return this.table.numbers[4 * this.at + 2]!;
  }
  get ino(): number {
    return this.table.numbers[4 * this.at + 3]!;
  }
}
