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
