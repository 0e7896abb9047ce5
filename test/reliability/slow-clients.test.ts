import type { Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'
import { createHttpServer, listen } from '../../mocks/server/http-server.ts'
import { errorProblems } from './support/error-schema.ts'
import { httpJson } from './support/http-json.ts'
import { parseResponse, rawExchange } from './support/raw-http.ts'

const HEADERS_MS = 400
const REQUEST_MS = 800
const KEEP_ALIVE_MS = 300

/** A client socket that records when the server closed it and what it answered. */
interface Watched {
  kind: string
  socket: Socket
  openedAt: number
  closedAt?: number
  data: Buffer[]
  timer?: NodeJS.Timeout
}

function watch(port: number, kind: string, onConnect: (w: Watched) => void): Promise<Watched> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const watched: Watched = { kind, socket, openedAt: performance.now(), data: [] }
    socket.on('data', (chunk: Buffer) => watched.data.push(chunk))
    socket.on('error', () => {})
    socket.on('close', () => {
      watched.closedAt = performance.now()
      clearInterval(watched.timer)
    })
    socket.on('connect', () => {
      onConnect(watched)
      resolve(watched)
    })
  })
}

/** Writes `text` one chunk every `everyMs`, for as long as the socket stays open. */
function drip(w: Watched, first: string, chunk: string, everyMs: number) {
  w.socket.write(first)
  w.timer = setInterval(() => {
    if (w.socket.writable) w.socket.write(chunk)
  }, everyMs)
}

describe('slow and idle clients', () => {
  let platform: MockPlatform
  let server: Server
  let port: number
  beforeAll(async () => {
    platform = await createMockPlatform()
    platform.accounts.update(platform.demo.account.id, {
      limits: { hourly: 100_000_000, burst: 100_000_000 },
    })
    server = createHttpServer(() => platform, {
      headersTimeoutMs: HEADERS_MS,
      requestTimeoutMs: REQUEST_MS,
      keepAliveTimeoutMs: KEEP_ALIVE_MS,
      socketIdleTimeoutMs: 3_000,
    })
    port = (await listen(server, 0, '127.0.0.1')).port
  })
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )

  it('closes idle, slowloris, slow-body and idle keep-alive sockets while normal requests keep being answered', async () => {
    const key = platform.demo.secretKey ?? ''
    const slow: Watched[] = await Promise.all([
      ...Array.from({ length: 30 }, () => watch(port, 'idle', () => {})),
      ...Array.from({ length: 20 }, () =>
        watch(port, 'slowloris', (w) =>
          drip(w, 'GET /v1/user HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n', 100),
        ),
      ),
      ...Array.from({ length: 10 }, () =>
        watch(port, 'slow-body', (w) =>
          drip(
            w,
            `POST /v1/agents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`,
            ' ',
            100,
          ),
        ),
      ),
      ...Array.from({ length: 10 }, () =>
        watch(port, 'idle keep-alive', (w) =>
          w.socket.write(`GET /v1/user HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`),
        ),
      ),
    ])

    // Normal clients meanwhile: every request answered, quickly.
    const latencies: number[] = []
    const normalUntil = performance.now() + 1_500
    await Promise.all(
      Array.from({ length: 5 }, async () => {
        while (performance.now() < normalUntil) {
          const started = performance.now()
          const r = await httpJson(`http://127.0.0.1:${port}`, 'GET', '/v1/agents?limit=5', { key })
          expect(r.status).toBe(200)
          latencies.push(performance.now() - started)
        }
      }),
    )
    expect(latencies.length).toBeGreaterThan(20)
    expect(Math.max(...latencies)).toBeLessThan(1_000)

    // Every slow socket is closed by the server within its timeout plus the check interval.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const limitFor: Record<string, number> = {
      idle: HEADERS_MS + 400,
      slowloris: HEADERS_MS + 400,
      'slow-body': REQUEST_MS + 400,
      'idle keep-alive': KEEP_ALIVE_MS + 1_500,
    }
    for (const w of slow) {
      expect(w.closedAt, `${w.kind} socket still open`).toBeDefined()
      const openFor = (w.closedAt ?? Number.POSITIVE_INFINITY) - w.openedAt
      expect(openFor, `${w.kind} socket open for ${Math.round(openFor)} ms`).toBeLessThan(
        limitFor[w.kind] ?? 0,
      )
    }

    // Those cut off mid-request were told why, in the API's error envelope.
    for (const w of slow.filter((s) => s.kind !== 'idle keep-alive')) {
      const response = parseResponse(Buffer.concat(w.data))
      expect(response?.status).toBe(408)
      const body = JSON.parse(response?.body.toString('utf8') ?? 'null')
      expect(errorProblems('/v1/user', 408, response?.headers ?? {}, body)).toEqual([])
    }
    const kept = slow
      .filter((s) => s.kind === 'idle keep-alive')
      .map((s) => parseResponse(Buffer.concat(s.data)))
    expect(kept.map((r) => r?.status)).toEqual(Array(10).fill(200))
  }, 20_000)

  it('uses defaults that close slow clients in seconds, not minutes', async () => {
    const defaults = createHttpServer(() => platform)
    expect(defaults.headersTimeout).toBe(10_000)
    expect(defaults.requestTimeout).toBe(30_000)
    expect(defaults.keepAliveTimeout).toBe(5_000)
    expect(defaults.timeout).toBe(60_000)
  })
})

describe('request bodies that arrive too slowly (default timeouts)', () => {
  let platform: MockPlatform
  let server: Server
  let port: number
  beforeAll(async () => {
    platform = await createMockPlatform()
    platform.accounts.update(platform.demo.account.id, {
      limits: { hourly: 100_000_000, burst: 100_000_000 },
    })
    server = createHttpServer(() => platform)
    port = (await listen(server, 0, '127.0.0.1')).port
  })
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )

  const head = (length: number) =>
    `POST /v1/agents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${platform.demo.secretKey}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`

  it('answers 408 with the envelope, within seconds, a body that trickles in (a byte every 400 ms)', async () => {
    const w = await watch(port, 'trickle', (w) => drip(w, `${head(1000)}{`, ' ', 400))
    for (let i = 0; i < 60 && w.closedAt === undefined; i++) await new Promise((r) => setTimeout(r, 100))
    const openFor = (w.closedAt ?? Number.POSITIVE_INFINITY) - w.openedAt
    expect(openFor).toBeLessThan(4_500)
    const response = parseResponse(Buffer.concat(w.data))
    expect(response?.status).toBe(408)
    const body = JSON.parse(response?.body.toString('utf8') ?? 'null')
    expect(errorProblems('/v1/agents', 408, response?.headers ?? {}, body)).toEqual([])
  }, 10_000)

  it('takes a body that arrives slowly but steadily (300 bytes every 100 ms, 4 s in all)', async () => {
    const agent = JSON.stringify({
      name: 'steady',
      voice: { provider: 'elevenlabs', voice_id: 'rachel' },
      llm: { provider: 'openai', model: 'gpt-4o' },
      system_prompt: 'x'.repeat(12_000),
    })
    const w = await watch(port, 'steady', (w) => {
      w.socket.write(head(Buffer.byteLength(agent)))
      let sent = 0
      w.timer = setInterval(() => {
        w.socket.write(agent.slice(sent, sent + 300))
        sent += 300
        if (sent >= agent.length) clearInterval(w.timer)
      }, 100)
    })
    for (let i = 0; i < 80 && !parseResponse(Buffer.concat(w.data)); i++)
      await new Promise((r) => setTimeout(r, 100))
    expect(parseResponse(Buffer.concat(w.data))?.status).toBe(201)
    w.socket.destroy()
  }, 15_000)
})

describe('clients that half-close', () => {
  it('get the answer to a complete request even when the handler takes a while', async () => {
    const server = createHttpServer(() => ({
      handle: async () => {
        await new Promise((resolve) => setTimeout(resolve, 50))
        return { status: 200, headers: { 'request-id': 'req_halfclose' }, body: { ok: true } }
      },
    }))
    const { port } = await listen(server, 0, '127.0.0.1')
    try {
      const requests = [
        'GET /v1/user HTTP/1.1\r\nHost: x\r\n\r\n',
        'GET /v1/user HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        'POST /v1/agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
      ]
      const exchanges = await Promise.all(requests.map((bytes) => rawExchange(port, bytes, { end: true })))
      expect(exchanges.map((e) => e.response?.status)).toEqual([200, 200, 200])
      // An incomplete request from a half-closed client is answered 400 and closed.
      const cut = await rawExchange(
        port,
        'POST /v1/agents HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{"a"',
        {
          end: true,
        },
      )
      expect(cut.response?.status).toBe(400)
    } finally {
      server.close()
      server.closeAllConnections()
    }
  })
})
