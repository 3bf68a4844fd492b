import type { MediaSource } from './media/resolve-media.js';
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

/** Characters of names hashed at a time by listedDigest (their JSON text: a few times as many bytes at most). */
const LISTED_CHUNK = 16 * 1024;

/**
 * The digest of sorted names, one per line: two lists with one digest hold the same names (what
 * content/ lists, for the clean-run mark; files with their stamps). The same as `digest` of the
 * names joined by newlines, hashed a batch of names at a time, since the list grows with the
 * archive (see sha256HeadOfPieces).
 */
export function listedDigest(sortedNames: readonly string[]): string {
  return sha256HeadOfPieces(listedJson(sortedNames), 10);
}

/**
 * The JSON text of the names joined by newlines, in pieces. JSON escapes each character alone (a
 * lone surrogate too, and a newline cannot split a pair): the joined text's escaping is its
 * batches' escaping joined by an escaped newline.
 */
function* listedJson(sortedNames: readonly string[]): Generator<string> {
  yield '"';
  let batch: string[] = [];
  let size = 0;
  let first = true;
  for (const [i, name] of sortedNames.entries()) {
    batch.push(name);
    size += name.length + 1;
    if (size < LISTED_CHUNK && i < sortedNames.length - 1) continue;
    const escaped = JSON.stringify(batch.join('\n')).slice(1, -1);
    yield first ? escaped : `\\n${escaped}`;
    first = false;
    batch = [];
    size = 0;
  }
  yield '"';
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
