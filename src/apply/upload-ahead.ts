import { editMediaText } from '../media/edit-media.js';
import { mediaIdentities } from '../media/media-library.js';
import { sameText, type MediaText } from '../media/media-text.js';
import type { DesiredRecord } from '../records/build-record.js';
import type { WireOptions } from '../remote/wire.js';
import type { MediaSource } from '../media/resolve-media.js';
import type { RemoteRecord } from '../resources.js';
import type { State } from '../state/state-file.js';
import pLimit from 'p-limit';
import { mediaLibrary, NotStarted, uploadSource, type UploadContext } from './apply-plan.js';

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
  const built = new Set<string>();
  const started = new Map<string, Promise<{ id: number; uploaded: boolean; text: MediaText | undefined }>>();
  const shared = mediaLibrary(ctx.client);
  // The library as it was before any upload ahead (the first call precedes them all): what the
  // plan compares with. `shared` itself is refreshed when an upload's answer is lost.
  let before: Promise<RemoteRecord[]> | undefined;
  const library = () => (before ??= shared.list(false));
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
      const held = ctx.checkLibrary
        ? (await library()).find((m) => mediaIdentities(m).includes(source.identity))
        : undefined;
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
      built.add(record.key);
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
