import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, provision } from '../support/client.ts'
import { startTransport, TRANSPORTS, type Transport } from '../support/transports.ts'

describe.each(TRANSPORTS)('GET /user authentication (%s)', (kind) => {
  let mock: Transport
  let secretKey: string
  beforeAll(async () => {
    mock = await startTransport(kind)
    secretKey = mock.platform.demo.secretKey ?? ''
  })
  afterAll(() => mock.close())

  const expect401 = (response: Awaited<ReturnType<typeof call>>, message: RegExp) => {
    expect(response.status).toBe(401)
    expect(Object.keys(response.body.error).sort()).toEqual(['code', 'message', 'type'])
    expect(response.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' })
    expect(response.body.error.message).toMatch(message)
    // RFC 6750: an error code only when a key was sent that does not authenticate.
    const challenge = /No API key|query string/.test(response.body.error.message)
      ? 'Bearer realm="api"'
      : 'Bearer realm="api", error="invalid_token"'
    expect(response.headers.get('www-authenticate')).toBe(challenge)
    expect(response.headers.get('request-id')).toMatch(/^req_/)
    expect(response.headers.get('ratelimit')).toBeNull()
  }

  it('returns 200 and the User object for a valid key', async () => {
    const response = await call(mock, 'GET', '/v1/user', { key: secretKey })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ object: 'user', id: mock.platform.demo.account.id, plan: 'pro' })
    expect(Object.keys(response.body).sort()).toEqual(['created_at', 'email', 'id', 'name', 'object', 'plan'])
    expect(response.headers.get('request-id')).toMatch(/^req_[A-Za-z0-9]+$/)
  })

  it('returns 401 saying the key is missing when there is no Authorization header', async () => {
    expect401(await call(mock, 'GET', '/v1/user'), /No API key provided/)
  })

  it('returns 401 saying the key is invalid, without echoing it', async () => {
    const unknown = `sk-svc-${'x'.repeat(36)}WXYZ`
    const response = await call(mock, 'GET', '/v1/user', { key: unknown })
    expect401(response, /Invalid API key/)
    expect(JSON.stringify(response.body)).not.toContain(unknown)
    expect(response.body.error.message).toContain('sk-svc-...WXYZ')
  })

  it('returns 401 saying the key was revoked, from the very next request', async () => {
    const { key, keyId } = await provision(mock)
    expect((await call(mock, 'GET', '/v1/user', { key })).status).toBe(200)
    expect((await call(mock, 'POST', `/_mock/keys/${keyId}/revoke`)).status).toBe(200)
    const response = await call(mock, 'GET', '/v1/user', { key })
    expect401(response, /revoked/)
    expect(JSON.stringify(response.body)).not.toContain(key)
  })

  it('returns 401 saying the key expired once the clock passes expires_at', async () => {
    const expiresAt = new Date(mock.platform.clock.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z')
    const { key } = await provision(mock, {}, { restrictions: { expires_at: expiresAt } })
    expect((await call(mock, 'GET', '/v1/user', { key })).status).toBe(200)
    await call(mock, 'POST', '/_mock/clock/advance', { body: { seconds: 3601 } })
    expect401(await call(mock, 'GET', '/v1/user', { key }), /expired/)
  })

  it.each([
    ['a Basic header', (key: string) => ({ authorization: `Basic ${btoa(`${key}:`)}` }), /Bearer scheme/],
    ['an empty Bearer token', () => ({ authorization: 'Bearer ' }), /No API key/],
    ['a bare key without scheme', (key: string) => ({ authorization: key }), /Bearer scheme/],
  ])('returns 401 for %s', async (_name, headers, message) => {
    expect401(await call(mock, 'GET', '/v1/user', { headers: headers(secretKey) }), message)
  })

  it('accepts the scheme name in any case', async () => {
    const response = await call(mock, 'GET', '/v1/user', {
      headers: { authorization: `bEaReR ${secretKey}` },
    })
    expect(response.status).toBe(200)
  })

  it('refuses a key in the query string with 401', async () => {
    const response = await call(mock, 'GET', `/v1/user?api_key=${secretKey}`)
    expect401(response, /query string/)
    expect(JSON.stringify(response.body)).not.toContain(secretKey)
  })

  it('does not count 401s against the rate limit', async () => {
    const { key } = await provision(mock, { plan: 'free' })
    for (let i = 0; i < 15; i++) await call(mock, 'GET', '/v1/user', { key: `${key}x` })
    const response = await call(mock, 'GET', '/v1/user', { key })
    expect(response.status).toBe(200)
    expect(response.headers.get('ratelimit')).toContain('"burst";r=9;')
  })
})
