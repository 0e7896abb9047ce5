// @ts-check
/**
 * The line between the two mutation runs (docs/decisions/015-mutation-scope.md): each module of the engine is
 * mutated by exactly one of them, for the reason given here and nowhere else.
 */

/**
 * Modules whose behaviour the v1 API cannot show: the contract suite talks to one running mock through v1, so
 * their mutants would survive it whatever they did. The project's own tests kill them (the own-tests run).
 */
export const OWN_TESTS_MODULES = [
  // The control plane: the mock's own API (openapi/mock-control.yaml), the simulated dashboard. The suite uses
  // it only to provision; who may call it, its accounts, keys' input, clock and journal are its own contract.
  // (control/engine-control.ts wires it to the engine's parts, with the reset and the demo account.)
  'mocks/engine/control/**/*.ts',
  'mocks/engine/keys/key-input.ts',
  // ...the clock's offset as the control plane sets it (its reset, the room left to advance); the suite sees
  // only the time, which advances.
  'mocks/engine/clock-control.ts',
  // ...an account's plan or limits changed (the suite uses it only to provision roomy limits).
  'mocks/engine/account-control.ts',
  // ...an account's rate-limit usage as the control plane shows it, and its windows forgotten with the account.
  'mocks/engine/rate-limit-control.ts',
  'mocks/engine/journal.ts',
  'mocks/engine/calls/call-control-handlers.ts',
  'mocks/engine/calls/call-plan.ts',
  'mocks/engine/webhooks/webhook-control-handlers.ts',
  // The in-process API: the platform's members for tests and adapters beside the two APIs (the reset, snapshots
  // and capsules, accounts and keys created directly), which the suite, a client of v1, never calls.
  'mocks/engine/in-process-api.ts',
  // State capsules (docs/decisions/016-state-capsules.md): taken and opened through the control plane only.
  'mocks/engine/capsule/**/*.ts',
  // Where the state lives beyond one step: the state tables' machinery, the start from a seed or a saved
  // state, the steps through a store (a store that cannot keep a change: 503). One running mock never reads
  // its change log back, never restarts, and its memory store always keeps a change. Under state/ too: what a
  // shared store needs of a request (its scope, `state/request-scope.ts`, and the windows it counted,
  // `state/counted-windows.ts`), used only with the Redis store.
  'mocks/engine/state/**/*.ts',
  // ...and each table's side of it, beside the module whose records it holds: changes made elsewhere applied,
  // every record listed for a snapshot, all forgotten on a reset (the accounts' data, the rate-limit windows).
  'mocks/engine/resources/account-data-tables.ts',
  'mocks/engine/rate-limit-table.ts',
  'mocks/engine/saved-state.ts',
  'mocks/engine/starting-state.ts',
  'mocks/engine/store-steps.ts',
  // Scenarios (docs/decisions/012-scenarios.md): turned on through the control plane or `Prefer`, never by the
  // suite, which takes the path with no scenario.
  'mocks/engine/scenarios/**/*.ts',
  // The mock's check of its own answers (`checkResponses`): off in the contract run, where the suite, not the
  // mock, must notice a wrong answer.
  'mocks/engine/contract/contract-drift.ts',
  // ...its step in the pipelines, and the checks of answers against their schemas (also of scenarios' injected
  // answers, checked with `checkResponses` only).
  'mocks/engine/pipeline/drift-step.ts',
  'mocks/engine/contract/answer-checks.ts',
  // ...and the JSON texts of the answers it reads (lists from remembered item texts), used only with it.
  'mocks/engine/contract/answer-texts.ts',
  // The mock's own guards and bounds, which the spec does not set (so no fair suite can ask for them): JSON
  // nesting, the bounded collections, and the timestamp parser's refusals (a v1 input reaches it only after the
  // contract's `format: date-time` has let it through).
  'mocks/engine/json-depth.ts',
  'mocks/engine/limits.ts',
  'mocks/engine/timestamp.ts',
]

/**
 * The demo data: its content is the mock's own choice. The contract fixes only its shape, which every response
 * check verifies and test/seed.test.ts checks against the contract; no test can tell one valid data set from
 * another, so neither run mutates it.
 */
export const NEITHER_RUN = ['mocks/engine/seed/**/*.ts']

/** The contract run: the rest of the engine, whose behaviour the v1 API shows. */
export const CONTRACT_RUN_MUTATES = [
  'mocks/engine/**/*.ts',
  ...[...OWN_TESTS_MODULES, ...NEITHER_RUN].map((pattern) => `!${pattern}`),
]
