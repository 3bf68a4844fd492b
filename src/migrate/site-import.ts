import { constants, existsSync, realpathSync, statSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { SyncError } from '../errors.js';
import { parseDate } from '../records/parse-date.js';
import { MEDIA_EXTENSIONS } from '../resources.js';
import { isInside } from '../source/content-paths.js';
import { parseFrontMatter } from '../source/front-matter.js';
import type { FeaturedImage } from './featured-image.js';
import { FLATTENED } from './deep-html.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { markdownInHtml, removeAttributeSyntax, unchanged, type AttributeSyntax } from './kramdown.js';
import { convertExtras, MAX_DEFINITION_LINES, type MarkdownExtras } from './markdown-extras.js';
import { convertMath, writtenSyntax, type OldSiteMath } from './old-math.js';
import { loadMath, type MathSyntax } from '../render/math-syntax.js';
import {
  refPath,
  type BlockHandler,
  type PageRef,
  type ShortcodeCall,
  type SiteInfo,
} from '../render/templates/builtins.js';
import { expandTemplates, templatesAsText, type Dialect } from '../render/templates/expand-templates.js';
import type { ImportOptions } from './import-options.js';
import { hugoPagePath } from './hugo-cascade.js';
import { OldSiteLinks, type OldSiteOptions } from './old-links.js';
import { PageRefs, type RefPage } from './page-refs.js';
import type { MigrationReport } from './report.js';
import { rewriteUrls } from './markdown-urls.js';
import type { Addresses } from './site-addresses.js';
import { protectRaw } from './site-raw.js';
import { slugify } from './slug.js';
import { deepMerge, MARKDOWN_NAME, record } from './site-values.js';
import { ContentWriter, leavesContent } from './write-content.js';

/**
 * What the Hugo and Jekyll/Eleventy importers share: a static site read as a list of Markdown
 * documents, each mapped to an article or a page, its template syntax expanded by the renderer's
 * own expander (src/render/templates), its images copied into content/media/ and its references
 * rewritten to them. The importers only know their site's layout: where documents, configuration
 * and served files are.
 */

/** One Markdown file of the site that becomes a record. */
export interface SiteDocument {
  /** Absolute path of the file. */
  absPath: string;
  folder: 'articles' | 'pages';
  /** The slug the file's place gives: bundle folder or file name, without a date or language. */
  nameSlug: string;
  /** Language from the file name (`index.es.md`), when it has one. */
  lang?: string;
  /** `YYYY-MM-DD` from a leading date in the file name: the date of an undated post. */
  fileDate?: string;
  /** In a drafts folder (Jekyll's `_drafts/`). */
  draft?: boolean;
  /** Its body is HTML (a Jekyll post in `.html`, as jekyll-import writes them), made Markdown on import. */
  html?: boolean;
  /** Categories the file's place gives (Jekyll's `news/_posts/`). */
  pathCategories?: string[];
  /** Folder that relative references resolve against: the bundle's, or the file's own. */
  baseDir: string;
  /** Its path under the folder its address on the site follows (Hugo's content/, Jekyll's site). */
  place: string;
  /** The Jekyll collection it belongs to (`projects` for `_projects/`), other than posts. */
  collection?: string;
}

export interface Person {
  name?: string;
  email?: string;
  /** What the person does (Hugo Blox's `role`: "Professor of Things"). */
  role?: string;
  bio?: string;
  /** A profile page's Markdown (Hugo Blox's author page): the user file's body, its bio unless `bio` is set. */
  about?: string;
}

export interface SiteProfile {
  /** `Hugo`, `Jekyll`, `Eleventy`: for messages. */
  kind: string;
  siteDir: string;
  dialect: Exclude<Dialect, 'auto'>;
  site: SiteInfo;
  /** IANA zone in which dates without an offset are read (the site's own setting). */
  timeZone: string;
  defaultLanguage: string;
  /** Authors described by the site's data files, by their key (lower case). */
  people: Map<string, Person>;
  /** Folders a root-relative path (`/images/x.png`) is looked up in, in order (absolute). */
  servedRoots: string[];
  /**
   * Folders (or files) served at a path of their own (Eleventy's `addPassthroughCopy({
   * "src/assets/images": "images" })`: `{ path: '/images', dir }`): a URL under the path is
   * looked up there first.
   */
  servedAt?: ReadonlyArray<{ path: string; dir: string }>;
  /** Where a file that is not under a served root is placed, relative to: e.g. Hugo's content/. */
  mediaRoot: string;
  documents: SiteDocument[];
  /** Front matter keys that carry only presentation (layout): dropped without a report line. */
  silentKeys: ReadonlySet<string>;
  /**
   * The site's Markdown is kramdown (Jekyll's default), whose attribute lists, table of contents
   * and extensions are removed (see removeAttributeSyntax). Headings' ids stay: sync reads them.
   */
  kramdown?: boolean;
  /**
   * Attribute lists without kramdown's colon (`{.class #id}`) that the site's renderer reads:
   * markdown-it-attrs' or Goldmark's block attributes (see removeAttributeSyntax).
   */
  attributes?: 'markdown-it' | 'goldmark' | undefined;
  /** kramdown's `parse_block_html`: Markdown inside every block HTML element, not only `markdown="1"`'s. */
  parseBlockHtml?: boolean;
  /** Just the Docs' callouts (`callouts:` in `_config.yml`): each class, with its title ('' for none). */
  callouts?: ReadonlyMap<string, string>;
  /**
   * Where a Liquid output finds the page's front matter: `page.title` (Jekyll), or `title`
   * (Eleventy, whose own `page` is not the front matter). Unset: nowhere (Hugo has no Liquid).
   */
  frontMatterAs?: 'page' | 'data';
  /** A taxonomy given as one string is a space-separated list (Jekyll), not one name (Hugo, Eleventy). */
  spaceSeparatedNames?: boolean;
  /** Tags of the site's own that have a meaning everyone shares (Eleventy's `image`), by name. */
  shortcodes?: Record<string, BlockHandler>;
  /**
   * Shortcodes that hold TeX (hugo-book's `{{< katex >}}`): each gives a call's TeX and whether it is
   * shown as a block. Written as math in remark-math's syntax, and counted with the site's formulas.
   */
  mathShortcodes?: Record<string, (call: ShortcodeCall) => { tex: string; display: boolean }>;
  /**
   * Why a document the site never publishes as a page of its own is not imported (Hugo's headless
   * bundles, `build: { render: never }`), or undefined for one it does.
   */
  unpublished?: (data: Record<string, unknown>, body: string, doc: SiteDocument) => string | undefined;
  /** Whether a page turned its template engine off (Jekyll's `render_with_liquid: false`). */
  templatesOff?: (data: Record<string, unknown>) => boolean;
  /** Front matter a document has from the site's configuration unless it sets the key (Jekyll's `defaults`). */
  defaults?: (doc: SiteDocument) => Record<string, unknown>;
  /** The title the generator gives a document without one (Jekyll's, from its name); else the slug, with a warning. */
  defaultTitle?: (doc: SiteDocument) => string | undefined;
  /** Tags that name a collection rather than a subject (Eleventy's `posts`): dropped. */
  collectionTags?: ReadonlySet<string>;
  /**
   * Tags that make a file a post wherever it lies (Eleventy's `posts` collection): a page whose
   * own front matter (or defaults) has one is an article.
   */
  postTags?: ReadonlySet<string>;
  /** Where the site served a document (its permalink rules), so that links to it are rewritten. */
  addresses: Addresses;
  /** The folder (a path on the site) a page's images are named in, from its front matter (Chirpy's `media_subpath`). */
  imageBase?: (data: Record<string, unknown>) => string | undefined;
  /**
   * The images a page's theme shows as its own (front matter, a bundle's file), best first: the
   * first becomes `featured_image`.
   */
  featuredImages?: (data: Record<string, unknown>, doc: SiteDocument) => FeaturedImage[];
  /** The front matter keys featuredImages reads: not reported as not imported. */
  featuredKeys?: readonly string[];
  /** Keys a page's date is read from, the first present: `date`, `publishDate` unless set. */
  dateKeys?: readonly string[];
  /** Markdown the site's renderer understood beyond CommonMark: converted to its equivalent. */
  extras?: MarkdownExtras;
  /** How the site's renderer read math, if it did: written in remark-math's syntax (see convertMath). */
  math?: OldSiteMath;
  /**
   * Why the site's pages loaded a math renderer (a `math` param) whose formulas went through
   * Markdown first, so that they are not converted: said once in the report.
   */
  mathUnread?: string;
  /** Front matter keys are read in any case (Hugo's `Title`, `Draft`): known keys are matched so. */
  keysIgnoreCase?: boolean;
  /**
   * The site does not publish a page dated in the future (Hugo without `buildFuture`, Jekyll
   * without `future`): such a page is imported as a draft.
   */
  hidesFuture?: boolean;
}

/** A document read and mapped, before it is written. */
interface Entry {
  doc: SiteDocument;
  file: string;
  data: Record<string, unknown>;
  lines: Record<string, number>;
  body: string;
  bodyLine: number;
  title: string;
  slug: string;
  lang: string | undefined;
  date: Date | undefined;
  /** The key the date was read from. */
  dateKey: string | undefined;
  draft: boolean;
  categories: string[];
  tags: string[];
  authors: string[];
  /** Its addresses on the old site, with the site's base path: the first is where it was. */
  addresses: string[];
  /** Its own front matter (`data` has the site's defaults too). */
  own: Record<string, unknown>;
}

/** Hugo's end of publication, under its names (Hugo's keys are read in any case). */
const EXPIRY_KEYS = ['expiryDate', 'expirydate', 'unpublishdate', 'unpublishDate'];

/** Where a page's date is, the first of these it has (a site may say otherwise: `dateKeys`). */
const DATE_KEYS = ['date', 'publishDate'];

/** Keys the mapping reads, per folder; any other key is reported as not imported. */
const ARTICLE_KEYS = new Set([
  'title',
  'slug',
  'date',
  'publishDate',
  'draft',
  'published',
  'categories',
  'category',
  'tags',
  'tag',
  'author',
  'authors',
  'description',
  'summary',
  'excerpt',
  'lang',
  'language',
  ...EXPIRY_KEYS,
]);
const PAGE_KEYS = new Set([
  'title',
  'slug',
  'draft',
  'published',
  'description',
  'lang',
  'language',
  ...EXPIRY_KEYS,
]);

/** Where copied images go under content/: one folder, keeping each file's path on the old site. */
export const MEDIA_FOLDER = 'media';

const MEDIA_NAME = new RegExp(`\\.(?:${MEDIA_EXTENSIONS.join('|')})$`, 'i');

/**
 * What a document becomes (keys cms-sync does not send are marked *; `plan` warns about them
 * unless resources.<resource>.passThrough lists them):
 *
 * - articles/<slug>.md: title, slug (translations only), date (`date`, else Hugo's `publishDate`,
 *   else a leading `YYYY-MM-DD-` of the file or bundle name; read in the site's time zone),
 *   `draft: true` (draft, `published: false`, `_drafts/`), category (the first category's slug),
 *   tags* (other categories, then tags), author* or authors* (user slugs), description*,
 *   excerpt* (`excerpt` or Hugo's `summary`), featured_image*, featured_image_alt* and
 *   featured_image_caption* (the theme's image: see SiteProfile.featuredImages), lang*.
 * - pages/<slug>.md: title, slug (translations only), draft, description*, featured_image* (with
 *   its alt and caption), lang*.
 * - categories/<slug>.md: name; users/<slug>.md: name, email, role, bio (from the site's author
 *   data), and a profile page's text as its body.
 *
 * A translation (a language in the file name, or a `lang` key other than the site's default) is
 * `<slug>-<lang>`. Any other front matter key is listed in the report with its file and line.
 */
export async function importSite(
  profile: SiteProfile,
  options: ImportOptions & OldSiteOptions,
): Promise<void> {
  const { report } = options;
  const shown = (abs: string) =>
    path.join(options.file, path.relative(profile.siteDir, abs)).split(path.sep).join('/');

  const entries: Entry[] = [];
  const known = profile.keysIgnoreCase ? knownKeys(profile) : undefined;
  for (const doc of profile.documents) {
    const file = shown(doc.absPath);
    // Read only inside the site: a document reached through a link that leads out is refused.
    let raw: string;
    try {
      raw = await readSiteFile(doc.absPath, profile.siteDir, file);
    } catch (error) {
      report.failures.push(`${(error as Error).message}; not imported`);
      continue;
    }
    const text = raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
    const parsed = parseFrontMatter(text);
    if (!('data' in parsed)) {
      report.failures.push(`${file}:${parsed.line}:${parsed.column}: ${parsed.message}; not imported`);
      continue;
    }
    const own = known ? withKnownKeys(parsed, known) : parsed;
    // The site's defaults under the file's own keys; only the file's own are reported if unread.
    const given = profile.defaults?.(doc);
    const defaults = given && known ? withKnownKeys({ data: given, lines: {} }, known).data : given;
    const read = defaults ? { ...own, data: deepMerge(defaults, own.data) } : own;
    const postTags = profile.postTags;
    if (postTags && doc.folder === 'pages' && names(read.data.tags, false).some((tag) => postTags.has(tag)))
      doc.folder = 'articles';
    const unpublished = profile.unpublished?.(read.data, read.body, doc);
    if (unpublished) {
      report.skip(unpublished);
      continue;
    }
    entries.push({ ...mapEntry(doc, file, read, profile, report), own: own.data });
  }
  if (entries.some((e) => e.lang !== undefined) && profile.defaultLanguage !== 'en')
    report.warnings.push(
      `the site's default language is \`${profile.defaultLanguage}\`: set \`languages: { default: ` +
        `'${profile.defaultLanguage}' }\` in sync.config.ts, so that its translations keep their keys`,
    );
  assignSlugs(entries, report);

  const writer = new ContentWriter({
    projectDir: options.projectDir,
    contentDir: options.contentDir,
    force: options.force,
    report,
    exists: existsSync,
  });
  const copies = new Map<string, string>();
  const links = oldSiteLinks(entries, profile, options.linkPath);
  const refsFrom = refResolver(entries, links.links, profile);
  const dropped = new Map<string, string[]>();
  const categories = new Map<string, string>();
  const users = new Map<string, Person & { name: string }>();

  const attributes = new Map<AttributeSyntax, string[]>();
  /** Where a post's featured image was hidden by its theme, and imported all the same. */
  const hidden: string[] = [];
  const imageKeys = new Set(profile.featuredKeys);
  // A site whose only math is in shortcodes read no `$`: only `$$` is math in what is written.
  const shortcodeMath = usesShortcodes(entries, profile.mathShortcodes);
  const mathSyntax = profile.math
    ? writtenSyntax(profile.math)
    : shortcodeMath
      ? { singleDollar: false }
      : false;
  if (mathSyntax) await loadMath();
  /** Formulas the document being imported had in math shortcodes. */
  const shortcodeFormulas = { count: 0 };
  const shortcodes =
    shortcodeMath && mathSyntax
      ? { ...profile.shortcodes, ...mathHandlers(profile.mathShortcodes!, mathSyntax, shortcodeFormulas) }
      : profile.shortcodes;
  const formulas = { count: 0, documents: 0, loneDollars: 0 };
  let done = 0;
  for (const entry of entries) {
    done++;
    shortcodeFormulas.count = 0;
    // Whatever one document's conversion throws (HTML past the converter's limits, a hostile
    // body) costs that document only; a SyncError is the run's.
    try {
      const { doc, file } = entry;
      // An HTML body is no one's Markdown: its braces are text.
      // Goldmark (Hugo) has attributes on headings, which sync reads as kramdown's (heading-ids.ts), and
      // on blocks when the site turns them on.
      const plain = doc.html
        ? unchanged(entry.body)
        : profile.kramdown
          ? removeAttributeSyntax(entry.body, profile.callouts)
          : profile.attributes
            ? removeAttributeSyntax(entry.body, undefined, profile.attributes)
            : unchanged(entry.body);
      for (const { line, what } of plain.removed) {
        const places = attributes.get(what) ?? [];
        const place = `${file}:${entry.bodyLine + line - 1}`;
        if (places.at(-1) !== place) places.push(place);
        attributes.set(what, places);
      }
      // A page that turned its templates off showed them as typed (a tutorial's code): none runs.
      const literal = profile.templatesOff?.(entry.data) === true;
      const raw = !literal && profile.dialect === 'liquid' ? protectRaw(plain.text) : undefined;
      const expanded = literal
        ? { text: plain.text, problems: [] }
        : expandTemplates(raw?.text ?? plain.text, {
            file,
            bodyLine: entry.bodyLine,
            site: profile.site,
            dialect: profile.dialect,
            resolveRef: refsFrom(entry),
            keepEscaped: true,
            ...(profile.frontMatterAs === 'page' ? { variables: { page: entry.data } } : {}),
            ...(profile.frontMatterAs === 'data' ? { variables: entry.data } : {}),
            ...(profile.dialect === 'hugo' ? { page: entry.data } : {}),
            ...(shortcodes ? { shortcodes } : {}),
          });
      for (const p of expanded.problems) {
        const inBody = p.line - entry.bodyLine;
        const line = entry.bodyLine + plain.bodyLine(raw ? raw.bodyLine(inBody) : inBody);
        report.warnings.push(`${p.file}:${line}:${p.column}: ${p.message}`);
      }
      const written = path.join(options.contentDir, doc.folder, `${entry.slug}.md`);
      const restored = raw ? raw.restore(expanded.text) : expanded.text;
      const html = doc.html
        ? htmlToMarkdown(restored, { localImages: true, onFlattened: () => report.drop(FLATTENED, file) })
        : profile.kramdown
          ? markdownInHtml(restored, { everyBlock: profile.parseBlockHtml === true })
          : restored;
      const inShortcodes = shortcodeFormulas.count;
      const math =
        !doc.html && (profile.math || inShortcodes > 0) ? convertMath(html, profile.math ?? {}) : undefined;
      if (math && math.formulas + inShortcodes > 0) {
        formulas.count += math.formulas + inShortcodes;
        formulas.documents++;
        if (math.loneDollars) formulas.loneDollars++;
      }
      const converted = math?.text ?? html;
      // The other generator's syntax was text on this site: so it stays, once sync reads the file.
      const markdown = templatesAsText(
        converted,
        literal ? 'both' : profile.dialect === 'hugo' ? 'liquid' : 'hugo',
        mathSyntax,
      );
      const unmatched: string[] = [];
      const placing: Placing = { profile, copies, contentDir: options.contentDir, written, shown, report };
      const rewritten = rewriteUrls(markdown, {
        link: (url) => rewriteLink(url, entry, links, report, unmatched),
        image: (given) => {
          const where = `${file}:${lineOf(entry, given)}`;
          const placed = placeImage(given, entry, where, placing);
          if ('to' in placed) return placed.to;
          if ('missing' in placed)
            report.warnings.push(
              `${where}: image \`${placed.url}\` ${placed.missing} left as written: plan reports it until the file ` +
                'is added or the reference removed',
            );
          if ('notMedia' in placed)
            report.warnings.push(
              `${where}: \`${placed.url}\` is not a media file cms-sync uploads; left as written`,
            );
          return undefined;
        },
      });
      const body =
        doc.html || !profile.extras
          ? rewritten
          : extrasOf(rewritten, profile.extras, file, report, mathSyntax);

      // Each listed by its line, the first few of a file: finding a line reads the body.
      for (const url of unmatched.slice(0, LISTED_LINKS))
        report.oldLink(`${file}:${lineOf(entry, url)}: ${url}`);
      const more = unmatched.length - LISTED_LINKS;
      if (more > 0) report.oldLink(`${file}: and ${more} more`, more);

      const fm: Record<string, unknown> = { title: entry.title };
      // sync keys a translation `<slug>-<lang>` itself (languages.default is the site's, see the
      // report): the file carries the slug without the language, and its `lang`.
      const suffix = entry.lang === undefined ? '' : `-${slugify(entry.lang)}`;
      const translated = entry.lang !== undefined && entry.lang !== profile.defaultLanguage;
      const langKey = translated && suffix !== '' && entry.slug.endsWith(suffix);
      if (translated) fm.slug = langKey ? entry.slug.slice(0, -suffix.length) : entry.slug;
      const used = doc.folder === 'articles' ? ARTICLE_KEYS : PAGE_KEYS;
      if (doc.folder === 'articles') {
        fm.date = entry.date;
        if (entry.draft) fm.draft = true;
        const [category, ...more] = entry.categories;
        if (category !== undefined) {
          const slug = slugify(category);
          if (!categories.has(slug)) categories.set(slug, category);
          fm.category = slug;
        }
        for (const name of more) {
          const slug = slugify(name);
          if (!categories.has(slug)) categories.set(slug, name);
        }
        if (more.length)
          report.skip('categories beyond the first of a post (the CMS takes one; added to its tags)');
        const tags = [...new Set([...more, ...entry.tags])];
        if (tags.length) fm.tags = tags;
        const handles = entry.authors.map((author) => {
          const [key, person] = findPerson(profile.people, author);
          const slug = slugify(key);
          if (!users.has(slug)) users.set(slug, { ...person, name: person?.name ?? author });
          return slug;
        });
        if (handles.length === 1) fm.author = handles[0];
        else if (handles.length > 1) fm.authors = handles;
      } else if (entry.draft) {
        fm.draft = true;
      }
      const description = text(entry.data.description);
      if (description) fm.description = description;
      const excerpt = text(entry.data.excerpt) ?? text(entry.data.summary);
      if (doc.folder === 'articles' && excerpt) fm.excerpt = excerpt;
      // A page has one too, as a Ghost page has (an About page's hero image). Its own: a default
      // for every page (a site-wide social card) is the site's, not the page's.
      Object.assign(fm, featured(profile.featuredImages?.(entry.own, doc) ?? [], entry, placing, hidden));
      if (langKey) fm.lang = entry.lang;
      for (const key of Object.keys(entry.own)) {
        if (used.has(key) || imageKeys.has(key) || profile.silentKeys.has(key) || key === entry.dateKey)
          continue;
        dropped.set(key, [...(dropped.get(key) ?? []), `${file}:${entry.lines[key] ?? 1}`]);
      }
      // The blank line after the front matter is the writer's to add.
      await writer.write(doc.folder, entry.slug, fm, body.replace(/^(?:[ \t]*\n)+/, ''), file);
    } catch (error) {
      if (error instanceof SyncError) throw error;
      report.failures.push(
        `${entry.file}: ${error instanceof Error ? error.message : String(error)}; not imported`,
      );
    }
    options.onProgress?.(done, entries.length);
  }

  for (const [slug, name] of categories)
    await writer.write('categories', slug, { name }, '', `category \`${name}\``);
  for (const [slug, person] of users) {
    const fm: Record<string, unknown> = { name: person.name };
    if (person.email && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(person.email)) fm.email = person.email;
    if (person.role) fm.role = person.role;
    if (person.bio) fm.bio = person.bio;
    await writer.write('users', slug, fm, person.about ?? '', `author \`${person.name}\``);
  }
  for (const [key, places] of dropped) {
    report.warnings.push(
      `front matter \`${key}\` is not imported (${places.length} file${places.length === 1 ? '' : 's'}): ` +
        firstPlaces(places),
    );
  }
  for (const [what, places] of attributes)
    report.warnings.push(`${ATTRIBUTES_REMOVED[what]} (${firstPlaces(places)})`);
  if (hidden.length)
    report.warnings.push(
      `featured images the old site hid (PaperMod's \`cover.hidden\`, Hugo Blox's \`preview_only\`) are ` +
        `imported all the same, since its social cards showed them; remove \`featured_image\` where the new ` +
        `site should not show one (${hidden.length} file${hidden.length === 1 ? '' : 's'}): ${firstPlaces(hidden)}`,
    );
  if (formulas.count > 0) report.warnings.push(mathAdvice(formulas));
  else if (profile.mathUnread) report.warnings.push(profile.mathUnread);
  await copyMedia(copies, profile.siteDir, options, report, shown);
  await writer.flush();
}

/** Whether a document calls one of these shortcodes, in either form (`{{< name` or `{{% name`). */
function usesShortcodes(entries: readonly { body: string }[], names: object | undefined): boolean {
  if (!names || Object.keys(names).length === 0) return false;
  const call = new RegExp(`\\{\\{[<%]-?\\s*(?:${Object.keys(names).join('|')})\\b`);
  return entries.some((entry) => call.test(entry.body));
}

/**
 * Handlers that write each math shortcode's TeX as remark-math reads it in `syntax`: a block as
 * `$$` lines around it, inline between `$` (or `$$` when only that is math), and count each.
 */
function mathHandlers(
  shortcodes: NonNullable<SiteProfile['mathShortcodes']>,
  syntax: MathSyntax,
  counted: { count: number },
): Record<string, BlockHandler> {
  const inline = syntax.singleDollar ? '$' : '$$';
  return Object.fromEntries(
    Object.entries(shortcodes).map(([name, read]) => [
      name,
      (call: ShortcodeCall) => {
        const { tex, display } = read(call);
        counted.count++;
        return display ? { block: `$$\n${tex}\n$$` } : `${inline}${tex}${inline}`;
      },
    ]),
  );
}

/** The report's line on math: how much was written as math, and the setting that reads it. */
function mathAdvice(formulas: { count: number; documents: number; loneDollars: number }): string {
  const { count, documents, loneDollars } = formulas;
  const setting =
    loneDollars > 0 ? '`markdown: { math: { singleDollar: false } }`' : '`markdown: { math: true }`';
  const dollars =
    loneDollars > 0
      ? ` (only \`$$\` is math then: the lone \`$\` of ${loneDollars} document${loneDollars === 1 ? '' : 's'} ` +
        'stays a dollar, as on the old site)'
      : '';
  return (
    `${count} formula${count === 1 ? '' : 's'} in ${documents} document${documents === 1 ? '' : 's'} written as ` +
    `math (\`$…$\`, \`$$…$$\`, the TeX as typed): set ${setting} in sync.config.ts${dollars}, so that they ` +
    'reach readers as typed rather than through Markdown'
  );
}

/** The first five places, and how many more. */
function firstPlaces(places: readonly string[]): string {
  return (places.length > 5 ? [...places.slice(0, 5), `and ${places.length - 5} more`] : places).join(', ');
}

/** What the report says of each kind of attribute syntax removed from the bodies. */
const ATTRIBUTES_REMOVED: Record<AttributeSyntax, string> = {
  attributes:
    'kramdown attribute lists (`{: .class}`, `{: width="200"}`) removed: the CMS takes no classes or ' +
    'attributes from Markdown',
  braces:
    'attribute lists (`{.class}`, `{target=_blank}`) removed: the CMS takes no classes or attributes from ' +
    'Markdown',
  toc: 'tables of contents (`* TOC` and `{:toc}`, `{% include toc %}`) removed: the CMS does not make them',
  extension:
    'kramdown extensions (`{::comment}`, `{::nomarkdown}`, `{::options}`) removed; what ' +
    '`{::nomarkdown}` held is kept',
};

/** Keys the importers read, besides the mapping's: how a site says a page is not its own. */
const READ_KEYS = ['headless', 'build', '_build', 'url', 'aliases', 'permalink'];

/** The keys the import reads, by their lower case. */
function knownKeys(profile: SiteProfile): Map<string, string> {
  const known = new Map<string, string>();
  for (const key of [
    ...ARTICLE_KEYS,
    ...PAGE_KEYS,
    ...READ_KEYS,
    ...(profile.dateKeys ?? []),
    ...(profile.featuredKeys ?? []),
    ...profile.silentKeys,
  ])
    if (!known.has(key.toLowerCase())) known.set(key.toLowerCase(), key);
  return known;
}

/**
 * Front matter whose keys the site reads in any case: each key that is a known one but for case
 * (`Title`, `Draft`, `PublishDate`) takes the known one's name, unless the file also has that.
 */
function withKnownKeys<T extends { data: Record<string, unknown>; lines: Record<string, number> }>(
  parsed: T,
  known: ReadonlyMap<string, string>,
): T {
  // No prototype: a key `__proto__` is a key like any other, not the object's parent.
  const data = Object.create(null) as Record<string, unknown>;
  const lines = Object.create(null) as Record<string, number>;
  for (const [key, value] of Object.entries(parsed.data)) {
    const name = known.get(key.toLowerCase()) ?? key;
    const to = name !== key && Object.hasOwn(parsed.data, name) ? key : name;
    data[to] = value;
    if (parsed.lines[key] !== undefined) lines[to] = parsed.lines[key];
  }
  return { ...parsed, data, lines };
}

/** A site's author by key, else by name (`author: Jane Doe` for the `jane` of data/authors). */
function findPerson(people: Map<string, Person>, author: string): [string, Person | undefined] {
  const byKey = people.get(author.toLowerCase());
  if (byKey) return [author, byKey];
  for (const [key, person] of people) {
    if (person.name?.toLowerCase() === author.toLowerCase()) return [key, person];
  }
  return [author, undefined];
}

function mapEntry(
  doc: SiteDocument,
  file: string,
  parsed: { data: Record<string, unknown>; lines: Record<string, number>; body: string; bodyLine: number },
  profile: SiteProfile,
  report: MigrationReport,
): Omit<Entry, 'own'> {
  const { data } = parsed;
  const at = (key: string) => `${file}:${parsed.lines[key] ?? 1}`;
  const lang = doc.lang ?? text(data.lang) ?? text(data.language);
  const base = slugOf(text(data.slug)) ?? doc.nameSlug;
  const slug = lang !== undefined && lang !== profile.defaultLanguage ? `${base}-${slugify(lang)}` : base;
  let title = text(data.title) ?? profile.defaultTitle?.(doc);
  if (title === undefined) {
    title = base;
    report.warnings.push(`${file}:1: no \`title\`: the slug \`${base}\` is its title`);
  }

  let date: Date | undefined;
  const dateKey = (profile.dateKeys ?? DATE_KEYS).find(
    (key) => data[key] !== undefined && typeof data[key] !== 'boolean',
  );
  if (dateKey !== undefined && /^(?:git )?(?:last modified|created)$/i.test(String(data[dateKey]))) {
    // Eleventy's dates from the file system or git history: not known here.
    report.skip(
      `Eleventy dates taken from the file system or git (\`${String(data[dateKey])}\`): not imported`,
    );
  } else if (dateKey !== undefined) {
    const parsedDate = parseDate(data[dateKey], profile.timeZone);
    if ('iso' in parsedDate) date = new Date(parsedDate.iso);
    else {
      report.warnings.push(
        `${at(dateKey)}: \`${dateKey}\` ${parsedDate.error}; ` +
          (doc.fileDate ? `the file name's date ${doc.fileDate} is used` : 'imported without a date'),
      );
    }
  }
  if (date === undefined && doc.fileDate !== undefined) {
    const fromName = parseDate(doc.fileDate, profile.timeZone);
    if ('iso' in fromName) date = new Date(fromName.iso);
  }

  // Hugo reads `draft: "true"` (a string) as a draft too.
  const draftValue = typeof data.draft === 'string' ? /^true$/i.test(data.draft.trim()) : data.draft === true;
  let draft = doc.draft === true || draftValue || data.published === false;
  // A page dated in the future is not on the site yet: not a published record either.
  const publishKey = data.publishDate !== undefined ? 'publishDate' : dateKey;
  const publishAt = publishKey === 'publishDate' ? parseDate(data.publishDate, profile.timeZone) : undefined;
  const due = publishAt && 'iso' in publishAt ? new Date(publishAt.iso) : date;
  if (!draft && profile.hidesFuture && due !== undefined && due.getTime() > Date.now()) {
    draft = true;
    report.warnings.push(
      `${at(publishKey ?? 'date')}: dated ${due.toISOString().slice(0, 10)}, in the future: the site has not ` +
        'published it yet, so it is imported as a draft; publish it when it is due',
    );
  }
  // Past its expiry the site no longer shows it: a draft, not a published record.
  const expiryKey = EXPIRY_KEYS.find((key) => data[key] !== undefined);
  if (!draft && expiryKey !== undefined) {
    const expiry = parseDate(data[expiryKey], profile.timeZone);
    if ('iso' in expiry && Date.parse(expiry.iso) <= Date.now()) {
      draft = true;
      report.warnings.push(
        `${at(expiryKey)}: \`${expiryKey}\` ${String(data[expiryKey])} has passed, so the site no longer ` +
          'shows it: imported as a draft',
      );
    }
  }
  const collection = profile.collectionTags ?? new Set<string>();
  const split = profile.spaceSeparatedNames === true;
  const categories = unique([
    ...(doc.pathCategories ?? []),
    ...names(data.categories, split),
    ...names(data.category, split),
  ]);
  const basePath = basePathOf(profile.site);
  const addresses = profile
    .addresses({
      place: doc.place,
      data,
      title,
      nameSlug: doc.nameSlug,
      date,
      categories,
      lang,
      folder: doc.folder,
      ...(doc.collection ? { collection: doc.collection } : {}),
    })
    .flatMap((address) => (basePath === '' ? [address] : [basePath + address, address]));
  return {
    doc,
    file,
    data,
    lines: parsed.lines,
    body: parsed.body,
    bodyLine: parsed.bodyLine,
    title,
    slug,
    lang,
    date,
    dateKey,
    draft,
    categories,
    tags: unique([...names(data.tags, split), ...names(data.tag, split)]).filter(
      (tag) => !collection.has(tag),
    ),
    authors: unique([...people(data.author), ...people(data.authors)]),
    addresses,
  };
}

/**
 * Two files with one slug (the same name in two years' folders): the oldest keeps it, the others
 * take their year (`hello-2023`), or a number, and the report says so. Nothing is dropped.
 */
function assignSlugs(entries: Entry[], report: MigrationReport): void {
  const byKey = new Map<string, Entry[]>();
  for (const entry of entries) {
    const key = `${entry.doc.folder}/${entry.slug}`;
    byKey.set(key, [...(byKey.get(key) ?? []), entry]);
  }
  const taken = new Set(byKey.keys());
  for (const group of byKey.values()) {
    if (group.length < 2) continue;
    group.sort(
      (a, b) =>
        (a.date?.getTime() ?? Infinity) - (b.date?.getTime() ?? Infinity) || a.file.localeCompare(b.file),
    );
    const [first, ...rest] = group;
    for (const entry of rest) {
      const folder = entry.doc.folder;
      const year = entry.date?.getUTCFullYear();
      let slug = year !== undefined ? `${entry.slug}-${year}` : `${entry.slug}-2`;
      for (let n = 2; taken.has(`${folder}/${slug}`); n++) slug = `${entry.slug}-${n}`;
      taken.add(`${folder}/${slug}`);
      report.warnings.push(
        `${entry.file}: its slug \`${entry.slug}\` is also ${first!.file}'s; written as \`${slug}\``,
      );
      entry.slug = slug;
    }
  }
}

interface SiteLinks {
  links: OldSiteLinks;
  /** Each imported file -> its new path: for a link to the file itself (`[b](../b.md)`). */
  bySource: Map<string, string>;
  /** The new paths: a link already made one (by `ref`) is not the old site's. */
  made: Set<string>;
  /** Folders a root-relative link to a file (`/posts/b.md`) is looked up in. */
  roots: string[];
  /**
   * What the site put before its own links (`/blog`, `https://me.example/blog`): Jekyll's idiom
   * `{{ site.baseurl }}{% post_url x %}` puts it before a path already made new.
   */
  prefixes: string[];
}

/** Every imported document's old addresses, each to become its new path (`--link-path`). */
function oldSiteLinks(entries: Entry[], profile: SiteProfile, linkPath: string | undefined): SiteLinks {
  const links = new OldSiteLinks(linkPath);
  for (const url of [profile.site.url, profile.site.baseUrl]) if (url) links.addSite(url);
  const bySource = new Map<string, string>();
  const made = new Set<string>();
  for (const entry of entries) {
    links.addAll(entry.addresses, entry.doc.folder, entry.slug);
    const to = links.pathOf(entry.doc.folder, entry.slug);
    bySource.set(entry.doc.absPath, to);
    made.add(to);
  }
  const base = basePathOf(profile.site);
  const origin = profile.site.url?.replace(/\/+$/, '');
  const prefixes = [
    ...(origin && /^https?:\/\//i.test(origin) ? [`${origin}${base}`, origin] : []),
    ...(base ? [base] : []),
  ];
  return { links, bySource, made, roots: [profile.mediaRoot, profile.siteDir], prefixes };
}

const MARKDOWN_FILE = MARKDOWN_NAME;

/** Links into the old site that reach no imported page, listed per file; the rest are counted. */
const LISTED_LINKS = 10;

/**
 * A link from `entry` to another imported document -> its new path, keeping the fragment: by its
 * address on the old site (root-relative, the site's own URL, or relative to the entry's own
 * address), or by its file (`../b.md`, as GitHub and Hugo's render hooks read them). A link to
 * the old site that reaches no imported document is added to `unmatched`; any other is left.
 */
function rewriteLink(
  url: string,
  entry: Entry,
  site: SiteLinks,
  report: MigrationReport,
  unmatched: string[],
): string | undefined {
  const value = url.trim();
  if (value === '' || /^[#?]/.test(value) || value.startsWith('//')) return undefined;
  const scheme = /^[a-z][a-z0-9+.-]*:/i.test(value);
  if (scheme && !/^https?:/i.test(value)) return undefined;
  const hash = value.indexOf('#');
  const fragment = hash === -1 ? '' : value.slice(hash);
  if (site.made.has(value.slice(0, hash === -1 ? undefined : hash))) return undefined;
  // A new path behind the site's base path or address (`{{ site.baseurl }}{% post_url x %}`).
  for (const prefix of site.prefixes) {
    if (!value.startsWith(`${prefix}/`)) continue;
    const rest = value.slice(prefix.length);
    const restHash = rest.indexOf('#');
    if (site.made.has(rest.slice(0, restHash === -1 ? undefined : restHash))) {
      report.rewrittenLinks++;
      return rest;
    }
  }
  const filePart = decodePath(value.replace(/[?#].*$/, ''));
  if (!scheme && MARKDOWN_FILE.test(filePart)) {
    const candidates = filePart.startsWith('/')
      ? site.roots.map((root) => path.join(root, filePart))
      : [path.resolve(path.dirname(entry.doc.absPath), filePart)];
    const to = candidates.map((abs) => site.bySource.get(abs)).find((found) => found !== undefined);
    if (to !== undefined) {
      report.rewrittenLinks++;
      return to + fragment;
    }
    unmatched.push(url);
    return undefined;
  }
  const own = entry.addresses[0];
  const relative = !scheme && !value.startsWith('/');
  if (relative && own === undefined) return undefined;
  const result = relative ? site.links.rewrite(value, own) : site.links.rewrite(value);
  if (!result) return undefined;
  if ('to' in result) {
    report.rewrittenLinks++;
    return result.to;
  }
  unmatched.push(url);
  return undefined;
}

function decodePath(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * `ref`, `relref`, `post_url`, `link` from an entry: the new path (`--link-path`, as for WordPress
 * and Ghost) of the page they name, found as the generator finds it (page-refs.ts), else the name's
 * (`/<name>/`), which a page's old address may still match.
 */
function refResolver(
  entries: Entry[],
  links: OldSiteLinks,
  profile: SiteProfile,
): (from: Entry) => (ref: PageRef) => string {
  const pageOf = new Map<Entry, RefPage>();
  for (const entry of entries) {
    const fromSite = path.relative(profile.siteDir, entry.doc.absPath).split(path.sep).join('/');
    const fromRoot = path.relative(profile.mediaRoot, entry.doc.absPath).split(path.sep).join('/');
    pageOf.set(entry, {
      file: entry.file,
      hugoPath: hugoPagePath(entry.doc.place, entry.doc.lang),
      hugoDir: path.posix.dirname(`/${entry.doc.place.split(path.sep).join('/')}`),
      sitePaths: fromRoot === fromSite ? [fromSite] : [fromSite, fromRoot],
      lang: (entry.lang ?? profile.defaultLanguage).toLowerCase(),
      post: entry.doc.folder === 'articles',
      to: links.pathOf(entry.doc.folder, entry.slug),
    });
  }
  const refs = new PageRefs([...pageOf.values()], profile.defaultLanguage);
  return (from) => (ref) => refs.resolve(ref, pageOf.get(from)!) ?? refPath(ref.target);
}

/** The body with the extras of the site's Markdown converted (markdown-extras.ts), counted. */
function extrasOf(
  body: string,
  extras: MarkdownExtras,
  file: string,
  report: MigrationReport,
  math: MathSyntax | false,
): string {
  const converted = convertExtras(body, extras, math);
  report.convert('definition lists', converted.definitionLists);
  report.convert('emoji shortcodes', converted.emoji);
  report.convert('abbreviations', converted.abbreviations);
  report.convert('alerts', converted.alerts);
  report.convert('typographic punctuation', converted.typographer);
  report.convert('line breaks', converted.lineBreaks);
  report.convert('tables', converted.tables);
  report.convert('subscripts, superscripts and marks', converted.inlineMarks);
  report.convert('containers (`:::`)', converted.containers);
  for (const name of converted.containersOwnRender)
    report.warnings.push(
      `${file}: \`::: ${name}\` blocks written as \`<div class="${name}">\` (a title as a bold first line): ` +
        'the site drew them with a render function of its own, which is JavaScript and not run; check them',
    );
  if (converted.definitionListsLeft)
    report.warnings.push(
      `${file}: more definition-list lines than are converted in good time (over ` +
        `${MAX_DEFINITION_LINES.toLocaleString('en')}); left as typed`,
    );
  return converted.text;
}

/** What placing a document's images needs: where copies go, and where the document is written. */
interface Placing {
  profile: SiteProfile;
  /** Copies to make: target under content/media/ -> file in the site. */
  copies: Map<string, string>;
  contentDir: string;
  /** The document's file under content/, which references are made relative to. */
  written: string;
  shown: (abs: string) => string;
  report: MigrationReport;
}

/** Where an image reference leads: its copy (as named from the document), another site, or why it is not copied. */
type Placed =
  { to: string } | { external: true } | { url: string; missing: string } | { url: string; notMedia: true };

/**
 * An image a document names (in its body or its front matter) -> the path of its copy under
 * content/media/, relative to the document's new file; the copy is noted in `copies`. A name
 * alone is under the page's image folder, when the page names one (Chirpy's `media_subpath`).
 */
function placeImage(given: string, entry: Entry, where: string, ctx: Placing): Placed {
  const { profile, report } = ctx;
  const base = profile.imageBase?.(entry.data);
  const url =
    base && !/^(?:[a-z][a-z0-9+.-]*:|\/)/i.test(given) ? `${base.replace(/\/+$/, '')}/${given}` : given;
  const found = findLocal(url, entry.doc, profile);
  if (found === 'external') return { external: true };
  if (!found) {
    const link = leadsOutside(url, entry.doc, profile);
    const missing = link
      ? `is ${ctx.shown(link)}, a link to a file outside the site; not copied,`
      : `is not in the site (looked in ${lookedIn(url, entry.doc, profile, ctx.shown)});`;
    return { url, missing };
  }
  if (!MEDIA_NAME.test(found)) return { url, notMedia: true };
  const target = path.join(ctx.contentDir, MEDIA_FOLDER, servedPath(found, profile));
  const other = ctx.copies.get(target);
  if (other !== undefined && other !== found) {
    report.warnings.push(
      `${where}: \`${url}\` and ${ctx.shown(other)} would be one file under content/; kept the first`,
    );
  }
  if (other === undefined) ctx.copies.set(target, found);
  return { to: path.relative(path.dirname(ctx.written), target).split(path.sep).join('/') };
}

/**
 * The first of the images a page's theme declares, as front matter; the others (a social card, a
 * list's teaser) are counted when they name another file: the CMS keeps one image a record.
 */
function featured(
  images: FeaturedImage[],
  entry: Entry,
  ctx: Placing,
  hidden: string[],
): Record<string, unknown> {
  const [image, ...others] = images;
  if (image === undefined) return {};
  if (image.hidden) hidden.push(placeOfImage(image, entry));
  const more = others.filter((other) => other.src !== image.src).length;
  if (more)
    ctx.report.skip(
      'images a post or page names besides its featured image (social cards, teasers): the CMS keeps one',
      more,
    );
  return featuredFrontMatter(image, entry, ctx);
}

/** `file:line` of the key a featured image was read from (a bundle's file: the file). */
function placeOfImage(image: FeaturedImage, entry: Entry): string {
  const key = image.keys[0];
  return `${entry.file}:${key === undefined ? 1 : (entry.lines[key] ?? 1)}`;
}

/**
 * The featured image as front matter: its copy's path (or another site's URL), alt text
 * and caption. Tried at each place the theme looks, in order (Hugo Blox's `assets/media/`); one
 * not in the site is reported at its line and left out, as WordPress's missing attachment is:
 * nothing would report a path in front matter that leads nowhere. Another site's URL is kept.
 */
function featuredFrontMatter(image: FeaturedImage, entry: Entry, ctx: Placing): Record<string, unknown> {
  const key = image.keys[0];
  const where = placeOfImage(image, entry);
  // The first place that has it: only that one is copied.
  let placed = placeImage(image.src, entry, where, ctx);
  for (const src of image.alternatives ?? []) {
    if ('to' in placed || 'external' in placed) break;
    const next = placeImage(src, entry, where, ctx);
    if ('to' in next) placed = next;
  }
  const named = `featured image \`${image.src}\`${key === undefined ? '' : ` (\`${key}\`)`}`;
  const described = {
    ...(image.alt ? { featured_image_alt: image.alt } : {}),
    ...(image.caption ? { featured_image_caption: image.caption } : {}),
  };
  if ('to' in placed) return { featured_image: placed.to, ...described };
  if ('external' in placed) return { featured_image: image.src, ...described };
  // The old site's own URL, for a file the site's folder does not hold: it may still be served.
  const url = /^https?:\/\//i.test(image.src);
  const what = 'missing' in placed ? placed.missing : 'is not a media file cms-sync uploads;';
  ctx.report.warnings.push(`${where}: ${named} ${what} ${url ? 'kept as its URL' : 'left out'}`);
  return url ? { featured_image: image.src, ...described } : {};
}

/**
 * The file a reference names, `external` for another site's URL, or undefined when it is not in
 * the site. The old site's own absolute URLs count as its paths.
 */
function findLocal(url: string, doc: SiteDocument, profile: SiteProfile): string | 'external' | undefined {
  const candidates = candidatesOf(url, doc, profile);
  if (candidates === 'external') return candidates;
  return candidates.find((abs) => placeOf(abs, profile.siteDir) === 'in');
}

/** A file's path under `root`, with `/` between folders. */
export function sitePath(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join('/');
}

/** A file named in the site: really in it, or a link leading out; undefined for no such file. */
function placeOf(abs: string, siteDir: string): 'in' | 'out' | undefined {
  if (!isInside(siteDir, abs) || !statSync(abs, { throwIfNoEntry: false })?.isFile()) return undefined;
  return realInSite(abs, siteDir) === undefined ? 'out' : 'in';
}

/** The file in the site a URL names that is a link leading out of it, if that is why it is not found. */
function leadsOutside(url: string, doc: SiteDocument, profile: SiteProfile): string | undefined {
  const candidates = candidatesOf(url, doc, profile);
  if (candidates === 'external') return undefined;
  return candidates.find((abs) => placeOf(abs, profile.siteDir) === 'out');
}

/**
 * A configuration or data file of the site, as text. One that a symbolic link leads out of the
 * site is not read: its values would reach content/ (`{{< param >}}`, authors).
 */
export async function readSiteFile(file: string, siteDir: string, shown: string): Promise<string> {
  const real = realInSite(file, siteDir);
  if (real === undefined) {
    throw new SyncError(
      'CMS_SYNC_INPUT',
      `${shown}: a symbolic link to a file outside the site; not read. Copy the file into the site`,
    );
  }
  return readFile(real, 'utf8');
}

/**
 * The file's real path when it lies in the site, else undefined. A symbolic link in the site's
 * folder may lead anywhere (`static/logo.png -> ~/.ssh/id_rsa`): what it leads to is judged, so
 * that an import never copies into content/, to be uploaded, a file from outside the site.
 */
function realInSite(abs: string, siteDir: string): string | undefined {
  try {
    const real = realpathSync(abs);
    return isInside(realpathSync(siteDir), real) ? real : undefined;
  } catch {
    return undefined;
  }
}

function candidatesOf(url: string, doc: SiteDocument, profile: SiteProfile): string[] | 'external' {
  let value = url.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(value) || value.startsWith('//')) {
    const own = ownPath(value, profile.site);
    if (own === undefined) return 'external';
    value = own;
  }
  value = value.replace(/[?#].*$/, '');
  try {
    value = decodeURIComponent(value);
  } catch {
    // A stray `%`: the name is taken as written.
  }
  if (value === '') return [];
  if (value.startsWith('/')) {
    const base = basePathOf(profile.site);
    if (base !== '' && (value === base || value.startsWith(`${base}/`))) value = value.slice(base.length);
    const mounted = (profile.servedAt ?? []).flatMap((served) =>
      value === served.path || value.startsWith(`${served.path}/`)
        ? [path.join(served.dir, value.slice(served.path.length))]
        : [],
    );
    return [...mounted, ...profile.servedRoots.map((root) => path.join(root, value))];
  }
  return [path.join(doc.baseDir, value), ...profile.servedRoots.map((root) => path.join(root, value))];
}

function lookedIn(
  url: string,
  doc: SiteDocument,
  profile: SiteProfile,
  shown: (abs: string) => string,
): string {
  const candidates = candidatesOf(url, doc, profile);
  return candidates === 'external' ? url : candidates.map(shown).join(', ');
}

/** The path of a URL on the old site (`https://old.example/blog/x.png` -> `/blog/x.png`), else undefined. */
function ownPath(url: string, site: SiteInfo): string | undefined {
  const origins = [site.url, site.baseUrl].filter(
    (v): v is string => !!v && /^https?:\/\//i.test(v) && URL.canParse(v),
  );
  if (origins.length === 0 || !URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return origins.some((o) => new URL(o).host === parsed.host) ? parsed.pathname : undefined;
}

function basePathOf(site: SiteInfo): string {
  let base = site.baseUrl ?? '';
  if (/^https?:\/\//i.test(base)) base = URL.canParse(base) ? new URL(base).pathname : '';
  return base.replace(/\/+$/, '').replace(/^(?=[^/])/, '/');
}

/** Where a site file lands under content/media/: its path under the served root it is in. */
function servedPath(abs: string, profile: SiteProfile): string {
  const served = profile.servedAt?.find((s) => isInside(s.dir, abs));
  if (served) return path.join(served.path.slice(1), path.relative(served.dir, abs));
  const root =
    profile.servedRoots.find((r) => isInside(r, abs)) ??
    (isInside(profile.mediaRoot, abs) ? profile.mediaRoot : profile.siteDir);
  return path.relative(root, abs);
}

async function copyMedia(
  copies: Map<string, string>,
  siteDir: string,
  options: ImportOptions,
  report: MigrationReport,
  shown: (abs: string) => string,
): Promise<void> {
  const folders = new Map<string, string | undefined>();
  for (const [target, source] of copies) {
    // Judged again as it is copied, and copied from where it really is: a link changed since it
    // was found cannot lead the copy out of the site.
    const real = realInSite(source, siteDir);
    if (real === undefined) {
      report.failures.push(`${shown(source)}: leads outside the site; not copied`);
      continue;
    }
    const rel = path.relative(options.projectDir, target).split(path.sep).join('/');
    const refused = leavesContent(options.contentDir, target, folders);
    if (refused) {
      report.failures.push(`${shown(source)}: ${rel} ${refused}; not copied`);
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    try {
      await copyFile(real, target, options.force ? 0 : constants.COPYFILE_EXCL);
      report.wrote(MEDIA_FOLDER);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST')
        report.failures.push(`${shown(source)}: could not be copied to ${rel} (${code})`);
      else if (!(await sameBytes(real, target))) report.existing.push(rel);
    }
  }
}

async function sameBytes(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([readFile(a), readFile(b)]);
  return x.equals(y);
}

/** The 1-based file line where `needle` first appears in the body, else the body's first line. */
function lineOf(entry: Entry, needle: string): number {
  const at = entry.body.indexOf(needle);
  if (at === -1) return entry.bodyLine;
  let line = entry.bodyLine;
  for (let i = entry.body.indexOf('\n'); i !== -1 && i < at; i = entry.body.indexOf('\n', i + 1)) line++;
  return line;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function slugOf(value: string | undefined): string | undefined {
  return value === undefined ? undefined : value.replace(/^\/+|\/+$/g, '') || undefined;
}

/** A taxonomy value: a list, or one string (with `split`, Jekyll's space- or comma-separated names). */
function names(value: unknown, split: boolean): string[] {
  if (Array.isArray(value)) return value.map(text).filter((v): v is string => v !== undefined);
  const one = text(value);
  if (one === undefined) return [];
  if (!split) return [one];
  return one
    .split(one.includes(',') ? ',' : /\s+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Authors as names: text, or a mapping with `name` (or jekyll-import's `display_name`, `login`). */
function people(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return list
    .map((v) => {
      if (!v || typeof v !== 'object') return text(v);
      const person = v as Record<string, unknown>;
      return text(person.name) ?? text(person.display_name) ?? text(person.login);
    })
    .filter((v): v is string => v !== undefined);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

export function personOf(value: unknown): Person {
  const fields = record(value);
  return {
    ...(text(fields.name) ? { name: text(fields.name) } : {}),
    ...(text(fields.email) ? { email: text(fields.email) } : {}),
    ...(text(fields.role) ? { role: text(fields.role) } : {}),
    ...(text(fields.bio) ? { bio: text(fields.bio) } : {}),
  };
}
