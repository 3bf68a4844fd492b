import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * Test files that mock modules, fake timers, stub globals or inspect a module's own state (a
 * library's cache): each runs in a fresh module graph.
 * The rest share one per worker (no isolation), so cms-sync is not imported again for every
 * file. A file that starts to mock belongs here.
 */
const ISOLATED = [
  'test/media/serve-content.test.ts',
  'test/remote/client.test.ts',
  'test/render/templates-fast-path.test.ts',
  'test/resources/add-relation.test.ts',
  'test/source/read-document.test.ts',
  'test/source/scan-tuning.test.ts',
  'test/watch/sync-loop.test.ts',
  'test/watch/watch-passes.test.ts',
];

/**
 * The longest files, longest first. The workers take files in order, so a long file started last
 * leaves one worker running it alone at the end. Vitest orders by the durations of the last run
 * where it has them; a clean clone has none, and there file size says little of how long a file
 * runs (one small file starts a CMS on a very large resource). Keep the order roughly right: a
 * file missing here, or a little out of place, only makes the run end less evenly.
 */
const LONGEST = [
  'test/e2e/clean-run.test.ts',
  'test/reliability/proof.test.ts',
  'test/e2e/apply-scale.test.ts',
  'test/e2e/safety.test.ts',
  'test/e2e/apply.test.ts',
  'test/e2e/interrupt.test.ts',
  'test/e2e/render-plugins.test.ts',
  'test/package/pack.test.ts',
  'test/e2e/ci-target.test.ts',
  'test/migrate/e2e.test.ts',
  'test/e2e/refresh-incremental.test.ts',
  'test/e2e/media-missing.test.ts',
  'test/watch/watch-resilience.test.ts',
  'test/watch/watch-edits.test.ts',
  'test/watch/watch-folders.test.ts',
  'test/e2e/secrets.test.ts',
  'test/server/large-start.test.ts',
  'test/plan/review.test.ts',
  'test/e2e/renames.test.ts',
  'test/migrate/pull-roundtrip.test.ts',
  'test/e2e/relations.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const rank = (file: TestSpecification) => {
      const at = LONGEST.indexOf(file.moduleId.slice(root.length + 1));
      return at === -1 ? LONGEST.length : at;
    };
    // Stable within a project: what is not listed keeps vitest's order. Projects stay apart, isolated
    // first, as vitest has them: a worker of the shared project is kept only while shared files follow.
    const project = (file: TestSpecification) => sorted.findIndex((f) => f.project === file.project);
    return [...sorted].sort((a, b) => project(a) - project(b) || rank(a) - rank(b));
  }
}

/** The package as built, loaded by Node itself as a user's program loads it, not through vitest's transform. */
const DIST = new RegExp(
  `^${fileURLToPath(new URL('./dist/', import.meta.url)).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // End-to-end tests start servers and child processes: on two cores the pool stays small, one
    // worker more than cores so that one file's waits (a child process, a server) are another's turn.
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
    server: { deps: { external: [DIST] } },
    projects: [
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
      {
        extends: true,
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false },
      },
    ],
  },
});
