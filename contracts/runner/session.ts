import { UNKNOWN_IDS } from '../checks/fixtures.ts'
import type { ContractCheck } from '../checks/types.ts'
import { type Contract, createContract } from '../contract/contract.ts'
import { type CallInput, createClient } from '../http/client.ts'
import type { Exchange } from '../http/exchange.ts'
import { createPacer, type WaitEvent } from '../http/pacer.ts'
import { readRateLimitHeaders } from '../http/rate-limit-headers.ts'
import { createResponseCache, type ResponseCache } from '../http/response-cache.ts'
import { fetchTransport, nodeTransport, type Transport } from '../http/transport.ts'
import { type Keyring, keyringFromTarget } from '../provision/keyring.ts'
import { createMockControl, type MockControl } from '../provision/mock-control.ts'
import { type Provisioned, provisionLanes, provisionMock } from '../provision/provision-mock.ts'
import { type OptionNames, secretKeyProblem, TARGET_CONFIG_NAMES } from '../target/option-names.ts'
import { PLAN_HOURLY_QUOTA, type Plan, type TargetConfig } from '../target/target.ts'
import { createCheckRunner, type Lane, type Prepared } from './check-runner.ts'
import { type Coverage, createCoverage } from './coverage.ts'
import type { CheckOutcome, TeardownReport } from './outcome.ts'
import { ConfigError, judgeProbe, probeFailure, provisionFailure } from './preflight.ts'
import { createTeardown } from './teardown.ts'

export { ConfigError }

/** How a run waits and tells about waiting (tests give a virtual clock; the command prints progress). */
export interface SessionOptions {
  now?: () => number
  sleep?: (ms: number) => Promise<void>
  /** Told before every wait: what the run waits for and how long. */
  onWait?: (event: WaitEvent) => void
  /** How errors name the settings (default: the fields of `TargetConfig`; the command: its flags). */
  names?: OptionNames
  /**
   * With mock provisioning: the mock's capsule (`GET /_mock/capsule`) is taken before each check, and this is
   * told of it when the check fails, with the check (the state to reproduce the failure from). Unset: none taken.
   */
  onFailedCapsule?: (check: ContractCheck, capsule: string) => void
}

/** What a run cost: requests sent to the API, answers shared from the run's cache, time spent waiting. */
export interface RunStats {
  requests: number
  /**
   * Requests the account's rate limit counts: every answer of the API but 401 and 429
   * (docs/decisions/006-rate-limits.md); requests outside the base URL (another version) reach no API.
   */
  counted: number
  cacheHits: number
  waits: number
  waitedMs: number
}

/** A run against one target: the contract, the keys, the clients, and what to clean up. */
export interface Session {
  contract: Contract
  target: Readonly<TargetConfig>
  keys: Keyring
  runId: string
  /** Whether the target is stateless (a mock answering from examples), so stateful checks do not apply. */
  stateless: boolean
  plan?: Plan
  mock?: MockControl
  /** Most requests the checks may send (`--budget`, or 80% of the hourly quota left). */
  budget: number
  /** The account's windows as the first answer advertised them (`RateLimit-Policy`, `RateLimit`). */
  limits: { name: string; quota?: number; seconds?: number; remaining: number }[]
  /**
   * Runs a check on a lane (0, the default: the run's main account) and tells how it went. `alongside`: other
   * checks may run meanwhile (then the check may not move the mock's clock).
   */
  run(
    check: ContractCheck,
    options?: { lane?: number; alongside?: boolean; prepared?: Promise<Prepared | undefined> },
  ): Promise<CheckOutcome>
  /**
   * Runs an exclusive check's `prepare` now, beside other checks, on the main lane (where the check will run);
   * pass what it gives to `run` as `prepared`.
   */
  prepare(check: ContractCheck): Promise<Prepared | undefined>
  /**
   * Makes `count` lanes in all for checks that run at the same time, each on an account of its own with keys
   * of every kind and a cache of its own (a provisioned run only: elsewhere there is one lane, the account
   * under test). Returns how many lanes there are.
   */
  openLanes(count: number): Promise<number>
  /** After a check lost the connection: undefined when the target answers again, else why not. */
  stillReachable(): Promise<string | undefined>
  stats(): RunStats
  coverage(): Coverage
  /** Removes what the run created and undoes provisioning; safe to call once, whatever failed. */
  close(): Promise<TeardownReport>
}

const randomId = () =>
  Array.from(
    crypto.getRandomValues(new Uint8Array(8)),
    (b) => 'abcdefghijkmnpqrstuvwxyz23456789'[b % 32],
  ).join('')

/**
 * Opens a session: loads the contract, provisions or takes the keys, checks that the target answers and
 * accepts the key (one clear error otherwise), reads the plan and the rate limit, detects a stateless target.
 */
export async function openSession(config: TargetConfig, options: SessionOptions = {}): Promise<Session> {
  const names = options.names ?? TARGET_CONFIG_NAMES
  // Known by its text, before any request: a publishable key in place of the secret key.
  const keyProblem = config.provision === 'mock' ? undefined : secretKeyProblem(config.secretKey, names)
  if (keyProblem) throw new ConfigError(keyProblem)
  const contract = createContract(config.contractPath)
  const runId = randomId()
  const baseUrl = config.baseUrl.replace(/\/+$/, '')
  const transport = config.fetch ? fetchTransport(config.fetch) : nodeTransport()
  const cache = createResponseCache()
  const caches: ResponseCache[] = [cache]
  const coverage = createCoverage(contract, baseUrl)
  const maxWaitSeconds = config.maxWaitSeconds ?? 60
  const pacer = createPacer({
    maxWaitSeconds,
    now: options.now,
    sleep: options.sleep,
    onWait: options.onWait,
  })
  let provisioned: Provisioned | undefined
  let mock: MockControl | undefined
  let keys: Keyring
  if (config.provision === 'mock') {
    const root = config.mockControlUrl ?? `${baseUrl.replace(/\/v1$/, '')}/_mock`
    // Anything the control plane changes (keys, accounts, the clock) can change what the API answers, to
    // any lane.
    const control: Transport = (request) => {
      if (request.method !== 'GET') for (const each of caches) each.invalidate()
      return transport(request)
    }
    mock = createMockControl({ root, adminToken: config.mockAdminToken, transport: control })
    try {
      provisioned = await provisionMock(mock, contract.scopes, runId)
    } catch (error) {
      throw provisionFailure(error, root, names)
    }
    keys = provisioned.keyring
  } else {
    if (!config.secretKey)
      throw new ConfigError(`A secret key is required (${names.secretKey}), or ${names.provisionMock}.`)
    keys = keyringFromTarget({ ...config, secretKey: config.secretKey })
  }
  let counted = 0
  const apiPath = `${new URL(baseUrl).pathname.replace(/\/+$/, '')}/`
  const record = (exchange: Exchange) => {
    coverage.record(exchange)
    const { status } = exchange.response
    if (status !== 401 && status !== 429 && new URL(exchange.request.url).pathname.startsWith(apiPath))
      counted++
  }
  // Outside the budget and never paced: the session's probes, the rate-limit checks, teardown.
  const limitClient = createClient({
    baseUrl,
    transport,
    budget: Number.POSITIVE_INFINITY,
    maxWaitSeconds,
    pace: false,
    pacer,
    onExchange: record,
  })
  const teardown = createTeardown(limitClient, provisioned)
  const abandon = async (error: unknown) => {
    await teardown.run().catch(() => undefined)
    return error
  }

  const probeInput: CallInput = { method: 'GET', path: '/user', key: keys.secret }
  let probe: Exchange
  try {
    probe = await limitClient.send({ ...probeInput, operationId: 'getUser' })
    judgeProbe(probe, baseUrl, keys.secrets(), names)
  } catch (error) {
    throw await abandon(probeFailure(error, baseUrl, names))
  }
  pacer.observe(probe.response.headers)
  cache.store(probeInput, probe)
  const user = probe.response.json as { plan?: Plan } | undefined
  const plan = config.plan ?? user?.plan
  let stateless = config.stateless === true
  if (!provisioned && (config.stateless === undefined || config.stateless === 'auto')) {
    // A stateful implementation answers 404 for an agent that cannot exist; a mock answering from examples
    // answers 200 with an example agent (whose id is not the one asked for).
    const probeId = UNKNOWN_IDS.agent_id as string
    const input: CallInput = { method: 'GET', path: `/agents/${probeId}`, key: keys.secret }
    try {
      const unknown = await limitClient.send({ ...input, operationId: 'getAgent' })
      pacer.observe(unknown.response.headers)
      cache.store(input, unknown)
      const answered = unknown.response.json as { id?: unknown } | undefined
      stateless = unknown.response.status === 200 && answered?.id !== probeId
    } catch (error) {
      throw await abandon(probeFailure(error, baseUrl, names))
    }
  }
  const budget = config.budget ?? defaultBudget(provisioned !== undefined, plan, probe)
  const budgeted = createClient({
    baseUrl,
    transport,
    budget,
    maxWaitSeconds,
    pace: !provisioned,
    pacer,
    onExchange: record,
  })
  const lanes: Lane[] = [{ keys, cache }]
  const runner = createCheckRunner({
    main: lanes[0] as Lane,
    contract,
    config,
    runId,
    mock,
    plan,
    stateless,
    provisioned: provisioned !== undefined,
    missing: provisioned?.missing,
    teardown,
    secrets: () => lanes.flatMap((lane) => lane.keys.secrets()),
    pacer,
    budgeted,
    limitClient,
  })

  const runOn: Session['run'] = (check, options = {}) =>
    runner.run(check, lanes[options.lane ?? 0] ?? (lanes[0] as Lane), {
      alongside: options.alongside,
      prepared: options.prepared,
    })

  return {
    contract,
    target: config,
    keys,
    runId,
    stateless,
    plan,
    mock,
    budget,
    limits: pacer.windows(),
    run: options.onFailedCapsule && mock ? capturing(mock, runOn, options.onFailedCapsule) : runOn,
    prepare: (check) => runner.prepare(check, lanes[0] as Lane),
    async openLanes(count) {
      if (!mock || count <= lanes.length) return lanes.length
      const made = await provisionLanes(mock, contract.scopes, runId, count - lanes.length, keys.callLogs)
      teardown.defer(made.remove)
      for (const keyring of made.keyrings) {
        const own = createResponseCache()
        caches.push(own)
        lanes.push({ keys: keyring, cache: own })
      }
      return lanes.length
    },
    async stillReachable() {
      try {
        await limitClient.send({ ...probeInput, operationId: 'getUser', accept429: true })
        return undefined
      } catch (error) {
        return probeFailure(error, baseUrl, names).message
      }
    },
    stats: () => ({
      requests: budgeted.used() + limitClient.used(),
      counted,
      cacheHits: caches.reduce((sum, each) => sum + each.hits(), 0),
      ...pacer.stats(),
    }),
    coverage: () => coverage.matrix(),
    close: () => teardown.run(),
  }
}

/**
 * Runs checks with the mock's capsule taken before each one and handed over when the check fails. A mock that
 * cannot give one (an older version) is not asked again. Checks that start at the same time share a capsule:
 * one asked for after the last check of a lane ended (and before this one began) is a state before it, with
 * all its lane's account as it was, so a check joins such a request under way instead of asking again.
 */
function capturing(
  mock: MockControl,
  run: Session['run'],
  onFailed: (check: ContractCheck, capsule: string) => void,
): Session['run'] {
  let available = true
  let asked: { at: number; capsule: Promise<string | undefined> } | undefined
  const laneDone = new Map<number, number>()
  const capsuleBefore = (lane: number): Promise<string | undefined> => {
    if (asked && asked.at > (laneDone.get(lane) ?? Number.NEGATIVE_INFINITY)) return asked.capsule
    const request = { at: performance.now(), capsule: mock.capsuleText().catch(() => undefined) }
    asked = request
    void request.capsule.then(() => {
      if (asked === request) asked = undefined
    })
    return request.capsule
  }
  return async (check, options = {}) => {
    const lane = options.lane ?? 0
    const before = available ? await capsuleBefore(lane) : undefined
    if (before === undefined) available = false
    const outcome = await run(check, options)
    laneDone.set(lane, performance.now())
    if (outcome.status === 'failed' && before !== undefined) onFailed(check, before)
    return outcome
  }
}

function defaultBudget(provisioned: boolean, plan: Plan | undefined, probe: Exchange): number {
  if (provisioned) return Number.POSITIVE_INFINITY
  const parsed = readRateLimitHeaders(probe.response.headers)
  const hourly = parsed.ok ? parsed.value.remaining('hourly') : undefined
  const left = hourly ?? PLAN_HOURLY_QUOTA[plan ?? 'free']
  return Math.max(1, Math.floor(left * 0.8))
}
