import { Worker } from 'node:worker_threads';
import { Fresh, type FreshWhere } from './fresh-stamps.js';
import type { CacheExcerpt } from './hash-cache.js';
import {
  allStatted,
  compared,
  seePrefilled,
  NOT_YET,
  stampTable,
  statClaimed,
  statInto,
  TableStamp,
  pathsOf,
  type PathsOf,
  type Stamp,
  type StampTable,
} from './stamp-table.js';
import type { AheadOf } from './stat-ahead.js';
import type { StatAnswer, StatPrefilled, StatRequest, StatWorkerData } from './stat-worker.js';

/** What `finish` gives: each document's stamp, and what the worker made of them. */
export interface Statted {
  /** The stamp of document i (one object, moved to row i at each call). */
  stampOf(i: number): Stamp;
  /** 1 where document i's stamp is the hash cache's; undefined when the worker failed. */
  same?: Uint8Array;
  /** The cache's lines of the documents that changed and of the files asked for. */
  excerpt?: CacheExcerpt;
  /** How many documents the worker had statted before it was asked (see stat-ahead.ts). */
  ahead?: number;
}

/**
 * Stats many documents on two threads, and compares their stamps with the hash cache on the
 * second. Why: a run that passes unchanged files over (see state/clean-run.ts) still stats every
 * document and looks each up in the hash cache, which it must read first: in a large archive,
 * most of what such a run does. The worker, started before content/ is listed, reads the cache
 * meanwhile and stats each document it names as it goes (stat-ahead.ts). Once this thread has
 * listed the documents, the worker writes the stamps it has into the table, and both threads stat
 * what is left, chunk by chunk, from the same counter. The worker compares, and answers with the cache's lines of the
 * few files this thread will read: this thread never reads the cache whole. Should the worker not
 * start or die, this thread stats what it left and compares itself.
 */
export interface StatTwice {
  /** Starts statting the documents `names` (project-relative, as the cache names them) found `where`. */
  stat(names: readonly string[], where: PathsOf, want: readonly string[]): void;
  /**
   * Whether a document statted so far, by either thread, changed after the last run wrote its
   * state: the scan will read it (see fresh-stamps.ts).
   */
  changeSeen(): boolean;
  /**
   * Stats what is left on this thread, waits for the worker's answer. `onChange` is called once,
   * as soon as this thread sees that a document changed (see changeSeen), should it see so before
   * the last chunk is statted.
   */
  finish(onChange?: () => void): Promise<Statted>;
  /** Lets the worker go. */
  stop(): void;
}

/**
 * Chunks this thread stats between two turns of its event loop: few, so that what waits for a
 * turn (the CMS's answer) is not held up, and enough that the turns cost nothing beside the stats.
 */
const CHUNKS_PER_TURN = 4;

export function statOnTwoThreads(
  cacheFile: string,
  /** Where the documents are: the worker stats them before it is asked (see stat-ahead.ts). */
  ahead: AheadOf,
  /**
   * When the last run ended (ms; see UntouchedFiles.lastRun): a document changed since is told
   * (changeSeen). Not the state folder's mtime: this run's lock changes it first.
   */
  lastRun: number,
  workerUrl: URL = new URL('./stat-worker.js', import.meta.url),
): StatTwice {
  const fresh: FreshWhere = { than: lastRun, signal: new SharedArrayBuffer(4) };
  const seen = new Fresh(fresh);
  const workerData: StatWorkerData = { cacheFile, ahead, fresh };
  let worker: Worker | undefined;
  try {
    worker = new Worker(workerUrl, { workerData });
    worker.unref();
  } catch {
    // No thread to be had: this one stats everything.
  }
  let pathOf: (i: number) => string = () => '';
  let table: StampTable | undefined;
  /** How many stamps the worker took ahead, once they are written (undefined: it is gone first). */
  let seenPrefilled: (count: number | undefined) => void = () => {};
  const prefilledCount = new Promise<number | undefined>((resolve) => (seenPrefilled = resolve));
  /** The worker's answer, or undefined once it is gone without one. */
  const answered = new Promise<StatAnswer | undefined>((resolve) => {
    worker?.on('message', (message: StatPrefilled | StatAnswer) => {
      if ('prefilled' in message) seenPrefilled(message.prefilled);
      else resolve(message);
    });
    const gone = () => {
      seenPrefilled(undefined);
      resolve(undefined);
    };
    worker?.on('error', gone);
    worker?.on('exit', gone);
  });
  /** Set once the stats are no longer wanted: what is left is not statted here. */
  let stopped = false;
  const stop = () => {
    stopped = true;
    void worker?.terminate();
    worker = undefined;
  };
  return {
    changeSeen: () => seen.seen(),
    stat(names, where, want) {
      pathOf = pathsOf(where, names);
      const made = stampTable(names.length);
      table = made.table;
      const request: StatRequest = {
        names: names.join('\0'),
        where,
        count: names.length,
        want: want.join('\0'),
        shared: made.shared,
      };
      worker?.postMessage(request);
    },
    async finish(onChange) {
      const done = table ?? stampTable(0).table;
      // Held by the process while it is awaited (else nothing else pending would let it exit).
      worker?.ref();
      // The stamps the worker took ahead are not taken again here.
      const ahead = worker && table ? await prefilledCount : undefined;
      const stamp = new TableStamp(done);
      const stampOf = (i: number) => {
        stamp.at = i;
        return stamp;
      };
      // Let go meanwhile: the stats are not wanted.
      if (stopped) return { stampOf };
      if (ahead !== undefined) seePrefilled(done);
      let told = false;
      const tell = () => {
        if (told || !seen.seen()) return;
        told = true;
        onChange?.();
      };
      tell();
      // A few chunks at a time, giving the event loop a turn between them: what else this thread
      // has to do meanwhile (the listing of the CMS answering) is done while the worker stats.
      const afterChunk = (from: number, to: number) => {
        if (told) return;
        seen.look(done.numbers, from, to);
        tell();
      };
      while (!stopped && statClaimed(pathOf, done, afterChunk, CHUNKS_PER_TURN))
        await new Promise((resolve) => setImmediate(resolve));
      const answer = worker ? await answered : undefined;
      const letGo = stopped;
      stop();
      if (answer && allStatted(done) && compared(done)) {
        const { lines, size, stale, format } = answer;
        return {
          stampOf,
          same: done.same,
          ...(ahead !== undefined ? { ahead } : {}),
          ...(format ? { excerpt: { lines: new Map(lines), size, stale, format } } : {}),
        };
      }
      if (letGo) return { stampOf };
      // Chunks the worker claimed and never finished (it died): statted here.
      const { numbers, kinds } = done;
      for (let i = 0; i < kinds.length; i++) if (kinds[i] === NOT_YET) statInto(pathOf(i), i, numbers, kinds);
      return { stampOf };
    },
    stop,
  };
}
