import { closeSync, openSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { evenPieces } from './text-pieces.js';

/** Bytes encoded and written at a time: under glibc's mmap threshold at start (128 KiB). */
const PIECE_BYTES = 64 * 1024;
const encoder = new TextEncoder();
/** Characters of a text's parts encoded at a time: at most three bytes each, so a few fit the buffer. */
const PART_CHARS = 16 * 1024;
let piece: Uint8Array | undefined;

/** A text to write: one string, or its parts in order, of any sizes (see src/json-parts.ts). */
export type TextParts = string | Iterable<string>;

/**
 * `text` as UTF-8 into `buffer`, a piece at a time: yields each piece's length, and encodes the
 * next only when asked, so the caller writes the piece out first. Parts are packed into the buffer
 * one after another. encodeInto stops before a character that does not fit, and the parts are
 * never cut inside a surrogate pair (evenPieces): a pair is never cut.
 */
function* encoded(text: TextParts, buffer: Uint8Array): Generator<number> {
  let filled = 0;
  for (const part of typeof text === 'string' ? [text] : evenPieces(text, PART_CHARS)) {
    for (let at = 0; at < part.length;) {
      const room = filled === 0 ? buffer : buffer.subarray(filled);
      const { read, written } = encoder.encodeInto(at === 0 ? part : part.slice(at), room);
      at += read;
      filled += written;
      // The buffer is full (or the next character does not fit in what is left of it).
      if (at < part.length) {
        yield filled;
        filled = 0;
      }
    }
  }
  if (filled > 0) yield filled;
}

/**
 * Writes `text` to `fd` as UTF-8, a piece at a time through one small buffer; returns the bytes
 * written. Node's writeSync and writeFileSync of a string first encode all of it into one malloc'd
 * buffer of up to three bytes a character. Freeing a buffer larger than glibc's mmap threshold
 * raises that threshold to its size, and the trim threshold to twice that, for the rest of the
 * process: from then on every thread's malloc arena keeps up to that much freed memory. The text
 * of a cache of every file's name grows with the archive, and so, through it, would the arenas.
 */
export function writeTextSync(fd: number, text: TextParts): number {
  const buffer = (piece ??= new Uint8Array(PIECE_BYTES));
  let bytes = 0;
  for (const written of encoded(text, buffer)) {
    for (let done = 0; done < written;) done += writeSync(fd, buffer, done, written - done);
    bytes += written;
  }
  return bytes;
}

/** writeTextSync through a file handle, with a buffer of this call's own (two writes may overlap). */
export async function writeText(handle: FileHandle, text: TextParts): Promise<number> {
  const buffer = new Uint8Array(PIECE_BYTES);
  let bytes = 0;
  for (const written of encoded(text, buffer)) {
    for (let done = 0; done < written;)
      done += (await handle.write(buffer, done, written - done)).bytesWritten;
    bytes += written;
  }
  return bytes;
}

/**
 * Creates `file` (never through anything already at its name: 'wx') with `text` in it, written a
 * piece at a time. The file is closed whether or not the write succeeds; a failure is thrown.
 */
export function createTextFileSync(file: string, text: TextParts): void {
  const fd = openSync(file, 'wx');
  try {
    writeTextSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** createTextFileSync through a file handle. */
export async function createTextFile(file: string, text: TextParts): Promise<void> {
  const handle = await open(file, 'wx');
  try {
    await writeText(handle, text);
  } finally {
    await handle.close();
  }
}
