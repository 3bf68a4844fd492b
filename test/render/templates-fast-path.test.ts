import { beforeEach, describe, expect, it, vi } from 'vitest';
import { expandTemplates } from '../../src/render/templates/expand-templates.js';
import { parseTemplates } from '../../src/render/templates/parse-templates.js';

// Equal strings are indistinguishable in JavaScript, so "returned untouched" is shown by the
// parser never being called for a body without template syntax.
vi.mock('../../src/render/templates/parse-templates.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/render/templates/parse-templates.js')>();
  return { ...actual, parseTemplates: vi.fn(actual.parseTemplates) };
});

describe('expandTemplates fast path', () => {
  beforeEach(() => {
    vi.mocked(parseTemplates).mockClear();
  });

  it('a body without `{{` or `{%` is returned as given, never parsed', () => {
    const body = 'Plain text, {single} braces, 100% and a [link](https://x.example).\n';
    expect(expandTemplates(body, { file: 'a.md' })).toEqual({ text: body, problems: [] });
    expect(parseTemplates).not.toHaveBeenCalled();
  });

  it('in the hugo dialect, only `{{<` and `{{%` make a body worth parsing', () => {
    expandTemplates('{{ .Title }} {% x %}', { file: 'a.md', dialect: 'hugo' });
    expect(parseTemplates).not.toHaveBeenCalled();
    expandTemplates('{{< x >}}', { file: 'a.md', dialect: 'hugo' });
    expect(parseTemplates).toHaveBeenCalledTimes(1);
  });
});
