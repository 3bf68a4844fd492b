import path from 'node:path';
import { globToRegExp } from '../source/glob.js';
import { anyCase, deepMerge, record, stemOf, text } from './site-values.js';

/**
 * Hugo's `cascade`: front matter a section's list page (`_index.md`), or the site's
 * configuration, passes down to the pages below it, unless a page, or a closer ancestor's
 * cascade, sets the key. Themes and sites put there what every page of a section shares: a
 * layout, a banner, `_build: { render: never }` (a section Hugo never renders), `draft`.
 *
 * Its form is a mapping, or a list of mappings, each of which may be limited by `_target` (or
 * `target`, Hugo 0.144): `path` (a glob on the page's path, `/posts/**`), `kind`, `lang` and
 * `environment`. The importer reads pages (kind `page`) as the production build saw them.
 */
export interface CascadeEntry {
  values: Record<string, unknown>;
  path?: RegExp;
  kind?: string;
  lang?: string;
  environment?: string;
}

/** The cascade of one list page or of the site's configuration, in its order. */
export function cascadeOf(value: unknown): CascadeEntry[] {
  const entries = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return entries.flatMap((entry) => {
    const values = { ...record(entry) };
    const target = record(values._target ?? values.target);
    delete values._target;
    delete values.target;
    if (Object.keys(values).length === 0) return [];
    const glob = text(anyCase(target, 'path'));
    const kind = text(anyCase(target, 'kind'));
    const lang = text(anyCase(target, 'lang'));
    const environment = text(anyCase(target, 'environment'));
    return [
      {
        values,
        ...(glob ? { path: globToRegExp(glob.startsWith('/') ? glob : `/${glob}`) } : {}),
        ...(kind ? { kind: kind.toLowerCase() } : {}),
        ...(lang ? { lang: lang.toLowerCase() } : {}),
        ...(environment ? { environment } : {}),
      },
    ];
  });
}

/**
 * What cascades to one page: the cascades of `chain` (from the site down to the page's closest
 * section), each over the ones above it, for the page at `pagePath` (`/posts/trip`) in `lang`.
 */
export function cascadeFor(
  chain: ReadonlyArray<readonly CascadeEntry[]>,
  pagePath: string,
  lang: string,
): Record<string, unknown> {
  let values: Record<string, unknown> = {};
  for (const entries of chain)
    for (const entry of entries) if (applies(entry, pagePath, lang)) values = deepMerge(values, entry.values);
  return values;
}

function applies(entry: CascadeEntry, pagePath: string, lang: string): boolean {
  if (entry.kind !== undefined && entry.kind !== 'page') return false;
  if (entry.lang !== undefined && entry.lang !== lang.toLowerCase()) return false;
  if (entry.environment !== undefined && !globToRegExp(entry.environment).test('production')) return false;
  return entry.path === undefined || entry.path.test(pagePath);
}

/**
 * Hugo's path of a page: its file under content/ without the extension and language
 * (`posts/hello.es.md` is `/posts/hello`); a bundle's is its folder.
 */
export function hugoPagePath(place: string, lang: string | undefined): string {
  let name = stemOf(place.split(path.sep).join('/'));
  if (lang !== undefined && name.toLowerCase().endsWith(`.${lang.toLowerCase()}`))
    name = name.slice(0, -lang.length - 1);
  name = name.replace(/(?:^|\/)index$/, '');
  return `/${name}`.replace(/\/+$/, '') || '/';
}
