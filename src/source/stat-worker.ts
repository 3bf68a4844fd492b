import { parentPort, workerData } from 'node:worker_threads';
import { stampIsLine } from './hash-cache.js';
import { Ahead, type AheadOf } from './stat-ahead.js';
import {
  markCompared,
  markPrefilled,
  pathsOf,
  PLAIN_FILE,
  statClaimed,
  TableStamp,
  tableIn,
  waitAllStatted,
  type PathsOf,
} from './stamp-table.js';

/** Given when the worker is started (stat-many.ts). */
export interface StatWorkerData {
  /** The hash cache's file, read as soon as the worker starts. */
  cacheFile: string;
  /** Where the documents are: the worker stats those the cache names as it reads it (see stat-ahead.ts). */
  ahead: AheadOf;
}

/** The documents to stat. Each list is joined by NUL: one string crosses to a thread far faster than an array. */
export interface StatRequest {
  /** The name of each document (project-relative), as the hash cache knows it. */
  names: string;
  /** Where each is. */
  where: PathsOf;
  count: number;
  /** Other files whose lines the answer must carry (documents read anyway, images). */
  want: string;
  shared: SharedArrayBuffer;
}

/** Told once the stamps taken ahead are written: the other thread may then claim chunks. */
export interface StatPrefilled {
  /** How many documents were statted ahead. */
  prefilled: number;
}

/** The lines of the documents whose stamp is not the cache's, and of `want` (null: none). */
export interface StatAnswer {
  lines: Array<[string, string | null]>;
  size: number;
  stale: number;
  /** Undefined for a file of an earlier version, which the other thread reads itself. */
  format: 'lines' | 'none' | undefined;
}

const { cacheFile, ahead: aheadOf } = workerData as StatWorkerData;
const ahead = new Ahead(aheadOf, cacheFile);

parentPort!.on('message', (request: StatRequest) => {
  const names = request.names.split('\0');
  const table = tableIn(request.shared, request.count);
  // The stamps taken ahead are written first, before either thread claims a chunk (a path not to
  // stat stays unstatted).
  const skipped = new Set(request.where.skip);
  const fromAhead = new Uint8Array(names.length);
  let takenAhead = 0;
  for (let i = 0; i < names.length; i++)
    if (!skipped.has(i) && ahead.fill(names[i]!, i, table.numbers)) {
      table.kinds[i] = PLAIN_FILE;
      fromAhead[i] = 1;
      takenAhead++;
    }
  markPrefilled(table);
  parentPort!.postMessage({ prefilled: takenAhead } satisfies StatPrefilled);
  // What is left of the cache is read while the other thread stats what is left, then both stat.
  const cache = ahead.cache();
  statClaimed(pathsOf(request.where, names), table);
  // The other thread may still be statting its last chunk.
  waitAllStatted(table);
  const stamp = new TableStamp(table);
  const lines: StatAnswer['lines'] = [];
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    stamp.at = i;
    // A stamp taken ahead was compared with its line as the cache was read.
    if (fromAhead[i] === 1 ? ahead.same(name) : stampIsLine(cache.entries.get(name), stamp))
      table.same[i] = 1;
    else lines.push([name, cache.entries.get(name) ?? null]);
  }
  markCompared(table);
  if (request.want !== '')
    for (const name of request.want.split('\0')) lines.push([name, cache.entries.get(name) ?? null]);
  const answer: StatAnswer = {
    lines,
    size: cache.entries.size,
    stale: cache.stale,
    format: cache.format === 'v2' ? undefined : cache.format,
  };
  parentPort!.postMessage(answer);
});
