// Reading the state at scale (issue 20, item 3: state for 100,000 records parses in <= 150 ms).
// Builds the committed state of N records as an apply leaves it (the fields and sizes of a real
// apply's lines: an article's file, id, owner, change marker, inputs and six field digests each
// way; three categories; twenty images), then times what a run does with it, each in a fresh
// Node process, as a CLI run meets it (cold, nothing compiled yet):
//   open        what every run does at its start (`apply --refresh=false` included): StateStore.open
//   keys        open, then look up every record by key, as the plan does for each desired record
//   fields      open, then read every record's fields (file, inputs, id, owner, marker): a no-op
//   digests     open, then read every record's fields and digests: a run that compares every record
// beside two baselines from the same run, in the same kind of process: reading the files'
// bytes, and JSON.parse of those bytes whole. Each figure is the median of --rounds processes,
// CPU time of the process (process.cpuUsage, garbage collection included) and wall time of the
// measured step (not Node's start). The load average is printed: the machine is shared.
//
// Usage: node bench/state-parse.mjs [--records N[,N...]] [--rounds R]
//   --records  sizes (default 10000,100000); --rounds  processes per figure (default 7)
//   --compare  the dist/ folder of another build of cms-sync: the same state written by it, and each
//              measure that reads the state taken with it too, in rounds interleaved with ours
//   --dir      keep each size's state in DIR/N and reuse it on the next run (to profile a measure:
//              node --cpu-prof bench/state-parse.mjs --child DIR/N --measure fields)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { asMap, machine, table } from './lib.mjs';

const dist = new URL('../dist/', import.meta.url);
const option = (name) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;

const TARGET = 'https://cms.example.com';
const MEASURES = {
  'read the files (baseline)': 'bytes',
  'JSON.parse of the same bytes (baseline)': 'parse',
  'open state': 'open',
  'open + look up every key': 'keys',
  "open + every record's fields (a no-op)": 'fields',
  'open + every field and digest': 'digests',
};

async function main() {
  const sizes = (option('--records') ?? '10000,100000').split(',').map(Number);
  const rounds = Number(option('--rounds') ?? 7);
  const keep = option('--dir') && path.resolve(option('--dir'));
  const compare = option('--compare') && pathToFileURL(`${path.resolve(option('--compare'))}/`).href;
  const ours = await import(new URL('state/state-file.js', dist).href);
  const load = () =>
    loadavg()
      .map((n) => n.toFixed(2))
      .join(' ');
  console.log(`${machine()}; load average ${load()} at start\n`);
  const header = ['records', 'measure', 'CPU ms (median)', 'wall ms (median)', 'CPU ms (min-max)'];
  if (compare) header.push(`--compare: CPU ms (median)`, 'wall ms (median)');
  const rows = [header];
  const sizeRows = [['records', 'state.jsonl', 'per record']];
  for (const count of sizes) {
    const dir = keep
      ? path.join(keep, String(count))
      : await mkdtemp(path.join(tmpdir(), 'cms-sync-bench-state-parse-'));
    const otherDir = compare ? `${dir}-compare` : undefined;
    try {
      if (!keep || !existsSync(path.join(dir, ours.STATE_BASE_FILE))) {
        const state = benchState(count);
        await ours.writeStateFile(dir, state);
        if (otherDir) await writeOther(compare, otherDir, state);
      }
      const bytes = (await stat(path.join(dir, ours.STATE_BASE_FILE))).size;
      sizeRows.push([count, mib(bytes), `${Math.round(bytes / count)} B`]);
      for (const [label, measure] of Object.entries(MEASURES)) {
        const runs = [];
        const otherRuns = [];
        // Interleaved, so that the machine's load drifts over both alike.
        for (let round = 0; round < rounds; round++) {
          runs.push(runChild(dir, measure, dist.href));
          if (otherDir && OF_STATE.has(measure)) otherRuns.push(runChild(otherDir, measure, compare));
        }
        const cpus = runs.map((run) => run.cpu);
        const row = [
          count,
          label,
          median(cpus).toFixed(0),
          median(runs.map((run) => run.wall)).toFixed(0),
          `${Math.min(...cpus).toFixed(0)}-${Math.max(...cpus).toFixed(0)}`,
        ];
        if (otherRuns.length)
          row.push(
            median(otherRuns.map((run) => run.cpu)).toFixed(0),
            median(otherRuns.map((run) => run.wall)).toFixed(0),
          );
        rows.push(row);
        console.log(row.join(' | '));
      }
    } finally {
      if (!keep) await rm(dir, { recursive: true, force: true });
      if (!keep && otherDir) await rm(otherDir, { recursive: true, force: true });
    }
  }
  const width = rows[0].length;
  console.log(
    `\n${table(sizeRows)}\n\n${table(rows.map((row) => [...row, ...Array(width - row.length).fill('')]))}`,
  );
  console.log(`\nload average ${load()} at the end`);
}

/** The measures that read a state through StateStore (the others read our base file's bytes). */
const OF_STATE = new Set(['open', 'keys', 'fields', 'digests']);

/** The same state written by another build of cms-sync, and saved once (an older build wrote an index then). */
async function writeOther(root, dir, state) {
  const files = await import(new URL('state/state-file.js', root).href);
  const { StateStore } = await import(new URL('state/journal.js', root).href);
  // A build of before took the records as a plain object.
  const plain = { ...state, records: Object.fromEntries(state.records), media: structuredClone(state.media) };
  await files.writeStateFile(dir, structuredClone(plain));
  const store = await StateStore.open(dir, TARGET);
  await store.save();
  await store.close();
}

function runChild(dir, measure, root) {
  const result = spawnSync(
    process.execPath,
    [fileURLToPath(import.meta.url), '--child', dir, '--measure', measure, '--dist', root],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`${measure} exited ${result.status}:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** One measure in this process, once: prints its CPU and wall time as JSON. */
async function child(dir, measure) {
  const root = option('--dist');
  const { StateStore } = await import(new URL('state/journal.js', root).href);
  const { STATE_BASE_FILE } = await import(new URL('state/state-file.js', dist).href);
  const baseFile = path.join(dir, STATE_BASE_FILE);
  const steps = {
    bytes: () => readFileSync(baseFile).length,
    parse: () => {
      const bytes = readFileSync(baseFile);
      // The lines after the header, as one JSON array: what a parse of everything costs.
      const text = bytes.toString('utf8', bytes.indexOf(10) + 1).replace(/\n(?=.)/g, ',');
      return JSON.parse(`[${text}]`).length;
    },
    // What a run has once the state is open: its header (the records are read on first use).
    open: async () => (await StateStore.open(dir, TARGET)).state.lineage.length,
    keys: async () => {
      const { state } = await StateStore.open(dir, TARGET);
      const records = asMap(state.records);
      let found = 0;
      for (const key of wantedKeys(records.size)) if (records.get(key)) found++;
      return found;
    },
    fields: async () => {
      const { state } = await StateStore.open(dir, TARGET);
      let seen = 0;
      for (const [, entry] of asMap(state.records).entries())
        if (entry.file && entry.input?.fileSha && entry.id && entry.owner && entry.marker) seen++;
      return seen;
    },
    digests: async () => {
      const { state } = await StateStore.open(dir, TARGET);
      let digests = 0;
      for (const [, entry] of asMap(state.records).entries())
        if (entry.file && entry.id)
          digests += Object.keys(entry.source).length + Object.keys(entry.remote).length;
      return digests;
    },
  };
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  const value = await steps[measure]();
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const { user, system } = process.cpuUsage(cpuStart);
  if (!value) throw new Error(`${measure} saw nothing`);
  process.stdout.write(JSON.stringify({ cpu: (user + system) / 1000, wall, value }));
}

/** The keys a run looks up: one per desired record, as the scan names them (not in the file's order). */
function wantedKeys(count) {
  const keys = ['category/politics', 'category/climate', 'category/culture'];
  for (let i = 0; i < count - 3; i++) keys.push(`article/story-${i}`);
  return keys;
}

const digest = (text, length = 20) => createHash('sha256').update(text).digest('hex').slice(0, length);

/** The state an apply of the bench corpus (bench/corpus.mjs) leaves: count records in all. */
function benchState(count) {
  const state = {
    version: 1,
    lineage: 'bench-lineage',
    serial: 1,
    target: TARGET,
    records: new Map(),
    media: {},
  };
  for (let i = 0; i < 20; i++)
    state.media[`sha256:${digest(`photo${i}`, 64)}`] = {
      alt: `Photo ${i * 10}`,
      id: i + 1,
      source: `content/images/photo-${i}.png`,
      textFrom: `article/story-${i * 10}`,
    };
  const categories = ['politics', 'climate', 'culture'];
  categories.forEach((slug, i) => {
    const digests = (side) => ({
      description: digest(`${side}description${i}`),
      name: digest(`${side}name${i}`),
      slug: digest(`slug${slug}`),
    });
    state.records.set(`category/${slug}`, {
      file: `content/categories/${slug}.md`,
      id: i + 1,
      input: { fileSha: digest(`category${i}`, 64), hash: digest(`cinput${i}`), media: [] },
      marker: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
      owner: 'created',
      remote: digests('remote'),
      source: digests('source'),
    });
  });
  for (let i = 0; i < count - categories.length; i++) {
    const digests = (side) => ({
      body: digest(`${side}body${i}`),
      category_id: digest(`${side}category${i % 3}`),
      created_at: digest(`created${i}`),
      slug: digest(`slug${i}`),
      status: digest('status'),
      title: digest(`${side}title${i}`),
    });
    state.records.set(`article/story-${i}`, {
      file: `content/articles/story-${i}.md`,
      id: i + 4,
      input: {
        fileSha: digest(`file${i}`, 64),
        hash: digest(`input${i}`),
        media: i % 10 === 0 ? [`images/photo-${(i / 10) % 20}.png`] : [],
        refs: { category: { line: 4, slugs: [categories[i % 3]] } },
      },
      marker: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      owner: 'created',
      remote: digests('remote'),
      source: digests('source'),
    });
  }
  return state;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

if (option('--child')) await child(option('--child'), option('--measure'));
else await main();
