import type { Element, ElementContent, Root, RootContent } from 'hast';
import rehypeParse from 'rehype-parse';
import rehypeStringify from 'rehype-stringify';
import { unified } from 'unified';
import { asHtmlBlock, HTML_BLOCK_ELEMENT } from './html-block.js';
import { oembed } from './oembed.js';

/**
 * Embeds (players, gists, social posts, inline SVG) have no Markdown form, and the HTML → Markdown
 * step would turn them into links or drop them. So before it runs, each embed is lifted out of
 * the HTML and a placeholder word is left in its place; once the Markdown is written, the
 * placeholder becomes the embed again, as a raw HTML block (or, for a YouTube, Vimeo or X URL
 * the old site turned into a player, the shortcode sync expands: see oembed.ts).
 */
export interface EmbedHooks {
  /** An embed written into the Markdown, by kind (`<iframe>`, `{{< youtube >}}`). */
  kept: (kind: string) => void;
  /** Something the Markdown does not keep, by kind. */
  dropped: (kind: string) => void;
  /** Makes a URL in a kept embed absolute (the old site's address). */
  resolveUrl?: ((url: string) => string | undefined) | undefined;
}

export interface ProtectedHtml {
  html: string;
  /** Puts the embeds back into the Markdown made from `html`. */
  restore: (markdown: string) => string;
}

/** Where an importer marks a URL the old site turned into a player (`[embed]`, a URL on its own line). */
export const OEMBED_ELEMENT = 'cms-sync-oembed';

export function oembedMarker(url: string): string {
  return `<${OEMBED_ELEMENT} data-url="${url.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"></${OEMBED_ELEMENT}>`;
}

/** Elements kept whole as raw HTML. */
const EMBEDS = new Set(['iframe', 'script', 'audio', 'video', 'object', 'embed', 'svg', 'math']);
/** Social posts: a blockquote that the provider's script turns into the post. */
const SOCIAL = new Set(['twitter-tweet', 'instagram-media', 'tiktok-embed', 'bluesky-embed', 'reddit-card']);
/** What the converter leaves out, by kind (their text, if any, stays). */
const DROPPED: Record<string, string> = {
  style: '<style> elements (page CSS)',
  form: 'forms (the fields go; their text stays)',
  canvas: '<canvas> drawings (drawn by scripts that are not kept)',
  template: '<template> elements',
  dialog: '<dialog> elements',
};
/** CommonMark starts an HTML block at these whatever follows them on the line (conditions 1 and 6). */
const BLOCK_STARTS = new Set(['script', 'pre', 'style', 'textarea', 'iframe', 'figure', 'blockquote', 'div']);
/** Containers of blocks, where a bare placeholder would run into its neighbours. */
const FLOW = new Set([
  'div',
  'section',
  'article',
  'aside',
  'main',
  'header',
  'footer',
  'blockquote',
  'figure',
  'details',
  'body',
]);
const URL_ATTRIBUTES = ['src', 'href', 'poster', 'data'] as const;

const HINT = new RegExp(
  `<(?:${[...EMBEDS, ...Object.keys(DROPPED), OEMBED_ELEMENT, HTML_BLOCK_ELEMENT].join('|')})\\b|` +
    'wp-block-embed|kg-(?:embed|video|audio)-card|' +
    `class="[^"]*\\b(?:${[...SOCIAL].join('|')})\\b`,
  'i',
);

const parser = unified().use(rehypeParse, { fragment: true }).freeze();
const printer = unified().use(rehypeStringify).freeze();

function toHtml(nodes: RootContent[]): string {
  return printer.stringify({ type: 'root', children: nodes } satisfies Root);
}

export function classesOf(node: Element): string[] {
  const value = node.properties.className;
  return Array.isArray(value) ? value.map(String) : [];
}

export function* elements(node: Element | Root): Generator<Element> {
  for (const child of node.children) {
    if (child.type !== 'element') continue;
    yield child;
    yield* elements(child);
  }
}

export function textOf(node: Element | Root): string {
  let text = '';
  for (const child of node.children) {
    if (child.type === 'text') text += child.value;
    else if (child.type === 'element') text += textOf(child);
  }
  return text;
}

interface Raw {
  /** On lines of its own (a block). */
  block: string;
  /** Inside a line of text. */
  inline: string;
}

export function protectEmbeds(html: string, hooks: EmbedHooks): ProtectedHtml {
  if (!HINT.test(html)) return { html, restore: (markdown) => markdown };
  let prefix = 'cmssyncembed';
  while (html.includes(prefix)) prefix += 'x';
  const raws: Raw[] = [];
  const placeholder = (raw: Raw): ElementContent => ({
    type: 'text',
    value: `${prefix}${raws.push(raw) - 1}z`,
  });

  const keepRaw = (node: Element): ElementContent => {
    const inside = [node, ...elements(node)].filter((e) => EMBEDS.has(e.tagName));
    if (inside.length === 0) hooks.kept(`<${node.tagName}>`);
    for (const embed of inside) hooks.kept(`<${embed.tagName}>`);
    return placeholder(rawOf(node, hooks.resolveUrl));
  };

  const fromUrl = (url: string): ElementContent[] => {
    const found = oembed(url);
    if (found && 'markdown' in found) {
      hooks.kept(found.kind);
      return [placeholder({ block: found.markdown, inline: found.markdown })];
    }
    if (found && 'iframe' in found) {
      hooks.kept(found.kind);
      return [placeholder({ block: found.iframe, inline: found.iframe })];
    }
    hooks.dropped(
      `embedded players from sites with no embed form here (${found?.provider ?? 'unknown sites'}; kept as links)`,
    );
    return [
      { type: 'element', tagName: 'a', properties: { href: url }, children: [{ type: 'text', value: url }] },
    ];
  };

  const replace = (node: Element): ElementContent[] | undefined => {
    const classes = classesOf(node);
    if (node.tagName === OEMBED_ELEMENT) return fromUrl(String(node.properties.dataUrl ?? '').trim());
    if (node.tagName === HTML_BLOCK_ELEMENT) {
      const block = asHtmlBlock(String(node.properties.dataHtml ?? ''));
      if (block === '') return [];
      hooks.kept(String(node.properties.dataKind ?? 'HTML blocks'));
      // In a line of text too it stays whole: its lines joined would break a script's `//` comment.
      return [placeholder({ block, inline: block })];
    }
    if (classes.includes('kg-video-card') || classes.includes('kg-audio-card')) {
      const card = ghostMediaCard(node);
      if (card) return [keepRaw(card)];
    }
    const embedded = [...elements(node)].some((e) => EMBEDS.has(e.tagName));
    if (node.tagName === 'figure' && classes.includes('wp-block-embed') && !embedded) {
      // The block editor saves only the URL; WordPress makes the player when the page is shown.
      const wrapper = [...elements(node)].find((e) => classesOf(e).includes('wp-block-embed__wrapper'));
      // The URL is the wrapper's text, or already marked as an auto-embed (a URL on its own line).
      const marker = [...elements(node)].find((e) => e.tagName === OEMBED_ELEMENT);
      const url = marker ? String(marker.properties.dataUrl ?? '').trim() : textOf(wrapper ?? node).trim();
      const captions = node.children.filter(
        (c): c is Element => c.type === 'element' && c.tagName === 'figcaption',
      );
      return url ? [...fromUrl(url), ...captions] : captions;
    }
    if (node.tagName === 'figure' && embedded) return [keepRaw(node)];
    if (node.tagName === 'blockquote' && classes.some((c) => SOCIAL.has(c))) return [keepRaw(node)];
    if (EMBEDS.has(node.tagName)) return [keepRaw(node)];
    const dropped = DROPPED[node.tagName];
    if (dropped) {
      hooks.dropped(dropped);
      return node.tagName === 'style' ? [] : undefined;
    }
    return undefined;
  };

  const walk = (parent: Element | Root): void => {
    for (let i = 0; i < parent.children.length; i++) {
      const node = parent.children[i]!;
      if (node.type !== 'element') continue;
      const replacement = replace(node);
      if (replacement === undefined) {
        walk(node);
        continue;
      }
      // Among blocks, each embed is a paragraph of its own, so two in a row stay two blocks.
      const flow = parent.type === 'root' || FLOW.has(parent.tagName);
      const nodes = flow
        ? replacement.map((n): ElementContent =>
            n.type === 'text' || (n.type === 'element' && n.tagName === 'a')
              ? { type: 'element', tagName: 'p', properties: {}, children: [n] }
              : n,
          )
        : replacement;
      parent.children.splice(i, 1, ...nodes);
      i += replacement.length - 1;
    }
  };

  const tree = parser.parse(html);
  walk(tree);
  if (raws.length === 0) return { html, restore: (markdown) => markdown };
  return {
    html: toHtml(tree.children),
    restore: (markdown) => {
      const token = new RegExp(`${prefix}(\\d+)z`, 'g');
      const seen = new Set<number>();
      const lines = markdown.split('\n').map((line) => {
        if (!line.includes(prefix)) return line;
        const only = new RegExp(
          `^((?:[ \\t>]|[-*+][ \\t]|\\d{1,9}[.)][ \\t])*)${prefix}(\\d+)z[ \\t]*$`,
        ).exec(line);
        if (only) {
          const index = Number(only[2]);
          seen.add(index);
          const before = only[1]!;
          const continuation = before.replace(/[^>\s]/g, ' ');
          return (raws[index]?.block ?? '')
            .split('\n')
            .map((text, n) =>
              n === 0 ? before + text : text === '' ? continuation.trimEnd() : continuation + text,
            )
            .join('\n');
        }
        return line.replace(token, (_m, i: string) => {
          seen.add(Number(i));
          return raws[Number(i)]?.inline ?? '';
        });
      });
      for (let i = 0; i < raws.length; i++)
        if (!seen.has(i)) hooks.dropped('embeds inside elements the Markdown does not keep');
      return lines.join('\n');
    },
  };
}

/**
 * Ghost's video and audio cards wrap the player in its own controls (buttons, SVG icons, a
 * script-driven progress bar): only the media element is kept, with the browser's controls,
 * and the caption or audio title as its figcaption.
 */
function ghostMediaCard(card: Element): Element | undefined {
  const all = [...elements(card)];
  const media = all.find((e) => e.tagName === 'video' || e.tagName === 'audio');
  if (!media) return undefined;
  const properties = { ...media.properties };
  delete properties.style;
  // Ghost's placeholder poster (a transparent spacer image) only sizes its own player, which
  // draws the video's thumbnail (the card's `data-kg-thumbnail`, or the one chosen for it) behind.
  if (String(properties.poster ?? '').includes('spacergif.org')) delete properties.poster;
  const thumbnail = [card.properties.dataKgCustomThumbnail, card.properties.dataKgThumbnail]
    .map((value) => (typeof value === 'string' ? value.trim() : ''))
    .find((value) => value !== '');
  if (media.tagName === 'video' && properties.poster === undefined && thumbnail)
    properties.poster = thumbnail;
  if (properties.controls === undefined && properties.autoPlay === undefined) properties.controls = true;
  const caption =
    all.find((e) => e.tagName === 'figcaption') ??
    all.find((e) => classesOf(e).includes('kg-audio-title') && textOf(e).trim() !== '');
  const children: ElementContent[] = [{ ...media, properties, children: [] }];
  if (caption)
    children.push({ type: 'element', tagName: 'figcaption', properties: {}, children: caption.children });
  return { type: 'element', tagName: 'figure', properties: {}, children };
}

function rawOf(node: Element, resolveUrl: EmbedHooks['resolveUrl']): Raw {
  const clean = (element: Element): Element => ({
    ...element,
    properties: Object.fromEntries(
      Object.entries(element.properties).map(([key, value]) =>
        (URL_ATTRIBUTES as readonly string[]).includes(key) && typeof value === 'string'
          ? [key, resolveUrl?.(value) ?? value]
          : [key, value],
      ),
    ),
    children: element.children.flatMap((child): ElementContent[] => {
      if (child.type === 'comment') return [];
      if (child.type === 'element') return [clean(child)];
      return [child];
    }),
  });
  const element = clean(node);
  const whole = toHtml([element]);
  const rawText = element.tagName === 'script' || element.tagName === 'pre';
  // A blank line would end the HTML block early (except inside <script> and <pre>, which end at their tag).
  const tight = (text: string) =>
    rawText ? text : text.replace(/\n[ \t]*(?=\n)/g, '').replace(/\n+/g, '\n');
  let block: string;
  if (BLOCK_STARTS.has(element.tagName) || element.tagName === 'embed') block = tight(whole);
  else {
    // <video>, <audio>, <svg>: an HTML block only when the opening tag is alone on its line.
    const empty = toHtml([{ ...element, children: [] }]);
    const close = `</${element.tagName}>`;
    const open = empty.endsWith(close) ? empty.slice(0, -close.length) : empty;
    const inner = tight(toHtml(element.children)).trim();
    block = inner ? `${open}\n${inner}\n${close}` : `${open}\n${close}`;
  }
  return { block, inline: rawText ? whole : whole.replace(/\s*\n\s*/g, ' ') };
}
