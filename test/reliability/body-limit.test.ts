import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'
import { dashboardPages } from '../../mocks/server/dashboard/dashboard-pages.ts'
import { errorProblems } from './support/error-schema.ts'
import { httpJson, provisionAccount } from './support/http-json.ts'
import { parseResponse, type RawResponse } from './support/raw-http.ts'
import { agentBody, servePlatform } from './support/targets.ts'

const MiB = 1024 * 1024

/**
 * Writes the head, then body bytes in 64 KiB chunks (up to `bodyBytes`), stopping as soon as a
 * response arrives; the socket is never half-closed, so only the server can end the exchange.
 */
function streamUntilAnswered(
  port: number,
  head: string,
  bodyBytes: number,
): Promise<{ response?: RawResponse; sentBody: number; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let sentBody = 0
    let answered = false
    const data = Buffer.alloc(64 * 1024, 0x20)
    const chunked = /transfer-encoding: chunked/i.test(head)
    const chunk = chunked
      ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')])
      : data
    const finish = (closedByServer: boolean) => {
      clearTimeout(timer)
      socket.destroy()
      resolve({ response: parseResponse(Buffer.concat(chunks)), sentBody, closedByServer })
    }
    const timer = setTimeout(() => finish(false), 5_000)
    const pump = () => {
      while (!answered && sentBody < bodyBytes) {
        sentBody += data.length
        if (!socket.write(chunk)) {
          socket.once('drain', pump)
          return
        }
      }
    }
    socket.on('connect', () => {
      socket.write(head)
      pump()
    })
    socket.on('data', (data: Buffer) => {
      chunks.push(data)
      if (parseResponse(Buffer.concat(chunks))) answered = true
    })
    socket.on('error', () => {})
    socket.on('close', () => finish(answered))
  })
}

describe('request bodies over 1 MiB', () => {
  let port: number
  let origin: string
  let key: string
  let close: () => Promise<void>
  beforeAll(async () => {
    ;({ port, origin, key, close } = await servePlatform())
  })
  afterAll(() => close())

  const head = (length: string) =>
    `POST /v1/agents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${length}\r\n`

  it('are refused with 413 on a Content-Length over the limit, before any of the body is sent', async () => {
    const started = performance.now()
    const { response, sentBody, closedByServer } = await streamUntilAnswered(
      port,
      head(`Content-Length: ${2 * MiB}\r\n`),
      0,
    )
    expect(sentBody).toBe(0)
    expect(response?.status).toBe(413)
    expect(performance.now() - started).toBeLessThan(1_000)
    expect(response?.headers.connection).toEqual(['close'])
    const body = JSON.parse(response?.body.toString('utf8') ?? 'null')
    expect(body.error.code).toBe('payload_too_large')
    expect(errorProblems('/v1/agents', 413, response?.headers ?? {}, body)).toEqual([])
    expect(closedByServer).toBe(true)
  })

  it('are refused with 413 while a chunked body is still streaming, without reading it whole', async () => {
    const { response, sentBody } = await streamUntilAnswered(
      port,
      head('Transfer-Encoding: chunked\r\n'),
      64 * MiB,
    )
    expect(response?.status).toBe(413)
    // The client was still sending: the server stopped at the limit instead of taking all 64 MiB.
    expect(sentBody).toBeLessThan(16 * MiB)
  })

  it('are refused with 413 at 1 MiB + 1 byte, and read at exactly 1 MiB', async () => {
    const padded = (size: number) => {
      const base = JSON.stringify({ ...agentBody('limit'), description: '' })
      return base.replace('"description":""', `"description":"${'x'.repeat(size - base.length)}"`)
    }
    const atLimit = await httpJson(origin, 'POST', '/v1/agents', {
      key,
      headers: { 'content-type': 'application/json' },
      body: JSON.parse(padded(MiB)),
    })
    expect(atLimit.status).toBe(422)
    const over = await httpJson(origin, 'POST', '/v1/agents', { key, body: JSON.parse(padded(MiB + 1)) })
    expect(over.status).toBe(413)
  })

  it('let a client that reads the 413 late and goes on sending its body meet no reset (a lingering close)', async () => {
    // Node destroys a `Connection: close` answer's socket once the answer is written; a client still
    // sending its body then meets a reset (EPIPE), and one slow to read loses the 413 with it. Measured
    // before the change, against the built mock in its own process, 1,000 oversize PATCHes, 8 at a time
    // on a loaded machine: 18 ended in EPIPE.
    // Half-open, as an HTTP client is: the server's end of its side does not stop the upload.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true })
    const received: Buffer[] = []
    const errors: string[] = []
    socket.on('data', (data: Buffer) => received.push(data))
    socket.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message))
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
    const write = (data: string | Buffer) =>
      new Promise<void>((resolve) =>
        socket.write(data, (error) => {
          if (error) errors.push((error as NodeJS.ErrnoException).code ?? error.message)
          resolve()
        }),
      )
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()))
    await write(head(`Content-Length: ${2 * MiB}\r\n`))
    await write(Buffer.alloc(256 * 1024, 0x20))
    const deadline = Date.now() + 5_000
    while (!parseResponse(Buffer.concat(received)) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10))
    expect(parseResponse(Buffer.concat(received))?.status).toBe(413)
    // The answer is out; the client goes on with its body a little later, as a busy one does.
    await new Promise((resolve) => setTimeout(resolve, 200))
    for (let sent = 256 * 1024; sent < 2 * MiB; sent += 256 * 1024)
      await write(Buffer.alloc(256 * 1024, 0x20))
    socket.end()
    await closed
    expect(errors).toEqual([])
  })

  it('leave the server answering others: 20 oversize uploads at once, then a normal request', async () => {
    const uploads = await Promise.all(
      Array.from({ length: 20 }, () =>
        streamUntilAnswered(port, head(`Content-Length: ${8 * MiB}\r\n`), 8 * MiB),
      ),
    )
    expect(uploads.map((u) => u.response?.status)).toEqual(Array(20).fill(413))
    expect((await httpJson(origin, 'GET', '/v1/user', { key })).status).toBe(200)
  })
})

/**
 * A 413 means nothing happened: an operation that takes no body still refuses an oversize one, in
 * its place in the order of checks, changes nothing, and the journal records the 413 the client saw.
 */
describe('a body over 1 MiB on an operation that takes no body', () => {
  let platform: MockPlatform
  let port: number
  let origin: string
  let key: string
  let close: () => Promise<void>
  beforeAll(async () => {
    ;({ platform, port, origin, key, close } = await servePlatform({ pages: dashboardPages() }))
  })
  afterAll(() => close())

  const first = async (path: string) =>
    (await httpJson(origin, 'GET', path, { key })).body.data[0].id as string
  const status = async (path: string, auth = key) =>
    (await httpJson(origin, 'GET', path, { key: auth })).status

  /** Sends `method path` with an oversize body (declared or streamed), and checks the 413 and the journal. */
  async function refused(method: string, path: string, framing: 'declared' | 'chunked') {
    const length =
      framing === 'declared' ? `Content-Length: ${2 * MiB}\r\n` : 'Transfer-Encoding: chunked\r\n'
    const head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${length}\r\n`
    const { response } = await streamUntilAnswered(port, head, framing === 'declared' ? 0 : 4 * MiB)
    expect(response?.status).toBe(413)
    const body = JSON.parse(response?.body.toString('utf8') ?? 'null')
    expect(body.error.code).toBe('payload_too_large')
    expect(errorProblems(path, 413, response?.headers ?? {}, body)).toEqual([])
    const requestId = response?.headers['request-id']?.[0]
    const entry = platform.journal.list({ limit: 1000 }).data.find((e) => e.id === requestId)
    // The journal records what the client saw; control-plane requests are not journaled at all.
    if (path.startsWith('/_mock/')) expect(entry).toBeUndefined()
    else expect(entry?.status).toBe(413)
  }

  it.each(['declared', 'chunked'] as const)(
    'DELETE /v1/agents/{id} (%s) deletes nothing',
    async (framing) => {
      const id = await first('/v1/agents?limit=1')
      await refused('DELETE', `/v1/agents/${id}`, framing)
      expect(await status(`/v1/agents/${id}`)).toBe(200)
    },
  )

  it.each(['declared', 'chunked'] as const)(
    'DELETE /v1/team-members/{id} (%s) removes no one',
    async (framing) => {
      const members = (await httpJson(origin, 'GET', '/v1/team-members?limit=100', { key })).body.data
      const id = members.find((m: { role: string }) => m.role !== 'owner').id as string
      await refused('DELETE', `/v1/team-members/${id}`, framing)
      expect(await status(`/v1/team-members/${id}`)).toBe(200)
    },
  )

  it('DELETE /v1/call-logs/{id} deletes nothing', async () => {
    const id = await first('/v1/call-logs?limit=1')
    await refused('DELETE', `/v1/call-logs/${id}`, 'declared')
    expect(await status(`/v1/call-logs/${id}`)).toBe(200)
  })

  it('POST /_mock/keys/{id}/revoke revokes nothing', async () => {
    const { keyId, key: value } = await provisionAccount(origin, { plan: 'pro' })
    await refused('POST', `/_mock/keys/${keyId}/revoke`, 'declared')
    expect(platform.keys.get(keyId)?.status).toBe('active')
    expect(await status('/v1/user', value)).toBe(200)
  })

  it('DELETE /_mock/accounts/{id} deletes nothing', async () => {
    const { accountId, key: value } = await provisionAccount(origin, { plan: 'pro' })
    await refused('DELETE', `/_mock/accounts/${accountId}`, 'chunked')
    expect(platform.accounts.get(accountId)).toBeDefined()
    expect(await status('/v1/user', value)).toBe(200)
  })

  it('POST /_mock/reset resets nothing', async () => {
    const created = await httpJson(origin, 'POST', '/v1/agents', { key, body: agentBody('kept') })
    expect(created.status).toBe(201)
    await refused('POST', '/_mock/reset', 'declared')
    expect(await status(`/v1/agents/${created.body.id}`)).toBe(200)
  })

  it('GET /_mock/dashboard is refused too', async () => {
    await refused('GET', '/_mock/dashboard', 'declared')
  })
})

describe('request bodies over 1 MiB, handed over whole (MSW, createMockApi: no server stops reading)', () => {
  it('refuses a DELETE carrying one with 413 and deletes nothing', async () => {
    const platform = await createMockPlatform()
    const key = platform.demo.secretKey as string
    const send = (method: string, url: string, body: string | null = null) =>
      platform.handle({
        method,
        url,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
        body,
        baseUrl: 'http://in-process.test/v1',
        clientIp: '127.0.0.1',
      })
    const list = await send('GET', '/v1/agents?limit=1')
    const id = (list.body as { data: { id: string }[] }).data[0]?.id as string
    // 1 MiB of three-byte characters is over the limit in bytes, not in characters.
    for (const body of ['x'.repeat(MiB + 1), '€'.repeat(MiB / 3 + 1)]) {
      const refused = await send('DELETE', `/v1/agents/${id}`, body)
      expect(refused.status).toBe(413)
      expect((refused.body as { error: { code: string } }).error.code).toBe('payload_too_large')
    }
    expect((await send('GET', `/v1/agents/${id}`)).status).toBe(200)
    expect((await send('DELETE', `/v1/agents/${id}`, 'x'.repeat(MiB))).status).toBe(200)
    await platform.close()
  })
})
