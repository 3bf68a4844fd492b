// Whether dist/ is what `npm run build` would make now. `npm ci` builds (the `prepare` script)
// just before `npm test`, which would build the very same again; so a build records what it was
// made from and what it made, and `node scripts/build.mjs --if-changed` skips when both still
// hold. A dist/ that does not match its sources is worse than a slow test run: every byte of the
// inputs counts (not mtimes, which a checkout resets), and so does every file of dist/ (a hand
// edit, a lone `tsc`, a deleted file all mean "build again").
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What dist/ is made from: the sources, the compiler and bundler settings, the dependencies. */
export const INPUTS = [
  'src',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
  'scripts/build.mjs',
  'scripts/build-stamp.mjs',
  'scripts/bundle.mjs',
  'scripts/lazy-js-yaml.mjs',
];

/** Kept out of dist/, so that it is never packed; it goes with node_modules/. */
export const STAMP = 'node_modules/.cache/cms-sync/build-stamp.json';

/** sha256 over the path and bytes of every file under `entries` (files or folders), in a fixed order. */
export function digest(root, entries) {
  const hash = createHash('sha256');
  for (const entry of entries) {
    const files = filesOf(path.join(root, entry));
    hash.update(`${entry}\0${files.length}\0`);
    for (const file of files)
      hash
        .update(`${path.relative(root, file)}\0`)
        .update(readFileSync(file))
        .update('\0');
  }
  return hash.digest('hex');
}

function filesOf(full) {
  let stat;
  try {
    stat = statSync(full);
  } catch {
    return [];
  }
  if (!stat.isDirectory()) return [full];
  return readdirSync(full, { withFileTypes: true, recursive: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** True when dist/ was built by scripts/build.mjs from exactly the inputs there are now, and is untouched. */
export function buildIsCurrent(root) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(path.join(root, STAMP), 'utf8'));
  } catch {
    return false;
  }
  return stamp.inputs === digest(root, INPUTS) && stamp.dist === digest(root, ['dist']);
}

/**
 * Called before a build starts: forgets the last build (one that fails half-way is never taken
 * for current) and returns the digest of the inputs it is about to build from. An input edited
 * while the build runs then no longer matches the stamp, and the next run builds again.
 */
export function startBuild(root) {
  rmSync(path.join(root, STAMP), { force: true });
  return digest(root, INPUTS);
}

/** Called once a build succeeded, with what `startBuild` returned. */
export function recordBuild(root, inputs) {
  const file = path.join(root, STAMP);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ inputs, dist: digest(root, ['dist']) })}\n`);
}
