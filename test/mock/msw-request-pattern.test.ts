import { matchRequestUrl } from 'msw'
import { describe, expect, it } from 'vitest'
import { requestPattern } from '../../mocks/msw/request-pattern.ts'

/** How MSW matches a URL against a pattern: whether it matches, its parameters, or the error it throws. */
function matchOf(url: string, pattern: string | RegExp): string {
  try {
    return JSON.stringify(matchRequestUrl(new URL(url), pattern))
  } catch (error) {
    return `throws ${(error as Error).name}`
  }
}

const MOUNT_POINTS = [
  'http://127.0.0.1:4010',
  'http://mock.bench',
  'https://api.example.com/base',
  '/api',
  '',
]
const PATHS = [
  '/v1',
  '/v1/',
  '/v1/agents',
  '/V1/Agents',
  '/v1/agents/?limit=2#top',
  '/v1x/agents',
  '/v2/agents',
  '/_mock/accounts',
  '/v1/agents/%E0%A4%A',
  '/v1/a%2Fb/c',
  '//v1/agents',
]

describe('requestPattern', () => {
  it.each(MOUNT_POINTS)('matches what MSW matches with `%s/v1/*` and `%s/_mock/*`', (mountPoint) => {
    const origins = [
      'http://127.0.0.1:4010',
      'http://mock.bench',
      'HTTP://MOCK.BENCH',
      'https://api.example.com',
    ]
    for (const prefix of ['/v1', '/_mock'])
      for (const origin of origins)
        for (const path of PATHS) {
          const url = mountPoint.startsWith('http')
            ? `${origin}${new URL(mountPoint).pathname.replace(/\/$/, '')}${path}`
            : `${origin}${mountPoint}${path}`
          expect(matchOf(url, requestPattern(mountPoint, prefix)), url).toBe(
            matchOf(url, `${mountPoint}${prefix}/*`),
          )
        }
  })

  it('is a regular expression for a plain absolute mount point, and MSW’s own pattern otherwise', () => {
    expect(requestPattern('http://127.0.0.1:4010', '/v1')).toBeInstanceOf(RegExp)
    expect(requestPattern('/api', '/v1')).toBe('/api/v1/*')
    expect(requestPattern('http://*.example.com', '/v1')).toBe('http://*.example.com/v1/*')
  })
})
