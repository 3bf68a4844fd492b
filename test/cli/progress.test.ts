import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/progress.js';

function stream(isTTY: boolean) {
  const out = new PassThrough() as PassThrough & { isTTY?: boolean };
  out.isTTY = isTTY;
  return out;
}

describe('progress display', () => {
  it('on a terminal, rewrites one line with done/total, rate and ETA, and clears it at the end', () => {
    const out = stream(true);
    let now = 0;
    const progress = createProgress(out, () => now);
    now = 2000;
    progress.update({ done: 10, total: 40, label: '+ article/a', ok: true });
    progress.finish();
    expect(String(out.read())).toBe('\r\x1b[2K[10/40] 5.0/s, ETA 6s  + article/a\r\x1b[2K');
  });

  it('in a log, prints one plain line per step and marks failures', () => {
    const out = stream(false);
    const progress = createProgress(out, () => 0);
    progress.update({ done: 1, total: 2, label: '+ article/a', ok: true });
    progress.update({ done: 2, total: 2, label: '~ page/b', ok: false });
    progress.finish();
    expect(String(out.read())).toBe('+ article/a\nfailed: ~ page/b\n');
  });
});
