import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { SyncError } from '../errors.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { jsonErrorPosition } from './json-position.js';
import type { MigrationReport } from './report.js';
import { decodeSlug, slugify } from './slug.js';
import { ContentWriter } from './write-content.js';
import type { ImportOptions } from './import-options.js';

export interface GhostImportOptions extends ImportOptions {
  /** The old site's address, which replaces `__GHOST_URL__`; without it links stay relative. */
  ghostUrl?: string;
}

type Row = Record<string, unknown>;
const GHOST_URL = /__GHOST_URL__/g;

function str(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** A Ghost export (Settings > Labs > Export) -> content/ files. */
export async function importGhost(options: GhostImportOptions): Promise<void> {
  const { report } = options;
  const text = (await readFile(options.absPath, 'utf8')).replace(/^\uFEFF/, '');
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
    const fm: Record<string, unknown> = { name: str(tag.name) || slug };
    if (str(tag.description)) fm.description = str(tag.description);
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
  const posts = rows('posts');
  let done = 0;
  for (const post of posts) {
    done++;
    const label = `${str(post.type) || 'post'} ${str(post.id)} "${str(post.title)}"`;
    try {
      await importPost(post, {
        writer,
        report,
        resolve,
        resolveUrl,
        label,
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
  label: string;
  tagsById: Map<string, Row>;
  usersById: Map<string, string>;
  tags: Row[];
  authors: Row[];
}

async function importPost(post: Row, ctx: PostContext): Promise<void> {
  const type = str(post.type) || (post.page === true || post.page === 1 ? 'page' : 'post');
  const title = str(post.title).trim();
  const slug = decodeSlug(str(post.slug)) || slugify(title) || `${type}-${str(post.id)}`;
  const body = bodyOf(post, ctx);
  if (body === undefined) return;
  const draft = str(post.status) !== 'published';

  if (type === 'page') {
    const fm: Record<string, unknown> = { title: title || slug };
    if (draft) fm.draft = true;
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
  const published = str(post.published_at) || str(post.created_at);
  const date = published ? new Date(published) : undefined;
  const fm: Record<string, unknown> = {
    title: title || slug,
    date: date && !Number.isNaN(date.getTime()) ? date : undefined,
  };
  if (draft) fm.draft = true;
  if (category) fm.category = category;
  if (tags.length) fm.tags = tags;
  if (str(post.custom_excerpt)) fm.excerpt = str(post.custom_excerpt);
  if (str(post.feature_image)) fm.featured_image = ctx.resolve(str(post.feature_image));
  const author = [...ctx.authors].sort((a, b) => Number(a.sort_order ?? 0) - Number(b.sort_order ?? 0))[0];
  const authorSlug = author
    ? ctx.usersById.get(str(author.author_id))
    : ctx.usersById.get(str(post.author_id));
  if (authorSlug) fm.author = authorSlug;
  await ctx.writer.write('articles', slug, fm, body, ctx.label);
}

/**
 * The post's HTML as Markdown. Ghost 4+ keeps `html` beside mobiledoc/lexical; an export
 * without it would need Ghost's renderer: then the plain text is used (paragraphs only) and
 * the report says so, or the post is skipped when there is none.
 */
function bodyOf(post: Row, ctx: PostContext): string | undefined {
  const html = str(post.html);
  if (html.trim()) {
    return htmlToMarkdown(ctx.resolve(html), {
      resolveUrl: ctx.resolveUrl,
      onRelativeImage: (src) =>
        ctx.report.warnings.push(`${ctx.label}: image \`${src}\` has no absolute URL; written as a link`),
    });
  }
  const editor = str(post.lexical) ? 'lexical' : str(post.mobiledoc) ? 'mobiledoc' : undefined;
  if (!editor) return '';
  const plaintext = str(post.plaintext).trim();
  if (plaintext) {
    ctx.report.skip(`formatting of posts with ${editor} content and no html (written from their plain text)`);
    return `${plaintext
      .split(/\n\s*\n/)
      .map((p) => p.trim().replace(/([\\`*_[\]<>#])/g, '\\$1'))
      .join('\n\n')}\n`;
  }
  ctx.report.skip(
    `posts with ${editor} content and neither html nor plaintext (export again from Ghost 4 or later)`,
  );
  return undefined;
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
