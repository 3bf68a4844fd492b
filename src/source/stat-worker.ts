import { parentPort, workerData } from 'node:worker_threads';
import { CacheBytes } from './cache-bytes.js';
import { Fresh, type FreshWhere } from './fresh-stamps.js';
import { Ahead, type AheadOf } from './stat-ahead.js';
import {
  CHUNK,
  chunkStatted,
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
  /** Where a stamp changed after the last run is told (see fresh-stamps.ts). */
  fresh: FreshWhere;
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

const { cacheFile, ahead: aheadOf, fresh: freshWhere } = workerData as StatWorkerData;
const fresh = new Fresh(freshWhere);
const bytes = CacheBytes.read(cacheFile);
const ahead = new Ahead(aheadOf, bytes.names(), fresh);

parentPort!.on('message', (request: StatRequest) => {
  ahead.stop();
  const names = request.names.split('\0');
  const count = names.length;
  const table = tableIn(request.shared, request.count);
  // The stamps taken ahead are written first, before either thread claims a chunk (a path not to
  // stat stays unstatted).
  const skipped = new Set(request.where.skip);
  /** 1 for the documents whose stamp was taken ahead (the other thread writes its own rows meanwhile). */
  const filled = new Uint8Array(count);
  let takenAhead = 0;
  for (let i = 0; i < count; i++) {
    if (skipped.has(i) || !ahead.fill(names[i]!, i, table.numbers)) continue;
    table.kinds[i] = PLAIN_FILE;
    filled[i] = 1;
    takenAhead++;
  }
  markPrefilled(table);
  parentPort!.postMessage({ prefilled: takenAhead } satisfies StatPrefilled);
  // Each name's line is found while the other thread stats.
  const cache = bytes.lookup(names);
  const stamp = new TableStamp(table);
  const compared = new Uint8Array(count);
  const compare = (i: number) => {
    compared[i] = 1;
    stamp.at = i;
    if (cache.same(i, stamp)) table.same[i] = 1;
  };
  for (let i = 0; i < count; i++) if (filled[i] === 1) compare(i);
  // Each chunk is compared as soon as it is statted, by either thread, so that little is left to
  // compare once the last is: chunks are claimed in order, and compared up to the first not done.
  let next = 0;
  const compareStatted = () => {
    for (; next < table.chunks.length && chunkStatted(table, next); next++)
      for (let i = next * CHUNK; i < Math.min(count, (next + 1) * CHUNK); i++)
        if (compared[i] === 0) compare(i);
  };
  statClaimed(pathsOf(request.where, names), table, (from, to) => {
    fresh.look(table.numbers, from, to);
    compareStatted();
  });
  // The other thread may still be statting its last chunk.
  waitAllStatted(table);
  compareStatted();
  markCompared(table);
  const lines: StatAnswer['lines'] = [];
  for (let i = 0; i < count; i++) if (table.same[i] !== 1) lines.push([names[i]!, cache.lineOf(i)]);
  if (request.want !== '')
    for (const name of request.want.split('\0')) lines.push([name, cache.lineNamed(name)]);
  const answer: StatAnswer = {
    lines,
    size: cache.size,
    stale: cache.stale,
    format: cache.format === 'v2' ? undefined : cache.format,
  };
  parentPort!.postMessage(answer);
});
