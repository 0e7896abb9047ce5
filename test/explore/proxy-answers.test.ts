import { describe, expect, it } from 'vitest'
import { createMockPlatform } from '../../mocks/platform.ts'
import { engineFetch } from '../mutants/engine-fetch.ts'
import { exploreInProcess } from './support/explore-run.ts'

// A proxy in front of the target may answer a request itself: `prism proxy` answers every HEAD with its own
// 405 (application/problem+json) and never forwards it. The model counted that request against the rate limit
// and the target did not, so the sequence must stop there, even at a step whose answer is not compared (seed
// 633562836 went on and later saw the target admit a request the model refused as over the burst limit).

const BASE_URL = 'http://explore.test/v1'

/** The mock behind a front that answers HEAD as Prism's proxy does. */
async function behindHeadAnsweringProxy(): Promise<{ fetch: typeof fetch; heads: () => number }> {
  const platform = await createMockPlatform({ seedSize: { callLogs: 0 } })
  const toMock = engineFetch(() => platform, BASE_URL)
  let heads = 0
  const fetch: typeof globalThis.fetch = async (input, init = {}) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    if ((init.method ?? 'GET').toUpperCase() === 'HEAD' && new URL(url).pathname.startsWith('/v1/')) {
      heads++
      return new Response(null, { status: 405, headers: { 'content-type': 'application/problem+json' } })
    }
    return toMock(input, init)
  }
  return { fetch, heads: () => heads }
}

describe('exploration behind a proxy that answers some requests itself', () => {
  it('stops a sequence at a request the proxy kept, compared or not (seed 633562836)', async () => {
    const front = await behindHeadAnsweringProxy()
    const run = await exploreInProcess(undefined, { seed: 633562836, sequences: 15, fetch: front.fetch })
    expect(front.heads()).toBeGreaterThan(0)
    expect(run.outcome.failure?.actual).toBeUndefined()
    expect(run.outcome.status).toBe('passed')
  }, 120_000)
})
