// Bundles the compiled CLI (dist/cli/main.js) and its render worker into dist/bundle/, which
// bin/cms-sync.js runs. Why: Node 20 loads separate ES modules (ours and commander's) one
// resolution, read and compile at a time before a command even starts; one file does it in a
// fraction of that. Every dynamic import() stays a split point, so what a command loads only
// when it needs it (unified and its plugins, zod, the local CMS, import, pull...) is still loaded
// only then. The library entry (dist/index.js, what sync.config.ts imports) is not bundled.
// Run by `npm run build`, after tsc.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = path.join(root, 'dist', 'bundle');
/** Beside the bundle: the licenses of the packages it carries (see the end of this file). */
const THIRD_PARTY_NOTICES = 'THIRD-PARTY-NOTICES.txt';

// What a run loads before its command starts: the modules main.js imports statically, and of those
// the ones the render worker imports as well. Left to itself, rolldown cuts them into one chunk per
// set of dynamic imports that share them, many small files, and Node 20 resolves, reads and links
// each file in turn before a command runs. Two groups make them two chunks: the CLI's, and what the
// CLI shares with the worker (so a worker does not load commander).
const cliStart = new Set();
const sharedWithWorker = new Set();
// What the stat worker runs (node:fs alone): a chunk of its own, so that the worker, which must be
// up within the time content/ takes to list, does not load the chunk the scan sits in.
const statWorker = new Set();
const startGraph = {
  name: 'start-graph',
  buildEnd() {
    const staticClosure = (entry) => {
      const seen = new Set();
      const queue = [[...this.getModuleIds()].find((id) => id.endsWith(path.join('dist', ...entry)))];
      while (queue.length > 0) {
        const id = queue.pop();
        if (id === undefined || seen.has(id)) continue;
        seen.add(id);
        queue.push(...(this.getModuleInfo(id)?.importedIds ?? []));
      }
      return seen;
    };
    // Not the entry itself: its code, which runs on import, belongs to the worker alone.
    for (const id of staticClosure(['source', 'stat-worker.js']))
      if (!id.endsWith(path.join('dist', 'source', 'stat-worker.js'))) statWorker.add(id);
    const worker = staticClosure(['render', 'render-worker.js']);
    for (const id of staticClosure(['cli', 'main.js']))
      (worker.has(id) ? sharedWithWorker : cliStart).add(id);
  },
};

// Packages a run requires on first use (src/require-later.ts) that the bundle carries itself, each
// as one CommonJS file beside the chunks, built from `input` (the part of the package cms-sync
// uses, or all of it): Node 20 resolves, reads and compiles each file of a package in node_modules
// in turn, and these packages are many files each. The bundle's `requireLater('<id>')` loads
// `./<file>` instead; the library (dist/) and the tests load the package itself.
const LATER = [
  { id: 'zod', input: 'dist/zod-kit.js', file: 'zod.cjs' },
  { id: 'yaml', input: 'yaml', file: 'yaml.cjs' },
  // With js-yaml (and esprima through it) left to load on first use: scripts/lazy-js-yaml.mjs.
  { id: 'gray-matter', input: 'gray-matter', file: 'gray-matter.cjs' },
];
const laterFound = new Set();
const requireLaterFiles = {
  name: 'require-later-files',
  transform(code, id) {
    if (!id.startsWith(path.join(root, 'dist'))) return null;
    let out = code;
    for (const lib of LATER) {
      const call = `requireLater('${lib.id}')`;
      if (!out.includes(call)) continue;
      out = out.replaceAll(call, `requireLater('./${lib.file}')`);
      laterFound.add(lib.id);
    }
    // Same lines and columns but for the string: the source map stays as it is (map: null).
    return out === code ? null : { code: out, map: null };
  },
  buildEnd() {
    const missing = LATER.filter((lib) => !laterFound.has(lib.id)).map((lib) => lib.id);
    if (missing.length) this.error(`no requireLater('<id>') found for ${missing.join(', ')}: update LATER`);
  },
};

await build({
  cwd: root,
  input: {
    main: 'dist/cli/main.js',
    // Started by render-pool as `new URL('./render-worker.js', import.meta.url)`: as an entry of
    // its own, it lands beside the chunk that holds render-pool, as it sits beside it in dist/render.
    'render-worker': 'dist/render/render-worker.js',
    // Started by watch-off-thread the same way.
    'watch-worker': 'dist/watch/watch-worker.js',
    // Started by stat-many the same way.
    'stat-worker': 'dist/source/stat-worker.js',
  },
  platform: 'node',
  plugins: [startGraph, requireLaterFiles],
  // main.js exports main() and nothing else is imported from an entry: a chunk may export more.
  preserveEntrySignatures: 'allow-extension',
  onLog(level, log, handle) {
    // gray-matter's JavaScript front-matter engine uses eval; cms-sync disables that engine
    // (src/source/front-matter.ts), so the code is bundled but never runs.
    if (log.code === 'EVAL' && /gray-matter/.test(log.id ?? log.message)) return;
    handle(level, log);
  },
  output: {
    dir: outDir,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunk-[hash].js',
    sourcemap: true,
    cleanDir: true,
    codeSplitting: {
      // Each group holds exactly its modules: a dependency the other side also needs stays out.
      includeDependenciesRecursively: false,
      groups: [
        { name: 'stat-worker', test: (id) => statWorker.has(id), priority: 3 },
        { name: 'cli-start', test: (id) => cliStart.has(id), priority: 2 },
        { name: 'start-shared', test: (id) => sharedWithWorker.has(id), priority: 1 },
      ],
    },
  },
});

const lazyJsYaml = path.join(root, 'scripts', 'lazy-js-yaml.mjs');
await build({
  cwd: root,
  input: Object.fromEntries(LATER.map((lib) => [lib.file.replace(/\.cjs$/, ''), lib.input])),
  platform: 'node',
  plugins: [
    {
      name: 'lazy-js-yaml',
      resolveId(source, importer) {
        if (source !== 'js-yaml') return null;
        if (importer?.includes(`${path.sep}gray-matter${path.sep}`)) return lazyJsYaml;
        // The shim's own require of js-yaml is left to run time.
        if (importer === lazyJsYaml) return { id: source, external: true };
        return null;
      },
    },
  ],
  onLog(level, log, handle) {
    if (log.code === 'EVAL' && /gray-matter/.test(log.id ?? log.message)) return; // as above
    handle(level, log);
  },
  output: { dir: outDir, format: 'cjs', entryFileNames: '[name].cjs', chunkFileNames: 'later-[hash].cjs' },
});

// A file the bundle finds by URL at run time must be in the bundle's folder: a worker file that is
// not there would make every worker die at start, and rendering fall back to the main thread silently.
const missing = [];
for (const name of readdirSync(outDir).filter((f) => f.endsWith('.js'))) {
  for (const [, file] of readFileSync(path.join(outDir, name), 'utf8').matchAll(
    /new URL\(["']\.\/([^"']+)["'],\s*import\.meta\.url\)/g,
  )) {
    if (!existsSync(path.join(outDir, file))) missing.push(`${name} refers to ./${file}`);
  }
}
if (missing.length) {
  console.error(
    `dist/bundle is incomplete:\n  ${missing.join('\n  ')}\nAdd each file as an input of scripts/bundle.mjs.`,
  );
  process.exit(1);
}

// The packages whose code the bundle carries, with their licenses: their MIT, ISC and BSD
// licenses ask that the notice go with every copy, and the bundle is one. Found by rolldown's
// comment before each module (`// node_modules/<package>/...`), so the list follows the bundle.
const carried = new Map();
for (const name of readdirSync(outDir).filter((f) => /\.c?js$/.test(f)))
  for (const [, dir] of readFileSync(path.join(outDir, name), 'utf8').matchAll(
    /^\/\/ (node_modules\/(?:.*\/node_modules\/)?(?:@[^/\n]+\/)?[^/\n]+)\//gm,
  ))
    carried.set(dir, undefined);
const notices = [];
for (const dir of [...carried.keys()].sort()) {
  const manifest = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8'));
  const licenseFile = readdirSync(path.join(root, dir)).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  if (!licenseFile && typeof manifest.license !== 'string') {
    console.error(`${dir}: no license file and no license in package.json; see scripts/bundle.mjs`);
    process.exit(1);
  }
  const text = licenseFile
    ? readFileSync(path.join(root, dir, licenseFile), 'utf8').trim()
    : `License: ${manifest.license} (no license file in the package)`;
  notices.push(`${manifest.name}@${manifest.version} (${manifest.license ?? 'see below'})\n\n${text}`);
}
writeFileSync(
  path.join(outDir, THIRD_PARTY_NOTICES),
  `cms-sync's bundle (dist/bundle/) carries code of these packages, under these licenses.\n\n` +
    `${notices.join(`\n\n${'-'.repeat(72)}\n\n`)}\n`,
);
