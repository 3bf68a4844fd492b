import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apply, importContent, plan, pull, sync, SyncError, type SyncEvent } from '../../src/index.js';

// cms-sync used from code, against the embedded local CMS: options in, results out, events to
// the reporter, and not one byte on stdout or stderr, nor a process.exit.

const SAMPLE = fileURLToPath(new URL('../../content', import.meta.url));
const WXR = fileURLToPath(new URL('../fixtures/migrate/wordpress', import.meta.url));

let dir: string;
let ARTICLE: string;
const env = { PATH: process.env.PATH, NO_COLOR: '1' };
const writes = { stdout: 0, stderr: 0, exit: 0 };

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-library-'));
  await cp(SAMPLE, path.join(dir, 'content'), { recursive: true });
  ARTICLE = (await readdir(path.join(dir, 'content/articles'))).find((f) => f.endsWith('.md'))!;
  // Counted rather than silenced, so the test runner's own output still shows.
  const count = (stream: 'stdout' | 'stderr') => {
    const write = process[stream].write.bind(process[stream]);
    vi.spyOn(process[stream], 'write').mockImplementation((...args: Parameters<typeof write>) => {
      writes[stream] += 1;
      return write(...args);
    });
  };
  count('stdout');
  count('stderr');
  vi.spyOn(process, 'exit').mockImplementation((() => {
    writes.exit += 1;
  }) as never);
});

afterAll(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

describe('cms-sync as a library', () => {
  it('plans, syncs, applies a saved plan and pulls, reporting through events and never printing', async () => {
    const events: SyncEvent[] = [];
    const reporter = (event: SyncEvent) => events.push(event);

    const planned = await plan({ projectDir: dir, env, reporter });
    expect(planned.exitCode).toBe(0);
    expect(planned.target).toBe('local');
    expect(planned.plan?.counts).toMatchObject({ create: 13, upload: 5 });
    expect(planned.result).toBeUndefined();
    // The phases come first, for a progress display; then what the CLI prints.
    expect(events[0]).toEqual({ type: 'phase', phase: 'config' });
    expect(events.find((e) => e.type !== 'phase')).toMatchObject({ type: 'target', identity: 'local' });
    expect(events.some((e) => e.type === 'plan' && e.plan.counts.create === 13)).toBe(true);

    events.length = 0;
    const synced = await sync({ projectDir: dir, env, reporter });
    expect(synced.exitCode).toBe(0);
    expect(synced.result).toMatchObject({ created: 13, uploaded: 5, failures: [] });
    expect(events.filter((e) => e.type === 'progress').length).toBeGreaterThanOrEqual(18);
    expect(events.at(-1)).toMatchObject({ type: 'applied', result: { created: 13 } });

    const again = await sync({ projectDir: dir, env });
    expect(again.stats.writes).toBe(0);
    expect(again.plan?.counts.unchanged).toBe(13);

    // A saved plan is carried out exactly, and refused once the files changed since.
    const saved = await plan({ projectDir: dir, env, out: 'plan.json' });
    expect(saved.exitCode).toBe(0);
    const file = path.join(dir, 'content/articles', ARTICLE);
    await writeFile(file, `${await readFile(file, 'utf8')}\nOne more line.\n`);
    const stale = await apply('plan.json', { projectDir: dir, env, reporter });
    expect(stale).toMatchObject({ exitCode: 3, stopped: 'stale-plan', result: undefined });
    expect(events.at(-1)).toMatchObject({ type: 'stopped', reason: 'stale-plan', file: 'plan.json' });
    await plan({ projectDir: dir, env, out: 'plan.json' });
    const applied = await apply('plan.json', { projectDir: dir, env });
    expect(applied.exitCode).toBe(0);
    expect(applied.result).toMatchObject({ updated: 1, created: 0 });

    const pulled = await pull({ projectDir: dir, env, out: 'pulled' });
    expect(pulled.written).toBe(13);
    expect(pulled.adopted).toBe(0);
    expect(pulled.failures).toEqual([]);

    expect(writes).toEqual({ stdout: 0, stderr: 0, exit: 0 });
  }, 120_000);

  it('imports an export into content files, and throws a SyncError (never exits) for a missing one', async () => {
    await cp(WXR, path.join(dir, 'exports'), { recursive: true });
    const imported = await importContent({
      projectDir: dir,
      env,
      source: 'wordpress',
      file: 'exports/export.xml',
      out: 'imported',
    });
    expect([...imported.written.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    await expect(
      importContent({ projectDir: dir, env, source: 'ghost', file: 'exports/missing.json' }),
    ).rejects.toBeInstanceOf(SyncError);
    expect(writes).toEqual({ stdout: 0, stderr: 0, exit: 0 });
  }, 60_000);
});
