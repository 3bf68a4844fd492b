/**
 * The text of `parts` joined, given again in pieces of `size` characters (the last one shorter),
 * never cut between the two halves of a surrogate pair (a piece then ends one character early):
 * encoded or escaped alone, each half would become something else. Small parts are joined and a
 * long part is cut, a slice at a time, never copied whole: a text that grows with the archive
 * goes out in pieces of a size that does not (see src/write-text.ts).
 */
export function* evenPieces(parts: Iterable<string>, size: number): Generator<string> {
  let piece = '';
  for (const part of parts) {
    for (let at = 0; at < part.length;) {
      const take = Math.min(part.length - at, size - piece.length);
      piece += take === part.length ? part : part.slice(at, at + take);
      at += take;
      if (piece.length < size) continue;
      const cut = isHighSurrogate(piece.charCodeAt(size - 1)) ? size - 1 : size;
      yield cut === size ? piece : piece.slice(0, cut);
      piece = cut === size ? '' : piece.slice(cut);
    }
  }
  if (piece) yield piece;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
