import { createHash, hash } from 'node:crypto';
import { ownCopy } from './own-copy.js';

/**
 * sha256 in hex, of text or bytes: the one hash of the project (file contents, digests, config
 * memos). One-shot `crypto.hash`, because it beats createHash().update().digest() on the short
 * inputs most calls have (`npm run bench` measures the paths that depend on it).
 */
export function sha256(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/** The first `bytes` bytes of the sha256, in hex, as a string of its own (see ownCopy). */
export function sha256Head(data: string | Uint8Array, bytes: number): string {
  return ownCopy(hash('sha256', data, 'hex').slice(0, 2 * bytes));
}

/**
 * sha256Head of the pieces' text joined, hashed a piece at a time: for a text that grows with the
 * archive, which a one-shot hash would copy into one buffer its size (see src/write-text.ts).
 */
export function sha256HeadOfPieces(pieces: Iterable<string>, bytes: number): string {
  const running = createHash('sha256');
  for (const piece of pieces) running.update(piece);
  return ownCopy(running.digest('hex').slice(0, 2 * bytes));
}
