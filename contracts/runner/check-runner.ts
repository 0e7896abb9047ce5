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
import type { MissingCapabilities } from '../provision/control-capabilities.ts'
import type { Keyring } from '../provision/keyring.ts'
import type { MockControl } from '../provision/mock-control.ts'
import type { Plan, TargetConfig } from '../target/target.ts'
import { isReadOnlyRun, unmetNeed } from './needs.ts'
import type { CheckOutcome, FailureReport, ProgressEvent } from './outcome.ts'
import { prismProblems } from './prism.ts'
import type { createTeardown } from './teardown.ts'

/**
 * Where a check runs: an account with its keys (the run's main account, or one of its own when checks run
 * at the same time), and the cache of answers shared by the checks that run there, one after another.
 */
export interface Lane {
  keys: Keyring
  cache: ResponseCache
}

/** What running a check needs from its session. */
export interface CheckRunnerDeps {
  contract: Contract
  config: Readonly<TargetConfig>
  runId: string
  mock?: MockControl
  plan?: Plan
  stateless: boolean
  provisioned: boolean
  /** The optional capabilities the provisioned control plane lacks, with the reason. */
  missing?: MissingCapabilities
  teardown: ReturnType<typeof createTeardown>
  /** Every key of the run, every lane's: no report shows one, no answer may echo one. */
  secrets(): string[]
  pacer: Pacer
  /** Within the request budget, paced within the account's rate limit. */
  budgeted: ApiClient
  /** Outside the budget, never paced: rate-limit probes. */
  limitClient: ApiClient
  /** Told a long check's progress (exploration). */
  onProgress?: (event: ProgressEvent) => void
  /** The run's main lane (the account under test): where a check runs unless told otherwise. */
  main: Lane
}

/** The control plane as a check that runs beside others sees it: moving the clock is refused. */
function besideOthers(mock: MockControl, check: ContractCheck): MockControl {
  return {
    ...mock,
    advanceClock: async () => {
      throw new Error(
        `${check.id} moves the mock's clock while other checks run: a check that moves the clock must be marked exclusive (it then runs alone)`,
      )
    },
  }
}

/**
 * What an exclusive check's `prepare` made before its turn, beside the other checks (or what it threw), and
 * what that cost: counted in the check's outcome.
 */
export interface Prepared {
  value?: unknown
  error?: unknown
  requests: number
  cacheHits: number
  notes: string[]
}

/** How a check runs: beside others or alone, and what its `prepare` already made. */
export interface RunMode {
  /** Other checks may run meanwhile: the check may not move the mock's clock. */
  alongside?: boolean
  /** What `prepare` made ahead (the check then does not prepare again). */
  prepared?: Promise<Prepared | undefined>
}

/**
 * Runs checks: decides whether each can run (needs, statelessness), gives it a context whose every answer is
 * checked against the contract, and turns what it throws into an outcome. Safe requests that an earlier
 * check of the same lane already sent are answered from the lane's cache (unless the check asks for
 * `fresh`). A check that runs `alongside` others cannot move the mock's clock (it fails saying so).
 */
export function createCheckRunner(deps: CheckRunnerDeps) {
  const { contract, config, teardown } = deps
  const requestIds = new Set<string>()
  const sentSecrets = new Set<string>()
  // The requests of usedUpWindowCheck cost nothing only while a window is used up: they are sent the first
  // time a paced request has to wait for one, before the wait, and the outcome is reported at the check's place.
  let usedUp: Promise<CheckOutcome> | undefined
  if (!config.areas?.length || config.areas.includes(usedUpWindowCheck.area))
    deps.pacer.onceUsedUp(async () => {
      usedUp = run(usedUpWindowCheck, deps.main)
      await usedUp
    })

  /** Why the check cannot run here, as its outcome's status and reason; undefined when it can. */
  function cannotRun(check: ContractCheck, lane: Lane) {
    if (deps.stateless && !check.stateless)
      return {
        status: 'not-applicable' as const,
        reason: 'not applicable: the target is stateless (it answers from examples)',
      }
    const unmet = unmetNeed(check.needs ?? [], {
      config,
      keys: lane.keys,
      plan: deps.plan,
      provisioned: deps.provisioned,
      missing: deps.missing,
    })
    if (!unmet) return undefined
    return {
      status: unmet.notApplicable ? ('not-applicable' as const) : ('skipped' as const),
      reason: unmet.reason,
    }
  }

  /**
   * The context of one check, counting what it sends in `tally`. `ahead`: the context of `prepare` run before
   * the check's turn, beside other checks: it sends nothing with the run's keys (their accounts are the other
   * checks'), only with keys it made through the control plane.
   */
  function contextFor(
    check: ContractCheck,
    lane: Lane,
    alongside: boolean,
    tally: Omit<Prepared, 'value' | 'error'> & { last?: Exchange },
    ahead = false,
  ): CheckContext {
    const { keys, cache } = lane
    return {
      contract,
      target: config,
      keys,
      runId: deps.runId,
      mock: alongside && deps.mock ? besideOthers(deps.mock, check) : deps.mock,
      plan: deps.plan,
      readOnly: isReadOnlyRun(config, deps.provisioned),
      skip(reason) {
        throw new CheckSkipped(reason)
      },
      note: (message) => void tally.notes.push(message),
      progress: (message) => deps.onProgress?.({ check, message }),
      track: (path, key) => teardown.track(path, key ?? keys.secret),
      untrack: (path) => teardown.untrack(path),
      defer: (undo) => teardown.defer(undo),
      wait: (seconds, reason) => deps.pacer.wait(seconds * 1000, reason),
      async call(input: CheckCallInput) {
        const key = input.key === undefined ? keys.secret : input.key
        if (ahead && key !== null && keys.secrets().includes(key))
          throw new Error(
            `${check.id} sends ${input.method} ${input.path} with the run's key in prepare: prepare runs beside other checks, on accounts and keys of its own`,
          )
        const method = input.method.toUpperCase()
        if (
          !isSafeMethod(method) &&
          method !== 'OPTIONS' &&
          !config.destructive &&
          !cannotWrite(input, keys.secrets())
        )
          throw new CheckSkipped('writes data: run with --destructive')
        if (input.sensitive) for (const value of input.sensitive) sentSecrets.add(value)
        const send = { ...input, key, accept429: input.rateLimitProbe ?? input.accept429 }
        const shared = input.rateLimitProbe || input.fresh ? undefined : cache.get(send)
        // A request that cannot write (cannot-write.ts) changes nothing, whatever it is answered: the answers
        // kept for the run stay true.
        const changes = !isSafeMethod(method) && !cannotWrite(send, keys.secrets())
        let exchange: Exchange
        if (shared) {
          exchange = { ...shared, operationId: input.operationId ?? shared.operationId }
          tally.cacheHits++
        } else {
          exchange = await (input.rateLimitProbe ? deps.limitClient : deps.budgeted).send(send)
          tally.requests++
          if (changes) cache.invalidate()
          else if (!input.rateLimitProbe && isSafeMethod(method)) cache.store(send, exchange)
        }
        tally.last = exchange
        const status = exchange.response.status
        const body = exchange.response.json as { id?: unknown } | undefined
        if (!shared && method === 'POST' && status >= 200 && status < 300 && typeof body?.id === 'string')
          teardown.track(`${input.path.split('?')[0]?.replace(/\/+$/, '')}/${body.id}`, keys.secret)
        const fromPrism = prismProblems(exchange)
        if (input.conformance === false) return exchange
        const problems = conformanceProblems(
          contract,
          exchange,
          input.path,
          [...keys.secrets(), ...sentSecrets],
          // Keys a check made up (a key nobody issued) are keys too: no part of one may come back either.
          [...keys.secrets(), ...sentSecrets],
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
  }

  /**
   * Runs a check's `prepare` before its turn, beside other checks: undefined when the check has none or cannot
   * run here (its turn then says why). What it throws is kept for the check's turn.
   */
  async function prepare(check: ContractCheck, lane: Lane): Promise<Prepared | undefined> {
    if (!check.prepare || cannotRun(check, lane)) return undefined
    const tally = { requests: 0, cacheHits: 0, notes: [] as string[] }
    try {
      const value = await check.prepare(contextFor(check, lane, true, tally, true))
      return { ...tally, value }
    } catch (error) {
      return { ...tally, error }
    }
  }

  async function run(check: ContractCheck, lane: Lane, mode: RunMode = {}): Promise<CheckOutcome> {
    if (check === usedUpWindowCheck && usedUp) return usedUp
    const started = performance.now()
    const ahead = await mode.prepared
    const tally = {
      requests: ahead?.requests ?? 0,
      cacheHits: ahead?.cacheHits ?? 0,
      notes: [...(ahead?.notes ?? [])],
      last: undefined as Exchange | undefined,
    }
    const outcome = (status: CheckOutcome['status'], extra: Partial<CheckOutcome> = {}): CheckOutcome => ({
      check,
      status,
      notes: tally.notes,
      durationMs: performance.now() - started,
      requests: tally.requests,
      cacheHits: tally.cacheHits,
      ...extra,
    })
    const refused = cannotRun(check, lane)
    if (refused) return outcome(refused.status, { reason: refused.reason })
    const report = (expected: string, actual: string, exchange?: Exchange): FailureReport => {
      const secrets = [...deps.secrets(), ...sentSecrets]
      if (!exchange) return { expected, actual }
      const [request = '', response = ''] = describeExchange(exchange, secrets).split(/\n(?=< \d{3} )/)
      return {
        expected,
        actual,
        request,
        response,
        curl: toCurl(exchange.request, lane.keys.names, secrets),
      }
    }

    const ctx = contextFor(check, lane, mode.alongside ?? false, tally)
    try {
      if (ahead?.error !== undefined) throw ahead.error
      if (check.prepare) ctx.prepared = ahead ? ahead.value : await check.prepare(ctx)
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
          ? { ...report(error.expected, error.actual, error.exchange), ...error.more }
          : report(
              'the check to run',
              `an error: ${error instanceof Error ? error.message : String(error)}`,
              tally.last,
            )
      return outcome('failed', { failure })
    }
  }

  return { run, prepare }
}
