import type { ContentChange } from './watch-content.js';

/** The files of one sync pass, each with its last event; empty for a timed retry. */
export type Batch = Map<string, ContentChange['kind']>;

/** What a pass asks of the loop afterwards. */
export type PassOutcome =
  /** Done (possibly with problems in files: the next save of that file tries again). */
  | 'ok'
  /** A run-level failure the CMS may recover from: try again after a backoff. */
  | 'retry'
  /** Nothing later can succeed (e.g. the token was refused): stop watching. */
  | 'fatal';

export interface SyncLoopOptions {
  /** Runs one pass. `retryInMs` is the wait the loop will use if this pass asks for a retry. */
  runPass: (batch: Batch, info: { retryInMs: number }) => Promise<PassOutcome>;
  onFatal: () => void;
  /** Quiet time after the last event before a pass starts. @default 50 */
  debounceMs?: number;
  /** A stream of events that never pauses still gets a pass after this long. @default 500 */
  maxWaitMs?: number;
}

export interface SyncLoop {
  /** A file changed: it joins the next pass. */
  notify(change: ContentChange): void;
  /** Runs a pass now (the first sync); resolves when it is done. */
  runNow(): Promise<void>;
  /**
   * Runs `task` if no pass runs or waits; saves made meanwhile wait for it, as they wait for a pass.
   * A task that fails changes nothing for the passes.
   */
  whenIdle(task: () => Promise<void>): Promise<void>;
  /** No new passes; resolves once the pass in flight, if any, has finished. */
  stop(): Promise<void>;
}

/** Backoff after the `attempt`-th failed pass in a row: 2 s, 4 s, 8 s … capped at 60 s. */
export function retryDelayMs(attempt: number): number {
  return Math.min(60_000, 2_000 * 2 ** Math.max(0, attempt - 1));
}

/**
 * One pass at a time. Events arriving while a pass runs are collected and become the next pass
 * (merged: a file saved 100 times is one entry), so nothing is lost and nothing runs twice at
 * once — two passes at once would plan against the same state and could write a record twice.
 * A pass that fails at run level is retried on a timer (or sooner, by the next save); its files
 * are carried into the retry so its line still names them.
 */
export function createSyncLoop(options: SyncLoopOptions): SyncLoop {
  const debounceMs = options.debounceMs ?? 50;
  const maxWaitMs = options.maxWaitMs ?? 500;
  let pending: Batch = new Map();
  let carried: Batch = new Map();
  let running: Promise<void> | undefined;
  /** A task run between passes (see whenIdle): passes wait for it. */
  let task: Promise<void> | undefined;
  let debounce: NodeJS.Timeout | undefined;
  let firstEventAt: number | undefined;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;
  let stopped = false;

  const arm = () => {
    // A task in flight arms again when it is done.
    if (stopped || running || task) return;
    const now = Date.now();
    firstEventAt ??= now;
    clearTimeout(debounce);
    debounce = setTimeout(
      () => void start(),
      Math.max(0, Math.min(debounceMs, firstEventAt + maxWaitMs - now)),
    );
  };

  const start = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running) return running;
    // A pass asked for during a task (the first sync, a retry come due) runs once it is done.
    if (task) return task.then(start);
    clearTimeout(debounce);
    clearTimeout(retry);
    debounce = retry = firstEventAt = undefined;
    const batch: Batch = new Map([...carried, ...pending]);
    pending = new Map();
    carried = new Map();
    const retryInMs = retryDelayMs(failures + 1);
    running = options
      .runPass(batch, { retryInMs })
      .catch((): PassOutcome => 'retry')
      .then((outcome) => {
        running = undefined;
        if (outcome === 'fatal') {
          stopped = true;
          options.onFatal();
          return;
        }
        if (outcome === 'retry') {
          failures += 1;
          for (const [file, kind] of batch) if (!pending.has(file)) carried.set(file, kind);
          if (!stopped) retry = setTimeout(() => void start(), retryInMs);
        } else {
          failures = 0;
        }
        if (pending.size > 0) arm();
      });
    return running;
  };

  return {
    notify(change) {
      if (stopped) return;
      pending.set(change.file, change.kind);
      arm();
    },
    runNow: start,
    whenIdle(run) {
      if (stopped || running || task || pending.size > 0 || carried.size > 0) return Promise.resolve();
      task = run()
        .catch(() => {})
        .then(() => {
          task = undefined;
          if (pending.size > 0) arm();
        });
      return task;
    },
    async stop() {
      stopped = true;
      clearTimeout(debounce);
      clearTimeout(retry);
      await task;
      await running;
    },
  };
}
