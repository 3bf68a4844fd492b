import { createRequire } from 'node:module';
import type { z as Z } from 'zod';

const require = createRequire(import.meta.url);
let loaded: typeof Z | undefined;

/**
 * zod, loaded on first use: it is ~95 modules and ~70 ms to load, and a run whose config was
 * validated before and whose files are all unchanged never needs it. Loaded through require
 * (zod ships CommonJS too) so that schemas can be built on demand in synchronous code.
 */
export function zod(): typeof Z {
  return (loaded ??= (require('zod') as { z: typeof Z }).z);
}
