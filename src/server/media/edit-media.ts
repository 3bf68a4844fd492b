import type { RemoteRecord } from '../../resources.js';
import { ApiError } from '../http/envelope.js';
import type { RecordStore } from '../storage/record-store.js';

/** What an `edit` of a media record may change: the words about the file, never the file. */
const EDITABLE = new Set(['title', 'alt']);

/**
 * `edit` of a media record: its `title` and `alt` only (a string, or null to clear). The file,
 * its URL and hash stay as uploaded; another file is another upload.
 */
export async function editMedia(
  store: RecordStore,
  id: number,
  data: Record<string, unknown>,
  describe: (value: unknown) => string,
): Promise<RemoteRecord> {
  const keys = Object.keys(data);
  if (keys.length === 0) throw new ApiError(400, '"data" of edit is empty: send the fields to change.');
  for (const key of keys) {
    if (!EDITABLE.has(key))
      throw new ApiError(
        400,
        `media field ${JSON.stringify(key)} cannot be edited: only title and alt can; upload another file with ` +
          'upload_from_url to change the file.',
      );
    if (data[key] !== null && typeof data[key] !== 'string')
      throw new ApiError(400, `data.${key} must be a string or null, got ${describe(data[key])}.`);
  }
  return store.exclusive(async () => {
    const previous = store.get('media', id);
    if (!previous) throw new ApiError(404, `media ${id} does not exist.`);
    const updated: RemoteRecord = { ...previous };
    for (const key of keys) updated[key] = data[key] ?? null;
    store.replace('media', updated);
    return updated;
  });
}
