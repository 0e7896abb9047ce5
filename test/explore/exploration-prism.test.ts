import type { Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { explorationCheck } from '../../contracts/explore/exploration-check.ts'
import { openSession } from '../../contracts/runner/session.ts'
import { createMockPlatform } from '../../mocks/platform.ts'
import { createHttpServer, listen } from '../../mocks/server/http-server.ts'
import { startPrism } from '../../scripts/lib/prism-process.ts'

// Through `prism proxy` in front of the mock (as test/contract-suite-prism.test.ts runs the suite): Prism
// checks every answer against the contract (--errors), and exploration finds no difference over 20 seeds.

describe('exploration through prism proxy in front of the mock', () => {
  let server: Server
  let mockOrigin = ''
  let proxy: Awaited<ReturnType<typeof startPrism>>
  beforeAll(async () => {
    const platform = await createMockPlatform({ checkResponses: true })
    server = createHttpServer(() => platform)
    mockOrigin = `http://127.0.0.1:${(await listen(server, 0, '127.0.0.1')).port}`
    proxy = await startPrism([
      'proxy',
      'openapi/v1.yaml',
      `${mockOrigin}/v1`,
      '--errors',
      '--validate-request',
      'false',
      '--cors',
      'false',
    ])
  }, 90_000)
  afterAll(async () => {
    await proxy?.stop()
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  })

  it('finds no difference over 20 seeds', async () => {
    const failed: string[] = []
    let requests = 0
    for (let seed = 2000; seed < 2020; seed++) {
      const session = await openSession({
        baseUrl: proxy.origin,
        mockControlUrl: `${mockOrigin}/_mock`,
        provision: 'mock',
        destructive: true,
      })
      const outcome = await session.run(
        explorationCheck({
          seed,
          sequences: 1,
          maxSteps: 20,
          onResult: (r) => {
            requests += r.requests
          },
        }),
      )
      await session.close()
      if (outcome.status !== 'passed')
        failed.push(`seed ${seed}: ${outcome.failure?.actual ?? outcome.reason}`)
    }
    expect(failed).toEqual([])
    expect(requests).toBeGreaterThan(200)
  }, 300_000)
})
