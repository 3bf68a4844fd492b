// Shared helpers of the benchmarks: a header that says where figures come from, timing, and
// running the real CLI. Benchmarks print figures; they never assert on time.
import { spawn } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../bin/cms-sync.js', import.meta.url));

export function machine() {
  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  return `${cpus().length} cores (${cpu.trim()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}`;
}

export async function time(fn) {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

/** Best of `runs`: the least disturbed measurement on a shared machine. */
export async function best(runs, fn) {
  let bestRun;
  for (let i = 0; i < runs; i += 1) {
    const run = await time(fn);
    if (!bestRun || run.ms < bestRun.ms) bestRun = run;
  }
  return bestRun;
}

export function runCli(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => `| ${r.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`).join('\n');
}

export function fmt(ms) {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
}
