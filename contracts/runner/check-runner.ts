import { cannotWrite } from '../checks/cannot-write.ts'
import { conformanceProblems } from '../checks/conformance.ts'
import { CheckSkipped, ContractFailure } from '../checks/failure.ts'
import type { CheckCallInput, CheckContext, ContractCheck } from '../checks/types.ts'
import { usedUpWindowCheck } from '../checks/used-up-window.ts'
import type { Contract } from '../contract/contract.ts'
import type { ApiClient } from '../http/client.ts'
import { BudgetExhausted, RetryTooLong, TargetUnreachable } from '../http/errors.ts'
import { describeExchange, type Exchange, toCurl } from '../http/exchange.ts'
import type { Pacer } from '../http/pacer.ts'
import { isSafeMethod, type ResponseCache } from '../http/response-cache.ts'
import type { Keyring } from '../provision/keyring.ts'
import type { MockControl } from '../provision/mock-control.ts'
import type { Plan, TargetConfig } from '../target/target.ts'
import { unmetNeed } from './needs.ts'
import type { CheckOutcome, FailureReport } from './outcome.ts'
import { prismProblems } from './prism.ts'
import type { createTeardown } from './teardown.ts'

/** What running a check needs from its session. */
export interface CheckRunnerDeps {
  contract: Contract
  config: Readonly<TargetConfig>
  keys: Keyring
  runId: string
  mock?: MockControl
  plan?: Plan
  stateless: boolean
  provisioned: boolean
  teardown: ReturnType<typeof createTeardown>
  cache: ResponseCache
  pacer: Pacer
  /** Within the request budget, paced within the account's rate limit. */
  budgeted: ApiClient
  /** Outside the budget, never paced: rate-limit probes. */
  limitClient: ApiClient
}

/**
 * Runs one check at a time: decides whether it can run (needs, statelessness), gives it a context whose
 * every answer is checked against the contract, and turns what it throws into an outcome. Safe requests
 * that an earlier check already sent are answered from the run's cache (unless the check asks for `fresh`).
 */
export function createCheckRunner(deps: CheckRunnerDeps) {
  const { contract, config, keys, teardown, cache } = deps
  const requestIds = new Set<string>()
  const sentSecrets = new Set<string>()
  // The requests of usedUpWindowCheck cost nothing only while a window is used up: they are sent the first
  // time a paced request has to wait for one, before the wait, and the outcome is reported at the check's place.
  let usedUp: Promise<CheckOutcome> | undefined
  if (!config.areas?.length || config.areas.includes(usedUpWindowCheck.area))
    deps.pacer.onceUsedUp(async () => {
      usedUp = run(usedUpWindowCheck)
      await usedUp
    })

  function report(expected: string, actual: string, exchange?: Exchange): FailureReport {
    const secrets = [...keys.secrets(), ...sentSecrets]
    if (!exchange) return { expected, actual }
    const [request = '', response = ''] = describeExchange(exchange, secrets).split(/\n(?=< \d{3} )/)
    return { expected, actual, request, response, curl: toCurl(exchange.request, keys.names, secrets) }
  }

  async function run(check: ContractCheck): Promise<CheckOutcome> {
    if (check === usedUpWindowCheck && usedUp) return usedUp
    const started = performance.now()
    const notes: string[] = []
    let requests = 0
    let cacheHits = 0
    let last: Exchange | undefined
    const outcome = (status: CheckOutcome['status'], extra: Partial<CheckOutcome> = {}): CheckOutcome => ({
      check,
      status,
      notes,
      durationMs: performance.now() - started,
      requests,
      cacheHits,
      ...extra,
    })
    if (deps.stateless && !check.stateless)
      return outcome('not-applicable', {
        reason: 'not applicable: the target is stateless (it answers from examples)',
      })
    const unmet = unmetNeed(check.needs ?? [], {
      config,
      keys,
      plan: deps.plan,
      provisioned: deps.provisioned,
    })
    if (unmet) return outcome('skipped', { reason: unmet })

    const ctx: CheckContext = {
      contract,
      target: config,
      keys,
      runId: deps.runId,
      mock: deps.mock,
      plan: deps.plan,
      skip(reason) {
        throw new CheckSkipped(reason)
      },
      note: (message) => void notes.push(message),
      track: (path, key) => teardown.track(path, key ?? keys.secret),
      untrack: (path) => teardown.untrack(path),
      defer: (undo) => teardown.defer(undo),
      wait: (seconds, reason) => deps.pacer.wait(seconds * 1000, reason),
      async call(input: CheckCallInput) {
        const method = input.method.toUpperCase()
        if (
          !isSafeMethod(method) &&
          method !== 'OPTIONS' &&
          !config.destructive &&
          !cannotWrite(input, keys.secrets())
        )
          throw new CheckSkipped('writes data: run with --destructive')
        const key = input.key === undefined ? keys.secret : input.key
        if (input.sensitive) for (const value of input.sensitive) sentSecrets.add(value)
        const send = { ...input, key, accept429: input.rateLimitProbe ?? input.accept429 }
        const shared = input.rateLimitProbe || input.fresh ? undefined : cache.get(send)
        // A request that cannot write (cannot-write.ts) changes nothing, whatever it is answered: the answers
        // kept for the run stay true.
        const changes = !isSafeMethod(method) && !cannotWrite(send, keys.secrets())
        let exchange: Exchange
        if (shared) {
          exchange = { ...shared, operationId: input.operationId ?? shared.operationId }
          cacheHits++
        } else {
          exchange = await (input.rateLimitProbe ? deps.limitClient : deps.budgeted).send(send)
          requests++
          if (changes) cache.invalidate()
          else if (!input.rateLimitProbe && isSafeMethod(method)) cache.store(send, exchange)
        }
        last = exchange
        const status = exchange.response.status
        const body = exchange.response.json as { id?: unknown } | undefined
        if (!shared && method === 'POST' && status >= 200 && status < 300 && typeof body?.id === 'string')
          teardown.track(`${input.path.split('?')[0]}/${body.id}`, keys.secret)
        const fromPrism = prismProblems(exchange)
        if (input.conformance === false) return exchange
        const problems = conformanceProblems(
          contract,
          exchange,
          input.path,
          [...keys.secrets(), ...sentSecrets],
          keys.secrets(),
        )
        problems.push(...fromPrism)
        const requestId = exchange.response.headers['request-id']
        if (requestId && !deps.stateless && !shared) {
          if (requestIds.has(requestId))
            problems.push(`Request-Id ${requestId} repeats an earlier response's`)
          requestIds.add(requestId)
        }
        if (problems.length > 0)
          throw new ContractFailure('a response that conforms to the contract', problems.join('; '), exchange)
        return exchange
      },
    }
    try {
      await check.run(ctx)
      return outcome('passed')
    } catch (error) {
      if (error instanceof CheckSkipped)
        return outcome(error.notApplicable ? 'not-applicable' : 'skipped', { reason: error.reason })
      if (error instanceof BudgetExhausted || error instanceof RetryTooLong)
        return outcome('skipped', { reason: error.message })
      if (error instanceof TargetUnreachable)
        return outcome('failed', {
          failure: report('an answer from the target', error.message),
          unreachable: true,
        })
      const failure =
        error instanceof ContractFailure
          ? report(error.expected, error.actual, error.exchange)
          : report(
              'the check to run',
              `an error: ${error instanceof Error ? error.message : String(error)}`,
              last,
            )
      return outcome('failed', { failure })
    }
  }

  return { run }
}
