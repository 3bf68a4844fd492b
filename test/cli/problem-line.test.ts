import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/errors.js';

describe('a problem is one line of output', () => {
  it('shows a line break in a file name as ^J, so no CI runner reads what follows as a command', () => {
    const line = formatProblem({
      file: 'content/articles/x\n::error title=pwned::injected\r\n::add-mask::Plan.md',
      line: 1,
      column: 1,
      severity: 'error',
      message: 'the slug needs a visible character',
    });
    expect(line).toBe(
      'content/articles/x^J::error title=pwned::injected^M^J::add-mask::Plan.md:1:1: ' +
        'the slug needs a visible character',
    );
    expect(line).not.toContain('\n');
  });
});
