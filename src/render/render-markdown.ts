import rehypeRaw from 'rehype-raw';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import type { ImageSize } from '../resources.js';
import { DEFAULT_LIMITS } from '../source/limits.js';
import { checkMarkdownLimits, type MarkdownLimits } from './markdown-limits.js';
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
}

// Built once: assembling a unified pipeline costs more than rendering a short article.
const processor = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkMarkImageKinds)
  .use(remarkRehype, { allowDangerousHtml: true })
  .use(rehypeRaw)
  .use(rehypeMediaBlocks)
  .use(rehypeStringify)
  .freeze();

/**
 * Markdown -> HTML in which every image is a media dynamic-block with a placeholder id. A
 * document over a limit, or one the renderer cannot handle, comes back with an error problem
 * (positioned in `markdown`) rather than a throw, so that it costs only its own record.
 */
export function renderMarkdown(markdown: string, options: RenderOptions): RenderResult {
  const refused = checkMarkdownLimits(markdown, options.limits ?? DEFAULT_LIMITS);
  if (refused) return { html: '', images: [], problems: [refused] };
  const media: MediaCollector = {
    defaultSize: options.defaultSize,
    captions: options.captions ?? 'paragraph',
    images: [],
    problems: [],
  };
  let file;
  try {
    file = processor.processSync({ value: markdown, data: { [MEDIA_COLLECTOR]: media } });
  } catch (error) {
    // The parsers and serialisers recurse: elements nested by the thousand (raw HTML, which the
    // line check above does not count) overflow the stack. The stack unwinds; nothing is shared.
    if (!(error instanceof RangeError)) throw error;
    const message = /call stack/i.test(error.message)
      ? 'the document is nested too deeply to render (elements inside one another by the thousand); flatten it'
      : `the document could not be rendered (${error.message})`;
    return { html: '', images: [], problems: [{ line: 1, column: 1, message, severity: 'error' }] };
  }
  return { html: String(file), images: media.images, problems: media.problems };
}
