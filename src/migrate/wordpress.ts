import { existsSync } from 'node:fs';
import { detach } from './detach.js';
import { FLATTENED } from './deep-html.js';
import { protectEmbeds } from './embeds.js';
import { htmlBlockMarker } from './html-block.js';
import { templatesAsText } from '../render/templates/expand-templates.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { convertExtras, wordpressTexturize } from './markdown-extras.js';
import { OldSiteLinks, rewriteLink, type LinkFolder, type OldSiteOptions } from './old-links.js';
import type { MigrationReport } from './report.js';
import { codeShortcodes, expandShortcodes, mediaKind, type MediaKind } from './shortcodes.js';
import { defaultLanguage, itemLanguage } from './wp-languages.js';
import { decodeSlug, slugify } from './slug.js';
import { translatedSlug } from '../source/languages.js';
import { decodeEntities, plainText } from './text.js';
import { assignSlugs, reportRenamed } from './unique-slugs.js';
import { ContentWriter } from './write-content.js';
import { autoEmbed, isBlockContent, stripBlockComments, wpautop } from './wpautop.js';
import {
  itemType,
  parseChannel,
  parseItem,
  parseItemHead,
  validateXml,
  TRANSLATION_TAXONOMIES,
  type WxrChannel,
  type WxrItem,
} from './wxr.js';
import { readXmlItems, type ItemScan } from './xml-items.js';
import type { ImportOptions } from './import-options.js';

export type { ImportOptions } from './import-options.js';

const DRAFT_STATUSES = new Set(['draft', 'pending', 'private', 'future', 'auto-draft']);
/** Statuses whose items are not imported at all. */
const NOT_IMPORTED = new Set(['trash', 'auto-draft']);
/** Item types that are not content records, and why they are skipped. */
const SKIPPED_TYPES: Record<string, string> = {
  attachment: 'attachments (media stay at their URLs; cms-sync uploads the ones posts use)',
  nav_menu_item: 'menu items (menus are not content records)',
  revision: 'revisions (only the current version is imported)',
  wp_block: 'reusable blocks as items (their content is put in the posts that use them)',
  wp_template: 'theme templates',
  wp_template_part: 'theme template parts',
  wp_global_styles: 'global styles',
  wp_navigation: 'navigation menus',
  custom_css: 'custom CSS',
};

/**
 * What a WordPress export becomes (front matter keys cms-sync does not send are marked *;
 * `plan` warns about them unless resources.<resource>.passThrough lists them):
 *
 * - post -> articles/<slug>.md: title, date (wp:post_date_gmt, else the site-local date),
 *   `draft: true` for draft/pending/private/future and password-protected posts (published
 *   posts get no key: the config's statusMap.published applies), category (the first
 *   category's slug), tags* (other categories, then tags, as slugs), excerpt*, sticky*,
 *   description* (Yoast SEO's or Rank Math's meta description),
 *   featured_image* (the `_thumbnail_id` attachment's URL) and featured_image_alt*, author* (the login).
 * - page -> pages/<slug>.md: title, `draft: true` as for posts, description*, parent* (the slug
 *   of its parent page).
 * - A post or page in another language (Polylang, WPML) than the default one -> its translation,
 *   `<slug>-<lang>.md` with `slug` and `lang` (see translations).
 * - A slug already taken by an earlier item of the same folder gets `-2`, `-3`... (reported).
 * - Embeds (players, gists, audio, video, auto-embedded URLs) are kept (embeds.ts); links to
 *   imported posts and pages are rewritten to their new paths (old-links.ts).
 * - category -> categories/<slug>.md: name, description, parent* (the parent's slug).
 * - author -> users/<login>.md: name (display name, else first + last, else login), email.
 *
 * WordPress WXR (1.1, 1.2) -> content/ files. Two streaming passes over the file: the first
 * checks that it is well-formed (nothing is written when it is not) and builds the small indexes
 * that items need of each other (slugs, old addresses, attachments); the second converts and
 * writes one item at a time. Memory follows those indexes, not the size of the export.
 */
export async function importWordPress(options: ImportOptions & OldSiteOptions): Promise<void> {
  const writer = new ContentWriter({
    projectDir: options.projectDir,
    contentDir: options.contentDir,
    force: options.force,
    report: options.report,
    exists: existsSync,
  });
  const index = await indexExport(options, writer);
  let done = 0;
  // The records in export order: `next` is the first one not yet reached.
  let next = 0;
  for await (const item of readXmlItems(options.absPath, undefined, { name: options.file })) {
    done++;
    const slug = index.records.position[next] === done ? index.records.slug[next++] : undefined;
    let parsed: WxrItem | undefined;
    try {
      parsed = parseItem(item.text);
      await importItem(parsed, slug, index);
    } catch (error) {
      const label = parsed ? `${parsed.type || 'item'} ${parsed.id} "${parsed.title}"` : 'item';
      options.report.failures.push(
        detach(
          `${options.file}:${item.line}:${item.column}: ${label} could not be converted: ${(error as Error).message}`,
        ),
      );
    }
    options.onProgress?.(done, index.total);
  }
  await writer.flush();
}

/** What the conversion of one item needs from the rest of the export. */
interface ItemContext {
  writer: ContentWriter;
  report: MigrationReport;
  /** Items in the export. */
  total: number;
  records: Records;
  attachments: Map<string, string>;
  attachmentAlt: Map<string, string>;
  childAttachments: Map<string, string[]>;
  /** Attachments that are images, audio or video, by id (a PDF has none). */
  attachmentKind: Map<string, MediaKind>;
  /** Attachments' menu order, for those that have one. */
  attachmentOrder: Map<string, number>;
  /** Audio and video attachments' titles (text), for `[playlist]`. */
  attachmentTitle: Map<string, string>;
  resolveUrl: (url: string) => string | undefined;
  links: OldSiteLinks;
  /** Category slugs with a file; a post's category missing from the channel gets one too. */
  knownCategories: Set<string>;
  /** Reusable blocks (synced patterns) by id: their content, put in each post that uses one. */
  /** A reusable block's content by id, or why WordPress showed nothing for it. */
  reusableBlocks: Map<string, string | { hidden: string }>;
  /** Category slugs by term id. */
  categoryById: Map<string, string>;
  /** The site's default language (see wp-languages.ts): its items keep their slugs, others are translations. */
  defaultLanguage: string | undefined;
}

/**
 * The posts and pages to import, in export order, as the first pass keeps them: numbers and
 * short strings only, since an export may hold 100,000 of them. Record `n` is
 * `folder[n]/slug[n]`, the item at `position[n]` (from 1); its old addresses are in the links.
 */
interface Records {
  position: number[];
  folder: LinkFolder[];
  /** The slug asked for (the export's, or one made from the title); after the first pass, the one given. */
  slug: string[];
  /** The record's language, one string per language (see wp-languages.ts). */
  lang: Array<string | undefined>;
  /** Pages by post id: a page's parent (`wp:post_parent`) is another page. */
  pageById: Map<string, number>;
}

/**
 * Pass 1, then the channel's own records (categories, authors). Nothing read here is kept past
 * the indexes it returns; every string that is kept is detached from the text of its item.
 */
async function indexExport(
  options: ImportOptions & OldSiteOptions,
  writer: ContentWriter,
): Promise<ItemContext> {
  const { report } = options;
  const where = { file: options.file };
  const attachments = new Map<string, string>();
  const attachmentAlt = new Map<string, string>();
  const childAttachments = new Map<string, string[]>();
  const attachmentKind = new Map<string, MediaKind>();
  const attachmentOrder = new Map<string, number>();
  const attachmentTitle = new Map<string, string>();
  const reusableBlocks = new Map<string, string | { hidden: string }>();
  const records: Records = { position: [], folder: [], slug: [], lang: [], pageById: new Map() };
  /** Items by language (Polylang, WPML); languages that are no language tag. */
  const languages = new Map<string, { lang: string; count: number }>();
  const notLanguages = new Map<string, number>();
  // Old addresses are added as they are read; hosts (from the channel, read last) matter only to
  // the links being rewritten.
  const links = new OldSiteLinks(options.linkPath);
  // The channel without the items' lines: one that is not well-formed is read again with them.
  const scan: ItemScan = { skeleton: '', lines: false };
  let total = 0;
  for await (const item of readXmlItems(options.absPath, scan, { name: options.file })) {
    validateXml(item.text, { ...where, line: item.line, column: item.column });
    total++;
    const type = itemType(item.text);
    if (type === 'post' || type === 'page') {
      const head = parseItemHead(item.text);
      if (NOT_IMPORTED.has(head.status)) continue;
      const language = itemLanguage(head);
      let lang: string | undefined;
      if (language && 'invalid' in language) {
        const slug = detach(language.invalid);
        notLanguages.set(slug, (notLanguages.get(slug) ?? 0) + 1);
      } else if (language) {
        // One string per language, not a view into each item's text.
        const known = languages.get(language.lang);
        lang = known?.lang ?? detach(language.lang);
        languages.set(lang, { lang, count: (known?.count ?? 0) + 1 });
      }
      addRecord(records, links, total, head, lang, pagesOf(item.text));
      continue;
    }
    if (type === 'wp_block') {
      const block = parseItem(item.text);
      // WordPress shows a block only while it is published and has no password: else nothing.
      const hidden =
        block.status !== 'publish'
          ? `is not published (status \`${block.status || 'none'}\`), so the old site showed nothing there`
          : block.password
            ? 'has a password, so the old site showed nothing there'
            : undefined;
      reusableBlocks.set(detach(block.id), hidden ? { hidden: detach(hidden) } : detach(block.content));
      continue;
    }
    if (type !== 'attachment') continue;
    const attachment = parseItem(item.text);
    if (!attachment.attachmentUrl) continue;
    const id = detach(attachment.id);
    attachments.set(id, detach(attachment.attachmentUrl));
    const alt = attachment.meta._wp_attachment_image_alt?.trim();
    if (alt) attachmentAlt.set(id, detach(alt));
    const kind = mediaKind(attachment.mimeType, attachment.attachmentUrl);
    if (kind) attachmentKind.set(id, kind);
    const title = kind && kind !== 'image' ? titleOf(attachment).text : '';
    if (title) attachmentTitle.set(id, detach(title));
    const menuOrder = Number(attachment.menuOrder);
    if (menuOrder && Number.isInteger(menuOrder)) attachmentOrder.set(id, menuOrder);
    if (attachment.parent && attachment.parent !== '0') {
      const parent = detach(attachment.parent);
      const children = childAttachments.get(parent);
      if (children) children.push(id);
      else childAttachments.set(parent, [id]);
    }
  }
  try {
    validateXml(scan.skeleton, { ...where, line: 1, column: 1 });
  } catch (error) {
    await validateChannel(options);
    throw error;
  }
  const channel = parseChannel(scan.skeleton);
  if (!channel.version && total === 0)
    report.warnOnce(
      `${options.file} has no wp:wxr_version and no items: is it a WordPress export (Tools > Export)?`,
    );

  const base = detach(channel.baseUrl.replace(/\/+$/, ''));
  const resolveUrl = (url: string): string | undefined => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('#') || !base) return url;
    try {
      return new URL(url, `${base}/`).href;
    } catch {
      return url;
    }
  };

  for (const url of channel.siteUrls) links.addSite(url);
  const siteLanguage = translations(records, languages, notLanguages, channel.language, report);
  records.slug = assignSlugs(records.folder, records.slug);
  links.resolveRecords((n) => links.pathOf(records.folder[n]!, records.slug[n]!));

  if (channel.otherTerms) report.skip('terms of custom taxonomies (wp:term)', channel.otherTerms);
  const knownCategories = await writeChannelRecords(channel, writer, report);
  return {
    writer,
    report,
    total,
    records,
    attachments,
    attachmentAlt,
    childAttachments,
    attachmentKind,
    attachmentOrder,
    attachmentTitle,
    resolveUrl,
    links,
    knownCategories,
    reusableBlocks,
    categoryById: new Map(channel.categories.map((c) => [detach(c.id), detach(decodeSlug(c.slug))])),
    defaultLanguage: siteLanguage,
  };
}

/**
 * The languages of a Polylang or WPML site (see wp-languages.ts): each post or page in another
 * language than the site's default one is a translation, written as the static importers write one
 * (`slug:` without the language, `lang:`), so that sync keys it `<slug>-<lang>`; its slug asked for
 * here is that key, so two translations with one slug (Polylang allows it across languages) do not
 * clash. Returns the default language.
 */
function translations(
  records: Records,
  languages: ReadonlyMap<string, { count: number }>,
  notLanguages: ReadonlyMap<string, number>,
  siteLanguage: string,
  report: MigrationReport,
): string | undefined {
  for (const [slug, count] of notLanguages)
    report.warnings.push(
      detach(
        `language \`${slug}\` is not a language tag such as en or pt-br: its ` +
          `${count === 1 ? 'post or page is' : `${count} posts and pages are`} imported without a language`,
      ),
    );
  const siteDefault = defaultLanguage(
    new Map([...languages].map(([lang, { count }]) => [lang, count])),
    siteLanguage,
  );
  if (siteDefault === undefined) return undefined;
  const site = { default: siteDefault };
  let translated = 0;
  for (let n = 0; n < records.slug.length; n++) {
    const lang = records.lang[n];
    if (lang === undefined || lang === siteDefault) continue;
    records.slug[n] = translatedSlug(records.slug[n]!, lang, site);
    translated++;
  }
  if (translated === 0) return siteDefault;
  report.convert(
    detach(
      `translations (Polylang, WPML) out of the default language \`${siteDefault}\`, written with \`lang:\` ` +
        '(sync keys each `<slug>-<lang>`)',
    ),
    translated,
  );
  if (siteDefault !== 'en')
    report.warnings.push(
      detach(
        `the site's default language is \`${siteDefault}\`: set \`languages: { default: '${siteDefault}' }\` in ` +
          `sync.config.ts, so that its translations keep their keys`,
      ),
    );
  return siteDefault;
}

/** Throws where the channel (the export outside its items) is not well-formed XML. */
async function validateChannel(options: ImportOptions): Promise<void> {
  const scan: ItemScan = { skeleton: '' };
  for await (const item of readXmlItems(options.absPath, scan, { name: options.file })) void item;
  validateXml(scan.skeleton, { file: options.file, line: 1, column: 1 });
}

/** Categories (with their parent), then users: the records posts point at. */
async function writeChannelRecords(
  channel: WxrChannel,
  writer: ContentWriter,
  report: MigrationReport,
): Promise<Set<string>> {
  const knownCategories = new Set<string>();
  for (const category of channel.categories) {
    const slug = detach(decodeSlug(category.slug) || slugify(decodeEntities(category.name)));
    knownCategories.add(slug);
    const name = decodeEntities(category.name) || slug;
    const fm: Record<string, unknown> = { name };
    if (category.description) fm.description = decodeEntities(category.description);
    if (category.parent) fm.parent = detach(decodeSlug(category.parent));
    await writer.write('categories', slug, fm, '', `category \`${slug}\``);
  }
  for (const author of channel.authors) {
    if (!author.login) continue;
    const name =
      decodeEntities(author.displayName) ||
      [author.firstName, author.lastName].filter(Boolean).join(' ') ||
      author.login;
    const fm: Record<string, unknown> = { name };
    if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(author.email)) fm.email = author.email;
    else if (author.email)
      report.warnings.push(
        detach(`author ${author.login}: email \`${author.email}\` is not an address; left out`),
      );
    await writer.write(
      'users',
      detach(author.login.normalize('NFC')),
      fm,
      '',
      detach(`author ${author.login}`),
    );
  }
  return knownCategories;
}

/**
 * An HTML tag in a title. `[^<>]` ends the match at the next bracket: each character is read once
 * or twice, however many unclosed `<a` a title holds.
 */
const TITLE_TAG = /<\/?[a-z][\w:-]*(?:\s[^<>]*)?>/gi;

/**
 * The item's title as text. WordPress's titles are HTML that themes print as it is (a book's title
 * in `<em>`, `H<sub>2</sub>O`): the CMS's title is text, so the tags go (a `<br>` is a space) and
 * the entities are decoded. `markup` says whether there were tags.
 */
function titleOf(item: WxrItem): { text: string; markup: boolean } {
  if (!item.title.includes('<')) return { text: decodeEntities(item.title).trim(), markup: false };
  const stripped = item.title.replace(/<br\b[^<>]*>/gi, ' ').replace(TITLE_TAG, '');
  if (stripped === item.title) return { text: decodeEntities(item.title).trim(), markup: false };
  return { text: decodeEntities(stripped).replace(/\s+/g, ' ').trim(), markup: true };
}

/**
 * A title for an item WordPress showed without one (an aside or a status update, whose theme
 * prints no title): the CMS needs one, and the first words of its text say more than its slug
 * (WordPress names such a post by its id). Empty for an item with no text either.
 */
function untitled(item: WxrItem, label: string, report: MigrationReport): string {
  const words = firstWords(item.content);
  if (!words) return '';
  const title = wordpressTexturize(words).text;
  report.warnings.push(detach(`${label} has no title; titled with the first words of its text: "${title}"`));
  return title;
}

/** The first sentence of a body's text, when short, else its first words up to about 60 characters. */
function firstWords(html: string): string {
  const text = plainText(html.replace(/\[[^\]\n]*\]/g, ' '));
  if (!text) return '';
  const sentence = /^(.{1,80}?[.!?…])(?=\s|$)/u.exec(text)?.[1];
  if (sentence) return sentence;
  if (text.length <= 60) return text;
  const cut = text.slice(0, 60);
  const space = cut.lastIndexOf(' ');
  return `${(space > 20 ? cut.slice(0, space) : cut).replace(/[\s,;:–—-]+$/u, '')}…`;
}

function labelOf(item: WxrItem): string {
  return detach(`${item.type} ${item.id} "${titleOf(item).text}"`);
}

function slugOf(item: WxrItem): string {
  return decodeSlug(item.slug) || slugify(titleOf(item).text) || `${item.type}-${item.id}`;
}

function folderOf(item: WxrItem): LinkFolder {
  return item.type === 'page' ? 'pages' : 'articles';
}

/**
 * A post or page to import, and its old addresses (permalink, guid, `?p=<id>`). Each gets its
 * slug before any is converted, so that a link to a post later in the file is rewritten too.
 */
function addRecord(
  records: Records,
  links: OldSiteLinks,
  position: number,
  item: WxrItem,
  lang: string | undefined,
  pages: number,
): void {
  const n = records.position.length;
  links.addRecord([item.link, item.guid, `?p=${item.id}`], n);
  // Page 2 and on of a post split by <!--nextpage--> (`<permalink>/2/`): one page here.
  // A plain permalink's pages (`?p=12&page=2`) are the post's `?p=12` already.
  if (pages > 1 && URL.canParse(item.link) && !/[?#]/.test(item.link)) {
    const permalink = item.link.replace(/\/*$/, '/');
    const numbered = Array.from(
      { length: Math.min(pages, MAX_PAGES) - 1 },
      (_, i) => `${permalink}${i + 2}/`,
    );
    links.addRedirects(numbered, [], n);
  }
  // A hostile export's thousand old slugs cost no more than a few.
  const oldSlugs = item.oldSlugs.slice(0, MAX_OLD_ADDRESSES);
  const oldDates = item.oldDates.slice(0, MAX_OLD_ADDRESSES);
  links.addRedirects(oldPermalinks(item, oldSlugs, oldDates), item.slug ? [item.slug, ...oldSlugs] : [], n);
  records.position.push(position);
  if (item.type === 'page') records.pageById.set(detach(item.id), n);
  records.folder.push(folderOf(item));
  records.slug.push(detach(slugOf(item)));
  records.lang.push(lang);
}

const MAX_OLD_ADDRESSES = 10;

/** How many pages `<!--nextpage-->` splits an item's body into (1 for a body it does not split). */
function pagesOf(itemXml: string): number {
  let pages = 1;
  for (let at = itemXml.indexOf(NEXT_PAGE); at !== -1; at = itemXml.indexOf(NEXT_PAGE, at + 1)) pages++;
  return pages;
}

const NEXT_PAGE = '<!--nextpage-->';
/** Pages of a split post whose addresses are kept: a hostile export's thousand cost no more. */
const MAX_PAGES = 100;

/**
 * The post's permalink as it was under each old slug (`_wp_old_slug`) and old date
 * (`_wp_old_date`), which WordPress redirects to the post: the slug and the date are replaced in
 * the permalink (`/2023/05/old-slug/`). A permalink without the slug (`?p=12`) has no such forms.
 */
function oldPermalinks(item: WxrItem, oldSlugs: string[], oldDates: string[]): string[] {
  if ((!oldSlugs.length && !oldDates.length) || !item.slug || !URL.canParse(item.link)) return [];
  const url = new URL(item.link);
  const segments = url.pathname.split('/');
  const slugAt = segments.lastIndexOf(item.slug);
  if (slugAt === -1) return [];
  // The date's parts where the permalink has them (`/%year%/%monthnum%/%day%/`), before the slug.
  const [year, month, day] = /^(\d{4})-(\d{2})-(\d{2})/.exec(item.date)?.slice(1) ?? [];
  const yearAt = year ? segments.indexOf(year) : -1;
  const datesOf = (date: string): string[] | undefined => {
    const parts = /^(\d{4})-(\d{2})-(\d{2})/.exec(date)?.slice(1);
    if (!parts || yearAt === -1 || yearAt > slugAt) return undefined;
    const dated = [...segments];
    dated[yearAt] = parts[0]!;
    if (segments[yearAt + 1] === month) dated[yearAt + 1] = parts[1]!;
    if (segments[yearAt + 2] === day) dated[yearAt + 2] = parts[2]!;
    return dated;
  };
  const forms = [segments, ...oldDates.map(datesOf).filter((d): d is string[] => d !== undefined)];
  const urls: string[] = [];
  for (const form of forms)
    for (const slug of [item.slug, ...oldSlugs]) {
      if (form === segments && slug === item.slug) continue;
      const path = [...form];
      path[slugAt] = slug;
      url.pathname = path.join('/');
      urls.push(url.href);
    }
  return urls;
}

async function importItem(item: WxrItem, assigned: string | undefined, ctx: ItemContext): Promise<void> {
  const { report } = ctx;
  if (item.comments) report.skip('comments (cms-sync has no comment records)', item.comments);
  if (item.type !== 'post' && item.type !== 'page') {
    report.skip(
      SKIPPED_TYPES[item.type] ?? detach(`items of type \`${item.type || '(none)'}\` (not posts or pages)`),
    );
    return;
  }
  if (NOT_IMPORTED.has(item.status)) {
    report.skip(
      item.status === 'trash' ? 'posts and pages in the trash' : 'auto-drafts (never saved by an author)',
    );
    return;
  }
  const { text: plainTitle, markup } = titleOf(item);
  // WordPress showed titles texturized too (`Party's` as `Party’s`).
  const texturized = wordpressTexturize(plainTitle);
  report.convert('typographic punctuation', texturized.count);
  const label = labelOf(item);
  const title = texturized.text || untitled(item, label, report);
  if (markup) report.drop('HTML markup in titles (a title is text here: written without its tags)', label);
  const language = itemLanguage(item);
  const lang =
    language && 'lang' in language && language.lang !== ctx.defaultLanguage ? language.lang : undefined;
  // Kept in the report and the writer's indexes: not a view into the item's text.
  const own = detach(slugOf(item));
  const asked = lang === undefined ? own : translatedSlug(own, lang, { default: ctx.defaultLanguage! });
  const slug = assigned ?? asked;
  // A translation's file says its slug without the language, and the language (see translations).
  const suffix = `-${lang}`;
  const translation =
    lang !== undefined && slug.endsWith(suffix) ? { slug: slug.slice(0, -suffix.length), lang } : {};
  if (slug !== asked) reportRenamed(report, label, folderOf(item), asked, slug);
  const body = convertBody(item, label, ctx);
  // A private or password-protected item must not become public by being imported.
  const draft = DRAFT_STATUSES.has(item.status) || item.password !== '';
  if (item.status === 'private')
    report.warnings.push(`${label} is private on the old site; imported as a draft`);
  else if (item.status === 'future') {
    const due = item.date && !item.date.startsWith('0000') ? ` for ${item.date}` : '';
    report.warnings.push(
      `${label} is scheduled on the old site${due}; imported as a draft: publish it when it is due`,
    );
  } else if (item.status === 'pending')
    report.warnings.push(`${label} is pending review on the old site; imported as a draft`);
  // Whatever the status: published as it is, the post would be open to all.
  if (item.password)
    report.warnings.push(`${label} is password-protected on the old site; imported as a draft`);

  // As the static importers do, for posts and pages alike.
  const description = seoDescription(item, label, report);
  if (item.type === 'page') {
    const fm: Record<string, unknown> = { title: title || slug, ...translation };
    if (draft) fm.draft = true;
    if (description) fm.description = description;
    // Its place in the site's tree of pages (`/about/team/`): kept for the site, which the CMS has no field for.
    const parent = item.parent && item.parent !== '0' ? ctx.records.pageById.get(item.parent) : undefined;
    if (parent !== undefined) fm.parent = ctx.records.slug[parent];
    // A page has a featured image too (a theme's header on an About page).
    Object.assign(fm, featuredImage(item, label, ctx));
    await ctx.writer.write('pages', slug, fm, body, label);
    return;
  }

  // The post's primary category (Yoast SEO, Rank Math) is the one the site showed: it goes first.
  const primaryId = item.meta._yoast_wpseo_primary_category ?? item.meta.rank_math_primary_category;
  const primary = primaryId ? ctx.categoryById.get(primaryId) : undefined;
  const categories = item.terms
    .filter((t) => t.domain === 'category')
    .map((t) => decodeSlug(t.slug))
    .sort((a, b) => Number(b === primary) - Number(a === primary));
  const tags = item.terms.filter((t) => t.domain === 'post_tag').map((t) => decodeSlug(t.slug));
  // Co-Authors Plus keeps a post's authors as terms of its `author` taxonomy, in their order.
  const coAuthors = [...new Set(item.terms.filter((t) => t.domain === 'author').map((t) => t.name.trim()))];
  const others = item.terms.filter(
    (t) => !['category', 'post_tag', 'author'].includes(t.domain) && !TRANSLATION_TAXONOMIES.has(t.domain),
  ).length;
  if (others) report.skip('post terms of other taxonomies (post formats, custom taxonomies)', others);
  const [firstCategory, ...otherCategories] = categories;
  // Kept in the writer's indexes after this item is done: not a view into the item's text.
  const category = firstCategory && detach(firstCategory);
  // A partial export may omit the channel's category list: `plan` needs the category's file.
  const first = item.terms.find((t) => t.domain === 'category' && decodeSlug(t.slug) === firstCategory);
  if (category && first && !ctx.knownCategories.has(category)) {
    ctx.knownCategories.add(category);
    await ctx.writer.write(
      'categories',
      category,
      { name: decodeEntities(first.name) || category },
      '',
      `category \`${category}\``,
    );
  }
  const fm: Record<string, unknown> = { title: title || slug, ...translation, date: dateOf(item) };
  if (draft) fm.draft = true;
  if (item.sticky) fm.sticky = true;
  if (category) fm.category = category;
  const allTags = [...otherCategories, ...tags];
  if (allTags.length) fm.tags = allTags;
  const excerpt = wordpressTexturize(plainText(item.excerpt));
  report.convert('typographic punctuation', excerpt.count);
  if (excerpt.text) fm.excerpt = excerpt.text;
  if (description) fm.description = description;
  Object.assign(fm, featuredImage(item, label, ctx));
  const authors = (coAuthors.length ? coAuthors : [item.creator])
    .filter((a) => a !== '')
    .map((a) => detach(a.normalize('NFC')));
  if (authors.length === 1) fm.author = authors[0];
  else if (authors.length > 1) fm.authors = authors;
  await ctx.writer.write('articles', slug, fm, body, label);
}

/** The item's featured image (`_thumbnail_id`, an attachment) as front matter: its URL and alt text. */
function featuredImage(item: WxrItem, label: string, ctx: ItemContext): Record<string, unknown> {
  const thumbnail = item.meta._thumbnail_id;
  if (!thumbnail) return {};
  const url = ctx.attachments.get(thumbnail);
  if (!url) {
    ctx.report.warnings.push(
      detach(`${label}: featured image ${thumbnail} is not an attachment in the export; left out`),
    );
    return {};
  }
  const alt = ctx.attachmentAlt.get(thumbnail);
  return { featured_image: ctx.resolveUrl(url) ?? url, ...(alt ? { featured_image_alt: alt } : {}) };
}

/**
 * The description an SEO plugin keeps for the post (Yoast SEO's, else Rank Math's), which the
 * export has as post meta: the text search engines and social cards showed. One that uses the
 * plugin's variables (`%%title%%`, `%excerpt%`), which only WordPress fills, is left out and reported.
 */
function seoDescription(item: WxrItem, label: string, report: MigrationReport): string | undefined {
  for (const key of ['_yoast_wpseo_metadesc', 'rank_math_description']) {
    const value = decodeEntities(item.meta[key] ?? '').trim();
    if (value === '') continue;
    if (/%%[a-z_]+%%|%[a-z_]+(?:\([^)]*\))?%/i.test(value)) {
      report.warnings.push(
        detach(`${label}: its SEO description (\`${key}\`) uses the plugin's variables; left out`),
      );
      return undefined;
    }
    return detach(value);
  }
  return undefined;
}

/** `wp:post_date_gmt`, or for never-published drafts (0000-00-00) the site-local date. */
function dateOf(item: WxrItem): Date | undefined {
  for (const value of [item.dateGmt, item.date]) {
    if (!value || value.startsWith('0000')) continue;
    const date = new Date(`${value.replace(' ', 'T')}Z`);
    if (!Number.isNaN(date.getTime())) return date;
  }
  return undefined;
}

function convertBody(item: WxrItem, label: string, ctx: ItemContext): string {
  const { report } = ctx;
  const block = isBlockContent(item.content);
  // WordPress's order: code of the syntax highlighters (which claim it before anything else reads
  // it), embeds of URLs on their own line, shortcodes, then paragraphs.
  const content = withFootnotes(
    block ? withCustomHtmlKept(withReusableBlocks(item.content, label, ctx)) : item.content,
    item,
    label,
    report,
  );
  const code = codeShortcodes(content);
  if (block) reportDynamicBlocks(code, label, report);
  let html = autoEmbed(block ? stripBlockComments(code) : code);
  html = withAltText(html, ctx.attachmentAlt);
  html = expandShortcodes(html, {
    attachmentUrl: (id) => ctx.attachments.get(id),
    attachmentAlt: (id) => ctx.attachmentAlt.get(id),
    childAttachments: (parent = item.id) => ctx.childAttachments.get(parent) ?? [],
    attachmentKind: (id) => ctx.attachmentKind.get(id),
    attachmentOrder: (id) => ctx.attachmentOrder.get(id) ?? 0,
    attachmentTitle: (id) => ctx.attachmentTitle.get(id),
    onUnknown: (name) => report.shortcode(detach(name)),
    onDropped: (what, kind) =>
      kind
        ? report.drop(detach(kind), label)
        : report.warnings.push(detach(`${item.type} ${item.id}: ${what} left out`)),
  });
  if (!block) html = wpautop(html);
  const embeds = protectEmbeds(html, {
    kept: (kind) => report.embed(detach(kind)),
    dropped: (kind) => report.drop(detach(kind), label),
    resolveUrl: ctx.resolveUrl,
  });
  const markdown = htmlToMarkdown(embeds.html, {
    resolveUrl: (url) => rewriteLink(ctx.resolveUrl(url) ?? url, label, ctx.links, report),
    onFlattened: () => report.drop(FLATTENED, label),
    onRelativeImage: (src) =>
      report.warnings.push(
        detach(`${item.type} ${item.id}: image \`${src}\` has no absolute URL; written as a link`),
      ),
  });
  // Template syntax in the post was text on the old site: so it stays once sync reads the file
  // (the players put back after it are the importer's own, and run). WordPress showed its
  // smilies as emoji (`use_smilies`, on unless turned off, which the export does not say), and
  // its quotes, dashes and ellipses typographic (wptexturize, always on): code stays as typed.
  const extras = convertExtras(templatesAsText(markdown, 'both'), {
    smilies: true,
    typographer: 'wordpress',
  });
  report.convert('smilies', extras.smilies);
  report.convert('typographic punctuation', extras.typographer);
  return embeds.restore(extras.text);
}

/**
 * A Custom HTML block (`wp:html`) holds HTML its author wrote, which WordPress showed as written
 * (a widget's placeholder `<div>` and the script that fills it): it is kept so, as one raw HTML
 * block (html-block.ts), not converted.
 */
function withCustomHtmlKept(html: string): string {
  if (!html.includes('wp:html') && !html.includes('wp:core/html')) return html;
  return html.replace(
    /<!--\s*wp:(?:core\/)?html(?:\s+\{[^>]*?\})?\s*-->([\s\S]*?)<!--\s*\/wp:(?:core\/)?html\s*-->/g,
    (_whole, inner: string) => htmlBlockMarker(inner, 'Custom HTML blocks'),
  );
}

/**
 * WordPress 6.3's footnotes: the post holds only the numbered references
 * (`<sup data-fn="id"><a href="#id">1</a></sup>`); their text is in the post's meta `footnotes`
 * (`[{"id", "content"}]`), and the block `wp:footnotes` lists them on the page. Both become the
 * footnotes the converter knows (remark-gfm's), so that the post's Markdown has `[^1]` and its
 * note. A reference whose note the export lacks keeps its number, without the link that would
 * lead nowhere, and is reported.
 */
function withFootnotes(html: string, item: WxrItem, label: string, report: MigrationReport): string {
  if (!html.includes('data-fn=')) return html;
  const text = new Map<string, string>();
  try {
    const notes = JSON.parse(item.meta.footnotes ?? '[]') as unknown;
    if (Array.isArray(notes))
      for (const note of notes as Array<{ id?: unknown; content?: unknown }>)
        text.set(String(note.id), typeof note.content === 'string' ? note.content : '');
  } catch {
    // Read as no notes: each reference is reported below.
  }
  const used: string[] = [];
  let missing = 0;
  const body = html.replace(
    /<sup\b[^>]*\bdata-fn="([^"]+)"[^>]*>([\s\S]*?)<\/sup>/g,
    (_whole, id: string, inner: string) => {
      if (!text.has(id)) {
        missing++;
        return `<sup>${inner.replace(/<[^>]*>/g, '').trim()}</sup>`;
      }
      if (!used.includes(id)) used.push(id);
      const n = used.indexOf(id) + 1;
      return `<sup><a href="#user-content-fn-${n}" data-footnote-ref>${n}</a></sup>`;
    },
  );
  if (missing)
    report.warnings.push(
      detach(
        `${label}: the export has no text for ${missing} footnote(s) (post meta \`footnotes\`); numbers kept`,
      ),
    );
  if (used.length === 0) return body;
  const items = used.map((id, i) => `<li id="user-content-fn-${i + 1}"><p>${text.get(id)}</p></li>`);
  return `${body}\n<section data-footnotes><ol>${items.join('')}</ol></section>`;
}

/**
 * A block saved as its comment alone (`<!-- wp:latest-posts {"postsToShow":3} /-->`) was built by
 * the old site each time the page was shown: the export holds nothing of it to convert.
 */
function reportDynamicBlocks(html: string, label: string, report: MigrationReport): void {
  for (const m of html.matchAll(/<!--\s*wp:([a-z][\w/-]*)\s[^>]*?\/-->/g)) {
    const name = m[1]!;
    // Footnotes are written from the post's meta; reusable blocks and patterns are already in place or reported.
    if (name === 'footnotes' || name === 'block' || name === 'pattern') continue;
    report.drop(detach(`blocks the old site built as it showed the page: wp:${name}`), label);
  }
}

const MAX_BLOCK_DEPTH = 10;

/**
 * A reusable block (`<!-- wp:block {"ref":55} /-->`, a "synced pattern") is a reference to a
 * `wp_block` item of the export: its content is put in its place, as the old site showed it (one
 * inside another too, but not inside itself). One not in the export, and a theme's pattern
 * (`wp:pattern {"slug":…}`, which no export holds), are reported for the post.
 */
function withReusableBlocks(html: string, label: string, ctx: ItemContext, within: string[] = []): string {
  if (!/<!--\s*wp:(?:block|pattern)\s/.test(html)) return html;
  return html.replace(
    /<!--\s*wp:(block|pattern)\s+(\{[^>]*?\})\s*\/-->/g,
    (whole, kind: string, json: string) => {
      let attrs: Record<string, unknown>;
      try {
        attrs = JSON.parse(json) as Record<string, unknown>;
      } catch {
        return whole;
      }
      if (kind === 'pattern') {
        ctx.report.warnings.push(
          detach(`${label}: the theme's pattern \`${String(attrs.slug)}\` is not in the export; left out`),
        );
        return '';
      }
      const ref = String(attrs.ref);
      const block = ctx.reusableBlocks.get(ref);
      if (typeof block === 'object') {
        ctx.report.warnings.push(detach(`${label}: reusable block ${ref} ${block.hidden}; left out`));
        return '';
      }
      const content = block;
      // A bound on the depth too: blocks that each hold the next twice would grow without one.
      if (content === undefined || within.includes(ref) || within.length >= MAX_BLOCK_DEPTH) {
        const why =
          content === undefined
            ? 'is not in the export'
            : within.includes(ref)
              ? 'is inside itself (WordPress showed it once)'
              : `is nested more than ${MAX_BLOCK_DEPTH} deep`;
        ctx.report.warnings.push(detach(`${label}: reusable block ${ref} ${why}; left out`));
        return '';
      }
      return withReusableBlocks(content, label, ctx, [...within, ref]);
    },
  );
}

/**
 * The block editor and the media library leave `alt=""` in the post and keep the alt text on
 * the attachment (`_wp_attachment_image_alt`); an image that names its attachment
 * (`class="wp-image-12"`) gets it back.
 */
function withAltText(html: string, altOf: Map<string, string>): string {
  if (altOf.size === 0 || !html.includes('wp-image-')) return html;
  return html.replace(/<img\b[^>]*>/gi, (tag) => {
    const id = /\bwp-image-(\d+)\b/.exec(tag)?.[1];
    const alt = id && altOf.get(id);
    if (!alt || /\salt\s*=\s*(?:"[^"]*[^"\s][^"]*"|'[^']*[^'\s][^']*')/i.test(tag)) return tag;
    const escaped = alt.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    return tag.replace(/\salt\s*=\s*(?:""|'')/i, '').replace(/^<img\b/i, `<img alt="${escaped}"`);
  });
}
