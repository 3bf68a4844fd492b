import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress, progressText } from '../../src/cli/progress.js';

/** A stream that keeps what is written, a terminal or not. */
function stream(isTTY: boolean) {
  const out = Object.assign(
    new Writable({
      write: (chunk, _encoding, done) => {
        out.text += String(chunk);
        done();
      },
    }),
    { isTTY, columns: 60, text: '' },
  );
  return out;
}

/** A clock and a timer the test moves by hand. */
function fakeTime() {
  const time = { now: 0, ticks: [] as Array<() => void>, stopped: 0 };
  return {
    time,
    options: {
      now: () => time.now,
      every: (_ms: number, tick: () => void) => {
        time.ticks.push(tick);
        return () => void (time.stopped += 1);
      },
    },
    advance(ms: number) {
      time.now += ms;
      for (const tick of time.ticks) tick();
    },
  };
}

const ERASE = '\r\x1b[2K';

describe('progress on a terminal', () => {
  it('draws the first phase at once, redraws at most every 100 ms, and shows rate and ETA', () => {
    const out = stream(true);
    const clock = fakeTime();
    const progress = createProgress(out, clock.options);
    progress.update('Scanning content/');
    expect(out.text).toBe(`${ERASE}Scanning content/… 0s`);
    // A new phase is drawn at once, whatever the throttle.
    progress.update('Rendering', { done: 0, total: 40 });
    expect(out.text.endsWith(`${ERASE}Rendering 0/40`)).toBe(true);
    out.text = '';
    clock.time.now += 50;
    progress.update('Rendering', { done: 5, total: 40 });
    expect(out.text).toBe('');
    clock.time.now = 2000;
    progress.update('Rendering', { done: 10, total: 40 });
    expect(out.text).toBe(`${ERASE}Rendering 10/40 · 5.0/s · ETA 6s`);
    progress.stop();
    expect(out.text.endsWith(ERASE)).toBe(true);
    expect(clock.time.stopped).toBe(1);
  });

  it('takes the line away before anything else is printed, on stderr or stdout, and draws it again after', () => {
    const err = stream(true);
    const stdout = stream(false);
    const clock = fakeTime();
    const progress = createProgress(err, { ...clock.options, alsoClearBefore: [stdout] });
    progress.update('Writing', { done: 1, total: 3, step: '+ article/a' });
    err.write('content/a.md:1:1: warning: hm\n');
    expect(err.text).toBe(`${ERASE}Writing 1/3 · + article/a${ERASE}content/a.md:1:1: warning: hm\n`);
    err.text = '';
    stdout.write('Plan: 1 to create\n');
    // Nothing was drawn since the last erase: nothing to take away.
    expect(err.text).toBe('');
    clock.advance(1000);
    expect(err.text).toBe(`${ERASE}Writing 1/3 · 1.0/s · ETA 2s · + article/a`);
    stdout.write('Applied\n');
    expect(err.text.endsWith(ERASE)).toBe(true);
    progress.stop();
    err.text = '';
    err.write('after\n');
    expect(err.text).toBe('after\n');
  });

  it('keeps the line narrower than the terminal, so that it never wraps', () => {
    const out = stream(true);
    const progress = createProgress(out, fakeTime().options);
    progress.update('Writing', { done: 1, total: 2, step: `+ article/${'x'.repeat(200)}` });
    expect(out.text.length).toBe(ERASE.length + 59);
  });
});

describe('progress in a log (not a terminal)', () => {
  it('prints nothing for a short phase, then one plain line every interval while a phase lasts', () => {
    const out = stream(false);
    const clock = fakeTime();
    const progress = createProgress(out, { ...clock.options, logEveryMs: 5000 });
    progress.update('Scanning content/');
    clock.advance(3000);
    progress.update('Rendering', { done: 0, total: 10_000 });
    clock.advance(4000);
    expect(out.text).toBe('');
    // Many steps within one interval: still one line.
    for (let done = 1; done <= 3000; done++) progress.update('Rendering', { done, total: 10_000 });
    clock.advance(1000);
    expect(out.text).toBe('Rendering 3000/10000 · 600/s · ETA 12s\n');
    clock.advance(1000);
    progress.update('Rendering', { done: 3600, total: 10_000 });
    clock.advance(4000);
    expect(out.text.split('\n')).toEqual([
      'Rendering 3000/10000 · 600/s · ETA 12s',
      'Rendering 3600/10000 · 360/s · ETA 18s',
      '',
    ]);
    expect(out.text).not.toContain('\x1b');
    progress.stop();
  });

  it('reads durations over a minute as minutes', () => {
    expect(progressText({ label: 'Writing', done: 100, total: 10_000, since: 0 }, 10_000)).toBe(
      'Writing 100/10000 · 10/s · ETA 16m30s',
    );
    expect(progressText({ label: 'Listing the CMS', since: 0 }, 12_500)).toBe('Listing the CMS… 12s');
  });

  it("shows a step's control characters (a file's name) instead of sending them to the terminal", () => {
    const step = '^ upload content/images/a\u001b[2J\rb.png';
    expect(progressText({ label: 'Writing', done: 0, total: 2, step, since: 0 }, 0)).toBe(
      'Writing 0/2 · ^ upload content/images/a^[[2J^Mb.png',
    );
  });
});
