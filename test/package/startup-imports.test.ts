import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// Every CLI run, a no-op included, loads what dist/bundle/main.js imports statically. The
// renderer, the HTML parser and diff library of --diff, zod, the importers and the watcher are
// loaded by import() when a run needs them; a static import of one of them from a module the
// engine loads anyway puts it back on every run's start, which no other test would notice.

const BUNDLE = fileURLToPath(new URL('../../dist/bundle/', import.meta.url));
const LOADED_LATER = [
  /^unified$/,
  /^remark-/,
  /^rehype-/,
  /^mdast-/,
  /^hast-util-/,
  /^parse5$/,
  /^diff$/,
  /^zod$/,
  /^fast-xml-parser$/,
  /^chokidar$/,
];

/**
 * What main.js loads before it runs: its chunks, their node_modules packages (by rolldown's module
 * comments) and the Node built-ins they import.
 */
function loadedAtStart(): { files: Set<string>; packages: Set<string>; builtins: Set<string> } {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const builtins = new Set<string>();
  const queue = ['main.js'];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(path.join(BUNDLE, file), 'utf8');
    for (const [, chunk] of code.matchAll(/^(?:import|export) (?:[^;]*? from )?"\.\/([^"]+)"/gm))
      queue.push(chunk!);
    for (const [, name] of code.matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)) packages.add(name!);
    for (const [, name] of code.matchAll(/^import (?:[^;]*? from )?"node:([^"]+)"/gm)) builtins.add(name!);
  }
  return { files: seen, packages, builtins };
}

it('a run loads no renderer, HTML parser, diff library, zod, importer or watcher before it needs one', () => {
  const { packages } = loadedAtStart();
  // The walk sees packages at all: commander parses every command line.
  expect(packages).toContain('commander');
  expect([...packages].filter((name) => LOADED_LATER.some((pattern) => pattern.test(name)))).toEqual([]);
});

// Node 20 resolves, reads and links each ES module file in turn before a command runs, so the
// bundle puts what a run starts with into few files (scripts/bundle.mjs); and a built-in that
// only one command's path uses (a terminal question, a pager, V8's flags) is imported there.
it('a run starts from a few files and without the built-ins only some commands use', () => {
  const { files, builtins } = loadedAtStart();
  expect(files.size).toBeLessThanOrEqual(5);
  expect([...builtins].filter((name) => ['v8', 'readline/promises', 'child_process'].includes(name))).toEqual(
    [],
  );
});

// The bundle carries zod as one file of the functions cms-sync uses (src/zod-kit.ts): zod's own entry
// loads every locale, and so would a kit that used zod whole (`import * as z`).
it("the bundle's zod is the part cms-sync uses, with no locale but English", () => {
  const code = readFileSync(path.join(BUNDLE, 'zod.cjs'), 'utf8');
  expect(code).toContain('exports.strictObject = ');
  const locales = [...code.matchAll(/^\/\/ node_modules\/zod\/v4\/locales\/([^/]+)\.js$/gm)].map(
    ([, name]) => name,
  );
  expect(locales).toEqual(['en']);
});

// gray-matter requires js-yaml (and, through it, esprima) as it loads, for a YAML engine that only
// writing front matter uses: the bundle's gray-matter leaves it to load on first use.
it("the bundle's gray-matter does not carry js-yaml or esprima", () => {
  const code = readFileSync(path.join(BUNDLE, 'gray-matter.cjs'), 'utf8');
  expect(code).toMatch(/^\/\/ node_modules\/gray-matter\/index\.js$/m);
  expect(code).toMatch(/^\/\/ scripts\/lazy-js-yaml\.mjs$/m);
  expect(code).not.toMatch(/^\/\/ node_modules\/(js-yaml|esprima)\//m);
});
