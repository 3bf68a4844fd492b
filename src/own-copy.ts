/**
 * `text` as a string of its own. V8 makes a string of 13 characters or more cut out of a longer one
 * a view that keeps the longer one alive: a short digest cut from a hash, or a slug cut from a
 * file's front matter, would keep the whole hash or text in memory for as long as it is held.
 * A string built from parts (a template literal, `+`, JSON.stringify) is kept as a tree of its
 * parts, several times its own size for a short one. join() builds a new flat string from the pieces.
 */
export function ownCopy(text: string): string {
  return text.length < 13 ? text : [text.slice(0, 1), text.slice(1)].join('');
}
