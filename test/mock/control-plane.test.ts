import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../mocks/engine/state/store.ts'
import { createMockPlatform } from '../../mocks/platform.ts'
import { call, provision } from '../support/client.ts'
import { startTransport, type Transport } from '../support/transports.ts'

describe('the control plane (/_mock)', () => {
  let mock: Transport
  let key: string
  beforeAll(async () => {
    mock = await startTransport('http')
    key = mock.platform.demo.secretKey ?? ''
  })
  afterAll(() => mock.close())

  it('resets to the seeded state: changes are undone and the demo keys still work', async () => {
    const agents = await call(mock, 'GET', '/v1/agents?limit=1', { key })
    const agent = agents.body.data[0]
    await call(mock, 'PATCH', `/v1/agents/${agent.id}`, { key, body: { name: 'Renamed' } })
    await call(
      mock,
      'DELETE',
      `/v1/call-logs/${(await call(mock, 'GET', '/v1/call-logs?limit=1', { key })).body.data[0].id}`,
      { key },
    )
    const created = await provision(mock)
    expect((await call(mock, 'POST', '/_mock/reset')).status).toBe(200)
    const after = await call(mock, 'GET', `/v1/agents/${agent.id}`, { key })
    expect(after.status).toBe(200)
    expect(after.body.name).toBe(agent.name)
    expect((await call(mock, 'GET', '/v1/user', { key: created.key })).status).toBe(401)
    const logs = await call(mock, 'GET', '/v1/call-logs?limit=1', { key })
    expect(logs.body.data).toHaveLength(1)
  })

  it('lists keys with their redacted value and never the value itself', async () => {
    const { accountId, key: value } = await provision(mock)
    const keys = await call(mock, 'GET', `/_mock/accounts/${accountId}/keys`)
    expect(keys.status).toBe(200)
    expect(keys.body.data[0].redacted_value).toBe(`sk-svc-...${value.slice(-4)}`)
    expect(JSON.stringify(keys.body)).not.toContain(value)
    expect(keys.body.data[0].rotation_due_at > keys.body.data[0].created_at).toBe(true)
  })

  it('records failed requests in the journal with the key id, for watching a rotation', async () => {
    const { keyId, key: value } = await provision(mock)
    await call(mock, 'GET', '/v1/user', { key: value })
    await call(mock, 'POST', `/_mock/keys/${keyId}/revoke`)
    await call(mock, 'GET', '/v1/agents', { key: value })
    const journal = await call(mock, 'GET', '/_mock/journal?status=4xx&limit=50')
    expect(journal.status).toBe(200)
    expect(
      journal.body.data.some(
        (e: { status: number; path: string }) => e.status === 401 && e.path === '/v1/agents',
      ),
    ).toBe(true)
    const byKey = await call(mock, 'GET', `/_mock/journal?key_id=${keyId}`)
    // Newest first: the revoked key's failure is attributed to it, so a rotation can be watched per key.
    expect(byKey.body.data.map((e: { status: number }) => e.status)).toEqual([401, 200])
    expect(JSON.stringify(journal.body)).not.toContain(value)
  })

  it('lists a request whose method is any HTTP token (M-SEARCH) in the journal, as the contract allows', async () => {
    const odd = await mock.platform.handle({ method: 'M-SEARCH', url: '/v1/user', headers: {}, body: null })
    expect(odd.status).toBe(401)
    const journal = await call(mock, 'GET', '/_mock/journal?limit=5')
    expect(journal.status).toBe(200)
    expect(journal.body.data.map((e: { method: string }) => e.method)).toContain('M-SEARCH')
  })

  it('moves the clock forward and reports it', async () => {
    const before = await call(mock, 'GET', '/_mock/clock')
    const after = await call(mock, 'POST', '/_mock/clock/advance', { body: { seconds: 3600 } })
    expect(after.body.offset_seconds - before.body.offset_seconds).toBe(3600)
    expect(Date.parse(after.body.now) - Date.parse(before.body.now)).toBeGreaterThanOrEqual(3600_000)
    const refused = await call(mock, 'POST', '/_mock/clock/advance', { body: { seconds: -5 } })
    expect(refused.status).toBe(422)
  })

  it('switches plans and reports usage per window', async () => {
    const { accountId, key: value } = await provision(mock, { plan: 'free' })
    await call(mock, 'GET', '/v1/user', { key: value })
    const switched = await call(mock, 'PATCH', `/_mock/accounts/${accountId}`, { body: { plan: 'pro' } })
    expect(switched.body).toMatchObject({
      plan: 'pro',
      limits: { hourly: 1000, burst: 50 },
      custom_limits: false,
    })
    const usage = await call(mock, 'GET', `/_mock/accounts/${accountId}/rate-limit`)
    expect(usage.body.windows).toContainEqual(
      expect.objectContaining({ policy: 'burst', limit: 50, used: 1, remaining: 49 }),
    )
  })

  it('deletes an account with its keys and data', async () => {
    const { accountId, key: value } = await provision(mock)
    const agent = await call(mock, 'POST', '/v1/agents', {
      key: value,
      body: {
        name: 'Doomed',
        voice: { provider: 'openai', voice_id: 'alloy' },
        llm: { provider: 'openai', model: 'gpt-4o' },
      },
    })
    expect(agent.status).toBe(201)
    const deleted = await call(mock, 'DELETE', `/_mock/accounts/${accountId}`)
    expect(deleted.status).toBe(200)
    expect(deleted.body).toEqual({ id: accountId, object: 'user', deleted: true })
    const refused = await call(mock, 'GET', '/v1/user', { key: value })
    expect(refused.status).toBe(401)
    expect(refused.body.error.message).toMatch(/Invalid API key/)
    expect((await call(mock, 'GET', `/_mock/accounts/${accountId}`)).status).toBe(404)
    expect((await call(mock, 'DELETE', `/_mock/accounts/${accountId}`)).status).toBe(404)
    const listed = await call(mock, 'GET', '/_mock/accounts')
    expect(listed.body.data.map((a: { id: string }) => a.id)).not.toContain(accountId)
  })

  it('refuses to delete the seeded demo account (409), which every restart and reset depends on', async () => {
    const demo = mock.platform.demo.account.id
    const refused = await call(mock, 'DELETE', `/_mock/accounts/${demo}`)
    expect(refused.status).toBe(409)
    expect(refused.body.error).toMatchObject({ type: 'conflict_error', code: 'demo_account_protected' })
    expect((await call(mock, 'GET', '/v1/user', { key })).status).toBe(200)
  })

  it('lets an invited member join: active from then on in v1, once only, the owner never', async () => {
    const { accountId, key: value } = await provision(mock)
    const invited = await call(mock, 'POST', '/v1/team-members', {
      key: value,
      body: { email: 'joins@example.com', role: 'editor' },
    })
    expect(invited.status).toBe(201)
    await call(mock, 'POST', '/_mock/clock/advance', { body: { seconds: 90 } })
    const joined = await call(
      mock,
      'POST',
      `/_mock/accounts/${accountId}/team-members/${invited.body.id}/join`,
    )
    expect(joined.status).toBe(200)
    expect(joined.body).toMatchObject({
      id: invited.body.id,
      status: 'active',
      invited_at: invited.body.invited_at,
    })
    expect(Date.parse(joined.body.joined_at) - Date.parse(invited.body.invited_at)).toBeGreaterThanOrEqual(
      90_000,
    )
    const read = await call(mock, 'GET', `/v1/team-members/${invited.body.id}`, { key: value })
    expect(read.body).toEqual(joined.body)
    const again = await call(
      mock,
      'POST',
      `/_mock/accounts/${accountId}/team-members/${invited.body.id}/join`,
    )
    expect([again.status, again.body.error.code], JSON.stringify(again.body)).toEqual([
      409,
      'member_already_joined',
    ])
    const members = await call(mock, 'GET', '/v1/team-members', { key: value })
    const owner = members.body.data.find((m: { role: string }) => m.role === 'owner')
    const ownerJoin = await call(mock, 'POST', `/_mock/accounts/${accountId}/team-members/${owner.id}/join`)
    expect(ownerJoin.status).toBe(409)
    const elsewhere = await provision(mock)
    const stranger = await call(
      mock,
      'POST',
      `/_mock/accounts/${elsewhere.accountId}/team-members/${invited.body.id}/join`,
    )
    expect([stranger.status, stranger.body.error.param]).toEqual([404, 'member_id'])
  })

  it('answers 404 for an unknown account and 422 for a bad body', async () => {
    expect((await call(mock, 'GET', '/_mock/accounts/usr_nobody')).status).toBe(404)
    expect((await call(mock, 'POST', '/_mock/accounts', { body: { plan: 'gold' } })).status).toBe(422)
  })
})

describe('who may use the control plane', () => {
  const request = (clientIp: string | undefined, authorization?: string) => ({
    method: 'GET',
    url: '/_mock/clock',
    headers: authorization ? { authorization } : {},
    body: null,
    clientIp,
  })

  it.each(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', undefined])(
    'admits the loopback client %s',
    async (ip) => {
      const platform = await createMockPlatform()
      expect((await platform.handle(request(ip))).status).toBe(200)
    },
  )

  it('refuses a client that is not on loopback with 403', async () => {
    const platform = await createMockPlatform()
    const response = await platform.handle(request('192.0.2.7'))
    expect(response.status).toBe(403)
  })

  it('requires the admin token when one is set, from any address', async () => {
    const platform = await createMockPlatform({ adminToken: 'a-very-long-admin-token' })
    expect((await platform.handle(request('127.0.0.1'))).status).toBe(401)
    expect((await platform.handle(request('192.0.2.7', 'Bearer wrong-token-of-some-length'))).status).toBe(
      401,
    )
    expect((await platform.handle(request('192.0.2.7', 'Bearer a-very-long-admin-token'))).status).toBe(200)
  })
})

describe('a platform restored from a saved state', () => {
  const get = (path: string, key?: string) => ({
    method: 'GET',
    url: path,
    headers: key ? { authorization: `Bearer ${key}` } : {},
    body: null,
  })

  it('keeps the saved data and demo keys, and resets to the seeded data with those keys still valid', async () => {
    const first = await createMockPlatform({ seed: 3 })
    const key = first.demo.secretKey ?? ''
    const agents = (await first.handle(get('/v1/agents?limit=1', key))).body as {
      data: { id: string; name: string }[]
    }
    const agent = agents.data[0]
    if (!agent) throw new Error('no seeded agent')
    await first.handle({
      method: 'PATCH',
      url: `/v1/agents/${agent.id}`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Renamed before the restart' }),
    })
    first.clock.advance(600)
    const saved = JSON.parse(JSON.stringify(first.snapshot()))

    const second = await createMockPlatform({ seed: 3, store: createMemoryStore(saved) })
    expect(second.clock.offsetSeconds()).toBe(600)
    const restored = await second.handle(get(`/v1/agents/${agent.id}`, key))
    expect((restored.body as { name: string }).name).toBe('Renamed before the restart')

    expect((await second.handle({ ...get('/_mock/reset'), method: 'POST' })).status).toBe(200)
    const reset = await second.handle(get(`/v1/agents/${agent.id}`, key))
    expect(reset.status).toBe(200)
    expect((reset.body as { name: string }).name).toBe(agent.name)
    expect(second.clock.offsetSeconds()).toBe(0)
  })
})

describe('cross-site requests to the control plane', () => {
  let mock: Transport
  beforeAll(async () => {
    mock = await startTransport('http')
  })
  afterAll(() => mock.close())

  it.each([
    ['another origin', { origin: 'https://ads.example.net' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    [
      'Sec-Fetch-Site: same-site (another port)',
      { 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:1' },
    ],
    ['a null origin', { origin: 'null' }],
  ])('refuses a reset sent with %s, and sends no CORS headers', async (_name, headers) => {
    const response = await call(mock, 'POST', '/_mock/reset', { headers })
    expect(response.status).toBe(403)
    expect(response.body.error.code).toBe('cross_site_request')
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('lets another site link to the dashboard page (reads stay open)', async () => {
    const response = await call(mock, 'GET', '/_mock/clock', { headers: { 'sec-fetch-site': 'same-site' } })
    expect(response.status).toBe(200)
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('says what to do instead when it refuses', async () => {
    const response = await call(mock, 'POST', '/_mock/reset', { headers: { 'sec-fetch-site': 'cross-site' } })
    expect(response.body.error.message).toContain('/_mock/dashboard')
    expect(response.body.error.message).toContain('proxy')
  })

  it('admits the dashboard of a dev server that proxies to it: the browser says same-origin', async () => {
    const response = await call(mock, 'POST', '/_mock/clock/advance', {
      body: { seconds: 1 },
      headers: { origin: 'http://localhost:5173', 'sec-fetch-site': 'same-origin' },
    })
    expect(response.status).toBe(200)
  })

  it('compares Origin with its own when no Sec-Fetch-Site says', async () => {
    const response = await call(mock, 'POST', '/_mock/clock/advance', {
      body: { seconds: 1 },
      headers: { origin: 'http://localhost:5173' },
    })
    expect(response.status).toBe(403)
  })

  it('admits the dashboard of its own origin', async () => {
    const response = await call(mock, 'POST', '/_mock/clock/advance', {
      body: { seconds: 1 },
      headers: { origin: mock.origin, 'sec-fetch-site': 'same-origin' },
    })
    expect(response.status).toBe(200)
  })
})
