import { isAscii } from 'node:buffer';

/**
 * A file's bytes as text. Files cms-sync writes for itself (caches, state) are nearly always ASCII,
 * which Node decodes as latin1 several times faster than as UTF-8, to the same string. Anything
 * else is decoded as UTF-8.
 */
export function textOf(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}
