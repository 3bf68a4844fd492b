import { formatProblem, type FileProblem } from '../errors.js';

/**
 * Which problems a watch pass prints. A broken file the writer is not working on must not repeat
 * on every save of another file: a problem printed by the previous pass is printed again only
 * when its file is among the files saved since.
 */
export function createRepeatFilter(): {
  forPass(saved: ReadonlySet<string>): {
    show(problem: FileProblem): boolean;
    done(problems: readonly FileProblem[]): void;
  };
} {
  let shownLastPass = new Set<string>();
  return {
    forPass(saved) {
      return {
        show: (problem) => !shownLastPass.has(formatProblem(problem)) || saved.has(problem.file),
        done(problems) {
          shownLastPass = new Set(problems.map(formatProblem));
        },
      };
    },
  };
}
