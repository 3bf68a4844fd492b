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
  'test/watch/sync-loop.test.ts',
  'test/watch/watch-passes.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // End-to-end tests start servers and child processes: two cores, keep the pool small.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
      {
        extends: true,
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false },
      },
    ],
  },
});
