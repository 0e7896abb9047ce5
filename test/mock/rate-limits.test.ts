import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, provision } from '../support/client.ts'
import { startTransport, TRANSPORTS, type Transport } from '../support/transports.ts'

/** Parses `"hourly";r=57;t=1843, "burst";r=3;t=22` (IETF structured-field list). */
function parseRateLimit(value: string | null): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {}
  for (const item of (value ?? '').split(',')) {
    const [name, ...params] = item.trim().split(';')
    const policy = /^"([a-z]+)"$/.exec(name ?? '')?.[1]
    if (!policy) throw new Error(`bad item '${item}'`)
    out[policy] = Object.fromEntries(params.map((p) => [p.split('=')[0], Number(p.split('=')[1])]))
  }
  return out
}

describe.each(TRANSPORTS)('rate limits (%s)', (kind) => {
  let mock: Transport
  beforeAll(async () => {
    mock = await startTransport(kind)
  })
  afterAll(() => mock.close())

  it('admits 10 requests a minute on the free plan and refuses the 11th with 429 and its headers', async () => {
    const { key } = await provision(mock, { plan: 'free' })
    for (let i = 1; i <= 10; i++) {
      const response = await call(mock, 'GET', '/v1/user', { key })
      expect(response.status).toBe(200)
      expect(parseRateLimit(response.headers.get('ratelimit')).burst?.r).toBe(10 - i)
    }
    const refused = await call(mock, 'GET', '/v1/user', { key })
    expect(refused.status).toBe(429)
    expect(refused.body.error).toMatchObject({
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
      policy: 'burst',
    })
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(refused.body.error.retry_after).toBe(retryAfter)
    expect(refused.headers.get('ratelimit-policy')).toBe('"hourly";q=100;w=3600, "burst";q=10;w=60')
    const limits = parseRateLimit(refused.headers.get('ratelimit'))
    expect(limits.burst).toEqual({ r: 0, t: retryAfter })
    expect(limits.hourly?.r).toBe(90)
    expect(refused.headers.get('x-ratelimit-limit')).toBe('10')
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')
  })

  it('admits a retry made after Retry-After, and does not count the 429s', async () => {
    const { key } = await provision(mock, { plan: 'free' })
    for (let i = 0; i < 10; i++) await call(mock, 'GET', '/v1/user', { key })
    let refused = await call(mock, 'GET', '/v1/user', { key })
    for (let i = 0; i < 5; i++) refused = await call(mock, 'GET', '/v1/user', { key })
    expect(refused.status).toBe(429)
    await call(mock, 'POST', '/_mock/clock/advance', {
      body: { seconds: Number(refused.headers.get('retry-after')) },
    })
    const retried = await call(mock, 'GET', '/v1/user', { key })
    expect(retried.status).toBe(200)
    expect(parseRateLimit(retried.headers.get('ratelimit')).hourly?.r).toBe(89)
  })

  it('enforces the hourly window and reopens it once the clock moves past the hour', async () => {
    const { key } = await provision(mock, { plan: 'free' })
    for (let minute = 0; minute < 10; minute++) {
      for (let i = 0; i < 10; i++) expect((await call(mock, 'GET', '/v1/user', { key })).status).toBe(200)
      await call(mock, 'POST', '/_mock/clock/advance', { body: { seconds: 61 } })
    }
    const refused = await call(mock, 'GET', '/v1/user', { key })
    expect(refused.status).toBe(429)
    expect(refused.body.error.policy).toBe('hourly')
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(60)
    expect(retryAfter).toBeLessThanOrEqual(3600)
    await call(mock, 'POST', '/_mock/clock/advance', { body: { seconds: retryAfter } })
    expect((await call(mock, 'GET', '/v1/user', { key })).status).toBe(200)
  })

  it('shares one budget between all keys of an account', async () => {
    const first = await provision(mock, { plan: 'free' })
    const second = await call(mock, 'POST', `/_mock/accounts/${first.accountId}/keys`, {
      body: { type: 'secret', name: 'second' },
    })
    for (let i = 0; i < 5; i++) await call(mock, 'GET', '/v1/user', { key: first.key })
    const response = await call(mock, 'GET', '/v1/user', { key: second.body.value })
    expect(parseRateLimit(response.headers.get('ratelimit')).burst?.r).toBe(4)
  })

  it('counts admitted requests whatever their status, and puts the headers on errors too', async () => {
    const { key } = await provision(mock, { plan: 'free' })
    const notFound = await call(mock, 'GET', '/v1/agents/agt_doesnotexist', { key })
    expect(notFound.status).toBe(404)
    expect(parseRateLimit(notFound.headers.get('ratelimit')).burst?.r).toBe(9)
    const routeMissing = await call(mock, 'GET', '/v1/nothing-here', { key })
    expect(routeMissing.status).toBe(404)
    expect(parseRateLimit(routeMissing.headers.get('ratelimit')).burst?.r).toBe(8)
  })

  it('uses custom limits set for an enterprise account', async () => {
    const { key } = await provision(mock, { plan: 'enterprise', limits: { hourly: 50, burst: 3 } })
    for (let i = 0; i < 3; i++) expect((await call(mock, 'GET', '/v1/user', { key })).status).toBe(200)
    const refused = await call(mock, 'GET', '/v1/user', { key })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('ratelimit-policy')).toBe('"hourly";q=50;w=3600, "burst";q=3;w=60')
  })

  it('admits exactly 10 of 200 concurrent requests on a free account', async () => {
    const { key } = await provision(mock, { plan: 'free' })
    const statuses = await Promise.all(
      Array.from({ length: 200 }, () => call(mock, 'GET', '/v1/user', { key }).then((r) => r.status)),
    )
    expect(statuses.filter((s) => s === 200)).toHaveLength(10)
    expect(statuses.filter((s) => s === 429)).toHaveLength(190)
  })
})
