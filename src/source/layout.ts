import path from 'node:path';
import { documentStem } from './content-paths.js';
import { languageOfStem, type Languages } from './languages.js';

/**
 * What a document's path says about its record, before its front matter is read:
 * - `stem`: the slug when front matter sets none: the file name, or a bundle's folder name;
 * - `lang`: the language its name gives (`post.es.md`, `index.pt-br.md`), lower case;
 * - `index`: `leaf` for a page bundle's `index.md`, `list` for a Hugo list page (`_index.md`).
 */
export interface PathIdentity {
  stem: string;
  lang?: string;
  index?: 'leaf' | 'list';
}

/**
 * `articles/my-post/index.md` is the page bundle `my-post`; `articles/x.md` is `x`;
 * `articles/x.es.md` is `x` in Spanish. A bundle needs a folder of its own: `articles/index.md`,
 * directly in the resource folder, is the document `index`. `pathInContent` is relative to
 * content/ with forward slashes.
 */
export function pathIdentity(pathInContent: string, languages: Languages): PathIdentity {
  const name = documentStem(pathInContent);
  const translated = languageOfStem(name, languages);
  const base = translated?.base ?? name;
  const identity: PathIdentity = { stem: base };
  if (translated) identity.lang = translated.lang;
  if (base !== 'index' && base !== '_index') return identity;
  // The folder the file sits in, when it is below a resource folder (`articles/x/index.md`).
  const slash = pathInContent.lastIndexOf('/');
  const above = slash <= 0 ? -1 : pathInContent.lastIndexOf('/', slash - 1);
  const ownFolder = above === -1 ? undefined : pathInContent.slice(above + 1, slash).normalize('NFC');
  if (base === 'index' && ownFolder !== undefined) return { ...identity, stem: ownFolder, index: 'leaf' };
  if (base === '_index') return { ...identity, stem: ownFolder ?? base, index: 'list' };
  return identity;
}

/** How a listing's documents fall into bundles (see sortBundles). */
export interface Bundles {
  /** Documents that are records. */
  records: string[];
  /** Markdown files inside a page bundle, by the bundle's folder: its resources, not records. */
  resources: Map<string, string[]>;
  /** Hugo list pages (`_index.md`) outside categories/: no resource of the CMS is a list page. */
  listPages: string[];
}

/**
 * Page bundles as Hugo has them: a folder with an `index.md` (or its translations) is one
 * record, and every other Markdown file at or below that folder is a resource of it (a
 * template, a data file), not a record of its own. A folder with an `_index.md` is a list page
 * (Hugo's branch bundle): the files in it stay records; the list page itself is the category in
 * `categories/<term>/_index.md` (Hugo's term page) and has no record elsewhere.
 */
export function sortBundles(
  paths: readonly string[],
  languages: Languages,
  /** `pathIdentity` of each path, in the same order, when the caller has them already. */
  identities: readonly PathIdentity[] = paths.map((p) => pathIdentity(p, languages)),
): Bundles {
  const leafFolders = new Set<string>();
  for (let i = 0; i < paths.length; i++)
    if (identities[i]!.index === 'leaf') leafFolders.add(path.posix.dirname(paths[i]!));
  const records: string[] = [];
  const resources = new Map<string, string[]>();
  const listPages: string[] = [];
  for (let i = 0; i < paths.length; i++) {
    const p = paths[i]!;
    const identity = identities[i]!;
    const own = path.posix.dirname(p);
    const bundle = enclosingFolder(own, leafFolders, identity.index === 'leaf');
    if (bundle !== undefined) {
      const list = resources.get(bundle);
      if (list) list.push(p);
      else resources.set(bundle, [p]);
    } else if (identity.index === 'list' && !(p.startsWith('categories/') && own !== 'categories'))
      listPages.push(p);
    else records.push(p);
  }
  return { records, resources, listPages };
}

/** The outermost bundle folder that holds `folder` (its own folder too, unless it is that bundle's index). */
function enclosingFolder(
  folder: string,
  leafFolders: ReadonlySet<string>,
  isIndex: boolean,
): string | undefined {
  // Most sites have no bundle at all: nothing to look up for any document.
  if (leafFolders.size === 0) return undefined;
  let found: string | undefined;
  for (let dir = isIndex ? path.posix.dirname(folder) : folder; dir !== '.'; dir = path.posix.dirname(dir))
    if (leafFolders.has(dir)) found = dir;
  return found;
}
