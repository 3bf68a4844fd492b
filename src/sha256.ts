import { hash } from 'node:crypto';

/**
 * sha256 in hex, of text or bytes: the one hash of the project (file contents, digests, config
 * memos). One-shot `crypto.hash`, because it beats createHash().update().digest() on the short
 * inputs most calls have (`npm run bench` measures the paths that depend on it).
 */
export function sha256(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/**
 * The first `bytes` bytes of the sha256, in hex, as a string of its own: `.slice` of the whole
 * hex would be a view that keeps all 64 digits alive for as long as the short one is held.
 */
export function sha256Head(data: string | Uint8Array, bytes: number): string {
  // join() of two short slices builds one flat string, and costs less than a Buffer's hex.
  const hex = hash('sha256', data, 'hex');
  return [hex.slice(0, bytes), hex.slice(bytes, 2 * bytes)].join('');
}
