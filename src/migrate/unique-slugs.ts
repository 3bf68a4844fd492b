import type { MigrationReport } from './report.js';

export interface SlugRequest {
  folder: string;
  /** The slug the export gives (or one made from the title). */
  asked: string;
  /** `post 12 "Title"`, for the report. */
  label: string;
}

/**
 * One slug per item, in export order: a slug an earlier item of the same folder has taken gets
 * `-2`, `-3`..., skipping any slug another item of the export asks for, so that no item loses
 * its own slug to a renamed one. Each rename is reported; nothing is dropped.
 */
export function uniqueSlugs(requests: SlugRequest[], report: MigrationReport): string[] {
  const slugs = assignSlugs(
    requests.map((r) => r.folder),
    requests.map((r) => r.asked),
  );
  requests.forEach(({ folder, asked, label }, i) => {
    if (slugs[i] !== asked) reportRenamed(report, label, folder, asked, slugs[i]!);
  });
  return slugs;
}

/**
 * `uniqueSlugs` for a large export, with no label kept per item: the caller reports each rename
 * (`reportRenamed`) when it converts the item. A slug that is not renamed is the very string
 * asked for, so the result costs no more than the list of slugs it replaces.
 */
export function assignSlugs(folders: readonly string[], asked: readonly string[]): string[] {
  const wanted = new Map<string, Set<string>>();
  const setOf = (map: Map<string, Set<string>>, folder: string): Set<string> => {
    const set = map.get(folder) ?? new Set<string>();
    map.set(folder, set);
    return set;
  };
  asked.forEach((slug, i) => setOf(wanted, folders[i]!).add(slug));
  const taken = new Map<string, Set<string>>();
  return asked.map((wish, i) => {
    const inFolder = setOf(taken, folders[i]!);
    const others = wanted.get(folders[i]!)!;
    let slug = wish;
    for (let n = 2; inFolder.has(slug); n++) {
      slug = `${wish}-${n}`;
      if (others.has(slug)) slug = wish;
    }
    inFolder.add(slug);
    return slug;
  });
}

export function reportRenamed(
  report: MigrationReport,
  label: string,
  folder: string,
  asked: string,
  slug: string,
): void {
  report.renamed.push(`${label}: ${folder}/${asked}.md is taken; written as ${folder}/${slug}.md`);
}
