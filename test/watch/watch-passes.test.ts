import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { SyncOptions } from '../../src/sync/options.js';

const seen: SyncOptions[] = [];
/** The files each pass was told it may read alone (a narrowed pass's saves). */
const filesSeen: Array<readonly string[] | undefined> = [];
/** The changes of the next passes' plans (none when empty). */
const plans: unknown[][] = [];
vi.mock('../../src/sync/run-sync.js', () => ({
  syncOnce: async (
    _session: unknown,
    flags: SyncOptions,
    reporter: (event: unknown) => void,
    options?: { files?: readonly string[] },
  ) => {
    seen.push(flags);
    filesSeen.push(options?.files);
    const plan = { changes: plans.shift() ?? [], uploads: [], problems: [] };
    reporter({ type: 'plan', plan, skipped: 0 });
    return {
      exitCode: 0,
      problems: [],
      plan,
      result: undefined,
      source: { documents: 1, rendered: 0 },
    };
  },
}));
const { watchPasses } = await import('../../src/watch/run-pass.js');
const { createRepeatFilter } = await import('../../src/watch/repeat-filter.js');

function setUp(flags: SyncOptions = {}) {
  const stdout = new PassThrough();
  const session = {
    config: { projectDir: '/p', contentDir: '/p/content' },
    client: { stats: { writes: 0 } },
    target: { identity: 'https://cms.example' },
    store: { state: { records: new Map([['article/b', { id: 2, file: 'content/articles/b.md' }]]) } },
  };
  const io = {
    stdout,
    stderr: new PassThrough(),
    env: {},
    cwd: '/p',
    interrupted: new Promise<void>(() => {}),
  };
  const pass = watchPasses({ session: session as never, flags, io, repeats: createRepeatFilter() });
  return {
    pass,
    lines: () =>
      String(stdout.read() ?? '')
        .trimEnd()
        .split('\n'),
  };
}

describe('the passes of a watch', () => {
  it('reads only the saved files on a save, and everything again when that plan is more than edits', async () => {
    seen.length = 0;
    filesSeen.length = 0;
    const { pass, lines } = setUp();
    await pass(new Map(), { retryInMs: 2000 });
    const base = { key: 'article/b', resource: 'article', file: 'content/articles/b.md', id: 2 };
    plans.push([{ ...base, action: 'update', fields: ['title'] }]);
    await pass(new Map([['articles/b.md', 'change']]), { retryInMs: 2000 });
    // A save that took another record's slug: the narrowed plan creates, which a whole pass must judge.
    plans.push([{ ...base, key: 'article/c', action: 'create', fields: ['title'] }]);
    await pass(new Map([['articles/b.md', 'change']]), { retryInMs: 2000 });
    await pass(new Map([['articles/new.md', 'add']]), { retryInMs: 2000 });

    expect(seen.map((f) => f.only)).toEqual([
      undefined,
      ['articles/b.md'],
      ['articles/b.md'],
      undefined,
      undefined,
    ]);
    // A narrowed pass reads the saved files without listing content/ (they were there before).
    expect(filesSeen).toEqual([undefined, ['articles/b.md'], ['articles/b.md'], undefined, undefined]);
    // The narrowed plan that went too far was refused before any write, and printed no line.
    expect(await seen[2]!.confirm!({} as never, { identity: 'local', local: true })).toBe(false);
    expect(await seen[1]!.confirm!({} as never, { identity: 'local', local: true })).toBe(true);
    expect(lines().map((l) => l.replace(/^\S+ /, '').replace(/\d+ ms/, 'N ms'))).toEqual([
      'first sync → no changes (0 writes, N ms)',
      'articles/b.md → ~ article/b (0 writes, N ms)',
      'articles/b.md → no changes (0 writes, N ms)',
      'articles/new.md → no changes (0 writes, N ms)',
    ]);
  });

  it('prune only on the first sync and on passes holding a reported removal', async () => {
    seen.length = 0;
    const { pass, lines } = setUp({ prune: true });
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
    expect(lines()[0]).toMatch(/^\d\d:\d\d:\d\d first sync → no changes \(0 writes, \d+ ms\)$/);
  });
});
