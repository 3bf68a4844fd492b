// With the `u` flag a surrogate pair is one code point: only a lone surrogate matches.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * A copy of `text` that keeps nothing else of the export alive. V8 may hold a substring as a
 * view of the string it was cut from, so an id, a slug or a message kept from one item of an
 * export would otherwise keep that whole item, and the chunk of the file it was read in, in
 * memory until the import ends. Whatever outlives its item (indexes, report lines) goes through
 * here.
 */
export function detach(text: string): string {
  // Decoding builds a new flat string. UTF-8 cannot hold a lone surrogate (a title may, from an
  // entity such as `&#xD800;`): such a string takes the longer way through JSON, which keeps it.
  if (LONE_SURROGATE.test(text)) return JSON.parse(JSON.stringify(text)) as string;
  return Buffer.from(text, 'utf8').toString('utf8');
}
