import type { MediaSource } from '../media/resolve-media.js';
import type { RemoteRecord } from '../resources.js';
import type { State } from '../state/state-file.js';

// Its own file, so that applyPlan (which waits for these uploads) and createUploadAhead (which
// starts them with applyPlan's upload code) do not import each other.

/**
 * Uploads that start while documents are still being rendered, so that a cold sync does not
 * render everything first and upload afterwards. Every image a document resolves is offered;
 * an image state does not know, that the CMS's library does not hold either, is uploaded at
 * once — but only after the gate opens: the CMS listing has been read, and the run cannot end
 * in an abort (more deletes than --max-deletes), which promises that nothing is sent at all.
 * applyPlan then waits for these uploads instead of starting its own.
 *
 * An image whose record is then left alone (drift, an error elsewhere in its file) has been
 * uploaded all the same; state remembers it, so it is never uploaded again.
 */
export interface UploadAhead {
  /** An image resolved while building a document. */
  offer(source: MediaSource): void;
  /** true: start the uploads offered so far and those to come. false: start none, ever. */
  open(go: boolean): void;
  /** The media id of an image started ahead (uploaded, or found in the library), if it was. */
  started(identity: string): Promise<number> | undefined;
  /** Waits for everything started ahead; which images it uploaded. Closes the gate if it never opened. */
  settle(): Promise<Array<{ identity: string; uploaded: boolean }>>;
  /** The CMS's media library, read once (on the first image state does not know), shared with the plan. */
  library(): Promise<RemoteRecord[]>;
  /** Images state knew before any upload ahead: the plan is made against these, so it still lists the uploads. */
  readonly knownBefore: State['media'];
}
