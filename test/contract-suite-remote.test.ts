import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runChecks } from '../contracts/runner/run-checks.ts'
import { type SpawnedMock, spawnMock } from './reliability/support/spawn-mock.ts'
import { type LatencyProxy, startLatencyProxy } from './support/latency-proxy.ts'

// A target across a network: the standalone mock (`voice-api-kit mock`, a process of its own) behind a
// loopback proxy that holds every request 50 ms (a deployed staging's round trip). Whatever the round trip,
// the suite reads time from the target (its clock, its `t` values), never from how long the client took, and
// finds no fault in a correct implementation; its independent checks run at the same time, each lane on an
// account of its own, so that the round trips overlap.

const ROUND_TRIP_MS = 50

describe('the provisioned, destructive suite against the mock 50 ms away', () => {
  let mock: SpawnedMock
  let proxy: LatencyProxy
  beforeAll(async () => {
    mock = await spawnMock(['--quiet'])
    proxy = await startLatencyProxy(mock.origin, ROUND_TRIP_MS)
  }, 30_000)
  afterAll(async () => {
    await proxy?.close()
    await mock?.kill('SIGTERM')
  })

  const failures = (outcomes: Awaited<ReturnType<typeof runChecks>>['outcomes']) =>
    outcomes
      .filter((o) => o.status !== 'passed')
      .map(
        (o) => `${o.check.id} ${o.status}: ${o.failure?.expected ?? o.reason} / ${o.failure?.actual ?? ''}`,
      )

  it('takes Retry-After and t from the target clock, however long the 50 requests of a burst took', async () => {
    const { outcomes } = await runChecks(
      { baseUrl: `${proxy.origin}/v1`, provision: 'mock', destructive: true },
      { filter: (check) => check.id.endsWith('/header-meaning') },
    )
    expect(outcomes.map((o) => o.check.id)).toEqual([
      'rate-limits/free/header-meaning',
      'rate-limits/pro/header-meaning',
      'rate-limits/enterprise/header-meaning',
    ])
    expect(failures(outcomes)).toEqual([])
  }, 30_000)

  it('runs the whole provisioned, destructive suite with no failure, its round trips overlapping', async () => {
    const before = proxy.forwarded()
    const result = await runChecks({ baseUrl: `${proxy.origin}/v1`, provision: 'mock', destructive: true })
    expect(failures(result.outcomes)).toEqual([])
    expect(result.outcomes.length).toBeGreaterThan(150)
    expect(result.teardown.problems).toEqual([])
    // Every request of the run went through the proxy, many of them at the same time.
    expect(proxy.forwarded() - before).toBeGreaterThanOrEqual(result.stats.requests)
    expect(proxy.peakInFlight()).toBeGreaterThan(8)
  }, 60_000)
})
