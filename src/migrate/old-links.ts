import { detach } from './detach.js';
import type { MigrationReport } from './report.js';

/**
 * Links from one post to another on the old site. Each imported post and page is known by its
 * old addresses (permalink, `?p=<id>`, Ghost's `/<slug>/` and `/p/<uuid>/`); a link to one of
 * them is rewritten to the new path, made from a pattern (`--link-path`, default
 * `/{folder}/{slug}/`: `/articles/<slug>/`, `/pages/<slug>/`). A link to the old site that
 * matches no imported item is left as it was, and the importer lists it.
 */
export const DEFAULT_LINK_PATH = '/{folder}/{slug}/';

export type LinkFolder = 'articles' | 'pages';

/** A stand-in origin for root-relative links, which belong to the old site by definition. */
const RELATIVE_BASE = 'http://old-site.invalid';

function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^www\./, '');
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export class OldSiteLinks {
  readonly #hosts = new Set<string>([hostOf(new URL(RELATIVE_BASE))]);
  /** Old address -> the record's new path, or its number (`addRecord`) until slugs are known. */
  readonly #targets = new Map<string, string | number>();
  /**
   * Addresses the old site redirected to a record (WordPress's permalinks under an old slug or
   * date), and its bare `/<slug>/` and `/<old-slug>/`, by slug: read, in that order, only where
   * no record has the address itself.
   */
  readonly #redirects = new Map<string, number>();
  readonly #slugs = new Map<string, number>();
  readonly #oldSlugs = new Map<string, number>();
  /** The paths of the old site's home (`''`, `/blog`): a bare slug is one segment below one. */
  readonly #homes = new Set<string>(['']);
  #pathOfRecord: (n: number) => string | undefined = () => undefined;

  constructor(private readonly pattern: string = DEFAULT_LINK_PATH) {}

  /** An address of the old site (its home, `wp:base_site_url`, `--ghost-url`). */
  addSite(url: string): void {
    if (!URL.canParse(url)) return;
    const parsed = new URL(url);
    if (!/^https?:$/.test(parsed.protocol)) return;
    this.#hosts.add(hostOf(parsed));
    this.#homes.add(normalPath(parsed.pathname).replace(/\/+$/, ''));
  }

  /** `oldUrl` (absolute, root-relative, or `?p=<id>`) is now the record `folder/slug`. */
  add(oldUrl: string, folder: LinkFolder, slug: string): void {
    this.addAll([oldUrl], folder, slug);
  }

  /** Every old address of one record: they share one path, as a large import keeps them all. */
  addAll(oldUrls: string[], folder: LinkFolder, slug: string): void {
    const path = this.pathOf(folder, slug);
    for (const url of oldUrls) {
      const key = this.#key(url, true);
      if (key && key !== '/' && !this.#targets.has(key)) this.#targets.set(detach(key), path);
    }
  }

  /**
   * The old addresses of record `n`, before its slug is known: a large export is read once to
   * learn every slug and address, keeping a number per address rather than a path.
   */
  addRecord(oldUrls: string[], n: number): void {
    for (const url of oldUrls) {
      const key = this.#key(url, true);
      // A key cut from a longer string (V8 keeps such a substring as a view of it): copied.
      if (key && key !== '/' && !this.#targets.has(key)) this.#targets.set(detach(key), n);
    }
  }

  /**
   * Addresses the old site redirected to record `n`; `slugs` are its slug and then its old ones,
   * which the old site took as the bare `/<slug>/` (WordPress's `wp_old_slug_redirect` and
   * `redirect_guess_404_permalink`). Each is kept for the first record that claims it.
   */
  addRedirects(oldUrls: string[], slugs: string[], n: number): void {
    for (const url of oldUrls) {
      const key = this.#key(url, true);
      if (key && key !== '/' && !this.#redirects.has(key)) this.#redirects.set(detach(key), n);
    }
    slugs.forEach((slug, i) => {
      const key = normalPath(slug);
      const map = i === 0 ? this.#slugs : this.#oldSlugs;
      if (key && !key.includes('/') && !map.has(key)) map.set(detach(key), n);
    });
  }

  /** Where the records of `addRecord` are now, once their slugs are known. */
  resolveRecords(pathOfRecord: (n: number) => string | undefined): void {
    this.#pathOfRecord = pathOfRecord;
  }

  pathOf(folder: LinkFolder, slug: string): string {
    return this.pattern.replaceAll('{folder}', folder).replaceAll('{slug}', slug);
  }

  /**
   * The new path for a link to an imported post or page; `missing` for a link to a page of the
   * old site that was not imported; undefined for any other link. A relative link (`../b/`) is
   * read as it was on the page at `from`, a root-relative address.
   */
  rewrite(link: string, from?: string): { to: string } | { missing: true } | undefined {
    if (from !== undefined && !URL.canParse(link, RELATIVE_BASE + from)) return undefined;
    const url = from === undefined ? link : new URL(link, RELATIVE_BASE + from).href;
    const key = this.#key(url, false);
    if (!key) return undefined;
    const found = this.#targets.get(key) ?? this.#redirects.get(key) ?? this.#bareSlug(key);
    const target = typeof found === 'number' ? this.#pathOfRecord(found) : found;
    if (target) {
      const hash = url.indexOf('#');
      return { to: hash === -1 ? target : target + url.slice(hash) };
    }
    // The home page, and files (images, PDFs) that stay where they are, are not posts.
    const last = key.split('/').pop() ?? '';
    if (key === '/' || (/\.\w{1,5}$/.test(last) && !/\.(?:html?|php)$/.test(last))) return undefined;
    return { missing: true };
  }

  /** The record whose slug (or, failing that, old slug) is the whole path below a home of the site. */
  #bareSlug(key: string): number | undefined {
    if (!key.startsWith('/') || (this.#slugs.size === 0 && this.#oldSlugs.size === 0)) return undefined;
    for (const home of this.#homes) {
      if (!key.startsWith(`${home}/`)) continue;
      const rest = key.slice(home.length + 1);
      if (!rest || rest.includes('/')) continue;
      const found = this.#slugs.get(rest) ?? this.#oldSlugs.get(rest);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  #key(url: string, known: boolean): string | undefined {
    const text = url.trim();
    const rootRelative = text.startsWith('/') && !text.startsWith('//');
    const query = text.startsWith('?');
    if (!rootRelative && !query && !/^https?:\/\//i.test(text)) return undefined;
    if (!URL.canParse(text, `${RELATIVE_BASE}/`)) return undefined;
    const parsed = new URL(text, `${RELATIVE_BASE}/`);
    if (!known && !this.#hosts.has(hostOf(parsed))) return undefined;
    const id = parsed.searchParams.get('p') ?? parsed.searchParams.get('page_id');
    if (id && /^\d+$/.test(id)) return `?${id}`;
    const path = normalPath(parsed.pathname)
      .replace(/\/index\.php(?=\/|$)/, '')
      .replace(/\/+$/, '');
    return path || '/';
  }
}

/** A path (or slug) as addresses are compared: decoded, NFC, lower case. */
function normalPath(path: string): string {
  return decode(path).normalize('NFC').toLowerCase();
}

export interface OldSiteOptions {
  /** The path a link to an imported post or page becomes: `{folder}` and `{slug}` are filled in. */
  linkPath?: string;
}

/** A link to an imported post or page -> its new path; one to a page not imported is listed. */
export function rewriteLink(
  url: string,
  label: string,
  links: OldSiteLinks,
  report: MigrationReport,
): string {
  const result = links.rewrite(url);
  if (!result) return url;
  if ('to' in result) {
    report.rewrittenLinks++;
    return result.to;
  }
  // The URL is cut from the item's text: the report keeps a copy, not the item.
  report.oldLink(detach(`${label}: ${url}`));
  return url;
}
