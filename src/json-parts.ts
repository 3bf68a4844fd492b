import { randomUUID } from 'node:crypto';
import { evenPieces } from './text-pieces.js';

/**
 * Characters of a list's or a text's parts. Under glibc's mmap threshold once encoded (see
 * src/write-text.ts), and few enough parts that the writers' loops cost nothing.
 */
const PART_CHARS = 16 * 1024;

/**
 * A value whose JSON text is given a part at a time: `jsonParts` writes the parts where the value
 * stands. The parts must add up to one JSON value.
 */
export class JsonPieces {
  constructor(readonly pieces: () => Iterable<string>) {}

  /**
   * A JSON array of `items`, each stringified when its turn comes: a plain JSON value, or a
   * JsonPieces itself (an object among the items is not searched for one).
   */
  static list(items: Iterable<unknown>): JsonPieces {
    return new JsonPieces(() => evenPieces(listText(items), PART_CHARS));
  }

  /** A JSON string of the text `pieces` give, of any sizes, escaped a part at a time. */
  static text(pieces: () => Iterable<string>): JsonPieces {
    return new JsonPieces(() => evenPieces(quoted(evenPieces(pieces(), PART_CHARS)), PART_CHARS));
  }
}

/**
 * The text of `JSON.stringify(value)` in parts, where each JsonPieces in `value` is written from
 * its own parts: a value that grows with the archive (every document's key, every record's slug)
 * is never one string. Its text would be held whole, once more as UTF-8 on its way out, and a
 * freed block of megabytes raises glibc's thresholds for the rest of the process.
 */
export function* jsonParts(value: unknown): Generator<string> {
  const streamed: JsonPieces[] = [];
  // Stands for each streamed value in the text of the rest, to be cut out: a string no other value holds.
  const mark = `\u0000pieces ${randomUUID()} `;
  const text = JSON.stringify(value, (_key, item: unknown) =>
    item instanceof JsonPieces ? `${mark}${streamed.push(item) - 1}` : item,
  );
  // The replacer meets the values in the order of the text.
  let from = 0;
  for (let i = 0; i < streamed.length; i++) {
    const standIn = JSON.stringify(`${mark}${i}`);
    const at = text.indexOf(standIn, from);
    if (at > from) yield text.slice(from, at);
    yield* streamed[i]!.pieces();
    from = at + standIn.length;
  }
  if (from < text.length) yield from === 0 ? text : text.slice(from);
}

function* listText(items: Iterable<unknown>): Generator<string> {
  yield '[';
  let first = true;
  for (const item of items) {
    if (!first) yield ',';
    first = false;
    if (item instanceof JsonPieces) yield* item.pieces();
    else yield JSON.stringify(item) ?? 'null';
  }
  yield ']';
}

/** `pieces` escaped as one JSON string: JSON escapes each character alone, and no piece ends inside a pair. */
function* quoted(pieces: Iterable<string>): Generator<string> {
  yield '"';
  for (const piece of pieces) yield JSON.stringify(piece).slice(1, -1);
  yield '"';
}
