import { describe, expect, it } from 'vitest'
import { createPersistentPlatform } from '../../mocks/browser/persistent-platform.ts'
import { createSessionStore } from '../../mocks/browser/session-store.ts'

function memoryStorage() {
  const items = new Map<string, string>()
  return {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  }
}

describe('a call under way in the browser worker', () => {
  it('is saved with the tab and goes on after a reload', async () => {
    const storage = memoryStorage()
    const first = await createPersistentPlatform({ store: createSessionStore(storage) })
    const key = first.secretKey
    const agents = await first.handle({
      method: 'GET',
      url: '/v1/agents?limit=1',
      headers: { authorization: `Bearer ${key}` },
      body: null,
    })
    const agentId = (agents.body as { data: { id: string }[] }).data[0]?.id ?? ''
    const log = await first.platform.calls.start({ agent_id: agentId })
    first.save()

    const second = await createPersistentPlatform({ store: createSessionStore(storage) })
    expect(second.restored).toBe(true)
    expect(second.platform.nextDueAt()).toBeDefined()
    second.platform.clock.advance(70)
    await second.tick()
    const after = await second.handle({
      method: 'GET',
      url: `/v1/call-logs/${log.id}`,
      headers: { authorization: `Bearer ${key}` },
      body: null,
    })
    expect((after.body as { status: string }).status).toBe('completed')
  })
})
