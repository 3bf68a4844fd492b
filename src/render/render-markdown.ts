import rehypeRaw from 'rehype-raw';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified, type PluggableList } from 'unified';
import type { LoadedPlugins } from './plugins.js';
import type { ImageSize } from '../resources.js';
import { DEFAULT_LIMITS } from '../source/limits.js';
import { remarkHeadingIds } from './heading-ids.js';
import { checkMarkdownLimits, type MarkdownLimits } from './markdown-limits.js';
import { mathPlugins, type MathSyntax } from './math-syntax.js';
import {
  type CaptionStyle,
  MEDIA_COLLECTOR,
  rehypeMediaBlocks,
  remarkMarkImageKinds,
  type ImageRef,
  type MediaCollector,
  type RenderProblem,
} from './rewrite-media.js';

export type { CaptionStyle, ImageRef, RenderProblem } from './rewrite-media.js';
export { loadMath, type MathSyntax } from './math-syntax.js';
export { bindMedia } from './bind-media.js';

export interface RenderResult {
  html: string;
  /** In document order; image i is the block whose data-id is the placeholder for i. */
  images: ImageRef[];
  problems: RenderProblem[];
}

export interface RenderOptions {
  /** Size of an image that does not set one. */
  defaultSize: ImageSize;
  /** Where captions go (config `markdown.captions`). @default 'paragraph' */
  captions?: CaptionStyle | undefined;
  /** Nesting and emphasis limits (config `limits`), checked before parsing. */
  limits?: MarkdownLimits | undefined;
  /** TeX math (config `markdown.math`): how it is read, or not at all; needs loadMath() first. @default false */
  math?: MathSyntax | false | undefined;
}

/**
 * The pipeline, with a config's plugins where Astro and Docusaurus put them: remark plugins after
 * GFM (and math, when `markdown.math` is on, so that they see its nodes), rehype plugins after
 * raw HTML is parsed; ours that collect images run after both, so an image a plugin adds or
 * changes is uploaded as it ends up.
 */
export function createProcessor(plugins?: LoadedPlugins, math: MathSyntax | false = false) {
  return unified()
    .use(remarkParse)
    .use(remarkGfm)
    .use(mathPlugins(math))
    .use(remarkHeadingIds)
    .use((plugins?.remark ?? []) as PluggableList)
    .use(remarkMarkImageKinds)
    .use(remarkRehype, { allowDangerousHtml: true })
    .use(rehypeRaw)
    .use((plugins?.rehype ?? []) as PluggableList)
    .use(rehypeMediaBlocks)
    .use(rehypeStringify)
    .freeze();
}

type Processor = ReturnType<typeof createProcessor>;

// Built once each: assembling a unified pipeline costs more than rendering a short article.
const processors = new Map<string, Processor>();
function processorFor(math: MathSyntax | false | undefined): Processor {
  const key = math ? `math:${math.singleDollar}` : 'plain';
  let processor = processors.get(key);
  if (!processor) processors.set(key, (processor = createProcessor(undefined, math ?? false)));
  return processor;
}

/**
 * Markdown -> HTML in which every image is a media dynamic-block with a placeholder id. A
 * document over a limit, or one the renderer cannot handle, comes back with an error problem
 * (positioned in `markdown`) rather than a throw, so that it costs only its own record.
 */
export function renderMarkdown(markdown: string, options: RenderOptions): RenderResult {
  const refused = checkMarkdownLimits(markdown, options.limits ?? DEFAULT_LIMITS);
  if (refused) return { html: '', images: [], problems: [refused] };
  const media = collector(options);
  try {
    return resultOf(processorFor(options.math).processSync(fileOf(markdown, media)), media);
  } catch (error) {
    return failedRender(error);
  }
}

/** renderMarkdown with a config's plugins (see createProcessor); asynchronous, since a plugin may be. */
export async function renderMarkdownWith(
  pipeline: Processor,
  markdown: string,
  options: RenderOptions,
): Promise<RenderResult> {
  const refused = checkMarkdownLimits(markdown, options.limits ?? DEFAULT_LIMITS);
  if (refused) return { html: '', images: [], problems: [refused] };
  const media = collector(options);
  try {
    return resultOf(await pipeline.process(fileOf(markdown, media)), media);
  } catch (error) {
    return failedRender(error);
  }
}

function collector(options: RenderOptions): MediaCollector {
  return {
    defaultSize: options.defaultSize,
    captions: options.captions ?? 'paragraph',
    images: [],
    problems: [],
  };
}

function fileOf(markdown: string, media: MediaCollector) {
  return { value: markdown, data: { [MEDIA_COLLECTOR]: media } };
}

function resultOf(file: { toString(): string }, media: MediaCollector): RenderResult {
  return { html: String(file), images: media.images, problems: media.problems };
}

function failedRender(error: unknown): RenderResult {
  // The parsers and serialisers recurse: elements nested by the thousand (raw HTML, which the
  // line check above does not count) overflow the stack. The stack unwinds; nothing is shared.
  if (!(error instanceof RangeError)) throw error;
  const message = /call stack/i.test(error.message)
    ? 'the document is nested too deeply to render (elements inside one another by the thousand); flatten it'
    : `the document could not be rendered (${error.message})`;
  return { html: '', images: [], problems: [{ line: 1, column: 1, message, severity: 'error' }] };
}
