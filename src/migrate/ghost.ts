import { existsSync } from 'node:fs';
import { constants } from 'node:buffer';
import { readFile, stat } from 'node:fs/promises';
import { SyncError } from '../errors.js';
import { protectEmbeds } from './embeds.js';
import { templatesAsText } from '../render/templates/expand-templates.js';
import { FLATTENED } from './deep-html.js';
import { ghostCards } from './ghost-cards.js';
import { lexicalToHtml, mobiledocToHtml } from './ghost-editor.js';
import { htmlBlockMarker } from './html-block.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { jsonErrorPosition } from './json-position.js';
import type { MigrationReport } from './report.js';
import { decodeSlug, slugify } from './slug.js';
import { uniqueSlugs } from './unique-slugs.js';
import { ContentWriter } from './write-content.js';
import type { ImportOptions } from './import-options.js';
import { OldSiteLinks, rewriteLink, type LinkFolder, type OldSiteOptions } from './old-links.js';

export interface GhostImportOptions extends ImportOptions, OldSiteOptions {
  /** The old site's address, which replaces `__GHOST_URL__`; without it links stay relative. */
  ghostUrl?: string;
}

type Row = Record<string, unknown>;
const GHOST_URL = /__GHOST_URL__/g;
/** The longest string V8 makes, in UTF-16 units: an export's UTF-8 bytes make at most as many. */
const { MAX_STRING_LENGTH } = constants;

function str(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/**
 * A Ghost date: ISO text, or milliseconds since 1970 (Ghost 0.x exports, as a number or text).
 * Ghost keeps dates in UTC, and some exports write them without a zone (`2017-09-08 11:08:12`),
 * which JavaScript would read as this machine's local time. Undefined when there is none or it
 * cannot be read.
 */
const NO_ZONE = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?$/;

function dateOf(value: unknown): Date | undefined {
  const text = str(value).trim();
  if (text === '') return undefined;
  const date = /^\d{9,}$/.test(text)
    ? new Date(Number(text))
    : new Date(NO_ZONE.test(text) ? `${text.replace(' ', 'T')}Z` : text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** Post visibilities that keep the post from the public, and who could read it. */
const AUDIENCE = new Map([
  ['members', 'members'],
  ['paid', 'paying members'],
  ['tiers', 'members of some tiers'],
  ['specific', 'members of some tiers'],
]);

/** A post's fields for search engines and social cards, which no record field holds. */
const SEARCH_AND_SOCIAL = [
  'meta_title',
  'canonical_url',
  'og_image',
  'og_title',
  'og_description',
  'twitter_image',
  'twitter_title',
  'twitter_description',
];

/**
 * A Ghost export (Settings > Labs > Export) -> content/ files:
 *
 * - post -> articles/<slug>.md: title, date (published_at, else created_at), `draft: true` unless
 *   published and public (members-only and paid posts too), category (the first tag), tags*,
 *   excerpt*, description* (`meta_description`), featured*, featured_image* (`feature_image`, or
 *   `image` in Ghost 0.x and 1.x exports), featured_image_alt* and featured_image_caption*,
 *   author* (or authors*, in order).
 * - Other search and social fields (meta_title, og_*, twitter_*...) and code injection are
 *   reported as left out.
 * - page -> pages/<slug>.md: title, `draft: true` as for posts, featured*, and as posts have them
 *   excerpt*, featured_image* (with alt and caption) and author* or authors*; its tags are listed
 *   as not imported.
 * - tag -> categories/<slug>.md: name, description, parent* (Ghost's admin never sets a tag's
 *   `parent_id`, but the column exists and is kept when an export has it).
 * - A slug already taken by an earlier post (drafts slugged from their title) gets `-2`...
 * - Embeds (HTML cards with gist scripts, embed cards, video and audio cards) are kept
 *   (embeds.ts); links to imported posts and pages are rewritten to their new paths.
 */
export async function importGhost(options: GhostImportOptions): Promise<void> {
  const { report } = options;
  const text = (await readWhole(options)).replace(/^\uFEFF/, '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const at = jsonErrorPosition(text);
    throw new SyncError(
      'CMS_SYNC_INPUT',
      `${options.file}:${at.line}:${at.column}: ${at.message} (the export is not valid JSON; nothing was written)`,
      { cause: error },
    );
  }
  const data = exportData(json);
  if (!data)
    throw new SyncError(
      'CMS_SYNC_INPUT',
      `${options.file}:1:1: no \`db[0].data\` (or \`data\`) object: is this a Ghost export (Settings > Labs > Export ` +
        `content)?`,
    );
  const rows = (name: string): Row[] =>
    Array.isArray(data[name])
      ? (data[name] as unknown[]).filter((r): r is Row => !!r && typeof r === 'object')
      : [];

  const base = options.ghostUrl?.replace(/\/+$/, '');
  let relativeWarned = false;
  const resolve = (value: string): string => {
    if (!value.includes('__GHOST_URL__')) return value;
    if (base) return value.replace(GHOST_URL, base);
    if (!relativeWarned) {
      report.warnOnce(
        'links to the old site (__GHOST_URL__) were left relative: rerun with --ghost-url https://your-old-site to ' +
          'make them absolute (images with relative URLs are written as links)',
      );
      relativeWarned = true;
    }
    return value.replace(GHOST_URL, '');
  };

  // Root-relative URLs (older exports write `/content/images/...`) belong to the old site too.
  const resolveUrl = (url: string) =>
    base && url.startsWith('/') && !url.startsWith('//') ? `${base}${url}` : url;

  const writer = new ContentWriter({
    projectDir: options.projectDir,
    contentDir: options.contentDir,
    force: options.force,
    report,
    exists: existsSync,
  });

  const tagsById = new Map<string, Row>();
  for (const tag of rows('tags')) {
    const slug = decodeSlug(str(tag.slug)) || slugify(str(tag.name));
    if (str(tag.visibility) === 'internal' || str(tag.name).startsWith('#')) {
      report.skip('internal tags (#name: Ghost uses them for themes, not as categories)');
      continue;
    }
    tagsById.set(str(tag.id), { ...tag, slug });
  }
  for (const tag of tagsById.values()) {
    const slug = str(tag.slug);
    const fm: Record<string, unknown> = { name: str(tag.name) || slug };
    if (str(tag.description)) fm.description = str(tag.description);
    const parent = tagsById.get(str(tag.parent_id));
    if (parent && parent !== tag) fm.parent = str(parent.slug);
    await writer.write('categories', slug, fm, '', `tag \`${slug}\``);
  }

  const usersById = new Map<string, string>();
  for (const user of rows('users')) {
    const slug = decodeSlug(str(user.slug)) || slugify(str(user.name)) || `user-${str(user.id)}`;
    usersById.set(str(user.id), slug);
    const fm: Record<string, unknown> = { name: str(user.name) || slug };
    if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(str(user.email))) fm.email = str(user.email);
    if (str(user.bio)) fm.bio = str(user.bio);
    await writer.write('users', slug, fm, '', `user \`${slug}\``);
  }

  const members = rows('members').length;
  if (members) report.skip('members (subscribers are not content records)', members);

  const tagsOfPost = groupBy(rows('posts_tags'), 'post_id');
  const authorsOfPost = groupBy(rows('posts_authors'), 'post_id');
  const metaOfPost = groupBy(rows('posts_meta'), 'post_id');
  const posts = rows('posts');
  const links = new OldSiteLinks(options.linkPath);
  if (base) links.addSite(base);
  const slugs = assignSlugs(posts, links, report);
  let done = 0;
  for (const post of posts) {
    done++;
    const label = labelOf(post);
    try {
      await importPost(post, slugs.get(post), {
        writer,
        report,
        resolve,
        resolveUrl,
        links,
        label,
        meta: metaOfPost.get(str(post.id))?.[0] ?? {},
        tagsById,
        usersById,
        tags: tagsOfPost.get(str(post.id)) ?? [],
        authors: authorsOfPost.get(str(post.id)) ?? [],
      });
    } catch (error) {
      report.failures.push(`${options.file}: ${label} could not be converted: ${(error as Error).message}`);
    }
    options.onProgress?.(done, posts.length);
  }
  await writer.flush();
}

interface PostContext {
  writer: ContentWriter;
  report: MigrationReport;
  resolve: (value: string) => string;
  resolveUrl: (url: string) => string;
  links: OldSiteLinks;
  label: string;
  /** The post's `posts_meta` row (Ghost 4+ keeps the feature image's alt text there). */
  meta: Row;
  tagsById: Map<string, Row>;
  usersById: Map<string, string>;
  tags: Row[];
  authors: Row[];
}

function typeOf(post: Row): string {
  return str(post.type) || (post.page === true || post.page === 1 ? 'page' : 'post');
}

function labelOf(post: Row): string {
  return `${typeOf(post)} ${str(post.id)} "${str(post.title)}"`;
}

function slugOf(post: Row): string {
  return decodeSlug(str(post.slug)) || slugify(str(post.title).trim()) || `${typeOf(post)}-${str(post.id)}`;
}

/**
 * Slugs before any body is converted, so links to later posts are rewritten too. Ghost serves
 * posts and pages at `/<slug>/` (and drafts' previews at `/p/<uuid>/`); an export from the
 * Content API also carries the full `url`.
 */
function assignSlugs(rows: Row[], links: OldSiteLinks, report: MigrationReport): Map<Row, string> {
  const posts = rows.filter((post) => typeOf(post) === 'post' || typeOf(post) === 'page');
  const folderOf = (post: Row): LinkFolder => (typeOf(post) === 'page' ? 'pages' : 'articles');
  const slugs = uniqueSlugs(
    posts.map((post) => ({ folder: folderOf(post), asked: slugOf(post), label: labelOf(post) })),
    report,
  );
  const byPost = new Map<Row, string>();
  posts.forEach((post, i) => {
    const slug = slugs[i]!;
    const folder = folderOf(post);
    byPost.set(post, slug);
    if (str(post.url)) {
      links.addSite(str(post.url));
      links.add(str(post.url), folder, slug);
    }
    if (str(post.slug)) links.add(`/${str(post.slug)}/`, folder, slug);
    if (str(post.uuid)) links.add(`/p/${str(post.uuid)}/`, folder, slug);
  });
  return byPost;
}

async function importPost(post: Row, assigned: string | undefined, ctx: PostContext): Promise<void> {
  const type = typeOf(post);
  const title = str(post.title).trim();
  const slug = assigned ?? slugOf(post);
  const body = bodyOf(post, ctx);
  if (body === undefined) return;
  const visibility = str(post.visibility) || 'public';
  const status = str(post.status);
  const audience = AUDIENCE.get(visibility);
  // Members-only and paid posts must not become public by being imported. One that is also
  // scheduled or sent gets both lines: publishing it when due must not make it public.
  // Email only: Ghost 5 says so by the status `sent`; a `posts_meta.email_only` flag on a
  // published post (Ghost 4) means the same: it was never on the site.
  const emailOnly = status === 'sent' || ctx.meta.email_only === true || ctx.meta.email_only === 1;
  const draft = status !== 'published' || audience !== undefined || emailOnly;
  if (audience && status !== 'draft')
    ctx.report.warnings.push(
      `${ctx.label} is for ${audience} only on the old site (visibility: ${visibility}); imported as a draft`,
    );
  if (status === 'scheduled') {
    const due = dateOf(post.published_at);
    ctx.report.warnings.push(
      `${ctx.label} is scheduled on the old site${due ? ` for ${due.toISOString()}` : ''}; imported as a ` +
        'draft: publish it when it is due',
    );
  } else if (emailOnly)
    ctx.report.warnings.push(
      `${ctx.label} was sent as an email only, never shown on the site; imported as a draft`,
    );
  const featured = post.featured === true || post.featured === 1;
  for (const field of ['codeinjection_head', 'codeinjection_foot'])
    if (str(post[field]).trim()) ctx.report.drop(`per-post code injection (${field})`, ctx.label);
  // Ghost 4+ keeps these in `posts_meta`, earlier versions on the post.
  for (const field of SEARCH_AND_SOCIAL)
    if ((str(post[field]) || str(ctx.meta[field])).trim())
      ctx.report.drop(`search and social fields (${field})`, ctx.label);

  if (type === 'page') {
    const fm: Record<string, unknown> = { title: title || slug };
    if (draft) fm.draft = true;
    if (featured) fm.featured = true;
    Object.assign(fm, excerptImageAndAuthors(post, ctx));
    // A page's tags choose its template on the old site (`#hash` internal tags) more than they
    // file it; a page has no category here. Listed, not kept.
    if (ctx.tags.length > 0) ctx.report.drop('tags of pages', ctx.label);
    await ctx.writer.write('pages', slug, fm, body, ctx.label);
    return;
  }
  if (type !== 'post') {
    ctx.report.skip(`items of type \`${type}\` (not posts or pages)`);
    return;
  }
  const tagSlugs = [...ctx.tags]
    .sort((a, b) => Number(a.sort_order ?? 0) - Number(b.sort_order ?? 0))
    .map((t) => ctx.tagsById.get(str(t.tag_id))?.slug)
    .filter((s): s is string => typeof s === 'string');
  const [category, ...tags] = tagSlugs;
  const fm: Record<string, unknown> = { title: title || slug, date: dateAndWarn(post, ctx) };
  if (draft) fm.draft = true;
  if (featured) fm.featured = true;
  if (category) fm.category = category;
  if (tags.length) fm.tags = tags;
  Object.assign(fm, excerptImageAndAuthors(post, ctx));
  await ctx.writer.write('articles', slug, fm, body, ctx.label);
}

/**
 * What posts and pages both have: the custom excerpt, the feature image (with its alt and
 * caption) and the authors.
 */
function excerptImageAndAuthors(post: Row, ctx: PostContext): Record<string, unknown> {
  const fm: Record<string, unknown> = {};
  if (str(post.custom_excerpt)) fm.excerpt = str(post.custom_excerpt);
  // The search engines' description, as WordPress's SEO plugins' and a static site's `description`.
  const description = (str(post.meta_description) || str(ctx.meta.meta_description)).trim();
  if (description) fm.description = description;
  // Ghost 0.x and 1.x exports call it `image`.
  const image = str(post.feature_image) || str(post.image);
  if (image) {
    fm.featured_image = ctx.resolveUrl(ctx.resolve(image));
    const alt = str(post.feature_image_alt) || str(ctx.meta.feature_image_alt);
    if (alt) fm.featured_image_alt = alt;
    // HTML in Ghost (an Unsplash credit is a pair of links): Markdown here, so the credit's links stay.
    const caption = str(post.feature_image_caption) || str(ctx.meta.feature_image_caption);
    if (caption.trim()) fm.featured_image_caption = toMarkdown(caption, ctx).trim();
  }
  // Every author, in the post's order (Ghost 0.x has one, `author_id`).
  const authorIds = ctx.authors.length
    ? [...ctx.authors]
        .sort((a, b) => Number(a.sort_order ?? 0) - Number(b.sort_order ?? 0))
        .map((a) => str(a.author_id))
    : [str(post.author_id)].filter((id) => id !== '');
  const authors = [...new Set(authorIds)].flatMap((id) => {
    const user = ctx.usersById.get(id);
    if (!user)
      ctx.report.warnings.push(`${ctx.label}: author \`${id}\` is not among the export's users; left out`);
    return user ? [user] : [];
  });
  if (authors.length === 1) fm.author = authors[0];
  else if (authors.length > 1) fm.authors = authors;
  return fm;
}

/** When the post was published, else created; a date that cannot be read is reported, not lost. */
function dateAndWarn(post: Row, ctx: PostContext): Date | undefined {
  const published = dateOf(post.published_at);
  const created = dateOf(post.created_at);
  const warn = (field: string, then: string) =>
    ctx.report.warnings.push(`${ctx.label}: ${field} \`${str(post[field])}\` is not a date; ${then}`);
  if (!published && str(post.published_at).trim())
    warn('published_at', created ? 'dated by created_at' : 'written without a date');
  else if (!published && !created && str(post.created_at).trim())
    warn('created_at', 'written without a date');
  return published ?? created;
}

/**
 * The export as one text, which JSON.parse needs. V8 makes no string longer than about 512 MiB:
 * a larger export is refused with what to do before it is read (and, should the read fail on its
 * length all the same, when it does), rather than failing halfway with a stack.
 */
async function readWhole(options: GhostImportOptions): Promise<string> {
  const size = (await stat(options.absPath)).size;
  const tooLarge = (cause?: unknown): SyncError => {
    const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
    return new SyncError(
      'CMS_SYNC_INPUT',
      `${options.file}: the export is ${mib(size)} MiB, more than can be read as one JSON text ` +
        `(${mib(MAX_STRING_LENGTH)} MiB); nothing was written. Most of a large export is the posts' editor copies, ` +
        'which a post with html does not need: jq \'.db[0].data.posts |= map(if (.html // "") != "" then ' +
        `del(.mobiledoc, .lexical, .plaintext) else . end)' ${options.file} > smaller.json, then import smaller.json.`,
      { cause },
    );
  };
  if (size > MAX_STRING_LENGTH) throw tooLarge();
  try {
    return await readFile(options.absPath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_STRING_TOO_LONG' || code === 'ERR_FS_FILE_TOO_LARGE' || error instanceof RangeError)
      throw tooLarge(error);
    throw error;
  }
}

/**
 * The post's HTML as Markdown. Ghost 4+ keeps `html` beside mobiledoc/lexical; a row without it
 * has its body rendered from the editor's JSON (ghost-editor.ts), the same HTML Ghost showed.
 * If that JSON cannot be read, the plain text is used (paragraphs only) and the report says so;
 * with neither, the post is skipped.
 */
function bodyOf(post: Row, ctx: PostContext): string | undefined {
  const html = str(post.html);
  if (html.trim()) return htmlBody(html, ctx);
  const editor = str(post.lexical) ? 'lexical' : str(post.mobiledoc) ? 'mobiledoc' : undefined;
  if (!editor) return '';
  const { report, label } = ctx;
  let rendered: string | undefined;
  try {
    const hooks = {
      unknown: (type: string) =>
        report.drop(
          `content of ${editor} nodes of kinds not known here (their text kept): \`${type}\``,
          label,
        ),
      emailOnly: () => report.drop('cards shown only in emails', label),
    };
    rendered =
      editor === 'lexical'
        ? lexicalToHtml(str(post.lexical), hooks)
        : mobiledocToHtml(str(post.mobiledoc), hooks);
  } catch (error) {
    report.warnings.push(
      `${label}: its ${editor} content cannot be read (${(error as Error).message}); written from its plain text`,
    );
  }
  if (rendered !== undefined) {
    report.convert(`bodies rendered from ${editor} (the export has no html)`);
    return htmlBody(rendered, ctx);
  }
  const plaintext = str(post.plaintext).trim();
  if (plaintext) {
    report.skip(
      `formatting of posts with ${editor} content that cannot be read (written from their plain text)`,
    );
    return `${plaintext
      .split(/\n\s*\n/)
      .map((p) => p.trim().replace(/([\\`*_[\]<>#])/g, '\\$1'))
      .join('\n\n')}\n`;
  }
  report.skip(`posts with ${editor} content that cannot be read and no html or plaintext`);
  return undefined;
}

function htmlBody(html: string, ctx: PostContext): string {
  const { report, label } = ctx;
  const embeds = protectEmbeds(ghostCards(withHtmlCardsKept(ctx.resolve(html))), {
    kept: (kind) => report.embed(kind),
    dropped: (kind) => report.drop(kind, label),
    resolveUrl: ctx.resolveUrl,
  });
  const markdown = toMarkdown(embeds.html, ctx);
  // Template syntax in the post was text on the old site: so it stays once sync reads the file
  // (the players put back after it are the importer's own, and run).
  return embeds.restore(templatesAsText(markdown, 'both'));
}

/**
 * An HTML card holds HTML its author wrote, which Ghost showed as written (a widget's placeholder
 * `<div>` and the script that fills it, a table laid out by hand): it is kept so, as one raw
 * HTML block (html-block.ts), not converted.
 */
function withHtmlCardsKept(html: string): string {
  if (!html.includes('kg-card-begin: html')) return html;
  return html.replace(
    /<!--\s*kg-card-begin: html\s*-->([\s\S]*?)<!--\s*kg-card-end: html\s*-->/g,
    (_whole, inner: string) => htmlBlockMarker(inner, 'HTML cards'),
  );
}

/** Ghost's HTML as Markdown: `__GHOST_URL__` resolved, links to imported posts rewritten. */
function toMarkdown(html: string, { report, label, links, resolve, resolveUrl }: PostContext): string {
  return htmlToMarkdown(resolve(html), {
    resolveUrl: (url) => rewriteLink(resolveUrl(url), label, links, report),
    onFlattened: () => report.drop(FLATTENED, label),
    onRelativeImage: (src) =>
      report.warnings.push(`${label}: image \`${src}\` has no absolute URL; written as a link`),
  });
}

function exportData(json: unknown): Row | undefined {
  const root = json as { db?: Array<{ data?: Row }>; data?: Row } | null;
  const data = root?.db?.[0]?.data ?? root?.data;
  return data && typeof data === 'object' ? data : undefined;
}

function groupBy(rows: Row[], key: string): Map<string, Row[]> {
  const map = new Map<string, Row[]>();
  for (const row of rows) {
    const k = str(row[key]);
    map.set(k, [...(map.get(k) ?? []), row]);
  }
  return map;
}
