// The static checks of `npm test` (types, lint, formatting), run side by side: each reads the
// whole tree on its own, so together they take about as long as the slowest. Exits non-zero if
// any fails, after all have printed what they found.
import { spawn } from 'node:child_process';

const checks = [
  ['tsc', ['--noEmit']],
  ['eslint', ['.']],
  ['prettier', ['--check', '.', '--log-level', 'warn']],
];

const results = await Promise.all(
  checks.map(
    ([bin, args]) =>
      new Promise((resolve) => {
        const child = spawn(`node_modules/.bin/${bin}`, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        child.on('error', (error) => resolve({ bin, code: 1, output: String(error) }));
        child.on('close', (code) => resolve({ bin, code: code ?? 1, output }));
      }),
  ),
);
for (const { bin, code, output } of results) {
  if (code !== 0) process.stderr.write(`${bin} failed:\n${output}\n`);
}
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
