import { Writable } from 'node:stream';

/** A positioned problem as syncOnce printed it (`file:line:column: message`). */
export interface PrintedProblem {
  /** Relative to the project directory, as printed. */
  file: string;
  line: number;
  column: number;
  severity: 'error' | 'warning';
  message: string;
}

const PROBLEM_LINE = /^(.+?):(\d+):(\d+): (warning: )?(.*)$/;

export interface ProblemTap {
  /**
   * A stderr for one pass: lines go through to the real stderr, positioned problems are also
   * collected. A problem printed by the previous pass, in a file not in `saved`, is not printed
   * again: a broken file the writer is not working on must not repeat on every other save.
   */
  forPass(saved: ReadonlySet<string>): { stream: Writable & { isTTY?: boolean }; problems(): PrintedProblem[] };
}

/**
 * syncOnce reports per-file problems by printing them; watch reads them back from that output
 * rather than widening syncOnce's result, so the line "x.md: error (see above)" names exactly
 * what was printed above it.
 */
export function createProblemTap(stderr: NodeJS.WritableStream & { isTTY?: boolean }): ProblemTap {
  let shownLastPass = new Set<string>();
  return {
    forPass(saved) {
      const collected: PrintedProblem[] = [];
      const shown = new Set<string>();
      const stream: Writable & { isTTY?: boolean } = new Writable({
        write(chunk: Buffer | string, _encoding, callback) {
          let out = '';
          // Each piece keeps its own newline, so what is passed on is byte for byte what came in.
          for (const piece of chunk.toString().split(/(?<=\n)/)) {
            const line = piece.replace(/\r?\n$/, '');
            const match = PROBLEM_LINE.exec(line);
            if (match) {
              const [, file = '', row = '0', column = '0', warning, message = ''] = match;
              collected.push({ file, line: Number(row), column: Number(column), severity: warning ? 'warning' : 'error', message });
              shown.add(line);
              if (shownLastPass.has(line) && !saved.has(file)) continue;
            }
            out += piece;
          }
          if (out) stderr.write(out);
          callback();
        },
      });
      stream.isTTY = stderr.isTTY;
      return {
        stream,
        problems() {
          shownLastPass = shown;
          return collected;
        },
      };
    },
  };
}
