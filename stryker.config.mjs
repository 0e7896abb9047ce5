// @ts-check
/**
 * StrykerJS, the contract run (`npm run mutants`): the engine modules whose behaviour the v1 API shows, killed
 * by the contract suite alone. Vitest runs test/mutants/contract-checks.mutants.ts (vitest.mutants.config.ts):
 * one test per check, so per-test coverage runs only the checks that reach a mutant. What the v1 API cannot
 * show is mutated by the own-tests run instead (stryker.own-tests.config.mjs); the line between the two is
 * docs/decisions/015-mutation-scope.md, and scripts/mutation/scope.mjs draws it.
 */
import { CONTRACT_RUN_MUTATES } from './scripts/mutation/scope.mjs'

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutants.config.ts', related: false },
  mutate: CONTRACT_RUN_MUTATES,
  // Free text and the envelope's optional fields (docs/decisions/011-allowed-forms.md): no fair suite can
  // tell their mutants from the original (scripts/mutation/free-text-ignorer.mjs).
  // The sample checker is used only by `npm run mutants -- --sample` (scripts/mutation/sample-checker.mjs).
  plugins: [
    '@stryker-mutator/*',
    './scripts/mutation/free-text-ignorer.mjs',
    './scripts/mutation/sample-checker.mjs',
  ],
  ignorers: ['free-text'],
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
  // Colours of the HTML report only: scripts/mutants.ts judges the scores (80% overall, 90% on the files that
  // guard access and limits; in CI, no regression against the committed baseline), so Stryker itself does not
  // break on them and its exit code means an error of the run.
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['dist', 'reports', 'test-results', 'bench-results', 'examples', 'docs', '.tmp'],
  cleanTempDir: 'always',
}
