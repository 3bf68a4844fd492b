import type { Change } from '../plan/compute-plan.js';
import type { RecordResource } from '../resources.js';

/**
 * The records one resource's writes left, by column (row i of each is one write, in the order
 * they landed): a cold apply writes one per document, and an object per write would add up. The
 * key's slug is cut from it only when the listing cache takes the row.
 */
export interface OwnWrites {
  ids: number[];
  keys: string[];
  markers: Array<string | number>;
}

/**
 * What the writes of one apply left in the CMS, noted as each lands, for the listing cache (see
 * noteOwnWrites): the records deleted, and the id and change marker the CMS answered with for each
 * record created, edited or adopted. Noted by the apply, which knows each write's change, so that
 * nothing needs to find a change by its key afterwards (a map of every key of a cold apply).
 */
export class LandedWrites {
  readonly written = new Map<RecordResource, OwnWrites>();
  readonly deleted = new Map<RecordResource, Set<number>>();

  /**
   * A create, edit or adoption that landed. Only one whose answer holds a marker, and, but for a
   * create, whose record is the one the plan named: the next listing reads any other.
   */
  wrote(
    change: Extract<Change, { action: 'create' | 'update' | 'adopt' }>,
    entry: { id: number; marker?: string | number | undefined },
  ): void {
    if (entry.marker === undefined || (change.action !== 'create' && entry.id !== change.id)) return;
    let own = this.written.get(change.resource);
    if (!own) this.written.set(change.resource, (own = { ids: [], keys: [], markers: [] }));
    own.ids.push(entry.id);
    own.keys.push(change.key);
    own.markers.push(entry.marker);
  }

  /** A delete that landed. */
  removed(change: Extract<Change, { action: 'delete' }>): void {
    let gone = this.deleted.get(change.resource);
    if (!gone) this.deleted.set(change.resource, (gone = new Set()));
    gone.add(change.id);
  }
}
