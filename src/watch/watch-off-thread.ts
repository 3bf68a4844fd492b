import { Worker } from 'node:worker_threads';
import { watchContent, type ContentWatcher, type WatchContentOptions } from './watch-content.js';
import type { WatchWorkerData, WatchWorkerMessage, WatchWorkerRequest } from './watch-worker.js';

/**
 * The worker's young generation, in MiB. What the watcher makes is short-lived (each listing of a
 * folder, entry by entry) or held for the run (the names of the files), so a large young generation
 * buys it nothing; V8's default grows to tens of MiB, kept for the whole watch, on top of the syncs'
 * peak. Smaller still, more of each listing outlives a scavenge and the old generation grows instead.
 */
const WORKER_YOUNG_GENERATION_MB = 8;

export interface OffThreadHooks {
  /** Told of the worker once it watches: a test ends it to see watching go on. */
  started?: (worker: Worker) => void;
}

/**
 * `watchContent` in a worker thread, its changes posted to this one. Why: on every event in a
 * folder, chokidar lists that folder again with a stat of each entry, and in a folder of many
 * thousands of files that is seconds of work per save; on the thread of the sync it would hold up
 * the very pass the save started. What the watcher sees and reports is the same (the worker runs
 * `watchContent`); only this thread is spared its work.
 *
 * Should the worker die after it has started (a bug, no memory), the problem is reported and
 * watching goes on in this thread, so that saves still sync.
 */
export async function watchContentOffThread(
  options: WatchContentOptions,
  hooks: OffThreadHooks = {},
): Promise<ContentWatcher> {
  const workerData: WatchWorkerData = { contentDir: options.contentDir, only: options.only };
  const worker = new Worker(new URL('./watch-worker.js', import.meta.url), {
    workerData,
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
  let closing = false;
  let fallback: Promise<ContentWatcher> | undefined;
  let onReady: () => void = () => {};
  let onFailure: (error: Error) => void = () => {};
  let onClosed: () => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    onReady = resolve;
    onFailure = reject;
  });
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  let started = false;

  worker.on('message', (message: WatchWorkerMessage) => {
    if ('change' in message) options.onChange(message.change);
    else if ('error' in message) options.onError(new Error(message.error));
    else if ('ready' in message) {
      started = true;
      onReady();
    } else onClosed();
  });
  // 'error' comes before 'exit' when the worker throws; 'exit' alone when it stops otherwise.
  let died: Error | undefined;
  worker.on('error', (error) => (died ??= error));
  worker.on('exit', (code) => {
    onClosed();
    if (closing) return;
    const cause = died ?? new Error(`it exited with code ${code}`);
    if (!started) {
      onFailure(cause);
      return;
    }
    options.onError(new Error(`the file watcher's thread stopped (${cause.message}); watching goes on`));
    fallback = watchContent(options);
    fallback.catch((error: unknown) =>
      options.onError(error instanceof Error ? error : new Error(String(error))),
    );
  });

  await ready;
  hooks.started?.(worker);
  return {
    async close() {
      closing = true;
      if (fallback) {
        await (await fallback.catch(() => undefined))?.close();
        return;
      }
      worker.postMessage('close' satisfies WatchWorkerRequest);
      await closed;
      await worker.terminate();
    },
  };
}
