import { Worker } from 'node:worker_threads';
import type { CacheExcerpt } from './hash-cache.js';
import {
  allStatted,
  compared,
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
import type { StatAnswer, StatRequest, StatWorkerData } from './stat-worker.js';

/** What `finish` gives: each document's stamp, and what the worker made of them. */
export interface Statted {
  /** The stamp of document i (one object, moved to row i at each call). */
  stampOf(i: number): Stamp;
  /** 1 where document i's stamp is the hash cache's; undefined when the worker failed. */
  same?: Uint8Array;
  /** The cache's lines of the documents that changed and of the files asked for. */
  excerpt?: CacheExcerpt;
}

/**
 * Stats many documents on two threads, and compares their stamps with the hash cache on the
 * second. Why: a run that passes unchanged files over (see state/clean-run.ts) still stats every
 * document and looks each up in the hash cache, which it must read first: in a large archive,
 * most of what such a run does. The worker, started before content/ is listed,
 * reads the cache meanwhile; it stats the documents as soon as they are listed, while this thread
 * reads the CMS's changes, then this thread takes what is left, chunk by chunk, from the same
 * counter. The worker compares, and answers with the cache's lines of the few files this thread
 * will read: this thread never reads the cache whole. Should the worker not start or die, this
 * thread stats what it left and compares itself.
 */
export interface StatTwice {
  /** Starts statting the documents `names` (project-relative, as the cache names them) found `where`. */
  stat(names: readonly string[], where: PathsOf, want: readonly string[]): void;
  /** Stats what is left on this thread, waits for the worker's answer. */
  finish(): Promise<Statted>;
  /** Lets the worker go. */
  stop(): void;
}

export function statOnTwoThreads(
  cacheFile: string,
  workerUrl: URL = new URL('./stat-worker.js', import.meta.url),
): StatTwice {
  const workerData: StatWorkerData = { cacheFile };
  let worker: Worker | undefined;
  try {
    worker = new Worker(workerUrl, { workerData });
    worker.unref();
  } catch {
    // No thread to be had: this one stats everything.
  }
  let pathOf: (i: number) => string = () => '';
  let table: StampTable | undefined;
  /** The worker's answer, or undefined once it is gone without one. */
  const answered = new Promise<StatAnswer | undefined>((resolve) => {
    worker?.on('message', resolve);
    worker?.on('error', () => resolve(undefined));
    worker?.on('exit', () => resolve(undefined));
  });
  const stop = () => {
    void worker?.terminate();
    worker = undefined;
  };
  return {
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
    async finish() {
      const done = table ?? stampTable(0).table;
      statClaimed(pathOf, done);
      // Held by the process while its answer is awaited (else nothing else pending would let it exit).
      worker?.ref();
      const answer = worker ? await answered : undefined;
      stop();
      const stamp = new TableStamp(done);
      const stampOf = (i: number) => {
        stamp.at = i;
        return stamp;
      };
      if (answer && allStatted(done) && compared(done)) {
        const { lines, size, stale, format } = answer;
        return {
          stampOf,
          same: done.same,
          ...(format ? { excerpt: { lines: new Map(lines), size, stale, format } } : {}),
        };
      }
      // Chunks the worker claimed and never finished (it died): statted here.
      const { numbers, kinds } = done;
      for (let i = 0; i < kinds.length; i++) if (kinds[i] === NOT_YET) statInto(pathOf(i), i, numbers, kinds);
      return { stampOf };
    },
    stop,
  };
}
