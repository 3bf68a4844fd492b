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
  const key = (folder: string, slug: string) => `${folder}/${slug}`;
  const wanted = new Set(requests.map((r) => key(r.folder, r.asked)));
  const taken = new Set<string>();
  return requests.map(({ folder, asked, label }) => {
    let slug = asked;
    for (let n = 2; taken.has(key(folder, slug)); n++) {
      slug = `${asked}-${n}`;
      if (wanted.has(key(folder, slug))) slug = asked;
    }
    taken.add(key(folder, slug));
    if (slug !== asked)
      report.renamed.push(`${label}: ${folder}/${asked}.md is taken; written as ${folder}/${slug}.md`);
    return slug;
  });
}
