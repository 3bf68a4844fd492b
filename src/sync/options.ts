import type { Plan } from '../plan/compute-plan.js';
import type { SavedPlan } from '../plan/saved-plan.js';

/** What a plan or apply syncs, and how: the engine's options. How it is shown is the caller's business. */
export interface SyncOptions {
  /** Requests in flight at once. @default config `sync.concurrency` */
  concurrency?: number;
  /** Ceiling on requests per second. @default config `sync.rps` (none) */
  rps?: number;
  /**
   * Only files matching these globs under content/, e.g. `articles/**`; records outside them are
   * neither read nor deleted.
   */
  only?: string[];
  /** Delete records whose file is gone (only records cms-sync created or adopted). @default config `sync.prune` */
  prune?: boolean;
  /** Stop before any call when more deletes are planned. @default config `sync.maxDeletes` */
  maxDeletes?: number;
  /** Replace records that were changed in the CMS since cms-sync wrote them. @default false */
  overwriteDrift?: boolean;
  /** false: a file renamed without `slug:` is a new record, its old one a removal. @default true */
  detectRenames?: boolean;
  /** Carry both sides of every changed field in the plan (`values`), for a diff. @default false */
  diff?: boolean;
  /** Upload remote images that failed lately again now, not after `media.retryFailedAfterMs`. @default false */
  retryFailedMedia?: boolean;
  /** Make no call at all when any file has an error. @default false */
  strict?: boolean;
  /**
   * false: trust the state for what the CMS holds and read nothing from it (like Terraform's
   * -refresh=false). 'full': list every record of the CMS, not only what changed since the last
   * listing. @default true
   */
  refresh?: boolean | 'full';
  /** plan: also write the plan to this file (relative to the project), for a later apply of exactly it. */
  out?: string;
  /** apply: the saved plan to carry out exactly, refused if it no longer holds. */
  savedPlan?: { file: string; plan: SavedPlan };
  /**
   * Asked after the plan is shown and before anything is written, when the plan has changes:
   * false stops the apply with exit code 1 and no write (uploads do not start ahead either).
   */
  confirm?: (plan: Plan, target: { identity: string; local: boolean }) => Promise<boolean>;
  /** The embedded local CMS, even in CI or with a base URL set. */
  local?: boolean;
  /** Read the API token from this file (relative to the project) rather than the environment. */
  tokenFile?: string;
}
