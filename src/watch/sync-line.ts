/** What one watch pass did, as its output line (text) or NDJSON record says it. */
export interface SyncLine {
  at: Date;
  /** Why the pass ran: the first sync, saved files, or a timed retry after a failure. */
  trigger: 'start' | 'change' | 'retry';
  /** Files of the batch, relative to content/. */
  files: string[];
  /** One entry per record the pass touched or held back, e.g. `{ symbol: '~', key: 'article/budget' }`. */
  changes: Array<{ action: string; symbol: string; key: string; file: string; note?: string; url?: string }>;
  /** Media files or URLs uploaded. */
  uploads: string[];
  /** Documents read and hashed, and how many of them had to be rendered (their input changed). */
  documents: number;
  rendered: number;
  /** Write calls sent to the CMS (add, edit, delete, upload_from_url). */
  writes: number;
  ms: number;
  /** Files, relative to content/, whose problems or failed writes were printed above. */
  errorFiles: string[];
  problems: Array<{
    file: string;
    line: number;
    column: number;
    severity: 'error' | 'warning';
    message: string;
  }>;
  /** A run-level failure (the CMS unreachable, the token refused): its message was printed above. */
  error?: string;
  /** Set when the pass will be tried again on a timer. */
  retryInMs?: number;
  /** The watcher stops after this pass (a refused token). */
  fatal?: boolean;
  /** A safety limit stopped the plan before any call (e.g. --max-deletes). */
  abort?: string;
}

const MAX_ITEMS = 4;

/** `12:04:05 articles/budget.md → ~ article/budget (1 write, 84 ms)` */
export function formatSyncLine(line: SyncLine): string {
  const head = `${clock(line.at)} ${subject(line)}`;
  if (line.error !== undefined) {
    const next = line.fatal
      ? 'stopped watching'
      : line.retryInMs !== undefined
        ? `retrying in ${seconds(line.retryInMs)}`
        : 'waiting for the next save';
    return `${head}: error (see above); ${next}`;
  }
  if (line.abort !== undefined) return `${head}: nothing written: ${line.abort}`;
  const stats = `(${line.writes} ${line.writes === 1 ? 'write' : 'writes'}, ${Math.round(line.ms)} ms)`;
  const nothingDone = line.changes.length === 0 && line.uploads.length === 0 && line.writes === 0;
  if (line.errorFiles.length > 0 && nothingDone && sameSet(line.errorFiles, line.files))
    return `${head}: error (see above)`;
  const errors = line.errorFiles.length === 0 ? '' : `; error in ${list(line.errorFiles)} (see above)`;
  return `${head} → ${describe(line)} ${stats}${errors}`;
}

/** One NDJSON record: the same facts, with an ISO time. */
export function syncLineJson(line: SyncLine): string {
  return JSON.stringify({ ...line, at: line.at.toISOString() });
}

function subject(line: SyncLine): string {
  if (line.files.length > 0) return list(line.files);
  return line.trigger === 'start' ? 'first sync' : line.trigger === 'retry' ? 'retry' : 'content/';
}

function describe(line: SyncLine): string {
  const items = [
    ...line.uploads.map((u) => `^ ${u}`),
    ...line.changes.map(
      (c) => `${c.symbol} ${c.key}${c.url ? ` ${c.url}` : ''}${c.note ? ` ${c.note}` : ''}`,
    ),
  ];
  if (items.length === 0) return 'no changes';
  if (items.length <= MAX_ITEMS) return items.join(', ');
  // The first sync of a whole site: counts say more than a long list.
  const counts = new Map<string, number>();
  if (line.uploads.length) counts.set('uploaded', line.uploads.length);
  for (const c of line.changes)
    counts.set(PAST[c.action] ?? c.action, (counts.get(PAST[c.action] ?? c.action) ?? 0) + 1);
  return [...counts].map(([what, n]) => `${n} ${what}`).join(', ');
}

const PAST: Record<string, string> = {
  create: 'created',
  update: 'updated',
  delete: 'deleted',
  adopt: 'adopted',
  keep: 'kept',
  drift: 'drifted',
};

function list(files: string[]): string {
  return files.length <= 3 ? files.join(', ') : `${files.slice(0, 3).join(', ')} +${files.length - 3} more`;
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function clock(at: Date): string {
  return [at.getHours(), at.getMinutes(), at.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}
