import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS module loaded on first use rather than with cms-sync: what a no-op run never
 * needs (gray-matter, zod) stays unloaded. Synchronous, unlike `import()`, so code that parses
 * or validates in one go can ask for it where it needs it.
 */
export function requireLater<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}
