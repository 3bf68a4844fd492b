import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSyncLoop, retryDelayMs, type Batch, type PassOutcome } from '../../src/watch/sync-loop.js';

/** A pass the test finishes by hand, to see what happens while one is in flight. */
function controlledPasses() {
  const batches: Batch[] = [];
  const finishers: Array<(outcome: PassOutcome) => void> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const runPass = (batch: Batch) => {
    batches.push(batch);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    return new Promise<PassOutcome>((resolve) =>
      finishers.push((outcome) => {
        inFlight -= 1;
        resolve(outcome);
      }),
    );
  };
  return {
    batches,
    runPass,
    finish: async (outcome: PassOutcome = 'ok') => {
      finishers.shift()!(outcome);
      await vi.advanceTimersByTimeAsync(0);
    },
    get maxInFlight() {
      return maxInFlight;
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the watch sync loop', () => {
  it('waits for a quiet moment, then syncs every file saved in it in one pass', async () => {
    const passes = controlledPasses();
    const loop = createSyncLoop({ runPass: passes.runPass, onFatal: () => {}, debounceMs: 50 });
    loop.notify({ file: 'articles/a.md', kind: 'change' });
    await vi.advanceTimersByTimeAsync(30);
    loop.notify({ file: 'images/map.png', kind: 'change' });
    await vi.advanceTimersByTimeAsync(30);
    expect(passes.batches).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(25);
    expect(passes.batches.map((b) => [...b.keys()])).toEqual([['articles/a.md', 'images/map.png']]);
  });

  it('still syncs when saves never pause, after maxWaitMs', async () => {
    const passes = controlledPasses();
    const loop = createSyncLoop({
      runPass: passes.runPass,
      onFatal: () => {},
      debounceMs: 50,
      maxWaitMs: 200,
    });
    for (let t = 0; t < 300; t += 20) {
      loop.notify({ file: 'articles/a.md', kind: 'change' });
      await vi.advanceTimersByTimeAsync(20);
    }
    expect(passes.batches.length).toBe(1);
  });

  it('runs one pass at a time and merges what arrives meanwhile into the next one', async () => {
    const passes = controlledPasses();
    const loop = createSyncLoop({ runPass: passes.runPass, onFatal: () => {}, debounceMs: 50 });
    loop.notify({ file: 'articles/a.md', kind: 'change' });
    await vi.advanceTimersByTimeAsync(50);
    expect(passes.batches).toHaveLength(1);
    for (let i = 0; i < 100; i += 1) loop.notify({ file: 'articles/a.md', kind: 'change' });
    loop.notify({ file: 'articles/old.md', kind: 'unlink' });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(passes.batches).toHaveLength(1); // the first is still running
    await passes.finish();
    await vi.advanceTimersByTimeAsync(50);
    expect(passes.batches).toHaveLength(2);
    expect([...passes.batches[1]!]).toEqual([
      ['articles/a.md', 'change'],
      ['articles/old.md', 'unlink'],
    ]);
    await passes.finish();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(passes.batches).toHaveLength(2);
    expect(passes.maxInFlight).toBe(1);
  });

  it('retries a failed pass on a timer, with its files, backing off until one succeeds', async () => {
    const passes = controlledPasses();
    const loop = createSyncLoop({ runPass: passes.runPass, onFatal: () => {}, debounceMs: 50 });
    loop.notify({ file: 'articles/a.md', kind: 'change' });
    await vi.advanceTimersByTimeAsync(50);
    await passes.finish('retry');
    await vi.advanceTimersByTimeAsync(1_999);
    expect(passes.batches).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes.batches).toHaveLength(2);
    expect([...passes.batches[1]!.keys()]).toEqual(['articles/a.md']);
    await passes.finish('retry');
    await vi.advanceTimersByTimeAsync(3_999);
    expect(passes.batches).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes.batches).toHaveLength(3);
    await passes.finish('ok');
    await vi.advanceTimersByTimeAsync(120_000);
    expect(passes.batches).toHaveLength(3);
  });

  it('does not wait for the retry timer when a file is saved again', async () => {
    const passes = controlledPasses();
    const loop = createSyncLoop({ runPass: passes.runPass, onFatal: () => {}, debounceMs: 50 });
    await Promise.all([loop.runNow(), passes.finish('retry')]);
    loop.notify({ file: 'articles/a.md', kind: 'change' });
    await vi.advanceTimersByTimeAsync(50);
    expect(passes.batches).toHaveLength(2);
    await passes.finish('ok');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(passes.batches).toHaveLength(2);
  });

  it('stops on a fatal pass and calls onFatal', async () => {
    const passes = controlledPasses();
    const onFatal = vi.fn();
    const loop = createSyncLoop({ runPass: passes.runPass, onFatal, debounceMs: 50 });
    loop.notify({ file: 'articles/a.md', kind: 'change' });
    await vi.advanceTimersByTimeAsync(50);
    await passes.finish('fatal');
    expect(onFatal).toHaveBeenCalledOnce();
    loop.notify({ file: 'articles/a.md', kind: 'change' });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(passes.batches).toHaveLength(1);
  });

  it('stop() lets the pass in flight finish and starts no other', async () => {
    const passes = controlledPasses();
    const loop = createSyncLoop({ runPass: passes.runPass, onFatal: () => {}, debounceMs: 50 });
    loop.notify({ file: 'articles/a.md', kind: 'change' });
    await vi.advanceTimersByTimeAsync(50);
    loop.notify({ file: 'articles/b.md', kind: 'change' });
    let stopped = false;
    void loop.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(100);
    expect(stopped).toBe(false);
    await passes.finish();
    expect(stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(passes.batches).toHaveLength(1);
  });

  it('backs off 2 s, 4 s, 8 s … and never beyond a minute', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map(retryDelayMs)).toEqual([
      2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000,
    ]);
  });

  it('runs a task between passes: a save made meanwhile waits for it, one waiting or in flight skips it', async () => {
    const passes = controlledPasses();
    const loop = createSyncLoop({ runPass: passes.runPass, onFatal: () => {}, debounceMs: 50 });
    let finishTask: () => void = () => {};
    const task = vi.fn(() => new Promise<void>((resolve) => (finishTask = resolve)));
    const done = loop.whenIdle(task);
    expect(task).toHaveBeenCalledTimes(1);
    loop.notify({ file: 'articles/a.md', kind: 'change' });
    await vi.advanceTimersByTimeAsync(200);
    expect(passes.batches).toHaveLength(0);
    finishTask();
    await done;
    await vi.advanceTimersByTimeAsync(50);
    expect(passes.batches.map((b) => [...b.keys()])).toEqual([['articles/a.md']]);

    // A pass in flight, then a save waiting: neither leaves room for the task.
    await loop.whenIdle(task);
    await passes.finish();
    loop.notify({ file: 'articles/b.md', kind: 'change' });
    await loop.whenIdle(task);
    expect(task).toHaveBeenCalledTimes(1);

    // A task that fails is only skipped over.
    await vi.advanceTimersByTimeAsync(50);
    await passes.finish();
    await loop.whenIdle(() => Promise.reject(new Error('no')));
    loop.notify({ file: 'articles/c.md', kind: 'change' });
    await vi.advanceTimersByTimeAsync(50);
    expect(passes.batches.map((b) => [...b.keys()])).toEqual([
      ['articles/a.md'],
      ['articles/b.md'],
      ['articles/c.md'],
    ]);
  });

  it('runs a retry that comes due during such a task once the task is done', async () => {
    const passes = controlledPasses();
    const loop = createSyncLoop({ runPass: passes.runPass, onFatal: () => {}, debounceMs: 50 });
    const first = loop.runNow();
    await passes.finish('retry');
    await first;
    // The retry is due in 2 s; a task started now outlasts it.
    let finishTask: () => void = () => {};
    const done = loop.whenIdle(() => new Promise<void>((resolve) => (finishTask = resolve)));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(passes.batches).toHaveLength(1);
    finishTask();
    await done;
    await vi.advanceTimersByTimeAsync(0);
    expect(passes.batches).toHaveLength(2);
  });
});
