import type { Server } from 'node:http'
import { connect } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createMockPlatform } from '../../mocks/platform.ts'
import { createHttpServer, listen } from '../../mocks/server/http-server.ts'
import { call } from '../support/client.ts'
import { startTransport, type Transport } from '../support/transports.ts'
import { answerProblems } from './support/contract-answer.ts'
import { AGENT_BODY, ROOMY } from './support/scenario-harness.ts'

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number

/** The time a request takes, in ms. */
async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now()
  const result = await work()
  return [performance.now() - started, result]
}

/** What a fetch that failed threw: its name and message, and the code of its cause. */
async function failure(request: Promise<unknown>) {
  try {
    await request
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause
    return { name: (error as Error).name, message: (error as Error).message, code: cause?.code }
  }
  return undefined
}

/** Each effect through the MSW adapter (`setupServer`) and the node:http adapter. */
describe.each(['msw', 'http'] as const)('scenarios through the %s adapter', (kind) => {
  let mock: Transport
  let key: string
  let accountId: string

  beforeAll(async () => {
    mock = await startTransport(kind)
  })
  afterAll(() => mock.close())
  beforeEach(async () => {
    await call(mock, 'POST', '/_mock/reset')
    const account = await call(mock, 'POST', '/_mock/accounts', {
      body: { plan: 'enterprise', limits: ROOMY },
    })
    accountId = account.body.id
    const created = await call(mock, 'POST', `/_mock/accounts/${accountId}/keys`, {
      body: { type: 'secret', name: 'effects' },
    })
    key = created.body.value
  })

  const scenario = async (input: Record<string, unknown>) => {
    const created = await call(mock, 'POST', '/_mock/scenarios', { body: input })
    expect(created.status).toBe(201)
    return created.body as { id: string }
  }
  const agents = async () => (await call(mock, 'GET', '/v1/agents?limit=100', { key })).body.data.length
  const url = (path: string) => `${mock.origin}/v1${path}`
  const auth = () => ({ authorization: `Bearer ${key}` })

  it('answers an injected status as the contract documents it, with Mock-Scenario, changing nothing', async () => {
    const injected = await scenario({ operation: 'createAgent', status: 500, times: 1 })
    const response = await call(mock, 'POST', '/v1/agents', { key, body: AGENT_BODY })
    expect(response.status).toBe(500)
    expect(response.headers.get('mock-scenario')).toBe(injected.id)
    expect(answerProblems('createAgent', 500, response.body)).toEqual([])
    expect(response.body.error.request_id).toBe(response.headers.get('request-id'))
    expect(await agents()).toBe(0)
    expect((await call(mock, 'POST', '/v1/agents', { key, body: AGENT_BODY })).status).toBe(201)
  })

  /** Times `count` requests to `path`, five at a time, after one that warms the validators up. */
  async function durations(path: string, count: number): Promise<number[]> {
    await fetch(url(path), { headers: auth() }).then((r) => r.arrayBuffer())
    const out: number[] = []
    while (out.length < count) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(5, count - out.length) }, () =>
          timed(() => fetch(url(path), { headers: auth() }).then((r) => r.arrayBuffer().then(() => r))),
        ),
      )
      for (const [ms, response] of batch) {
        expect(response.status).toBe(200)
        out.push(ms)
      }
    }
    return out
  }

  /**
   * The delay a scenario adds, measured: the median time of `count` requests with it, less the median time of
   * as many without it (the same requests on this machine, whatever its load).
   */
  async function addedDelay(path: string, delay: Record<string, unknown>, count: number) {
    const without = median(await durations(path, count))
    await scenario({ operation: path === '/user' ? 'getUser' : 'listAgents', delay })
    const delayed = await durations(path, count)
    const withDelay = median(delayed)
    return { without, withDelay, added: withDelay - without, shortest: Math.min(...delayed) }
  }

  it('holds answers back by a fixed delay: every delayed answer takes it, and the median added is within 20% of it', async () => {
    const measured = await addedDelay('/user', { type: 'fixed', ms: 250 }, 15)
    console.info(
      `[scenarios] ${kind}: fixed 250 ms -> median ${measured.withDelay.toFixed(1)} ms with, ${measured.without.toFixed(1)} ms without, added ${measured.added.toFixed(1)} ms`,
    )
    // A timer never fires early: every delayed answer takes the whole delay (1 ms of timer rounding aside),
    // however loaded the machine; the median added stays within 20% of it.
    expect(measured.shortest).toBeGreaterThanOrEqual(249)
    expect(measured.added).toBeLessThanOrEqual(300)
  })

  it('holds answers back by a lognormal delay: the median added over 25 requests is within 20% of the asked median', async () => {
    const measured = await addedDelay('/agents', { type: 'lognormal', median_ms: 250, sigma: 0.3 }, 25)
    console.info(
      `[scenarios] ${kind}: lognormal median 250 ms sigma 0.3 -> median ${measured.withDelay.toFixed(1)} ms with, ${measured.without.toFixed(1)} ms without, added ${measured.added.toFixed(1)} ms`,
    )
    expect(measured.added).toBeGreaterThanOrEqual(200)
    expect(measured.added).toBeLessThanOrEqual(300)
  })

  it('drops the connection on reset: the fetch fails and nothing changes', async () => {
    const agent = (await call(mock, 'POST', '/v1/agents', { key, body: AGENT_BODY })).body
    await scenario({ operation: 'deleteAgent', network_error: 'reset' })
    const failed = await failure(fetch(url(`/agents/${agent.id}`), { method: 'DELETE', headers: auth() }))
    expect(failed?.name).toBe('TypeError')
    if (kind === 'http') expect(failed?.code).toBe('ECONNRESET')
    await call(mock, 'DELETE', '/_mock/scenarios')
    expect((await call(mock, 'GET', `/v1/agents/${agent.id}`, { key })).status).toBe(200)
  })

  it('leaves a request unanswered on timeout until the client gives up', async () => {
    await scenario({ operation: 'getUser', network_error: 'timeout' })
    const [ms, failed] = await timed(() =>
      failure(fetch(url('/user'), { headers: auth(), signal: AbortSignal.timeout(600) })),
    )
    expect(failed?.name).toBe('TimeoutError')
    expect(ms).toBeGreaterThanOrEqual(590)
    // Other requests are answered meanwhile.
    expect((await call(mock, 'GET', '/v1/agents', { key })).status).toBe(200)
  })

  it('honours times and probability', async () => {
    await scenario({ operation: 'getUser', status: 503, times: 2 })
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await call(mock, 'GET', '/v1/user', { key })).status)
    expect(statuses).toEqual([503, 503, 200, 200])
    await scenario({ operation: 'listAgents', status: 502, probability: 0.5 })
    const sample = []
    for (let i = 0; i < 60; i++) sample.push((await call(mock, 'GET', '/v1/agents', { key })).status)
    const hits = sample.filter((s) => s === 502).length
    expect(hits).toBeGreaterThan(15)
    expect(hits).toBeLessThan(45)
    expect(new Set(sample)).toEqual(new Set([200, 502]))
  })

  it('answers Prefer: code= for a documented status, and refuses an undocumented one with 400', async () => {
    const preferred = await call(mock, 'GET', '/v1/agents/agt_missing', {
      key,
      headers: { prefer: 'code=403' },
    })
    expect(preferred.status).toBe(403)
    expect(preferred.headers.get('mock-scenario')).toBe('prefer')
    expect(answerProblems('getAgent', 403, preferred.body)).toEqual([])
    const refused = await call(mock, 'GET', '/v1/agents', { key, headers: { prefer: 'code=418' } })
    expect(refused.status).toBe(400)
    expect(refused.body.error.param).toBe('Prefer')
  })
})

describe('the node:http adapter, on the wire', () => {
  let server: Server
  let port: number
  let key: string
  let platform: Awaited<ReturnType<typeof createMockPlatform>>

  beforeAll(async () => {
    platform = await createMockPlatform()
    // A short socket timeout: a request left unanswered is closed by the server once the socket is silent.
    server = createHttpServer(() => platform, { socketIdleTimeoutMs: 700 })
    port = (await listen(server, 0, '127.0.0.1')).port
    key = platform.demo.secretKey as string
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  /** Writes a GET on a raw socket; resolves with the bytes received and how the socket ended. */
  function rawGet(path: string, waitMs: number) {
    return new Promise<{ bytes: number; how: string; elapsedMs: number }>((resolve) => {
      const started = performance.now()
      const socket = connect(port, '127.0.0.1')
      let bytes = 0
      const done = (how: string) => {
        clearTimeout(timer)
        socket.destroy()
        resolve({ bytes, how, elapsedMs: performance.now() - started })
      }
      const timer = setTimeout(() => done('still open'), waitMs)
      socket.on('data', (chunk) => {
        bytes += chunk.length
      })
      socket.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? 'error'))
      socket.on('close', () => done('closed'))
      socket.write(`GET /v1${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`)
    })
  }

  const add = (input: Record<string, unknown>) =>
    platform.handle({
      method: 'POST',
      url: '/_mock/scenarios',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input),
    })

  it('resets the socket: the client reads ECONNRESET and not a byte', async () => {
    await add({ operation: 'getUser', network_error: 'reset', times: 1 })
    const seen = await rawGet('/user', 2000)
    expect(seen).toMatchObject({ bytes: 0, how: 'ECONNRESET' })
  })

  it('sends not a byte on timeout, until its socket timeout closes the silent connection', async () => {
    await add({ operation: 'getUser', network_error: 'timeout', times: 1 })
    const seen = await rawGet('/user', 3000)
    expect(seen.bytes).toBe(0)
    expect(seen.how).toBe('closed')
    expect(seen.elapsedMs).toBeGreaterThanOrEqual(650)
  })

  it('stops waiting when the client leaves during a delay, and answers others meanwhile', async () => {
    await add({ operation: 'getUser', delay: { type: 'fixed', ms: 1500 }, times: 1 })
    const early = await rawGet('/user', 200)
    expect(early).toMatchObject({ bytes: 0, how: 'still open' })
    const [ms, other] = await timed(() =>
      fetch(`http://127.0.0.1:${port}/v1/agents`, { headers: { authorization: `Bearer ${key}` } }),
    )
    expect(other.status).toBe(200)
    expect(ms).toBeLessThan(1000)
  })
})
