import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { createFixtures, type Fixtures } from './support/fixtures.ts'
import { assertFuzz, fuzzConfig } from './support/fuzz-config.ts'
import { type FuzzRequest, fuzzRequestArbitrary, toEngineRequest } from './support/request-arbitraries.ts'
import { responseProblems } from './support/response-problems.ts'

const { seed, runs } = fuzzConfig(20_261_121, 700)

function describeRequest(request: FuzzRequest): string {
  const body =
    request.body === null
      ? 'null'
      : `${request.body.slice(0, 200)}${request.body.length > 200 ? `... (${request.body.length} chars)` : ''}`
  return `${request.method} ${request.path}${request.query ? `?${request.query}` : ''} headers=${JSON.stringify(request.headers).slice(0, 300)} clientIp=${String(request.clientIp)} body=${body}`
}

describe('fuzzing the engine (in process)', () => {
  let fixtures: Fixtures
  const drift: string[] = []
  beforeAll(async () => {
    fixtures = await createFixtures((message) => drift.push(message))
  })

  it('answers random and malformed requests on every route without a 5xx, with contract error bodies and no key value', async () => {
    let tried = 0
    const statuses: Record<string, number> = {}
    const started = performance.now()
    try {
      await assertFuzz(
        fc.asyncProperty(
          fc.array(fuzzRequestArbitrary(fixtures), { minLength: 1, maxLength: 14 }),
          async (requests) => {
            await fixtures.reset()
            for (const request of requests) {
              tried++
              const response = await fixtures.handle(toEngineRequest(request))
              statuses[response.status] = (statuses[response.status] ?? 0) + 1
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
        ),
        { seed, numRuns: runs },
      )
    } finally {
      console.log(
        `fuzz (engine): ${tried} requests tried in ${runs} sequences, seed ${seed} (replay: FUZZ_SEED=${seed}), ${Math.round(performance.now() - started)} ms; statuses ${JSON.stringify(statuses)}`,
      )
    }
    expect(drift).toEqual([])
  }, 60_000)
})
