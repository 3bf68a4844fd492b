import type { MediaSource } from './media/resolve-media.js';
import { createHash } from 'node:crypto';
import { ownCopy } from './own-copy.js';
import { sha256Head } from './sha256.js';
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
 * names joined by newlines, fed to the hash a few KiB at a time: a one-shot hash of the joined
 * text (9.6 MiB at 100,000 files) makes Node copy it into one malloc'd buffer, and freeing a chunk
 * that large raises glibc's mmap and trim thresholds for the rest of the process, so that every
 * thread's malloc arena then keeps up to twice that size of freed memory (see "Memory of a cold
 * apply" in the README).
 */
export function listedDigest(sortedNames: readonly string[]): string {
  const hash = createHash('sha256');
  hash.update('"');
  let batch: string[] = [];
  let size = 0;
  let first = true;
  // JSON escapes each character alone (a lone surrogate too, and a newline cannot split a pair):
  // the joined text's escaping is its batches' escaping joined by an escaped newline.
  const flush = () => {
    const escaped = JSON.stringify(batch.join('\n')).slice(1, -1);
    hash.update(first ? escaped : `\\n${escaped}`);
    first = false;
    batch = [];
    size = 0;
  };
  for (const name of sortedNames) {
    batch.push(name);
    size += name.length + 1;
    if (size >= LISTED_CHUNK) flush();
  }
  if (batch.length > 0) flush();
  hash.update('"');
  return ownCopy(hash.digest('hex').slice(0, 20));
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
