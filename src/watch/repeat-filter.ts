import { formatProblem, type FileProblem } from '../errors.js';

/**
 * Which problems a watch pass prints. A broken file the writer is not working on must not repeat
 * on every save of another file: a problem printed by the previous pass is printed again only
 * when its file is among the files saved since. A `narrowed` pass reads only the saved files, so
 * what it did not read stays as the last whole pass found it.
 */
export function createRepeatFilter(): {
  forPass(
    saved: ReadonlySet<string>,
    how?: { narrowed?: boolean },
  ): {
    show(problem: FileProblem): boolean;
    done(problems: readonly FileProblem[]): void;
  };
} {
  /** Each problem shown by the last pass (as printed), by its file. */
  let shownLastPass = new Map<string, string>();
  return {
    forPass(saved, how = {}) {
      return {
        show: (problem) => !shownLastPass.has(formatProblem(problem)) || saved.has(problem.file),
        done(problems) {
          const unread = how.narrowed ? [...shownLastPass].filter(([, file]) => !saved.has(file)) : [];
          shownLastPass = new Map([
            ...unread,
            ...problems.map((p): [string, string] => [formatProblem(p), p.file]),
          ]);
        },
      };
    },
  };
}
