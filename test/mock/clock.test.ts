import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call } from '../support/client.ts'
import { startTransport, type Transport } from '../support/transports.ts'

/** The latest instant the clock may be moved to (documented in mock-control.yaml). */
const LATEST = Date.parse('9998-12-31T23:59:59Z')
const YEAR = 365 * 86_400

describe('POST /_mock/clock/advance near the end of the representable range', () => {
  let mock: Transport
  let key: string
  beforeAll(async () => {
    mock = await startTransport('http')
    key = mock.platform.demo.secretKey ?? ''
    mock.platform.accounts.update(mock.platform.demo.account.id, { limits: { hourly: 1e6, burst: 1e6 } })
    // Up to 100 s before the bound, directly (over HTTP it takes about 8,000 steps of a year).
    mock.platform.clock.advance((LATEST - mock.platform.clock.now()) / 1000 - 100)
  })
  afterAll(() => mock.close())

  it('refuses an advance past 9998-12-31T23:59:59Z with 422 naming seconds, and changes nothing', async () => {
    for (let i = 0; i < 3; i++) {
      const before = (await call(mock, 'GET', '/_mock/clock')).body.offset_seconds
      const refused = await call(mock, 'POST', '/_mock/clock/advance', { body: { seconds: YEAR } })
      expect(refused.status).toBe(422)
      expect(refused.body.error.code).toBe('validation_failed')
      expect(refused.body.error.errors[0]).toMatchObject({ param: 'seconds', code: 'maximum' })
      expect(refused.body.error.message).toContain('9998-12-31T23:59:59Z')
      const after = (await call(mock, 'GET', '/_mock/clock')).body.offset_seconds
      expect(after).toBe(before)
    }
  })

  it('moves up to the bound, and every route keeps answering with four-digit years', async () => {
    const now = Date.parse((await call(mock, 'GET', '/_mock/clock')).body.now)
    const clock = await call(mock, 'POST', '/_mock/clock/advance', {
      body: { seconds: Math.floor((LATEST - now) / 1000) - 5 },
    })
    expect(clock.status).toBe(200)
    expect(clock.body.now).toMatch(/^9998-12-31T23:59:/)
    const created = await call(mock, 'POST', '/v1/agents', {
      key,
      body: {
        name: 'late',
        voice: { provider: 'elevenlabs', voice_id: 'r' },
        llm: { provider: 'openai', model: 'm' },
      },
    })
    expect(created.status).toBe(201)
    expect(created.body.created_at).toMatch(/^9998-/)
    for (const path of ['/v1/user', '/v1/agents', '/v1/call-logs', '/v1/analytics/calls', '/v1/team-members'])
      expect((await call(mock, 'GET', path, { key })).status).toBe(200)
    const keys = await call(mock, 'POST', `/_mock/accounts/${mock.platform.demo.account.id}/keys`, {
      body: { type: 'secret', name: 'late key' },
    })
    expect(keys.status).toBe(201)
    expect(keys.body.rotation_due_at).toMatch(/^9999-03-31T/)
  })
})
