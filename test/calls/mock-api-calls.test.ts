import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type CallEvent, createMockApi, type MockApi } from '../../mocks/node.ts'

describe('api.calls and api.onEvent (createMockApi)', () => {
  let api: MockApi
  let server: ReturnType<typeof setupServer>
  beforeAll(async () => {
    api = await createMockApi({ seed: 5 })
    server = setupServer(...api.handlers)
    server.listen({ onUnhandledRequest: 'error' })
  })
  beforeEach(() => api.reset())
  afterAll(() => server.close())

  const get = async (path: string) =>
    (
      await fetch(`${api.baseUrl}${path}`, { headers: { authorization: `Bearer ${api.secretKey}` } })
    ).json() as Promise<
      // biome-ignore lint/suspicious/noExplicitAny: tests read bodies of many shapes
      any
    >

  it('starts a call that progresses in real time, its events reaching the listener as they happen', async () => {
    const agent = (await get('/agents?limit=1')).data[0]
    const events: CallEvent[] = []
    const contexts: unknown[] = []
    const stop = api.onEvent((event, context) => {
      events.push(event)
      contexts.push(context)
    })
    const log = await api.calls.start({ agent_id: agent.id, ring_seconds: 0.2, duration_seconds: 0.6 })
    expect(log.status).toBe('queued')
    // Polled a few times a second (the demo account's burst window allows 50 requests a minute).
    const statuses = new Set<string>()
    for (let i = 0; i < 30 && !events.some((e) => e.type === 'call.ended'); i++) {
      statuses.add((await get(`/call-logs/${log.id}`)).status)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    stop()
    expect(events.map((e) => e.type).slice(0, 2)).toEqual(['call.started', 'call.ended'])
    expect(events[0]?.data.object).toMatchObject({ id: log.id, status: 'in_progress' })
    expect(contexts[0]).toEqual({ account_id: api.platform.demo.account.id, agent_id: agent.id })
    expect(statuses.has('completed') || statuses.has('in_progress')).toBe(true)
    expect((await get(`/call-logs/${log.id}`)).status).toBe('completed')
  })

  it('delivers every event with the clock advanced, and none after the listener stops', async () => {
    const agent = (await get('/agents?limit=1')).data[0]
    const types: string[] = []
    const stop = api.onEvent((event) => types.push(event.type))
    await api.calls.start({ agent_id: agent.id })
    api.platform.clock.advance(70)
    await api.platform.tick()
    expect(types).toEqual(['call.started', 'call.ended', 'transcript.ready'])
    stop()
    api.platform.clock.advance(200)
    await api.platform.tick()
    expect(types).toHaveLength(3)
  })

  it('records no webhook delivery in-process', async () => {
    const agent = (await get('/agents?limit=1')).data[0]
    await api.calls.start({ agent_id: agent.id })
    api.platform.clock.advance(300)
    await api.platform.tick()
    const deliveries = await fetch(
      `${api.baseUrl.replace(/\/v1$/, '')}/_mock/accounts/${api.platform.demo.account.id}/webhook-deliveries`,
    )
    expect(((await deliveries.json()) as { data: unknown[] }).data).toEqual([])
  })

  it('forgets calls under way on reset', async () => {
    const agent = (await get('/agents?limit=1')).data[0]
    await api.calls.start({ agent_id: agent.id })
    expect(api.platform.nextDueAt()).toBeDefined()
    await api.reset()
    expect(api.platform.nextDueAt()).toBeUndefined()
  })
})
