import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createMockApi, type MockApi } from '../../mocks/node.ts'

describe('createMockApi (MSW setupServer)', () => {
  let api: MockApi
  let server: ReturnType<typeof setupServer>
  /** Built once, as an app's API client would be. */
  let secretKey: string

  beforeAll(async () => {
    api = await createMockApi({ seed: 3 })
    server = setupServer(...api.handlers)
    server.listen({ onUnhandledRequest: 'error' })
    secretKey = api.secretKey
  })
  beforeEach(() => api.reset())
  afterAll(() => server.close())

  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${api.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })

  it('answers HEAD like GET without a body, and builds Location from its base URL', async () => {
    const head = await call('HEAD', '/agents?limit=2')
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
    const created = await fetch(`${api.baseUrl}/agents`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secretKey}`,
        'content-type': 'application/json',
        host: 'evil.example',
      },
      body: JSON.stringify({
        name: 'located',
        voice: { provider: 'elevenlabs', voice_id: 'v1' },
        llm: { provider: 'openai', model: 'gpt-4o' },
      }),
    })
    expect(created.headers.get('location')).toMatch(new RegExp(`^${api.baseUrl}/agents/agt_`))
  })

  it('creates an agent in one test', async () => {
    const created = await call('POST', '/agents', {
      name: 'Made in the first test',
      voice: { provider: 'elevenlabs', voice_id: 'v1' },
      llm: { provider: 'openai', model: 'gpt-4o' },
    })
    expect(created.status).toBe(201)
  })

  it('starts the next test from the seeded state, with the demo keys the client was built with still valid', async () => {
    expect(api.secretKey).toBe(secretKey)
    const listed = await call('GET', '/agents?limit=100')
    expect(listed.status).toBe(200)
    const { data } = (await listed.json()) as { data: { name: string }[] }
    expect(data.map((agent) => agent.name)).not.toContain('Made in the first test')
  })

  it('puts the clock back to real time and empties the journal', async () => {
    api.platform.clock.advance(3600)
    await call('GET', '/user')
    await api.reset()
    expect(api.platform.clock.offsetSeconds()).toBe(0)
    expect(api.platform.journal.list().data).toHaveLength(0)
    expect((await call('GET', '/user')).status).toBe(200)
  })
})
