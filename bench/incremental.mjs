// Fast at every size (issue 7, items 1, 2 and 5): over N generated documents (default 10,000 of
// ~9 KiB), a no-op apply and a one-file change, with and without refresh, as ratios to reading
// and hashing the same files in the same run; and the peak RSS of the cold apply. The baseline
// is that work in this warm process; the same work as a process of its own (Node's start
// included, as every CLI run's is) is printed beside it for reference.
// Usage: node bench/incremental.mjs [--docs N] [--kb K]
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { articleBody, generateCorpus } from './corpus.mjs';
import { fmt, machine, runCli, settle, table, time } from './lib.mjs';
import { readAndHash } from './read-and-hash.mjs';

const arg = (name, fallback) =>
  process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback;
const docs = arg('--docs', 10_000);
const kb = arg('--kb', 9);
/** Rounds of the interleaved baseline and no-op measures. */
const ROUNDS = 5;
const { startLocalCms } = await import('../dist/server/index.js');
const { serveContent } = await import('../dist/media/serve-content.js');

const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-bench-incremental-'));
const content = path.join(dir, 'content');
await generateCorpus(content, docs, { kb });
// A config file, as real projects have one: loading it is part of every run. Every record here
// was written seconds ago, so the default lookback of a listing of changes (minutes) would
// reach the whole archive on every run; a real archive's writes are older than that, and a
// lookback of one second shows what a no-op lists there.
await writeFile(
  path.join(dir, 'sync.config.ts'),
  "export default {\n  contentDir: 'content',\n  media: { defaultSize: 'medium' },\n  sync: { maxDeletes: 20 },\n" +
    '  wire: { changeMarkerLookbackMs: 1000 },\n};\n',
);
const cms = await startLocalCms({ dataDir: path.join(dir, 'cms-data'), port: 0, token: 'bench-token' });
const media = await serveContent(content);
const env = { CMS_BASE_URL: cms.url, CMS_API_TOKEN: 'bench-token', CMS_MEDIA_BASE_URL: media.baseUrl };
const apply = (...flags) => runCli(['--cwd', dir, 'apply', '--json', ...flags], env, { measureRss: true });

try {
  const cold = await time(() => apply('--concurrency', '8'));
  check(cold.value, 'cold apply');
  const coldDoc = JSON.parse(cold.value.stdout);

  // The baseline and the no-op runs are measured in interleaved rounds, best of each: on this
  // shared machine speed drifts over minutes, and a baseline taken once, before, drifts with it.
  const script = new URL('./read-and-hash.mjs', import.meta.url).pathname;
  const noops = [
    ['no-op `apply`', []],
    ['no-op `apply --refresh=false`', ['--refresh=false']],
  ];
  const measures = {
    hashing: () => readAndHash(content),
    hashingProcess: () => ({
      code: spawnSync(process.execPath, [script, content], { stdio: 'ignore' }).status,
      stderr: '',
    }),
    ...Object.fromEntries(noops.map(([label, flags]) => [label, () => apply(...flags)])),
  };
  const fastest = {};
  /** The CMS's counts of each measure's last round: after the first, a no-op reads only what changed. */
  const calls = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, measure] of Object.entries(measures)) {
      await settle();
      cms.resetStats();
      const run = await time(measure);
      if ('code' in run.value) check(run.value, name);
      calls[name] = cms.stats();
      if (!fastest[name] || run.ms < fastest[name].ms) fastest[name] = run;
    }
  }
  const hashing = fastest.hashing;
  const rows = [['measure', 'time', 'ratio to baseline', 'calls', 'notes']];
  rows.push([
    `baseline: read + sha256 of every file (best of ${ROUNDS})`,
    fmt(hashing.ms),
    '1.00',
    '',
    `${hashing.value.files} files, ${(hashing.value.bytes / 2 ** 20).toFixed(0)} MiB`,
  ]);
  rows.push([
    `for reference: the same as a process, \`node bench/read-and-hash.mjs\` (best of ${ROUNDS})`,
    fmt(fastest.hashingProcess.ms),
    (fastest.hashingProcess.ms / hashing.ms).toFixed(2),
    '',
    'Node start included',
  ]);
  for (const [label] of noops) {
    const run = fastest[label];
    const doc = JSON.parse(run.value.stdout);
    const stats = calls[label];
    rows.push([
      `${label} (best of ${ROUNDS})`,
      fmt(run.ms),
      (run.ms / hashing.ms).toFixed(2),
      `${stats.requests} (${stats.writes} writes)`,
      `rendered ${doc.source.rendered}, files read ${doc.source.hashed}, list calls ${listCalls(stats)}`,
    ]);
  }

  for (const [label, flags] of [
    ['one file changed, `apply`', []],
    ['one file changed, `apply --refresh=false`', ['--refresh=false']],
  ]) {
    // Best of 3, each after a new edit of the same file.
    const target = path.join(content, 'articles', 'story-4242.md');
    let run;
    for (let i = 0; i < 3; i++) {
      await writeFile(
        target,
        `---\ntitle: Story 4242, edited at ${Date.now()}\ncategory: politics\n---\n\n${articleBody(4242, kb)}`,
      );
      cms.resetStats();
      await settle();
      const attempt = await time(() => apply(...flags));
      check(attempt.value, label);
      if (!run || attempt.ms < run.ms) run = { ...attempt, stats: cms.stats() };
    }
    const doc = JSON.parse(run.value.stdout);
    const { stats } = run;
    rows.push([
      `${label} (best of 3)`,
      fmt(run.ms),
      (run.ms / hashing.ms).toFixed(2),
      `${stats.requests} (${stats.writes} writes)`,
      `rendered ${doc.source.rendered}, files read ${doc.source.hashed}`,
    ]);
  }

  rows.push([
    'cold `apply` (creates everything)',
    fmt(cold.ms),
    (cold.ms / hashing.ms).toFixed(1),
    `${coldDoc.stats.requests}`,
    `created ${coldDoc.result.created}, uploaded ${coldDoc.result.uploaded}, peak RSS ` +
      `${(cold.value.peakRssKb / 1024).toFixed(0)} MiB`,
  ]);

  console.log(`## Incremental sync, ${docs.toLocaleString('en')} documents of ~${kb} KiB\n`);
  console.log(table(rows));
  console.log(`\n${machine()}`);
} finally {
  await media.close();
  await cms.close();
  await rm(dir, { recursive: true, force: true });
}

/** Reads of the last round (a listing's pages; a no-op reads no record by id): what a refresh cost. */
function listCalls(stats) {
  return Object.entries(stats.byAction)
    .filter(([action]) => action.endsWith('.get'))
    .reduce((sum, [, n]) => sum + n, 0);
}

function check(result, what) {
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}:\n${result.stderr.slice(0, 2000)}`);
}
