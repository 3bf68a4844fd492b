import type { FileProblem } from '../errors.js';

// The library's types, written out so that its declarations need neither Node's types nor
// undici's: a script that only calls `sync()` type-checks without @types/node. library.ts checks
// that the engine's own values fit them, so the two cannot drift apart unnoticed.

/** What every library function takes besides its own options. */
export interface RunOptions {
  /** The folder holding sync.config.ts and content/. @default process.cwd() */
  projectDir?: string;
  /** Where CMS_BASE_URL, CMS_API_TOKEN and the other settings are read. @default process.env */
  env?: Record<string, string | undefined>;
  /** Stops the run: no new request (plan) or write (apply) starts; writes in flight finish and are saved. */
  signal?: AbortSignal;
  /** Told what happens as it happens; the library itself never prints. */
  reporter?: (event: SyncEvent) => void;
}

/** What to sync, and how. */
export interface SyncOptions extends RunOptions {
  /** Requests in flight at once. @default config `sync.concurrency` */
  concurrency?: number;
  /** Ceiling on requests per second. @default config `sync.rps` (none) */
  rps?: number;
  /** Only files matching these globs under content/, e.g. `articles/**`. */
  only?: string[];
  /** Delete records whose file is gone (only records cms-sync created or adopted). @default config `sync.prune` */
  prune?: boolean;
  /** Stop before any call when more deletes are planned. @default config `sync.maxDeletes` */
  maxDeletes?: number;
  /** Replace records that were changed in the CMS since cms-sync wrote them. @default false */
  overwriteDrift?: boolean;
  /** Make no call at all when any file has an error. @default false */
  strict?: boolean;
  /**
   * false: trust the state for what the CMS holds and read nothing from it. 'full': list every
   * record of the CMS, not only what changed since the last listing. @default true
   */
  refresh?: boolean | 'full';
  /** The embedded local CMS, even in CI or with a base URL set. @default false */
  local?: boolean;
  /** Read the API token from this file rather than the environment. */
  tokenFile?: string;
}

export interface PlanOptions extends SyncOptions {
  /** Also save the plan to this file (relative to the project), for `apply(file)` to carry out exactly. */
  out?: string;
}

export interface PullOptions extends RunOptions {
  /** Content folder to write into, relative to the project; records are adopted only in the config's. */
  out?: string;
  /** Overwrite files that already exist. @default false */
  force?: boolean;
}

export interface ImportOptions extends RunOptions {
  /** `wordpress` (WXR, Tools > Export) or `ghost` (JSON, Settings > Labs > Export). */
  source: 'wordpress' | 'ghost';
  /** The export file, relative to the project. */
  file: string;
  /** Content folder to write into, relative to the project. @default the config's contentDir */
  out?: string;
  /** Overwrite files that already exist. @default false */
  force?: boolean;
  /** Ghost: the old site address, put where the export says __GHOST_URL__. */
  ghostUrl?: string;
}

export type { FileProblem };

/** The plan, as `cms-sync plan --json` prints it. */
export interface PlanSummary {
  counts: {
    create: number;
    update: number;
    delete: number;
    upload: number;
    adopt: number;
    unchanged: number;
    drift: number;
    conflict: number;
    kept: number;
  };
  /** Why the plan stops before any call (e.g. more deletes than maxDeletes), or null. */
  abort: string | null;
  /** Why planned deletes are held back, or null. */
  deletesHeld: string | null;
  /**
   * Records counted as unchanged without being looked at: their files are as the last clean apply
   * left them. They are in `counts.unchanged`, not in `changes`.
   */
  untouched: number;
  uploads: Array<{ identity: string; source: string | null; usedBy: string[] }>;
  /** Every record the run looked at (see `untouched` for those it did not). */
  changes: Array<{
    action: 'create' | 'update' | 'delete' | 'adopt' | 'unchanged' | 'drift' | 'keep';
    key: string;
    resource: string;
    file: string;
    id?: number;
    fields?: string[];
    kind?: string;
    message?: string;
    reason?: string;
  }>;
  problems: Array<FileProblem & { text: string }>;
}

export interface ApplyFailure {
  key: string;
  file: string;
  message: string;
}

/** What apply did. */
export interface ApplyResult {
  created: number;
  updated: number;
  deleted: number;
  adopted: number;
  uploaded: number;
  failures: ApplyFailure[];
  /** Why planned deletes were not carried out, when they were not. */
  deletesSkipped?: string;
  /** Set when the signal stopped the apply: planned writes that never started. */
  interrupted?: { notStarted: number };
}

/** What one plan or apply found and did: the same facts as `--json`. */
export interface SyncResult {
  mode: 'plan' | 'apply';
  /** "local" for the embedded CMS, else its base URL without credentials. */
  target: string;
  /** 0 done; 1 a file or a write failed; 3 stopped by a safety check, or drift left alone; 130 interrupted. */
  exitCode: number;
  /** Every per-file problem: of reading and building files, and of the plan. */
  problems: FileProblem[];
  /** Undefined when the run stopped before it was made (`strict` and a file with errors). */
  plan: PlanSummary | undefined;
  /** What apply did; undefined for a plan, or when nothing was carried out. */
  result: ApplyResult | undefined;
  /**
   * Documents listed, rendered (their input changed) and hashed; `untouched`, with the mark of a
   * clean apply, those passed over unread.
   */
  source: { documents: number; rendered: number; hashed: number; untouched?: number };
  /** Requests sent. */
  stats: {
    requests: number;
    /** Requests per `<resource>.<action>`, e.g. `article.add`. */
    byAction: Record<string, number>;
    /** Requests of any action but `get`. */
    writes: number;
    retries: number;
    rateLimited: number;
    ambiguous: number;
    bytesSent: number;
    bytesReceived: number;
  };
  /** apply: when the run began (epoch ms), then ms since: content read, plan made, applied. */
  timings?: { startedAt: number; read: number; planned: number; applied: number };
  /** Why the run stopped before its plan was carried out: `strict`, or a saved plan that no longer holds. */
  stopped?: 'strict' | 'stale-plan';
}

export interface PullResult {
  /** Absolute path of the folder written into. */
  contentDir: string;
  written: number;
  /** Records adopted in state (0 when the folder is not the project's content directory). */
  adopted: number;
  /** Records whose file renders back to exactly what the CMS holds. */
  exact: number;
  /** Record key → fields the file does not reproduce (the next apply updates them). */
  differing: Map<string, string[]>;
  failures: string[];
  warnings: string[];
}

export interface ImportResult {
  /** Absolute path of the folder written into. */
  contentDir: string;
  /** Files written per folder (articles, pages, categories, breaking, users). */
  written: Map<string, number>;
  /** Items left out, by reason. */
  skipped: Map<string, number>;
  /** Files left alone because they exist (no `force`). */
  existing: string[];
  failures: string[];
  warnings: string[];
}

/** What a run reports as it goes, in order. */
export type SyncEvent =
  | { type: 'target'; identity: string; baseUrl: string; announcement: string }
  | { type: 'warning'; message: string }
  | { type: 'phase'; phase: 'config' | 'scan' | 'render' | 'list' | 'compare'; done?: number; total?: number }
  | { type: 'problem'; problem: FileProblem }
  | { type: 'stopped'; reason: 'strict' }
  | { type: 'stopped'; reason: 'stale-plan'; file: string; detail: string }
  | { type: 'plan'; plan: PlanSummary; skipped: number }
  | { type: 'apply-start' }
  | { type: 'progress'; done: number; total: number; label: string; ok: boolean }
  | { type: 'applied'; result: ApplyResult; unchanged: number; skipped: number; ms: number; requests: number }
  | { type: 'items'; done: number; total: number }
  | { type: 'items-done' };
