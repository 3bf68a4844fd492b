import { htmlBlockMarker } from './html-block.js';
import { oembedMarker } from './embeds.js';
import { isOEmbedUrl } from './oembed.js';
import { decodeEntities } from './text.js';

/**
 * WordPress shortcodes. The ones with a Markdown meaning become HTML that converts to it; any
 * other stays as the text the author typed (escaped in Markdown, so it still reads
 * `[name ...]`) and is counted, so the report can say what needs a human look.
 */
export interface ShortcodeContext {
  /** Attachment id -> its URL. */
  attachmentUrl: (id: string) => string | undefined;
  /**
   * Attachments whose parent is the post being converted, or post `parent` (`[gallery id="20"]`),
   * in the order WordPress gives them (menu order, then id).
   */
  childAttachments: (parent?: string) => string[];
  /** What an attachment is, by its MIME type or else its file's extension; undefined for another file. */
  attachmentKind?: (id: string) => MediaKind | undefined;
  /** An audio or video attachment's title, for `[playlist]`. */
  attachmentTitle?: (id: string) => string | undefined;
  /** An attachment's menu order (`wp:menu_order`), 0 when it has none. */
  attachmentOrder?: (id: string) => number;
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

/** The languages SyntaxHighlighter Evolved gives a shortcode of their own (`[php]…[/php]`). */
const CODE_LANGUAGES = (
  'as3 bash c cpp csharp css delphi diff erlang go groovy html java javascript js jscript json kotlin ' +
  'perl php plain powershell py python rb ruby rust scala shell sql swift text vb xml yaml'
).split(' ');

/**
 * Where code opens, whichever comes first: an element (`<pre>`, `<code>`, the block editor's code
 * and preformatted blocks), whose brackets are code and not shortcodes, or a syntax-highlighting
 * shortcode (WordPress.com's and SyntaxHighlighter Evolved's `[sourcecode language="python"]`,
 * `[code lang="js"]`, `[python]`, `[php]`…), whose `<pre>` or URL is code too. `open` is the
 * first bracket of a `[[…]]` escape.
 */
const CODE_OPENER = new RegExp(
  `<(?<tag>pre|code)\\b|(?<open>\\[?)\\[(?<name>sourcecode|code|${CODE_LANGUAGES.join('|')})(?![\\w-])` +
    '(?<attrs>[^\\]]{0,2000})\\]',
  'gi',
);

interface CodeSpan {
  start: number;
  end: number;
  /** For a shortcode: its name, attributes, code, and whether it is escaped (`[[php]…[/php]]`). */
  shortcode?: { name: string; attrs: string; code: string; escaped: boolean };
}

/**
 * The code spans of `text`, in order. Each opener's closing tag is searched for once: where a
 * search fails, no later one for that tag is made, so a post of many unclosed openers (a hostile
 * export) costs linear time.
 */
function* codeSpans(text: string): Generator<CodeSpan> {
  const noCloseFrom = new Map<string, number>();
  const opener = new RegExp(CODE_OPENER.source, CODE_OPENER.flags);
  for (let m = opener.exec(text); m; m = opener.exec(text)) {
    const { tag, open = '', name, attrs = '' } = m.groups as Partial<Record<string, string>>;
    const after = m.index + m[0].length;
    const closer = tag ? `</${tag.toLowerCase()}` : `[/${name!.toLowerCase()}]`;
    if (after >= (noCloseFrom.get(closer) ?? Infinity)) continue;
    const close = new RegExp(tag ? `<\\/${tag}\\s*>` : `\\[\\/${name}\\]`, 'gi');
    close.lastIndex = after;
    const found = close.exec(text);
    if (!found) {
      noCloseFrom.set(closer, after);
      continue;
    }
    let end = found.index + found[0].length;
    if (tag) {
      yield { start: m.index, end };
    } else {
      const escaped = open === '[' && text[end] === ']';
      if (escaped) end++;
      const start = m.index + (open === '[' && !escaped ? 1 : 0);
      const code = text.slice(after, found.index);
      yield { start, end, shortcode: { name: name!, attrs, code, escaped } };
    }
    opener.lastIndex = end;
  }
}

/** The text with each syntax-highlighting shortcode a code block; code already in it left alone. */
export type MediaKind = 'image' | 'audio' | 'video';

const EXTENSIONS: Record<MediaKind, RegExp> = {
  image: /\.(?:jpe?g|jpe|png|gif|webp|avif|bmp|tiff?|svg|heic|heif|ico)$/i,
  audio: /\.(?:mp3|m4a|ogg|oga|wav|flac|aac|wma)$/i,
  video: /\.(?:mp4|m4v|webm|ogv|mov|wmv|avi|flv|3gp|mkv)$/i,
};

/**
 * An attachment's kind, as WordPress reads it from `post_mime_type` (`image/png`); an export
 * without it (WordPress's own exporter leaves it out) has the file's name, whose extension says it.
 */
export function mediaKind(mimeType: string, url: string): MediaKind | undefined {
  const type = /^(image|audio|video)\//i.exec(mimeType.trim())?.[1]?.toLowerCase();
  if (type) return type as MediaKind;
  if (mimeType.trim()) return undefined;
  const path = url.replace(/[?#].*$/s, '');
  return (Object.keys(EXTENSIONS) as MediaKind[]).find((kind) => EXTENSIONS[kind].test(path));
}

export function codeShortcodes(text: string): string {
  return outsideCode(text, (part) => part, false);
}

export function expandShortcodes(text: string, context: ShortcodeContext): string {
  return outsideCode(text, (part) => expandOutsideCode(part, context), true);
}

/**
 * `text` with `convert` applied to what is not code, and syntax-highlighting shortcodes made code
 * blocks. An escaped one (`[[php]…[/php]]`) is text: `unescape` shows it as `[php]…[/php]`, on
 * the last pass only, so that no later pass reads it as code.
 */
function outsideCode(text: string, convert: (part: string) => string, unescape: boolean): string {
  let out = '';
  let at = 0;
  for (const span of codeSpans(text)) {
    const whole = text.slice(span.start, span.end);
    const { shortcode } = span;
    let kept = whole;
    if (shortcode?.escaped) kept = unescape ? whole.slice(1, -1) : whole;
    else if (shortcode)
      kept = codeBlock(shortcode.code, codeLanguage(shortcode.name, parseAttributes(shortcode.attrs)));
    out += convert(text.slice(at, span.start)) + kept;
    at = span.end;
  }
  return out + convert(text.slice(at));
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
      switch (name.toLowerCase()) {
        case 'caption':
        case 'wp_caption':
          return caption(attrs, inner);
        case 'gallery':
          return gallery(attrs, context);
        case 'playlist':
          return playlist(attrs, context);
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

/** A syntax-highlighting shortcode's language (`[sourcecode language="python"]`, `[php]`), `''` for none. */
function codeLanguage(name: string, attrs: Record<string, string>): string {
  const lower = name.toLowerCase();
  if (lower === 'sourcecode' || lower === 'code')
    return (attrs.language ?? attrs.lang ?? attrs['0'] ?? '').trim();
  return lower;
}

/**
 * The code as it was typed, in a `<pre><code>` that becomes a fenced block: the editor stored it
 * with `<`, `&` as typed or as entities; either way the reader saw the characters.
 */
function codeBlock(content: string, language: string): string {
  // The visual editor keeps a run of spaces as `&nbsp;`: in code, they are spaces.
  const code = decodeEntities(
    content
      .replace(/^\r?\n/, '')
      .replace(/\s+$/, '')
      .replace(/&nbsp;/gi, ' '),
  );
  const escaped = code.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const lang =
    /^[\w+#.-]+$/.test(language) && !/^(?:plain|text)$/i.test(language)
      ? ` class="language-${language}"`
      : '';
  return `\n\n<pre><code${lang}>${escaped}</code></pre>\n\n`;
}

/** Shortcodes of the page builders (WPBakery `vc_`, Divi `et_pb_`, Avada `fusion_`, Enfold `av_`). */
const PAGE_BUILDER = /^(?:vc|et_pb|fusion|av)_/i;

/** Page-builder elements that only space or divide the layout: nothing of the post is in them. */
const PAGE_BUILDER_DECORATION = /_(?:empty_space|separator|divider|spacer|hr)$/i;

/**
 * A page builder's shortcode: its rows, columns and text boxes are layout around the post's text
 * and images, which are kept (an image by its attachment id, `[vc_single_image image="88"]`, or
 * its URL, `[et_pb_image src="…"]`), as are headings and buttons, whose text is in their
 * attributes, and WPBakery's raw HTML; the layout, and spacers and dividers, go, counted. Any
 * other element without content (a slider, a map, a counter) is left out, counted by name.
 */
function pageBuilder(
  name: string,
  attrs: Record<string, string>,
  content: string | undefined,
  context: ShortcodeContext,
): string {
  const element = pageBuilderElement(name, attrs, content, context);
  if (element !== undefined) return `\n\n${element}\n\n`;
  // WPBakery's raw JavaScript is base64, not text of the post.
  if ((content === undefined && !PAGE_BUILDER_DECORATION.test(name)) || name === 'vc_raw_js') {
    context.onDropped(
      `page-builder element [${name}]`,
      `page-builder [${name}] elements, which have no form here`,
    );
    return '';
  }
  context.onDropped(
    `page-builder layout [${name}]`,
    'page-builder layout shortcodes (WPBakery, Divi, Avada, Enfold): removed, their text and images kept',
  );
  return content === undefined ? '' : `\n\n${expandShortcodes(content, context)}\n\n`;
}

/** The HTML of a page builder's image, heading, button or raw HTML; undefined for another shortcode. */
function pageBuilderElement(
  name: string,
  attrs: Record<string, string>,
  content: string | undefined,
  context: ShortcodeContext,
): string | undefined {
  if (/(?:^|_)image$/.test(name)) {
    const id = attrs.image ?? attrs.attachment_id;
    const src = (id && context.attachmentUrl(id)) || attrs.src || attrs.image_url;
    if (!src) {
      context.onDropped(
        `page-builder image ${id ?? ''} (no attachment with that id in the export)`,
        'page-builder images whose attachment is not in the export',
      );
      return '';
    }
    const alt = attrs.alt ?? (id ? context.attachmentAlt?.(id) : undefined) ?? '';
    return `<p><img src="${escapeAttribute(src)}" alt="${escapeAttribute(alt)}"></p>`;
  }
  // Its author wrote HTML, which WordPress showed as written (a widget and its script): kept whole.
  if (name === 'vc_raw_html' && content !== undefined)
    return `\n\n${htmlBlockMarker(rawHtml(content), 'raw HTML elements (WPBakery [vc_raw_html])')}\n\n`;
  // WPBakery's heading keeps its level in `font_container="tag:h3|…"`, Enfold's in `tag`.
  const heading =
    name === 'vc_custom_heading' ? attrs.text : name === 'av_heading' ? attrs.heading : undefined;
  if (heading) {
    const tag = /\bh[1-6]\b/i.exec(attrs.font_container ?? attrs.tag ?? '')?.[0].toLowerCase() ?? 'h2';
    return `<${tag}>${heading}</${tag}>`;
  }
  const button = BUTTONS[name];
  if (button) {
    const text = attrs[button.text] ?? '';
    const href = button.link(attrs[button.href] ?? '');
    if (!text.trim()) return '';
    return href ? `<p><a href="${escapeAttribute(href)}">${text}</a></p>` : `<p>${text}</p>`;
  }
  return undefined;
}

/** Where each builder's button keeps its text and its link, and how the link is written. */
const BUTTONS: Record<string, { text: string; href: string; link: (value: string) => string }> = {
  // `link="url:https%3A%2F%2F…|title:…|target:_blank"`
  vc_btn: { text: 'title', href: 'link', link: vcLink },
  vc_button2: { text: 'title', href: 'link', link: vcLink },
  et_pb_button: { text: 'button_text', href: 'button_url', link: (value) => value },
  // `link="manually,https://…"`
  av_button: { text: 'label', href: 'link', link: (value) => value.replace(/^manually,/, '') },
};

function vcLink(value: string): string {
  const url = /(?:^|\|)url:([^|]*)/.exec(value)?.[1] ?? '';
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

/** WPBakery keeps a raw HTML element's HTML URL-encoded, then in base64. */
function rawHtml(content: string): string {
  if (!/^[A-Za-z0-9+/=\s]*$/.test(content)) return content;
  try {
    return decodeURIComponent(Buffer.from(content.trim(), 'base64').toString('utf8'));
  } catch {
    return content;
  }
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

/**
 * `[gallery]` -> a list of its images, chosen as WordPress's gallery_shortcode chooses them (see
 * attachmentIds): images only.
 */
function gallery(attrs: Record<string, string>, context: ShortcodeContext): string {
  const items = shownAttachments(attrs, context, 'image', 'gallery image').map(({ id, url }) => {
    const alt = context.attachmentAlt?.(id) ?? '';
    return `<li><img src="${escapeAttribute(url)}" alt="${escapeAttribute(alt)}"></li>`;
  });
  return items.length ? `\n\n<ul>${items.join('')}</ul>\n\n` : '';
}

/**
 * The attachments of one kind a `[gallery]` or `[playlist]` shows, with their URLs, as WordPress
 * leaves out those of another kind (a PDF among a gallery's ids); one not in the export is
 * reported as a `what` (`gallery image 12 (no attachment ...)`).
 */
function shownAttachments(
  attrs: Record<string, string>,
  context: ShortcodeContext,
  kind: MediaKind,
  what: string,
): Array<{ id: string; url: string }> {
  const shown: Array<{ id: string; url: string }> = [];
  for (const id of attachmentIds(attrs, context)) {
    const url = context.attachmentUrl(id);
    if (!url) {
      context.onDropped(
        `${what} ${id} (no attachment with that id in the export)`,
        `${what}s whose attachment is not in the export`,
      );
      continue;
    }
    if (context.attachmentKind && context.attachmentKind(id) !== kind) continue;
    shown.push({ id, url });
  }
  return shown;
}

/** A list of attachment ids (`"1, 2,3"`), each once. */
function idList(value: string | undefined): string[] {
  return [
    ...new Set(
      (value ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

/**
 * The attachments a `[gallery]` or `[playlist]` shows, before they are sorted by kind:
 * `ids` (in the order given), else `include`, else the attachments of the post (or of post `id`)
 * but those in `exclude`, ordered as `orderby` and `order` say.
 */
function attachmentIds(attrs: Record<string, string>, context: ShortcodeContext): string[] {
  const given = idList(attrs.ids);
  const included = given.length ? given : idList(attrs.include);
  let ids = included;
  if (included.length === 0) {
    const excluded = new Set(idList(attrs.exclude));
    const parent = /^\d+$/.test(attrs.id?.trim() ?? '') ? attrs.id!.trim() : undefined;
    ids = context.childAttachments(parent).filter((id) => !excluded.has(id));
  }
  // `ids` keeps its order (WordPress's `post__in`) unless `orderby` names another.
  const orderby = (attrs.orderby ?? (given.length ? 'post__in' : '')).trim().toLowerCase();
  if (orderby === 'rand' || orderby === 'none' || (orderby === 'post__in' && included.length)) {
    // As given (a random order is one of those WordPress could show).
  } else {
    const order = context.attachmentOrder ?? (() => 0);
    const byId = (a: string, b: string) => Number(a) - Number(b);
    ids = [...ids].sort(orderby === 'id' ? byId : (a, b) => order(a) - order(b) || byId(a, b));
  }
  return orderby !== 'rand' && attrs.order?.trim().toUpperCase() === 'DESC' ? ids.reverse() : ids;
}

/**
 * `[playlist ids="1,2" type="audio|video"]` -> each track's title, then its player, in order:
 * the tracks are chosen as a gallery's images are, audio (or video) only, as WordPress's
 * wp_playlist_shortcode does. A track not in the export is reported.
 */
function playlist(attrs: Record<string, string>, context: ShortcodeContext): string {
  const kind = attrs.type?.trim().toLowerCase() === 'video' ? 'video' : 'audio';
  let out = '';
  for (const { id, url } of shownAttachments(attrs, context, kind, 'playlist track')) {
    const title = context.attachmentTitle?.(id)?.trim();
    if (title) out += `\n\n<p>${escapeText(title)}</p>`;
    out += media(kind, { src: url }, '', context);
  }
  return out && `${out}\n\n`;
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
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
