import fc from 'fast-check'
import type { Fixtures } from './fixtures.ts'
import { type FuzzRequest, fuzzRequestArbitrary, toEngineRequest } from './request-arbitraries.ts'
import { responseProblems } from './response-problems.ts'

/** What a fuzz run did, for its report. */
export interface FuzzTally {
  tried: number
  statuses: Record<string, number>
}

function describeRequest(request: FuzzRequest): string {
  const body =
    request.body === null
      ? 'null'
      : `${request.body.slice(0, 200)}${request.body.length > 200 ? `... (${request.body.length} chars)` : ''}`
  return `${request.method} ${request.path}${request.query ? `?${request.query}` : ''} headers=${JSON.stringify(request.headers).slice(0, 300)} clientIp=${String(request.clientIp)} body=${body}`
}

/**
 * The engine fuzz property: from the fixture state, a sequence of random and malformed requests, each
 * answered without a 5xx, with valid headers and a `Request-Id`, an error body valid against the
 * contract's `Error` schema and no key value; afterwards the journal holds no key value either.
 */
export function engineFuzzProperty(fixtures: Fixtures, tally: FuzzTally) {
  return fc.asyncProperty(
    fc.array(fuzzRequestArbitrary(fixtures), { minLength: 1, maxLength: 14 }),
    async (requests) => {
      await fixtures.reset()
      for (const request of requests) {
        tally.tried++
        const response = await fixtures.handle(toEngineRequest(request))
        tally.statuses[response.status] = (tally.statuses[response.status] ?? 0) + 1
        const problems = responseProblems(request.path, response, fixtures.secrets)
        if (problems.length > 0)
          throw new Error(`${problems.join('; ')}\n  request: ${describeRequest(request)}`)
      }
      const journal = await fixtures.handle({
        method: 'GET',
        url: '/_mock/journal?limit=1000',
        headers: {},
        body: null,
      })
      const text = JSON.stringify(journal.body)
      if (fixtures.secrets.some((secret) => text.includes(secret)))
        throw new Error('a key value appears in the journal')
    },
  )
}
