import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { allChecks } from '../contracts/checks/index.ts'
import { createContract } from '../contracts/contract/contract.ts'
import { runChecks } from '../contracts/runner/run-checks.ts'
import { startMockServer } from './support/contract-command.ts'
import { type LatencyProxy, startLatencyProxy } from './support/latency-proxy.ts'

// A control plane may offer less than the mock's: simulated calls (`POST /_mock/accounts/{id}/calls`) are an
// optional capability. A check that needs one the target lacks is not applicable, with the reason, never
// failed: the run detects what the control plane offers once, when it provisions.

/** The checks that place calls through the control plane: the simulated-call check and the webhooks area. */
const PLACING_CALLS = allChecks(createContract())
  .filter((check) => check.id === 'resources/call-logs/simulated-call' || check.area === 'webhooks')
  .map((check) => check.id)

/** The mock's own 404 for a route it does not have (its envelope, its code). */
const routeNotFound = (method: string, path: string) => ({
  status: 404,
  body: {
    error: {
      type: 'not_found_error',
      code: 'route_not_found',
      message: `Unrecognized request URL (${method} ${path}).`,
    },
  },
})

describe('a control plane without simulated calls', () => {
  let mock: Awaited<ReturnType<typeof startMockServer>>
  let withoutCalls: LatencyProxy
  let asIs: LatencyProxy
  beforeAll(async () => {
    mock = await startMockServer({ checkResponses: false })
    withoutCalls = await startLatencyProxy(mock.origin, 0, {
      answer: (method, path) =>
        /^\/_mock\/accounts\/[^/]+\/calls$/.test(path) ? routeNotFound(method, path) : undefined,
    })
    asIs = await startLatencyProxy(mock.origin, 0)
  })
  afterAll(async () => {
    await withoutCalls?.close()
    await asIs?.close()
    await mock?.close()
    await mock?.platform.close()
  })

  const run = (proxy: LatencyProxy) =>
    runChecks(
      { baseUrl: `${proxy.origin}/v1`, provision: 'mock', destructive: true },
      { filter: (check) => PLACING_CALLS.includes(check.id) },
    )

  it('makes every check that places calls not applicable, with the reason, and fails none', async () => {
    const { outcomes } = await run(withoutCalls)
    expect(outcomes.map((o) => [o.check.id, o.status])).toEqual(
      PLACING_CALLS.map((id) => [id, 'not-applicable']),
    )
    for (const outcome of outcomes)
      expect(outcome.reason).toMatch(
        /^the target's control plane places no simulated calls \(POST \/_mock\/accounts\/\{id\}\/calls answered 404 route_not_found\)/,
      )
  }, 60_000)

  it('runs and passes the same checks against the mock with its calls route', async () => {
    const { outcomes } = await run(asIs)
    expect(outcomes.map((o) => [o.check.id, o.status])).toEqual(PLACING_CALLS.map((id) => [id, 'passed']))
  }, 60_000)
})
