import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// The bundle carries the code of the packages it was built from: their licenses ask that the
// notice go with every copy. Each package whose module the bundle holds (rolldown's comment
// before each module names it) is named in THIRD-PARTY-NOTICES.txt with its version and license.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE = path.join(ROOT, 'dist', 'bundle');

it('the bundle names every package whose code it carries, with its license', () => {
  const notices = readFileSync(path.join(BUNDLE, 'THIRD-PARTY-NOTICES.txt'), 'utf8');
  const dirs = new Set<string>();
  for (const file of readdirSync(BUNDLE).filter((f) => /\.c?js$/.test(f)))
    for (const [, dir] of readFileSync(path.join(BUNDLE, file), 'utf8').matchAll(
      /^\/\/ (node_modules\/(?:.*\/node_modules\/)?(?:@[^/\n]+\/)?[^/\n]+)\//gm,
    ))
      dirs.add(dir!);
  // The engine's own libraries are among them: a notice file of a few would pass otherwise.
  expect(dirs.size).toBeGreaterThan(50);
  const missing: string[] = [];
  for (const dir of dirs) {
    const { name, version, license } = JSON.parse(
      readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8'),
    ) as {
      name: string;
      version: string;
      license?: string;
    };
    const at = notices.indexOf(`\n${name}@${version} (`);
    if (at === -1 || (license && !notices.slice(at, at + 200).includes(`(${license})`)))
      missing.push(`${name}@${version}`);
  }
  expect(missing).toEqual([]);
  for (const name of ['unified', 'zod', 'yaml', 'gray-matter', 'commander'])
    expect(notices).toMatch(new RegExp(`\\n${name}@`));
});
