import { editMediaText } from '../media/edit-media.js';
import { mediaIdentities } from '../media/media-library.js';
import { sameText, type MediaText } from '../media/media-text.js';
import type { DesiredRecord } from '../records/build-record.js';
import type { WireOptions } from '../remote/wire.js';
import type { MediaSource } from '../media/resolve-media.js';
import type { RemoteRecord } from '../resources.js';
import { RELATION_TARGETS } from '../resources/derived.js';
import pLimit from 'p-limit';
import { mediaLibrary, NotStarted, uploadSource, type UploadContext } from './apply-plan.js';
import type { UploadAhead } from './upload-ahead-types.js';

export type { UploadAhead };

type Uploadable = Exclude<MediaSource, { kind: 'existing' }>;

export function createUploadAhead(
  ctx: UploadContext & {
    checkLibrary: boolean;
    signal?: AbortSignal | undefined;
    wire: Pick<WireOptions, 'mediaAltField' | 'mediaTitleField'>;
  },
): UploadAhead {
  const knownBefore = { ...ctx.store.state.media };
  // Records offered before the gate opened, and records waiting for a key to be built, by that key.
  const queued: DesiredRecord[] = [];
  const waiting = new Map<string, DesiredRecord[]>();
  // Only keys a relation names can be waited for: an apply of every article keeps none of theirs.
  const built = new Set<string>();
  const started = new Map<string, Promise<{ id: number; uploaded: boolean; text: MediaText | undefined }>>();
  const shared = mediaLibrary(ctx.client);
  // The library as it was before any upload ahead (the first call precedes them all): what the
  // plan compares with. `shared` itself is refreshed when an upload's answer is lost.
  let before: Promise<RemoteRecord[]> | undefined;
  const library = () => (before ??= shared.list(false));
  // The library by identity, the first of the list for each, made once: each image to upload is
  // then one look-up, not a pass over the library.
  let byIdentity: Promise<Map<string, RemoteRecord>> | undefined;
  const inLibrary = () =>
    (byIdentity ??= library().then((records) => {
      const index = new Map<string, RemoteRecord>();
      for (const media of records)
        for (const identity of mediaIdentities(media)) if (!index.has(identity)) index.set(identity, media);
      return index;
    }));
  let gate: 'waiting' | 'open' | 'closed' = 'waiting';
  let writes: (record: DesiredRecord) => boolean | { after: string } = () => true;
  // As in applyPlan: no more uploads queue in the client than it sends at once, so none goes out
  // after an interrupt that had not gone out before it.
  const slots = pLimit(ctx.client.concurrency);
  const stopped = () => ctx.signal?.aborted === true;

  const start = (source: Uploadable, text: MediaText) => {
    const outcome = (async () => {
      // Lost state: the library may hold this image already. Then the plan adopts it; no upload.
      // Not with --refresh=false, which trusts the state and reads nothing from the CMS.
      const held = ctx.checkLibrary ? (await inLibrary()).get(source.identity) : undefined;
      if (held) return { id: held.id, uploaded: false, text: undefined };
      return slots(async () => {
        if (stopped()) throw new NotStarted();
        return { id: await uploadSource(source, ctx, shared, text), uploaded: true, text };
      });
    })();
    // Failures are reported by applyPlan when a record needs the image; never unhandled here.
    outcome.catch(() => undefined);
    started.set(source.identity, outcome);
  };
  // Starts the images of a record once the plan is sure to write it.
  const consider = (record: DesiredRecord) => {
    if (gate !== 'open' || stopped()) return;
    const sure = writes(record);
    if (sure === false) return;
    if (sure !== true && !built.has(sure.after)) {
      const list = waiting.get(sure.after) ?? [];
      list.push(record);
      waiting.set(sure.after, list);
      return;
    }
    record.html?.media.forEach((source, n) => {
      if (source.kind === 'existing' || knownBefore[source.identity] || started.has(source.identity)) return;
      const said = record.html?.text?.[n];
      start(source, {
        alt: said?.alt ?? '',
        ...(said?.title === undefined ? {} : { title: said.title }),
        from: record.key,
      });
    });
  };

  return {
    knownBefore,
    library,
    offer(record) {
      if (gate === 'closed') return;
      if (RELATION_TARGETS.has(record.resource)) built.add(record.key);
      const released = waiting.get(record.key) ?? [];
      waiting.delete(record.key);
      if (record.html?.media.some((m) => m.kind !== 'existing' && !knownBefore[m.identity])) {
        if (gate === 'waiting') queued.push(record);
        else consider(record);
      }
      for (const other of released) consider(other);
    },
    open(go, sure) {
      if (gate !== 'waiting') return;
      gate = go && !stopped() ? 'open' : 'closed';
      if (sure) writes = sure;
      for (const record of queued.splice(0)) consider(record);
    },
    started(identity, text) {
      const outcome = started.get(identity);
      if (!outcome) return undefined;
      return outcome.then(async (o) => {
        // The plan chose the alt of another record than the first one built (see media-text.ts).
        if (!o.uploaded || !text || (o.text && sameText({ alt: o.text.alt, ...titleOf(o.text) }, text)))
          return o.id;
        const source = ctx.store.state.media[identity]?.source ?? identity;
        return editMediaText({ identity, id: o.id, source, text, send: true }, { ...ctx, wire: ctx.wire });
      });
    },
    async settle() {
      if (gate === 'waiting') gate = 'closed';
      queued.length = 0;
      waiting.clear();
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

function titleOf(text: MediaText): { title?: string } {
  return text.title === undefined ? {} : { title: text.title };
}
