import rehypeRaw from 'rehype-raw';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { escapeAttribute, escapeText } from '../render/templates/builtins.js';
import { oembedMarker } from './embeds.js';

/**
 * A Ghost post's body as its editor saved it (Ghost 5's `lexical`, Ghost 1 to 4's `mobiledoc`),
 * for an export row that has no `html`: rendered to the HTML Ghost would have shown, in the
 * markup of Ghost's own cards, which the importer then converts as it converts any Ghost post
 * (ghost-cards.ts, embeds.ts, html-block.ts). Only data is read: nothing in the export runs.
 * The node and card names and fields are those of Ghost's editor (Koenig's nodes, and its
 * mobiledoc to lexical mapping).
 */

/** What the rendering tells the importer, for its report. */
export interface EditorHooks {
  /** A node or card of a kind not known here: its text, if any, is kept. */
  unknown: (type: string) => void;
  /** A card the web never showed (email only). */
  emailOnly: () => void;
}

type Node = Record<string, unknown>;

/** Lexical's text format bits, in the order their tags are opened. */
const FORMATS: Array<[bit: number, tag: string]> = [
  [1, 'strong'],
  [2, 'em'],
  [4, 's'],
  [8, 'u'],
  [16, 'code'],
  [32, 'sub'],
  [64, 'sup'],
  [128, 'mark'],
];
/** Mobiledoc's markups as lexical format bits. */
const MARKUP_BITS: Record<string, number> = {
  b: 1,
  strong: 1,
  i: 2,
  em: 2,
  s: 4,
  u: 8,
  code: 16,
  sub: 32,
  sup: 64,
};
/** Mobiledoc card names that lexical calls otherwise. */
const CARD_NAMES: Record<string, string> = {
  code: 'codeblock',
  hr: 'horizontalrule',
  'card-markdown': 'markdown',
};
/** Nothing to show on the web: a members-only divider, an email's own content. */
const NOT_SHOWN = new Set(['paywall', 'email', 'email-cta', 'zwnj']);
/** Fields whose text an unknown card shows, most likely first. */
const TEXT_FIELDS = [
  'header',
  'heading',
  'title',
  'subheader',
  'description',
  'text',
  'textValue',
  'content',
  'caption',
];

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const children = (node: Node): Node[] =>
  Array.isArray(node.children) ? node.children.filter((c): c is Node => !!c && typeof c === 'object') : [];

/** HTML of a `lexical` field (its JSON text). Throws when it is not JSON of a lexical document. */
export function lexicalToHtml(json: string, hooks: EditorHooks): string {
  const root = (JSON.parse(json) as { root?: unknown } | null)?.root;
  if (!root || typeof root !== 'object') throw new Error('no `root` node');
  return blocks(children(root as Node), hooks);
}

function blocks(nodes: Node[], hooks: EditorHooks): string {
  return nodes.map((node) => block(node, hooks)).join('\n');
}

function block(node: Node, hooks: EditorHooks): string {
  const type = str(node.type);
  switch (type) {
    case 'paragraph':
      return `<p>${inline(children(node), hooks)}</p>`;
    case 'heading':
    case 'extended-heading': {
      const tag = /^h[1-6]$/.test(str(node.tag)) ? str(node.tag) : 'h2';
      return `<${tag}>${inline(children(node), hooks)}</${tag}>`;
    }
    case 'quote':
    case 'extended-quote':
    case 'aside':
      return `<blockquote><p>${inline(children(node), hooks)}</p></blockquote>`;
    case 'list':
      return list(node, hooks);
    case 'code':
      // Lexical's own code block: lines of text and highlight nodes.
      return `<pre><code>${escapeText(plainText(node))}</code></pre>`;
    default:
      return children(node).length > 0 && !isCard(node) ? unknownElement(node, hooks) : card(node, hooks);
  }
}

/** A card is a node of data (a decorator node); an element holds children. */
function isCard(node: Node): boolean {
  return !Array.isArray(node.children);
}

function unknownElement(node: Node, hooks: EditorHooks): string {
  hooks.unknown(str(node.type) || '(no type)');
  const inside = children(node);
  // Blocks inside stay blocks; text and inline nodes make a paragraph.
  return inside.every((c) => isInline(c)) ? `<p>${inline(inside, hooks)}</p>` : blocks(inside, hooks);
}

function isInline(node: Node): boolean {
  return /^(?:text|extended-text|link|autolink|at-link|linebreak|tab|tk|hashtag)$/.test(str(node.type));
}

function list(node: Node, hooks: EditorHooks): string {
  const ordered = node.listType === 'number' || node.tag === 'ol';
  const tag = ordered ? 'ol' : 'ul';
  const start = ordered && typeof node.start === 'number' && node.start !== 1 ? ` start="${node.start}"` : '';
  const items: string[] = [];
  for (const item of children(node)) {
    const inside = children(item);
    // A nested list is an item of its own holding only the list: it belongs to the item before.
    if (inside.length > 0 && inside.every((c) => c.type === 'list') && items.length > 0) {
      items[items.length - 1] += inside.map((c) => list(c, hooks)).join('');
      continue;
    }
    const nested = inside.filter((c) => c.type === 'list');
    items.push(
      inline(
        inside.filter((c) => c.type !== 'list'),
        hooks,
      ) + nested.map((c) => list(c, hooks)).join(''),
    );
  }
  return `<${tag}${start}>${items.map((item) => `<li>${item}</li>`).join('')}</${tag}>`;
}

/** Inline nodes as HTML, a run of text that shares a format in one element of it. */
function inline(nodes: Node[], hooks: EditorHooks): string {
  let html = '';
  const open: Array<[number, string]> = [];
  const closeTo = (depth: number) => {
    while (open.length > depth) html += `</${open.pop()![1]}>`;
  };
  for (const node of nodes) {
    const type = str(node.type);
    if (type === 'text' || type === 'extended-text' || type === 'tk' || type === 'hashtag') {
      const format = typeof node.format === 'number' ? node.format : 0;
      let keep = 0;
      while (keep < open.length && format & open[keep]![0]) keep++;
      closeTo(keep);
      for (const [bit, tag] of FORMATS)
        if (format & bit && !open.some(([b]) => b === bit)) {
          html += `<${tag}>`;
          open.push([bit, tag]);
        }
      html += escapeText(str(node.text));
    } else if (type === 'linebreak') html += '<br>';
    else if (type === 'tab') html += '\t';
    else if (type === 'link' || type === 'autolink' || type === 'at-link') {
      closeTo(0);
      const title = str(node.title) ? ` title="${escapeAttribute(str(node.title))}"` : '';
      html += `<a href="${escapeAttribute(str(node.url))}"${title}>${inline(children(node), hooks)}</a>`;
    } else if (children(node).length > 0) {
      closeTo(0);
      hooks.unknown(type || '(no type)');
      html += inline(children(node), hooks);
    } else if (type !== 'zwnj') {
      closeTo(0);
      const text = textOfCard(node);
      if (text) hooks.unknown(type || '(no type)');
      html += escapeText(text);
    }
  }
  closeTo(0);
  return html;
}

function plainText(node: Node): string {
  if (str(node.type) === 'linebreak') return '\n';
  if (typeof node.text === 'string') return node.text;
  return children(node).map(plainText).join('');
}

/** Ghost's visibility settings: the old form (`showOnWeb`, `emailOnly`) or the new (`web`). */
function hiddenFromWeb(node: Node): boolean {
  const visibility = node.visibility as Node | undefined;
  if (!visibility || typeof visibility !== 'object') return false;
  if (visibility.showOnWeb === false || visibility.emailOnly === true) return true;
  const web = visibility.web as Node | undefined;
  return !!web && web.nonMember === false && web.memberSegment === '';
}

function figure(classes: string, inner: string, caption: unknown): string {
  const figcaption = str(caption).trim() ? `<figcaption>${str(caption)}</figcaption>` : '';
  return `<figure class="kg-card ${classes}">${inner}${figcaption}</figure>`;
}

function image(node: Node): string {
  const src = str(node.src).trim();
  if (!src) return '';
  const title = str(node.title) ? ` title="${escapeAttribute(str(node.title))}"` : '';
  const img = `<img src="${escapeAttribute(src)}" alt="${escapeAttribute(str(node.alt))}"${title}>`;
  return str(node.href) ? `<a href="${escapeAttribute(str(node.href))}">${img}</a>` : img;
}

/** A card (a decorator node, or a mobiledoc card by its lexical name) in Ghost's markup. */
function card(node: Node, hooks: EditorHooks): string {
  const type = str(node.type);
  if (NOT_SHOWN.has(type)) return '';
  if (hiddenFromWeb(node)) {
    hooks.emailOnly();
    return '';
  }
  const text = (field: string) => str(node[field]);
  switch (type) {
    case 'image': {
      const img = image(node);
      return img ? figure('kg-image-card', img, node.caption) : '';
    }
    case 'gallery': {
      const images = Array.isArray(node.images) ? (node.images as Node[]).map(image).join('') : '';
      return images
        ? figure('kg-gallery-card', `<div class="kg-gallery-container">${images}</div>`, node.caption)
        : '';
    }
    case 'horizontalrule':
      return '<hr>';
    case 'codeblock': {
      if (!text('code').trim()) return '';
      const language = text('language') ? ` class="language-${escapeAttribute(text('language'))}"` : '';
      const pre = `<pre><code${language}>${escapeText(text('code'))}</code></pre>`;
      return text('caption') ? figure('kg-code-card', pre, node.caption) : pre;
    }
    case 'html':
      // The HTML card's markers: the importer keeps what is between them as written.
      return text('html').trim() ? `<!--kg-card-begin: html-->${text('html')}<!--kg-card-end: html-->` : '';
    case 'markdown':
      return text('markdown').trim() ? markdownToHtml(text('markdown')) : '';
    case 'embed': {
      const url = text('url').trim();
      if (text('html').trim()) return figure('kg-embed-card', text('html'), node.caption);
      // Without the player's HTML: the URL, which the importer makes a player where it can.
      if (!url) return '';
      const caption = text('caption').trim() ? `<p><em>${text('caption')}</em></p>` : '';
      return `<p>${oembedMarker(url)}</p>${caption}`;
    }
    case 'bookmark': {
      const metadata = (node.metadata && typeof node.metadata === 'object' ? node.metadata : {}) as Node;
      const url = text('url') || str(metadata.url);
      if (!url) return '';
      return figure(
        'kg-bookmark-card',
        `<a class="kg-bookmark-container" href="${escapeAttribute(url)}"><div class="kg-bookmark-content">` +
          `<div class="kg-bookmark-title">${escapeText(str(metadata.title))}</div>` +
          `<div class="kg-bookmark-description">${escapeText(str(metadata.description))}</div></div></a>`,
        node.caption,
      );
    }
    case 'callout': {
      const emoji = text('calloutEmoji') ? `${escapeText(text('calloutEmoji'))} ` : '';
      return text('calloutText').trim() || emoji
        ? `<blockquote><p>${emoji}${text('calloutText')}</p></blockquote>`
        : '';
    }
    case 'product': {
      // As Ghost writes the card, for the importer's own reading of it (ghost-cards.ts).
      const count = Math.max(0, Math.min(5, Math.round(Number(node.productStarRating) || 0)));
      const star = (n: number) =>
        `<span class="kg-product-card-rating-star${n <= count ? ' kg-product-card-rating-active' : ''}"></span>`;
      const stars = node.productRatingEnabled
        ? `<div class="kg-product-card-rating">${[1, 2, 3, 4, 5].map(star).join('')}</div>`
        : '';
      const src = text('productImageSrc');
      const imageTag = src ? `<img class="kg-product-card-image" src="${escapeAttribute(src)}" alt="">` : '';
      const url = text('productUrl');
      const label = escapeText(text('productButton') || url);
      const button =
        node.productButtonEnabled && url
          ? `<a class="kg-product-card-button" href="${escapeAttribute(url)}">${label}</a>`
          : '';
      return (
        `<div class="kg-card kg-product-card">${imageTag}` +
        `<h4 class="kg-product-card-title">${text('productTitle')}</h4>${stars}` +
        `<div class="kg-product-card-description">${text('productDescription')}</div>${button}</div>`
      );
    }
    case 'toggle':
      return (
        `<div class="kg-card kg-toggle-card"><div class="kg-toggle-heading"><h4 class="kg-toggle-heading-text">` +
        `${text('heading')}</h4></div><div class="kg-toggle-content">${text('content')}</div></div>`
      );
    case 'button': {
      if (!text('buttonUrl')) return '';
      const label = escapeText(text('buttonText') || text('buttonUrl'));
      return `<p><a href="${escapeAttribute(text('buttonUrl'))}">${label}</a></p>`;
    }
    case 'video':
      return text('src')
        ? figure(
            'kg-video-card',
            `<video src="${escapeAttribute(text('src'))}" controls></video>`,
            node.caption,
          )
        : '';
    case 'audio':
      return text('src')
        ? `<div class="kg-card kg-audio-card"><audio src="${escapeAttribute(text('src'))}"></audio>` +
            `<div class="kg-audio-title">${escapeText(text('title'))}</div></div>`
        : '';
    case 'file':
      return text('src')
        ? '<div class="kg-card kg-file-card">' +
            `<a class="kg-file-card-container" href="${escapeAttribute(text('src'))}">` +
            `<div class="kg-file-card-title">${escapeText(text('fileTitle'))}</div>` +
            `<div class="kg-file-card-filename">${escapeText(text('fileName'))}</div>` +
            `<div class="kg-file-card-caption">${escapeText(text('fileCaption'))}</div></a></div>`
        : '';
    default: {
      // A card not known here (a header, a product, a signup form, one of a later Ghost): its text.
      hooks.unknown(type || '(no type)');
      const parts = TEXT_FIELDS.map((field) => str(node[field]).trim()).filter(Boolean);
      return parts
        .map((part) => (/<[a-z][^>]*>/i.test(part) ? `<div>${part}</div>` : `<p>${escapeText(part)}</p>`))
        .join('\n');
    }
  }
}

function textOfCard(node: Node): string {
  return TEXT_FIELDS.map((field) => str(node[field]).trim())
    .filter(Boolean)
    .join(' ');
}

// Built on first use: only a post with a Markdown card and no html needs it.
let markdownProcessor: ReturnType<typeof buildMarkdownProcessor> | undefined;

function buildMarkdownProcessor() {
  return unified()
    .use(remarkParse)
    .use(remarkGfm)
    .use(remarkRehype, { allowDangerousHtml: true })
    .use(rehypeRaw)
    .use(rehypeStringify)
    .freeze();
}

/** A Markdown card as the HTML Ghost made of it (in its markers, as Ghost writes it). */
function markdownToHtml(markdown: string): string {
  markdownProcessor ??= buildMarkdownProcessor();
  const html = String(markdownProcessor.processSync(markdown));
  return `<!--kg-card-begin: markdown-->${html}<!--kg-card-end: markdown-->`;
}

/**
 * HTML of a `mobiledoc` field (its JSON text): sections of text with markups, lists, images and
 * cards, each card as the lexical node Ghost maps it to. Throws when it is not JSON of a mobiledoc.
 */
export function mobiledocToHtml(json: string, hooks: EditorHooks): string {
  const doc = JSON.parse(json) as {
    sections?: unknown[];
    markups?: unknown[];
    atoms?: unknown[];
    cards?: unknown[];
  } | null;
  if (!doc || !Array.isArray(doc.sections)) throw new Error('no `sections`');
  const markups = (doc.markups ?? []) as unknown[][];
  const atoms = (doc.atoms ?? []) as unknown[][];
  const cards = (doc.cards ?? []) as unknown[][];
  const html: string[] = [];
  for (const section of doc.sections) {
    if (!Array.isArray(section)) continue;
    const [kind, tag] = section as [number, unknown];
    if (kind === 1) {
      const name = str(tag).toLowerCase();
      const inner = markers(section[2], markups, atoms, hooks);
      if (/^h[1-6]$|^p$/.test(name)) html.push(`<${name}>${inner}</${name}>`);
      else if (/^(?:blockquote|aside|pull-quote)$/.test(name))
        html.push(`<blockquote><p>${inner}</p></blockquote>`);
      else {
        hooks.unknown(`section ${name}`);
        html.push(`<p>${inner}</p>`);
      }
    } else if (kind === 2) html.push(card({ type: 'image', src: str(section[2]) }, hooks));
    else if (kind === 3) {
      const name = str(tag) === 'ol' ? 'ol' : 'ul';
      const items = Array.isArray(section[2]) ? (section[2] as unknown[]) : [];
      html.push(
        `<${name}>${items.map((item) => `<li>${markers(item, markups, atoms, hooks)}</li>`).join('')}</${name}>`,
      );
    } else if (kind === 10) {
      const [name, payload] = (cards[Number(tag)] ?? []) as [unknown, unknown];
      const type = CARD_NAMES[str(name)] ?? str(name);
      const data = payload && typeof payload === 'object' ? (payload as Node) : {};
      const node: Node = { ...data, type };
      if (type === 'embed' && data.type !== undefined) node.embedType = data.type;
      html.push(card(node, hooks));
    }
  }
  return html.filter(Boolean).join('\n');
}

/** A mobiledoc section's markers: `[0, opened markups, closed count, text]`, or an atom (`[1, …, index]`). */
function markers(list: unknown, markups: unknown[][], atoms: unknown[][], hooks: EditorHooks): string {
  if (!Array.isArray(list)) return '';
  let html = '';
  const open: string[] = [];
  for (const marker of list) {
    if (!Array.isArray(marker)) continue;
    const [type, opened, closed, value] = marker as [number, unknown, unknown, unknown];
    for (const index of Array.isArray(opened) ? (opened as number[]) : []) {
      const [tag, attributes] = (markups[index] ?? []) as [unknown, unknown];
      const name = str(tag).toLowerCase();
      if (name === 'a') {
        const attrs = Array.isArray(attributes) ? (attributes as unknown[]) : [];
        const at = attrs.indexOf('href');
        const href = at === -1 ? '' : str(attrs[at + 1]);
        html += `<a href="${escapeAttribute(href)}">`;
        open.push('a');
      } else {
        const bit = MARKUP_BITS[name];
        if (!bit) hooks.unknown(`markup ${name}`);
        const element = bit ? FORMATS.find(([b]) => b === bit)![1] : 'span';
        html += `<${element}>`;
        open.push(element);
      }
    }
    if (type === 1) {
      const [name, text] = (atoms[Number(value)] ?? []) as [unknown, unknown];
      if (name === 'soft-return') html += '<br>';
      else {
        hooks.unknown(`atom ${str(name)}`);
        html += escapeText(str(text));
      }
    } else html += escapeText(str(value));
    for (let n = typeof closed === 'number' ? closed : 0; n > 0 && open.length > 0; n--)
      html += `</${open.pop()}>`;
  }
  while (open.length > 0) html += `</${open.pop()}>`;
  return html;
}
