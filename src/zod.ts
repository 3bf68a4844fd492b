import { requireLater } from './require-later.js';

/** The functions of zod that cms-sync uses (src/zod-kit.ts). */
export type ZodKit = typeof import('./zod-kit.js');

// zod itself, which has them all; the CLI's bundle loads its own zod-kit file instead (scripts/bundle.mjs).
const zodModule = requireLater<ZodKit>('zod');

/**
 * zod, loaded on first use: it is many modules to load, and a run whose config was
 * validated before and whose files are all unchanged never needs it.
 */
export function zod(): ZodKit {
  return zodModule();
}
