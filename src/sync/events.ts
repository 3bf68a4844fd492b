import type { ApplyResult, ProgressEvent } from '../apply/apply-plan.js';
import type { FileProblem } from '../errors.js';
import type { Plan } from '../plan/compute-plan.js';

/**
 * What a sync reports as it goes, in the order it happens. The engine never prints: the CLI's
 * reporter turns these into the lines a terminal or a log shows, and a library user may log,
 * collect or ignore them.
 */
export type SyncEvent =
  /** The CMS this run talks to: "local" or its base URL without credentials, and a line that says so. */
  | { type: 'target'; identity: string; baseUrl: string; announcement: string }
  /** Something the user should know that does not stop the run (a token sent over plain http…). */
  | { type: 'warning'; message: string }
  /**
   * Where the pass is, for a progress display: opening the config, CMS and state; scanning
   * content/; rendering (`done` of `total` documents to build); listing the CMS; comparing with it
   * (reading the records the plan must compare). Sent again with counts as they move.
   */
  | { type: 'phase'; phase: SyncPhase; done?: number; total?: number }
  /** A problem in one file: the file is skipped (and its record kept), the run goes on. */
  | { type: 'problem'; problem: FileProblem }
  /**
   * The pass stopped before any write: `strict`, files had errors under `strict`; `stale-plan`,
   * the saved plan no longer holds (`reason` says why).
   */
  | { type: 'stopped'; reason: 'strict' }
  | { type: 'stopped'; reason: 'stale-plan'; file: string; detail: string }
  /** The plan is made; `skipped` files were left out for their errors. */
  | { type: 'plan'; plan: Plan; skipped: number }
  /** apply is about to carry the plan out. */
  | { type: 'apply-start'; plan: Plan }
  /** One step of apply finished (an upload, a create, an update, a delete). */
  | ({ type: 'progress' } & ProgressEvent)
  /**
   * apply finished (or was interrupted): what it did, the plan's count of unchanged records,
   * the files skipped for errors, how long the pass took and how many requests it sent.
   */
  | {
      type: 'applied';
      result: ApplyResult;
      unchanged: number;
      skipped: number;
      ms: number;
      requests: number;
    }
  /** pull and import: items converted so far, of all. */
  | { type: 'items'; done: number; total: number }
  /** pull and import: every item converted. */
  | { type: 'items-done' };

/** The phases of a pass before its plan; apply's writes are told by `apply-start` and `progress`. */
export type SyncPhase = 'config' | 'scan' | 'render' | 'list' | 'compare';

/** Receives a run's events; every option that takes one may be left out. */
export type SyncReporter = (event: SyncEvent) => void;
