import { describe, expect, it } from 'vitest';
import { Throttle } from '../../src/remote/rate-limit.js';

/** A manual clock: sleeps wait until the test moves time past them. */
function manualClock() {
  let time = 0;
  let timers: { at: number; resolve: () => void }[] = [];
  const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    now: () => time,
    sleep: (ms: number) => new Promise<void>((resolve) => timers.push({ at: time + ms, resolve })),
    async advanceTo(target: number) {
      await flush();
      for (;;) {
        const due = timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        time = Math.max(time, due.at);
        timers = timers.filter((t) => t !== due);
        due.resolve();
        await flush();
      }
      time = target;
      await flush();
    },
  };
}

function track(throttle: Throttle, clock: { now: () => number }, n: number, signal?: AbortSignal) {
  const granted: { index: number; at: number }[] = [];
  const promises = Array.from({ length: n }, (_, index) =>
    throttle.acquire(signal).then(() => granted.push({ index, at: clock.now() })),
  );
  return { granted, promises };
}

describe('Throttle', () => {
  it('grants at once when there is no ceiling and no pause', async () => {
    const clock = manualClock();
    const throttle = new Throttle({ rps: 0, ...clock });
    const { granted } = track(throttle, clock, 5);
    await clock.advanceTo(0);
    expect(granted.map((g) => g.at)).toEqual([0, 0, 0, 0, 0]);
  });

  it('spaces grants 1000/rps apart, first come first served', async () => {
    const clock = manualClock();
    const throttle = new Throttle({ rps: 4, ...clock });
    const { granted } = track(throttle, clock, 5);
    await clock.advanceTo(2000);
    expect(granted).toEqual([0, 250, 500, 750, 1000].map((at, index) => ({ index, at })));
  });

  it('holds everyone during a pause, including one set while they wait', async () => {
    const clock = manualClock();
    const throttle = new Throttle({ rps: 10, ...clock });
    const { granted } = track(throttle, clock, 3);
    await clock.advanceTo(50);
    expect(granted.map((g) => g.at)).toEqual([0]);
    throttle.pauseUntil(1000);
    throttle.pauseUntil(500); // never shortened
    await clock.advanceTo(999);
    expect(granted).toHaveLength(1);
    await clock.advanceTo(2000);
    expect(granted.map((g) => g.at)).toEqual([0, 1000, 1100]);
  });

  it('drops a waiter whose signal aborts, without stalling the others', async () => {
    const clock = manualClock();
    const throttle = new Throttle({ rps: 1, ...clock });
    await throttle.acquire();
    const controller = new AbortController();
    const aborted = throttle.acquire(controller.signal);
    const { granted } = track(throttle, clock, 1);
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    await clock.advanceTo(1000);
    expect(granted).toEqual([{ index: 0, at: 1000 }]);
  });

  describe('adapting to a CMS that allows less than the ceiling', () => {
    it('halves the rate on each 429 and creeps back up on success, never above the ceiling', () => {
      const clock = manualClock();
      const throttle = new Throttle({ rps: 20, ...clock });
      throttle.slowDown();
      expect(throttle.rate).toBe(10);
      throttle.slowDown();
      expect(throttle.rate).toBe(5);
      for (let i = 0; i < 50; i += 1) throttle.speedUp();
      expect(throttle.rate).toBeCloseTo(6, 5);
      for (let i = 0; i < 5000; i += 1) throttle.speedUp();
      expect(throttle.rate).toBe(20);
    });

    it('spaces sends at the slowed rate', async () => {
      const clock = manualClock();
      const throttle = new Throttle({ rps: 10, ...clock });
      throttle.slowDown(); // 5 rps: 200 ms apart
      const { granted, promises } = track(throttle, clock, 3);
      await clock.advanceTo(1000);
      await Promise.all(promises);
      expect(granted.map((g) => g.at)).toEqual([0, 200, 400]);
    });

    it('with no ceiling, a 429 starts from the rate actually observed', async () => {
      const clock = manualClock();
      const throttle = new Throttle({ rps: 0, ...clock });
      const { promises } = track(throttle, clock, 40); // 40 sends within the 2 s window: 20/s
      await clock.advanceTo(0);
      await Promise.all(promises);
      throttle.slowDown();
      expect(throttle.rate).toBe(10);
    });
  });
});
