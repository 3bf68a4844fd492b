import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProblemTap } from '../../src/watch/problem-tap.js';

function sink() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('the stderr tap of a watch pass', () => {
  it('passes every line through and collects the positioned problems', () => {
    const out = sink();
    const pass = createProblemTap(out.stream).forPass(new Set(['content/articles/x.md']));
    pass.stream.write('content/articles/x.md:3:1: front matter is not valid YAML\n');
    pass.stream.write('content/articles/y.md:1:1: warning: unknown key `tags`\ncontent/articles/z.md: article/z: The CMS rejected it\n');
    expect(out.text()).toBe('content/articles/x.md:3:1: front matter is not valid YAML\ncontent/articles/y.md:1:1: warning: unknown key `tags`\ncontent/articles/z.md: article/z: The CMS rejected it\n');
    expect(pass.problems()).toEqual([
      { file: 'content/articles/x.md', line: 3, column: 1, severity: 'error', message: 'front matter is not valid YAML' },
      { file: 'content/articles/y.md', line: 1, column: 1, severity: 'warning', message: 'unknown key `tags`' },
    ]);
  });

  it('does not repeat a problem of a file nobody saved since the last pass, but does for a file saved again', () => {
    const out = sink();
    const tap = createProblemTap(out.stream);
    const problem = 'content/articles/x.md:3:1: front matter is not valid YAML\n';
    const first = tap.forPass(new Set(['content/articles/x.md']));
    first.stream.write(problem);
    first.problems();
    const otherSave = tap.forPass(new Set(['content/articles/a.md']));
    otherSave.stream.write(problem);
    expect(otherSave.problems()).toHaveLength(1); // still counted, only not printed again
    const savedAgain = tap.forPass(new Set(['content/articles/x.md']));
    savedAgain.stream.write(problem);
    savedAgain.problems();
    expect(out.text()).toBe(problem + problem);
  });
});
