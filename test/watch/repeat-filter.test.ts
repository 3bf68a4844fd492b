import { describe, expect, it } from 'vitest';
import type { FileProblem } from '../../src/errors.js';
import { createRepeatFilter } from '../../src/watch/repeat-filter.js';

const broken: FileProblem = {
  file: 'content/articles/x.md',
  line: 3,
  column: 1,
  severity: 'error',
  message: 'front matter is not valid YAML',
};

describe('which problems a watch pass prints', () => {
  it('prints a problem once, not again on saves of other files, and again when its file is saved', () => {
    const filter = createRepeatFilter();
    const first = filter.forPass(new Set(['content/articles/x.md']));
    expect(first.show(broken)).toBe(true);
    first.done([broken]);

    const otherSave = filter.forPass(new Set(['content/articles/a.md']));
    expect(otherSave.show(broken)).toBe(false);
    otherSave.done([broken]);

    const savedAgain = filter.forPass(new Set(['content/articles/x.md']));
    expect(savedAgain.show(broken)).toBe(true);
  });

  it('prints a problem again once it went away and came back', () => {
    const filter = createRepeatFilter();
    const a = filter.forPass(new Set());
    a.done([broken]);
    const fixed = filter.forPass(new Set(['content/articles/x.md']));
    fixed.done([]);
    expect(filter.forPass(new Set(['content/articles/a.md'])).show(broken)).toBe(true);
  });
});
