import { describe, expect, it } from 'vitest'
import {
  parseRateLimit,
  parseRateLimitPolicy,
  readRateLimitHeaders,
} from '../contracts/http/rate-limit-headers.ts'
import { parseList } from '../contracts/http/structured-fields.ts'

describe('parseList (RFC 8941 Structured Field Lists)', () => {
  const cases: { given: string; ok: boolean }[] = [
    { given: '"hourly";r=57;t=1843, "burst";r=3;t=22', ok: true },
    { given: '"hourly";q=100;w=3600,"burst";q=10;w=60', ok: true },
    { given: 'token;a=?1, 42, -1.5', ok: true },
    { given: '"hourly",r=57,t=1843, "burst",r=3,t=22', ok: false },
    { given: '"hourly";r=57;t=1843,', ok: false },
    { given: '"unterminated;r=1', ok: false },
    { given: '("inner" "list")', ok: false },
    { given: '"hourly";R=1', ok: false },
  ]
  it.each(cases)('parses $given: ok=$ok', ({ given, ok }) => {
    expect(parseList(given).ok).toBe(ok)
  })
})

describe('rate-limit headers (draft-ietf-httpapi-ratelimit-headers-10)', () => {
  it('reads the policies and the remaining quota of each window', () => {
    const policy = parseRateLimitPolicy('"hourly";q=100;w=3600, "burst";q=10;w=60')
    const state = parseRateLimit('"hourly";r=57;t=1843, "burst";r=3;t=22')
    expect(policy).toEqual({
      ok: true,
      value: [
        { name: 'hourly', quota: 100, window: 3600 },
        { name: 'burst', quota: 10, window: 60 },
      ],
    })
    expect(state.ok && state.value[1]).toEqual({ name: 'burst', remaining: 3, reset: 22 })
  })

  const headers = {
    'ratelimit-policy': '"hourly";q=100;w=3600, "burst";q=10;w=60',
    ratelimit: '"hourly";r=57;t=1843, "burst";r=3;t=22',
    'x-ratelimit-limit': '10',
    'x-ratelimit-remaining': '3',
    'x-ratelimit-reset': '1773310822',
  }

  it('accepts consistent headers', () => {
    expect(readRateLimitHeaders(headers).ok).toBe(true)
  })

  const broken: [string, Record<string, string>][] = [
    ['r above q', { ...headers, ratelimit: '"hourly";r=101;t=1, "burst";r=3;t=22' }],
    ['t above w', { ...headers, ratelimit: '"hourly";r=57;t=1843, "burst";r=3;t=61' }],
    ['other window names', { ...headers, ratelimit: '"hour";r=57;t=1843, "burst";r=3;t=22' }],
    ['X-RateLimit-Remaining not the least r', { ...headers, 'x-ratelimit-remaining': '57' }],
    ['X-RateLimit-Limit of another window', { ...headers, 'x-ratelimit-limit': '100' }],
    ['commas for semicolons', { ...headers, ratelimit: '"hourly",r=57,t=1843, "burst",r=3,t=22' }],
  ]
  it.each(broken)('refuses %s', (_, given) => {
    expect(readRateLimitHeaders(given).ok).toBe(false)
  })
})
