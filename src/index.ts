/** The public API of the package: what `sync.config.ts` imports. */
export {
  defineConfig,
  type ClientFactory,
  type ClientFactoryOptions,
  type ConfigClient,
  type UserConfig,
  type ResourceOptions,
} from './config/define-config.js';
