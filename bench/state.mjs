// State that scales (issue 20, item 3): the committed state of N records (default 10,000 and
// 100,000), shaped as apply leaves it. Prints the size of its files, the time to read it (to the
// first digest, to what a no-op reads of every record, and in full) and the bytes a one-record
// save writes, each beside the same measure for the single state.json of earlier versions (its
// bytes through JSON.parse, and its rewrite), taken in the same run.
// Usage: node bench/state.mjs [--records N[,N...]]
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, machine, settle, table } from './lib.mjs';

const { readStateFile, writeStateFile, STATE_BASE_FILE, STATE_LOG_FILE } =
  await import('../dist/state/state-file.js');
const { StateStore } = await import('../dist/state/journal.js');
const { stableJson } = await import('../dist/stable-json.js');

const at = process.argv.indexOf('--records');
const sizes = at >= 0 ? process.argv[at + 1].split(',').map(Number) : [10_000, 100_000];
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

function plainState(count) {
  const state = { version: 1, lineage: 'bench-lineage', serial: 1, target: 'local', records: {}, media: {} };
  for (let i = 0; i < 20; i++)
    state.media[`sha256:${digest(`photo${i}`, 64)}`] = { id: i + 1, source: `content/images/photo-${i}.png` };
  for (let i = 0; i < count; i++) state.records[`article/story-${i}`] = record(i);
  return state;
}

async function best(fn) {
  let fastest = Infinity;
  let value;
  for (let round = 0; round < ROUNDS; round++) {
    await settle();
    const start = process.hrtime.bigint();
    value = await fn();
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { ms: fastest, value };
}

const kib = (bytes) =>
  bytes >= 1 << 20 ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;

console.log(`${machine()}\n`);
const rows = [['records', 'measure', 'state.jsonl + log', 'state.json (earlier versions)']];
// Each figure as soon as it is measured (the 100,000 run takes minutes); the table at the end.
const push = (row) => {
  rows.push(row);
  console.log(row.join(' | '));
};
for (const count of sizes) {
  const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-bench-state-'));
  try {
    const legacyFile = path.join(dir, 'legacy-state.json');
    {
      // Made and dropped before anything is timed: a heap holding it would slow every collection.
      const plain = plainState(count);
      await writeFile(legacyFile, `${stableJson(plain, 2)}\n`);
      await writeStateFile(dir, plain);
    }
    const legacyBytes = (await stat(legacyFile)).size;
    push([
      count,
      'committed size',
      kib((await stat(path.join(dir, STATE_BASE_FILE))).size),
      kib(legacyBytes),
    ]);

    const probe = `article/story-${Math.floor(count / 2)}`;
    // Its value is dropped: a heap that holds it would slow every later measure's collections.
    const baseline = await best(async () => void JSON.parse(await readFile(legacyFile, 'utf8')));
    const firstDigest = await best(async () => {
      const { state } = await readStateFile(dir, 'local');
      return state.records[probe].source.body;
    });
    push([count, 'read to first digest', fmt(firstDigest.ms), `${fmt(baseline.ms)} (JSON.parse)`]);
    const noop = await best(async () => {
      const { state } = await readStateFile(dir, 'local');
      let files = 0;
      for (const key in state.records)
        if (state.records[key].input?.fileSha && state.records[key].file) files++;
      return files;
    });
    push([count, "read + every record's file and inputs", fmt(noop.ms), `${fmt(baseline.ms)} (JSON.parse)`]);
    const full = await best(async () => {
      const { state } = await readStateFile(dir, 'local');
      return JSON.stringify(state).length;
    });
    push([count, 'read in full', fmt(full.ms), `${fmt(baseline.ms)} (JSON.parse)`]);

    // One record changed by an apply: what reaches the committed files, against rewriting state.json.
    const before = (await stat(path.join(dir, STATE_BASE_FILE))).size;
    const store = await StateStore.open(dir, 'local');
    await store.recordWritten(probe, { ...record(Math.floor(count / 2)), marker: 'changed' });
    await settle();
    const saveStart = process.hrtime.bigint();
    await store.save();
    const save = { ms: Number(process.hrtime.bigint() - saveStart) / 1e6 };
    await store.close();
    const written =
      (await stat(path.join(dir, STATE_BASE_FILE))).size -
      before +
      (await stat(path.join(dir, STATE_LOG_FILE))).size;
    const legacy = JSON.parse(await readFile(legacyFile, 'utf8'));
    const rewrite = await best(async () => writeFile(legacyFile, `${stableJson(legacy, 2)}\n`));
    push([count, 'bytes written by a one-record save', `${written} B`, kib(legacyBytes)]);
    push([count, 'one-record save', fmt(save.ms), `${fmt(rewrite.ms)} (stringify + write)`]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
console.log(`\n${table(rows)}`);
