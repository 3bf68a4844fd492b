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
  writeLog: Array<{ at: number; resource: string; action: string; id?: number }>;
}

export function emptyStats(): ServerStats {
  return { requests: 0, byAction: {}, writes: 0, rateLimited: 0, earlyAfterRetryAfter: 0, failed: 0, dropped: 0, writeLog: [] };
}
