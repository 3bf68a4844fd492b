import { writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** Bytes encoded and written at a time by writeTextSync: under glibc's mmap threshold at start (128 KiB). */
const PIECE_BYTES = 64 * 1024;
const encoder = new TextEncoder();
let piece: Uint8Array | undefined;

/**
 * Writes `text` to `fd` as UTF-8, a piece at a time through one small buffer; returns the bytes
 * written. Node's writeSync and writeFileSync of a string first encode all of it into one malloc'd
 * buffer of up to three bytes a character. Freeing a buffer larger than glibc's mmap threshold
 * raises that threshold to its size, and the trim threshold to twice that, for the rest of the
 * process: from then on every thread's malloc arena keeps up to that much freed memory. The text
 * of a cache of every file's name grows with the archive, and so, through it, would the arenas.
 */
export function writeTextSync(fd: number, text: string): number {
  piece ??= new Uint8Array(PIECE_BYTES);
  let bytes = 0;
  for (let at = 0; at < text.length;) {
    // encodeInto stops before a character that does not fit: a surrogate pair is never cut.
    const { read, written } = encoder.encodeInto(at === 0 ? text : text.slice(at), piece);
    at += read;
    for (let done = 0; done < written;) done += writeSync(fd, piece, done, written - done);
    bytes += written;
  }
  return bytes;
}

/**
 * writeTextSync through a file handle: `text` as UTF-8, a piece at a time, each piece written before
 * the next is encoded (into a buffer of this call's own, so that two writes never share one).
 */
export async function writeText(handle: FileHandle, text: string): Promise<number> {
  const buffer = new Uint8Array(PIECE_BYTES);
  let bytes = 0;
  for (let at = 0; at < text.length;) {
    const { read, written } = encoder.encodeInto(at === 0 ? text : text.slice(at), buffer);
    at += read;
    for (let done = 0; done < written;)
      done += (await handle.write(buffer, done, written - done)).bytesWritten;
    bytes += written;
  }
  return bytes;
}
