import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { SyncError } from '../errors.js';
import { dateFromFileName } from '../records/parse-date.js';
import { isInside } from '../source/content-paths.js';
import {
  figure,
  ShortcodeProblem,
  vimeo,
  youtube,
  type BuiltinResult,
  type ShortcodeCall,
} from '../render/templates/builtins.js';
import { includeLeftAsText } from '../render/templates/expand-templates.js';
import type { ImportOptions } from './import-options.js';
import type { OldSiteOptions } from './old-links.js';
import type { MigrationReport } from './report.js';
import { featuredImages, imageKey, minimalMistakesHeader } from './featured-image.js';
import { readDataModule } from './js-data.js';
import type { ContainerRules } from './containers.js';
import type { MarkdownExtras } from './markdown-extras.js';
import { jekyllDefaults } from './jekyll-defaults.js';
import { eleventyAddresses, jekyllAddresses } from './site-addresses.js';
import { MARKDOWN_NAME, record, stemOf, text } from './site-values.js';
import {
  importSite,
  personOf,
  readSiteFile,
  sitePath,
  type Person,
  type SiteDocument,
  type SiteProfile,
} from './site-import.js';

/**
 * A Jekyll or Eleventy site -> content/ files.
 *
 * Jekyll (a `_config.yml`): `_posts/YYYY-MM-DD-slug.md` (in any folder: `news/_posts/` gives the
 * category `news`) are articles, `_drafts/` are draft articles, Markdown files with front matter
 * outside `_` folders are pages; `url`, `baseurl`, `timezone` and `lang` come from `_config.yml`,
 * authors from `_data/authors.yml`; every other file of the site is served at its path.
 *
 * Eleventy (an `eleventy.config.js`/`.mjs`/`.cjs` or `.eleventy.js`): the input folder its config
 * names (`dir: { input: "src" }`, read as text, never run), Markdown under `posts/`, `post/`,
 * `blog/` or tagged `posts` are articles, the rest pages; `_data/metadata.json` gives the URL;
 * files are served from the input folder and the site root (passthrough copies).
 */
export async function importJekyll(options: ImportOptions & OldSiteOptions): Promise<void> {
  const siteDir = options.absPath;
  const eleventyConfig = ['eleventy.config.js', 'eleventy.config.mjs', 'eleventy.config.cjs', '.eleventy.js']
    .map((name) => path.join(siteDir, name))
    .find((file) => existsSync(file));
  const profile = eleventyConfig
    ? await eleventyProfile(siteDir, eleventyConfig, options.report, options.file)
    : await jekyllProfile(siteDir, options);
  await importSite(profile, options);
}

const SKIPPED_DIRS = new Set(['node_modules', 'vendor', '_site', '.git', '.jekyll-cache', '.sass-cache']);

async function jekyllProfile(siteDir: string, options: ImportOptions): Promise<SiteProfile> {
  const configFile = ['_config.yml', '_config.yaml']
    .map((n) => path.join(siteDir, n))
    .find((f) => existsSync(f));
  if (!configFile && !existsSync(path.join(siteDir, '_posts'))) {
    throw new SyncError(
      'CMS_SYNC_INPUT',
      `${options.file}: no _config.yml, _posts/ or eleventy.config.js: is this the root of a Jekyll or Eleventy site?`,
    );
  }
  const config = configFile
    ? await readYaml(siteDir, configFile, path.join(options.file, path.basename(configFile)))
    : {};
  const timeZone = text(config.timezone) ?? 'UTC';
  const listed = (value: unknown) =>
    new Set((Array.isArray(value) ? value : []).filter((e): e is string => typeof e === 'string'));
  const excluded = listed(config.exclude);
  const included = new Set([...listed(config.include)].map((name) => name.replace(/^\/+|\/+$/g, '')));
  const collections = jekyllCollections(config);
  const collectionsDir = path.resolve(siteDir, text(config.collections_dir) ?? '.');
  const documents: SiteDocument[] = [];
  const walk: JekyllWalk = {
    documents,
    excluded,
    included,
    collections: new Set([...collections.keys()].map((name) => path.join(collectionsDir, `_${name}`))),
    report: options.report,
  };
  await walkJekyll(siteDir, siteDir, [], walk);
  for (const [name, output] of collections) {
    const dir = path.join(collectionsDir, `_${name}`);
    if (!existsSync(dir)) continue;
    if (output) await addCollection(dir, dir, name, walk);
    else if (await holdsMarkdown(dir))
      options.report.skip(
        `collections without \`output: true\` (\`_${name}/\`: Jekyll writes no pages for them)`,
      );
  }
  const defaults = jekyllDefaults(config);
  // Jekyll's Markdown unless the site names another (`markdown: CommonMark`).
  const kramdown = !['commonmark', 'commonmarkghpages'].includes(
    text(config.markdown)?.toLowerCase() ?? 'kramdown',
  );
  return {
    kind: 'Jekyll',
    siteDir,
    dialect: 'liquid',
    shortcodes: { gist: jekyllGist, include: jekyllInclude },
    frontMatterAs: 'page',
    kramdown,
    // kramdown reads `$$…$$` as math whatever its math engine, and hands the TeX on untouched.
    ...(kramdown ? { math: { kramdown: true } } : {}),
    // kramdown's own options are under `kramdown:` in _config.yml.
    parseBlockHtml: kramdown && record(config.kramdown).parse_block_html === true,
    callouts: new Map(
      Object.entries(record(config.callouts)).map(([name, callout]) => [
        name,
        text(record(callout).title) ?? '',
      ]),
    ),
    // kramdown has definition lists and abbreviations; jemoji makes `:smile:` an emoji.
    extras: {
      definitionLists: kramdown,
      abbreviations: kramdown,
      // kramdown's smart quotes and typographic symbols, on unless the site turns them off.
      typographer: kramdown,
      backslashBreaks: kramdown,
      hardWraps: kramdown && record(config.kramdown).hard_wrap === true,
      kramdownTables: kramdown,
      emoji: [...listed(config.plugins), ...listed(config.gems)].includes('jemoji'),
    },
    site: {
      ...(text(config.url) ? { url: text(config.url) } : {}),
      ...(text(config.baseurl) ? { baseUrl: text(config.baseurl) } : {}),
      params: config,
    },
    timeZone,
    defaultLanguage: text(config.lang) ?? 'en',
    people: await readPeople(siteDir, path.join(siteDir, '_data'), path.join(options.file, '_data')),
    servedRoots: [siteDir],
    mediaRoot: siteDir,
    documents,
    // The image folder is read (imageBase): its images are copied.
    silentKeys: new Set(['layout', 'media_subpath', 'img_path', 'render_with_liquid']),
    // Jekyll 4: a page that shows Liquid as text (a tutorial) turns Liquid off.
    templatesOff: (data) => data.render_with_liquid === false,
    spaceSeparatedNames: true,
    addresses: jekyllAddresses(config, timeZone),
    hidesFuture: config.future !== true,
    // Chirpy, a much used theme: images named relative to `media_subpath` (before 7.0, `img_path`).
    imageBase: (data) => text(data.media_subpath) ?? text(data.img_path),
    defaults: (doc) => defaults(sitePath(siteDir, doc.absPath), typeOf(doc)),
    // Jekyll titles a document of a collection (posts too) by its name: `hello-world` is "Hello World".
    defaultTitle: (doc) => (doc.folder === 'articles' || doc.collection ? titleize(doc.nameSlug) : undefined),
    unpublished: (data, body, doc) =>
      // jekyll-redirect-from's `redirect_to`: a page that only sends readers elsewhere.
      text(data.redirect_to)
        ? 'pages that only redirect elsewhere (`redirect_to`): nothing of their own to show'
        : doc.folder === 'pages' && body.trim() === '' && builtByLayout(data.layout)
          ? 'pages a theme builds from the site (an empty page with a layout such as `archives`, `categories`, ' +
            '`tags`, `home`, `splash`): no text of their own'
          : undefined,
    featuredImages: (data) => featuredImages(data, JEKYLL_FEATURED),
    featuredKeys: ['image', 'header', 'feature_image', 'thumbnail', 'cover'],
  };
}

/**
 * Where Jekyll's themes keep a post's image, best first: `image` (jekyll-seo-tag's, a path or
 * `{path, alt}`, and so Chirpy's, whose `media_subpath` applies), Minimal Mistakes' `header`, then
 * `feature_image`, `thumbnail` and `cover` of other themes.
 */
const JEKYLL_FEATURED = [
  imageKey('image'),
  minimalMistakesHeader,
  imageKey('feature_image'),
  imageKey('thumbnail'),
  imageKey('cover'),
];

/** The type a Jekyll default's scope names: `posts`, `drafts`, `pages`, or a collection's label. */
function typeOf(doc: SiteDocument): string {
  if (doc.collection) return doc.collection;
  if (doc.folder === 'articles') return doc.draft ? 'drafts' : 'posts';
  return 'pages';
}

/** Jekyll's `titleize_slug`: each word of the name capitalised. */
function titleize(slug: string): string {
  return slug
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

/** Layouts that show a page's own text; an empty page with another is the theme's (an archive). */
const TEXT_LAYOUTS = new Set(['default', 'page', 'post', 'single', 'wide', 'article', 'compress']);

function builtByLayout(layout: unknown): boolean {
  return typeof layout === 'string' && layout.trim() !== '' && !TEXT_LAYOUTS.has(layout.trim());
}

/** Liquid that makes a page from the site's data rather than holding text: loops and branches. */
const TEMPLATE_LOGIC = /\{%-?\s*(?:for|if|unless|case|paginate|tablerow|cycle)\b/;

/** Folders of the theme and build, not content. */
const THEME_DIRS = new Set(['_includes', '_layouts', '_data', '_sass', '_plugins', '_site', '_drafts']);

async function holdsMarkdown(dir: string): Promise<boolean> {
  const entries = await readdir(dir, { recursive: true });
  return entries.some((name) => isMarkdown(String(name)));
}

interface JekyllWalk {
  documents: SiteDocument[];
  excluded: Set<string>;
  /** `include:` of _config.yml: folders Jekyll reads although their name starts with `_` (`_pages`). */
  included: Set<string>;
  /** The collections' folders (absolute), read on their own. */
  collections: Set<string>;
  report: MigrationReport;
}

/**
 * The site's collections other than posts (`collections: { projects: { output: true } }`, or a
 * list of names), each with whether Jekyll writes a page for each of its documents.
 */
function jekyllCollections(config: Record<string, unknown>): Map<string, boolean> {
  const collections = new Map<string, boolean>();
  const declared = config.collections;
  if (Array.isArray(declared)) {
    for (const name of declared) if (typeof name === 'string') collections.set(name, false);
  } else {
    for (const [name, settings] of Object.entries(record(declared)))
      collections.set(name, record(settings).output === true);
  }
  collections.delete('posts');
  return collections;
}

/** The documents of a collection Jekyll writes pages for: pages, at the collection's permalink. */
async function addCollection(root: string, dir: string, collection: string, ctx: JekyllWalk): Promise<void> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const abs = path.join(dir, entry.name);
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) await addCollection(root, abs, collection, ctx);
    else if (entry.isFile() && isMarkdown(entry.name)) {
      const stem = stemOf(entry.name);
      ctx.documents.push({
        absPath: abs,
        folder: 'pages',
        nameSlug: dateFromFileName(stem)?.rest ?? stem,
        baseDir: dir,
        place: sitePath(root, abs),
        collection,
      });
    }
  }
}

async function walkJekyll(
  siteDir: string,
  dir: string,
  categories: string[],
  ctx: JekyllWalk,
): Promise<void> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const abs = path.join(dir, entry.name);
    const rel = path.relative(siteDir, abs).split(path.sep).join('/');
    if (ctx.excluded.has(rel) || ctx.excluded.has(entry.name) || entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) {
      if (SKIPPED_DIRS.has(entry.name)) continue;
      if (entry.name === '_posts') await addPosts(abs, abs, categories, false, ctx);
      else if (entry.name === '_drafts' && dir === siteDir) await addPosts(abs, abs, categories, true, ctx);
      else if (!entry.name.startsWith('_')) await walkJekyll(siteDir, abs, [...categories, entry.name], ctx);
      else if (ctx.included.has(rel)) await walkJekyll(siteDir, abs, categories, ctx);
      else if (!THEME_DIRS.has(entry.name) && !ctx.collections.has(abs) && (await holdsMarkdown(abs))) {
        // Not a page folder for Jekyll: say so rather than pass over it.
        ctx.report.skip(
          `folders starting with \`_\`, neither a collection nor under \`include\` ` +
            `(\`${rel}/\`: Jekyll does not publish them)`,
        );
      }
      continue;
    }
    const html = /\.html?$/i.test(entry.name);
    if (!entry.isFile() || (!isMarkdown(entry.name) && !html)) continue;
    const head = await readFile(abs, 'utf8');
    // Jekyll renders a page only when it has front matter; any other file is copied as it is.
    if (!/^\uFEFF?(---|\+\+\+)/.test(head)) {
      if (!html) ctx.report.skip('Markdown files without front matter (Jekyll serves them as they are)');
      continue;
    }
    // An HTML page that loops or branches (an archive, a tag list, the home page) is the site's
    // templates at work, not a page of text to keep.
    const stem = stemOf(entry.name, true);
    if (html && (TEMPLATE_LOGIC.test(head) || (stem === 'index' && dir === siteDir) || stem === '404')) {
      ctx.report.skip("HTML pages the site's templates build (`{% for %}`, `{% if %}`, the home page, 404)");
      continue;
    }
    if (stem === 'index' && dir === siteDir && !/^\uFEFF?---[\s\S]*?\n---\s*\S/.test(head)) {
      ctx.report.skip('the home page (index.md with no text of its own: its layout builds it)');
      continue;
    }
    ctx.documents.push({
      absPath: abs,
      folder: 'pages',
      nameSlug: stem === 'index' ? path.basename(dir) : stem,
      baseDir: dir,
      place: sitePath(siteDir, abs),
      ...(html ? { html: true } : {}),
    });
  }
}

async function addPosts(
  root: string,
  dir: string,
  categories: string[],
  drafts: boolean,
  ctx: JekyllWalk,
): Promise<void> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const abs = path.join(dir, entry.name);
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) {
      await addPosts(root, abs, categories, drafts, ctx);
      continue;
    }
    if (!entry.isFile()) continue;
    const html = /\.html?$/i.test(entry.name);
    if (!isMarkdown(entry.name) && !html) {
      const format = /\.(textile|rst|adoc|asciidoc|org|txt|liquid)$/i.exec(entry.name)?.[1];
      if (format)
        ctx.report.skip(`posts in .${format.toLowerCase()} (cms-sync reads Markdown and HTML posts)`);
      continue;
    }
    const stem = stemOf(entry.name, true);
    const dated = dateFromFileName(stem);
    if (!dated && !drafts) {
      ctx.report.skip('files in _posts/ without a YYYY-MM-DD- name (Jekyll does not publish them)');
      continue;
    }
    ctx.documents.push({
      absPath: abs,
      folder: 'articles',
      nameSlug: dated?.rest ?? stem,
      ...(dated ? { fileDate: dated.date } : {}),
      ...(drafts ? { draft: true } : {}),
      ...(html ? { html: true } : {}),
      pathCategories: categories,
      baseDir: dir,
      place: sitePath(root, abs),
    });
  }
}

/** Template languages Eleventy makes pages from besides Markdown. */
const ELEVENTY_TEMPLATES =
  /\.(njk|liquid|html|11ty\.js|11ty\.cjs|11ty\.mjs|webc|hbs|mustache|ejs|haml|pug)$/i;

const POST_FOLDERS = new Set(['posts', 'post', 'blog', 'articles']);
const ELEVENTY_SKIPPED = new Set([
  '_includes',
  '_layouts',
  '_data',
  '_site',
  'node_modules',
  '.git',
  '.cache',
]);

async function eleventyProfile(
  siteDir: string,
  configFile: string,
  report: MigrationReport,
  shownDir: string,
): Promise<SiteProfile> {
  // The config is JavaScript: it is read for its input folder and path prefix, never run.
  const source = await readSiteFile(configFile, siteDir, path.relative(siteDir, configFile));
  const input = /\binput\s*:\s*["'`]([^"'`]+)["'`]/.exec(source)?.[1] ?? '.';
  const pathPrefix = /\bpathPrefix\s*:\s*["'`]([^"'`]+)["'`]/.exec(source)?.[1];
  const copies = passthroughCopies(source, siteDir);
  const servedAtRoot = copies.filter((copy) => copy.path === '').map((copy) => copy.dir);
  const servedAt = copies.filter((copy) => copy.path !== '');
  const inputDir = path.resolve(siteDir, input);
  // A config handed to you with `input: "../../notes"` would otherwise import your own files.
  if (!isInside(siteDir, inputDir))
    throw new SyncError(
      'CMS_SYNC_INPUT',
      `${path.relative(siteDir, configFile)}: the input folder \`${input}\` is outside the site: an import reads ` +
        "only the site's own folder",
    );
  const dataDir = path.join(inputDir, /\bdata\s*:\s*["'`]([^"'`]+)["'`]/.exec(source)?.[1] ?? '_data');
  let metadata: Record<string, unknown> = {};
  for (const name of ['metadata.json', 'site.json']) {
    const file = path.join(dataDir, name);
    if (existsSync(file))
      metadata = { ...metadata, ...(await readJson(siteDir, file, path.relative(siteDir, file))) };
  }
  const documents: SiteDocument[] = [];
  const shown = (abs: string) => path.join(shownDir, path.relative(siteDir, abs)).split(path.sep).join('/');
  await walkEleventy(inputDir, inputDir, false, { siteDir, documents, report, shown });
  return {
    kind: 'Eleventy',
    frontMatterAs: 'data',
    siteDir,
    dialect: 'liquid',
    site: {
      ...(text(metadata.url) ? { url: text(metadata.url) } : {}),
      ...(pathPrefix ? { baseUrl: pathPrefix } : {}),
      params: metadata,
    },
    timeZone: 'UTC',
    defaultLanguage: text(metadata.language) ?? text(metadata.lang) ?? 'en',
    people: await readPeople(siteDir, dataDir, path.relative(siteDir, dataDir)),
    servedRoots: [inputDir, ...servedAtRoot, siteDir],
    servedAt,
    mediaRoot: inputDir,
    documents,
    silentKeys: new Set([
      'layout',
      'eleventyNavigation',
      'eleventyExcludeFromCollections',
      'templateEngineOverride',
    ]),
    // Markdown run through no template engine: the site's (`markdownTemplateEngine: false`) or
    // the page's (`templateEngineOverride: md`, an engine list without a template language).
    templatesOff: (data) =>
      /\bmarkdownTemplateEngine\s*:\s*false\b/.test(source) ||
      (typeof data.templateEngineOverride === 'string' &&
        data.templateEngineOverride
          .split(',')
          .map((engine) => engine.trim().toLowerCase())
          .every((engine) => engine === 'md' || engine === 'markdown' || engine === 'html' || engine === '')),
    collectionTags: new Set(['posts', 'post', 'all']),
    postTags: new Set(['posts', 'post']),
    addresses: eleventyAddresses(),
    shortcodes: { image: eleventyImage },
    ...(await markdownItPlugins(siteDir, source)),
    // Eleventy has no key of its own: sites write `image` as Jekyll's themes do (a path or `{path, alt}`).
    featuredImages: (data) => featuredImages(data, [imageKey('image')]),
    featuredKeys: ['image'],
    // `permalink: false`: Eleventy writes no page for the file (data or a partial).
    unpublished: (data) =>
      data.permalink === false
        ? 'files with `permalink: false` (Eleventy writes no page for them)'
        : undefined,
  };
}

/**
 * The folders and files an Eleventy config copies to a place of their own, from the object form
 * of `addPassthroughCopy` (`{ "./public/": "/" }`, eleventy-base-blog's; `{ "src/assets/images":
 * "images" }`): each with the path it is served at (`''` for the root, else `/images`). The
 * config is read as text: a key or value that is not a plain string (a variable, a template
 * with `${…}`, a glob) is passed over. The string form copies a folder to its own path, which the
 * input folder and the site's root already serve.
 */
function passthroughCopies(source: string, siteDir: string): Array<{ path: string; dir: string }> {
  const copies: Array<{ path: string; dir: string }> = [];
  for (const call of source.matchAll(/\baddPassthroughCopy\s*\(/g)) {
    const args = callArguments(source, call.index + call[0].length);
    for (const pair of args.matchAll(/(["'`])([^"'`\n]+)\1\s*:\s*(["'`])([^"'`\n]*)\3/g)) {
      const [from, to] = [pair[2]!, pair[4]!];
      if (/[*?{}[\]]|\$\{/.test(from + to)) continue;
      const dir = path.resolve(siteDir, from);
      if (!isInside(siteDir, dir)) continue;
      const at = to.replace(/^\.\//, '').replace(/^\/+|\/+$/g, '');
      copies.push({ path: at === '' || at === '.' ? '' : `/${at}`, dir });
    }
  }
  return copies;
}

/** The text of a call's arguments from just after its `(` to its `)`, strings and comments skipped over. */
function callArguments(source: string, start: number): string {
  let depth = 1;
  for (let i = start; i < source.length; i++) {
    const c = source[i]!;
    if (c === '"' || c === "'" || c === '`') {
      for (i++; i < source.length && source[i] !== c && source[i] !== '\n'; i++) if (source[i] === '\\') i++;
    } else if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end === -1 ? source.length : end + 1;
    } else if (c === '(' || c === '{' || c === '[') depth++;
    else if (c === ')' || c === '}' || c === ']') {
      depth--;
      if (depth === 0) return source.slice(start, i);
    }
  }
  return source.slice(start);
}

interface EleventyWalk {
  siteDir: string;
  documents: SiteDocument[];
  report: MigrationReport;
  /** A file's path as messages name it. */
  shown: (abs: string) => string;
}

async function walkEleventy(
  inputDir: string,
  dir: string,
  postsHere: boolean,
  ctx: EleventyWalk,
): Promise<void> {
  const { documents, report } = ctx;
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  // A directory data file (`posts/posts.json`, `posts.11tydata.js`) that tags every file `posts` makes them posts.
  const dirTags = await directoryTags(dir, ctx);
  const tagged = dirTags.some((t) => t === 'posts' || t === 'post');
  const posts = postsHere || tagged || POST_FOLDERS.has(path.basename(dir));
  for (const entry of entries) {
    const abs = path.join(dir, entry.name);
    if (entry.name.startsWith('.') || ELEVENTY_SKIPPED.has(entry.name)) continue;
    if (entry.isDirectory()) {
      await walkEleventy(inputDir, abs, posts && dir !== inputDir, ctx);
      continue;
    }
    const format = entry.isFile() ? ELEVENTY_TEMPLATES.exec(entry.name)?.[1] : undefined;
    if (format) report.skip(`Eleventy templates in .${format.toLowerCase()} (cms-sync imports Markdown)`);
    if (!entry.isFile() || !isMarkdown(entry.name)) continue;
    const stem = stemOf(entry.name);
    const dated = dateFromFileName(stem);
    const folder = posts && dir !== inputDir ? 'articles' : 'pages';
    if (folder === 'pages' && stem === 'index' && dir === inputDir) {
      report.skip('the home page (index.md: its layout builds it)');
      continue;
    }
    documents.push({
      absPath: abs,
      folder,
      nameSlug: stem === 'index' ? path.basename(dir) : (dated?.rest ?? stem),
      ...(dated ? { fileDate: dated.date } : {}),
      baseDir: dir,
      place: sitePath(inputDir, abs),
    });
  }
}

/** The extensions of Eleventy's directory data files, the first over the next (its data cascade's order). */
const DIRECTORY_DATA = ['.11tydata.js', '.11tydata.cjs', '.11tydata.mjs', '.11tydata.json', '.json'];

/**
 * The `tags` a folder's directory data files (`writing/writing.11tydata.js`, `.11tydata.json`,
 * `writing.json`) give each of its files, merged as Eleventy merges them. A JavaScript one is read
 * as text, never run (js-data.ts); one whose tags cannot be read so is reported, saying what to do.
 */
async function directoryTags(dir: string, ctx: EleventyWalk): Promise<unknown[]> {
  const base = path.basename(dir);
  const tags: unknown[] = [];
  for (const ext of DIRECTORY_DATA) {
    const file = path.join(dir, `${base}${ext}`);
    if (!existsSync(file)) continue;
    const shown = ctx.shown(file);
    const instead = `put its keys in \`${base}.11tydata.json\``;
    let source: string;
    try {
      source = await readSiteFile(file, ctx.siteDir, shown);
    } catch (error) {
      ctx.report.warnings.push(`${(error as Error).message}; its \`tags\` are not read`);
      continue;
    }
    if (ext.endsWith('.json')) {
      try {
        tags.push(...[record(JSON.parse(source)).tags ?? []].flat());
      } catch (error) {
        ctx.report.warnings.push(
          `${shown}: cannot be read (${(error as Error).message}); its \`tags\` are not read`,
        );
      }
      continue;
    }
    const read = readDataModule(source);
    if ('unreadable' in read) {
      ctx.report.warnings.push(
        `${shown}: ${read.unreadable}, so its data is not read (a data file is never run); its folder's files ` +
          `are posts only by their own \`tags\`: ${instead}`,
      );
      continue;
    }
    if (read.skipped.includes('tags') || (read.data.tags === undefined && read.skipped.includes('...'))) {
      ctx.report.warnings.push(
        `${shown}: its \`tags\` are not written out as plain values, so they are not read (a data file is never ` +
          `run): ${instead}`,
      );
    }
    tags.push(...[read.data.tags ?? []].flat());
  }
  return tags;
}

/**
 * `{% image "src", "alt" %}`: the shortcode of Eleventy's image plugin as its starter projects
 * define it (source, alt, then sizes the CMS makes itself). An image, so that it is copied and
 * uploaded like any other.
 */
function eleventyImage(call: ShortcodeCall): string {
  const [src, alt = ''] = call.args;
  if (src === undefined || src.trim() === '')
    throw new Error('`image` needs a source, e.g. {% image "photo.jpg", "alt" %}');
  const escape = (value: string) =>
    value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<img src="${escape(src.trim())}" alt="${escape(alt)}">`;
}

/**
 * `{% gist user/id [file] %}` or `{% gist id %}`: jekyll-gist's tag (on GitHub Pages), GitHub's own
 * embed script, as Hugo's `gist` gives it.
 */
function jekyllGist(call: ShortcodeCall): string {
  const [gist = '', file] = call.args;
  if (!/^(?:[\w-]+\/)?\w+$/.test(gist))
    throw new Error(`\`gist\` takes a gist as user/id or id, e.g. {% gist parkr/c08ee0f2726fd0e3909d %}`);
  const query = file ? `?file=${encodeURIComponent(file)}` : '';
  return `<script src="https://gist.github.com/${gist}.js${query}"></script>`;
}

/**
 * `{% include %}` runs a template of the site's theme, which an import cannot. Two includes of
 * Minimal Mistakes, the most used Jekyll theme, say only what everyone means, and become what
 * Hugo's built-ins give: `figure` (image_path, alt, caption: the image is copied like any other)
 * and `video` (id, provider youtube or vimeo). Any other is left as written, with the warning an
 * unmapped include gets.
 */
function jekyllInclude(call: ShortcodeCall): string {
  const name = (call.args[0] ?? '').replace(/\.html$/i, '');
  const { named } = call;
  const as = (
    builtin: (call: ShortcodeCall) => BuiltinResult,
    args: string[],
    given: Record<string, string>,
  ) => {
    const result = builtin({ ...call, args, named: given });
    return typeof result === 'string' ? result : result.block;
  };
  if (name === 'figure' && named.image_path) {
    const { image_path: src, alt, caption } = named;
    return as(figure, [], { src, ...(alt ? { alt } : {}), ...(caption ? { caption } : {}) });
  }
  if (name === 'video' && named.id && named.provider === 'youtube') return as(youtube, [named.id], {});
  if (name === 'video' && named.id && named.provider === 'vimeo') return as(vimeo, [named.id], {});
  throw new ShortcodeProblem(includeLeftAsText(call.args[0]), 'unhandled');
}

/** `_data/authors.yml` (or .yaml/.json): handle -> name, email, bio. */
async function readPeople(siteDir: string, dataDir: string, shownDir: string): Promise<Map<string, Person>> {
  const people = new Map<string, Person>();
  for (const name of ['authors.yml', 'authors.yaml', 'authors.json']) {
    const file = path.join(dataDir, name);
    if (!existsSync(file)) continue;
    const shown = path.join(shownDir, name);
    const data = name.endsWith('.json')
      ? await readJson(siteDir, file, shown)
      : await readYaml(siteDir, file, shown);
    for (const [key, value] of Object.entries(data)) people.set(key.toLowerCase(), personOf(value));
  }
  return people;
}

async function readYaml(siteDir: string, file: string, shown: string): Promise<Record<string, unknown>> {
  const source = await readSiteFile(file, siteDir, shown);
  try {
    return record(parseYaml(source));
  } catch (error) {
    throw new SyncError('CMS_SYNC_INPUT', `${shown}: cannot be read: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

async function readJson(siteDir: string, file: string, shown: string): Promise<Record<string, unknown>> {
  const source = await readSiteFile(file, siteDir, shown);
  try {
    return record(JSON.parse(source));
  } catch (error) {
    throw new SyncError('CMS_SYNC_INPUT', `${shown}: cannot be read: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * The markdown-it plugins an Eleventy site uses for what CommonMark lacks: named in its config
 * (imported there) or among its package's dependencies (imported by a file the config loads).
 * Its package.json is read once for all of them.
 */
async function markdownItPlugins(
  siteDir: string,
  configSource: string,
): Promise<{ extras: MarkdownExtras; attributes?: 'markdown-it' }> {
  const file = path.join(siteDir, 'package.json');
  // Only a hint: a package.json that cannot be read (or leads out of the site) counts as none.
  const manifest: Record<string, unknown> = existsSync(file)
    ? await readJson(siteDir, file, 'package.json').catch(() => ({}))
    : {};
  const dependencies = { ...record(manifest.dependencies), ...record(manifest.devDependencies) };
  const uses = (name: string) => configSource.includes(name) || Object.hasOwn(dependencies, name);
  const extras: MarkdownExtras = {
    definitionLists: uses('markdown-it-deflist'),
    emoji: uses('markdown-it-emoji'),
    abbreviations: uses('markdown-it-abbr'),
    subscript: uses('markdown-it-sub'),
    superscript: uses('markdown-it-sup'),
    mark: uses('markdown-it-mark'),
    // markdown-it's own, off unless the config turns it on.
    typographer: /\btypographer\s*:\s*true\b/.test(configSource),
    hardWraps: /\bbreaks\s*:\s*true\b/.test(configSource),
    ...(uses('markdown-it-container') ? { containers: containerRules(configSource) } : {}),
  };
  // markdown-it-attrs' `{.class}` lists (see removeAttributeSyntax).
  return uses('markdown-it-attrs') ? { extras, attributes: 'markdown-it' } : { extras };
}

/**
 * The names an Eleventy config registers with markdown-it-container (`md.use(container, 'tip')`,
 * `.use(require('markdown-it-container'), 'warning', { render })`), each with whether it has a
 * render of its own. The plugin is found by the name it is imported or required as. None read (a
 * loop over a list, a config in another file): every name, as the site's renderer might have had.
 */
export function containerRules(configSource: string): ContainerRules {
  const plugin = ['require\\(\\s*["\'`]markdown-it-container["\'`]\\s*\\)'];
  for (const bound of configSource.matchAll(
    /\b(?:const|let|var|import)\s+([A-Za-z_$][\w$]*)\s*(?:=\s*require\(\s*["'`]markdown-it-container["'`]\s*\)|from\s*["'`]markdown-it-container["'`])/g,
  ))
    plugin.push(bound[1]!.replace(/\$/g, '\\$'));
  const names = new Map<string, { ownRender: boolean }>();
  const use = new RegExp(`\\.use\\(\\s*(?:${plugin.join('|')})\\s*,\\s*(["'\`])([\\w-]+)\\1`, 'g');
  for (const call of configSource.matchAll(use)) {
    const rest = callArguments(configSource, call.index + call[0].length);
    const ownRender = /\brender\s*[:(]/.test(rest) || /^\s*,\s*[A-Za-z_$]/.test(rest);
    names.set(call[2]!, { ownRender: ownRender || names.get(call[2]!)?.ownRender === true });
  }
  return names.size > 0 ? { names } : {};
}

function isMarkdown(name: string): boolean {
  return MARKDOWN_NAME.test(name);
}
