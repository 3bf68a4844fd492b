/** Reading a static site's configuration and front matter, whose values may be of any type. */

/** A string value, trimmed; undefined for anything else, and for a blank string. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** A mapping (a table, an object); `{}` for anything else. */
export function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** The value of `key` in any case (Hugo reads its configuration so: `enableEmoji`, `enableemoji`). */
export function anyCase(fields: Record<string, unknown>, key: string): unknown {
  if (Object.hasOwn(fields, key)) return fields[key];
  const lower = key.toLowerCase();
  const found = Object.keys(fields).find((k) => k.toLowerCase() === lower);
  return found === undefined ? undefined : fields[found];
}

/** `over` merged into `under`, mappings key by key (as Jekyll merges defaults), anything else replaced. */
export function deepMerge(
  under: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...under };
  for (const [key, value] of Object.entries(over)) {
    const below = merged[key];
    // Defined, not assigned: a key `__proto__` stays a key.
    Object.defineProperty(merged, key, {
      value: isMapping(below) && isMapping(value) ? deepMerge(below, value) : value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return merged;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * The names of Markdown files: Jekyll's default `markdown_ext` (`markdown,mkdown,mkdn,mkd,md`)
 * and Hugo's Markdown suffixes (`md`, `mdown`, `markdown`). Older blogs used the long forms.
 */
export const MARKDOWN_NAME = /\.(?:md|markdown|mdown|mkdn|mkd|mkdown)$/i;

/** A file name without its Markdown extension (and, with `html`, an HTML one). */
export function stemOf(name: string, html = false): string {
  return name.replace(html ? /\.(?:md|markdown|mdown|mkdn|mkd|mkdown|html?)$/i : MARKDOWN_NAME, '');
}
