import type { Server } from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHttpServer, listen } from '../../mocks/server/http-server.ts'
import { createFixtures, type Fixtures } from './support/fixtures.ts'
import { assertFuzz, fuzzConfig } from './support/fuzz-config.ts'
import { rawExchange } from './support/raw-http.ts'
import { responseProblems } from './support/response-problems.ts'
import { type WireCase, wireCaseArbitrary } from './support/wire-arbitraries.ts'

const { seed, runs } = fuzzConfig(20_261_122, 500)

function parseBody(body: Buffer): unknown {
  const text = body.toString('utf8')
  try {
    return text === '' ? undefined : JSON.parse(text)
  } catch {
    return text
  }
}

function show(wire: WireCase): string {
  const text = wire.bytes.toString('latin1')
  return JSON.stringify(text.length > 400 ? `${text.slice(0, 400)}... (${text.length} bytes)` : text)
}

describe('fuzzing the HTTP server (raw sockets)', () => {
  let fixtures: Fixtures
  let server: Server
  let port: number
  const drift: string[] = []

  beforeAll(async () => {
    fixtures = await createFixtures({ onContractViolation: (message) => drift.push(message) })
    server = createHttpServer(() => fixtures.platform, { headersTimeoutMs: 2_000, requestTimeoutMs: 4_000 })
    port = (await listen(server, 0, '127.0.0.1')).port
  })
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )

  it('answers malformed, repeated-header, invalid-UTF-8 and oversize requests without a 5xx or a crash, with contract error bodies', async () => {
    let tried = 0
    const kinds: Record<string, number> = {}
    const statuses: Record<string, number> = {}
    const started = performance.now()
    try {
      await assertFuzz(
        fc.asyncProperty(
          fc.array(wireCaseArbitrary(fixtures), { minLength: 1, maxLength: 8 }),
          async (cases) => {
            await fixtures.reset()
            const exchanges = await Promise.all(
              cases.map((wire) =>
                rawExchange(port, wire.bytes, {
                  head: wire.head,
                  timeoutMs: 8_000,
                  end: true,
                }),
              ),
            )
            for (const [i, exchange] of exchanges.entries()) {
              const wire = cases[i] as WireCase
              tried++
              kinds[wire.kind] = (kinds[wire.kind] ?? 0) + 1
              const { response } = exchange
              const status = response ? String(response.status) : 'none'
              statuses[status] = (statuses[status] ?? 0) + 1
              if (!response) {
                if (wire.answerExpected) throw new Error(`no response (${wire.kind}) to ${show(wire)}`)
                continue
              }
              const headers = Object.fromEntries(
                Object.entries(response.headers).map(([k, v]) => [k, v.join(', ')]),
              )
              const problems = responseProblems(
                wire.path,
                { status: response.status, headers, body: parseBody(response.body) },
                fixtures.secrets,
                { bodyExpected: !wire.head },
              )
              if (problems.length > 0)
                throw new Error(`${problems.join('; ')} (${wire.kind}) for ${show(wire)}`)
            }
          },
        ),
        { seed, numRuns: runs },
      )
    } finally {
      console.log(
        `fuzz (http): ${tried} raw requests tried in ${runs} runs, seed ${seed} (replay: FUZZ_SEED=${seed}), ${Math.round(performance.now() - started)} ms; ${JSON.stringify(kinds)}; statuses ${JSON.stringify(statuses)}`,
      )
    }
    const health = await fetch(`http://127.0.0.1:${port}/v1/user`, {
      headers: { authorization: `Bearer ${fixtures.keys.full}` },
    })
    expect(health.status).toBe(200)
    expect(drift).toEqual([])
  }, 60_000)
})
