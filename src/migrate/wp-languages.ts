import { isLanguageTag } from '../source/languages.js';
import type { WxrItem } from './wxr.js';

/**
 * The language of a post or page of a multilingual WordPress site, lower case, or undefined for
 * none: Polylang's `language` term, or the `_wpml_import_language_code` that WPML's Export and
 * Import add-on writes (WPML itself puts none into an export). `invalid` is a language that is not
 * a language tag (Polylang lets an admin name one `english`): cms-sync cannot key a translation by it.
 */
export function itemLanguage(
  item: Pick<WxrItem, 'terms' | 'meta'>,
): { lang: string } | { invalid: string } | undefined {
  const named =
    item.terms.find((t) => t.domain === 'language' && t.slug !== '')?.slug ||
    item.meta[WPML_LANGUAGE]?.trim();
  if (!named) return undefined;
  const lang = named.toLowerCase();
  return isLanguageTag(lang) ? { lang } : { invalid: named };
}

const WPML_LANGUAGE = '_wpml_import_language_code';

/**
 * The site's default language among the languages its items have: the export's `<language>`
 * (the site's locale, `fr-FR`) when some items have it or its primary language, else the language
 * of most items (the first of those in export order on a tie).
 */
export function defaultLanguage(
  counts: ReadonlyMap<string, number>,
  siteLanguage: string,
): string | undefined {
  const site = siteLanguage.trim().toLowerCase().replace(/_/g, '-');
  for (const candidate of [site, site.split('-')[0]!]) if (counts.has(candidate)) return candidate;
  let most: string | undefined;
  for (const [lang, count] of counts) if (most === undefined || count > counts.get(most)!) most = lang;
  return most;
}
