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
    // The engine. The contract's Ajv set-up (openapi/contract-ajv.ts) is shared with the suite, which validates
    // every answer with it: mutating it would mutate the oracle too, so it lives outside the engine.
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
    // The control plane's operations on simulated calls and webhooks (start a call, create or rotate the
    // signing secret, list deliveries) and the parsing of a call's plan: the mock's own API, which the suite
    // uses only to place a call for the webhook checks. Their v1 effects (the call's log, its events, their
    // signatures and retries) come from the modules that stay mutated. Covered by test/calls/*.test.ts (bad-input,
    // mock-api-calls, webhook-deliveries) and test/mock/control-plane.test.ts.
    '!mocks/engine/calls/call-control-handlers.ts',
    '!mocks/engine/calls/call-plan.ts',
    '!mocks/engine/webhooks/webhook-control-handlers.ts',
    // Where the state lives beyond the process: the state tables' change log (what a request changed, as a
    // store saves, replicates or undoes it), the store interface, the clock's and the demo ids' tables, and the
    // check of a saved state at start-up. The suite talks to one running mock and cannot see how it records,
    // saves or restores (test/stores/*.test.ts and test/calls/persistent-calls.test.ts cover them).
    '!mocks/engine/state/**',
    // The mock's check of its own answers against the contract (`checkResponses`), off in the mutation run:
    // the suite, not the mock, must notice a wrong answer (test/mock/scenario-answers.test.ts covers it).
    '!mocks/engine/contract/contract-drift.ts',
    // The JSON texts of the answers that check reads (lists from remembered item texts): used only with
    // `checkResponses`, off in this run (test/engine/answer-texts.test.ts covers it).
    '!mocks/engine/contract/answer-texts.ts',
    // Scenarios (error states, latency and network faults on demand, docs/decisions/012-scenarios.md): the mock's own
    // feature, turned on through the control plane or `Prefer`, never by the contract suite, which sees only
    // the path with no scenario (every check takes it). Covered by test/mock/scenario-*.test.ts,
    // test/mock/scenarios-control.test.ts, test/stores/scenarios-stored.test.ts and
    // test/contract-suite-scenarios.test.ts.
    '!mocks/engine/scenarios/**',
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
  // Colours of the HTML report only: scripts/mutants.ts judges the scores (80% overall, 90% on the files that
  // guard access and limits; in CI, no regression against the committed baseline), so Stryker itself does not
  // break on them and its exit code means an error of the run.
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['dist', 'reports', 'test-results', 'bench-results', 'examples', 'docs', '.tmp'],
  cleanTempDir: 'always',
}
