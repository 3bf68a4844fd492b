import { afterEach, describe, expect, it } from 'vitest';
import { terminalText } from '../../src/terminal-text.js';
import { createProject, type Project } from '../e2e/harness.js';

const ESC = '\u001b';

describe('terminalText', () => {
  it('shows control characters as cat -v does, keeping tabs, line breaks and our colours only', () => {
    expect(terminalText(`a${ESC}[2Jb${ESC}]0;title\u0007c\rd\be\u0000f\u007f`)).toBe(
      'a^[[2Jb^[]0;title^Gc^Md^He^@f^?',
    );
    expect(terminalText('tab\there\nnext line')).toBe('tab\there\nnext line');
    // picocolors' red and dim, as the CLI prints them: kept.
    expect(terminalText(`${ESC}[31mred${ESC}[39m ${ESC}[2mdim${ESC}[22m`)).toBe(
      `${ESC}[31mred${ESC}[39m ${ESC}[2mdim${ESC}[22m`,
    );
    // Hidden text, a black background, a cursor move: shown, not obeyed.
    expect(terminalText(`${ESC}[8mhidden ${ESC}[40mblack ${ESC}[1A`)).toBe('^[[8mhidden ^[[40mblack ^[[1A');
    const plain = 'nothing to change';
    expect(terminalText(plain)).toBe(plain);
  });

  it('shows C1 controls and bidirectional controls, which reorder what follows them on a line', () => {
    // U+009B is CSI to a terminal that reads 8-bit controls: `2J` after it clears the screen.
    expect(terminalText('a\u009b2Jb\u0085c')).toBe('aM-^[2JbM-^Ec');
    // "keep 1 " + U+202E + "eteled" shows as "keep 1 deleted"; a right-to-left mark is shown too.
    expect(terminalText('keep 1 \u202eeteled\u202c \u200f \u2067x\u2069')).toBe(
      'keep 1 <U+202E>eteled<U+202C> <U+200F> <U+2067>x<U+2069>',
    );
    // Right-to-left text itself, and accented letters (U+00A0 on), are text.
    expect(terminalText('שלום café \u00a0')).toBe('שלום café \u00a0');
  });
});

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('what a file can put in the output', () => {
  it('cannot clear the screen, move the cursor, set the title or write over a line', async () => {
    const attack = `${ESC}[2J${ESC}[1A${ESC}]0;pwned\u0007\r`;
    project = await createProject({
      [`content/articles/name${attack}x.md`]: '---\ntitle: By name\n---\nBody\n',
      'content/articles/keyed.md': `---\ntitle: Keyed\n"odd${attack}key": 1\n---\nBody\n`,
      'content/articles/broken.md': `---\ntitle: [${attack}\n---\nBody\n`,
    });
    for (const args of [['plan', '--diff'], ['apply']]) {
      const run = await project.run(args);
      const output = run.stdout + run.stderr;
      // Each file is reported (a problem, a warning), its characters shown as text.
      expect(output).toContain('^[[2J^[[1A^[]0;pwned^G^M');
      // eslint-disable-next-line no-control-regex -- finding control characters is the point
      expect(output).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    }
  });
});
