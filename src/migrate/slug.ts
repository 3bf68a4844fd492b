/**
 * Slugs from other CMSs. WordPress stores non-ASCII slugs percent-encoded (`caf%c3%a9`), and
 * macOS hands back NFD file names: both end up as the NFC text a person would type.
 */
export function decodeSlug(raw: string): string {
  let slug = raw.trim();
  if (/%[0-9a-f]{2}/i.test(slug)) {
    try {
      slug = decodeURIComponent(slug);
    } catch {
      // A stray `%` that is not an escape: keep the slug as it is.
    }
  }
  return slug.normalize('NFC');
}

/** A slug made from a title, for drafts that never got one: letters of any script, digits, dashes. */
export function slugify(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
}

/** Why a slug cannot be a file name under content/, or undefined when it can. */
export function fileNameProblem(slug: string): string | undefined {
  if (slug.trim() === '') return 'is empty';
  if (/[/\\\0]/.test(slug)) return 'contains "/", "\\" or a NUL character';
  if (slug.startsWith('.')) return 'starts with "." (a hidden file, which cms-sync ignores)';
  if (Buffer.byteLength(slug) > 200) return 'is longer than 200 bytes (too long for a file name)';
  return undefined;
}
