/**
 * A copy of `text` that keeps no other string alive. V8 may hold a substring as a view of the
 * string it was cut from, so an id, a slug or a message kept from one item of an export would
 * otherwise keep that whole item, and the chunk of the file it was read in, in memory until the
 * import ends. Whatever outlives its item (indexes, report lines) goes through here.
 */
export function detach(text: string): string {
  // JSON round-trips every string exactly (lone surrogates included) and always builds a new one.
  return JSON.parse(JSON.stringify(text)) as string;
}
