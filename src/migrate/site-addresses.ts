import path from 'node:path';
import { wallClock } from '../records/parse-date.js';
import { slugify } from './slug.js';
import { record, text } from './site-values.js';

/**
 * Where a static site served each page: the addresses a link from another page may use, so that
 * the import can rewrite such links to the page's new path. Each generator's rules for its
 * permalinks, as its documentation gives them: Hugo's `permalinks` and `url`/`aliases`, Jekyll's
 * `permalink` styles and placeholders, Eleventy's `permalink` and its folder-per-page default.
 * Addresses are root-relative and without the site's base path (the importer adds it).
 */

/** What a page's address is made of, once its front matter is read. */
export interface PageFacts {
  /** The file's path under the folder its address follows (Hugo's content/, Jekyll's site). */
  place: string;
  data: Record<string, unknown>;
  title: string;
  /** The file or bundle name, without a leading date or language (`hello` of `2020-01-02-hello.md`). */
  nameSlug: string;
  date: Date | undefined;
  categories: readonly string[];
  lang: string | undefined;
  folder: 'articles' | 'pages';
  /** The Jekyll collection of the document (`place` is then its path in the collection's folder). */
  collection?: string;
}

export type Addresses = (page: PageFacts) => string[];

/** `:name` placeholders filled from `values`; an unknown one is left as written. */
function fill(pattern: string, values: Record<string, string>): string {
  return pattern.replace(/:([a-z_]+)/gi, (all, name: string) => values[name.toLowerCase()] ?? all);
}

/** One slash between segments, a leading one, and no `./`. */
function clean(address: string): string {
  return `/${address}`.replace(/\/\.(?=\/|$)/g, '').replace(/\/{2,}/g, '/');
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The date placeholders both generators share, read on the site's calendar. */
function dateValues(date: Date | undefined, timeZone: string): Record<string, string> {
  if (date === undefined) return {};
  const local = wallClock(date, timeZone);
  const two = (n: number) => String(n).padStart(2, '0');
  const year = local.getUTCFullYear();
  const dayOfYear = Math.floor((local.getTime() - Date.UTC(year, 0, 1)) / 86_400_000) + 1;
  // ISO 8601 week: the week of the year's first Thursday is week 1.
  const thursday = new Date(local.getTime() + (3 - ((local.getUTCDay() + 6) % 7)) * 86_400_000);
  const week = Math.floor((thursday.getTime() - Date.UTC(thursday.getUTCFullYear(), 0, 1)) / 604_800_000) + 1;
  return {
    year: String(year),
    short_year: two(year % 100),
    month: two(local.getUTCMonth() + 1),
    i_month: String(local.getUTCMonth() + 1),
    monthname: MONTHS[local.getUTCMonth()]!,
    long_month: MONTHS[local.getUTCMonth()]!,
    short_month: MONTHS[local.getUTCMonth()]!.slice(0, 3),
    day: two(local.getUTCDate()),
    i_day: String(local.getUTCDate()),
    weekday: String(local.getUTCDay()),
    weekdayname: DAYS[local.getUTCDay()]!,
    long_day: DAYS[local.getUTCDay()]!,
    short_day: DAYS[local.getUTCDay()]!.slice(0, 3),
    yearday: String(dayOfYear),
    y_day: String(dayOfYear).padStart(3, '0'),
    week: two(week),
    hour: two(local.getUTCHours()),
    minute: two(local.getUTCMinutes()),
    second: two(local.getUTCSeconds()),
  };
}

function strings(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).map(text).filter((v): v is string => v !== undefined);
}

/** A path with `index.html` or a trailing slash: the same page either way. */
function withoutIndex(address: string): string {
  return address.replace(/\/index\.html?$/i, '/');
}

/**
 * Hugo: `url` replaces the address; else the section's pattern under `permalinks` (or
 * `permalinks.page`), else `/<sections>/<slug or name>/`; `aliases` are addresses too. A language
 * other than the default (or every one, with `defaultContentLanguageInSubdir`) is under
 * `/<lang>/`. `uglyURLs` gives `/<sections>/<name>.html`.
 */
export function hugoAddresses(
  config: Record<string, unknown>,
  defaultLanguage: string,
  timeZone: string,
): Addresses {
  const permalinks = record(config.permalinks);
  const byKind = record(permalinks.page);
  const inSubdir = config.defaultContentLanguageInSubdir === true;
  const ugly = config.uglyURLs === true;
  return (page) => {
    const dirs = path.posix
      .dirname(page.place)
      .split('/')
      .filter((s) => s !== '.' && s !== '');
    // `about.es.md` is `about` in Spanish.
    let stem = path.posix.basename(page.place).replace(/\.[^.]+$/, '');
    if (page.lang !== undefined && stem.endsWith(`.${page.lang}`))
      stem = stem.slice(0, -page.lang.length - 1);
    const bundle = stem === 'index';
    const baseName = bundle ? (dirs.pop() ?? stem) : stem;
    const slug = text(page.data.slug);
    const section = dirs[0] ?? '';
    const values: Record<string, string> = {
      ...dateValues(page.date, timeZone),
      section,
      sections: dirs.join('/'),
      title: slugify(page.title),
      slug: slug ?? slugify(page.title),
      filename: baseName,
      slugorfilename: slug ?? baseName,
      contentbasename: baseName,
      slugorcontentbasename: slug ?? baseName,
    };
    const pattern = text(byKind[section]) ?? text(permalinks[section]);
    const own = text(page.data.url);
    const names = [...new Set([slug ?? baseName, ...(slug ? [] : [page.nameSlug])])];
    const addresses = own
      ? [own]
      : pattern && dirs.length > 0
        ? [fill(pattern, values)]
        : names.flatMap((name) => {
            const at = [...dirs, name].join('/');
            return ugly ? [`${at}.html`] : [`${at}/`];
          });
    const prefix =
      page.lang !== undefined && (page.lang !== defaultLanguage || inSubdir) ? `/${page.lang}` : '';
    const listed = [
      ...addresses.map((a) => clean(prefix + clean(a))),
      ...(own && prefix ? [clean(own)] : []),
    ];
    const folder = `/${prefix}/${dirs.join('/')}/`;
    for (const alias of strings(page.data.aliases)) {
      listed.push(clean(alias.startsWith('/') ? alias : path.posix.join(folder, alias)));
    }
    return listed;
  };
}

/** Jekyll's named permalink styles. */
const JEKYLL_STYLES: Record<string, string> = {
  date: '/:categories/:year/:month/:day/:title:output_ext',
  pretty: '/:categories/:year/:month/:day/:title/',
  ordinal: '/:categories/:year/:y_day/:title:output_ext',
  weekdate: '/:categories/:year/W:week/:short_day/:title:output_ext',
  none: '/:categories/:title:output_ext',
};

/** Where Jekyll writes a collection's documents unless the collection or document says. */
const COLLECTION_PATTERN = '/:collection/:path:output_ext';

/**
 * Jekyll: a post's `permalink`, else the site's (a style name or a pattern; `date` by default),
 * filled with the post's date, categories (lower case, joined by `/`) and name. A page is at its
 * `permalink`, else at its path as `.html` or, with a pretty style, as a folder: both are listed.
 */
export function jekyllAddresses(config: Record<string, unknown>, timeZone: string): Addresses {
  const own = ownAddresses(config, timeZone);
  // jekyll-redirect-from's `redirect_from`: old addresses that sent readers to this page.
  return (page) => [
    ...own(page),
    ...strings(page.data.redirect_from).map((from) => clean(withoutIndex(from))),
  ];
}

function ownAddresses(config: Record<string, unknown>, timeZone: string): Addresses {
  const style = text(config.permalink) ?? 'date';
  const sitePattern = JEKYLL_STYLES[style] ?? style;
  const collections = record(config.collections);
  return (page) => {
    const own = text(page.data.permalink);
    if (page.collection !== undefined) {
      const pattern = own ?? text(record(collections[page.collection]).permalink) ?? COLLECTION_PATTERN;
      const values = {
        ...dateValues(page.date, timeZone),
        collection: page.collection,
        path: page.place.replace(/\.[^./]+$/, ''),
        name: page.nameSlug,
        title: text(page.data.slug) ?? page.nameSlug,
        slug: slugify(text(page.data.slug) ?? page.nameSlug),
        output_ext: '.html',
      };
      return [clean(withoutIndex(fill(pattern, values)))];
    }
    if (page.folder === 'pages') {
      if (own) return [clean(withoutIndex(own))];
      const stem = page.place.replace(/\.[^./]+$/, '');
      if (/(?:^|\/)index$/.test(stem)) return [clean(stem.slice(0, -'index'.length))];
      return [clean(`${stem}/`), clean(`${stem}.html`)];
    }
    const title = text(page.data.slug) ?? page.nameSlug;
    const values: Record<string, string> = {
      ...dateValues(page.date, timeZone),
      title,
      slug: slugify(title),
      name: page.nameSlug,
      categories: [...new Set(page.categories.map((c) => c.toLowerCase()))].join('/'),
      slugified_categories: [...new Set(page.categories.map(slugify))].join('/'),
      output_ext: '.html',
    };
    return [clean(withoutIndex(fill(own ?? sitePattern, values)))];
  };
}

/**
 * Eleventy: `permalink` when it is a plain path (one made of template code is not known here),
 * else the file's path as a folder (`posts/hello.md` at `/posts/hello/`, `index.md` at its folder).
 */
export function eleventyAddresses(): Addresses {
  return (page) => {
    const own = text(page.data.permalink);
    if (own && !/\{[{%]/.test(own)) return [clean(withoutIndex(own))];
    const stem = page.place.replace(/\.[^./]+$/, '');
    return [clean(/(?:^|\/)index$/.test(stem) ? stem.replace(/index$/, '') : `${stem}/`)];
  };
}
