import type { Server } from 'node:http'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ContractFailure } from '../contracts/checks/failure.ts'
import { formatFailure } from '../contracts/report/format-failure.ts'
import { runChecks } from '../contracts/runner/run-checks.ts'
import { createMockPlatform, type MockPlatform } from '../mocks/platform.ts'
import { createHttpServer, listen } from '../mocks/server/http-server.ts'

/** The contract suite is not fooled by a mock with scenarios left on (docs/decisions/012-scenarios.md). */
describe('the contract suite against a mock with a scenario left on', () => {
  let platform: MockPlatform
  let server: Server
  let origin = ''

  beforeAll(async () => {
    platform = await createMockPlatform({ checkResponses: true })
    server = createHttpServer(() => platform)
    origin = `http://127.0.0.1:${(await listen(server, 0, '127.0.0.1')).port}`
  })
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  beforeEach(async () => {
    await platform.reset()
    const added = await fetch(`${origin}/_mock/scenarios`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: '*', status: 503 }),
    })
    expect(added.status).toBe(201)
  })

  const scenarios = async () =>
    ((await (await fetch(`${origin}/_mock/scenarios`)).json()) as { data: [] }).data

  it('removes the scenarios when it provisions the mock, and then passes', async () => {
    const result = await runChecks({
      baseUrl: `${origin}/v1`,
      provision: 'mock',
      areas: ['responses', 'authentication'],
    })
    expect(await scenarios()).toEqual([])
    const failed = result.outcomes.filter((o) => o.status === 'failed')
    expect(failed.map((o) => `${o.check.title}: ${o.failure?.actual}`)).toEqual([])
    expect(result.outcomes.filter((o) => o.status === 'passed').length).toBeGreaterThan(10)
  })

  it('says in a failure that the mock injected the answer, when it does not provision', async () => {
    await fetch(`${origin}/_mock/scenarios`, { method: 'DELETE' })
    await fetch(`${origin}/_mock/scenarios`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'listAgents', status: 503 }),
    })
    const result = await runChecks({
      baseUrl: `${origin}/v1`,
      secretKey: platform.demo.secretKey,
      areas: ['responses'],
    })
    const failed = result.outcomes.filter((o) => o.status === 'failed')
    expect(failed.length).toBeGreaterThan(0)
    for (const outcome of failed) {
      expect(outcome.failure?.actual).toContain('Mock-Scenario')
      expect(outcome.failure?.actual).toContain('DELETE /_mock/scenarios')
    }
    expect(await scenarios()).toHaveLength(1)
  })

  it('stops before any check with one message when its first request meets a scenario', async () => {
    const run = runChecks({
      baseUrl: `${origin}/v1`,
      secretKey: platform.demo.secretKey,
      areas: ['responses'],
    })
    await expect(run).rejects.toThrow(/answered 503.*Mock-Scenario.*no check ran/)
  })
})

describe('ContractFailure', () => {
  const exchange = (headers: Record<string, string>) => ({
    request: { method: 'GET', url: 'http://127.0.0.1:4010/v1/user', headers: {} },
    response: { status: 503, headers, text: '{}', json: {}, durationMs: 1 },
  })

  it('names the scenario that injected the answer', () => {
    const failure = new ContractFailure('status 200', '503', exchange({ 'mock-scenario': 'scn_Abc123' }))
    expect(failure.actual).toContain("the mock's scenario scn_Abc123 injected this answer")
    expect(formatFailure({ expected: failure.expected, actual: failure.actual })).toContain('scn_Abc123')
  })

  it('adds nothing to an answer no scenario touched', () => {
    expect(new ContractFailure('status 200', '503', exchange({})).actual).toBe('503')
    expect(new ContractFailure('status 200', '503').actual).toBe('503')
  })
})
