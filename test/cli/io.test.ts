import { afterEach, describe, expect, it } from 'vitest';
import { processIO } from '../../src/cli/io.js';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const before = new Map(SIGNALS.map((s) => [s, process.listeners(s)]));

afterEach(() => {
  for (const signal of SIGNALS)
    for (const listener of process.listeners(signal))
      if (!before.get(signal)!.includes(listener)) process.off(signal, listener);
});

const added = () => SIGNALS.map((s) => process.listenerCount(s) - before.get(s)!.length);

// A handler runs only when the thread is free: with one installed, an import busy converting a
// huge document could not be stopped by Ctrl-C or SIGTERM until it was done.
describe('signal handlers of the process', () => {
  it('are installed only for a command that listens for an interruption', () => {
    const io = processIO();
    expect(added()).toEqual([0, 0]);
    void io.interrupted;
    expect(added()).toEqual([1, 1]);
    void io.signal;
    expect(added()).toEqual([1, 1]);
  });
});
