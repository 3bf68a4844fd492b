import { stat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Command, CommanderError } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { registerServe } from '../../src/cli/serve.js';
import { ensureLocalToken, readLocalToken } from '../../src/server/index.js';
import { call, removeDir, tempDir } from './helpers.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map(removeDir));
});

/**
 * Runs `cms-sync [--cwd] serve ...` in-process with only the serve command registered, so this
 * test does not depend on the other commands. Resolves once the startup lines are out.
 */
async function runServe(args: string[], env: NodeJS.ProcessEnv = {}) {
  const cwd = await tempDir('cms-serve-cli-');
  dirs.push(cwd);
  let stdout = '';
  let stderr = '';
  const out = new PassThrough().on('data', (c: Buffer) => (stdout += c.toString()));
  const err = new PassThrough().on('data', (c: Buffer) => (stderr += c.toString()));
  let stop: () => void = () => {};
  const io: CliIO = {
    stdout: out,
    stderr: err,
    env,
    cwd,
    interrupted: new Promise<void>((resolve) => (stop = resolve)),
  };
  const program = new Command('cms-sync')
    .option('--cwd <dir>')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  registerServe(program, io, () => {});
  const done = program.parseAsync(args, { from: 'user' }).then(
    () => 0,
    (error: unknown) => (error instanceof CommanderError ? error.exitCode : Promise.reject(error)),
  );
  const started = Promise.race([
    done,
    new Promise<void>((resolve) => out.on('data', () => stdout.includes('Press Ctrl-C') && resolve())),
  ]);
  await started;
  const output = () => ({ stdout, stderr });
  return { cwd, done, stop, output };
}

describe('cms-sync serve', () => {
  it('generates a token once into <data>/token (0600), prints where it lives, never the token', async () => {
    const run = await runServe(['serve', '--port', '0']);
    const tokenFile = join(run.cwd, '.cms-sync', 'local-cms', 'token');
    const token = (await readFile(tokenFile, 'utf8')).trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    const lines = run.output().stdout.split('\n');
    expect(lines[0]).toMatch(
      /^Local CMS listening on http:\/\/127\.0\.0\.1:(\d+) \(API: POST http:\/\/127\.0\.0\.1:\1\/functions\/api\)$/,
    );
    expect(lines.slice(1)).toEqual([
      'Token: kept in .cms-sync/local-cms/token (mode 0600; other cms-sync commands read it there)',
      'Data: .cms-sync/local-cms',
      expect.stringMatching(/^See what it holds: http:\/\/127\.0\.0\.1:\d+\/$/),
      'Press Ctrl-C to stop.',
      '',
    ]);
    expect(run.output().stdout).not.toContain(token);

    const apiUrl = /API: POST (\S+)\)/.exec(lines[0]!)![1]!;
    expect((await call({ apiUrl }, { resource: 'article', action: 'get' }, { token })).status).toBe(200);
    expect(await readLocalToken(join(run.cwd, '.cms-sync', 'local-cms'))).toEqual({ token, tokenFile });

    run.stop();
    expect(await run.done).toBe(0);
    expect(run.output().stdout.endsWith('Local CMS stopped.\n')).toBe(true);
    // Stopped means stopped: the port no longer answers.
    await expect(fetch(apiUrl, { method: 'POST' })).rejects.toThrow();
  });

  it('takes the token from CMS_API_TOKEN, and --data relative to --cwd', async () => {
    const base = await tempDir('cms-serve-base-');
    dirs.push(base);
    const run = await runServe(
      ['--cwd', base, 'serve', '--port', '0', '--data', 'store', '--rps', '5', '--seed', '3'],
      { CMS_API_TOKEN: 'env-token-123' },
    );
    const { stdout } = run.output();
    expect(stdout).toContain('\nToken: the one in env CMS_API_TOKEN\nData: store\n');
    expect(stdout).toContain('\nTest aids on: --rps 5, --seed 3\n');
    expect(stdout).not.toContain('env-token-123');
    const apiUrl = /API: POST (\S+)\)/.exec(stdout)![1]!;
    expect(
      (await call({ apiUrl }, { resource: 'article', action: 'get' }, { token: 'env-token-123' })).status,
    ).toBe(200);
    expect(await readLocalToken(join(base, 'store'))).toBeUndefined();
    run.stop();
    expect(await run.done).toBe(0);
    expect((await stat(join(base, 'store', 'records', 'article'))).isDirectory()).toBe(true);
  });

  it('prefers --token over the environment', async () => {
    const run = await runServe(['serve', '--port', '0', '--token', 'flag-token'], {
      CMS_API_TOKEN: 'env-token',
    });
    const apiUrl = /API: POST (\S+)\)/.exec(run.output().stdout)![1]!;
    expect(run.output().stdout).toContain('Token: the one given with --token\n');
    expect(
      (await call({ apiUrl }, { resource: 'article', action: 'get' }, { token: 'env-token' })).status,
    ).toBe(401);
    expect(
      (await call({ apiUrl }, { resource: 'article', action: 'get' }, { token: 'flag-token' })).status,
    ).toBe(200);
    run.stop();
    await run.done;
  });

  it('documents the test aids and an example in --help', async () => {
    const run = await runServe(['serve', '--help']);
    expect(await run.done).toBe(0);
    const help = run.output().stdout;
    for (const text of [
      '--rps <n>',
      '--latency <ms>',
      '--fail <p>',
      '--drop <p>',
      '--seed <n>',
      '--normalize-html',
      '--api-disabled',
      'Test aids',
      'GET /__cms/stats',
      '$ cms-sync serve --port 0',
    ]) {
      expect(help).toContain(text);
    }
  });

  it('documents --allow-host, --upload-allow/--upload-deny and --max-connections; applies the lists', async () => {
    const help = await runServe(['serve', '--help']);
    expect(await help.done).toBe(0);
    const flags = [
      '--allow-host <host>',
      '--upload-allow <hosts>',
      '--upload-deny <hosts>',
      '--max-connections <n>',
    ];
    for (const text of [...flags, 'CMS_SYNC_UPLOAD_DENY']) expect(help.output().stdout).toContain(text);
    const args = ['serve', '--port', '0', '--token', 'flag-token', '--allow-host', 'cms.test'];
    args.push('--upload-allow', 'a.test,b.test');
    const run = await runServe(args, { CMS_SYNC_UPLOAD_DENY: 'b.test' });
    const url = /listening on (http:\/\/[^ ]+)/.exec(run.output().stdout)![1]!;
    const upload = (host: string) =>
      call(
        { apiUrl: `${url}/functions/api` },
        { resource: 'media', action: 'upload_from_url', data: { url: `http://${host}/x.png` } },
        { token: 'flag-token' },
      );
    const notAllowed = "not in this server's upload allow list (a.test, b.test)";
    expect((await upload('c.test')).body).toMatchObject({ message: expect.stringContaining(notAllowed) });
    const denied = 'upload deny list: b.test';
    expect((await upload('b.test')).body).toMatchObject({ message: expect.stringContaining(denied) });
    const { request } = await import('node:http');
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const headers = { host: `cms.test:${new URL(url).port}` };
      request(`${url}/nothing`, { headers }, (res) => resolve(res.resume().statusCode))
        .on('error', reject)
        .end();
    });
    expect(status).toBe(404);
    run.stop();
    await run.done;
  });

  it('rejects a bad flag value with a clear message and exit code 1', async () => {
    const run = await runServe(['serve', '--fail', '1.5']);
    expect(await run.done).toBe(1);
    expect(run.output().stderr).toContain(
      "option '--fail <p>' argument '1.5' is invalid. --fail must be a probability from 0 to 1, got \"1.5\".",
    );
  });
});

describe('ensureLocalToken', () => {
  it('creates a 0600 token once and returns the same one afterwards, also when raced', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const data = join(dir, 'nested', 'local-cms');
    const results = await Promise.all(Array.from({ length: 5 }, () => ensureLocalToken(data)));
    expect(new Set(results.map((r) => r.token)).size).toBe(1);
    expect(results[0]!.tokenFile).toBe(join(data, 'token'));
    expect((await stat(join(data, 'token'))).mode & 0o777).toBe(0o600);
    expect(await ensureLocalToken(data)).toEqual(results[0]);
  });
});
