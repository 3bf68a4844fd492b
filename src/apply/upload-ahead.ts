import { mediaIdentities } from '../media/media-library.js';
import type { MediaSource } from '../media/resolve-media.js';
import type { RemoteRecord } from '../resources.js';
import type { State } from '../state/state-file.js';
import { mediaLibrary, uploadSource, type UploadContext } from './apply-plan.js';

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
  /** The upload started ahead for this identity, if there is one. */
  started(identity: string): Promise<void> | undefined;
  /** Waits for every upload started ahead; what each came to. Closes the gate if it never opened. */
  settle(): Promise<Array<{ identity: string; ok: boolean }>>;
  /** The CMS's media library, read once (on the first image state does not know), shared with the plan. */
  library(): Promise<RemoteRecord[]>;
  /** Images state knew before any upload ahead: the plan is made against these, so it still lists the uploads. */
  readonly knownBefore: State['media'];
}

export function createUploadAhead(deps: Omit<UploadContext, 'book'> & { checkLibrary: boolean }): UploadAhead {
  // Ids land in state (and, through it, in applyPlan's book); this book only serves the upload.
  const ctx: UploadContext = { ...deps, book: { categoryIdBySlug: new Map(), mediaIdByIdentity: new Map() } };
  const knownBefore = { ...ctx.store.state.media };
  const offered = new Map<string, Exclude<MediaSource, { kind: 'existing' }>>();
  const started = new Map<string, Promise<void>>();
  const outcomes: Array<Promise<{ identity: string; ok: boolean }>> = [];
  const shared = mediaLibrary(ctx.client);
  let listing: Promise<RemoteRecord[]> | undefined;
  const library = () => (listing ??= shared.list(false));
  let gate: 'waiting' | 'open' | 'closed' = 'waiting';

  const start = (source: Exclude<MediaSource, { kind: 'existing' }>) => {
    const upload = (async () => {
      // Lost state: the library may hold this image already. Then the plan adopts it; no upload.
      // Not with --refresh=false, which trusts the state and reads nothing from the CMS.
      const inLibrary = deps.checkLibrary && (await library()).some((m) => mediaIdentities(m).includes(source.identity));
      if (inLibrary) return false;
      await uploadSource(source, ctx, shared);
      return true;
    })();
    const done = upload.then(() => undefined);
    // Failures are reported by applyPlan when a record needs the image; never unhandled here.
    done.catch(() => undefined);
    outcomes.push(upload.then((uploaded) => ({ identity: source.identity, ok: uploaded }), () => ({ identity: source.identity, ok: false })));
    started.set(source.identity, done);
  };

  return {
    knownBefore,
    library,
    offer(source) {
      if (source.kind === 'existing' || knownBefore[source.identity] || offered.has(source.identity)) return;
      offered.set(source.identity, source);
      if (gate === 'open') start(source);
    },
    open(go) {
      if (gate !== 'waiting') return;
      gate = go ? 'open' : 'closed';
      if (go) for (const source of offered.values()) start(source);
    },
    started: (identity) => started.get(identity),
    async settle() {
      if (gate === 'waiting') gate = 'closed';
      return Promise.all(outcomes);
    },
  };
}
