import { createHash } from 'node:crypto';

/** Escapes text for an HTML element or a double-quoted attribute. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

const STYLE = `
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; color: #1d2430; background: #f6f7f9; }
  header { background: #1d2430; color: #fff; padding: 12px 24px; }
  header a { color: #fff; text-decoration: none; font-weight: 600; }
  main { max-width: 1100px; margin: 0 auto; padding: 16px 24px 48px; }
  h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; }
  table { border-collapse: collapse; width: 100%; background: #fff; }
  th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
  th { background: #eef0f3; font-weight: 600; }
  td.json { font-family: ui-monospace, monospace; font-size: 13px; white-space: pre-wrap; word-break: break-word; }
  .counts { display: flex; flex-wrap: wrap; gap: 12px; padding: 0; list-style: none; }
  .counts li { background: #fff; border: 1px solid #e3e6ea; border-radius: 6px; padding: 8px 14px; }
  .counts b { font-size: 20px; display: block; }
  .muted { color: #6b7380; }
  iframe.body { width: 100%; height: 60vh; min-height: 40px; border: 1px solid #e3e6ea; background: #fff; }
  pre.source { font: 13px/1.5 ui-monospace, monospace; }
  pre { background: #fff; border: 1px solid #e3e6ea; padding: 12px; overflow: auto; white-space: pre-wrap; }
  a { color: #2456c7; }
`;

/**
 * Sizes each body frame to its content, so a short article leaves no blank area under it. The
 * frame is sandboxed without scripts (nothing in a body ever runs) but same-origin, so this
 * script of the page itself can measure it; the CSP admits this one script by its hash.
 */
const FIT_FRAMES = `for (const f of document.querySelectorAll('iframe.body')) {
  const fit = () => {
    const d = f.contentDocument;
    if (!d || !d.documentElement) return;
    // Measured at height 0, where the document's scroll height is its content's, not the frame's.
    f.style.height = '0px';
    f.style.height = d.documentElement.scrollHeight + 2 + 'px';
  };
  f.addEventListener('load', fit);
  fit();
}`;

/** The CSP source that admits FIT_FRAMES and no other script. */
export const PAGE_SCRIPT_SOURCE = `'sha256-${createHash('sha256').update(FIT_FRAMES).digest('base64')}'`;

/** A whole page; `body` must already be escaped HTML. */
export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><header><a href="/">Local CMS</a> <span class="muted">read-only view</span></header><main>
${body}
</main><script>${FIT_FRAMES}</script></body></html>
`;
}
