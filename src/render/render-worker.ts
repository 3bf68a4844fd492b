import { parentPort } from 'node:worker_threads';
import { renderMarkdown } from './render-markdown.js';
import type { RenderJob, RenderReply } from './render-pool.js';

// One renderer per worker thread: the unified pipeline is built once when this module loads.
parentPort?.on('message', (job: RenderJob) => {
  let reply: RenderReply;
  try {
    reply = {
      id: job.id,
      result: renderMarkdown(job.markdown, {
        defaultSize: job.defaultSize,
        captions: job.captions,
        limits: job.limits,
      }),
    };
  } catch (error) {
    reply = { id: job.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
// Loaded: from now on, time spent on a job is the job's (see the budget in render-pool.ts).
parentPort?.postMessage({ ready: true } satisfies RenderReply);
