import { parentPort, workerData } from 'node:worker_threads';
import { loadCacheLines, stampIsLine } from './hash-cache.js';
import {
  markCompared,
  pathsOf,
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

/** The lines of the documents whose stamp is not the cache's, and of `want` (null: none). */
export interface StatAnswer {
  lines: Array<[string, string | null]>;
  size: number;
  stale: number;
  /** Undefined for a file of an earlier version, which the other thread reads itself. */
  format: 'lines' | 'none' | undefined;
}

const { cacheFile } = workerData as StatWorkerData;
const cache = loadCacheLines(cacheFile);

parentPort!.on('message', (request: StatRequest) => {
  const names = request.names.split('\0');
  const pathOf = pathsOf(request.where, names);
  const table = tableIn(request.shared, request.count);
  const stamp = new TableStamp(table);
  const lines: StatAnswer['lines'] = [];
  /** 1 for each document compared: those this thread statted, as it goes; then the rest. */
  const done = new Uint8Array(names.length);
  const compare = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      stamp.at = i;
      done[i] = 1;
      const name = names[i]!;
      const line = cache.entries.get(name);
      if (stampIsLine(line, stamp)) table.same[i] = 1;
      else lines.push([name, line ?? null]);
    }
  };
  statClaimed(pathOf, table, compare);
  // The other thread may still be statting its last chunk.
  waitAllStatted(table);
  for (let i = 0; i < names.length; i++) if (done[i] === 0) compare(i, i + 1);
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
