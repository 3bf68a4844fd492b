// Shared helpers of the benchmarks: a header that says where figures come from, timing, and
// running the real CLI. Benchmarks print figures; they never assert on time.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../bin/cms-sync.js', import.meta.url));

export function machine() {
  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  return (
    `${cpus().length} cores (${cpu.trim()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ` +
    `${process.platform}`
  );
}

export async function time(fn) {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

/** glibc's malloc tuning (MALLOC_ARENA_MAX…) from the bench's environment, passed on to try one. */
function mallocTuning() {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('MALLOC_')));
}

/**
 * Runs the real CLI. With `measureRss`, under GNU time, whose report (the peak resident set of
 * the process) is read from a file so that the CLI's own stderr stays as it is.
 */
export function runCli(args, env, { measureRss = false } = {}) {
  const rssFile = measureRss ? path.join(tmpdir(), `cms-sync-rss-${process.pid}-${Date.now()}`) : undefined;
  // Node's own options for the CLI, to try one (some, such as V8's, are not allowed in NODE_OPTIONS).
  const node = [process.execPath, ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), BIN];
  const [command, commandArgs] = rssFile
    ? ['/usr/bin/time', ['-f', '%M', '-o', rssFile, ...node, ...args]]
    : [node[0], [...node.slice(1), ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, {
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...mallocTuning(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const peakRssKb = rssFile ? Number(readFileSync(rssFile, 'utf8').trim().split('\n').at(-1)) : undefined;
      if (rssFile) rmSync(rssFile, { force: true });
      resolve({ code, stdout, stderr, peakRssKb });
    });
  });
}

/**
 * Lets this process's garbage collector catch up before something is timed: a benchmark that
 * hosts the local CMS in its own process would otherwise pay, during the CLI run it measures,
 * for the garbage its CMS made in an earlier phase (a cold sync of 10,000 records leaves ~100 MB).
 */
export async function settle() {
  collectGarbage ??= (v8.setFlagsFromString('--expose-gc'), vm.runInNewContext('gc'));
  collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, 200));
}

/** `gc`, exposed on the first settle(): benchmarks that never settle run with V8's flags as they are. */
let collectGarbage;

export function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => `| ${r.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`).join('\n');
}

export function fmt(ms) {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
}

/** A state's records as a Map: they are one, or (a build of before, for --compare) a plain object. */
export function asMap(records) {
  if (records instanceof Map) return records;
  return {
    get size() {
      return Object.keys(records).length;
    },
    get: (key) => records[key],
    *entries() {
      for (const key in records) yield [key, records[key]];
    },
  };
}
