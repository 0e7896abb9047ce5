import { describe, expect, it } from 'vitest'
import { MAX_TIMESTAMP_MS, MIN_TIMESTAMP_MS, parseTimestamp } from '../../mocks/engine/timestamp.ts'

describe('parseTimestamp', () => {
  it.each([
    ['2026-03-01T00:00:00Z', '2026-03-01T00:00:00Z', Date.UTC(2026, 2, 1)],
    ['2026-03-01t00:00:00z', '2026-03-01T00:00:00Z', Date.UTC(2026, 2, 1)],
    ['2026-03-01T05:30:00+05:30', '2026-03-01T00:00:00Z', Date.UTC(2026, 2, 1)],
    ['2026-02-28T19:00:00-05:00', '2026-03-01T00:00:00Z', Date.UTC(2026, 2, 1)],
    ['2026-03-01T00:00:00.999Z', '2026-03-01T00:00:00Z', Date.UTC(2026, 2, 1) + 999],
    ['2026-03-01T00:00:00.123456789Z', '2026-03-01T00:00:00Z', Date.UTC(2026, 2, 1) + 123],
    ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00Z', Date.UTC(2024, 1, 29, 12)],
    ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00Z', Date.UTC(2000, 1, 29)],
    ['0000-01-01T00:00:00Z', '0000-01-01T00:00:00Z', MIN_TIMESTAMP_MS],
    ['0099-06-01T00:00:00Z', '0099-06-01T00:00:00Z', new Date(0).setUTCFullYear(99, 5, 1)],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59Z', MAX_TIMESTAMP_MS],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59Z', MAX_TIMESTAMP_MS + 999],
    ['9999-12-31T23:59:59+01:00', '9999-12-31T22:59:59Z', MAX_TIMESTAMP_MS - 3_600_000],
  ])('reads %s as %s', (text, iso, ms) => {
    expect(parseTimestamp(text)).toEqual({ ok: true, iso, ms })
  })

  it.each([
    ['2026-06-30T23:59:60Z', /Leap seconds/],
    ['2016-12-31T23:59:60Z', /Leap seconds/],
    ['2026-06-30T18:59:60-05:00', /Leap seconds/],
    ['2026-02-29T00:00:00Z', /not a day/],
    ['1900-02-29T00:00:00Z', /not a day/],
    ['2026-04-31T00:00:00Z', /not a day/],
    ['2026-13-01T00:00:00Z', /not a day/],
    ['2026-00-10T00:00:00Z', /not a day/],
    ['2026-01-00T00:00:00Z', /not a day/],
    ['2026-01-01T24:00:00Z', /time of day/],
    ['2026-01-01T23:60:00Z', /time of day/],
    ['2026-01-01T23:59:61Z', /time of day/],
    ['2026-01-01T00:00:00+24:00', /offset/],
    ['2026-01-01T00:00:00+05:60', /offset/],
    ['9999-12-31T23:59:59-00:01', /outside/],
    ['0000-01-01T00:00:00+00:01', /outside/],
    ['+010000-01-01T00:00:00Z', /RFC 3339/],
    ['2026-03-01', /RFC 3339/],
    ['2026-03-01T00:00Z', /RFC 3339/],
    ['2026-03-01T00:00:00', /RFC 3339/],
    ['2026-03-01 00:00:00Z', /RFC 3339/],
    ['2026-03-01T00:00:00+0100', /RFC 3339/],
    ['1772323200', /RFC 3339/],
    ['', /RFC 3339/],
  ])('refuses %s', (text, message) => {
    const parsed = parseTimestamp(text)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.message).toMatch(message)
  })
})
