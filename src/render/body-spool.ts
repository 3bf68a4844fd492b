import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { requireLater } from '../require-later.js';

// Loaded when a document is first spooled: a run that changes nothing spools nothing.
const v8 = requireLater<typeof import('node:v8')>('node:v8');

/** A text kept on disk; read back whole, as often as asked, while its spool is open. */
export interface SpooledText {
  toString(): string;
}

/** Where a value or a text lies in a spool: its holder keeps it in fields of its own (see BodySpool.place). */
export interface SpoolPlace {
  at: number;
  length: number;
}

export interface SpoolStats {
  /** Texts written to the spool. */
  texts: number;
  /** Values written to the spool (records: see spooled-record.ts). */
  values: number;
  /** Their size in bytes (texts as UTF-8, values in V8's serialization). */
  bytes: number;
  /** The most documents whose body was in memory at once (see BodySpool.borrow). */
  heldAtOnce: number;
}

/**
 * The bodies of a run (Markdown from the scan until it is rendered, HTML from the render until
 * it is written), kept in one append-only file so that memory holds only where each one is: a
 * cold apply would otherwise hold the whole content folder until its last write. The file is
 * unlinked as soon as it is open where the system allows (so a killed run leaves nothing
 * behind) and otherwise at close.
 */
export interface BodySpool {
  hold(text: string): SpooledText;
  /**
   * Keeps a value (in structured-clone form) and says where it lies, rather than making an object
   * that knows: a holder of many keeps the place in its own fields, one object less each. Read
   * it with valueAt: what is read back is a copy, shared by the reads that come while it is
   * among the last few read, so a caller must not change it.
   */
  place(value: unknown): SpoolPlace;
  valueAt(at: number, length: number): unknown;
  /** Where a text held here lies (undefined for one that is not), to read it again with textAt. */
  placeOf(text: SpooledText): SpoolPlace | undefined;
  textAt(at: number, length: number): string;
  /** A document's body is in memory from now on (it is being built)... */
  borrow(): void;
  /** ...until now (its record is built and its HTML held here, or it failed). */
  giveBack(): void;
  readonly stats: SpoolStats;
  close(): void;
}

export function openBodySpool(dir: string): BodySpool {
  const file = path.join(dir, `body-spool-${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(file, 'wx+', 0o600);
  let unlinked = false;
  try {
    unlinkSync(file);
    unlinked = true;
  } catch {
    // Windows keeps an open file: it goes at close.
  }
  let end = 0;
  let open = true;
  let live = 0;
  const stats: SpoolStats = { texts: 0, values: 0, bytes: 0, heldAtOnce: 0 };
  const append = (bytes: Uint8Array): number => {
    const at = end;
    let written = 0;
    while (written < bytes.length)
      written += writeSync(fd, bytes, written, bytes.length - written, at + written);
    end += bytes.length;
    stats.bytes += bytes.length;
    return at;
  };
  // One buffer for every read, decoded at once: a buffer per read would be garbage outside the
  // heap, which the collector lets pile up far longer than strings.
  let scratch = Buffer.allocUnsafe(64 * 1024);
  let encoded = Buffer.allocUnsafe(64 * 1024);
  const readBack = (at: number, length: number): Buffer => {
    if (!open) throw new Error('a body was read after its run ended (the spool is closed)');
    if (scratch.length < length) scratch = Buffer.allocUnsafe(length);
    const out = scratch.subarray(0, length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, out, read, length - read, at + read);
      if (n === 0) throw new Error('the body spool ended early');
      read += n;
    }
    return out;
  };
  // A record is read several times in a row (plan, then its write): the last few read stay.
  const recent = new Map<number, unknown>();
  const reader: Reader = {
    text: (at, length) => readBack(at, length).toString('utf8'),
    value(at, length) {
      if (recent.has(at)) return recent.get(at);
      const read: unknown = v8().deserialize(readBack(at, length));
      if (recent.size >= RECENT) recent.delete(recent.keys().next().value!);
      recent.set(at, read);
      return read;
    },
  };
  return {
    stats,
    hold(text) {
      const size = Buffer.byteLength(text, 'utf8');
      if (encoded.length < size) encoded = Buffer.allocUnsafe(size);
      const bytes = encoded.subarray(0, encoded.write(text, 'utf8'));
      stats.texts += 1;
      return new HeldText(reader, append(bytes), bytes.length);
    },
    place(value) {
      const bytes = v8().serialize(value);
      stats.values += 1;
      return { at: append(bytes), length: bytes.length };
    },
    valueAt: (at, length) => reader.value(at, length),
    placeOf: (text) =>
      text instanceof HeldText && text.reader === reader ? { at: text.at, length: text.length } : undefined,
    textAt: (at, length) => reader.text(at, length),
    borrow() {
      live += 1;
      if (live > stats.heldAtOnce) stats.heldAtOnce = live;
    },
    giveBack() {
      live -= 1;
    },
    close() {
      if (!open) return;
      open = false;
      recent.clear();
      closeSync(fd);
      if (!unlinked) unlinkSync(file);
    },
  };
}

/** Values read back that stay in memory (see place). */
const RECENT = 64;

interface Reader {
  text(at: number, length: number): string;
  value(at: number, length: number): unknown;
}

// A class rather than a closure: one small object per body, which adds up over many.
class HeldText implements SpooledText {
  constructor(
    readonly reader: Reader,
    readonly at: number,
    readonly length: number,
  ) {}

  toString(): string {
    return this.reader.text(this.at, this.length);
  }
}
