/**
 * Child process of the MSW bench, driven over IPC by `msw-throughput.ts`: `mock` runs the mock behind
 * `setupServer` (as `createMockApi` ships it, response checking on; the build users run, `dist/mocks/node.js`,
 * when it is current, else the sources), `trivial` runs one MSW handler that sends the bytes and headers the
 * mock answered; each runs timed loops of sequential `fetch` calls to `GET /v1/agents` when told. Each in its
 * own process, so that neither pays for the other's handlers.
 */
import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import type { createMockApi as CreateMockApi } from '../../mocks/msw/create-mock-api.ts'
import { hasDistBuild, MOCK_DIST_NODE } from './paths.ts'

/** What the mock answered, for the trivial handler to send. */
export interface CapturedAnswer {
  status: number
  headers: [string, string][]
  /** base64 */
  body: string
}

/** A timed loop of sequential requests. */
export interface MswRound {
  requests: number
  seconds: number
  /** CPU time the process used during the loop (user and system), seconds. */
  cpuSeconds: number
  /** Each request's duration, ms. */
  durations: number[]
}

export type MswMessage = { capture: true } | { answer: CapturedAnswer } | { run: number }

const mode = process.argv[2]
const origin = 'http://mock.bench'
const url = `${origin}/v1/agents`
let init: RequestInit = {}

async function once(): Promise<void> {
  const response = await fetch(url, init)
  await response.arrayBuffer()
  if (response.status !== 200) throw new Error(`GET /v1/agents: ${response.status}`)
}

async function run(ms: number): Promise<MswRound> {
  const durations: number[] = []
  const cpu = process.cpuUsage()
  const started = performance.now()
  const until = started + ms
  while (performance.now() < until) {
    const t = performance.now()
    await once()
    durations.push(performance.now() - t)
  }
  const seconds = (performance.now() - started) / 1000
  const used = process.cpuUsage(cpu)
  return { requests: durations.length, seconds, cpuSeconds: (used.user + used.system) / 1e6, durations }
}

const send = (message: unknown) =>
  new Promise<void>((resolve, reject) =>
    process.send?.(message, (error: Error | null) => (error ? reject(error) : resolve())),
  )

if (mode === 'mock') {
  const { createMockApi } = (await import(
    hasDistBuild() ? MOCK_DIST_NODE : '../../mocks/msw/create-mock-api.ts'
  )) as { createMockApi: typeof CreateMockApi }
  const api = await createMockApi({ baseUrl: `${origin}/v1` })
  setupServer(...api.handlers).listen({ onUnhandledRequest: 'error' })
  const lifted = await fetch(`${origin}/_mock/accounts/${api.platform.demo.account.id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ limits: { hourly: 100_000_000, burst: 100_000_000 } }),
  })
  if (lifted.status !== 200) throw new Error(`Lifting the limits failed: ${lifted.status}`)
  init = { headers: { authorization: `Bearer ${api.secretKey}` } }
} else if (mode !== 'trivial') throw new Error(`msw-child: unknown mode '${mode}' (mock or trivial).`)

process.on('message', async (message: MswMessage) => {
  if ('capture' in message) {
    const response = await fetch(url, init)
    const body = Buffer.from(await response.arrayBuffer()).toString('base64')
    await send({ captured: { status: response.status, headers: [...response.headers], body } })
  } else if ('answer' in message) {
    const { status, headers, body } = message.answer
    const bytes = new Uint8Array(Buffer.from(body, 'base64'))
    setupServer(http.get(url, () => new HttpResponse(bytes, { status, headers }))).listen({
      onUnhandledRequest: 'error',
    })
    init = { headers: { authorization: 'Bearer sk-svc-trivial' } }
    await send({ ready: true })
  } else await send({ round: await run(message.run) })
})
process.on('disconnect', () => process.exit(0))
await send({ ready: mode === 'mock' })
