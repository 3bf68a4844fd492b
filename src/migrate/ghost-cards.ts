import type { Element, ElementContent, Root } from 'hast';
import { fromHtml } from 'hast-util-from-html';
import { toHtml } from 'hast-util-to-html';
import { classesOf, elements, textOf } from './embeds.js';

/**
 * Ghost's cards whose markup is a widget, not content: a bookmark (a link to another page, shown
 * with its title, description, favicon and thumbnail), a toggle (a question that opens on a click,
 * with a chevron icon), a file (a download, with its size and an icon) and a callout (a box with
 * an emoji), which becomes a quote, a product (its rating drawn by icons: stars in text), and an
 * NFT (a marketplace's token, read as a bookmark). Converted as markup,
 * they would run a favicon into the link's text, upload other sites' thumbnails (one unreachable
 * fails the post at sync) and keep icons as embeds. Each becomes what a reader takes from it: the
 * link with its title in bold and its description; the question in bold and its answer; the
 * download's link and caption.
 */
export function ghostCards(html: string): string {
  if (!/kg-(?:bookmark|toggle|file|callout|product|nft)-card/.test(html)) return html;
  const tree: Root = fromHtml(html, { fragment: true });
  replaceCards(tree);
  return toHtml(tree);
}

function replaceCards(parent: Root | Element): void {
  parent.children = parent.children.flatMap((child): ElementContent[] => {
    if (child.type !== 'element') return [child as ElementContent];
    const classes = classesOf(child);
    if (classes.includes('kg-bookmark-card')) return bookmark(child);
    if (classes.includes('kg-toggle-card')) return toggle(child);
    if (classes.includes('kg-file-card')) return file(child);
    if (classes.includes('kg-callout-card')) return callout(child);
    if (classes.includes('kg-product-card')) return product(child);
    if (classes.includes('kg-nft-card')) return nft(child);
    replaceCards(child);
    return [child];
  });
}

function bookmark(card: Element): ElementContent[] {
  const href = hrefOf(card, 'kg-bookmark-container');
  const title = textIn(card, 'kg-bookmark-title') || href;
  // A card whose link was lost (edited HTML, an old export) still keeps what it said.
  return [
    ...optional(title, (text) => paragraph([linkOrText(href, [strong(text)])])),
    ...optional(textIn(card, 'kg-bookmark-description'), (text) =>
      paragraph([{ type: 'text', value: text }]),
    ),
    ...caption(card),
  ];
}

/**
 * An NFT card (a token on a marketplace: its picture, title, creator and description, all one
 * link): read as a bookmark is, the link with the title in bold, then who made it and what it is.
 * Its picture is left out: it is the marketplace's, on a host that may be gone, and an unreachable
 * one would fail the post at sync, as a bookmark's thumbnail would.
 */
function nft(card: Element): ElementContent[] {
  const href = hrefOf(card, 'kg-nft-card-container');
  const title = textIn(card, 'kg-nft-title') || href;
  return [
    ...optional(title, (text) => paragraph([linkOrText(href, [strong(text)])])),
    // `Created by <name>&bull; Ethereum`: the theme's CSS spaced the bullet.
    ...optional(textIn(card, 'kg-nft-creator').replace(/\s*•\s*/g, ' • '), (text) =>
      paragraph([{ type: 'text', value: text }]),
    ),
    ...optional(textIn(card, 'kg-nft-description'), (text) => paragraph([{ type: 'text', value: text }])),
    ...caption(card),
  ];
}

function toggle(card: Element): ElementContent[] {
  const heading = textIn(card, 'kg-toggle-heading-text');
  const content = [...elements(card)].find((e) => classesOf(e).includes('kg-toggle-content'));
  if (content) replaceCards(content);
  return [...optional(heading, (text) => paragraph([strong(text)])), ...(content?.children ?? [])];
}

/** A callout (a coloured box with an emoji): a quote, the emoji heading its text, as the lexical card is written. */
function callout(card: Element): ElementContent[] {
  const emoji = textIn(card, 'kg-callout-emoji');
  const body = [...elements(card)].find((e) => classesOf(e).includes('kg-callout-text'));
  if (body) replaceCards(body);
  const children: ElementContent[] = [
    ...(emoji ? [{ type: 'text' as const, value: `${emoji} ` }] : []),
    ...(body?.children ?? []),
  ];
  if (!emoji && !body?.children.length) return [];
  return [{ type: 'element', tagName: 'blockquote', properties: {}, children: [paragraph(children)] }];
}

/**
 * A product card (a review's product: its picture, name, star rating, description and a button):
 * the picture, the name in bold, the rating as stars in text (its icons are drawn by the theme's
 * CSS, which the CMS has not: bare, they would show five large black stars alike), the
 * description, and the button as a link.
 */
function product(card: Element): ElementContent[] {
  const all = [...elements(card)];
  const image = all.find((e) => e.tagName === 'img' && classesOf(e).includes('kg-product-card-image'));
  const stars = all.filter((e) => classesOf(e).includes('kg-product-card-rating-star'));
  const on = stars.filter((e) => classesOf(e).includes('kg-product-card-rating-active')).length;
  const description = all.find((e) => classesOf(e).includes('kg-product-card-description'));
  if (description) replaceCards(description);
  const buttonText = textIn(card, 'kg-product-card-button');
  const href = hrefOf(card, 'kg-product-card-button');
  const title = textIn(card, 'kg-product-card-title');
  // The picture of the product is described by its name when it says nothing itself.
  if (image && !image.properties.alt && title) image.properties.alt = title;
  return [
    ...(image ? [paragraph([image])] : []),
    ...optional(title, (text) => paragraph([strong(text)])),
    ...(stars.length > 0
      ? [
          paragraph([
            {
              type: 'text',
              value: `${'★'.repeat(on)}${'☆'.repeat(stars.length - on)} (${on}/${stars.length})`,
            },
          ]),
        ]
      : []),
    ...(description?.children ?? []),
    ...(href && buttonText ? [paragraph([link(href, [{ type: 'text', value: buttonText }])])] : []),
  ];
}

function file(card: Element): ElementContent[] {
  const href = hrefOf(card, 'kg-file-card-container');
  const title = textIn(card, 'kg-file-card-title') || textIn(card, 'kg-file-card-filename') || href;
  return [
    ...optional(title, (text) => paragraph([linkOrText(href, [{ type: 'text', value: text }])])),
    ...optional(textIn(card, 'kg-file-card-caption'), (text) =>
      paragraph([
        { type: 'element', tagName: 'em', properties: {}, children: [{ type: 'text', value: text }] },
      ]),
    ),
  ];
}

function hrefOf(card: Element, className: string): string {
  const a = [card, ...elements(card)].find((e) => e.tagName === 'a' && classesOf(e).includes(className));
  return typeof a?.properties.href === 'string' ? a.properties.href : '';
}

function textIn(card: Element, className: string): string {
  const found = [...elements(card)].find((e) => classesOf(e).includes(className));
  return found ? textOf(found).replace(/\s+/g, ' ').trim() : '';
}

/** The card's own caption, kept as the converter keeps any figure's (a figcaption). */
function caption(card: Element): ElementContent[] {
  return [...elements(card)].filter((e) => e.tagName === 'figcaption');
}

function optional(text: string, make: (text: string) => ElementContent): ElementContent[] {
  return text ? [make(text)] : [];
}

function paragraph(children: ElementContent[]): Element {
  return { type: 'element', tagName: 'p', properties: {}, children };
}

function link(href: string, children: ElementContent[]): Element {
  return { type: 'element', tagName: 'a', properties: { href }, children };
}

function linkOrText(href: string, children: ElementContent[]): ElementContent {
  return href ? link(href, children) : (children[0] as ElementContent);
}

function strong(text: string): Element {
  return { type: 'element', tagName: 'strong', properties: {}, children: [{ type: 'text', value: text }] };
}
