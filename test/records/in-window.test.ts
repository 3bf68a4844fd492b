import { describe, expect, it } from 'vitest';
import { eachInWindow } from '../../src/records/in-window.js';

/** Items 0..count-1, counting how many were taken. */
function counted(count: number): { items: Iterator<number>; taken: () => number } {
  let taken = 0;
  function* items() {
    for (let i = 0; i < count; i++) {
      taken += 1;
      yield i;
    }
  }
  return { items: items(), taken: () => taken };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('work over many documents, a window at a time', () => {
  it('takes an item only when a place is free, so no more than the window are ever in hand', async () => {
    const { items, taken } = counted(200);
    let finished = 0;
    let mostInHand = 0;
    const done: number[] = [];
    await eachInWindow(items, 4, async (i) => {
      // Taken but not finished: what the window holds (a queue made up front would hold all 200).
      mostInHand = Math.max(mostInHand, taken() - finished);
      await tick();
      done.push(i);
      finished += 1;
    });
    expect(mostInHand).toBe(4);
    expect(done.sort((a, b) => a - b)).toEqual([...Array(200).keys()]);
  });

  it('takes no new item after a failure, and rejects with it once the items in hand are done', async () => {
    const { items, taken } = counted(100);
    const done: number[] = [];
    const run = eachInWindow(items, 3, async (i) => {
      await tick();
      if (i === 4) throw new Error('render failed');
      await tick();
      done.push(i);
    });
    await expect(run).rejects.toThrow('render failed');
    expect(taken()).toBeLessThan(10);
    // Every item taken but the failed one was finished, not abandoned.
    expect(done).toHaveLength(taken() - 1);
  });
});
