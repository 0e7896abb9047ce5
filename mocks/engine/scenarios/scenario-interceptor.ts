import { ApiError } from '../api-error.ts'
import type { Operation } from '../contract/router.ts'
import type { JournalScenario } from '../journal.ts'
import type { ApiKey } from '../keys/key-store.ts'
import type { WindowState } from '../rate-limiter.ts'
import type { EngineRequest, EngineResponse, ResponseEffect } from '../types.ts'
import { injectedAnswer } from './injected-answer.ts'
import { documentedStatuses, injectableStatuses } from './operation-statuses.ts'
import { preferredCode } from './prefer-code.ts'
import { drawsFor, sampleDelay } from './scenario-draws.ts'
import type { ScenarioTable, StoredScenario } from './scenario-table.ts'

export type { JournalScenario }

/** A routed, authenticated and admitted v1 request, before its operation runs. */
export interface InterceptInput {
  request: EngineRequest
  operation: Operation
  key: ApiKey
  requestId: string
  /** The rate-limit windows after this request was counted, read at `now`. */
  windows: readonly WindowState[]
  now: number
}

/** What scenarios do to a request: answer in place of the operation, or mark (and delay) its real answer. */
export interface Interception {
  /** The answer in place of the operation's (which then does not run); undefined: the operation runs. */
  answer?: EngineResponse
  /** Adds the scenario's header and effect to the operation's real answer. */
  mark(response: EngineResponse): EngineResponse
  /** For the journal; undefined when the request itself was at fault (a malformed `Prefer`). */
  scenario?: JournalScenario
}

export interface InterceptorOptions {
  table: ScenarioTable
  /** The seed of the mock's random source (the state's, so that every process shares it). */
  seed: () => number
  /** The methods an operation's path documents (`Allow`). */
  allowOf: (operation: Operation) => string[]
  /** Checks an injected answer against the contract (a drift becomes a 500 naming it). */
  check: (operation: Operation, response: EngineResponse) => EngineResponse
}

const MOCK_SCENARIO = 'mock-scenario'

/** Sets the `Mock-Scenario` header and the effect on a response. */
function marked(response: EngineResponse, id: string, effect: ResponseEffect | undefined): EngineResponse {
  response.headers[MOCK_SCENARIO] = id
  if (effect) response.effect = effect
  return response
}

/** Whether a scenario applies to requests of this operation made with this key. */
function matches(scenario: StoredScenario, operation: Operation, key: ApiKey): boolean {
  if (scenario.operation !== '*' && scenario.operation !== operation.operationId) return false
  if (scenario.account_id !== null && scenario.account_id !== key.account_id) return false
  return scenario.key_id === null || scenario.key_id === key.id
}

/**
 * Scenarios and `Prefer: code=` applied to a request after authentication, the rate limit and routing, before
 * its operation runs (docs/decisions/012-scenarios.md). Synchronous: a use is counted in the same step that answers,
 * so `times` is exact whatever runs concurrently (also across processes on one store).
 */
export function createInterceptor(options: InterceptorOptions) {
  const { table } = options

  function answerWith(input: InterceptInput, status: number, message: string): EngineResponse {
    const answer = injectedAnswer({
      operation: input.operation,
      status,
      message,
      requestId: input.requestId,
      windows: input.windows,
      now: input.now,
      allow: options.allowOf(input.operation),
    })
    return options.check(input.operation, answer)
  }

  /** `Prefer: code=<status>`: an injected error, the real answer for a documented 2xx, or a 400. */
  function prefer(input: InterceptInput, code: number | 'malformed'): Interception | 'real' {
    const { operation } = input
    if (code !== 'malformed' && code < 300 && documentedStatuses(operation).includes(code)) return 'real'
    const allowed = injectableStatuses(operation)
    if (code === 'malformed' || !allowed.includes(code)) {
      const success = documentedStatuses(operation).filter((status) => status < 300)
      const choices = [...success, ...allowed].join(', ')
      const message =
        code === 'malformed'
          ? `Prefer: code= takes a three-digit status; for ${operation.operationId} one of ${choices}.`
          : `Prefer: code=${code} is not a status ${operation.operationId} documents; ask for one of ${choices}.`
      throw new ApiError(400, 'invalid_request_error', 'invalid_parameter', message, { param: 'Prefer' })
    }
    const answer = answerWith(input, code, `Injected by the request's header Prefer: code=${code}.`)
    answer.headers['preference-applied'] = `code=${code}`
    const scenario: JournalScenario = { id: 'prefer', delay_ms: null, network_error: null }
    return { answer: marked(answer, 'prefer', undefined), mark: (response) => response, scenario }
  }

  /** What one scenario that applies does to the request; `next` gives the rest of its draw. */
  function apply(input: InterceptInput, scenario: StoredScenario, next: () => number): Interception {
    const delayMs = scenario.delay ? sampleDelay(scenario.delay, next) : undefined
    const network = scenario.network_error ?? undefined
    const effect: ResponseEffect | undefined =
      delayMs === undefined && network === undefined
        ? undefined
        : { ...(delayMs === undefined ? {} : { delayMs }), ...(network ? { network } : {}) }
    const journal: JournalScenario = {
      id: scenario.id,
      delay_ms: delayMs ?? null,
      network_error: scenario.network_error,
    }
    const mark = (response: EngineResponse) => marked(response, scenario.id, effect)
    if (network)
      return {
        answer: mark(
          answerWith(
            input,
            503,
            `Mock scenario ${scenario.id} ${network === 'reset' ? 'drops the connection' : 'leaves the request unanswered'} (network_error ${network}); this client of the mock cannot see that, so it gets 503.`,
          ),
        ),
        mark,
        scenario: journal,
      }
    if (scenario.status !== null)
      return {
        answer: mark(
          answerWith(
            input,
            scenario.status,
            `Injected by mock scenario ${scenario.id} (${scenario.status}).`,
          ),
        ),
        mark,
        scenario: journal,
      }
    return { mark, scenario: journal }
  }

  return function intercept(input: InterceptInput): Interception | undefined {
    const code = preferredCode(input.request.headers.prefer)
    if (code !== undefined) {
      const preferred = prefer(input, code)
      return preferred === 'real' ? undefined : preferred
    }
    if (table.size() === 0) return undefined
    for (const scenario of table.newestFirst()) {
      if (!matches(scenario, input.operation, input.key)) continue
      const next = drawsFor(options.seed(), scenario.sequence, scenario.draws)
      const draws = scenario.draws + 1
      // Only a scenario with `times` makes a promise about its uses: its bookkeeping is durable.
      const soft = scenario.times === null
      if (scenario.probability < 1 && next() >= scenario.probability) {
        table.replace({ ...scenario, draws }, soft)
        continue
      }
      const uses = scenario.uses + 1
      if (scenario.times !== null && uses >= scenario.times) table.remove(scenario.id)
      else table.replace({ ...scenario, uses, draws }, soft)
      return apply(input, scenario, next)
    }
    return undefined
  }
}

export type Interceptor = ReturnType<typeof createInterceptor>
