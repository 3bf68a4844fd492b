import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ImageSize } from '../resources.js';
import { raiseHint } from '../source/limits.js';
import type { MarkdownLimits } from './markdown-limits.js';
import type { CaptionStyle, MathSyntax, RenderResult } from './render-markdown.js';
import { pluginError, type PluginStage, type ResolvedPlugins } from './plugins.js';
import type { SyncError } from '../errors.js';

export interface RenderJob {
  id: number;
  markdown: string;
  defaultSize: ImageSize;
  captions?: CaptionStyle | undefined;
  limits?: MarkdownLimits | undefined;
  math?: MathSyntax | false | undefined;
}

export type RenderReply =
  | { id: number; result: RenderResult }
  | { id: number; error: string }
  | { ready: true }
  | { failed: { specifier: string; stage: PluginStage; message: string } };

/** What each worker is started with (workerData). */
export interface RenderWorkerData {
  plugins?: ResolvedPlugins | undefined;
  /** TeX math: remark-math is loaded before the first job, and read by the pipeline with the plugins. */
  math?: MathSyntax | false | undefined;
}

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
 *
 * With `budgetMs`, a job that renders longer than that fails with a RenderBudgetError: a worker
 * runs one job at a time, so the clock runs for the job at the head of its queue only, and the
 * worker, stuck in that job, is terminated and replaced; the jobs queued behind it are sent to
 * the replacement.
 */
export function createRenderPool(options: {
  defaultSize: ImageSize;
  captions?: CaptionStyle | undefined;
  /** TeX math (config `markdown.math`), or false. */
  math?: MathSyntax | false | undefined;
  size?: number;
  /** Cap on each worker's old-generation heap, in MiB (tests use it to make a worker run out of memory). */
  maxHeapMb?: number;
  limits?: MarkdownLimits | undefined;
  /** Longest one document may take to render, in milliseconds. */
  budgetMs?: number | undefined;
  /** Plugins each worker imports before its first job (see resolvePlugins). */
  plugins?: ResolvedPlugins | undefined;
}): RenderPool {
  const size = Math.max(1, options.size ?? Math.min(availableParallelism(), 4));
  const workerUrl = new URL('./render-worker.js', import.meta.url);
  interface Job {
    resolve: (r: RenderResult) => void;
    reject: (e: Error) => void;
    markdown: string;
  }
  const pending = new Map<number, Job>();
  let nextId = 0;
  let closing = false;
  /** Set when a worker could not load a plugin: every job fails with it, and no worker is started again. */
  let failure: SyncError | undefined;

  interface Slot {
    worker: Worker;
    /** Ids of the jobs posted to this worker and not yet answered, in the order it runs them. */
    queue: number[];
    timer?: NodeJS.Timeout | undefined;
    /** Set once the worker has loaded the renderer: its start-up is not counted against a job's budget. */
    ready: boolean;
    /** Set once this worker is done with: later messages and its exit are ignored. */
    gone: boolean;
  }

  const post = (slot: Slot, id: number) => {
    const job = pending.get(id);
    if (!job) return;
    slot.queue.push(id);
    const { defaultSize, captions, limits, math } = options;
    slot.worker.postMessage({
      id,
      markdown: job.markdown,
      defaultSize,
      captions,
      limits,
      math,
    } satisfies RenderJob);
    if (slot.queue.length === 1) startClock(slot);
  };

  const startClock = (slot: Slot) => {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    const head = slot.queue[0];
    const { budgetMs } = options;
    if (head === undefined || budgetMs === undefined || closing || !slot.ready) return;
    slot.timer = setTimeout(() => {
      const index = slots.indexOf(slot);
      const job = pending.get(head);
      pending.delete(head);
      retire(slot);
      void slot.worker.terminate();
      const replacement = spawn();
      slots[index] = replacement;
      for (const id of slot.queue.slice(1)) post(replacement, id);
      job?.reject(new RenderBudgetError(budgetMs));
    }, budgetMs);
  };

  const retire = (slot: Slot) => {
    slot.gone = true;
    clearTimeout(slot.timer);
  };

  const spawn = (): Slot => {
    const workerData: RenderWorkerData = {
      ...(options.plugins ? { plugins: options.plugins } : {}),
      ...(options.math ? { math: options.math } : {}),
    };
    const worker = new Worker(workerUrl, {
      workerData,
      ...(options.maxHeapMb ? { resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb } } : {}),
    });
    const slot: Slot = { worker, queue: [], ready: false, gone: false };
    worker.on('message', (reply: RenderReply) => {
      if (slot.gone) return;
      if ('failed' in reply) {
        const { stage, specifier, message } = reply.failed;
        failure ??= pluginError(
          stage,
          specifier,
          'could not be loaded in a render worker',
          new Error(message),
        );
        closing = true;
        for (const [id, job] of pending) {
          pending.delete(id);
          job.reject(failure);
        }
        return;
      }
      if ('ready' in reply) {
        slot.ready = true;
        startClock(slot);
        return;
      }
      const job = pending.get(reply.id);
      slot.queue = slot.queue.filter((id) => id !== reply.id);
      startClock(slot);
      if (!job) return;
      pending.delete(reply.id);
      if ('error' in reply) job.reject(new Error(reply.error));
      else job.resolve(reply.result);
    });
    // 'error' comes before 'exit' when the worker throws or runs out of memory; 'exit' alone
    // when it stops otherwise. Either way its jobs fail and, unless the pool is closing, a new
    // worker takes its place, so later jobs are not sent into the void.
    const die = (cause: unknown) => {
      if (slot.gone) return;
      retire(slot);
      for (const id of slot.queue) {
        const job = pending.get(id);
        pending.delete(id);
        job?.reject(new WorkerDiedError(cause));
      }
      const index = slots.indexOf(slot);
      if (!closing && index !== -1) slots[index] = spawn();
    };
    worker.on('error', die);
    worker.on('exit', (code) => die(new Error(`render worker exited with code ${code}`)));
    return slot;
  };
  const slots: Slot[] = [];
  for (let i = 0; i < size; i++) slots.push(spawn());

  return {
    render(markdown) {
      if (failure) return Promise.reject(failure);
      const slot = slots.reduce((least, s) => (s.queue.length < least.queue.length ? s : least));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, markdown });
        post(slot, id);
      });
    },
    async close() {
      closing = true;
      for (const slot of slots) clearTimeout(slot.timer);
      await Promise.all(slots.map((s) => s.worker.terminate()));
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

/** A document that took longer to render than the budget allows; its worker was replaced. */
export class RenderBudgetError extends Error {
  constructor(readonly budgetMs: number) {
    super(
      `rendering took longer than the budget of ${budgetMs} ms and was stopped; ${raiseHint('renderBudgetMs')}`,
    );
    this.name = 'RenderBudgetError';
  }
}
