import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call } from '../support/client.ts'
import { startTransport, type Transport } from '../support/transports.ts'

/** Every timestamp input: parsed by one function, normalised to UTC `Z`, refused when invalid or meaningless. */
let mock: Transport
let key: string
let accountId: string
beforeAll(async () => {
  mock = await startTransport('http')
  key = mock.platform.demo.secretKey ?? ''
  accountId = mock.platform.demo.account.id
  mock.platform.accounts.update(accountId, { limits: { hourly: 1_000_000, burst: 1_000_000 } })
})
afterAll(() => mock.close())

const shift = (iso: string, seconds: number) =>
  new Date(Date.parse(iso) + seconds * 1000).toISOString().replace('.000Z', 'Z')
/** The same instant written with a +05:30 offset. */
const withOffset = (iso: string) => `${shift(iso, 5.5 * 3600).slice(0, 19)}+05:30`

describe('GET /v1/call-logs?started_after&started_before', () => {
  it.each([
    ['started_after', '2026-06-30T23:59:60Z'],
    ['started_before', '2026-06-30T23:59:60Z'],
    ['started_after', '2016-12-31T23:59:60Z'],
    ['started_after', '9999-12-31T23:59:59-01:00'],
    ['started_before', '2026-13-01T00:00:00Z'],
    ['started_after', '2026-02-29T00:00:00Z'],
    ['started_after', '2026-03-01T00:00:00+24:00'],
    ['started_after', 'yesterday'],
  ])('answers %s=%s with 400 naming it, never an empty list', async (param, value) => {
    const response = await call(mock, 'GET', `/v1/call-logs?${param}=${encodeURIComponent(value)}`, { key })
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ code: 'invalid_parameter', param })
  })

  it('reads an offset as the instant it names: the same list as the UTC form', async () => {
    const logs = (await call(mock, 'GET', '/v1/call-logs?limit=100', { key })).body.data
    const started = logs
      .map((l: { started_at: string | null }) => l.started_at)
      .filter(Boolean)
      .sort()
    const after = started[Math.floor(started.length / 4)] as string
    const before = started[Math.floor((started.length * 3) / 4)] as string
    const utc = await call(
      mock,
      'GET',
      `/v1/call-logs?limit=100&started_after=${after}&started_before=${before}`,
      {
        key,
      },
    )
    const offset = await call(
      mock,
      'GET',
      `/v1/call-logs?limit=100&started_after=${encodeURIComponent(withOffset(after))}&started_before=${before}`,
      { key },
    )
    expect(utc.status).toBe(200)
    expect(utc.body.data.length).toBeGreaterThan(0)
    expect(offset.status).toBe(200)
    expect(offset.body.data.map((l: { id: string }) => l.id)).toEqual(
      utc.body.data.map((l: { id: string }) => l.id),
    )
  })

  it('compares the bounds as instants, not as text', async () => {
    // 10:00+05:00 is 05:00Z, before 06:00Z: a valid range (text order says the opposite).
    const response = await call(
      mock,
      'GET',
      `/v1/call-logs?started_after=${encodeURIComponent('2026-03-01T10:00:00+05:00')}&started_before=2026-03-01T06:00:00Z`,
      { key },
    )
    expect(response.status).toBe(200)
    const reversed = await call(
      mock,
      'GET',
      `/v1/call-logs?started_after=2026-03-01T06:00:00Z&started_before=${encodeURIComponent('2026-03-01T10:00:00+05:00')}`,
      { key },
    )
    expect(reversed.status).toBe(400)
    expect(reversed.body.error.param).toBe('started_before')
  })
})

describe('GET /v1/analytics/calls?start&end', () => {
  it.each([
    ['start', '2026-06-30T23:59:60Z'],
    ['end', '2026-06-30T23:59:60Z'],
    ['end', '9999-12-31T23:59:59-00:30'],
    ['start', '0000-00-00T00:00:00Z'],
  ])('answers %s=%s with 400 naming it, never a 500', async (param, value) => {
    const response = await call(mock, 'GET', `/v1/analytics/calls?${param}=${encodeURIComponent(value)}`, {
      key,
    })
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ code: 'invalid_parameter', param })
  })

  it.each([
    ['end', 'end=0000-01-01T00:00:00Z'],
    ['start', 'start=0000-01-03T00:00:00Z&end=0000-01-10T00:00:00Z&granularity=week'],
    [
      'start',
      'start=0000-01-01T00:00:00Z&end=0000-02-01T00:00:00Z&granularity=month&timezone=America/New_York',
    ],
    ['start', 'start=1969-12-31T00:00:00Z&end=1970-01-02T00:00:00Z'],
  ])('answers a range before 1970 with 400 naming %s, never a 500 (%s)', async (param, query) => {
    const response = await call(mock, 'GET', `/v1/analytics/calls?${query}`, { key })
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ code: 'invalid_parameter', param })
  })

  it('reads offsets and fractions as the instants they name', async () => {
    const end = shift(new Date().toISOString().replace(/\.\d+Z$/, 'Z'), -3600)
    const start = shift(end, -3 * 86_400)
    const utc = await call(mock, 'GET', `/v1/analytics/calls?granularity=day&start=${start}&end=${end}`, {
      key,
    })
    const other = await call(
      mock,
      'GET',
      `/v1/analytics/calls?granularity=day&start=${encodeURIComponent(withOffset(start))}&end=${end.replace('Z', '.000z').replace('T', 't')}`,
      { key },
    )
    expect(utc.status).toBe(200)
    expect(other.status).toBe(200)
    expect(other.body).toEqual(utc.body)
  })
})

describe('POST /_mock/accounts/{id}/keys restrictions.expires_at', () => {
  const createKey = (expires_at: string) =>
    call(mock, 'POST', `/_mock/accounts/${accountId}/keys`, {
      body: { type: 'secret', name: 'expiring', restrictions: { expires_at } },
    })

  it.each([
    ['a leap second', '2030-06-30T23:59:60Z'],
    ['an instant in the past', '2020-01-01T00:00:00Z'],
    ['the current second', '__now__'],
    ['a day that does not exist', '2030-02-30T00:00:00Z'],
    ['a year past the range', '9999-12-31T23:59:59-01:00'],
  ])('refuses %s with 422 naming restrictions.expires_at', async (_what, value) => {
    const response = await createKey(value === '__now__' ? mock.platform.clock.iso() : value)
    expect(response.status).toBe(422)
    expect(response.body.error.code).toBe('validation_failed')
    expect(response.body.error.errors[0].param).toBe('restrictions.expires_at')
  })

  it.each([
    ['2030-06-30T12:00:00+02:00', '2030-06-30T10:00:00Z'],
    ['2030-06-30T10:00:00.750Z', '2030-06-30T10:00:00Z'],
    ['2030-06-30t10:00:00z', '2030-06-30T10:00:00Z'],
    ['2030-07-01T01:30:00+01:30', '2030-07-01T00:00:00Z'],
    ['2030-06-30T20:00:00-05:00', '2030-07-01T01:00:00Z'],
  ])('accepts %s and stores and echoes it as %s', async (value, normalised) => {
    const response = await createKey(value)
    expect(response.status).toBe(201)
    expect(response.body.restrictions.expires_at).toBe(normalised)
    const listed = await call(mock, 'GET', `/_mock/accounts/${accountId}/keys`)
    const key = listed.body.data.find((k: { id: string }) => k.id === response.body.id)
    expect(key.restrictions.expires_at).toBe(normalised)
  })

  it('expires a key with an offset at the instant it names', async () => {
    const at = shift(mock.platform.clock.iso(), 120)
    const response = await createKey(withOffset(at))
    expect(response.status).toBe(201)
    const value = response.body.value as string
    expect((await call(mock, 'GET', '/v1/user', { key: value })).status).toBe(200)
    await call(mock, 'POST', '/_mock/clock/advance', { body: { seconds: 121 } })
    const expired = await call(mock, 'GET', '/v1/user', { key: value })
    expect(expired.status).toBe(401)
    expect(expired.body.error.message).toContain(`expired at ${at}`)
  })
})
