import { connect, type Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { parseMockFlags } from '../../cli/mock/mock-command.ts'
import { defaultMaxConnections } from '../../mocks/server/connection-cap.ts'
import { errorProblems } from './support/error-schema.ts'
import { httpJson } from './support/http-json.ts'
import { parseResponse } from './support/raw-http.ts'
import { type SpawnedMock, spawnMock } from './support/spawn-mock.ts'

/** An open client socket and what the server sent on it; `closed` once the server (or we) closed it. */
interface Held {
  socket: Socket
  data: () => Buffer
  closed: () => boolean
}

/** Opens a connection to 127.0.0.1 and resolves once it is connected (or failed: then it is closed). */
function hold(port: number): Promise<Held> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let closed = false
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', () => {})
    socket.on('close', () => {
      closed = true
    })
    const held = { socket, data: () => Buffer.concat(chunks), closed: () => closed }
    socket.on('connect', () => resolve(held))
    socket.on('close', () => resolve(held))
  })
}

/** Sends one keep-alive request on a held socket and waits for its answer (the socket stays open). */
function ask(held: Held, path: string, key: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const before = held.data().length
    const timer = setTimeout(() => resolve(undefined), 5_000)
    const check = () => {
      const response = parseResponse(held.data().subarray(before))
      if (!response && !held.closed()) return
      clearTimeout(timer)
      held.socket.off('data', check)
      resolve(response?.status)
    }
    held.socket.on('data', check)
    held.socket.on('close', check)
    held.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`)
  })
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const held: Held[] = []
afterEach(() => {
  for (const h of held.splice(0)) h.socket.destroy()
})

/** The demo secret key of a spawned mock, from its banner (which may still be arriving). */
async function secretKeyOf(mock: SpawnedMock): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const key = /SECRET_KEY=(sk-svc-\S+)/.exec(mock.output())?.[1]
    if (key) return key
    await settle(20)
  }
  throw new Error(`no secret key in the banner:\n${mock.output()}`)
}

describe('connections beyond the descriptor limit (the report: 256 descriptors, 400 idle sockets)', () => {
  let mock: SpawnedMock
  beforeAll(async () => {
    mock = await spawnMock([], { fileLimit: 256 })
  })
  afterAll(() => mock.kill('SIGTERM'))

  it('keeps answering new clients while 400 idle sockets are open', async () => {
    for (let i = 0; i < 400; i++) held.push(await hold(mock.port))
    // Past the grace a just-opened connection gets to send its request.
    await settle(1_200)
    const started = performance.now()
    const statuses: number[] = []
    for (let i = 0; i < 5; i++)
      statuses.push((await httpJson(mock.origin, 'GET', '/v1/user', { key: await secretKeyOf(mock) })).status)
    expect(statuses).toEqual([200, 200, 200, 200, 200])
    expect(performance.now() - started).toBeLessThan(2_000)
    // The mock holds at most its default cap ((256 - 64) * 3/4 = 144) of them; the rest were closed.
    expect(held.filter((h) => !h.closed()).length).toBeLessThanOrEqual(144)
  }, 30_000)
})

describe('--max-connections', () => {
  let mock: SpawnedMock
  let key: string
  beforeAll(async () => {
    mock = await spawnMock(['--max-connections', '20'])
    key = await secretKeyOf(mock)
    // Lift the rate limit so that only the connection cap decides.
    const accounts = await httpJson(mock.origin, 'GET', '/_mock/accounts')
    await httpJson(mock.origin, 'PATCH', `/_mock/accounts/${accounts.body.data[0].id}`, {
      body: { limits: { hourly: 1_000_000, burst: 1_000_000 } },
    })
  })
  afterAll(() => mock.kill('SIGTERM'))

  it('closes the longest-idle keep-alive connection for a new one: 100 keep-alive clients in turn are all answered', async () => {
    const statuses: (number | undefined)[] = []
    for (let i = 0; i < 100; i++) {
      const client = await hold(mock.port)
      held.push(client)
      statuses.push(await ask(client, '/v1/user', key))
    }
    expect(statuses).toEqual(Array(100).fill(200))
    await settle(100)
    expect(held.filter((h) => !h.closed()).length).toBeLessThanOrEqual(20)
    // The newest ones are kept (the oldest idle went first).
    expect(held.slice(-10).every((h) => !h.closed())).toBe(true)
  })

  it('answers a new connection 503 with the envelope when every connection is busy, and finishes the busy ones', async () => {
    // 20 uploads in progress: each sent its head and half of its body.
    const body = JSON.stringify({
      name: 'busy',
      voice: { provider: 'elevenlabs', voice_id: 'r' },
      llm: { provider: 'openai', model: 'm' },
    })
    const busy: Held[] = []
    for (let i = 0; i < 20; i++) {
      const client = await hold(mock.port)
      busy.push(client)
      client.socket.write(
        `POST /v1/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
      )
    }
    held.push(...busy)
    await settle(200)
    const refused = await hold(mock.port)
    held.push(refused)
    await settle(300)
    const response = parseResponse(refused.data())
    expect(response?.status).toBe(503)
    expect(response?.headers['retry-after']).toEqual(['1'])
    const error = JSON.parse(response?.body.toString('utf8') ?? 'null')
    expect(error.error.code).toBe('service_unavailable')
    expect(error.error.message).toContain('--max-connections')
    expect(errorProblems('/v1', 503, response?.headers ?? {}, error)).toEqual([])
    expect(refused.closed()).toBe(true)

    // The busy clients were not starved: each finishes its upload and gets its answer.
    for (const client of busy) client.socket.write(body.slice(10))
    await settle(300)
    const statuses = busy.map((client) => parseResponse(client.data())?.status)
    expect(statuses).toEqual(Array(20).fill(201))
  })
})

describe('--max-connections 20 with 20 slow bodies (the report: one body byte every 2 s)', () => {
  let mock: SpawnedMock
  let key: string
  beforeAll(async () => {
    mock = await spawnMock(['--max-connections', '20'])
    key = await secretKeyOf(mock)
    const accounts = await httpJson(mock.origin, 'GET', '/_mock/accounts')
    await httpJson(mock.origin, 'PATCH', `/_mock/accounts/${accounts.body.data[0].id}`, {
      body: { limits: { hourly: 1_000_000, burst: 1_000_000 } },
    })
  })
  afterAll(() => mock.kill('SIGTERM'))

  it('answers normal requests while 20 connections send their bodies one byte every 2 s', async () => {
    const drips: NodeJS.Timeout[] = []
    try {
      for (let i = 0; i < 20; i++) {
        const slow = await hold(mock.port)
        held.push(slow)
        slow.socket.write(
          `POST /v1/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
        )
        drips.push(setInterval(() => slow.socket.writable && slow.socket.write(' '), 2_000))
      }
      await settle(1_200)
      // 20 normal requests, one every 150 ms, each on a new connection.
      const statuses: number[] = []
      for (let i = 0; i < 20; i++) {
        statuses.push((await httpJson(mock.origin, 'GET', '/v1/user', { key })).status)
        await settle(150)
      }
      expect(statuses).toEqual(Array(20).fill(200))
    } finally {
      for (const drip of drips) clearInterval(drip)
    }
  }, 30_000)
})

describe('the connection cap', () => {
  it('defaults to 1024, or 3/4 of the descriptors left after 64 when that is lower', () => {
    expect(defaultMaxConnections(1_048_576)).toBe(1024)
    expect(defaultMaxConnections(1024)).toBe(720)
    expect(defaultMaxConnections(256)).toBe(144)
    expect(defaultMaxConnections(64)).toBe(16)
    expect(defaultMaxConnections(undefined)).toBe(1024)
  })

  it.each(['0', '-1', 'many', '1.5', '100000'])(
    'refuses --max-connections %s with a usage error',
    (value) => {
      expect(() => parseMockFlags(['--max-connections', value])).toThrow(/--max-connections/)
    },
  )
})
