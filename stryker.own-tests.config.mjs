// @ts-check
/**
 * StrykerJS, the own-tests run (`npm run mutants -- --own-tests`): the engine modules the v1 API cannot show
 * (the control plane, the state's machinery, scenarios, the mock's own guards; scripts/mutation/scope.mjs),
 * killed by this project's own in-process tests (vitest.own-tests.config.ts). Its score is reported beside the
 * contract run's, each with its scope (docs/mutation-testing.md).
 */

import { OWN_TESTS_MODULES } from './scripts/mutation/scope.mjs'
import contractRun from './stryker.config.mjs'

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...contractRun,
  mutate: OWN_TESTS_MODULES,
  vitest: { configFile: 'vitest.own-tests.config.ts', related: false },
  htmlReporter: { fileName: 'reports/mutation-own-tests/index.html' },
  jsonReporter: { fileName: 'reports/mutation-own-tests/mutation.json' },
  incrementalFile: 'test/mutants/own-tests-incremental.json',
  // The first run of every test (to learn which tests reach which mutant) starts servers and stores: minutes.
  dryRunTimeoutMinutes: 30,
}
