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
    // Value pools and texts of the demo data (agent names, prompts, transcript lines, voice ids): the
    // contract fixes their shape, which every response check verifies, but no contract suite can tell
    // one sentence or name from another. The seed's logic (mocks/engine/seed/*.ts besides these) stays.
    '!mocks/engine/seed/personas*.ts',
    '!mocks/engine/seed/catalog.ts',
  ],
  coverageAnalysis: 'perTest',
  // Two cores: one worker each; `npm run mutants -- --concurrency 1` leaves one free.
  concurrency: 2,
  // A mutant that loops (e.g. a reversed loop bound) is stopped at 3x the check's own time + 2 s.
  timeoutFactor: 3,
  timeoutMS: 2000,
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
