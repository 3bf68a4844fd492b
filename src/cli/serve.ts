import { relative, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_DATA_DIR } from '../server/data-dir.js';
import type { LocalCmsOptions } from '../server/index.js';
import { writeLine, type CliIO, type SetExit } from './io.js';
import { checkToken, readToken } from '../sync/token.js';

interface ServeFlags {
  port: number;
  host: string;
  data?: string;
  token?: string;
  tokenFile?: string;
  apiDisabled?: boolean;
  rps?: number;
  latency?: number;
  fail?: number;
  drop?: number;
  seed?: number;
  normalizeHtml?: boolean;
  allowHost: string[];
  uploadAllow: string[];
  uploadDeny: string[];
  maxConnections?: number;
}

const HELP = `
The local CMS implements the CMS API (POST /functions/api) with its data on disk, and shows
what it holds at / (read-only, no token). Other cms-sync commands use it when no
CMS_BASE_URL is set.

Token: --token-file FILE, else env CMS_API_TOKEN (or CMS_API_TOKEN_FILE), else one generated once
and kept in <data>/token (0600). --token works too, but any user of the machine sees it in \`ps\`.

Safety: requests must name this server in their Host header (127.0.0.1, localhost, [::1] or
the --host address, with the port); --allow-host adds names ('*' turns the check off).
upload_from_url may fetch from any http(s) host unless --upload-allow / --upload-deny (or env
CMS_SYNC_UPLOAD_ALLOW / CMS_SYNC_UPLOAD_DENY, comma-separated) restrict it: host names as in
the URL, or *.example.com; deny wins, and a non-empty allow list refuses every other host.

Test aids (for exercising clients; not for production use):
  --rps N           at most N API requests per second; beyond that 429 with Retry-After
  --latency MS      wait MS milliseconds before handling each API request
  --fail P          with probability P, answer 500 before applying anything
  --drop P          with probability P, apply a write durably, then cut the connection unanswered
  --seed N          seed for --fail/--drop draws, so a run can be repeated exactly
  --normalize-html  store body/content with whitespace between tags collapsed
  GET /__cms/stats, POST /__cms/stats/reset   request and write counters as JSON (token required)

Examples:
  $ cms-sync serve
  $ cms-sync serve --port 0 --data /tmp/cms --rps 5 --fail 0.1 --seed 42
`;

export function registerServe(program: Command, io: CliIO, _setExit: SetExit): void {
  program
    .command('serve')
    .description('run the local CMS (the embedded default target), with its data on disk')
    .option('--port <port>', 'port to listen on (0 = any free port)', integer('--port', 0, 65535), 4321)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--data <dir>', `data directory (default: ${DEFAULT_DATA_DIR} in the project directory)`)
    .option(
      '--token-file <file>',
      'read the API token to require from this file (default: env CMS_API_TOKEN)',
    )
    .option('--token <token>', 'API token to require; every user sees it in `ps`: prefer --token-file')
    .option('--api-disabled', 'refuse every API request with 403, as when the API is off in the dashboard')
    .option('--rps <n>', 'test aid: API requests per second before 429', positive('--rps'))
    .option(
      '--latency <ms>',
      'test aid: delay before handling each API request',
      integer('--latency', 0, 600_000),
    )
    .option('--fail <p>', 'test aid: probability of a 500 before anything is applied', probability('--fail'))
    .option(
      '--drop <p>',
      'test aid: probability that an applied write gets no response',
      probability('--drop'),
    )
    .option(
      '--seed <n>',
      'test aid: seed for --fail/--drop, for reproducible runs',
      integer('--seed', -(2 ** 31), 2 ** 32),
    )
    .option('--normalize-html', 'store body/content with whitespace between tags collapsed, as real CMSs do')
    .option(
      '--allow-host <host>',
      'another name clients may use in the Host header (repeatable)',
      collect,
      [],
    )
    .option(
      '--upload-allow <hosts>',
      'upload_from_url fetches only from these hosts (comma-separated)',
      collect,
      [],
    )
    .option(
      '--upload-deny <hosts>',
      'upload_from_url never fetches from these hosts (comma-separated)',
      collect,
      [],
    )
    .option(
      '--max-connections <n>',
      'connections open at once (default 256)',
      integer('--max-connections', 1, 100_000),
    )
    .addHelpText('after', HELP)
    .action(async (flags: ServeFlags) => {
      const cwd = resolve(io.cwd, (program.opts() as { cwd?: string }).cwd ?? '.');
      const dataDir = resolve(cwd, flags.data ?? DEFAULT_DATA_DIR);
      const token =
        flags.token !== undefined
          ? checkToken(flags.token, 'The --token value')
          : await readToken({ env: io.env, tokenEnv: 'CMS_API_TOKEN', tokenFile: flags.tokenFile, cwd });
      const options: LocalCmsOptions = {
        dataDir,
        port: flags.port,
        host: flags.host,
        token,
        apiDisabled: flags.apiDisabled ?? false,
        rps: flags.rps,
        latencyMs: flags.latency,
        failRate: flags.fail,
        dropRate: flags.drop,
        seed: flags.seed,
        normalizeHtml: flags.normalizeHtml ?? false,
        allowedHosts: flags.allowHost,
        uploadHosts: {
          allow: hostList(flags.uploadAllow, io.env.CMS_SYNC_UPLOAD_ALLOW),
          deny: hostList(flags.uploadDeny, io.env.CMS_SYNC_UPLOAD_DENY),
        },
        maxConnections: flags.maxConnections,
        log: (line) => writeLine(io.stderr, line),
        // Record pages link the file each record came from, as this project's state says.
        sourceProject: {
          dir: cwd,
          contentDir: resolve(cwd, 'content'),
          stateFiles: [resolve(dataDir, 'state', 'state.json'), resolve(cwd, '.cms-sync', 'state.json')],
        },
      };
      // The server loads only for `serve`, not for every command.
      const { startLocalCms } = await import('../server/index.js');
      const cms = await startLocalCms(options);
      const shownDir = relative(cwd, dataDir).startsWith('..') ? dataDir : relative(cwd, dataDir) || '.';
      const tokenSource = cms.tokenFile
        ? `kept in ${relative(cwd, cms.tokenFile).startsWith('..') ? cms.tokenFile : relative(cwd, cms.tokenFile)} ` +
          `(mode 0600; other cms-sync commands read it there)`
        : flags.token
          ? 'the one given with --token'
          : (flags.tokenFile ?? io.env.CMS_API_TOKEN_FILE)
            ? `the one in ${flags.tokenFile ?? io.env.CMS_API_TOKEN_FILE}`
            : 'the one in env CMS_API_TOKEN';
      writeLine(io.stdout, `Local CMS listening on ${cms.url} (API: POST ${cms.apiUrl})`);
      writeLine(io.stdout, `Token: ${tokenSource}`);
      writeLine(io.stdout, `Data: ${shownDir}`);
      writeLine(io.stdout, `See what it holds: ${cms.url}/`);
      const aids = testAids(flags);
      if (aids) writeLine(io.stdout, `Test aids on: ${aids}`);
      if (flags.apiDisabled)
        writeLine(io.stdout, 'The API is disabled (--api-disabled): every API request gets 403.');
      writeLine(io.stdout, 'Press Ctrl-C to stop.');
      await io.interrupted;
      await cms.close();
      writeLine(io.stdout, 'Local CMS stopped.');
    });
}

function testAids(flags: ServeFlags): string {
  const on: string[] = [];
  if (flags.rps !== undefined) on.push(`--rps ${flags.rps}`);
  if (flags.latency !== undefined) on.push(`--latency ${flags.latency}`);
  if (flags.fail !== undefined) on.push(`--fail ${flags.fail}`);
  if (flags.drop !== undefined) on.push(`--drop ${flags.drop}`);
  if (flags.seed !== undefined) on.push(`--seed ${flags.seed}`);
  if (flags.normalizeHtml) on.push('--normalize-html');
  return on.join(', ');
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Flags win over the environment; both take comma- or space-separated host names. */
function hostList(flags: string[], env: string | undefined): string[] {
  const values = flags.length > 0 ? flags : env ? [env] : [];
  return values.flatMap((value) => value.split(/[\s,]+/)).filter((entry) => entry !== '');
}

function integer(flag: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || n < min || n > max)
      throw new InvalidArgumentError(`${flag} must be an integer from ${min} to ${max}, got "${value}".`);
    return n;
  };
}

function positive(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
      throw new InvalidArgumentError(`${flag} must be a number > 0, got "${value}".`);
    return n;
  };
}

function probability(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
      throw new InvalidArgumentError(`${flag} must be a probability from 0 to 1, got "${value}".`);
    return n;
  };
}
