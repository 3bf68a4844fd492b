import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ImageSize } from '../resources.js';
import type { RenderResult } from './render-markdown.js';

export interface RenderJob {
  id: number;
  markdown: string;
  defaultSize: ImageSize;
}

export type RenderReply = { id: number; result: RenderResult } | { id: number; error: string };

export interface RenderPool {
  render(markdown: string): Promise<RenderResult>;
  close(): Promise<void>;
}

/**
 * Renders on worker threads, each with its own unified pipeline. Worth it only for many
 * documents: a worker takes far longer to load unified than to render a short document. Jobs
 * go to the worker with the fewest in flight; the caller bounds how many it has in flight.
 *
 * A worker that dies (out of memory on a huge document, or anything else) fails only the jobs
 * it held, with a WorkerDiedError, and is replaced, so later jobs are not sent into the void;
 * the caller may render those documents in its own thread. Heaps are not capped by default:
 * a cap saved little of a cold apply's peak memory and cost much of the pool's throughput in
 * extra garbage collection.
 */
export function createRenderPool(options: {
  defaultSize: ImageSize;
  size?: number;
  /** Cap on each worker's old-generation heap, in MiB (tests use it to make a worker run out of memory). */
  maxHeapMb?: number;
}): RenderPool {
  const size = Math.max(1, options.size ?? Math.min(availableParallelism(), 4));
  const workerUrl = new URL('./render-worker.js', import.meta.url);
  const pending = new Map<number, { resolve: (r: RenderResult) => void; reject: (e: Error) => void; worker: number }>();
  const load = new Array<number>(size).fill(0);
  let nextId = 0;
  let closing = false;

  const spawn = (index: number): Worker => {
    const worker = new Worker(workerUrl, options.maxHeapMb ? { resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb } } : {});
    worker.on('message', (reply: RenderReply) => {
      const job = pending.get(reply.id);
      if (!job) return;
      pending.delete(reply.id);
      load[index]! -= 1;
      if ('error' in reply) job.reject(new Error(reply.error));
      else job.resolve(reply.result);
    });
    // 'error' comes before 'exit' when the worker throws or runs out of memory; 'exit' alone
    // when it stops otherwise. Either way its jobs fail and, unless the pool is closing, a new
    // worker takes its place, so later jobs are not sent into the void.
    let gone = false;
    const die = (cause: unknown) => {
      if (gone) return;
      gone = true;
      for (const [id, job] of pending) {
        if (job.worker !== index) continue;
        pending.delete(id);
        job.reject(new WorkerDiedError(cause));
      }
      load[index] = 0;
      if (!closing) workers[index] = spawn(index);
    };
    worker.on('error', die);
    worker.on('exit', (code) => die(new Error(`render worker exited with code ${code}`)));
    return worker;
  };
  const workers = Array.from({ length: size }, (_, index) => spawn(index));

  return {
    render(markdown) {
      const index = load.indexOf(Math.min(...load));
      const id = nextId++;
      load[index]! += 1;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, worker: index });
        workers[index]!.postMessage({ id, markdown, defaultSize: options.defaultSize } satisfies RenderJob);
      });
    },
    async close() {
      closing = true;
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

/** A job lost because its worker died; the document itself may be fine. */
export class WorkerDiedError extends Error {
  constructor(cause: unknown) {
    super(`the render worker stopped (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
    this.name = 'WorkerDiedError';
  }
}
