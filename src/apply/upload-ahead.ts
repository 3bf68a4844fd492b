import { mediaIdentities } from '../media/media-library.js';
import type { MediaSource } from '../media/resolve-media.js';
import type { RemoteRecord } from '../resources.js';
import type { State } from '../state/state-file.js';
import pLimit from 'p-limit';
import { mediaLibrary, NotStarted, uploadSource, type UploadContext } from './apply-plan.js';

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

export function createUploadAhead(
  ctx: UploadContext & { checkLibrary: boolean; signal?: AbortSignal | undefined },
): UploadAhead {
  const knownBefore = { ...ctx.store.state.media };
  const offered = new Map<string, Exclude<MediaSource, { kind: 'existing' }>>();
  const started = new Map<string, Promise<{ id: number; uploaded: boolean }>>();
  const shared = mediaLibrary(ctx.client);
  // The library as it was before any upload ahead (the first call precedes them all): what the
  // plan compares with. `shared` itself is refreshed when an upload's answer is lost.
  let before: Promise<RemoteRecord[]> | undefined;
  const library = () => (before ??= shared.list(false));
  let gate: 'waiting' | 'open' | 'closed' = 'waiting';
  // As in applyPlan: no more uploads queue in the client than it sends at once, so none goes out
  // after an interrupt that had not gone out before it.
  const slots = pLimit(ctx.client.concurrency);
  const stopped = () => ctx.signal?.aborted === true;

  const start = (source: Exclude<MediaSource, { kind: 'existing' }>) => {
    const outcome = (async () => {
      // Lost state: the library may hold this image already. Then the plan adopts it; no upload.
      // Not with --refresh=false, which trusts the state and reads nothing from the CMS.
      const held = ctx.checkLibrary
        ? (await library()).find((m) => mediaIdentities(m).includes(source.identity))
        : undefined;
      if (held) return { id: held.id, uploaded: false };
      return slots(async () => {
        if (stopped()) throw new NotStarted();
        return { id: await uploadSource(source, ctx, shared), uploaded: true };
      });
    })();
    // Failures are reported by applyPlan when a record needs the image; never unhandled here.
    outcome.catch(() => undefined);
    started.set(source.identity, outcome);
  };

  return {
    knownBefore,
    library,
    offer(source) {
      if (source.kind === 'existing' || knownBefore[source.identity] || offered.has(source.identity)) return;
      offered.set(source.identity, source);
      if (gate === 'open' && !stopped()) start(source);
    },
    open(go) {
      if (gate !== 'waiting') return;
      gate = go && !stopped() ? 'open' : 'closed';
      if (gate === 'open') for (const source of offered.values()) start(source);
    },
    started: (identity) => started.get(identity)?.then((outcome) => outcome.id),
    async settle() {
      if (gate === 'waiting') gate = 'closed';
      return Promise.all(
        [...started].map(([identity, outcome]) =>
          outcome.then(
            (o) => ({ identity, uploaded: o.uploaded }),
            () => ({ identity, uploaded: false }),
          ),
        ),
      );
    },
  };
}
