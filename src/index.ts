/** The public API of the package: what `sync.config.ts` imports. */
export {
  defineConfig,
  type ClientFactory,
  type UserConfig,
  type ResourceOptions,
} from './config/define-config.js';
export type { CmsClient, ClientOptions } from './remote/client.js';
