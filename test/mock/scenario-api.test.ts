import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createMockApi, type MockApi, ScenarioError } from '../../mocks/node.ts'

const BASE = 'http://scenario-api.test/v1'

describe('api.scenarios (createMockApi)', () => {
  let api: MockApi
  let server: ReturnType<typeof setupServer>
  const agents = () => fetch(`${BASE}/agents`, { headers: { authorization: `Bearer ${api.secretKey}` } })

  beforeAll(async () => {
    api = await createMockApi({ baseUrl: BASE })
    server = setupServer(...api.handlers)
    server.listen({ onUnhandledRequest: 'error' })
  })
  afterAll(() => server.close())
  beforeEach(() => api.reset())

  it('adds a scenario that the handlers apply, and removes it through its handle', async () => {
    const failing = await api.scenarios.add({ operation: 'listAgents', status: 500 })
    expect(failing).toMatchObject({ object: 'scenario', operation: 'listAgents', status: 500, uses: 0 })
    const response = await agents()
    expect(response.status).toBe(500)
    expect(response.headers.get('mock-scenario')).toBe(failing.id)
    await expect(failing.remove()).resolves.toBe(true)
    expect((await agents()).status).toBe(200)
    await expect(failing.remove()).resolves.toBe(false)
  })

  it('lists the active scenarios with their uses, and clears them', async () => {
    const first = await api.scenarios.add({ operation: 'listAgents', status: 503, times: 2 })
    const second = await api.scenarios.add({ operation: '*', delay: { type: 'fixed', ms: 1 } })
    await agents()
    const listed = await api.scenarios.list()
    expect(listed.map((s) => s.id)).toEqual([second.id, first.id])
    expect(listed[0]).toMatchObject({ uses: 1 })
    expect(listed[1]).toMatchObject({ uses: 0, remaining: 2 })
    await expect(api.scenarios.clear()).resolves.toBe(2)
    await expect(api.scenarios.list()).resolves.toEqual([])
  })

  it("lists every scenario, past the control plane's page of 100", async () => {
    const ids: string[] = []
    for (let i = 0; i < 130; i++)
      ids.unshift((await api.scenarios.add({ operation: 'getUser', delay: { type: 'fixed', ms: 1 } })).id)
    expect((await api.scenarios.list()).map((s) => s.id)).toEqual(ids)
  })

  it('rejects bad input with a ScenarioError naming the field, and stores nothing', async () => {
    const refused = await api.scenarios
      .add({ operation: 'listAgents', status: 500, probability: 2 })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ScenarioError)
    expect(refused).toMatchObject({ status: 422, param: 'probability' })
    expect((refused as Error).message).toContain('probability')
    await expect(api.scenarios.list()).resolves.toEqual([])
  })

  it('is emptied by reset()', async () => {
    await api.scenarios.add({ operation: '*', network_error: 'reset' })
    await api.reset()
    await expect(api.scenarios.list()).resolves.toEqual([])
    expect((await agents()).status).toBe(200)
  })

  it('works on a mock that requires an admin token', async () => {
    const guarded = await createMockApi({ baseUrl: BASE, adminToken: 'a-long-admin-token' })
    const scenario = await guarded.scenarios.add({ operation: 'getUser', status: 401 })
    expect(scenario.status).toBe(401)
  })
})
