// State that scales (issue 20, item 3): the committed state of N records, shaped as apply leaves
// it. Prints the size of its files, the time to read it (its keys; to the first digest; what a
// no-op reads of every record; every field and digest) and the bytes a one-record save writes,
// each beside the single state.json of earlier versions (its bytes through JSON.parse, and its
// rewrite), taken in the same run. Each time is the best of 3, wall clock, with the process's CPU
// time beside it (on a busy machine the CPU time is the steadier of the two).
//
// Usage: node bench/state.mjs [--records N[,N...]] [--compare DIST]
//   --records  sizes to measure (default 10,000, as `npm run bench` runs it; the 100,000 figures
//              take a few minutes: node bench/state.mjs --records 100000)
//   --compare  the dist/ folder of another build of cms-sync (e.g. one that kept state.json and
//              state-index.json): its own state files are written and read the same way, beside ours.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { asMap, fmt, machine, settle, table } from './lib.mjs';

const option = (name) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
const sizes = (option('--records') ?? '10000').split(',').map(Number);
const compareDist = option('--compare');

const dist = new URL('../dist/', import.meta.url);
const ours = await load(dist);
const other = compareDist ? await load(pathToFileURL(`${path.resolve(compareDist)}/`)) : undefined;
const { plainState, stateFromPlain } = await import(new URL('state/state-lines.js', dist).href);
const { stableJson } = await import(new URL('stable-json.js', dist).href);

async function load(root) {
  const files = await import(new URL('state/state-file.js', root).href);
  const { StateStore } = await import(new URL('state/journal.js', root).href);
  return { ...files, StateStore };
}

const ROUNDS = 3;

const digest = (text, length = 20) => createHash('sha256').update(text).digest('hex').slice(0, length);

/** A record as apply records an article of the bench corpus: inputs, marker and six field digests each way. */
function record(i) {
  const digests = (side) => ({
    body: digest(`${side}body${i}`),
    category_id: digest(`${side}category${i % 3}`),
    created_at: digest(`created${i}`),
    slug: digest(`slug${i}`),
    status: digest('status'),
    title: digest(`${side}title${i}`),
  });
  return {
    file: `content/articles/story-${i}.md`,
    id: i + 4,
    input: {
      fileSha: digest(`file${i}`, 64),
      hash: digest(`input${i}`),
      media: i % 10 === 0 ? [`images/photo-${(i / 10) % 20}.png`] : [],
      refs: { category: { line: 4, slugs: [['politics', 'climate', 'culture'][i % 3]] } },
    },
    marker: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    owner: 'created',
    remote: digests('remote'),
    source: digests('source'),
  };
}

function benchState(count) {
  const state = { version: 1, lineage: 'bench-lineage', serial: 1, target: 'local', records: {}, media: {} };
  for (let i = 0; i < 20; i++)
    state.media[`sha256:${digest(`photo${i}`, 64)}`] = { id: i + 1, source: `content/images/photo-${i}.png` };
  for (let i = 0; i < count; i++) state.records[`article/story-${i}`] = record(i);
  return state;
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Best of ROUNDS: wall clock and CPU time, each its own best. */
async function best(fn) {
  let wall = Infinity;
  let cpu = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    await settle();
    const start = process.hrtime.bigint();
    const cpuStart = cpuMs();
    await fn();
    cpu = Math.min(cpu, cpuMs() - cpuStart);
    wall = Math.min(wall, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return `${fmt(wall)} (cpu ${fmt(cpu)})`;
}

const kib = (bytes) =>
  bytes >= 1 << 20 ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;

async function sizeOf(dir, names) {
  let bytes = 0;
  for (const name of names)
    bytes += await stat(path.join(dir, name)).then(
      (s) => s.size,
      () => 0,
    );
  return bytes;
}

/** What every measure reads of a state, through `build`'s readStateFile. */
function reads(build, dir, count) {
  const probe = `article/story-${Math.floor(count / 2)}`;
  return {
    open: async () => void (await build.readStateFile(dir, 'local')).state,
    keys: async () => asMap((await build.readStateFile(dir, 'local')).state.records).size,
    firstDigest: async () =>
      asMap((await build.readStateFile(dir, 'local')).state.records).get(probe).source.body,
    noop: async () => {
      // What a no-op reads of every record: its file and inputs, its id, owner and change marker.
      const { state } = await build.readStateFile(dir, 'local');
      let seen = 0;
      for (const [, entry] of asMap(state.records).entries())
        if (entry.file && entry.input?.fileSha && entry.id && entry.owner && entry.marker) seen++;
      return seen;
    },
    full: async () => {
      const { state } = await build.readStateFile(dir, 'local');
      let digests = 0;
      for (const [, entry] of asMap(state.records).entries()) digests += Object.keys(entry.source).length;
      return digests;
    },
  };
}

console.log(`${machine()}\n`);
const header = ['records', 'measure', 'state.jsonl + log', 'state.json (JSON.parse, rewrite)'];
if (other) header.push(`--compare ${compareDist}`);
const rows = [header];
// Each figure as soon as it is measured (the 100,000 run takes minutes); the table at the end.
const push = (row) => {
  rows.push(row);
  console.log(row.join(' | '));
};
for (const count of sizes) {
  const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-bench-state-'));
  const legacyDir = await mkdtemp(path.join(tmpdir(), 'cms-sync-bench-state-json-'));
  const otherDir = other ? await mkdtemp(path.join(tmpdir(), 'cms-sync-bench-state-other-')) : undefined;
  try {
    const legacyFile = path.join(legacyDir, 'state.json');
    {
      // Made and dropped before anything is timed: a heap holding it would slow every collection.
      const made = benchState(count);
      await writeFile(legacyFile, `${stableJson(made, 2)}\n`);
      await ours.writeStateFile(dir, stateFromPlain(made));
      if (otherDir) {
        await other.writeStateFile(otherDir, made);
        // A save with nothing to fold writes what the other build keeps beside its state (an index).
        const store = await other.StateStore.open(otherDir, 'local');
        await store.save();
        await store.close();
      }
    }
    const otherFiles = otherDir ? (await readdir(otherDir)).filter((name) => name.startsWith('state')) : [];
    const legacyBytes = (await stat(legacyFile)).size;
    push([
      count,
      'committed size',
      kib(await sizeOf(dir, [ours.STATE_BASE_FILE, ours.STATE_LOG_FILE])),
      kib(legacyBytes),
      ...(otherDir ? [`${kib(await sizeOf(otherDir, otherFiles))} (${otherFiles.join(' + ')})`] : []),
    ]);

    const baseline = await best(async () => void JSON.parse(await readFile(legacyFile, 'utf8')));
    const mine = reads(ours, dir, count);
    const theirs = otherDir ? reads(other, otherDir, count) : undefined;
    for (const [name, label] of [
      ['open', 'open (header, media and log; records on first use)'],
      ['keys', 'read (every key, no entry parsed)'],
      ['firstDigest', 'read to one record digest'],
      ['noop', "read + every record's fields (a no-op)"],
      ['full', 'read + every field and digest'],
    ])
      push([count, label, await best(mine[name]), baseline, ...(theirs ? [await best(theirs[name])] : [])]);

    // One record changed by an apply: what reaches the committed files, against rewriting state.json.
    const committed = [ours.STATE_BASE_FILE, ours.STATE_LOG_FILE];
    const before = await sizeOf(dir, committed);
    const baseBefore = await readFile(path.join(dir, ours.STATE_BASE_FILE));
    const store = await ours.StateStore.open(dir, 'local');
    await store.recordWritten(`article/story-${Math.floor(count / 2)}`, {
      ...record(Math.floor(count / 2)),
      marker: 'changed',
    });
    await settle();
    const saveStart = process.hrtime.bigint();
    await store.save();
    const saveMs = Number(process.hrtime.bigint() - saveStart) / 1e6;
    await store.close();
    const baseAfter = await readFile(path.join(dir, ours.STATE_BASE_FILE));
    const written = baseAfter.equals(baseBefore)
      ? (await sizeOf(dir, committed)) - before
      : await sizeOf(dir, committed);
    const legacy = JSON.parse(await readFile(legacyFile, 'utf8'));
    const rewrite = await best(async () => writeFile(legacyFile, `${stableJson(legacy, 2)}\n`));
    push([count, 'bytes written by a one-record save', `${written} B`, kib(legacyBytes)]);
    push([count, 'one-record save', fmt(saveMs), rewrite]);
    // plainState is what tools and tests use to hand the whole state on (never JSON.stringify of it).
    push([
      count,
      'read + plainState (every entry as plain data)',
      await best(async () => void plainState((await ours.readStateFile(dir, 'local')).state)),
      baseline,
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(legacyDir, { recursive: true, force: true });
    if (otherDir) await rm(otherDir, { recursive: true, force: true });
  }
}
console.log(`\n${table(rows.map((row) => [...row, ...Array(rows[0].length - row.length).fill('')]))}`);
