import { conformanceProblems } from '../checks/conformance.ts'
import { CheckSkipped, ContractFailure } from '../checks/failure.ts'
import type { CheckCallInput, CheckContext, ContractCheck } from '../checks/types.ts'
import { type Contract, createContract } from '../contract/contract.ts'
import { BudgetExhausted, createClient, RetryTooLong } from '../http/client.ts'
import { describeExchange, type Exchange, toCurl } from '../http/exchange.ts'
import { readRateLimitHeaders } from '../http/rate-limit-headers.ts'
import { fetchTransport, nodeTransport } from '../http/transport.ts'
import { type Keyring, keyringFromTarget } from '../provision/keyring.ts'
import { createMockControl, type MockControl } from '../provision/mock-control.ts'
import { type Provisioned, provisionMock } from '../provision/provision-mock.ts'
import { PLAN_HOURLY_QUOTA, type Plan, type TargetConfig } from '../target/target.ts'
import { unmetNeed } from './needs.ts'
import type { CheckOutcome, FailureReport, TeardownReport } from './outcome.ts'
import { prismProblems } from './prism.ts'
import { createTeardown } from './teardown.ts'

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
  run(check: ContractCheck): Promise<CheckOutcome>
  /** Removes what the run created and undoes provisioning; safe to call once, whatever failed. */
  close(): Promise<TeardownReport>
}

/** A problem with the configuration: the run cannot start. */
export class ConfigError extends Error {}

const randomId = () =>
  Array.from(
    crypto.getRandomValues(new Uint8Array(8)),
    (b) => 'abcdefghijkmnpqrstuvwxyz23456789'[b % 32],
  ).join('')

/** Opens a session: loads the contract, provisions or takes the keys, reads the plan, detects a stateless target. */
export async function openSession(config: TargetConfig): Promise<Session> {
  const contract = createContract(config.contractPath)
  const runId = randomId()
  const baseUrl = config.baseUrl.replace(/\/+$/, '')
  const transport = config.fetch ? fetchTransport(config.fetch) : nodeTransport()
  let provisioned: Provisioned | undefined
  let mock: MockControl | undefined
  let keys: Keyring
  if (config.provision === 'mock') {
    mock = createMockControl({
      root: config.mockControlUrl ?? `${baseUrl.replace(/\/v1$/, '')}/_mock`,
      adminToken: config.mockAdminToken,
      transport,
    })
    provisioned = await provisionMock(mock, contract.scopes, runId)
    keys = provisioned.keyring
  } else {
    if (!config.secretKey)
      throw new ConfigError('A secret key is required (--secret-key or VOICE_API_KEY), or --provision mock.')
    keys = keyringFromTarget({ ...config, secretKey: config.secretKey })
  }
  const maxWaitSeconds = config.maxWaitSeconds ?? 60
  // Outside the budget and never paced: the session's probes, the rate-limit checks, teardown.
  const limitClient = createClient({
    baseUrl,
    transport,
    budget: Number.POSITIVE_INFINITY,
    maxWaitSeconds,
    pace: false,
  })

  const probe = await limitClient.send({
    method: 'GET',
    path: '/user',
    key: keys.secret,
    operationId: 'getUser',
  })
  if (probe.response.status === 401)
    throw new ConfigError(
      `The secret key is not accepted by ${baseUrl}/user (401): check --secret-key / VOICE_API_KEY.`,
    )
  const user = probe.response.json as { plan?: Plan } | undefined
  const plan = config.plan ?? user?.plan
  let stateless = config.stateless === true
  if (!provisioned && (config.stateless === undefined || config.stateless === 'auto')) {
    // A stateful implementation answers 404 for an agent that cannot exist; a mock answering from examples
    // answers 200 with an example agent (whose id is not the one asked for).
    const probeId = 'agt_0ContractSuiteProbe0'
    const unknown = await limitClient.send({ method: 'GET', path: `/agents/${probeId}`, key: keys.secret })
    const answered = unknown.response.json as { id?: unknown } | undefined
    stateless = unknown.response.status === 200 && answered?.id !== probeId
  }
  const budget = config.budget ?? defaultBudget(provisioned !== undefined, plan, probe)
  const budgeted = createClient({
    baseUrl,
    transport,
    budget,
    maxWaitSeconds,
    pace: !provisioned,
  })
  const teardown = createTeardown(limitClient, provisioned)
  const requestIds = new Set<string>()
  const sentSecrets = new Set<string>()

  const session: Session = {
    contract,
    target: config,
    keys,
    runId,
    stateless,
    plan,
    mock,
    async run(check) {
      const started = performance.now()
      const notes: string[] = []
      let requests = 0
      let last: Exchange | undefined
      const outcome = (status: CheckOutcome['status'], extra: Partial<CheckOutcome> = {}): CheckOutcome => ({
        check,
        status,
        notes,
        durationMs: performance.now() - started,
        requests,
        ...extra,
      })
      if (stateless && !check.stateless)
        return outcome('not-applicable', {
          reason: 'not applicable: the target is stateless (it answers from examples)',
        })
      const unmet = unmetNeed(check.needs ?? [], {
        config,
        keys,
        plan,
        provisioned: provisioned !== undefined,
      })
      if (unmet) return outcome('skipped', { reason: unmet })

      const ctx: CheckContext = {
        contract,
        target: config,
        keys,
        runId,
        mock,
        plan,
        skip(reason) {
          throw new CheckSkipped(reason)
        },
        note: (message) => void notes.push(message),
        track: (path, key) => teardown.track(path, key ?? keys.secret),
        untrack: (path) => teardown.untrack(path),
        defer: (undo) => teardown.defer(undo),
        async call(input: CheckCallInput) {
          const method = input.method.toUpperCase()
          if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS' && !config.destructive)
            throw new CheckSkipped('writes data: run with --destructive')
          const key = input.key === undefined ? keys.secret : input.key
          if (input.sensitive) for (const value of input.sensitive) sentSecrets.add(value)
          const sender = input.rateLimitProbe ? limitClient : budgeted
          const exchange = await sender.send({
            ...input,
            key,
            accept429: input.rateLimitProbe ?? input.accept429,
          })
          requests++
          last = exchange
          const status = exchange.response.status
          const body = exchange.response.json as { id?: unknown } | undefined
          if (method === 'POST' && status >= 200 && status < 300 && typeof body?.id === 'string')
            teardown.track(`${input.path.split('?')[0]}/${body.id}`, keys.secret)
          const fromPrism = prismProblems(exchange)
          if (input.conformance === false) return exchange
          const problems = conformanceProblems(contract, exchange, input.path, [
            ...keys.secrets(),
            ...sentSecrets,
          ])
          problems.push(...fromPrism)
          const requestId = exchange.response.headers['request-id']
          if (requestId && !stateless) {
            if (requestIds.has(requestId))
              problems.push(`Request-Id ${requestId} repeats an earlier response's`)
            requestIds.add(requestId)
          }
          if (problems.length > 0)
            throw new ContractFailure(
              'a response that conforms to the contract',
              problems.join('; '),
              exchange,
            )
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
    },
    close: () => teardown.run(),
  }

  function report(expected: string, actual: string, exchange?: Exchange): FailureReport {
    const secrets = [...keys.secrets(), ...sentSecrets]
    if (!exchange) return { expected, actual }
    const [request = '', response = ''] = describeExchange(exchange, secrets).split(/\n(?=< \d{3} )/)
    return { expected, actual, request, response, curl: toCurl(exchange.request, keys.names, secrets) }
  }
  return session
}

function defaultBudget(provisioned: boolean, plan: Plan | undefined, probe: Exchange): number {
  if (provisioned) return Number.POSITIVE_INFINITY
  const parsed = readRateLimitHeaders(probe.response.headers)
  const hourly = parsed.ok ? parsed.value.remaining('hourly') : undefined
  const left = hourly ?? PLAN_HOURLY_QUOTA[plan ?? 'free']
  return Math.max(1, Math.floor(left * 0.8))
}
