import rehypeRaw from 'rehype-raw';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import type { ImageSize } from '../resources.js';
import {
  MEDIA_COLLECTOR,
  rehypeMediaBlocks,
  remarkMarkImageKinds,
  type ImageRef,
  type MediaCollector,
  type RenderProblem,
} from './rewrite-media.js';

export type { ImageRef, RenderProblem } from './rewrite-media.js';
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

/** Markdown -> HTML in which every image is a media dynamic-block with a placeholder id. */
export function renderMarkdown(markdown: string, options: RenderOptions): RenderResult {
  const media: MediaCollector = { defaultSize: options.defaultSize, images: [], problems: [] };
  const file = processor.processSync({ value: markdown, data: { [MEDIA_COLLECTOR]: media } });
  return { html: String(file), images: media.images, problems: media.problems };
}
