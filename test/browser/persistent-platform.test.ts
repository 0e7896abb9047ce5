import { describe, expect, it, vi } from 'vitest'
import { createPersistentPlatform } from '../../mocks/browser/persistent-platform.ts'
import { createSessionStore } from '../../mocks/browser/session-store.ts'

/** An in-memory Web Storage area. */
function memoryStorage(quota = Number.POSITIVE_INFINITY) {
  const items = new Map<string, string>()
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem(key: string, value: string) {
      if (value.length > quota) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError')
      items.set(key, value)
    },
    removeItem: (key: string) => void items.delete(key),
  }
}

/** Whether `text` holds a key's secret part in any form (percent-encoded, any case). */
function leaks(text: string, value: string): boolean {
  let decoded = text
  for (let i = 0; i < 5; i++)
    decoded = decoded.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    )
  return decoded.toLowerCase().includes(value.slice('sk-svc-'.length).toLowerCase())
}

const get = (path: string, key?: string) => ({
  method: 'GET',
  url: path,
  headers: key ? { authorization: `Bearer ${key}` } : {},
  body: null,
})
const post = (path: string, body?: unknown) => ({
  method: 'POST',
  url: path,
  headers: { 'content-type': 'application/json' },
  body: body === undefined ? null : JSON.stringify(body),
})

describe('createPersistentPlatform', () => {
  it('continues a saved state: accounts, keys, revocations, clock and journal, with the demo keys', async () => {
    const storage = memoryStorage()
    const first = await createPersistentPlatform({ store: createSessionStore(storage) })
    const { account } = first.platform.demo
    await first.handle(post('/_mock/clock/advance', { seconds: 120 }))
    const created = await first.handle(
      post(`/_mock/accounts/${account.id}/keys`, { type: 'secret', name: 'ci' }),
    )
    const { id, value } = created.body as { id: string; value: string }
    await first.handle(post(`/_mock/keys/${id}/revoke`))
    expect((await first.handle(get('/v1/user', value))).status).toBe(401)
    first.flush()

    const second = await createPersistentPlatform({ store: createSessionStore(storage) })
    expect(second.restored).toBe(true)
    expect(second.publishableKey).toBe(first.publishableKey)
    expect((await second.handle(get('/v1/agents', second.publishableKey))).status).toBe(200)
    expect((await second.handle(get('/v1/user', value))).status).toBe(401)
    expect(second.platform.clock.offsetSeconds()).toBe(120)
    const failures = await second.handle(get(`/_mock/journal?status=401&key_id=${id}`))
    expect((failures.body as { data: unknown[] }).data).toHaveLength(2)
  })

  it('saves a state change before answering, and never a key value', async () => {
    const storage = memoryStorage()
    const persistent = await createPersistentPlatform({
      store: createSessionStore(storage),
      saveDelayMs: 60_000,
    })
    const { account } = persistent.platform.demo
    const created = await persistent.handle(
      post(`/_mock/accounts/${account.id}/keys`, { type: 'secret', name: 'n' }),
    )
    const { value } = created.body as { value: string }
    const saved = [...storage.items.values()].join('')
    expect(saved).toContain('"name":"n"')
    expect(saved).not.toContain(value)
  })

  it("saves what the README says: key hashes, the two demo keys' values under demoKeys, and no other key value", async () => {
    const storage = memoryStorage()
    const persistent = await createPersistentPlatform({ store: createSessionStore(storage) })
    const { account } = persistent.platform.demo
    const created = await persistent.handle(
      post(`/_mock/accounts/${account.id}/keys`, { type: 'secret', name: 'ci' }),
    )
    const { value } = created.body as { value: string }
    const agent = {
      name: 'n',
      voice: { provider: 'elevenlabs', voice_id: 'r' },
      llm: { provider: 'openai', model: 'm' },
    }
    // The created key pasted where it does not belong: as an Idempotency-Key, in paths, in upper case.
    const withKey = {
      ...post('/v1/agents', agent),
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${value}`,
        'idempotency-key': value,
      },
    }
    expect((await persistent.handle(withKey)).status).toBe(201)
    await persistent.handle(get(`/v1/%73${value.slice(1)}`, value))
    await persistent.handle(get(`/v1/agents/${value.toUpperCase()}`, value))
    persistent.flush()

    const saved = JSON.parse([...storage.items.values()][0] ?? 'null')
    expect(saved.demoKeys).toEqual({
      secretKey: persistent.secretKey,
      publishableKey: persistent.publishableKey,
    })
    const elsewhere = JSON.stringify({ ...saved, demoKeys: null })
    for (const secret of [value, persistent.secretKey, persistent.publishableKey])
      expect(leaks(elsewhere, secret)).toBe(false)
    expect(leaks(JSON.stringify(saved), value)).toBe(false)
    const keys = saved.snapshot.tables.keys as [string, { hash: string }][]
    expect(keys.length).toBeGreaterThan(2)
    expect(keys.every(([, k]) => /^[0-9a-f]{64}$/.test(k.hash))).toBe(true)
  })

  it('starts over on reset as POST /_mock/reset does: the seeded data again, the demo keys still valid', async () => {
    const storage = memoryStorage()
    const persistent = await createPersistentPlatform({ store: createSessionStore(storage) })
    const before = { account: persistent.platform.demo.account.id, key: persistent.secretKey }
    await persistent.handle(post('/_mock/clock/advance', { seconds: 60 }))
    await persistent.handle(
      post(`/_mock/accounts/${before.account}/keys`, { type: 'secret', name: 'gone after reset' }),
    )
    await persistent.reset()
    expect(persistent.platform.demo.account.id).toBe(before.account)
    expect(persistent.secretKey).toBe(before.key)
    expect(persistent.platform.clock.offsetSeconds()).toBe(0)
    expect(persistent.platform.keys.list(before.account).map((key) => key.name)).not.toContain(
      'gone after reset',
    )
    expect((await persistent.handle(get('/v1/user', persistent.secretKey))).status).toBe(200)
    // What was saved is the reset state too: a reload finds it.
    const reloaded = await createPersistentPlatform({ store: createSessionStore(storage) })
    expect(reloaded.platform.keys.list(before.account).map((key) => key.name)).not.toContain(
      'gone after reset',
    )
    expect(reloaded.secretKey).toBe(before.key)
  })

  it('reseeds when the saved state is unusable', async () => {
    const storage = memoryStorage()
    storage.setItem('voice-api-kit:mock-state', '{"version":1,"snapshot":')
    const persistent = await createPersistentPlatform({ store: createSessionStore(storage) })
    expect(persistent.restored).toBe(false)
    expect((await persistent.handle(get('/v1/user', persistent.secretKey))).status).toBe(200)
  })

  it('keeps working, and says so once, when the storage is full', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const persistent = await createPersistentPlatform({ store: createSessionStore(memoryStorage(10)) })
    await persistent.handle(post('/_mock/clock/advance', { seconds: 1 }))
    expect((await persistent.handle(get('/v1/user', persistent.secretKey))).status).toBe(200)
    expect(warn).toHaveBeenCalledTimes(1)
    warn.mockRestore()
  })

  it('starts from a capsule in place of the saved state, and keeps no demo key value the capsule replaced', async () => {
    const storage = memoryStorage()
    const first = await createPersistentPlatform({ store: createSessionStore(storage) })
    await first.handle(post('/_mock/clock/advance', { seconds: 60 }))
    first.flush()
    const elsewhere = await createPersistentPlatform({ store: createSessionStore(memoryStorage()), seed: 9 })
    const capsule = await elsewhere.platform.capsule()

    const opened = await createPersistentPlatform({ store: createSessionStore(storage), capsule })
    expect(opened.restored).toBe(false)
    expect(opened.platform.demo.account.id).toBe(elsewhere.platform.demo.account.id)
    expect((await opened.handle(get('/v1/user', elsewhere.secretKey))).status).toBe(200)
    expect(opened.secretKey).toBe('')
    const saved = [...storage.items.values()].join('')
    expect(saved).not.toContain(first.secretKey)
    expect(saved).toContain(elsewhere.platform.demo.account.id)

    // Opened over the control plane, the tab's demo key values that no longer authenticate are forgotten.
    const again = await createPersistentPlatform({ store: createSessionStore(memoryStorage()) })
    expect(again.secretKey).not.toBe('')
    expect((await again.handle(post('/_mock/capsule', capsule))).status).toBe(200)
    expect(again.secretKey).toBe('')
  })
})
