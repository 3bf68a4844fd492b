import type { ImageSize } from '../resources.js';
import type { ContentLimits } from '../source/limits.js';
import type { CaptionStyle, MathSyntax, RenderResult } from './render-markdown.js';
import type { RenderPool } from './render-pool.js';
import type { ResolvedPlugins } from './plugins.js';
import { beforeRenderWorkers } from '../process-tuning.js';

export interface Renderer {
  render(markdown: string): Promise<RenderResult>;
  /** Documents rendered so far. */
  readonly count: number;
  close(): Promise<void>;
}

/** Documents to render before a pool of worker threads pays for its start-up: each worker loads unified. */
const POOL_THRESHOLD = 200;

/**
 * Longest body rendered in this thread when there are few documents. A document rendered here
 * cannot be stopped, so only short ones are: checkMarkdownLimits turns away what is known to be
 * slow (deep nesting, emphasis runs), and in this little text nothing else takes long. Longer
 * ones go to a worker thread (started only for them), where the time budget holds.
 */
const IN_THREAD_MAX_CHARS = 64 * 1024;

/**
 * How documents are rendered: not at all when none must be (unified is then never loaded), in
 * this thread for a few short ones, on worker threads for many or long ones, with the time
 * budget of `limits.renderBudgetMs` on the workers.
 */
export async function createRenderer(options: {
  defaultSize: ImageSize;
  captions?: CaptionStyle;
  /** TeX math (config `markdown.math`), or false. */
  math?: MathSyntax | false;
  limits: ContentLimits;
  /** Documents to render in this run. */
  documents: number;
  /** The config's remark and rehype plugins, found on disk (see resolvePlugins); imported on first use. */
  plugins?: ResolvedPlugins | undefined;
}): Promise<Renderer> {
  const { defaultSize, captions, limits, plugins } = options;
  const math = options.math ?? false;
  let renderHere: Promise<(md: string) => RenderResult | Promise<RenderResult>> | undefined;
  const loadHere = async () => {
    const { renderMarkdown, renderMarkdownWith, createProcessor, loadMath } =
      await import('./render-markdown.js');
    if (math) await loadMath();
    if (!plugins) return (md: string) => renderMarkdown(md, { defaultSize, captions, limits, math });
    const pipeline = createProcessor(await (await import('./plugins.js')).importPlugins(plugins), math);
    return (md: string) => renderMarkdownWith(pipeline, md, { defaultSize, captions, limits, math });
  };
  // A plugin that fails to load fails every render with the same SyncError (see readSource).
  const here = async (md: string) => (await (renderHere ??= loadHere()))(md);
  type PoolModule = typeof import('./render-pool.js');
  let pool: Promise<{ pool: RenderPool; WorkerDiedError: PoolModule['WorkerDiedError'] }> | undefined;
  const openPool = (size?: number) =>
    (pool ??= import('./render-pool.js').then(({ createRenderPool, WorkerDiedError }) => {
      // Before the workers start: what it sets is read by their isolates as they are made.
      beforeRenderWorkers();
      const workers = createRenderPool({
        defaultSize,
        captions,
        math,
        limits,
        budgetMs: limits.renderBudgetMs,
        ...(size ? { size } : {}),
        ...(plugins ? { plugins } : {}),
      });
      return { pool: workers, WorkerDiedError };
    }));
  const pooled = async (md: string) => {
    const { pool: workers, WorkerDiedError } = await openPool();
    // A document whose worker died (too big for a worker's heap) is rendered here instead.
    return workers.render(md).catch((error: unknown) => {
      if (error instanceof WorkerDiedError) return here(md);
      throw error;
    });
  };
  const many = options.documents >= POOL_THRESHOLD;
  if (many) void openPool();
  let count = 0;
  return {
    get count() {
      return count;
    },
    render(md) {
      count += 1;
      if (many) return pooled(md);
      if (md.length <= IN_THREAD_MAX_CHARS) return here(md);
      void openPool(1);
      return pooled(md);
    },
    async close() {
      if (pool) await (await pool).pool.close();
    },
  };
}
