export {
  createClient,
  type CallOptions,
  type ClientEvent,
  type ClientOptions,
  type ClientStats,
  type CmsClient,
  type ListOptions,
  type ListResult,
} from './client.js';
export { DEFAULT_RETRY, type RetryOptions } from './retry.js';
export {
  DEFAULT_WIRE,
  MAX_PAGE_SIZE,
  readId,
  readListData,
  readMediaId,
  readRecord,
  type WireOptions,
} from './wire.js';
export {
  CmsAmbiguousError,
  CmsAuthError,
  CmsProtocolError,
  CmsRejectedError,
  CmsRetryBudgetError,
  CmsRetryableError,
} from './errors.js';
