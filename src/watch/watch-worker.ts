import { parentPort, workerData } from 'node:worker_threads';
import { watchContent, type ContentChange } from './watch-content.js';

/** What the thread that started the worker sends it. */
export interface WatchWorkerData {
  contentDir: string;
  only?: string[] | undefined;
}

/** What the worker sends back: each file change, each problem, then once that it watches, once that it closed. */
export type WatchWorkerMessage =
  { change: ContentChange } | { error: string } | { ready: true } | { closed: true };

/** What the worker is sent: the one request is to stop. */
export type WatchWorkerRequest = 'close';

// The file watcher in a thread of its own (see watch-off-thread.ts): changes are posted as they are reported.
const port = parentPort;
if (port) {
  const post = (message: WatchWorkerMessage) => port.postMessage(message);
  const { contentDir, only } = workerData as WatchWorkerData;
  const watcher = await watchContent({
    contentDir,
    only,
    onChange: (change) => post({ change }),
    onError: (error) => post({ error: error.message }),
  });
  port.on('message', (request: WatchWorkerRequest) => {
    if (request !== 'close') return;
    void watcher.close().then(() => {
      post({ closed: true });
      port.close();
    });
  });
  post({ ready: true });
}
