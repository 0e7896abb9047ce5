/**
 * Child process of the MSW bench: the mock behind `setupServer` (as `createMockApi` ships it, response
 * checking on), a timed loop of sequential `fetch` calls to `GET /v1/agents`. Prints `RESULT <json>`.
 */
import { setupServer } from 'msw/node'
import { createMockApi } from '../../mocks/msw/create-mock-api.ts'
import { round, summarize } from './stats.ts'

const durationSec = Number(process.argv[2] ?? 5)
const origin = 'http://mock.bench'
const api = await createMockApi({ baseUrl: `${origin}/v1` })
const server = setupServer(...api.handlers)
server.listen({ onUnhandledRequest: 'error' })

const lifted = await fetch(`${origin}/_mock/accounts/${api.platform.demo.account.id}`, {
  method: 'PATCH',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ limits: { hourly: 100_000_000, burst: 100_000_000 } }),
})
if (lifted.status !== 200) throw new Error(`Lifting the limits failed: ${lifted.status}`)

const init = { headers: { authorization: `Bearer ${api.secretKey}` } }
async function once(): Promise<void> {
  const response = await fetch(`${origin}/v1/agents`, init)
  await response.arrayBuffer()
  if (response.status !== 200) throw new Error(`GET /v1/agents: ${response.status}`)
}

const warmUntil = performance.now() + 1_000
while (performance.now() < warmUntil) await once()
const durations: number[] = []
const started = performance.now()
const until = started + durationSec * 1_000
while (performance.now() < until) {
  const t = performance.now()
  await once()
  durations.push(performance.now() - t)
}
const elapsedSec = (performance.now() - started) / 1_000
const latency = summarize(durations)
server.close()
console.log(
  `RESULT ${JSON.stringify({
    requestsPerSec: round(durations.length / elapsedSec, 0),
    p50Ms: round(latency.p50, 3),
    p99Ms: round(latency.p99, 3),
    requests: durations.length,
  })}`,
)
