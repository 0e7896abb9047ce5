import { errors } from '../api-error.ts'
import type { Clock } from '../clock.ts'
import type { ControlHandler } from '../control/control-handler.ts'
import { json } from '../json-answer.ts'
import { assertRoom, LIMITS } from '../limits.ts'
import { newId } from '../random.ts'
import { injectableStatuses } from './operation-statuses.ts'
import { type ScenarioInputContext, scenarioInputProblems } from './scenario-input.ts'
import { presentScenario, type ScenarioInput, type ScenarioTable } from './scenario-table.ts'

/** Scenarios in a page of `GET /_mock/scenarios` when `limit` is left out (also its most). */
const DEFAULT_PAGE = 100

export interface ScenarioControlOptions extends ScenarioInputContext {
  table: ScenarioTable
  clock: Clock
}

/**
 * The control plane's scenario operations (`openapi/mock-control.yaml`, tag Scenarios), as a handler table for
 * `createControlPlane({ handlers })`: the body arrives validated against the contract's schema.
 */
export function scenarioControlHandlers(options: ScenarioControlOptions): Record<string, ControlHandler> {
  const { table, router } = options

  function found(id: string) {
    const scenario = table.get(id)
    if (!scenario) throw errors.resourceNotFound('scenario', id, 'scenario_id')
    return scenario
  }

  return {
    createScenario({ body }) {
      const input = body as ScenarioInput
      const problems = scenarioInputProblems(input, options)
      if (problems.length > 0) throw errors.validationFailed(problems)
      assertRoom(table.size(), LIMITS.scenarios, 'scenarios')
      const stored = table.add({
        id: newId('scn'),
        operation: input.operation,
        account_id: input.account_id ?? null,
        key_id: input.key_id ?? null,
        status: input.status ?? null,
        delay: input.delay ?? null,
        network_error: input.network_error ?? null,
        times: input.times ?? null,
        probability: input.probability ?? 1,
        created_at: options.clock.iso(),
      })
      return json(201, presentScenario(stored))
    },
    listScenarios({ query }) {
      const limit = (query.limit as number | undefined) ?? DEFAULT_PAGE
      const all = table.newestFirst()
      let from = 0
      if (query.starting_after !== undefined) {
        const after = all.findIndex((scenario) => scenario.id === query.starting_after)
        if (after < 0)
          throw errors.invalidParameter(
            'starting_after',
            `No scenario with id '${String(query.starting_after)}' (used up or removed since?): list again from the start.`,
          )
        from = after + 1
      }
      const page = all.slice(from, from + limit)
      return json(200, {
        object: 'list',
        data: page.map(presentScenario),
        has_more: from + limit < all.length,
      })
    },
    getScenario: ({ params }) => json(200, presentScenario(found(params.scenario_id ?? ''))),
    deleteScenario({ params }) {
      const scenario = found(params.scenario_id ?? '')
      table.remove(scenario.id)
      return json(200, { id: scenario.id, object: 'scenario', deleted: true })
    },
    clearScenarios: () => json(200, { object: 'scenarios_cleared', deleted: table.clear() }),
    listOperations: () =>
      json(200, {
        object: 'list',
        has_more: false,
        data: router.operations().map((operation) => ({
          object: 'operation',
          operation_id: operation.operationId,
          method: operation.method.toUpperCase(),
          path: operation.path,
          scenario_statuses: injectableStatuses(operation),
        })),
      }),
  }
}
