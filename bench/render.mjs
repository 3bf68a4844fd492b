// Cold rendering (issue 7, item 3): documents per second through a bare unified pipeline and
// through cms-sync's renderer, in one thread and on a pool of worker threads, on the same
// documents in the same run. Usage: node bench/render.mjs [--docs N] [--kb K] [--rounds R] [--dist DIR]
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { articleBody } from './corpus.mjs';
import { fmt, machine, table, time } from './lib.mjs';

const arg = (name, fallback) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback;
const docs = Number(arg('--docs', 1000));
const kb = Number(arg('--kb', 9));
const dist = pathToFileURL(
  path.resolve(arg('--dist', new URL('../dist', import.meta.url).pathname)) + '/',
).href;
const workers = Math.min(availableParallelism(), 4);
const photo = (i) => `\n![Photo](../images/photo-${i % 20}.png "large")\n`;
const documents = Array.from({ length: docs }, (_, i) =>
  `---\ntitle: Story ${i}\n---\n\n${articleBody(i, kb, i % 10 === 0 ? photo(i) : '')}`.replace(
    /^---[\s\S]*?---\n/,
    '',
  ),
);

const { renderMarkdown } = await import(`${dist}render/render-markdown.js`);
const { createRenderPool } = await import(`${dist}render/render-pool.js`);
const bare = await import('./bare-pipeline.mjs');

// Warm up each pipeline once so the measurement is of rendering, not of loading.
renderMarkdown(documents[0], { defaultSize: 'medium' });
bare.render(documents[0]);

// Rounds interleave the four pipelines, and each keeps its best round: on a shared machine the
// speed drifts, and a single pass once put the same code 17% behind and then 4% ahead.
const rounds = Number(arg('--rounds', 3));
const bestOf = {};
const keep = (name, run) => {
  if (!bestOf[name] || run.ms < bestOf[name].ms) bestOf[name] = run;
};
const measures = {
  single: () =>
    time(async () => {
      for (const d of documents) renderMarkdown(d, { defaultSize: 'medium' });
    }),
  bareSingle: () =>
    time(async () => {
      for (const d of documents) bare.render(d);
    }),
  pooled: async () => {
    const pool = createRenderPool({ defaultSize: 'medium', size: workers });
    await Promise.all(Array.from({ length: workers * 2 }, () => pool.render(documents[0]))); // start-up
    const run = await time(() => Promise.all(documents.map((d) => pool.render(d))));
    await pool.close();
    return run;
  },
  barePooled: () => time(() => barePool(documents, workers)),
};
// Which pipeline goes first alternates, so neither always pays for warming up shared code.
for (let round = 0; round < rounds; round++) {
  const order =
    round % 2 === 0
      ? ['single', 'bareSingle', 'pooled', 'barePooled']
      : ['bareSingle', 'single', 'barePooled', 'pooled'];
  for (const name of order) keep(name, await measures[name]());
}
const { single, bareSingle, pooled, barePooled } = bestOf;

const rate = (ms) => `${((docs / ms) * 1000).toFixed(0)} docs/s`;
console.log(
  `## Cold rendering, ${docs.toLocaleString('en')} documents of ~${kb} KiB, ${workers} worker threads, best of ` +
    `${rounds} interleaved rounds\n`,
);
console.log(
  table([
    ['pipeline', 'time', 'throughput', 'ratio'],
    ['bare unified, one thread (baseline)', fmt(bareSingle.ms), rate(bareSingle.ms), '1.00'],
    [
      'bare unified, worker pool',
      fmt(barePooled.ms),
      rate(barePooled.ms),
      `${(bareSingle.ms / barePooled.ms).toFixed(2)}x throughput`,
    ],
    [
      'cms-sync renderer, one thread',
      fmt(single.ms),
      rate(single.ms),
      `${((single.ms / bareSingle.ms - 1) * 100).toFixed(1)}% overhead over bare`,
    ],
    [
      'cms-sync renderer, worker pool',
      fmt(pooled.ms),
      rate(pooled.ms),
      `${(single.ms / pooled.ms).toFixed(2)}x its one-thread throughput; ` +
        `${((pooled.ms / barePooled.ms - 1) * 100).toFixed(1)}% overhead over the bare pool`,
    ],
  ]),
);
console.log(`\n${machine()}`);

async function barePool(items, size) {
  const pool = Array.from(
    { length: size },
    () => new Worker(new URL('./bare-pipeline.mjs', import.meta.url)),
  );
  await Promise.all(
    pool.map(
      (w) =>
        new Promise((resolve) => {
          w.once('message', resolve);
          w.postMessage({ id: -1, md: items[0] });
        }),
    ),
  );
  let next = 0;
  const results = [];
  // Two jobs in flight per worker, like the real pool under load.
  await Promise.all(
    pool.map(
      (w) =>
        new Promise((resolve) => {
          let inFlight = 0;
          const send = () => {
            if (next >= items.length) {
              if (inFlight === 0) resolve();
              return;
            }
            const id = next++;
            inFlight++;
            w.postMessage({ id, md: items[id] });
          };
          w.on('message', ({ id, html }) => {
            inFlight--;
            results[id] = html;
            send();
          });
          send();
          send();
        }),
    ),
  );
  await Promise.all(pool.map((w) => w.terminate()));
  return results;
}
