// `npm run bench`: every benchmark in turn. Each prints its figures next to a baseline measured
// in the same run, with the machine it ran on. The state figures are taken at 10,000 records
// here; at 100,000 they take minutes, apart: `node bench/state.mjs --records 100000`.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const benches = [
  'incremental.mjs',
  'render.mjs',
  'api-economy.mjs',
  'watch-latency.mjs',
  'import.mjs',
  'first-output.mjs',
  'state.mjs',
];
let failed = false;
for (const bench of benches) {
  console.log(`\n# bench/${bench}\n`);
  const result = spawnSync(
    process.execPath,
    [fileURLToPath(new URL(bench, import.meta.url)), ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  failed ||= result.status !== 0;
}
process.exitCode = failed ? 1 : 0;
