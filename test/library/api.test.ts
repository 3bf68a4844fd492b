import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The public surface, pinned: a name or a type that changes here is a change for every user.
// Reads the built dist/ (`npm test` builds first), which is what the package ships.
const DIST = fileURLToPath(new URL('../../dist', import.meta.url));

/** The declaration files `dist/index.d.ts` reaches through relative imports. */
function declarationClosure(): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/from '(\.[^']+)'|import\("(\.[^"]+)"\)/g)) {
      const target = path.resolve(path.dirname(file), (match[1] ?? match[2])!.replace(/\.js$/, '.d.ts'));
      if (existsSync(target)) visit(target);
    }
  };
  visit(path.join(DIST, 'index.d.ts'));
  return [...seen].map((file) => path.relative(DIST, file).split(path.sep).join('/')).sort();
}

describe('the package entry, dist/index.js', () => {
  it('exports these names and no others', async () => {
    const entry = (await import(path.join(DIST, 'index.js'))) as Record<string, unknown>;
    expect(Object.keys(entry).sort()).toEqual([
      'SyncError',
      'apply',
      'createClient',
      'defineConfig',
      'importContent',
      'plan',
      'pull',
      'sync',
    ]);
  });

  it('declares its types in a few files that need neither Node nor undici types', () => {
    const files = declarationClosure();
    expect(files).toEqual([
      'config/define-config.d.ts',
      'errors.d.ts',
      'index.d.ts',
      'render/templates/builtins.d.ts',
      'resources.d.ts',
      'sync/library.d.ts',
      'sync/public-types.d.ts',
    ]);
    for (const file of files) {
      const text = readFileSync(path.join(DIST, file), 'utf8');
      expect(text, file).not.toMatch(/NodeJS\.|\bBuffer\b|from '(node:|undici)|reference types="node"/);
    }
  });

  // The config's types (define-config.d.ts and what it reads) change with the config schema,
  // whose shape test/config pins; what is pinned here is the library's own surface.
  it('keeps its declarations as pinned', async () => {
    const text = ['index.d.ts', 'errors.d.ts', 'sync/library.d.ts', 'sync/public-types.d.ts']
      .map((file) => `// ${file}\n${readFileSync(path.join(DIST, file), 'utf8')}`)
      .join('\n');
    await expect(text).toMatchFileSnapshot('./__snapshots__/public-api.d.ts.snap');
  });
});
