import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { SyncOptions } from '../../src/sync/options.js';

const seen: SyncOptions[] = [];
vi.mock('../../src/sync/run-sync.js', () => ({
  syncOnce: async (_session: unknown, flags: SyncOptions) => {
    seen.push(flags);
    return {
      exitCode: 0,
      problems: [],
      plan: { changes: [], uploads: [], problems: [] },
      result: undefined,
      source: { documents: 1, rendered: 0 },
    };
  },
}));
const { watchPasses } = await import('../../src/watch/run-pass.js');
const { createRepeatFilter } = await import('../../src/watch/repeat-filter.js');

describe('the passes of a watch', () => {
  it('prune only on the first sync and on passes holding a reported removal', async () => {
    const stdout = new PassThrough();
    const session = {
      config: { projectDir: '/p', contentDir: '/p/content' },
      client: { stats: { writes: 0 } },
      store: { state: { records: {} } },
    };
    const io = {
      stdout,
      stderr: new PassThrough(),
      env: {},
      cwd: '/p',
      interrupted: new Promise<void>(() => {}),
    };
    const pass = watchPasses({
      session: session as never,
      flags: { prune: true },
      io,
      repeats: createRepeatFilter(),
    });

    await pass(new Map(), { retryInMs: 2000 });
    await pass(new Map([['articles/b.md', 'change']]), { retryInMs: 2000 });
    await pass(
      new Map([
        ['articles/b.md', 'change'],
        ['articles/gone.md', 'unlink'],
      ]),
      { retryInMs: 2000 },
    );
    expect(seen.map((f) => f.prune)).toEqual([true, false, true]);
    // The engine gets what to sync, never how to print it: the pass prints its own line.
    expect(seen.every((f) => !('quiet' in f) && !('json' in f))).toBe(true);
    const lines = String(stdout.read()).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d first sync → no changes \(0 writes, \d+ ms\)$/);
  });
});
