// `npm run build`: tsc (the library, its declarations, and the CLI's modules), then the CLI
// bundle (scripts/bundle.mjs). With --if-changed, as `npm test` runs it, nothing is done when
// dist/ is still what this would build (scripts/build-stamp.mjs). With --no-check, as `npm ci`
// (the `prepare` script) runs it, tsc emits without type-checking: `npm test` type-checks every
// file anyway (scripts/check.mjs). The JavaScript is the same either way; a declaration may list
// an inferred union's members in another order.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent, recordBuild, startBuild } from './build-stamp.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const noCheck = process.argv.includes('--no-check');

if (process.argv.includes('--if-changed') && buildIsCurrent(root)) {
  console.log('dist/ is up to date with src/ and the build settings: not built again.');
} else {
  const inputs = startBuild(root);
  rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
  for (const args of [
    ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', ...(noCheck ? ['--noCheck'] : [])],
    ['scripts/bundle.mjs'],
  ]) {
    const { status } = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
    if (status !== 0) process.exit(status ?? 1);
  }
  recordBuild(root, inputs);
}
