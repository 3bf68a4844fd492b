/**
 * The data-id a block carries until bindMedia swaps in the media id. Here, not beside the
 * renderer that writes it: binding ids must not load the renderer's modules.
 */
export const PLACEHOLDER_PREFIX = 'cms-sync-media:';

const PLACEHOLDER = new RegExp(`(<dynamic-block data-id=")${PLACEHOLDER_PREFIX}(\\d+)(")`, 'g');

/**
 * Replaces the placeholder of image i with ids[i]. Kept apart from the renderer so that binding
 * ids (done for every record written) never loads unified.
 */
export function bindMedia(html: string, ids: readonly number[]): string {
  return html.replace(PLACEHOLDER, (_match, open: string, index: string, close: string) => {
    const id = ids[Number(index)];
    if (id === undefined)
      throw new RangeError(`bindMedia: no media id for image ${index} (${ids.length} ids given)`);
    return `${open}${id}${close}`;
  });
}

const WHOLE_BLOCK = new RegExp(
  `<dynamic-block data-id="${PLACEHOLDER_PREFIX}(\\d+)"[^>]*></dynamic-block>`,
  'g',
);

/**
 * Replaces the whole block of image i with `replacements[i]` where that is a string (an image
 * that cannot be had, see media.onMissing), and numbers the blocks left 0, 1, 2... again, so
 * that they match the media list without those images.
 */
export function replaceBlocks(html: string, replacements: ReadonlyArray<string | undefined>): string {
  let kept = 0;
  const index = new Map<number, number>();
  replacements.forEach((r, i) => {
    if (r === undefined) index.set(i, kept++);
  });
  return html.replace(WHOLE_BLOCK, (block: string, i: string) => {
    const replacement = replacements[Number(i)];
    if (replacement !== undefined) return replacement;
    return block.replace(`${PLACEHOLDER_PREFIX}${i}"`, `${PLACEHOLDER_PREFIX}${index.get(Number(i)) ?? i}"`);
  });
}
