/**
 * The public API of the package: what `sync.config.ts` imports, and cms-sync as a library
 * (`import { sync } from 'cms-sync'`). The CLI is a thin layer over the same functions.
 */
export {
  defineConfig,
  type ClientFactory,
  type ClientFactoryOptions,
  type ConfigClient,
  type UserConfig,
  type ResourceOptions,
} from './config/define-config.js';
export { SyncError, type ErrorCode } from './errors.js';
export { apply, createClient, importContent, plan, pull, sync } from './sync/library.js';
export type {
  ApplyFailure,
  ApplyResult,
  FileProblem,
  ImportOptions,
  ImportResult,
  PlanOptions,
  PlanSummary,
  PullOptions,
  PullResult,
  RunOptions,
  SyncEvent,
  SyncOptions,
  SyncResult,
} from './sync/public-types.js';
