// A no-op apply over N generated documents (default 10,000), as a ratio to reading and hashing
// the same files in the same run. Usage: node bench/noop-apply.mjs [--docs N]
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateCorpus } from './corpus.mjs';
import { best, fmt, machine, runCli, table, time } from './lib.mjs';

const docs = Number(process.argv[process.argv.indexOf('--docs') + 1]) || 10_000;
const { startLocalCms } = await import('../dist/server/index.js');
const { serveContent } = await import('../dist/media/serve-content.js');

const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-bench-noop-'));
const content = path.join(dir, 'content');
await generateCorpus(content, docs);
const cms = await startLocalCms({ dataDir: path.join(dir, 'cms-data'), port: 0, token: 'bench-token' });
const media = await serveContent(content);
const env = { CMS_BASE_URL: cms.url, CMS_API_TOKEN: 'bench-token', CMS_MEDIA_BASE_URL: media.baseUrl };

try {
  const cold = await time(() => runCli(['--cwd', dir, 'apply', '--json', '--concurrency', '8'], env));
  check(cold.value, 'cold apply');
  const coldDoc = JSON.parse(cold.value.stdout);

  const hashing = await best(3, () => readAndHash(content));
  cms.resetStats();
  const noop = await best(3, () => runCli(['--cwd', dir, 'apply', '--json'], env));
  check(noop.value, 'no-op apply');
  const noopDoc = JSON.parse(noop.value.stdout);
  const server = cms.stats();
  const writesSeen = server.writes;

  console.log(`## No-op apply, ${docs.toLocaleString('en')} documents\n`);
  console.log(table([
    ['measure', 'time', 'ratio to baseline', 'notes'],
    ['baseline: read + sha256 of every file (in-process, best of 3)', fmt(hashing.ms), '1.00', `${hashing.value} files`],
    ['no-op `cms-sync apply` (whole CLI process, best of 3)', fmt(noop.ms), (noop.ms / hashing.ms).toFixed(2), `rendered ${noopDoc.source.rendered}, write calls ${writesSeen} (3 runs), requests ${noopDoc.stats.requests}`],
    ['cold `cms-sync apply` (creates everything)', fmt(cold.ms), (cold.ms / hashing.ms).toFixed(1), `created ${coldDoc.result.created}, uploaded ${coldDoc.result.uploaded}, rendered ${coldDoc.source.rendered}`],
  ]));
  console.log(`\n${machine()}`);
} finally {
  await media.close();
  await cms.close();
  await rm(dir, { recursive: true, force: true });
}

function check(result, what) {
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}:\n${result.stderr.slice(0, 2000)}`);
}

async function readAndHash(root) {
  let files = 0;
  const walk = async (folder) => {
    const entries = await readdir(folder, { withFileTypes: true });
    await Promise.all(entries.map(async (e) => {
      const p = path.join(folder, e.name);
      if (e.isDirectory()) return walk(p);
      createHash('sha256').update(await readFile(p)).digest('hex');
      files += 1;
    }));
  };
  await walk(root);
  return files;
}

