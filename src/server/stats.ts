/** What the server has seen; tests read it in-process via `stats()` or over HTTP at `/__cms/stats`. */
export interface ServerStats {
  /** API requests received (every POST to the API path, including refused ones). */
  requests: number;
  /** Requests by `<resource>.<action>`, counted once the body parsed, e.g. "article.add". */
  byAction: Record<string, number>;
  /** add, edit, delete and upload_from_url actually applied. */
  writes: number;
  rateLimited: number;
  /** Requests that arrived after a 429 was answered but before its Retry-After had passed. */
  earlyAfterRetryAfter: number;
  failed: number;
  dropped: number;
  /** The latest writes, oldest first, at most WRITE_LOG_LIMIT of them. */
  writeLog: WriteLogEntry[];
}

export interface WriteLogEntry {
  at: number;
  resource: string;
  action: string;
  id?: number;
}

/** A long-running server must not grow without bound; tests look at far fewer writes than this. */
export const WRITE_LOG_LIMIT = 10_000;

/** Appends to the write log, dropping the oldest entries beyond `limit`. */
export function logWrite(stats: ServerStats, entry: WriteLogEntry, limit = WRITE_LOG_LIMIT): void {
  stats.writeLog.push(entry);
  if (stats.writeLog.length > limit) stats.writeLog.splice(0, stats.writeLog.length - limit);
}

export function emptyStats(): ServerStats {
  return {
    requests: 0,
    byAction: {},
    writes: 0,
    rateLimited: 0,
    earlyAfterRetryAfter: 0,
    failed: 0,
    dropped: 0,
    writeLog: [],
  };
}
