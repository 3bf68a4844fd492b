import path from 'node:path';
import { ShortcodeProblem, type PageRef } from '../render/templates/builtins.js';
import { MARKDOWN_NAME, stemOf } from './site-values.js';

/** An imported page, as a reference finds it. */
export interface RefPage {
  /** As messages name the file. */
  file: string;
  /** Hugo's path of the page (`/posts/intro`: no extension, language or `index`). */
  hugoPath: string;
  /** Hugo's folder of the file (`/posts`, or a bundle's own `/posts/trip`), for `../x.md`. */
  hugoDir: string;
  /**
   * The file's path from the site's root (`docs/install.md`, `_posts/2024-01-02-b.md`), then from
   * the folder its addresses follow when that is another (Eleventy's input folder); `/`-separated.
   */
  sitePaths: string[];
  /** Its language, lower case: the site's default when it names none. */
  lang: string;
  /** A post (Jekyll's `_posts/`), which `post_url` names. */
  post: boolean;
  /** Its new path (`--link-path`). */
  to: string;
}

/** The extension of a page's file, which a reference may give (`.md`, or an HTML page's). */
const PAGE_EXTENSION = new RegExp(`${MARKDOWN_NAME.source.replace(/\$$/, '')}$|\\.html?$`, 'i');

/**
 * Which imported page a reference names, as the generator finds it:
 *
 * - Hugo's `ref` and `relref`, in the linking page's language unless `lang` names another: a path
 *   without a leading `/` first from the linking page's section (`../x.md`, with the file's
 *   extension, from the folder of the linking page's file), then from content/'s root; a bare
 *   name (no `/`) at last by the page's name alone, which two pages of one language make ambiguous.
 * - Jekyll's `link`: the file's path from the site's root (Eleventy's: from its input folder too).
 * - Jekyll's `post_url`: a post by its file name (`2024-01-02-b`), in a subfolder when one is named.
 *
 * A page the generator would not have found is undefined (the caller falls back to the name). A
 * page of another language is taken only when the wanted one has none (the generator would have
 * failed the build). A name that could be two pages throws a ShortcodeProblem naming both, so the
 * reference is left as written and reported at its line rather than linked to either.
 */
export class PageRefs {
  private readonly byPath = new Map<string, RefPage[]>();
  private readonly byName = new Map<string, RefPage[]>();
  private readonly bySitePath = new Map<string, RefPage>();
  private readonly postsByStem = new Map<string, RefPage[]>();
  private readonly languages: string[];

  constructor(pages: readonly RefPage[], defaultLanguage: string) {
    const add = (map: Map<string, RefPage[]>, key: string, page: RefPage) => {
      const list = map.get(key);
      if (list) list.push(page);
      else map.set(key, [page]);
    };
    for (const page of pages) {
      add(this.byPath, page.hugoPath, page);
      add(this.byName, path.posix.basename(page.hugoPath), page);
      for (const at of page.sitePaths) if (!this.bySitePath.has(at)) this.bySitePath.set(at, page);
      if (page.post) add(this.postsByStem, stemOf(path.posix.basename(page.sitePaths[0]!), true), page);
    }
    this.languages = [...new Set([defaultLanguage.toLowerCase(), ...pages.map((page) => page.lang)])];
  }

  /** The new path `ref` from `from` leads to, with its fragment; undefined for a page not found. */
  resolve(ref: PageRef, from: RefPage): string | undefined {
    const hash = ref.target.indexOf('#');
    const fragment = hash === -1 ? '' : ref.target.slice(hash);
    const target = (hash === -1 ? ref.target : ref.target.slice(0, hash)).replace(/\\/g, '/').trim();
    if (target === '') return undefined;
    const page =
      ref.tag === 'link'
        ? this.bySitePath.get(target.replace(/^\/+/, ''))
        : ref.tag === 'post_url'
          ? this.post(ref, target)
          : this.hugo(ref, target, from);
    return page === undefined ? undefined : `${page.to}${fragment}`;
  }

  private hugo(ref: PageRef, given: string, from: RefPage): RefPage | undefined {
    const target = given.replace(/\/+$/, '');
    const hadExtension = PAGE_EXTENSION.test(target);
    let stem = target.replace(PAGE_EXTENSION, '');
    let lang = ref.lang?.toLowerCase();
    // A translation named by its file (`guide.fr.md`).
    const named = /\.([\w-]+)$/.exec(path.posix.basename(stem));
    if (named && this.languages.includes(named[1]!.toLowerCase())) {
      lang ??= named[1]!.toLowerCase();
      stem = stem.slice(0, -named[0].length);
    }
    // A bundle by its index file; a list page (`_index`) is not imported.
    if (/(?:^|\/)_index$/.test(stem)) return undefined;
    stem = stem.replace(/(?:^|\/)index$/, '');
    const wanted = lang ?? from.lang;
    for (const language of [wanted, ...this.languages.filter((l) => l !== wanted)]) {
      const page = this.hugoIn(language, target, stem, hadExtension, from, ref);
      if (page) return page;
    }
    return undefined;
  }

  private hugoIn(
    lang: string,
    target: string,
    stem: string,
    hadExtension: boolean,
    from: RefPage,
    ref: PageRef,
  ): RefPage | undefined {
    if (!target.startsWith('/')) {
      const base =
        hadExtension && target.startsWith('../') ? from.hugoDir : path.posix.dirname(from.hugoPath);
      const page = this.at(path.posix.join(base, stem), lang);
      if (page || target.startsWith('.')) return page;
    }
    const page = this.at(path.posix.join('/', stem), lang);
    if (page || target.includes('/')) return page;
    const found = (this.byName.get(path.posix.basename(stem)) ?? []).filter((p) => p.lang === lang);
    if (found.length > 1) throw ambiguous(ref, found, found[0]!.hugoPath);
    return found[0];
  }

  private at(hugoPath: string, lang: string): RefPage | undefined {
    return this.byPath.get(hugoPath.replace(/\/+$/, '') || '/')?.find((page) => page.lang === lang);
  }

  /**
   * Jekyll's match: `_posts/<dir>/<name>.*` or `<dir>/_posts/<name>.*` from the site's root;
   * else (as Jekyll's older match did) a post of that name anywhere, unless two have it.
   */
  private post(ref: PageRef, target: string): RefPage | undefined {
    const segments = target.split('/').filter((s) => s !== '');
    const name = stemOf(segments.pop() ?? '', true);
    const dir = segments.map((s) => `${s}/`).join('');
    const all = this.postsByStem.get(name) ?? [];
    const exact = all.find((page) => {
      const at = page.sitePaths[0]!.replace(PAGE_EXTENSION, '');
      return at === `_posts/${dir}${name}` || at === `${dir}_posts/${name}`;
    });
    if (exact) return exact;
    const example = all[0]?.sitePaths[0]!.replace(PAGE_EXTENSION, '').replace(/(^|\/)_posts\//, '$1');
    if (all.length > 1) throw ambiguous(ref, all, example!);
    return all[0];
  }
}

function ambiguous(ref: PageRef, pages: readonly RefPage[], example: string): ShortcodeProblem {
  return new ShortcodeProblem(
    `\`${ref.tag}\` "${ref.target}" could be any of ${pages.map((page) => page.file).join(', ')}, so it is ` +
      `left as written: name the page by its path, e.g. "${example}"`,
    'unhandled',
  );
}
