import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StoredChangeSet, toStored } from '../../mocks/engine/state/change-set.ts'
import type { EngineState } from '../../mocks/engine/state/state.ts'
import type { StateStore } from '../../mocks/engine/state/store.ts'
import type { EngineRequest } from '../../mocks/engine/types.ts'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'
import { call, provision } from '../support/client.ts'
import { startTransport, type Transport } from '../support/transports.ts'

/**
 * The engine remembers the digests of the keys it has seen (hashing a key is a good part of a small request's
 * cost), but looks the key itself up on every request: whatever happens to a key is seen by the very next
 * request, however often the key was used before.
 */
describe.each(['msw', 'http'] as const)('a key used many times, then changed (%s)', (kind) => {
  let mock: Transport
  beforeAll(async () => {
    mock = await startTransport(kind)
  })
  afterAll(() => mock.close())

  /** A fresh key, used until the engine has certainly remembered it. */
  async function usedKey() {
    const provisioned = await provision(mock)
    for (let i = 0; i < 5; i++)
      expect((await call(mock, 'GET', '/v1/user', { key: provisioned.key })).status).toBe(200)
    return provisioned
  }

  it('is refused with 401 from the request right after its revocation', async () => {
    const { key, keyId } = await usedKey()
    expect((await call(mock, 'POST', `/_mock/keys/${keyId}/revoke`)).status).toBe(200)
    const response = await call(mock, 'GET', '/v1/user', { key })
    expect(response.status).toBe(401)
    expect(response.body.error.message).toMatch(/revoked/)
  })

  it('is refused with 401 from the request right after its account was deleted', async () => {
    const { key, accountId } = await usedKey()
    expect((await call(mock, 'DELETE', `/_mock/accounts/${accountId}`)).status).toBe(200)
    const response = await call(mock, 'GET', '/v1/user', { key })
    expect(response.status).toBe(401)
    expect(response.body.error.message).toMatch(/Invalid API key/)
  })

  it('is refused with 401 after a reset, also on the demo account, while the demo key goes on working', async () => {
    const demoKey = mock.platform.demo.secretKey ?? ''
    expect((await call(mock, 'GET', '/v1/user', { key: demoKey })).status).toBe(200)
    const { key } = await usedKey()
    // A key made on the demo account after the seed: its account comes back with the reset, the key does not.
    const added = await call(mock, 'POST', `/_mock/accounts/${mock.platform.demo.account.id}/keys`, {
      body: { type: 'secret', name: 'added after the seed' },
    })
    expect(added.status).toBe(201)
    expect((await call(mock, 'GET', '/v1/user', { key: added.body.value })).status).toBe(200)
    expect((await call(mock, 'POST', '/_mock/reset')).status).toBe(200)
    expect((await call(mock, 'GET', '/v1/user', { key })).status).toBe(401)
    expect((await call(mock, 'GET', '/v1/user', { key: added.body.value })).status).toBe(401)
    expect((await call(mock, 'GET', '/v1/user', { key: demoKey })).status).toBe(200)
  })

  it('keeps no key value in the state', async () => {
    const { key } = await usedKey()
    expect(JSON.stringify(mock.platform.snapshot())).not.toContain(key)
  })
})

/**
 * A store that shares one log of change sets between engines, as a shared store does: before each step an
 * engine applies the sets the others published since its last step, and after it publishes its own.
 */
function sharedLog(log: StoredChangeSet[], initial?: ReturnType<MockPlatform['snapshot']>): StateStore {
  let state: EngineState | undefined
  let applied = log.length
  return {
    description: 'a shared log (test)',
    load: async () => initial,
    async attach(engineState) {
      state = engineState
    },
    async run(step) {
      if (!state) throw new Error('not attached')
      if (applied < log.length) state.apply(log.slice(applied))
      try {
        return step()
      } finally {
        const set = state.take()
        if (set.changes.length > 0 || set.reset) log.push(toStored(set))
        applied = log.length
      }
    },
    async close() {},
  }
}

describe('a key used many times on one engine, then changed on another engine on the same store', () => {
  const log: StoredChangeSet[] = []
  let here: MockPlatform
  let there: MockPlatform
  beforeAll(async () => {
    there = await createMockPlatform({ store: sharedLog(log) })
    here = await createMockPlatform({ store: sharedLog(log, there.snapshot()) })
  })

  const request = (method: string, url: string, key?: string): EngineRequest => ({
    method,
    url,
    headers: key ? { authorization: `Bearer ${key}` } : {},
    body: null,
  })
  const status = async (platform: MockPlatform, method: string, url: string, key?: string) =>
    (await platform.handle(request(method, url, key))).status

  async function keyUsedHere() {
    const account = await there.createAccount({ plan: 'pro' })
    const created = await there.createKey(account.id, { type: 'secret', name: 'shared' })
    for (let i = 0; i < 5; i++) expect(await status(here, 'GET', '/v1/user', created.value)).toBe(200)
    return { key: created.value, keyId: created.key.id, accountId: account.id }
  }

  it('is refused here from the first request after the other engine revoked it', async () => {
    const { key, keyId } = await keyUsedHere()
    expect(await status(there, 'POST', `/_mock/keys/${keyId}/revoke`)).toBe(200)
    expect(await status(here, 'GET', '/v1/user', key)).toBe(401)
  })

  it('is refused here from the first request after the other engine deleted its account', async () => {
    const { key, accountId } = await keyUsedHere()
    expect(await status(there, 'DELETE', `/_mock/accounts/${accountId}`)).toBe(200)
    expect(await status(here, 'GET', '/v1/user', key)).toBe(401)
  })

  it('is refused here from the first request after the other engine reset the mock', async () => {
    const { key } = await keyUsedHere()
    const added = await there.createKey(there.demo.account.id, { type: 'secret', name: 'after the seed' })
    expect(await status(here, 'GET', '/v1/user', added.value)).toBe(200)
    expect(await status(there, 'POST', '/_mock/reset')).toBe(200)
    expect(await status(here, 'GET', '/v1/user', key)).toBe(401)
    expect(await status(here, 'GET', '/v1/user', added.value)).toBe(401)
    expect(await status(here, 'GET', '/v1/user', there.demo.secretKey)).toBe(200)
  })
})
