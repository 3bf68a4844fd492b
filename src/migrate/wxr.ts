import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { SyncError } from '../errors.js';

/** One WXR `<item>`, the fields cms-sync uses (all text, entities decoded). */
export interface WxrItem {
  id: string;
  title: string;
  type: string;
  status: string;
  slug: string;
  parent: string;
  dateGmt: string;
  date: string;
  creator: string;
  content: string;
  excerpt: string;
  attachmentUrl: string;
  /** `wp:post_mime_type` (an attachment's `image/jpeg`), when the export has it. */
  mimeType: string;
  /** `wp:menu_order`: where an attachment comes in its post's gallery. */
  menuOrder: string;
  password: string;
  /** The permalink on the old site. */
  link: string;
  /** `http://site/?p=<id>`, the address that never changes. */
  guid: string;
  /** `<wp:is_sticky>1`: pinned to the top of the blog. */
  sticky: boolean;
  /** `<category domain="category|post_tag" nicename="...">Name</category>`, in order. */
  terms: Array<{ domain: string; slug: string; name: string }>;
  meta: Record<string, string>;
  /** Every `_wp_old_slug` and `_wp_old_date` of the post (a post renamed twice has two). */
  oldSlugs: string[];
  oldDates: string[];
  comments: number;
}

export interface WxrAuthor {
  login: string;
  email: string;
  displayName: string;
  firstName: string;
  lastName: string;
}

export interface WxrCategory {
  slug: string;
  name: string;
  parent: string;
  description: string;
  /** `wp:term_id`: what post meta names a category by (Yoast's primary category). */
  id: string;
}

export interface WxrChannel {
  version: string;
  /** Where relative URLs in content point: `wp:base_blog_url`, else `link`. */
  baseUrl: string;
  /** Every address the old site is known by (`link`, `wp:base_site_url`, `wp:base_blog_url`). */
  siteUrls: string[];
  authors: WxrAuthor[];
  categories: WxrCategory[];
  /** `wp:term` entries: terms of custom taxonomies, which have no place in cms-sync. */
  otherTerms: number;
  /** The channel's `<language>` (`en-US`): the site's language, and its default one for Polylang and WPML. */
  language: string;
}

const REPEATED = new Set([
  'category',
  'wp:postmeta',
  'wp:comment',
  'wp:author',
  'wp:category',
  'wp:tag',
  'wp:term',
  'item',
]);

// Values stay text (`parseTagValue: false`): a slug `2024` or an id `007` must not become a
// number. Entities are decoded in text and attributes (`&amp;`, `&#8217;`, and HTML's named
// ones, which WordPress writes into titles); CDATA is taken as it is.
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: true,
  isArray: (name) => REPEATED.has(name),
});

/** Where a parse problem is in the file: `file:line:column: message`, thrown as bad input. */
export function validateXml(text: string, where: { file: string; line: number; column: number }): void {
  const result = XMLValidator.validate(text);
  if (result === true) return;
  // The validator counts from the start of the text it was given (one item): back to the file.
  const inFile = (line: number, col: number) => ({
    line: where.line + line - 1,
    column: line === 1 ? where.column + col - 1 : col,
  });
  const at = inFile(result.err.line, result.err.col);
  const msg = result.err.msg.replace(/\(opened in line (\d+), col (\d+)\)/, (_m, l: string, c: string) => {
    const opened = inFile(Number(l), Number(c));
    return `(opened in line ${opened.line}, col ${opened.column})`;
  });
  throw new SyncError(
    'CMS_SYNC_INPUT',
    `${where.file}:${at.line}:${at.column}: ${msg} (the export is not well-formed XML; nothing was written)`,
  );
}

type Node = Record<string, unknown>;

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value && typeof value === 'object' && '#text' in value) return text((value as Node)['#text']);
  return '';
}

function list(value: unknown): Node[] {
  return Array.isArray(value) ? (value.filter((v) => v && typeof v === 'object') as Node[]) : [];
}

export function parseItem(xml: string): WxrItem {
  const item = ((parser.parse(xml) as Node).item as Node[] | undefined)?.[0] ?? {};
  const meta: Record<string, string> = {};
  const oldSlugs: string[] = [];
  const oldDates: string[] = [];
  for (const m of list(item['wp:postmeta'])) {
    const key = text(m['wp:meta_key']);
    const value = text(m['wp:meta_value']);
    meta[key] = value;
    if (key === '_wp_old_slug' && value) oldSlugs.push(value);
    else if (key === '_wp_old_date' && value) oldDates.push(value);
  }
  return {
    id: text(item['wp:post_id']),
    title: text(item.title),
    type: text(item['wp:post_type']),
    status: text(item['wp:status']),
    slug: text(item['wp:post_name']),
    parent: text(item['wp:post_parent']),
    dateGmt: text(item['wp:post_date_gmt']),
    date: text(item['wp:post_date']),
    creator: text(item['dc:creator']),
    content: text(item['content:encoded']),
    excerpt: text(item['excerpt:encoded']),
    attachmentUrl: text(item['wp:attachment_url']),
    mimeType: text(item['wp:post_mime_type']),
    menuOrder: text(item['wp:menu_order']),
    password: text(item['wp:post_password']),
    link: text(item.link),
    guid: text(item.guid),
    sticky: text(item['wp:is_sticky']) === '1',
    terms: list(item.category).map((c) => ({
      domain: text(c.domain),
      slug: text(c.nicename),
      name: text(c),
    })),
    meta,
    oldSlugs,
    oldDates,
    comments: list(item['wp:comment']).length,
  };
}

export function parseChannel(skeleton: string): WxrChannel {
  const rss = (parser.parse(skeleton) as Node).rss as Node | undefined;
  const channel = (rss?.channel ?? {}) as Node;
  return {
    version: text(channel['wp:wxr_version']),
    baseUrl: text(channel['wp:base_blog_url']) || text(channel.link) || text(channel['wp:base_site_url']),
    siteUrls: [
      text(channel.link),
      text(channel['wp:base_site_url']),
      text(channel['wp:base_blog_url']),
    ].filter(Boolean),
    authors: list(channel['wp:author']).map((a) => ({
      login: text(a['wp:author_login']),
      email: text(a['wp:author_email']),
      displayName: text(a['wp:author_display_name']),
      firstName: text(a['wp:author_first_name']),
      lastName: text(a['wp:author_last_name']),
    })),
    otherTerms: list(channel['wp:term']).filter(
      (t) => !TRANSLATION_TAXONOMIES.has(text(t['wp:term_taxonomy'])),
    ).length,
    language: text(channel.language),
    categories: list(channel['wp:category']).map((c) => ({
      slug: text(c['wp:category_nicename']),
      name: text(c['wp:cat_name']),
      parent: text(c['wp:category_parent']),
      description: text(c['wp:category_description']),
      id: text(c['wp:term_id']),
    })),
  };
}

/**
 * Polylang's taxonomies: an item's language (`language`, read: see wp-languages.ts) and its
 * translation group (`post_translations`), and the same for terms. None is a custom taxonomy of
 * the site's to report as skipped.
 */
export const TRANSLATION_TAXONOMIES: ReadonlySet<string> = new Set([
  'language',
  'post_translations',
  'term_language',
  'term_translations',
]);

/** Cheap look at an item's type, without parsing it (the first pass only needs attachments). */
export function itemType(xml: string): string {
  const m = /<wp:post_type>\s*(?:<!\[CDATA\[)?\s*([^<\]\s]*)/.exec(xml);
  return m?.[1] ?? '';
}

/**
 * An item without its body, excerpt and comments: what the first pass needs (type, status,
 * slug, title, addresses) at a fraction of the parsing.
 */
export function parseItemHead(xml: string): WxrItem {
  let head = xml;
  for (const tag of ['content:encoded', 'excerpt:encoded']) {
    const start = head.indexOf(`<${tag}>`);
    const end = start === -1 ? -1 : head.indexOf(`</${tag}>`, start);
    if (end !== -1) head = head.slice(0, start) + head.slice(end + tag.length + 3);
  }
  return parseItem(head.replace(/<wp:comment>[\s\S]*?<\/wp:comment>/g, ''));
}
