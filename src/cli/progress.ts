import type { ProgressEvent } from '../apply/apply-plan.js';

/**
 * On a terminal: one line rewritten in place (done/total, rate, ETA). Elsewhere (CI logs, pipes):
 * one plain line per finished step, which reads well in a log.
 */
export function createProgress(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  now: () => number = Date.now,
) {
  const started = now();
  const tty = stream.isTTY === true;
  let drawn = false;
  return {
    update(event: ProgressEvent): void {
      if (!tty) {
        stream.write(`${event.ok ? '' : 'failed: '}${event.label}\n`);
        return;
      }
      const seconds = Math.max((now() - started) / 1000, 0.001);
      const rate = event.done / seconds;
      const eta = rate > 0 ? Math.ceil((event.total - event.done) / rate) : 0;
      stream.write(
        `\r\x1b[2K[${event.done}/${event.total}] ${rate.toFixed(1)}/s, ETA ${eta}s  ${event.label}`,
      );
      drawn = true;
    },
    finish(): void {
      if (drawn) stream.write('\r\x1b[2K');
    },
  };
}
