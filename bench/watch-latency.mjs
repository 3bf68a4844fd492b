// Save-to-write latency of `cms-sync watch`: the time from a file save to the CMS receiving the
// edit call (the server's own writeLog timestamp), p50/p95 over N saves (default 50), next to
// two baselines from the same run: the file-watcher event alone (watchContent, same options,
// in this process) and one bare `edit` API call. Usage: node bench/watch-latency.mjs [--saves N] [--docs N]
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BIN, fmt, machine, table } from './lib.mjs';

const arg = (name, fallback) => Number(process.argv[process.argv.indexOf(name) + 1]) || fallback;
const saves = arg('--saves', 50);
const docs = arg('--docs', 200);
const { startLocalCms } = await import('../dist/server/index.js');
const { serveContent } = await import('../dist/media/serve-content.js');
const { watchContent } = await import('../dist/watch/watch-content.js');

const TOKEN = 'bench-token';
const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-bench-watch-'));
const content = path.join(dir, 'content');
await mkdir(path.join(content, 'articles'), { recursive: true });
for (let i = 0; i < docs; i += 1)
  await writeFile(
    path.join(content, 'articles', `story-${i}.md`),
    `---\ntitle: Story ${i}\n---\n\nThe council met on Tuesday.\n`,
  );
const live = path.join(content, 'articles', 'live.md');
await writeFile(live, liveBlog(0));
const cms = await startLocalCms({ dataDir: path.join(dir, 'cms-data'), port: 0, token: TOKEN });
const media = await serveContent(content);

const child = spawn(process.execPath, [BIN, '--cwd', dir, 'watch'], {
  env: {
    PATH: process.env.PATH,
    NO_COLOR: '1',
    CMS_BASE_URL: cms.url,
    CMS_API_TOKEN: TOKEN,
    CMS_MEDIA_BASE_URL: media.baseUrl,
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
child.stdout.on('data', (c) => (output += c));
child.stderr.on('data', (c) => (output += c));

// The watcher alone, with the options watch uses: when does it report each save?
const events = [];
const probe = await watchContent({
  contentDir: content,
  onChange: (c) => c.file === 'articles/live.md' && events.push(Date.now()),
  onError: () => {},
});

try {
  await until(() => output.includes('Watching content/'), 60_000, 'watch to start');
  const writesAtStart = cms.stats().writes;
  const server = [];
  const watcherOnly = [];
  for (let i = 1; i <= saves; i += 1) {
    const writesBefore = cms.stats().writeLog.length;
    const eventsBefore = events.length;
    const savedAt = Date.now();
    await writeFile(live, liveBlog(i));
    await until(
      () => cms.stats().writeLog.length > writesBefore && events.length > eventsBefore,
      10_000,
      `save ${i} to reach the CMS`,
    );
    server.push(cms.stats().writeLog[writesBefore].at - savedAt);
    watcherOnly.push(events[eventsBefore] - savedAt);
    // Saves a writer makes seconds apart, not a burst: each is its own sync.
    await sleep(150);
  }
  const watchWrites = cms.stats().writes - writesAtStart;
  const bare = [];
  const id = (await api({ resource: 'article', action: 'get', limit: 100 })).items.find(
    (r) => r.slug === 'live',
  ).id;
  for (let i = 0; i < saves; i += 1) {
    const start = performance.now();
    await api({ resource: 'article', action: 'edit', id, data: { title: `Bare edit ${i}` } });
    bare.push(performance.now() - start);
  }

  console.log(`## Watch: save-to-write latency, ${saves} saves, ${docs + 1} documents in content/\n`);
  console.log(
    table([
      ['measure', 'p50', 'p95', 'max'],
      ['baseline: one bare `edit` API call (fetch, loopback)', ...stats(bare)],
      [
        'baseline: file watcher event alone (watchContent: an event of its folder, then 50 ms quiet)',
        ...stats(watcherOnly),
      ],
      ['`cms-sync watch`: save -> edit call received by the CMS', ...stats(server)],
    ]),
  );
  const p95 = percentile(server, 0.95);
  console.log(
    `\nGoal: p95 under 300 ms — ${p95 < 300 ? 'met' : 'NOT met'} (${fmt(p95)}). Write calls from watch: ` +
      `${watchWrites} for ${saves} saves.`,
  );
  console.log(`\n${machine()}`);
} finally {
  await probe.close();
  child.kill('SIGINT');
  await new Promise((resolve) => child.on('close', resolve));
  await media.close();
  await cms.close();
  await rm(dir, { recursive: true, force: true });
}

function liveBlog(version) {
  return `---\ntitle: Live blog\n---\n\nUpdate number ${version}: the river is still rising.\n`;
}

async function api(body) {
  const response = await fetch(cms.apiUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (json.status !== 'success') throw new Error(`CMS said: ${json.message}`);
  return json.data;
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

function stats(values) {
  return [fmt(percentile(values, 0.5)), fmt(percentile(values, 0.95)), fmt(Math.max(...values))];
}

async function until(condition, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.\n${output.slice(-2000)}`);
    await sleep(2);
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
