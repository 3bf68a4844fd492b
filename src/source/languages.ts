/** Translations, as config `languages` describes them (lower case). */
export interface Languages {
  /** The language of documents that name none: they keep their plain slug. */
  default: string;
  /** Languages recognised in file names; undefined: any two-letter language code. */
  codes?: readonly string[] | undefined;
}

export const DEFAULT_LANGUAGES: Languages = { default: 'en' };

let names: Intl.DisplayNames | undefined;

/** A well-formed BCP 47 tag with a two- or three-letter language (`en`, `pt-BR`, `zh-Hant`). */
export function isLanguageTag(tag: string): boolean {
  if (!/^[a-z]{2,3}(?:-[a-z\d]{1,8})*$/i.test(tag)) return false;
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

/**
 * The language a file name gives after its last dot (`post.es`, `index.pt-br`), lower case, or
 * undefined. Only a configured language, or else a two-letter language code that Intl knows
 * (with an optional region or script), counts: `my.post` and `notes.v2` are documents' names.
 */
export function languageOfStem(
  stem: string,
  languages: Languages,
): { base: string; lang: string } | undefined {
  const dot = stem.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const lang = stem.slice(dot + 1).toLowerCase();
  const base = stem.slice(0, dot);
  if (languages.codes)
    return lang === languages.default || languages.codes.includes(lang) ? { base, lang } : undefined;
  if (!/^[a-z]{2}(?:-(?:[a-z]{2}|[a-z]{4}))?$/.test(lang) || !isLanguageTag(lang)) return undefined;
  names ??= new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
  return lang === languages.default || names.of(lang.slice(0, 2)) !== undefined ? { base, lang } : undefined;
}

/** The slug a translation's record has: the plain slug in the default language, `<slug>-<lang>` in another. */
export function translatedSlug(slug: string, lang: string | undefined, languages: Languages): string {
  return lang === undefined || lang === languages.default ? slug : `${slug}-${lang}`;
}
