import { globToRegExp } from '../source/glob.js';
import { deepMerge, record, text } from './site-values.js';

/**
 * Jekyll's front matter defaults (`defaults:` in `_config.yml`): values a file has unless it sets
 * them itself, by scope: a path prefix (or a glob) under the site, and a type (`posts`, `pages`,
 * `drafts`, or a collection's label). A theme puts its permalinks, authors and layouts there
 * (Chirpy's `permalink: /posts/:title/`), so the importer reads a file as Jekyll did: these, then
 * the file's own keys over them.
 *
 * Read as Jekyll 4's FrontmatterDefaults reads them: each set whose scope applies is merged in
 * order, hashes deeply; a set takes precedence over the one before when its path is longer, or
 * as long with a type (or neither with one); otherwise it is merged under what is there.
 */
export type JekyllDefaults = (relativePath: string, type: string) => Record<string, unknown>;

interface DefaultSet {
  path: string;
  pattern?: RegExp;
  type?: string;
  values: Record<string, unknown>;
}

export function jekyllDefaults(config: Record<string, unknown>): JekyllDefaults {
  const sets: DefaultSet[] = (Array.isArray(config.defaults) ? config.defaults : []).flatMap((entry) => {
    const scope = record(record(entry).scope);
    const values = record(record(entry).values);
    if (Object.keys(values).length === 0) return [];
    const path = (text(scope.path) ?? '').replace(/^\/+/, '');
    const type = text(scope.type);
    return [
      {
        path,
        ...(path.includes('*') ? { pattern: globToRegExp(path) } : {}),
        ...(type ? { type } : {}),
        values,
      },
    ];
  });
  if (sets.length === 0) return () => ({});
  return (relativePath, type) => {
    let defaults: Record<string, unknown> = {};
    let before: DefaultSet | undefined;
    for (const set of sets) {
      if (!applies(set, relativePath, type)) continue;
      if (before === undefined || precedes(set, before)) {
        defaults = deepMerge(defaults, set.values);
        before = set;
      } else defaults = deepMerge(set.values, defaults);
    }
    return defaults;
  };
}

function applies(set: DefaultSet, relativePath: string, type: string): boolean {
  // Drafts are posts to Jekyll 4: a `posts` scope covers them, a `drafts` one only them.
  if (set.type !== undefined && set.type !== type && !(set.type === 'posts' && type === 'drafts'))
    return false;
  if (set.path === '') return true;
  return set.pattern ? set.pattern.test(relativePath) : relativePath.startsWith(set.path);
}

function precedes(set: DefaultSet, before: DefaultSet): boolean {
  if (set.path.length !== before.path.length) return set.path.length >= before.path.length;
  return set.type !== undefined || before.type === undefined;
}
