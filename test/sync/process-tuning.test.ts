import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';

// V8's flags are the process's: cms-sync sets them only in the CLI's own process, and only when a
// run needs them. Each case runs in a fresh process, since a flag once set stays set; whether
// node:v8 was loaded after each step (`t.` is src/process-tuning.ts) tells whether a flag was set.
const MODULE = new URL('../../dist/process-tuning.js', import.meta.url).href;

/** What a module script run in a fresh process writes to stdout, as JSON (it must write nothing to stderr). */
function outputOf<T>(script: string): T {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as T;
}

function v8LoadedAfterEach(steps: string[]): boolean[] {
  const check = `out.push(process.moduleLoadList.includes('NativeModule v8'));`;
  const script =
    `const t = await import(${JSON.stringify(MODULE)}); const out = [];` +
    steps.map((step) => `${step}; ${check}`).join(' ') +
    ` process.stdout.write(JSON.stringify(out));`;
  return outputOf<boolean[]>(script);
}

it('a program that imports cms-sync keeps its own V8 flags, however large its site', () => {
  expect(
    v8LoadedAfterEach([
      'for (let i = 0; i < 2 * t.MANY_DOCUMENTS_READ; i++) t.documentRead()',
      't.beforeHttp()',
    ]),
  ).toEqual([false, false]);
});

it("the CLI's process sets the heap's growth once a run has read many documents, and the wasm tier before HTTP", () => {
  const many = 't.MANY_DOCUMENTS_READ';
  expect(
    v8LoadedAfterEach([
      't.tuneThisProcess()',
      `for (let i = 1; i < ${many}; i++) t.documentRead()`,
      't.documentRead()',
    ]),
  ).toEqual([false, false, true]);
  expect(v8LoadedAfterEach(['t.tuneThisProcess()', 't.beforeHttp()'])).toEqual([false, true]);
});

it("the CLI's process sets the heap's growth from the start of a watch, which runs pass after pass", () => {
  expect(v8LoadedAfterEach(['t.manyPasses()'])).toEqual([false]);
  expect(v8LoadedAfterEach(['t.tuneThisProcess()', 't.manyPasses()'])).toEqual([false, true]);
});

// A render worker started after beforeRenderWorkers(): which of two equally hot functions V8's
// optimising compiler takes (from its --trace-opt lines). Only a function named `compiler`
// (mdast-util-from-markdown's, see process-tuning.ts) is left unoptimised, and only in the CLI's process.
function optimisedInWorker(steps: string[]): string[] {
  const worker =
    'function compiler(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * i) % 1000003; return s; }' +
    'function other(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * i) % 1000033; return s; }' +
    'let x = 0; for (let r = 0; r < 30; r++) x += compiler(200000) + other(200000);' +
    "process.getBuiltinModule('node:worker_threads').parentPort.postMessage(x);";
  const script =
    `const t = await import(${JSON.stringify(MODULE)}); ${steps.join('; ')};` +
    `const { Worker } = await import('node:worker_threads');` +
    `await new Promise((done) => new Worker(${JSON.stringify(worker)}, { eval: true }).on('message', done));`;
  const run = spawnSync(process.execPath, ['--trace-opt', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  expect(run.status).toBe(0);
  const names = [...run.stdout.matchAll(/completed (?:optimizing|compiling) \S+ <JSFunction (\w+)/g)].map(
    (m) => m[1]!,
  );
  return [...new Set(names)].filter((name) => name === 'compiler' || name === 'other').sort();
}

it("the CLI's render workers leave mdast's `compiler` unoptimised, and optimise the rest as ever", () => {
  expect(optimisedInWorker(['t.tuneThisProcess()', 't.beforeRenderWorkers()'])).toEqual(['other']);
  // Without the call, or in a program that imports cms-sync, both are optimised.
  expect(optimisedInWorker(['t.tuneThisProcess()'])).toEqual(['compiler', 'other']);
  expect(optimisedInWorker(['t.beforeRenderWorkers()'])).toEqual(['compiler', 'other']);
});

// Full collections forced by beforeRenderWorkers() (node:perf_hooks' gc entries, flagged forced),
// and whether a worker started afterwards was given V8's `gc` (it must not be).
function forcedCollections(steps: string[]): { forced: number; workerHasGc: boolean } {
  const script =
    `const t = await import(${JSON.stringify(MODULE)});` +
    `const { PerformanceObserver, constants } = await import('node:perf_hooks');` +
    'let forced = 0;' +
    'const observer = new PerformanceObserver((list) => { for (const e of list.getEntries())' +
    ' if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR &&' +
    ' (e.detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED)) forced++; });' +
    `observer.observe({ entryTypes: ['gc'] }); ${steps.join('; ')};` +
    'await new Promise((done) => setTimeout(done, 50)); observer.disconnect();' +
    `const { Worker } = await import('node:worker_threads');` +
    'const workerHasGc = await new Promise((done) => new Worker(' +
    `"process.getBuiltinModule('node:worker_threads').parentPort.postMessage(typeof gc === 'function')",` +
    ' { eval: true }).on("message", done));' +
    'process.stdout.write(JSON.stringify({ forced, workerHasGc }));';
  return outputOf<{ forced: number; workerHasGc: boolean }>(script);
}

it("after a scan of many documents, the CLI's process collects its garbage once before render workers start", () => {
  const many = 'for (let i = 0; i < t.MANY_DOCUMENTS_READ; i++) t.documentRead()';
  expect(forcedCollections(['t.tuneThisProcess()', many, 't.beforeRenderWorkers()'])).toEqual({
    forced: 1,
    workerHasGc: false,
  });
  // Not after a scan of few, nor in a program that imports cms-sync.
  expect(forcedCollections(['t.tuneThisProcess()', 't.beforeRenderWorkers()'])).toEqual({
    forced: 0,
    workerHasGc: false,
  });
  expect(forcedCollections([many, 't.beforeRenderWorkers()'])).toEqual({ forced: 0, workerHasGc: false });
});

// The old space (MiB committed and used) after beforeRenderWorkers(), when what survives a scan
// lies scattered: one object in twenty of a large heap kept.
function oldSpaceAfter(steps: string[]): { committed: number; used: number } {
  const script =
    `const t = await import(${JSON.stringify(MODULE)}); const v8 = await import('node:v8');` +
    "let all = []; for (let i = 0; i < 400000; i++) all.push({ text: 'x'.repeat(20) + i, n: [i] });" +
    'const kept = all.filter((_, i) => i % 20 === 0); all = undefined;' +
    `${steps.join('; ')};` +
    "const old = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');" +
    'process.stdout.write(JSON.stringify({ committed: old.space_size / 2 ** 20, used: old.space_used_size / 2 ** 20,' +
    ' kept: kept.length }));';
  return outputOf<{ committed: number; used: number }>(script);
}

it("the CLI's collection after a scan compacts the heap, so that its pages are given back", () => {
  const many = 'for (let i = 0; i < t.MANY_DOCUMENTS_READ; i++) t.documentRead()';
  const compacted = oldSpaceAfter(['t.tuneThisProcess()', many, 't.beforeRenderWorkers()']);
  expect(compacted.committed).toBeLessThan(1.5 * compacted.used + 2);
  // A full collection that does not compact leaves the scattered heap nearly as large as it grew.
  const plain = "v8.setFlagsFromString('--expose-gc'); (await import('node:vm')).runInNewContext('gc')()";
  const left = oldSpaceAfter(['t.tuneThisProcess()', plain]);
  expect(left.committed).toBeGreaterThan(3 * left.used);
});
