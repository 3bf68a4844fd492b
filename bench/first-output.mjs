// Time to the first thing a terminal shows: `cms-sync plan` on a project of N documents (default
// 2,000), run in a pseudo-terminal (util-linux `script`), from the spawn to the first byte it
// writes, and to its end. Baselines from the same run: `node -e ""` (Node's own start) and the
// same pseudo-terminal around `true` (what `script` adds). Median and best of R rounds.
// Usage: node bench/first-output.mjs [--docs N] [--rounds R]
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateCorpus } from './corpus.mjs';
import { BIN, fmt, machine, table } from './lib.mjs';

const arg = (name, fallback) => Number(process.argv[process.argv.indexOf(name) + 1]) || fallback;
const docs = arg('--docs', 2000);
const rounds = arg('--rounds', 7);
const { startLocalCms } = await import('../dist/server/index.js');

const TOKEN = 'bench-token';
const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-bench-first-'));
await generateCorpus(path.join(dir, 'content'), docs, { kb: 9 });
const cms = await startLocalCms({ dataDir: path.join(dir, 'cms-data'), port: 0, token: TOKEN });
const env = { PATH: process.env.PATH, CMS_BASE_URL: cms.url, CMS_API_TOKEN: TOKEN, TERM: 'xterm' };

/** Spawn to first byte of output, and to exit, of a command run in a pseudo-terminal. */
function inPty(command) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const since = () => Number(process.hrtime.bigint() - started) / 1e6;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let first;
    child.stdout.on('data', () => (first ??= since()));
    child.on('error', reject);
    child.on('close', () => resolve({ first: first ?? since(), end: since() }));
  });
}

const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`;
const cli = `${quote(process.execPath)} ${quote(BIN)} --cwd ${quote(dir)} plan --no-pager`;
const node = `${quote(process.execPath)} -e ""`;
const samples = { script: [], node: [], first: [], end: [] };
await inPty(cli); // warms the file cache and the CMS; not counted
for (let r = 0; r < rounds; r += 1) {
  samples.script.push((await inPty('true')).end);
  samples.node.push((await inPty(node)).end);
  const run = await inPty(cli);
  samples.first.push(run.first);
  samples.end.push(run.end);
}
await cms.close();
await rm(dir, { recursive: true, force: true });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const best = (xs) => Math.min(...xs);
const row = (label, xs) => [label, fmt(median(xs)), fmt(best(xs))];
console.log(`cms-sync plan on ${docs} documents of ~9 KiB, in a pseudo-terminal, ${rounds} rounds\n`);
console.log(
  table([
    ['measure', 'median', 'best'],
    row('`script` around `true` (baseline: the pseudo-terminal)', samples.script),
    row('`node -e ""` (baseline: Node starting)', samples.node),
    row('cms-sync plan: first byte on the terminal', samples.first),
    row('cms-sync plan: exit', samples.end),
  ]),
);
console.log(`\n${machine()}`);
