import { describe, expect, it } from 'vitest';
import { choosePager, type PagerContext } from '../../src/cli/pager.js';

const terminal: PagerContext = { isTTY: true, rows: 40, env: {}, json: false, pager: true, lines: 200 };

describe('choosePager', () => {
  it('pages a plan longer than the terminal through $PAGER, or less -FRX without one', () => {
    expect(choosePager(terminal)).toBe('less -FRX');
    expect(choosePager({ ...terminal, env: { PAGER: 'most' } })).toBe('most');
    expect(choosePager({ ...terminal, env: { CI: 'false' } })).toBe('less -FRX');
  });

  it('prints directly when the plan fits, or paging is off, not wanted or impossible', () => {
    expect(choosePager({ ...terminal, lines: 39 })).toBeUndefined();
    expect(choosePager({ ...terminal, lines: 40 })).toBe('less -FRX');
    expect(choosePager({ ...terminal, pager: false })).toBeUndefined(); // --no-pager
    expect(choosePager({ ...terminal, json: true })).toBeUndefined();
    expect(choosePager({ ...terminal, isTTY: false })).toBeUndefined();
    expect(choosePager({ ...terminal, rows: undefined })).toBeUndefined();
    expect(choosePager({ ...terminal, env: { CI: 'true' } })).toBeUndefined();
    expect(choosePager({ ...terminal, env: { CI: '1', PAGER: 'less' } })).toBeUndefined();
    // An empty $PAGER turns paging off, as in git.
    expect(choosePager({ ...terminal, env: { PAGER: '' } })).toBeUndefined();
  });
});
