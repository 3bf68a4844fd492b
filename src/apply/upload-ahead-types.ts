import type { MediaText } from '../media/media-text.js';
import type { DesiredRecord } from '../records/build-record.js';
import type { RemoteRecord } from '../resources.js';
import type { State } from '../state/state-file.js';

// Its own file, so that applyPlan (which waits for these uploads) and createUploadAhead (which
// starts them with applyPlan's upload code) do not import each other.

/**
 * Uploads that start while documents are still being rendered, so that a cold sync does not
 * render everything first and upload afterwards. Every record built without errors is offered
 * with its images; an image state does not know, that the CMS's library does not hold either,
 * is uploaded at once — but only after the gate opens (the CMS listing has been read, and the
 * run cannot end in an abort on --max-deletes, which promises that nothing is sent at all), and
 * only for a record the plan is sure to write: one that is new to state (so no drift can hold
 * it back) and whose category exists or has been built. applyPlan then waits for these uploads
 * instead of starting its own, so apply uploads no image the plan does not list.
 */
export interface UploadAhead {
  /** A record built without errors (its images, and its key for records that wait on it). */
  offer(record: DesiredRecord): void;
  /**
   * true: start the uploads of the records offered so far and to come, each once `writes(record)`
   * is sure the plan writes it: `true`, or `{ after: key }` once the record of that key is built
   * (its category). false: start none, ever.
   */
  open(go: boolean, writes?: (record: DesiredRecord) => boolean | { after: string }): void;
  /**
   * The media id of an image started ahead (uploaded, or found in the library), if it was; when
   * the plan gives it another alt or title than the upload carried, the media record is edited.
   */
  started(identity: string, text?: MediaText): Promise<number> | undefined;
  /** Waits for everything started ahead; which images it uploaded. Closes the gate if it never opened. */
  settle(): Promise<Array<{ identity: string; uploaded: boolean }>>;
  /** The CMS's media library, read once (on the first image state does not know), shared with the plan. */
  library(): Promise<RemoteRecord[]>;
  /** Images state knew before any upload ahead: the plan is made against these, so it still lists the uploads. */
  readonly knownBefore: State['media'];
}
