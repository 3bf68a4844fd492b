import { mediaIdentities } from '../media/media-library.js';
import type { MediaSource } from '../media/resolve-media.js';
import type { RemoteRecord } from '../resources.js';
import pLimit from 'p-limit';
import { mediaLibrary, NotStarted, uploadSource, type UploadContext } from './apply-plan.js';
import type { UploadAhead } from './upload-ahead-types.js';

export type { UploadAhead };

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
