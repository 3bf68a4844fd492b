import { parentPort, workerData } from 'node:worker_threads';
import {
  createProcessor,
  loadMath,
  renderMarkdown,
  renderMarkdownWith,
  type RenderResult,
} from './render-markdown.js';
import type { RenderJob, RenderReply, RenderWorkerData } from './render-pool.js';
import { importPlugins, PluginLoadError } from './plugins.js';

const { plugins, math } = (workerData ?? {}) as RenderWorkerData;

// One renderer per worker thread: the unified pipeline is built once, with the config's plugins
// imported before the first job (jobs sent meanwhile wait in the port until the listener is added).
let render: (job: RenderJob) => RenderResult | Promise<RenderResult> = (job) =>
  renderMarkdown(job.markdown, {
    defaultSize: job.defaultSize,
    captions: job.captions,
    limits: job.limits,
    math: job.math,
  });
let loaded = true;
if (math) await loadMath();
if (plugins) {
  try {
    const pipeline = createProcessor(await importPlugins(plugins), math ?? false);
    render = (job) =>
      renderMarkdownWith(pipeline, job.markdown, {
        defaultSize: job.defaultSize,
        captions: job.captions,
        limits: job.limits,
      });
  } catch (error) {
    loaded = false;
    const failed =
      error instanceof PluginLoadError
        ? { stage: error.stage, specifier: error.specifier, message: error.reason }
        : { stage: 'remarkPlugins' as const, specifier: '(unknown)', message: String(error) };
    parentPort?.postMessage({ failed } satisfies RenderReply);
  }
}

if (loaded) {
  // One job at a time, even when a plugin is asynchronous: the pool's time budget runs for the
  // job at the head of this worker's queue only.
  let queue = Promise.resolve();
  parentPort?.on('message', (job: RenderJob) => {
    queue = queue.then(async () => {
      let reply: RenderReply;
      try {
        reply = { id: job.id, result: await render(job) };
      } catch (error) {
        reply = { id: job.id, error: error instanceof Error ? error.message : String(error) };
      }
      parentPort?.postMessage(reply);
    });
  });
  // Loaded: from now on, time spent on a job is the job's (see the budget in render-pool.ts).
  parentPort?.postMessage({ ready: true } satisfies RenderReply);
}
