// Watch at scale (issue 20 item 5): over N generated documents (default 10,000 of ~9 KiB), kept in a
// directory between runs (generated and applied cold once, then reused), in one run: a no-op
// `apply` of the project (spawn to exit, peak RSS), then `cms-sync watch` on the same project:
// its start-up (spawn to "Watching content/", i.e. first sync done and watching), the first sync's
// own ms as its line says, save-to-edit p50/p95 over --saves saves of one file (save to the CMS
// receiving the edit call, the server's writeLog time), and watch's peak RSS over the whole run.
// Last, the file watcher alone as watch runs it (in a worker thread of this process): time to ready over
// the same tree, and what one save costs over the next 3 s (chokidar lists the saved file's folder again):
// this thread's busy time, and the CPU of the whole process (the watcher's thread included).
// The local CMS runs in this process, so the CLI's figures are the CLI's alone.
// Usage: node bench/watch-scale.mjs [--docs N] [--kb K] [--saves N] [--dir path] [--lines] (100,000 takes minutes)
// --lines: print what watch printed (one line per pass), after the table's measures are taken.
// A project applied by other means is taken as kept when --dir holds `bench-made` (empty) and `bench-ready`
// (`{"port": P}`, P the port of the local CMS it was applied to: `target` in the first line of
// .cms-sync/state.jsonl); the bench edits one of its files and applies again. Without --docs, the
// documents of a kept project are its articles, counted.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { articleBody, generateCorpus } from './corpus.mjs';
import { BIN, fmt, machine, runCli, settle, table, time } from './lib.mjs';

const arg = (name, fallback) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback;
/** The documents of a project kept with --dir, when --docs does not say: its articles. */
const keptDocs = (folder) =>
  existsSync(path.join(folder, 'bench-ready'))
    ? readdirSync(path.join(folder, 'content', 'articles')).filter((name) => name.endsWith('.md')).length
    : undefined;
const docs = Number(
  arg('--docs', undefined) ??
    (process.argv.includes('--dir') ? keptDocs(path.resolve(arg('--dir'))) : undefined) ??
    10_000,
);
const kb = Number(arg('--kb', 9));
const saves = Number(arg('--saves', 20));
const dir = path.resolve(arg('--dir', path.join(tmpdir(), `cms-sync-bench-watch-scale-${docs}x${kb}k`)));
const { startLocalCms } = await import('../dist/server/index.js');
const { serveContent } = await import('../dist/media/serve-content.js');
const { watchContentOffThread } = await import('../dist/watch/watch-off-thread.js');

const TOKEN = 'bench-token';
const content = path.join(dir, 'content');
const ready = path.join(dir, 'bench-ready');
const made = path.join(dir, 'bench-made');
const setup = {};
if (!existsSync(ready)) {
  // The folder is emptied before the corpus is generated: only one this bench made, never a project of
  // someone's that --dir happens to name.
  if (existsSync(dir) && readdirSync(dir).length > 0 && !existsSync(made))
    throw new Error(`${dir} holds files this bench did not make: name an empty or new folder with --dir.`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(made, '');
  setup.generated = await time(() => generateCorpus(content, docs, { kb }));
  await writeFile(
    path.join(dir, 'sync.config.ts'),
    "export default {\n  contentDir: 'content',\n  media: { defaultSize: 'medium' },\n" +
      '  sync: { maxDeletes: 20 },\n};\n',
  );
}
// State belongs to the CMS's URL: a kept project meets its CMS on the port it was first applied on.
const port = existsSync(ready) ? JSON.parse(readFileSync(ready, 'utf8')).port : 0;
const cms = await startLocalCms({ dataDir: path.join(dir, 'cms-data'), port, token: TOKEN });
const media = await serveContent(content);
const env = { CMS_BASE_URL: cms.url, CMS_API_TOKEN: TOKEN, CMS_MEDIA_BASE_URL: media.baseUrl };
const apply = async (...flags) => {
  const result = await runCli(['--cwd', dir, 'apply', '--json', ...flags], env, { measureRss: true });
  if (result.code !== 0) throw new Error(`apply exited ${result.code}:\n${result.stderr.slice(0, 2000)}`);
  return { ...result, doc: JSON.parse(result.stdout) };
};
const mib = (kb) => `${(kb / 1024).toFixed(0)} MiB`;
const target = path.join(content, 'articles', `story-${Math.floor(docs / 2)}.md`);
const edit = (version) =>
  writeFile(
    target,
    `---\ntitle: Story ${Math.floor(docs / 2)}, edit ${version} at ${Date.now()}\ncategory: politics\n---\n\n` +
      articleBody(Math.floor(docs / 2), kb),
  );

try {
  if (!existsSync(ready)) {
    setup.cold = await time(() => apply('--concurrency', '8'));
    await writeFile(ready, JSON.stringify({ port: Number(new URL(cms.url).port), at: new Date() }));
  }
  // The file the saves touch is edited once here so that the no-op below is one.
  await edit('setup');
  await apply();
  await settle();
  cms.resetStats();
  const noop = await time(() => apply());
  const noopCalls = cms.stats();

  await settle();
  cms.resetStats();
  const watch = startWatch();
  const started = performance.now();
  await watch.until(() => watch.output.includes('Watching content/'), 30 * 60_000, 'watch to start');
  const startup = performance.now() - started;
  const firstSync = /first sync → .*?(\d+) ms\)/.exec(watch.output);
  const startCalls = cms.stats();

  const latencies = [];
  for (let i = 1; i <= saves; i += 1) {
    const writesBefore = cms.stats().writeLog.length;
    const savedAt = Date.now();
    await edit(i);
    await watch.until(() => cms.stats().writeLog.length > writesBefore, 60_000, `save ${i} to reach the CMS`);
    latencies.push(cms.stats().writeLog[writesBefore].at - savedAt);
    // Saves a writer makes seconds apart, not a burst: each is its own sync.
    await sleep(300);
  }
  const passMs = [...watch.output.matchAll(/articles\/story-\d+\.md → .*?(\d+) ms\)/g)].map((m) =>
    Number(m[1]),
  );
  const { peakRssKb } = await watch.stop();
  if (process.argv.includes('--lines')) console.log(watch.output);

  await settle();
  const alone = await time(async () => {
    const watcher = await watchContentOffThread({
      contentDir: content,
      onChange: () => {},
      onError: () => {},
    });
    return watcher;
  });
  await alone.value.close();
  // What one save costs: this thread's busy time (the thread of every pass, in watch) and the CPU of the
  // whole process over the 3 s after it, with nothing else running in this process but the idle local CMS.
  let seen = 0;
  const counting = await watchContentOffThread({
    contentDir: content,
    onChange: () => (seen += 1),
    onError: () => {},
  });
  await sleep(500);
  const idle = performance.eventLoopUtilization();
  const cpuBefore = process.cpuUsage();
  await edit('watcher alone');
  await sleep(3000);
  const afterSave = performance.eventLoopUtilization(idle);
  const cpu = process.cpuUsage(cpuBefore);
  await counting.close();

  console.log(`## Watch at scale, ${docs.toLocaleString('en')} documents of ~${kb} KiB\n`);
  console.log(
    table([
      ['measure', 'time', 'ratio to no-op', 'peak RSS', 'notes'],
      [
        'no-op `apply` (spawn to exit)',
        fmt(noop.ms),
        '1.00',
        mib(noop.value.peakRssKb),
        `${noopCalls.requests} calls; files read ${noop.value.doc.source.hashed}`,
      ],
      [
        '`watch` start-up (spawn to "Watching content/")',
        fmt(startup),
        (startup / noop.ms).toFixed(2),
        '',
        `first sync ${firstSync ? fmt(Number(firstSync[1])) : '?'} by its line; ${startCalls.requests} calls`,
      ],
      [
        `\`watch\` save -> edit received, p50 / p95 / max of ${saves}`,
        `${fmt(percentile(latencies, 0.5))} / ${fmt(percentile(latencies, 0.95))} / ${fmt(Math.max(...latencies))}`,
        '',
        '',
        `pass p50 ${fmt(percentile(passMs, 0.5))} by its line`,
      ],
      ['`watch` peak RSS, whole run', '', '', mib(peakRssKb), ''],
      ['file watcher alone (its worker thread, this process): to ready', fmt(alone.ms), '', '', ''],
      [
        'file watcher alone: main thread busy in the 3 s after one save',
        fmt(afterSave.active),
        '',
        '',
        `process CPU ${fmt((cpu.user + cpu.system) / 1000)}; ${seen} change${seen === 1 ? '' : 's'} reported`,
      ],
    ]),
  );
  if (setup.cold)
    console.log(
      `\nSet up in this run: corpus generated in ${fmt(setup.generated.ms)}, cold apply ${fmt(setup.cold.ms)} ` +
        `(peak RSS ${mib(setup.cold.value.peakRssKb)}). Kept in ${dir} for the next run.`,
    );
  console.log(`\n${machine()}`);
} finally {
  await media.close();
  await cms.close();
}

/** `cms-sync watch` under GNU time (its peak RSS is read when it exits); output collected. */
function startWatch() {
  const rssFile = path.join(tmpdir(), `cms-sync-rss-${process.pid}-${Date.now()}`);
  const child = spawn(
    '/usr/bin/time',
    ['-f', '%M', '-o', rssFile, process.execPath, BIN, '--cwd', dir, 'watch'],
    {
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so that SIGINT reaches the CLI: GNU time ignores it and passes nothing on.
      detached: true,
    },
  );
  const run = { output: '' };
  child.stdout.on('data', (c) => (run.output += c));
  child.stderr.on('data', (c) => (run.output += c));
  const closed = new Promise((resolve) => child.on('close', resolve));
  run.until = async (condition, timeoutMs, what) => {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline)
        throw new Error(`Timed out waiting for ${what}.\n${run.output.slice(-2000)}`);
      await sleep(2);
    }
  };
  run.stop = async () => {
    // Ctrl-C as a terminal sends it: to the group. The CLI stops after the pass in flight.
    process.kill(-child.pid, 'SIGINT');
    await closed;
    const peakRssKb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').at(-1));
    rmSync(rssFile, { force: true });
    return { peakRssKb };
  };
  return run;
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
