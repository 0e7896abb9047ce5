import type { Server } from 'node:http'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe } from 'vitest'
import { defineContractSuite } from '../contracts/vitest/index.ts'
import { createMockApi } from '../mocks/msw/create-mock-api.ts'
import { createMockPlatform } from '../mocks/platform.ts'
import { createHttpServer, listen } from '../mocks/server/http-server.ts'

// The whole suite, destructive checks and rate limits included, against the unmodified mock: each
// check is one test, so a contract drift of the mock shows here by name.

describe('the contract suite against the mock in-process, through its MSW handlers', () => {
  const baseUrl = 'http://contract-suite.msw.test/v1'
  let server: ReturnType<typeof setupServer>
  beforeAll(async () => {
    const api = await createMockApi({ baseUrl })
    server = setupServer(...api.handlers)
    server.listen({ onUnhandledRequest: 'error' })
  })
  afterAll(() => server.close())
  defineContractSuite({ baseUrl, provision: 'mock', destructive: true, exploreSequences: 5 })
})

describe('the contract suite against the standalone mock, by URL', () => {
  let server: Server
  let baseUrl = ''
  beforeAll(async () => {
    const platform = await createMockPlatform({ checkResponses: true })
    server = createHttpServer(() => platform)
    baseUrl = `http://127.0.0.1:${(await listen(server, 0, '127.0.0.1')).port}/v1`
  })
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  defineContractSuite(() => ({ baseUrl, provision: 'mock', destructive: true, exploreSequences: 5 }))
})
