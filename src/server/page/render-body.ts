import type { RemoteRecord } from '../../resources.js';
import { scanDynamicBlocks } from '../records/dynamic-blocks.js';
import { escapeHtml } from './html.js';

const WIDTHS = { small: 240, medium: 480, large: 960 } as const;

/**
 * A stored body with each dynamic-block replaced by the media it points at, for display in a
 * sandboxed iframe (the HTML is the client's, so it is shown as HTML, never run as script).
 */
export function renderBody(html: string, findMedia: (id: number) => RemoteRecord | undefined): string {
  const scan = scanDynamicBlocks(html);
  if (!scan.ok) return html;
  let out = '';
  let last = 0;
  for (const block of scan.blocks) {
    out +=
      html.slice(last, block.start) +
      renderMedia(findMedia(block.mediaId), block.mediaId, WIDTHS[block.size]);
    last = block.end;
  }
  return out + html.slice(last);
}

function renderMedia(media: RemoteRecord | undefined, id: number, width: number): string {
  if (!media) return `<span style="color:#b00">[missing media ${id}]</span>`;
  const src = `/media/${media.id}/${encodeURIComponent(String(media.filename))}`;
  const mime = String(media.mime ?? '');
  const alt = escapeHtml(media.alt ?? media.title ?? '');
  const title = typeof media.title === 'string' ? ` title="${escapeHtml(media.title)}"` : '';
  if (mime.startsWith('image/'))
    return `<img src="${escapeHtml(src)}" alt="${alt}"${title} style="max-width:100%;width:${width}px">`;
  if (mime.startsWith('video/'))
    return `<video src="${escapeHtml(src)}" controls style="max-width:100%;width:${width}px"></video>`;
  return `<a href="${escapeHtml(src)}" target="_blank" rel="noopener">${escapeHtml(media.title ?? media.filename)}</a>`;
}
