import type { z as Z } from 'zod';
import { requireLater } from './require-later.js';

const zodModule = requireLater<{ z: typeof Z }>('zod');

/**
 * zod, loaded on first use: it is many modules to load, and a run whose config was
 * validated before and whose files are all unchanged never needs it.
 */
export function zod(): typeof Z {
  return zodModule().z;
}
