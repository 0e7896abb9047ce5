import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'
import { createHttpServer, listen } from '../../mocks/server/http-server.ts'

/** The HTTP server reuses encoded list items between changes; every change must still show at once. */
describe('GET /v1/agents over HTTP, listed again and again around changes', () => {
  let platform: MockPlatform
  let origin: string
  let close: () => void
  beforeAll(async () => {
    platform = await createMockPlatform()
    const server = createHttpServer(() => platform)
    origin = `http://127.0.0.1:${(await listen(server, 0, '127.0.0.1')).port}`
    close = () => {
      server.close()
      server.closeAllConnections()
    }
  })
  afterAll(() => close())

  const send = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await fetch(origin + path, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: response.status, text: await response.text() }
  }
  const listAgents = async (key = platform.demo.secretKey ?? '') => {
    const { status, text } = await send('GET', '/v1/agents?limit=100', key)
    expect(status).toBe(200)
    return { text, agents: JSON.parse(text).data as Record<string, unknown>[] }
  }

  it('shows a rename, a nested change, a new and a deleted agent in the next listing', async () => {
    const key = platform.demo.secretKey ?? ''
    const first = await listAgents()
    expect((await listAgents()).text).toBe(first.text)
    const target = first.agents[0] as { id: string; voice: { speed: number } }

    expect((await send('PATCH', `/v1/agents/${target.id}`, key, { name: 'Renamed agent' })).status).toBe(200)
    expect((await listAgents()).agents[0]?.name).toBe('Renamed agent')

    const speed = target.voice.speed === 1 ? 1.2 : 1
    expect((await send('PATCH', `/v1/agents/${target.id}`, key, { voice: { speed } })).status).toBe(200)
    expect((await listAgents()).agents[0]?.voice).toMatchObject({ speed })

    const created = await send('POST', '/v1/agents', key, {
      name: 'Listed at once',
      voice: { provider: 'elevenlabs', voice_id: 'EXAVITQu4vr4xnSDxMaL' },
      llm: { provider: 'openai', model: 'gpt-4o-mini' },
    })
    expect(created.status).toBe(201)
    const id = JSON.parse(created.text).id as string
    expect((await listAgents()).agents.map((a) => a.id)).toContain(id)
    expect((await send('DELETE', `/v1/agents/${id}`, key)).status).toBe(200)
    expect((await listAgents()).agents.map((a) => a.id)).not.toContain(id)
  })

  it('never hands a publishable key the fields only a secret key sees', async () => {
    await listAgents()
    await listAgents()
    const { agents } = await listAgents(platform.demo.publishableKey ?? '')
    for (const agent of agents) expect(agent).not.toHaveProperty('system_prompt')
  })
})
