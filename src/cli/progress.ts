import { terminalText } from '../terminal-text.js';

type Stream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface ProgressOptions {
  now?: () => number;
  /**
   * Without a terminal: how long a phase runs before its first line, and the least time between
   * two lines. A log then shows a line every few seconds of a long run and none for a short one.
   */
  logEveryMs?: number;
  /** Streams whose writes must first erase the line on a terminal (stdout, when it shares the screen). */
  alsoClearBefore?: readonly Stream[];
  /** Calls `tick` every `ms` until the returned function is called; the default timer never keeps the process up. */
  every?: (ms: number, tick: () => void) => () => void;
}

/** Redraws of the terminal line at most this often: a run of thousands of steps costs nothing visible. */
const REDRAW_MS = 100;

const LOG_EVERY_MS = 5000;

/**
 * What a run is doing, shown as it goes. On a terminal: one line rewritten in place (the phase,
 * done/total, rate and ETA) from the first event on, erased whenever anything else is printed
 * and drawn again after. Elsewhere (CI logs, pipes): a line every `logEveryMs` while a phase lasts
 * longer than that, so a 10,000-record run leaves a few dozen lines, not one per record.
 */
export function createProgress(stream: Stream, options: ProgressOptions = {}) {
  const now = options.now ?? Date.now;
  const logEvery = options.logEveryMs ?? LOG_EVERY_MS;
  const every = options.every ?? everyUnref;
  const tty = stream.isTTY === true;
  const write = stream.write.bind(stream);
  let state: { label: string; done?: number; total?: number; step?: string; since: number } | undefined;
  let drawn = false;
  let lastDraw = -Infinity;
  let lastLine = -Infinity;
  let stopTimer: (() => void) | undefined;
  let unhook: Array<() => void> = [];

  const erase = () => {
    if (!drawn) return;
    drawn = false;
    write('\r\x1b[2K');
  };
  const draw = (at: number) => {
    if (!state) return;
    lastDraw = at;
    // A line wider than the terminal wraps, and `\r` would then erase only its last row.
    const width = Math.max((stream.columns || 80) - 1, 20);
    write(`\r\x1b[2K${progressText(state, at).slice(0, width)}`);
    drawn = true;
  };
  const logLine = (at: number) => {
    if (!state || at - state.since < logEvery || at - lastLine < logEvery) return;
    lastLine = at;
    write(`${progressText(state, at)}\n`);
  };
  const tick = () => {
    const at = now();
    if (tty) draw(at);
    else logLine(at);
  };
  const start = () => {
    if (stopTimer) return;
    stopTimer = every(tty ? 1000 : Math.min(Math.max(logEvery, 50), 1000), tick);
    if (!tty) return;
    // Anything else printed (a warning, the Ctrl-C notice, an error) first takes the line away.
    for (const other of new Set([stream, ...(options.alsoClearBefore ?? [])])) {
      const original = other.write;
      other.write = function (this: Stream, ...args: Parameters<Stream['write']>) {
        erase();
        return original.apply(other, args);
      } as Stream['write'];
      unhook.push(() => (other.write = original));
    }
  };

  return {
    /** The run is in `label` (a new phase), or has done `done` of `total` of it; `step` is what just finished. */
    update(label: string, progress: { done?: number; total?: number; step?: string } = {}): void {
      const at = now();
      const changed = state?.label !== label;
      state = { ...progress, label, since: changed || !state ? at : state.since };
      start();
      if (!tty) return logLine(at);
      if (changed || at - lastDraw >= REDRAW_MS) draw(at);
    },
    /** Takes the line away and stops until the next update. */
    stop(): void {
      erase();
      state = undefined;
      stopTimer?.();
      stopTimer = undefined;
      for (const restore of unhook) restore();
      unhook = [];
    },
  };
}

/** `Rendering 120/2000 · 40/s · ETA 47s`, or `Listing the CMS… 3s` for a phase without counts. */
export function progressText(
  state: { label: string; done?: number; total?: number; step?: string; since: number },
  at: number,
): string {
  const seconds = Math.max((at - state.since) / 1000, 0.001);
  if (state.total === undefined || state.done === undefined) return `${state.label}… ${Math.floor(seconds)}s`;
  const parts = [`${state.label} ${state.done}/${state.total}`];
  const rate = state.done / seconds;
  // A rate taken over less than a second is noise.
  if (state.done > 0 && seconds >= 1) {
    parts.push(`${rate >= 10 ? rate.toFixed(0) : rate.toFixed(1)}/s`);
    parts.push(`ETA ${duration(Math.ceil((state.total - state.done) / rate))}`);
  }
  // The step names a file or a key: what it holds is shown, not obeyed (see terminalText).
  if (state.step) parts.push(terminalText(state.step));
  return parts.join(' · ');
}

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60
    ? `${minutes}m${String(seconds % 60).padStart(2, '0')}s`
    : `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

function everyUnref(ms: number, tick: () => void): () => void {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
}
