import { expect, it } from 'vitest'
import type { EngineResponse } from '../../mocks/engine/types.ts'
import { createMockPlatform } from '../../mocks/platform.ts'
import { faultyHandler } from '../reliability/support/faulty-handler.ts'
import { exploreInProcess } from './support/explore-run.ts'

type Named = { name?: unknown }
const named = (response: EngineResponse): Named | undefined =>
  response.status === 200 && typeof (response.body as Named | undefined)?.name === 'string'
    ? (response.body as Named)
    : undefined

/**
 * A difference that does not happen again when replayed is told, not failed; it must not end the search. Here a
 * glitch renames one early answer once (no replay meets it again), and from the 400th request on every agent read
 * by its ID comes back renamed (a fault that stays): exploration finds the second after the first.
 */
it('goes on exploring after a difference its replay does not confirm, and finds one that stays', async () => {
  const platform = await createMockPlatform({ seedSize: { callLogs: 0 } })
  let seen = 0
  let glitched = false
  const handler = faultyHandler(platform, {
    response(response, request) {
      if (!request.url.startsWith('/v1/')) return response
      seen++
      const body = named(response)
      if (!body) return response
      if (!glitched && seen > 20) {
        glitched = true
        body.name = `${String(body.name)} (glitch)`
      } else if (seen > 400 && request.method === 'GET' && /^\/v1\/agents\/agt_/.test(request.url))
        body.name = `${String(body.name)} (stale)`
      return response
    },
  })
  const run = await exploreInProcess(handler, { seed: 1, sequences: 60, shrinkSeconds: 0 })
  await platform.close()
  expect(glitched).toBe(true)
  expect(run.result?.unconfirmed, 'the glitch was found and not confirmed').toBeDefined()
  expect(run.outcome.status, 'the fault that stays was found after it').toBe('failed')
  expect(run.outcome.failure?.actual ?? '').toContain('(stale)')
}, 120_000)
