import { oembedMarker } from './embeds.js';
import { isOEmbedUrl } from './oembed.js';

/**
 * WordPress's wpautop(), the filter that gives classic-editor posts their paragraphs on the
 * old site: a blank line starts a paragraph, a single newline is a <br />, block-level tags
 * are left unwrapped. Ported step by step (minus the parts for <object>, <option> and
 * <select>, which do not survive the Markdown conversion anyway).
 */
const BLOCKS =
  '(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote|' +
  'address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|figcaption|' +
  'details|menu|summary)';

export function wpautop(input: string): string {
  if (input.trim() === '') return '';
  let text = `${input.replace(/\r\n?/g, '\n')}\n`;
  // <pre> keeps its newlines: set aside and put back at the end.
  const pres: string[] = [];
  text = text.replace(/<pre[\s\S]*?<\/pre>/gi, (pre) => `<pre wp-pre-tag-${pres.push(pre) - 1}></pre>`);
  // Newlines inside <script>/<style> and inside tags are not paragraph breaks.
  text = text.replace(/<(script|style|svg)\b[\s\S]*?<\/\1>/gi, (m) => m.replace(/\n/g, '<!-- wpnl -->'));
  text = text.replace(/<[^>!]*>/g, (m) => m.replace(/\n/g, ' '));
  text = text.replace(/<br\s*\/?>\s*<br\s*\/?>/gi, '\n\n');
  text = text.replace(new RegExp(`(<${BLOCKS}[\\s/>])`, 'gi'), '\n\n$1');
  text = text.replace(new RegExp(`(</${BLOCKS}>)`, 'gi'), '$1\n\n');
  text = text.replace(/<hr\s*?\/?>/gi, '<hr />\n\n');
  text = text.replace(/\n\n+/g, '\n\n');

  const paragraphs = text.split(/\n\s*\n/).filter((p) => p.trim() !== '');
  text = paragraphs.map((p) => `<p>${p.replace(/^\n+|\n+$/g, '')}</p>\n`).join('');

  text = text.replace(/<p>\s*<\/p>/g, '');
  text = text.replace(/<p>([^<]+)<\/(div|address|form)>/g, '<p>$1</p></$2>');
  text = text.replace(new RegExp(`<p>\\s*(</?${BLOCKS}[^>]*>)\\s*</p>`, 'gi'), '$1');
  text = text.replace(/<p>(<li.+?)<\/p>/gi, '$1');
  text = text.replace(/<p><blockquote([^>]*)>/gi, '<blockquote$1><p>');
  text = text.replace(/<\/blockquote><\/p>/gi, '</p></blockquote>');
  text = text.replace(new RegExp(`<p>\\s*(</?${BLOCKS}[^>]*>)`, 'gi'), '$1');
  text = text.replace(new RegExp(`(</?${BLOCKS}[^>]*>)\\s*</p>`, 'gi'), '$1');
  // A single newline inside a paragraph is a line break.
  text = text.replace(/(?<!<br \/>)\s*\n/g, '<br />\n');
  text = text.replace(new RegExp(`(</?${BLOCKS}[^>]*>)\\s*<br />`, 'gi'), '$1');
  text = text.replace(/<br \/>(\s*<\/?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)/gi, '$1');
  text = text.replace(/\n<\/p>$/g, '</p>');
  text = text.replace(/<!-- wpnl -->/g, '\n');
  return text.replace(/<pre wp-pre-tag-(\d+)><\/pre>/g, (_m, i: string) => pres[Number(i)] ?? '');
}

/** Block-editor (Gutenberg) content: its `<!-- wp:... -->` delimiters go, their content stays. */
export function isBlockContent(html: string): boolean {
  return /<!--\s*wp:/.test(html);
}

export function stripBlockComments(html: string): string {
  return html.replace(/<!--\s*\/?wp:[\s\S]*?-->/g, '');
}

/**
 * WordPress's auto-embeds: a URL of a known provider alone on its line (classic editor), or alone
 * in a paragraph (block editor), is shown as a player. It is marked here so the embed step
 * writes it as one (embeds.ts); text inside <pre> is left alone.
 */
export function autoEmbed(html: string): string {
  if (!/https?:\/\//i.test(html)) return html;
  return html
    .split(/(<pre[\s\S]*?<\/pre>)/i)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .replace(/^[ \t]*(https?:\/\/[^\s<>"]+)[ \t]*$/gim, (line, url: string) =>
              isOEmbedUrl(url) ? `\n${oembedMarker(decodeAmp(url))}\n` : line,
            )
            .replace(
              /(<p(?:\s[^>]*)?>)\s*(https?:\/\/[^\s<>"]+)\s*(<\/p>)/gi,
              (whole, open: string, url: string, close: string) =>
                isOEmbedUrl(url) ? `${open}${oembedMarker(decodeAmp(url))}${close}` : whole,
            ),
    )
    .join('');
}

/** A URL written in HTML has its `&` as `&amp;`. */
function decodeAmp(url: string): string {
  return url.replace(/&amp;/g, '&');
}
