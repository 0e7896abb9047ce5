import type { AccountStore } from '../accounts.ts'
import { errors } from '../api-error.ts'
import type { Clock } from '../clock.ts'
import { HTTP_METHODS, type OpenApiDocument } from '../contract/document.ts'
import { createRouter, type Operation } from '../contract/router.ts'
import { createValidators } from '../contract/validators.ts'
import { json } from '../json-answer.ts'
import type { KeyStore } from '../keys/key-store.ts'
import type { EngineState } from '../state/state.ts'
import type { EngineResponse } from '../types.ts'
import { documentedStatuses } from './operation-statuses.ts'
import { scenarioControlHandlers } from './scenario-control.ts'
import { createInterceptor } from './scenario-interceptor.ts'
import { createScenarioTable } from './scenario-table.ts'

export interface ScenariosOptions {
  state: EngineState
  clock: Clock
  /** The v1 contract: the operations scenarios target, and the errors they answer with. */
  document: OpenApiDocument
  accounts: AccountStore
  keys: KeyStore
  /** The seed of the mock's random source, as the state records it (shared by every process). */
  seed: () => number
  /** Check every injected answer against the contract; a drift becomes a 500 naming it. */
  checkResponses?: boolean
  onContractViolation?: (message: string) => void
}

/**
 * Scenarios (docs/decisions/012-scenarios.md): their table in the engine's state, the interceptor the engine calls
 * for each routed v1 request, and the control plane's handlers for `/_mock/scenarios` and `/_mock/operations`.
 */
export function createScenarios(options: ScenariosOptions) {
  const { document } = options
  const table = createScenarioTable(options.state)
  const router = createRouter(document)
  const validators = createValidators(document)

  /** A documented status against its schema; 500, 502, 503 and 504 (never documented per operation) against `Error`. */
  function check(operation: Operation, response: EngineResponse): EngineResponse {
    if (!options.checkResponses) return response
    const problems = documentedStatuses(operation).includes(response.status)
      ? validators.response(operation.operationId, operation.object, response.status, response.body)
      : validators.schema('Error', response.body)
    if (problems.length === 0) return response
    const message = `Contract drift in an injected ${response.status} for ${operation.operationId}: ${problems.slice(0, 5).join('; ')}`
    options.onContractViolation?.(message)
    return json(500, errors.internal(message).body())
  }

  const allowOf = (operation: Operation) =>
    HTTP_METHODS.filter((method) => document.paths[operation.path]?.[method]).map((method) =>
      method.toUpperCase(),
    )

  return {
    intercept: createInterceptor({ table, seed: options.seed, allowOf, check }),
    handlers: scenarioControlHandlers({
      table,
      router,
      accounts: options.accounts,
      keys: options.keys,
      clock: options.clock,
    }),
    /**
     * Removes the scenarios of a deleted account: those narrowed to it, and those narrowed to a key that is gone
     * with it (call after its keys were removed).
     */
    removeAccount(accountId: string): void {
      for (const scenario of table.newestFirst())
        if (
          scenario.account_id === accountId ||
          (scenario.key_id !== null && !options.keys.get(scenario.key_id))
        )
          table.remove(scenario.id)
    },
  }
}

export type Scenarios = ReturnType<typeof createScenarios>
