// Memory at scale (issue 20): over N generated documents (default 10,000 of ~9 KiB), the peak
// RSS of a cold apply run as a process of its own, then a no-op and a one-change apply with
// their times, calls and peak RSS, next to reading and hashing the same files in this run.
// The local CMS runs in this process, so the CLI's figures are the CLI's alone. `--docs 100000`
// takes minutes. With `--heap`, each CLI run also samples its heap and prints the peaks and the
// timeline of its memory (a sampler preloaded through NODE_OPTIONS; the CLI is not changed).
// `--dir DIR` keeps the generated folder in DIR and reuses its content/ on the next run (state
// and the CMS's data start empty each time), since generating 100,000 documents takes a while;
// `--cold` measures the cold apply only. `--points` (with `--heap`) collects garbage and notes the
// heap used at five points of the cold apply: the scan done, halfway through building, its first
// record write (the plan made), halfway through the writes and just before the state is saved;
// comparing two sizes gives the bytes held per document. `--snapshots` writes a heap snapshot at
// each point too, beside the timeline (in DIR, or the temp folder).
// `--maps` (with `--points`) notes at each point the resident size of the process's mappings by kind
// (V8's and malloc's anonymous ones by size, files), and the largest (Linux); without `--points`, it
// samples them once a second by kind (malloc's main heap and arenas, V8's pages, the rest) and
// prints each kind's mean, spread and highest in fifths of the cold apply. Each point also gives
// the main heap's spaces, committed and used. `BENCH_NODE_ARGS='--flag …'` runs the CLI with Node
// options of its own, to try one that NODE_OPTIONS does not allow (V8's `--single-threaded-gc`);
// glibc's `MALLOC_*` variables in the bench's environment reach the CLI too (`MALLOC_ARENA_MAX=1`).
// Usage: node bench/scale.mjs [--docs N] [--kb K] [--heap [--maps] [--points [--snapshots]]] [--dir DIR] [--cold]
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { articleBody, generateCorpus } from './corpus.mjs';
import { fmt, machine, runCli, settle, table, time } from './lib.mjs';
import { readAndHash } from './read-and-hash.mjs';

const arg = (name, fallback) =>
  process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback;
const docs = arg('--docs', 10_000);
const kb = arg('--kb', 9);
const heap = process.argv.includes('--heap');
const coldOnly = process.argv.includes('--cold');
const points = heap && process.argv.includes('--points');
const snapshots = points && process.argv.includes('--snapshots');
const keptDir = process.argv.includes('--dir')
  ? path.resolve(process.argv[process.argv.indexOf('--dir') + 1])
  : undefined;
const ROUNDS = 3;
const { startLocalCms } = await import('../dist/server/index.js');
const { serveContent } = await import('../dist/media/serve-content.js');

const dir = keptDir ?? (await mkdtemp(path.join(tmpdir(), 'cms-sync-bench-scale-')));
const content = path.join(dir, 'content');
// A kept folder is reused only if it was generated whole with the same size.
const corpusMark = path.join(dir, `corpus-${docs}-${kb}.done`);
for (const leftover of ['.cms-sync', 'cms-data'])
  await rm(path.join(dir, leftover), { recursive: true, force: true });
let generated = { ms: 0 };
if (!keptDir || !existsSync(corpusMark)) {
  await rm(content, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  generated = await time(() => generateCorpus(content, docs, { kb }));
  if (keptDir) await writeFile(corpusMark, '');
}
await writeFile(
  path.join(dir, 'sync.config.ts'),
  "export default {\n  contentDir: 'content',\n  media: { defaultSize: 'medium' },\n  sync: { maxDeletes: 20 },\n};\n",
);
// Samples the CLI's memory from inside it (main thread only) and writes the peaks and a timeline at exit.
const probe = path.join(dir, 'heap-probe.mjs');
await writeFile(
  probe,
  `import { isMainThread } from 'node:worker_threads';
import fs, { writeFileSync } from 'node:fs';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import v8 from 'node:v8';
import vm from 'node:vm';
const someHandle = await fsp.open(process.execPath);
const FileHandle = someHandle.constructor;
await someHandle.close();
const gc = () => (v8.setFlagsFromString('--expose-gc'), vm.runInNewContext('gc'))();
// Each worker thread (render, stat) notes its own heap's peak in a file of its own, beside the main one's.
if (!isMainThread && process.env.BENCH_HEAP_OUT) {
  const { threadId } = await import('node:worker_threads');
  const peak = { used: 0, total: 0 };
  const out = process.env.BENCH_HEAP_OUT + '.worker-' + threadId;
  // Written whenever it rises (a worker may be stopped at any moment, with no exit of its own).
  setInterval(() => {
    const h = v8.getHeapStatistics();
    if (h.used_heap_size <= peak.used && h.total_heap_size <= peak.total) return;
    peak.used = Math.max(peak.used, h.used_heap_size);
    peak.total = Math.max(peak.total, h.total_heap_size);
    writeFileSync(out, JSON.stringify(peak));
  }, 25).unref();
}
if (isMainThread && process.env.BENCH_HEAP_OUT) {
  const start = Date.now();
  const peak = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0 };
  const timeline = [];
  let last = 0;
  const sample = () => {
    const m = process.memoryUsage();
    for (const k in peak) peak[k] = Math.max(peak[k], m[k]);
    const t = Date.now() - start;
    if (t - last >= 500) {
      last = t;
      timeline.push([t, m.rss, m.heapUsed, m.external + m.arrayBuffers, m.heapTotal].map((v, i) => (i ? v >> 20 : v)));
    }
  };
  setInterval(sample, 25).unref();
  // With --maps and no points: once a second, the resident MiB of each kind of mapping (see mappingKinds).
  const mapsTimeline = [];
  if (process.env.BENCH_MAPS && !process.env.BENCH_POINTS)
    setInterval(() => mapsTimeline.push([Date.now() - start, ...mappingKinds()]), 1000).unref();
  const points = [];
  if (process.env.BENCH_POINTS) watchPoints(Number(process.env.BENCH_POINTS), (name) => {
    const at = Date.now() - start;
    const rssBefore = process.memoryUsage().rss >> 20;
    const snapshot = process.env.BENCH_HEAP_OUT + '.' + name + '.heapsnapshot';
    if (process.env.BENCH_SNAPSHOTS) v8.writeHeapSnapshot(snapshot);
    else gc();
    const m = process.memoryUsage();
    const maps = process.env.BENCH_MAPS ? largestMappings() : undefined;
    const external = m.external + m.arrayBuffers;
    // Each of the main heap's spaces, committed and used (MiB): the young generation apart from the old.
    const spaces = v8
      .getHeapSpaceStatistics()
      .filter((s) => s.space_size > 0)
      .map((s) => s.space_name.replace(/_space$/, '') + ' ' + (s.space_size >> 20) + '/' + (s.space_used_size >> 20))
      .join(', ');
    points.push({ name, at, rssBefore, rss: m.rss >> 20, heapUsed: m.heapUsed, external, maps, spaces });
  });
  process.on('exit', () => {
    sample();
    writeFileSync(process.env.BENCH_HEAP_OUT, JSON.stringify({ peak, timeline, points, mapsTimeline }));
  });
}

// Resident MiB by kind of mapping (Linux): the main thread's malloc heap ([heap]); other threads'
// malloc arenas (anonymous, at a 64 MiB boundary, as glibc places them); V8's pages (anonymous, in
// 256 KiB steps: every isolate's heap); other anonymous mappings (large buffers); files.
function mappingKinds() {
  const kib = [0, 0, 0, 0, 0];
  let kind = -1;
  for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \\S+ \\S+ \\S+ (\\d+)\\s*(.*)$/.exec(line);
    if (head) {
      const start = parseInt(head[1], 16);
      const size = parseInt(head[2], 16) - start;
      const named = head[3] !== '0' || head[4] !== '';
      const arena = start % 2 ** 26 === 0 && size <= 2 ** 26;
      const v8Pages = start % 2 ** 18 === 0 && size % 2 ** 18 === 0;
      kind = head[4] === '[heap]' ? 0 : named ? 4 : arena ? 1 : v8Pages ? 2 : 3;
    } else if (kind >= 0 && line.startsWith('Rss:')) kib[kind] += parseInt(line.slice(4));
  }
  return kib.map((k) => k >> 10);
}

// The process's largest mappings by resident size (Linux): which of V8's heaps, malloc's arenas and
// the files mapped hold what RSS counts, to compare between two sizes.
function largestMappings() {
  const out = [];
  let current;
  for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\\S+) \\S+ \\S+ \\d+\\s*(.*)$/.exec(line);
    if (head) {
      const size = (parseInt(head[2], 16) - parseInt(head[1], 16)) >> 10;
      current = { size, perms: head[3], name: head[4] || 'anon', rss: 0 };
      out.push(current);
    } else if (current && line.startsWith('Rss:')) current.rss = parseInt(line.slice(4));
  }
  const byKind = {};
  for (const m of out) {
    const anon = m.size >= 60000 ? 'anon >= 60 MiB' : m.size >= 1024 ? 'anon 1-60 MiB' : 'anon < 1 MiB';
    const kind = m.name === 'anon' ? anon : m.name.startsWith('/') ? 'file' : m.name;
    byKind[kind] = (byKind[kind] ?? 0) + m.rss;
  }
  const top = out.sort((a, b) => b.rss - a.rss).slice(0, 12);
  return { byKind, top: top.map((m) => [m.rss, m.size, m.perms, m.name].join(' ')) };
}

// The points of the cold apply, seen from outside: records confirmed in the journal, and the
// temp file of the state's save. Each is passed once.
function watchPoints(docs, at) {
  const seen = new Set();
  const once = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    at(name);
  };
  let records = 0;
  const write = FileHandle.prototype.write;
  FileHandle.prototype.write = function (data, ...rest) {
    if (typeof data === 'string' && data.includes('{"t":"record"')) {
      records += data.split('{"t":"record"').length - 1;
      once('first-write');
      if (records >= docs / 2) once('halfway');
    }
    return write.call(this, data, ...rest);
  };
  // The spool takes a text (its body) and a value per document scanned, then its HTML and its
  // record per document built: all scanned at 2 writes a document, halfway through building at 3.
  let spoolFd;
  let spooled = 0;
  const openSync = fs.openSync;
  fs.openSync = function (file, ...rest) {
    const fd = openSync.call(this, file, ...rest);
    if (typeof file === 'string' && file.includes('body-spool-')) spoolFd = fd;
    return fd;
  };
  const writeSync = fs.writeSync;
  fs.writeSync = function (fd, ...rest) {
    if (fd === spoolFd && ++spooled >= 2 * docs) once(spooled >= 3 * docs ? 'mid-render' : 'scanned');
    return writeSync.call(this, fd, ...rest);
  };
  const open = fsp.open;
  fsp.open = function (file, ...rest) {
    if (typeof file === 'string' && /state\\.jsonl\\..*\\.tmp$/.test(file)) once('before-save');
    return open.call(this, file, ...rest);
  };
  syncBuiltinESMExports();
}
`,
);
const cms = await startLocalCms({ dataDir: path.join(dir, 'cms-data'), port: 0, token: 'bench-token' });
const media = await serveContent(content);
const env = { CMS_BASE_URL: cms.url, CMS_API_TOKEN: 'bench-token', CMS_MEDIA_BASE_URL: media.baseUrl };
let runs = 0;
const apply = async (...flags) => {
  const heapOut = path.join(dir, `heap-${runs++}.json`);
  const result = await runCli(
    ['--cwd', dir, 'apply', '--json', ...flags],
    heap
      ? {
          ...env,
          BENCH_HEAP_OUT: heapOut,
          NODE_OPTIONS: `--import=${pathToFileURL(probe)}`,
          ...(points && runs === 1 ? { BENCH_POINTS: String(docs) } : {}),
          ...(snapshots ? { BENCH_SNAPSHOTS: '1' } : {}),
          ...(process.argv.includes('--maps') ? { BENCH_MAPS: '1' } : {}),
        }
      : env,
    { measureRss: true },
  );
  if (result.code !== 0) throw new Error(`apply exited ${result.code}:\n${result.stderr.slice(0, 2000)}`);
  const doc = JSON.parse(result.stdout);
  const sampled = heap ? JSON.parse(await readFile(heapOut, 'utf8')) : undefined;
  if (sampled) {
    const name = path.basename(heapOut) + '.worker-';
    const files = (await readdir(dir)).filter((f) => f.startsWith(name));
    sampled.workers = await Promise.all(
      files.map(async (f) => JSON.parse(await readFile(path.join(dir, f), 'utf8'))),
    );
    for (const f of files) await rm(path.join(dir, f));
  }
  return { ...result, doc, sampled, stats: cms.stats() };
};
const mib = (kb) => `${(kb / 1024).toFixed(0)} MiB`;
const heapNote = (sampled) =>
  sampled
    ? `; heap used ${sampled.peak.heapUsed >> 20} MiB, external ${
        (sampled.peak.external + sampled.peak.arrayBuffers) >> 20
      } MiB at most` +
      (sampled.workers.length
        ? `; worker threads' heaps (used / total, MiB, at most): ${sampled.workers
            .map((w) => `${w.used >> 20} / ${w.total >> 20}`)
            .join(', ')}`
        : '')
    : '';

const coldNote = (coldRun) =>
  `Cold apply: created ${coldRun.doc.result.created}, uploaded ${coldRun.doc.result.uploaded}; read ` +
  `${fmt(coldRun.doc.timings.read)}, planned ${fmt(coldRun.doc.timings.planned)}, applied ` +
  `${fmt(coldRun.doc.timings.applied)}.` +
  (coldRun.doc.source.spool ? ` Spool: ${JSON.stringify(coldRun.doc.source.spool)}.` : '') +
  ` Corpus generated in ${fmt(generated.ms)}.`;
const printTimeline = (coldRun) => {
  if (!coldRun.sampled) return;
  console.log('\nCold apply memory timeline (ms, RSS MiB, heap used MiB, external MiB, heap total MiB):');
  console.log(coldRun.sampled.timeline.map((s) => s.join(' ')).join('\n'));
  const maps = coldRun.sampled.mapsTimeline;
  if (maps?.length) {
    // In fifths of the run: each kind's mean ± standard deviation, and its highest, MiB.
    const kinds = ['main malloc', 'malloc arenas', "V8's pages", 'other anonymous', 'files'];
    console.log('\nResident MiB by kind of mapping, in fifths of the cold apply (mean ± sd, highest):');
    for (let f = 0; f < 5; f++) {
      const part = maps.slice(Math.floor((f * maps.length) / 5), Math.floor(((f + 1) * maps.length) / 5));
      if (!part.length) continue;
      const cells = kinds.map((name, k) => {
        const v = part.map((row) => row[k + 1]);
        const mean = v.reduce((a, b) => a + b, 0) / v.length;
        const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length);
        return `${name} ${mean.toFixed(0)} ± ${sd.toFixed(1)}, ${Math.max(...v)}`;
      });
      console.log(`${fmt(part[0][0])} to ${fmt(part[part.length - 1][0])}: ${cells.join('; ')}`);
    }
  }
  if (!coldRun.sampled.points?.length) return;
  console.log(
    '\nAfter a full collection (ms, name, RSS MiB before and after, heap used bytes, external bytes):',
  );
  for (const p of coldRun.sampled.points)
    console.log(
      [p.at, p.name, p.rssBefore, p.rss, p.heapUsed, p.external].join(' '),
      `(spaces, MiB committed/used: ${p.spaces})`,
    );
  for (const p of coldRun.sampled.points.filter((p) => p.maps)) {
    const kinds = JSON.stringify(p.maps.byKind);
    console.log(
      `\nResident KiB by mapping at ${p.name}: ${kinds}; the largest (RSS KiB, size KiB, mode, name):`,
    );
    for (const line of p.maps.top) console.log(`  ${line}`);
  }
};

try {
  await settle();
  cms.resetStats();
  const cold = await time(() => apply('--concurrency', '8'));
  const coldRun = cold.value;
  if (coldOnly) {
    console.log(`## Cold apply, ${docs.toLocaleString('en')} documents of ~${kb} KiB\n`);
    const rss = mib(coldRun.peakRssKb);
    console.log(
      `${fmt(cold.ms)}, ${coldRun.stats.requests} calls, peak RSS ${rss}${heapNote(coldRun.sampled)}`,
    );
    console.log(`\n${coldNote(coldRun)}`);
    printTimeline(coldRun);
    console.log(`\n${machine()}`);
  } else await measureAll(cold);
} finally {
  await media.close();
  await cms.close();
  if (keptDir)
    for (const leftover of ['.cms-sync', 'cms-data'])
      await rm(path.join(dir, leftover), { recursive: true, force: true });
  else await rm(dir, { recursive: true, force: true });
}

async function measureAll(cold) {
  const coldRun = cold.value;
  const fastest = {};
  const measures = {
    hashing: async () => readAndHash(content),
    noop: async () => {
      cms.resetStats();
      return apply();
    },
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, measure] of Object.entries(measures)) {
      await settle();
      const run = await time(measure);
      if (!fastest[name] || run.ms < fastest[name].ms) fastest[name] = run;
    }
  }
  // One file changed: after a clean apply (the run passes the other files over), and with the mark
  // of that apply removed (the run looks at everything, as before there was one), in turn.
  let change;
  let changeWhole;
  for (let i = 0; i < 2 * ROUNDS; i++) {
    const target = path.join(content, 'articles', `story-${Math.floor(docs / 2)}.md`);
    await writeFile(
      target,
      `---\ntitle: Story ${Math.floor(docs / 2)}, edited at ${Date.now()}\ncategory: politics\n---\n\n` +
        articleBody(Math.floor(docs / 2), kb),
    );
    const whole = i % 2 === 1;
    if (whole) await rm(path.join(dir, '.cms-sync', 'clean-run.json'), { force: true });
    await settle();
    cms.resetStats();
    const run = await time(() => apply());
    if (whole) {
      if (!changeWhole || run.ms < changeWhole.ms) changeWhole = run;
    } else if (!change || run.ms < change.ms) change = run;
  }

  const hashing = fastest.hashing;
  const row = (label, run) => [
    label,
    fmt(run.ms),
    (run.ms / hashing.ms).toFixed(2),
    `${run.value.stats.requests} (${run.value.stats.writes} writes)`,
    mib(run.value.peakRssKb),
    `rendered ${run.value.doc.source.rendered}, files read ${run.value.doc.source.hashed}, passed over ` +
      `${run.value.doc.source.untouched ?? 0}` +
      heapNote(run.value.sampled),
  ];
  const rows = [['measure', 'time', 'ratio to baseline', 'calls', 'peak RSS', 'notes']];
  rows.push([
    `baseline: read + sha256 of every file, in this process (best of ${ROUNDS})`,
    fmt(hashing.ms),
    '1.00',
    '',
    '',
    `${hashing.value.files} files, ${(hashing.value.bytes / 2 ** 20).toFixed(0)} MiB`,
  ]);
  rows.push(row('cold `apply` (creates everything)', cold));
  rows.push(row(`no-op \`apply\` (best of ${ROUNDS})`, fastest.noop));
  rows.push(row(`one file changed, \`apply\` (best of ${ROUNDS})`, change));
  rows.push(
    row(`one file changed, every file looked at (no clean-run mark; best of ${ROUNDS})`, changeWhole),
  );

  console.log(`## Scale, ${docs.toLocaleString('en')} documents of ~${kb} KiB\n`);
  console.log(table(rows));
  console.log(`\n${coldNote(coldRun)}`);
  printTimeline(coldRun);
  console.log(`\n${machine()}`);
}
