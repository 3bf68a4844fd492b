import { parseFrontMatter } from '../source/front-matter.js';
import type { ContentLimits } from '../source/limits.js';
import { frontMatterSchema } from './front-matter.js';

type RenderModule = typeof import('../render/render-markdown.js');

/**
 * Loads what reading, building and rendering a changed document takes, before the first one is
 * read: gray-matter, yaml, zod and the front matter schemas now, and the renderer, whose module
 * it resolves to, at the event loop's next turns. Used where the time is otherwise idle: by a scan
 * while the stat worker still stats (ScanOptions.onChangeFound), by watch while it waits for the
 * first save (watch/warm-up.ts). Nothing fails here: what cannot load fails again, and is
 * reported, where a document needs it (the renderer then resolves to undefined).
 */
export function warmUpReading(limits: ContentLimits): Promise<RenderModule | undefined> {
  try {
    parseFrontMatter('---\ntitle: Warm\n---\n\nWarm.\n', limits);
    frontMatterSchema('article');
  } catch {
    // See above.
  }
  return import('../render/render-markdown.js').catch(() => undefined);
}
