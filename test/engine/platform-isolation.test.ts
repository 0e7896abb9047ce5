import { describe, expect, it } from 'vitest'
import { createClock } from '../../mocks/engine/clock.ts'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'

/** One instant for every platform: the seed's timestamps are relative to the clock, and a second may tick. */
const NOW = Date.parse('2026-03-09T12:00:00Z')
const platform = () => createMockPlatform({ clock: createClock({ realNow: () => NOW }) })

const call = async (platform: MockPlatform, method: string, url: string, body?: unknown) => {
  const response = await platform.handle({
    method,
    url,
    headers: {
      authorization: `Bearer ${platform.demo.secretKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  })
  return response as { status: number; body: Record<string, unknown> & { data?: Record<string, unknown>[] } }
}

describe('createMockPlatform', () => {
  it('seeds the same data in every platform of one seed, each its own copy', async () => {
    const first = await platform()
    const second = await platform()
    const before = (await call(second, 'GET', '/v1/agents?limit=100')).body.data ?? []
    expect((await call(first, 'GET', '/v1/agents?limit=100')).body.data).toEqual(before)
    const agent = before[0] as Record<string, unknown>
    const voice = agent.voice as Record<string, unknown>
    const changed = await call(first, 'PATCH', `/v1/agents/${String(agent.id)}`, {
      name: 'Renamed in the first platform',
      voice: { speed: voice.speed === 1.5 ? 1.25 : 1.5 },
      metadata: { only: 'first' },
    })
    expect(changed.status).toBe(200)
    expect((await call(second, 'GET', '/v1/agents?limit=100')).body.data).toEqual(before)
    expect((await platform()).snapshot().tables.agents).toEqual(second.snapshot().tables.agents)
  })

  it('validates with the contract defaults in every platform, whichever compiled first', async () => {
    const first = await createMockPlatform()
    const body = {
      name: 'Defaults',
      voice: { provider: 'openai', voice_id: 'alloy' },
      llm: { provider: 'openai', model: 'gpt-4o-mini' },
    }
    const one = await call(first, 'POST', '/v1/agents', structuredClone(body))
    const two = await call(await createMockPlatform(), 'POST', '/v1/agents', structuredClone(body))
    expect(one.status).toBe(201)
    const { id: _a, created_at: _b, updated_at: _c, ...fromFirst } = one.body
    const { id: _d, created_at: _e, updated_at: _f, ...fromSecond } = two.body
    expect(fromSecond).toEqual(fromFirst)
    expect(fromFirst.status).toBe('active')
  })
})
