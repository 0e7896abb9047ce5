// @ts-check
/**
 * StrykerJS: mutation testing of the mock's engine, killed by the contract suite (`npm run mutants`).
 * Vitest runs test/mutants/contract-checks.mutants.ts (vitest.mutants.config.ts): one test per check, so
 * per-test coverage runs only the checks that reach a mutant.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutants.config.ts', related: false },
  mutate: [
    'mocks/engine/**/*.ts',
    // The demo data: its content is the mock's own choice. The contract fixes only its shape, which every
    // response check verifies and test/seed.test.ts checks against the contract; no contract suite can
    // tell one valid data set from another, so its mutants would survive as equivalent by the hundred.
    '!mocks/engine/seed/**',
    // The control plane is the mock's own API (openapi/mock-control.yaml, test/mock/control-plane.test.ts),
    // not the v1 contract: the suite only uses it to provision, and its journal and host allow-list
    // (DNS rebinding guard) are not observable through v1 at all.
    '!mocks/engine/control-plane.ts',
    '!mocks/engine/journal.ts',
    '!mocks/engine/host-check.ts',
  ],
  coverageAnalysis: 'perTest',
  // Two cores: one worker each; `npm run mutants -- --concurrency 1` leaves one free.
  concurrency: 2,
  // A mutant that loops (e.g. a reversed loop bound) is stopped at 2.5x the covering checks' own time
  // + 8 s: room enough that a busy machine does not pass a slow run off as a timeout (a "kill").
  timeoutFactor: 2.5,
  timeoutMS: 8000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true, reportMutants: false },
  // Committed: CI's `npm run mutants:ci` re-tests only mutants in code changed since this baseline.
  incrementalFile: 'test/mutants/stryker-incremental.json',
  thresholds: { high: 90, low: 80, break: 80 },
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['dist', 'reports', 'test-results', 'bench-results', 'examples', 'docs', '.tmp'],
  cleanTempDir: 'always',
}
