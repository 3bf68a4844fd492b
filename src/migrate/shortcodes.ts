import { oembedMarker } from './embeds.js';
import { isOEmbedUrl } from './oembed.js';

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
  /** Called when something in a known shortcode had to be dropped; `kind` groups them in the report. */
  onDropped: (what: string, kind?: string) => void;
  /** Attachment id -> its alt text, for gallery images. */
  attachmentAlt?: (id: string) => string | undefined;
}

// WordPress's own get_shortcode_regex(), for any name: 1 `[[` escape, 2 name, 3 attributes,
// 4 self-closing slash, 5 content, 6 closing tag, 7 `]]` escape.
const SHORTCODE =
  /\[(\[?)([A-Za-z][\w-]*)(?![\w-])([^\]/]*(?:\/(?!\])[^\]/]*)*?)(?:(\/)\]|\](?:([^[]*(?:\[(?!\/\2\])[^[]*)*)(\[\/\2\]))?)(\]?)/g;

/** Code already in the post (`<pre>`, `<code>`, the block editor's code blocks): its brackets are code. */
const CODE = /<(pre|code)\b[\s\S]*?<\/\1\s*>/gi;

export function expandShortcodes(text: string, context: ShortcodeContext): string {
  if (!/<(?:pre|code)\b/i.test(text)) return expandOutsideCode(text, context);
  let out = '';
  let at = 0;
  for (const m of text.matchAll(CODE)) {
    out += expandOutsideCode(text.slice(at, m.index), context) + m[0];
    at = m.index + m[0].length;
  }
  return out + expandOutsideCode(text.slice(at), context);
}

function expandOutsideCode(text: string, context: ShortcodeContext): string {
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
      const language = codeLanguage(name.toLowerCase(), attrs);
      if (language !== undefined && content !== undefined) return codeBlock(content, language);
      switch (name.toLowerCase()) {
        case 'caption':
        case 'wp_caption':
          return caption(attrs, inner);
        case 'gallery':
          return gallery(attrs, context);
        case 'embed':
          return embed(inner.trim() || attrs.src || attrs.url, context);
        case 'video':
        case 'audio':
          return media(name.toLowerCase() as 'video' | 'audio', attrs, inner, context);
        // WordPress.com (Jetpack) shortcodes: `[youtube URL]`, `[vimeo 123]`, `[tweet URL]`, `[gist URL]`.
        case 'youtube':
        case 'tweet':
        case 'soundcloud':
        case 'spotify':
          return embed(attrs.url ?? attrs.id ?? attrs['0'] ?? firstUrl(inner), context);
        case 'vimeo': {
          const id = attrs.id ?? attrs['0'] ?? '';
          return embed(/^\d+$/.test(id) ? `https://vimeo.com/${id}` : id || attrs.url, context);
        }
        case 'gist': {
          const url = (attrs['0'] ?? attrs.url ?? firstUrl(inner) ?? '').replace(/\.js$/, '');
          if (/^https:\/\/gist\.github\.com\/[\w/-]+$/.test(url))
            return `\n\n<script src="${escapeAttribute(url)}.js"></script>\n\n`;
          context.onUnknown(name);
          return whole;
        }
        default:
          if (PAGE_BUILDER.test(name)) return pageBuilder(name.toLowerCase(), attrs, content, context);
          context.onUnknown(name);
          // The content may hold known shortcodes (and HTML) of its own.
          return content === undefined ? whole : whole.replace(content, expandShortcodes(content, context));
      }
    },
  );
}

/**
 * Syntax-highlighting shortcodes (WordPress.com's and SyntaxHighlighter Evolved's `[sourcecode
 * language="python"]`, `[code lang="js"]`, and `[python]`, `[php]`…): the language, `''` for none,
 * or undefined for another shortcode.
 */
function codeLanguage(name: string, attrs: Record<string, string>): string | undefined {
  if (name === 'sourcecode' || name === 'code')
    return (attrs.language ?? attrs.lang ?? attrs['0'] ?? '').trim();
  return CODE_LANGUAGES.has(name) ? name : undefined;
}

const CODE_LANGUAGES = new Set(
  (
    'as3 bash c cpp csharp css delphi diff erlang go groovy html java javascript js jscript json kotlin ' +
    'perl php plain powershell py python rb ruby rust scala shell sql swift text vb xml yaml'
  ).split(' '),
);

/**
 * The code as it was typed, in a `<pre><code>` that becomes a fenced block: the editor stored it
 * with `<`, `&` as typed or as entities; either way the reader saw the characters.
 */
function codeBlock(content: string, language: string): string {
  const code = decodeEntities(content.replace(/^\r?\n/, '').replace(/\s+$/, ''));
  const escaped = code.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const lang =
    /^[\w+#.-]+$/.test(language) && !/^(?:plain|text)$/i.test(language)
      ? ` class="language-${language}"`
      : '';
  return `\n\n<pre><code${lang}>${escaped}</code></pre>\n\n`;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;|&#x27;|&apos;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&');
}

/** Shortcodes of the page builders (WPBakery `vc_`, Divi `et_pb_`, Avada `fusion_`, Enfold `av_`). */
const PAGE_BUILDER = /^(?:vc|et_pb|fusion|av)_/i;

/**
 * A page builder's shortcode: its rows, columns and text boxes are layout around the post's text
 * and images, which are kept (an image by its attachment id, `[vc_single_image image="88"]`, or
 * its URL, `[et_pb_image src="…"]`); the layout, and spacers and dividers, go, counted.
 */
function pageBuilder(
  name: string,
  attrs: Record<string, string>,
  content: string | undefined,
  context: ShortcodeContext,
): string {
  context.onDropped(
    `page-builder layout [${name}]`,
    'page-builder layout shortcodes (WPBakery, Divi, Avada, Enfold): removed, their text and images kept',
  );
  const id = attrs.image ?? attrs.attachment_id;
  const src = (id && context.attachmentUrl(id)) || attrs.src || attrs.image_url;
  const alt = attrs.alt ?? (id ? context.attachmentAlt?.(id) : undefined) ?? '';
  const image =
    /(?:^|_)image$/.test(name) && src
      ? `\n\n<p><img src="${escapeAttribute(src)}" alt="${escapeAttribute(alt)}"></p>\n\n`
      : '';
  const inner = content === undefined ? '' : `\n\n${expandShortcodes(content, context)}\n\n`;
  return image + inner;
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
    const alt = context.attachmentAlt?.(id) ?? '';
    if (url) items.push(`<li><img src="${escapeAttribute(url)}" alt="${escapeAttribute(alt)}"></li>`);
    else
      context.onDropped(
        `gallery image ${id} (no attachment with that id in the export)`,
        'gallery images whose attachment is not in the export',
      );
  }
  return items.length ? `\n\n<ul>${items.join('')}</ul>\n\n` : '';
}

/**
 * `[embed]URL[/embed]`: a player for the URLs sync can embed (see oembed.ts), else the URL on
 * its own line, as a link.
 */
function embed(url: string | undefined, context: ShortcodeContext): string {
  if (!url) return '';
  if (isOEmbedUrl(url)) return `\n\n${oembedMarker(url.trim())}\n\n`;
  context.onDropped(
    `embedded player of ${url.trim()} (kept as a link)`,
    'embedded players from sites with no embed form here (kept as links)',
  );
  return urlLine(url);
}

const SOURCES = {
  video: ['src', 'mp4', 'm4v', 'webm', 'ogv', 'flv', 'mov'],
  audio: ['src', 'mp3', 'ogg', 'flac', 'm4a', 'wav'],
};
const MEDIA_ATTRIBUTES = { video: ['poster', 'width', 'height', 'preload'], audio: ['preload'] };

/** `[video mp4="..."]`, `[audio src="..."]` -> the <video>/<audio> element WordPress shows. */
function media(
  tag: 'video' | 'audio',
  attrs: Record<string, string>,
  inner: string,
  context: ShortcodeContext,
): string {
  const sources = [...new Set(SOURCES[tag].map((key) => attrs[key]?.trim()).filter((v): v is string => !!v))];
  if (sources.length === 0) {
    const url = firstUrl(inner);
    if (url) sources.push(url);
  }
  // `[video src="https://youtu.be/..."]` is a YouTube player, as on WordPress.
  if (sources.length === 1 && isOEmbedUrl(sources[0]!)) return embed(sources[0], context);
  if (sources.length === 0) {
    context.onDropped(`[${tag}] with no source`, `[${tag}] shortcodes with no source`);
    return '';
  }
  let open = `<${tag} controls`;
  for (const key of MEDIA_ATTRIBUTES[tag]) if (attrs[key]) open += ` ${key}="${escapeAttribute(attrs[key])}"`;
  for (const flag of ['loop', 'autoplay', 'muted'])
    if (attrs[flag] && !/^(?:0|off|false)$/i.test(attrs[flag])) open += ` ${flag}`;
  const element =
    sources.length === 1
      ? `${open} src="${escapeAttribute(sources[0]!)}"></${tag}>`
      : `${open}>${sources.map((src) => `<source src="${escapeAttribute(src)}">`).join('')}</${tag}>`;
  return `\n\n${element}\n\n`;
}

/** A URL on its own line, as a link. */
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
