import http, { type IncomingMessage } from 'node:http'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockApi, type MockApi } from '../../mocks/node.ts'

/** A GET through node:http (MSW's interceptors give it the header names as the answer was built with). */
function get(url: string, key: string): Promise<{ response: IncomingMessage; body: Buffer }> {
  return new Promise((resolve, reject) => {
    // `http.request` read when called: MSW patches the module's export.
    const sent = http.request(url, { headers: { authorization: `Bearer ${key}` } }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve({ response, body: Buffer.concat(chunks) }))
    })
    sent.on('error', reject)
    sent.end()
  })
}

const names = (headers: Record<string, string>) => Object.keys(headers)
/** A body with every request ID alike (each answer has its own). */
const sameIds = (body: unknown) => JSON.parse(JSON.stringify(body).replace(/"req_\w+"/g, '"req_"')) as unknown

describe('an answer through MSW', () => {
  let api: MockApi
  let server: ReturnType<typeof setupServer>
  beforeAll(async () => {
    api = await createMockApi({ seed: 3 })
    server = setupServer(...api.handlers)
    server.listen({ onUnhandledRequest: 'error' })
  })
  afterAll(() => server.close())

  it.each(['/user', '/agents?limit=3', '/agents/agt_missing'])(
    'GET %s has the engine’s header names, in order and as written, and its JSON bytes',
    async (path) => {
      const url = `${api.baseUrl}${path}`
      const engine = await api.platform.handle({
        method: 'GET',
        url: new URL(url).pathname + new URL(url).search,
        headers: { authorization: `Bearer ${api.secretKey}` },
        body: null,
        baseUrl: api.baseUrl,
      })
      const { response, body } = await get(url, api.secretKey)
      expect(response.statusCode).toBe(engine.status)
      const raw = response.rawHeaders.filter((_, i) => i % 2 === 0)
      expect(raw).toEqual(names(engine.headers))
      const json = JSON.parse(body.toString('utf8')) as unknown
      expect(body.toString('utf8')).toBe(JSON.stringify(json))
      expect(sameIds(json)).toEqual(sameIds(engine.body))
      const fetched = await fetch(url, { headers: { authorization: `Bearer ${api.secretKey}` } })
      expect([...fetched.headers.keys()].sort()).toEqual(names(engine.headers).sort())
    },
  )
})
