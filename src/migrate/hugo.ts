import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { SyncError } from '../errors.js';
import { isInside } from '../source/content-paths.js';
import { parseFrontMatter } from '../source/front-matter.js';
import { dateFromFileName } from '../records/parse-date.js';
import { MATH_SHORTCODES, THEME_SHORTCODES } from './hugo-theme-shortcodes.js';
import type { ImportOptions } from './import-options.js';
import type { OldSiteOptions } from './old-links.js';
import type { MigrationReport } from './report.js';
import type { OldSiteMath } from './old-math.js';
import {
  bundleFile,
  featuredImages,
  firstOfList,
  hugoBloxImage,
  imageKey,
  type FeaturedImage,
} from './featured-image.js';
import { cascadeFor, cascadeOf, hugoPagePath, type CascadeEntry } from './hugo-cascade.js';
import { hugoAddresses } from './site-addresses.js';
import { anyCase, MARKDOWN_NAME, record, stemOf, text } from './site-values.js';
import {
  importSite,
  personOf,
  readSiteFile,
  sitePath,
  type Person,
  type SiteDocument,
} from './site-import.js';

/**
 * A Hugo site -> content/ files:
 *
 * - configuration from hugo.{toml,yaml,yml,json}, config.{toml,yaml,yml,json} or
 *   config/_default/: baseURL, contentDir, staticDir, defaultContentLanguage, languages (with
 *   their own contentDir), timeZone, params (for `{{< param >}}`);
 * - a page bundle (`<dir>/index.md`, `<dir>/index.<lang>.md`) is one record per language, named
 *   after its folder; its other files are resources (images are copied when used, Markdown files
 *   are not records); `_index.md` (home, section and term lists) is not imported, but an
 *   `authors/<id>/_index.md` (Hugo Blox) gives that author's profile;
 * - files and bundles in a section folder (`content/posts/…`) are articles, those at the top of
 *   content/ are pages;
 * - images from the bundle, from static/ (served at `/`) and the site's own absolute URLs;
 * - a post's featured image from its theme's keys (see HUGO_FEATURED) or its bundle's `*featured*` file.
 */
export async function importHugo(options: ImportOptions & OldSiteOptions): Promise<void> {
  const siteDir = options.absPath;
  const config = await readHugoConfig(siteDir, options.file);
  const languages = Object.keys(record(config.languages));
  const defaultLanguage = text(config.defaultContentLanguage) ?? languages[0] ?? 'en';
  const timeZone = text(config.timeZone) ?? text(config.timezone) ?? 'UTC';
  const contentRoot = insideSite(siteDir, text(config.contentDir) ?? 'content', 'contentDir', options.file);
  const staticDirs = (Array.isArray(config.staticDir) ? config.staticDir : [config.staticDir ?? 'static'])
    .filter((d): d is string => typeof d === 'string')
    .map((d) => path.join(siteDir, d));

  const known = new Set(languages.map((l) => l.toLowerCase()));
  const isLanguage = (code: string) =>
    known.size > 0 ? known.has(code.toLowerCase()) : /^[a-z]{2,3}(?:-[a-z0-9]{2,8})?$/i.test(code);
  const documents: SiteDocument[] = [];
  const bundleImages = new Map<string, string>();
  const listPages: Walk['listPages'] = [];
  const authorPages: Walk['authorPages'] = [];
  const roots = contentRoots(siteDir, contentRoot, config, options.file);
  const skip = new Set(roots.map((root) => root.dir));
  for (const root of roots) {
    if (!existsSync(root.dir)) continue;
    await walk(root.dir, root.dir, root.lang, {
      isLanguage,
      documents,
      bundleImages,
      listPages,
      authorPages,
      report: options.report,
      skip,
      shown: (absPath) => path.join(options.file, path.relative(siteDir, absPath)).split(path.sep).join('/'),
    });
  }
  const cascades = await readCascades(listPages, siteDir, options.file, defaultLanguage, options.report);
  const siteCascade = cascadeOf(anyCase(config, 'cascade'));
  if (documents.length === 0 && !existsSync(contentRoot)) {
    throw new SyncError(
      'CMS_SYNC_INPUT',
      `${options.file}: no content/ folder and no Markdown found: is this the root of a Hugo site?`,
    );
  }

  await importSite(
    {
      kind: 'Hugo',
      siteDir,
      dialect: 'hugo',
      site: {
        ...(text(config.baseURL) ? { baseUrl: text(config.baseURL) } : {}),
        params: record(config.params),
      },
      timeZone,
      defaultLanguage,
      people: await readPeople(siteDir, options.file, options.report, {
        pages: authorPages.filter((page) => (page.lang ?? defaultLanguage) === defaultLanguage),
        shown: (abs) => path.join(options.file, path.relative(siteDir, abs)).split(path.sep).join('/'),
      }),
      // Hugo's image render hook finds a path among the site's assets too (global resources).
      servedRoots: [...staticDirs, path.join(siteDir, text(config.assetDir) ?? 'assets')],
      mediaRoot: contentRoot,
      documents,
      // Hugo's `comment` (0.137): what it holds is never shown.
      shortcodes: {
        comment: () => '',
        ...THEME_SHORTCODES,
      },
      mathShortcodes: MATH_SHORTCODES,
      silentKeys: new Set([
        'layout',
        'type',
        'weight',
        'lastmod',
        'translationKey',
        'menu',
        'build',
        '_build',
      ]),
      unpublished,
      defaults: (doc) => {
        const lang = doc.lang ?? defaultLanguage;
        const root = doc.absPath.slice(0, doc.absPath.length - doc.place.length - 1);
        // The site's, then each section's from the top down to the page's own.
        const chain = [siteCascade];
        let dir = root;
        for (const part of path
          .dirname(doc.place)
          .split('/')
          .filter((p) => p !== '.')) {
          chain.push(cascades.get(`${dir}\0${lang}`) ?? []);
          dir = path.join(dir, part);
        }
        chain.push(cascades.get(`${dir}\0${lang}`) ?? []);
        return cascadeFor(chain, hugoPagePath(doc.place, doc.lang), lang);
      },
      featuredImages: (data, doc) => hugoFeatured(data, bundleImages.get(doc.absPath)),
      featuredKeys: HUGO_FEATURED_KEYS,
      addresses: hugoAddresses(config, defaultLanguage, timeZone),
      keysIgnoreCase: true,
      // Hugo's default `frontmatter.date`: the first of these a page has.
      dateKeys: ['date', 'publishDate', 'pubdate', 'published', 'lastmod', 'modified'],
      hidesFuture: config.buildFuture !== true,
      ...hugoMath(config),
      // `{.class}` on a line after a block, with `markup.goldmark.parser.attribute.block`.
      ...(anyCase(record(anyCase(goldmarkSetting(config, 'parser'), 'attribute')), 'block') === true
        ? { attributes: 'goldmark' as const }
        : {}),
      // Goldmark's definition lists are on unless turned off; emoji only with `enableEmoji`.
      extras: {
        definitionLists: anyCase(goldmarkExtensions(config), 'definitionList') !== false,
        // Goldmark's extras (Hugo 0.126 on), each off unless enabled.
        subscript: extraEnabled(config, 'subscript'),
        superscript: extraEnabled(config, 'superscript'),
        mark: extraEnabled(config, 'mark'),
        emoji: anyCase(config, 'enableEmoji') === true,
        // Hugo 0.132 on hands `> [!NOTE]` to the theme's blockquote hook as an alert.
        alerts: true,
        typographer:
          record(anyCase(goldmarkExtensions(config), 'typographer')).disable !== true &&
          anyCase(goldmarkExtensions(config), 'typographer') !== false,
        hardWraps: anyCase(goldmarkSetting(config, 'renderer'), 'hardWraps') === true,
      },
    },
    options,
  );
}

/**
 * Where Hugo's popular themes keep a post's image, best first: PaperMod's `cover` (`image`, `alt`,
 * `caption`; `relative: true` names a file of the bundle, which is looked in first anyway),
 * Ananke's `featured_image`, Clarity's `featureImage` (with `featureImageAlt`, `featureImageCap`),
 * LoveIt's and DoIt's `featuredImage` (and `featuredImagePreview`, their lists'), Stack's and Hugo
 * Blox's `image`, then `images`, whose first Hugo's own social-card templates use, then a bundle's
 * `*featured*` image (`bundled`), which Hugo Blox shows without any key.
 */
function hugoFeatured(data: Record<string, unknown>, bundled: string | undefined): FeaturedImage[] {
  return featuredImages(data, [
    imageKey('cover'),
    imageKey('featured_image'),
    imageKey('featureImage', { alt: 'featureImageAlt', caption: 'featureImageCap' }),
    imageKey('featuredImage'),
    imageKey('featuredImagePreview'),
    hugoBloxImage(bundled),
    firstOfList('images'),
    bundleFile(bundled),
  ]);
}

/** The keys hugoFeatured reads. */
const HUGO_FEATURED_KEYS = [
  'cover',
  'featured_image',
  'featureImage',
  'featureImageAlt',
  'featureImageCap',
  'featuredImage',
  'featuredImagePreview',
  'image',
  'images',
];

/**
 * Pages Hugo never renders: a headless bundle (a folder of resources that other pages use) and a
 * page whose build options (`build`, or `_build` before Hugo 0.145) say `render: never`.
 */
function unpublished(data: Record<string, unknown>): string | undefined {
  if (data.headless === true) return 'headless bundles (`headless: true`: Hugo renders no page for them)';
  for (const key of ['build', '_build']) {
    const render = record(data[key]).render;
    if (render === false || (typeof render === 'string' && /^(?:never|false)$/i.test(render)))
      return 'pages Hugo never renders (`build: { render: never }`)';
  }
  return undefined;
}

interface Walk {
  isLanguage: (code: string) => boolean;
  documents: SiteDocument[];
  /** A bundle's `*featured*` image (Hugo Blox's featured image), by the path of its index files. */
  bundleImages: Map<string, string>;
  /** The list pages (`_index.md`), whose `cascade` their sections' pages take. */
  listPages: Array<{ absPath: string; dir: string; lang: string | undefined }>;
  /** Hugo Blox's author profiles, `authors/<id>/_index.md`: the `authors` taxonomy's term pages. */
  authorPages: Array<{ absPath: string; id: string; lang: string | undefined }>;
  report: MigrationReport;
  /** The content folders: one inside another (content/en in content/) is walked as its own root only. */
  skip: ReadonlySet<string>;
  /** A file of the site as a message names it (the site's path as given, then the file's in it). */
  shown: (absPath: string) => string;
}

/**
 * Where each language's files are. A language with a contentDir of its own (translation by
 * folder, `content/en/`, `content/fr/`) has its files there; the others share the site's
 * contentDir, where a file's language is in its name (`post.fr.md`). The site's folder is read only
 * when a language (or a site with none configured) uses it.
 */
function contentRoots(
  siteDir: string,
  contentRoot: string,
  config: Record<string, unknown>,
  shownDir: string,
): Array<{ dir: string; lang?: string }> {
  const roots: Array<{ dir: string; lang?: string }> = [];
  let shared = false;
  const languages = Object.entries(record(config.languages));
  for (const [lang, settings] of languages) {
    const own = text(record(settings).contentDir);
    const dir = own ? insideSite(siteDir, own, `languages.${lang}.contentDir`, shownDir) : undefined;
    if (!dir || dir === contentRoot) shared = true;
    else if (!roots.some((root) => root.dir === dir)) roots.push({ dir, lang });
  }
  if (shared || languages.length === 0) roots.unshift({ dir: contentRoot });
  return roots;
}

/**
 * How the site read math: Goldmark's passthrough (the way Hugo's docs set up math), its TeX handed
 * untouched to the page's MathJax or KaTeX between the configured delimiters. A `math` param
 * (site or page, as PaperMod, Blowfish, Stack and others read it) without passthrough loaded a
 * renderer that read Goldmark's output, where escapes and emphasis had already applied: those
 * formulas are left as typed, and the report says so.
 */
function hugoMath(
  config: Record<string, unknown>,
): { math: OldSiteMath } | { mathUnread: string } | undefined {
  const passthrough = record(anyCase(goldmarkExtensions(config), 'passthrough'));
  const delimiters = record(anyCase(passthrough, 'delimiters'));
  const pairs = (key: string) =>
    (Array.isArray(anyCase(delimiters, key)) ? (anyCase(delimiters, key) as unknown[]) : []).flatMap(
      (pair) =>
        Array.isArray(pair) && pair.length === 2 && pair.every((d) => typeof d === 'string' && d !== '')
          ? [[pair[0] as string, pair[1] as string] as const]
          : [],
    );
  const math = { block: pairs('block'), inline: pairs('inline') };
  if (anyCase(passthrough, 'enable') === true && (math.block.length > 0 || math.inline.length > 0))
    return { math };
  const params = record(anyCase(config, 'params'));
  if (
    anyCase(params, 'math') === true ||
    anyCase(params, 'katex') === true ||
    anyCase(params, 'mathjax') === true
  )
    return {
      mathUnread:
        "the site loads a math renderer (`params.math`) without Goldmark's passthrough, so its formulas went " +
        'through Markdown before MathJax or KaTeX read them: they are left as typed. Check them, write them ' +
        'as `$…$` and `$$…$$` with their TeX as it should be, and set `markdown: { math: true }` in sync.config.ts',
    };
  return undefined;
}

/** Whether `markup.goldmark.extensions.extras.<name>.enable` is set. */
function extraEnabled(config: Record<string, unknown>, name: string): boolean {
  return (
    anyCase(record(anyCase(record(anyCase(goldmarkExtensions(config), 'extras')), name)), 'enable') === true
  );
}

/** Hugo's `markup.goldmark.extensions`, in any case. */
function goldmarkExtensions(config: Record<string, unknown>): Record<string, unknown> {
  return goldmarkSetting(config, 'extensions');
}

/** `markup.goldmark.<key>` of the site's config (`extensions`, `renderer`), keys in any case. */
function goldmarkSetting(config: Record<string, unknown>, key: string): Record<string, unknown> {
  return record(anyCase(record(anyCase(record(anyCase(config, 'markup')), 'goldmark')), key));
}

/**
 * A folder the configuration names (`contentDir`), which must lie in the site: a site handed to
 * you with `contentDir = "../../notes"` would otherwise import your own files.
 */
function insideSite(siteDir: string, given: string, key: string, shownDir: string): string {
  const dir = path.resolve(siteDir, given);
  if (!isInside(siteDir, dir))
    throw new SyncError(
      'CMS_SYNC_INPUT',
      `${shownDir}: \`${key}\` is \`${given}\`, outside the site: an import reads only the site's own folder`,
    );
  return dir;
}

/** Splits `name.es.md` into `name` and `es` when `es` is a language of the site. */
function nameAndLanguage(file: string, walk: Walk): { name: string; lang?: string } {
  const stem = stemOf(file);
  const dot = stem.lastIndexOf('.');
  if (dot > 0 && walk.isLanguage(stem.slice(dot + 1)))
    return { name: stem.slice(0, dot), lang: stem.slice(dot + 1) };
  return { name: stem };
}

async function walk(root: string, dir: string, rootLang: string | undefined, ctx: Walk): Promise<void> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const markdown = entries.filter((e) => e.isFile() && MARKDOWN_NAME.test(e.name) && !e.name.startsWith('.'));
  const atTop = dir === root;
  const folder = atTop ? 'pages' : 'articles';

  const bundleIndexes = markdown.filter((e) => nameAndLanguage(e.name, ctx).name === 'index');
  if (bundleIndexes.length > 0 && !atTop) {
    const bundle = path.basename(dir);
    const dated = dateFromFileName(bundle);
    // The theme's `GetMatch "*featured*"` (Hugo Blox) or `"feature*"` (Blowfish, Congo): the first by name.
    const featured = entries.find((e) => e.isFile() && FEATURED_FILE.test(e.name))?.name;
    for (const index of bundleIndexes) {
      if (featured !== undefined) ctx.bundleImages.set(path.join(dir, index.name), featured);
      const lang = nameAndLanguage(index.name, ctx).lang ?? rootLang;
      ctx.documents.push({
        absPath: path.join(dir, index.name),
        folder: path.dirname(dir) === root ? 'pages' : 'articles',
        nameSlug: dated?.rest ?? bundle,
        ...(lang ? { lang } : {}),
        ...(dated ? { fileDate: dated.date } : {}),
        baseDir: dir,
        place: sitePath(root, path.join(dir, index.name)),
      });
    }
    const resources = markdown.length - bundleIndexes.length;
    if (resources) ctx.report.skip('Markdown files inside page bundles (resources, not pages)', resources);
    return;
  }
  for (const entry of entries) {
    const format = entry.isFile() ? OTHER_FORMATS.exec(entry.name)?.[1] : undefined;
    if (format) ctx.report.skip(`content files in .${format.toLowerCase()} (cms-sync imports Markdown)`);
    // Hugo 0.126's content adapter: a template that makes pages from data when the site is built.
    if (entry.isFile() && entry.name === '_content.gotmpl')
      ctx.report.warnings.push(
        `${ctx.shown(path.join(dir, entry.name))}: a content adapter makes this section's pages from ` +
          'data when Hugo builds the site; cms-sync does not run templates, so those pages are not imported ' +
          '(write them as Markdown files, or import them from where their data comes from)',
      );
  }
  for (const entry of markdown) {
    const { name, lang = rootLang } = nameAndLanguage(entry.name, ctx);
    if (name === '_index' && path.dirname(dir) === path.join(root, 'authors')) {
      ctx.authorPages.push({ absPath: path.join(dir, entry.name), id: path.basename(dir), lang });
      continue;
    }
    if (name === '_index') {
      ctx.report.skip('list pages (_index.md: the home page, sections, taxonomies)');
      ctx.listPages.push({ absPath: path.join(dir, entry.name), dir, lang });
      continue;
    }
    const dated = dateFromFileName(name);
    ctx.documents.push({
      absPath: path.join(dir, entry.name),
      folder,
      nameSlug: dated?.rest ?? name,
      ...(lang ? { lang } : {}),
      ...(dated ? { fileDate: dated.date } : {}),
      baseDir: dir,
      place: sitePath(root, path.join(dir, entry.name)),
    });
  }
  for (const entry of entries) {
    const sub = path.join(dir, entry.name);
    if (entry.isDirectory() && !entry.name.startsWith('.') && !ctx.skip.has(sub))
      await walk(root, sub, rootLang, ctx);
  }
}

/**
 * The `cascade` of each list page, by its folder and language (`_index.md` is the default
 * language's, `_index.es.md` Spanish's). One whose front matter cannot be read is reported.
 */
async function readCascades(
  listPages: Walk['listPages'],
  siteDir: string,
  shownDir: string,
  defaultLanguage: string,
  report: MigrationReport,
): Promise<Map<string, CascadeEntry[]>> {
  const cascades = new Map<string, CascadeEntry[]>();
  for (const page of listPages) {
    const shown = path.join(shownDir, path.relative(siteDir, page.absPath)).split(path.sep).join('/');
    let source: string;
    try {
      source = await readSiteFile(page.absPath, siteDir, shown);
    } catch (error) {
      report.warnings.push(`${(error as Error).message}; its \`cascade\` is not applied`);
      continue;
    }
    if (!/^[ \t]*\W*cascade\b/im.test(source)) continue;
    const parsed = parseFrontMatter(source.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n'));
    if (!('data' in parsed)) {
      report.warnings.push(`${shown}:${parsed.line}: ${parsed.message}; its \`cascade\` is not applied`);
      continue;
    }
    const entries = cascadeOf(anyCase(parsed.data, 'cascade'));
    if (entries.length > 0) cascades.set(`${page.dir}\0${page.lang ?? defaultLanguage}`, entries);
  }
  return cascades;
}

/**
 * A bundle's image that a theme takes as the page's by its name: Hugo Blox's `*featured*`,
 * Blowfish's and Congo's `feature*` (`feature.jpg`, `featured-x.png`).
 */
const FEATURED_FILE = /^(?:feature[^/]*|[^/]*featured[^/]*)\.(?:png|jpe?g|gif|webp|avif|svg)$/i;

/** Content formats Hugo renders besides Markdown. */
const OTHER_FORMATS = /\.(html?|adoc|asciidoc|org|rst|pandoc|pdc)$/i;

const CONFIG_NAMES = [
  'hugo.toml',
  'hugo.yaml',
  'hugo.yml',
  'hugo.json',
  'config.toml',
  'config.yaml',
  'config.yml',
  'config.json',
];

/** The site configuration: a root file, else config/_default/ (with its params.* and languages.*). */
async function readHugoConfig(siteDir: string, shownDir: string): Promise<Record<string, unknown>> {
  for (const name of CONFIG_NAMES) {
    const file = path.join(siteDir, name);
    if (existsSync(file)) return readConfigFile(file, siteDir, path.join(shownDir, name));
  }
  const defaults = path.join(siteDir, 'config', '_default');
  if (!existsSync(defaults)) return {};
  let config: Record<string, unknown> = {};
  for (const name of CONFIG_NAMES) {
    const file = path.join(defaults, name);
    if (existsSync(file))
      config = await readConfigFile(file, siteDir, path.join(shownDir, 'config', '_default', name));
  }
  for (const key of ['params', 'languages']) {
    for (const ext of ['toml', 'yaml', 'yml', 'json']) {
      const file = path.join(defaults, `${key}.${ext}`);
      if (existsSync(file))
        config[key] = await readConfigFile(
          file,
          siteDir,
          path.join(shownDir, 'config', '_default', `${key}.${ext}`),
        );
    }
  }
  return config;
}

async function readConfigFile(
  file: string,
  siteDir: string,
  shown: string,
): Promise<Record<string, unknown>> {
  const source = await readSiteFile(file, siteDir, shown);
  try {
    const value: unknown = file.endsWith('.toml')
      ? parseToml(source)
      : file.endsWith('.json')
        ? JSON.parse(source)
        : parseYaml(source);
    return record(value);
  } catch (error) {
    throw new SyncError(
      'CMS_SYNC_INPUT',
      `${shown}: the site configuration cannot be read: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * The site's authors by handle: `data/authors.{yaml,toml,json}` (name, email, role, bio), as many
 * themes keep them, Blowfish's and Congo's `data/authors/<id>.json`, and Hugo Blox's profile pages.
 */
async function readPeople(
  siteDir: string,
  shownDir: string,
  report: MigrationReport,
  profiles: { pages: Walk['authorPages']; shown: (abs: string) => string },
): Promise<Map<string, Person>> {
  const people = new Map<string, Person>();
  for (const ext of ['yaml', 'yml', 'toml', 'json']) {
    const file = path.join(siteDir, 'data', `authors.${ext}`);
    if (!existsSync(file)) continue;
    const shown = path.join(shownDir, 'data', `authors.${ext}`);
    for (const [key, value] of Object.entries(await readConfigFile(file, siteDir, shown)))
      people.set(key.toLowerCase(), personOf(value));
  }
  // Blowfish's and Congo's `data/authors/<id>.json` (or .yaml, .toml): one file per author.
  const folder = path.join(siteDir, 'data', 'authors');
  const files = await readdir(folder, { withFileTypes: true }).catch(() => []);
  for (const entry of files) {
    const ext = /\.(?:ya?ml|toml|json)$/i.exec(entry.name);
    if (!entry.isFile() || !ext) continue;
    const id = entry.name.slice(0, ext.index).toLowerCase();
    const shown = path.join(shownDir, 'data', 'authors', entry.name);
    // One author's file that cannot be read costs that author's profile, not the import.
    const fields = await readConfigFile(path.join(folder, entry.name), siteDir, shown).catch(
      (error: Error) => {
        report.warnings.push(`${error.message}; the author \`${id}\` is imported by name only`);
        return undefined;
      },
    );
    if (fields && !people.has(id)) people.set(id, personOf(fields));
  }
  for (const page of profiles.pages) {
    const id = page.id.toLowerCase();
    if (people.has(id)) continue;
    const person = await readAuthorPage(page.absPath, siteDir, profiles.shown(page.absPath), id, report);
    if (person) people.set(id, person);
  }
  return people;
}

/**
 * Hugo Blox's `content/authors/<id>/_index.md`: `title` (else `first_name` and `last_name`) the
 * name, `email`, `role` (what the byline shows under the name), `bio` (the card under a post), and
 * the page's text, which becomes the user file's body. One that cannot be read costs its profile.
 */
async function readAuthorPage(
  file: string,
  siteDir: string,
  shown: string,
  id: string,
  report: MigrationReport,
): Promise<Person | undefined> {
  const fails = (message: string) => {
    report.warnings.push(`${message}; the author \`${id}\` is imported by name only`);
    return undefined;
  };
  let source: string;
  try {
    source = await readSiteFile(file, siteDir, shown);
  } catch (error) {
    return fails((error as Error).message);
  }
  const parsed = parseFrontMatter(source.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n'));
  if (!('data' in parsed)) return fails(`${shown}:${parsed.line}:${parsed.column}: ${parsed.message}`);
  const data = parsed.data;
  const parts = [text(anyCase(data, 'first_name')), text(anyCase(data, 'last_name'))].filter(Boolean);
  const name = text(anyCase(data, 'title')) ?? (parts.length ? parts.join(' ') : undefined);
  const about = parsed.body.trim();
  return {
    ...personOf(Object.fromEntries(['email', 'role', 'bio'].map((key) => [key, anyCase(data, key)]))),
    ...(name ? { name } : {}),
    ...(about ? { about: `${about}\n` } : {}),
  };
}
