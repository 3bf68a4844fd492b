import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';

// V8's flags are the process's: cms-sync sets them only in the CLI's own process, and only when a
// run needs them. Each case runs in a fresh process, since a flag once set stays set; whether
// node:v8 was loaded after each step (`t.` is src/process-tuning.ts) tells whether a flag was set.
const MODULE = new URL('../../dist/process-tuning.js', import.meta.url).href;

function v8LoadedAfterEach(steps: string[]): boolean[] {
  const check = `out.push(process.moduleLoadList.includes('NativeModule v8'));`;
  const script =
    `const t = await import(${JSON.stringify(MODULE)}); const out = [];` +
    steps.map((step) => `${step}; ${check}`).join(' ') +
    ` process.stdout.write(JSON.stringify(out));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as boolean[];
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
