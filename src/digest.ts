import type { MediaSource } from './media/resolve-media.js';
import { JsonPieces } from './json-parts.js';
import { sha256Head, sha256HeadOfPieces } from './sha256.js';
import { stableJson } from './stable-json.js';

/** Short, stable digest of a JSON value (object keys sorted). */
export function digest(value: unknown): string {
  // Plain values (most fields, and every body) need no key sorting: skip the replacer, which
  // costs more than the hash on a no-op run over thousands of records.
  const text =
    value === null || typeof value !== 'object' ? JSON.stringify(value ?? null) : stableJson(value);
  // State holds two digests per field of every record: each a string of its own (see sha256Head).
  return sha256Head(text, 10);
}

/**
 * The digest of sorted names, one per line: two lists with one digest hold the same names (what
 * content/ lists, for the clean-run mark; files with their stamps). The same as `digest` of the
 * names joined by newlines, hashed a part of their JSON text at a time, since the list grows with
 * the archive (see sha256HeadOfPieces).
 */
export function listedDigest(sortedNames: readonly string[]): string {
  return sha256HeadOfPieces(JsonPieces.text(() => lines(sortedNames)).pieces(), 10);
}

function* lines(names: readonly string[]): Generator<string> {
  for (const [i, name] of names.entries()) yield i === 0 ? name : `\n${name}`;
}

/**
 * The digest of a rendered body: its HTML with placeholders, its images by content, and their
 * alt texts and titles (they reach the media records, so a change to one is a change to the body).
 */
export function htmlDigest(
  template: string,
  media: readonly MediaSource[],
  text: ReadonlyArray<{ alt: string; title?: string }> = [],
): string {
  const said = text.some((t) => t.alt !== '' || t.title !== undefined);
  return digest({
    html: template,
    media: media.map((m) => m.identity),
    // Only when there is something: a body whose images have no alt keeps the digest it had.
    ...(said ? { text: text.map((t) => [t.alt, t.title ?? null]) } : {}),
  });
}
