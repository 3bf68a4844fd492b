/**
 * WordPress shortcodes. The ones with a Markdown meaning become HTML that converts to it; any
 * other stays as the text the author typed (escaped in Markdown, so it still reads
 * `[name ...]`) and is counted, so the report can say what needs a human look.
 */
export interface ShortcodeContext {
  /** Attachment id -> its URL. */
  attachmentUrl: (id: string) => string | undefined;
  /** Attachments whose parent is the post being converted (for `[gallery]` without ids). */
  childAttachments: () => string[];
  /** Called once per unknown shortcode kept verbatim. */
  onUnknown: (name: string) => void;
  /** Called when something in a known shortcode had to be dropped. */
  onDropped: (what: string) => void;
}

// WordPress's own get_shortcode_regex(), for any name: 1 `[[` escape, 2 name, 3 attributes,
// 4 self-closing slash, 5 content, 6 closing tag, 7 `]]` escape.
const SHORTCODE =
  /\[(\[?)([A-Za-z][\w-]*)(?![\w-])([^\]/]*(?:\/(?!\])[^\]/]*)*?)(?:(\/)\]|\](?:([^[]*(?:\[(?!\/\2\])[^[]*)*)(\[\/\2\]))?)(\]?)/g;

export function expandShortcodes(text: string, context: ShortcodeContext): string {
  return text.replace(
    SHORTCODE,
    (
      whole,
      open: string,
      name: string,
      rawAttrs: string,
      _slash,
      content: string | undefined,
      _close,
      closeEscape: string,
    ) => {
      if (open === '[' && closeEscape === ']') return whole.slice(1, -1);
      const attrs = parseAttributes(rawAttrs);
      const inner = content ?? '';
      switch (name.toLowerCase()) {
        case 'caption':
        case 'wp_caption':
          return caption(attrs, inner);
        case 'gallery':
          return gallery(attrs, context);
        case 'embed':
          return urlLine(inner.trim() || attrs.src || attrs.url);
        case 'video':
          return urlLine(
            attrs.src ?? attrs.mp4 ?? attrs.webm ?? attrs.ogv ?? attrs.m4v ?? attrs.flv ?? firstUrl(inner),
          );
        case 'audio':
          return urlLine(attrs.src ?? attrs.mp3 ?? attrs.ogg ?? attrs.m4a ?? attrs.wav ?? firstUrl(inner));
        default:
          context.onUnknown(name);
          // The content may hold known shortcodes (and HTML) of its own.
          return content === undefined ? whole : whole.replace(content, expandShortcodes(content, context));
      }
    },
  );
}

/** `[caption]<a><img></a> Text[/caption]` -> the image, then its caption in italics. */
function caption(attrs: Record<string, string>, inner: string): string {
  const img = /<a\b[^>]*>\s*<img\b[^>]*>\s*<\/a>|<img\b[^>]*>/i.exec(inner);
  const image = img ? img[0] : '';
  const text = (
    attrs.caption ?? (img ? inner.slice(0, img.index) + inner.slice(img.index + img[0].length) : inner)
  ).trim();
  return `\n\n<p>${image}</p>\n\n${text ? `<p><em>${text}</em></p>\n\n` : ''}`;
}

/** `[gallery ids="1,2"]` -> a list of the images. */
function gallery(attrs: Record<string, string>, context: ShortcodeContext): string {
  const ids = attrs.ids
    ? attrs.ids
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : context.childAttachments();
  const items: string[] = [];
  for (const id of ids) {
    const url = context.attachmentUrl(id);
    if (url) items.push(`<li><img src="${escapeAttribute(url)}" alt=""></li>`);
    else context.onDropped(`gallery image ${id} (no attachment with that id in the export)`);
  }
  return items.length ? `\n\n<ul>${items.join('')}</ul>\n\n` : '';
}

/** An embed or media file: its URL on its own line, as a link. */
function urlLine(url: string | undefined): string {
  if (!url) return '';
  const safe = escapeAttribute(url.trim());
  return `\n\n<p><a href="${safe}">${safe}</a></p>\n\n`;
}

function firstUrl(text: string): string | undefined {
  return /https?:\/\/[^\s"'<\]]+/.exec(text)?.[0];
}

/** WordPress's shortcode_parse_atts: name="v", name='v', name=v, and bare values. */
export function parseAttributes(text: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  const pattern =
    /([\w-]+)\s*=\s*"([^"]*)"(?:\s|$)|([\w-]+)\s*=\s*'([^']*)'(?:\s|$)|([\w-]+)\s*=\s*([^\s'"]+)(?:\s|$)|"([^"]*)"(?:\s|$)|'([^']*)'(?:\s|$)|(\S+)(?:\s|$)/g;
  const normalized = text.replace(/[\u00a0\u200b]/g, ' ');
  let m: RegExpExecArray | null;
  let position = 0;
  while ((m = pattern.exec(normalized)) !== null) {
    if (m[1]) attrs[m[1].toLowerCase()] = m[2] ?? '';
    else if (m[3]) attrs[m[3].toLowerCase()] = m[4] ?? '';
    else if (m[5]) attrs[m[5].toLowerCase()] = m[6] ?? '';
    else attrs[String(position++)] = m[7] ?? m[8] ?? m[9] ?? '';
  }
  return attrs;
}

function escapeAttribute(value: string): string {
  return value
    .replace(/&(?!(?:[a-z]+|#\d+|#x[0-9a-f]+);)/gi, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}
