// API economy (issue 7, item 4): a cold sync of N documents (default 2,000) sharing M images
// (default 300) against the local CMS, client and server both at --rps R (default 50). Prints
// the requests made against the minimum (creates + distinct uploads + list pages), the share of
// the allowed rate reached while writing, the 429s, and how far uploads overlap rendering.
// Usage: node bench/api-economy.mjs [--docs N] [--images M] [--rps R]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateCorpus } from './corpus.mjs';
import { fmt, machine, runCli, table, time } from './lib.mjs';

const arg = (name, fallback) =>
  process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback;
const docs = arg('--docs', 2000);
const images = arg('--images', 300);
const rps = arg('--rps', 50);
const { startLocalCms } = await import('../dist/server/index.js');
const { serveContent } = await import('../dist/media/serve-content.js');

const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-bench-economy-'));
const content = path.join(dir, 'content');
// Every document embeds one image, so all `images` are used.
await generateCorpus(content, docs, { kb: 2, images, everyNthHasImage: 1 });
const cms = await startLocalCms({ dataDir: path.join(dir, 'cms-data'), port: 0, token: 'bench-token', rps });
const media = await serveContent(content);
const env = { CMS_BASE_URL: cms.url, CMS_API_TOKEN: 'bench-token', CMS_MEDIA_BASE_URL: media.baseUrl };

try {
  const run = await time(() =>
    runCli(['--cwd', dir, 'apply', '--json', '--rps', String(rps), '--concurrency', '8'], env),
  );
  if (run.value.code !== 0)
    throw new Error(`apply exited ${run.value.code}:\n${run.value.stderr.slice(0, 2000)}`);
  const doc = JSON.parse(run.value.stdout);
  const stats = cms.stats();
  const records = doc.result.created;
  const uploads = doc.result.uploaded;
  const listPages = Object.entries(stats.byAction)
    .filter(([action]) => action.endsWith('.get'))
    .reduce((n, [, count]) => n + count, 0);
  const minimum = records + uploads + listPages;
  const writes = stats.writeLog.map((w) => w.at).sort((a, b) => a - b);
  const writeSeconds = (writes.at(-1) - writes[0]) / 1000;
  // Overlap: when the CMS got the first upload, against when the last document was rendered.
  const { startedAt, read } = doc.timings;
  const firstUpload = Math.min(
    ...stats.writeLog.filter((w) => w.action === 'upload_from_url').map((w) => w.at),
  );
  const uploadsBeforeRendered = stats.writeLog.filter(
    (w) => w.action === 'upload_from_url' && w.at < startedAt + read,
  ).length;
  const achieved = (writes.length - 1) / writeSeconds;

  console.log(
    `## API economy: cold sync of ${docs.toLocaleString('en')} documents sharing ${images} images, --rps ${rps} on ` +
      `both sides\n`,
  );
  console.log(
    table([
      ['measure', 'value', 'goal'],
      ['requests made', String(stats.requests), ''],
      [
        'minimum: creates + distinct uploads + list pages',
        `${minimum} (${records} + ${uploads} + ${listPages})`,
        '',
      ],
      ['ratio to the minimum', (stats.requests / minimum).toFixed(2), '1.00'],
      [
        'write rate from first to last write',
        `${achieved.toFixed(1)}/s (${((achieved / rps) * 100).toFixed(0)}% of ${rps})`,
        '>= 90%',
      ],
      ['429 answers', String(stats.rateLimited), '0'],
      [
        'first upload / last document rendered (since the pass began)',
        `${fmt(firstUpload - startedAt)} / ${fmt(read)} (${uploadsBeforeRendered} of ${uploads} uploads done while ` +
          `rendering)`,
        'overlap',
      ],
      ['wall time (listing and uploads overlap rendering; uploads overlap record writes)', fmt(run.ms), ''],
    ]),
  );
  console.log(`\n${machine()}`);
} finally {
  await media.close();
  await cms.close();
  await rm(dir, { recursive: true, force: true });
}
