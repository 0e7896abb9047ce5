import type { Server } from 'node:http'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'
import { createHttpServer, listen } from '../../mocks/server/http-server.ts'
import { errorProblems } from './support/error-schema.ts'
import { httpJson } from './support/http-json.ts'
import { parseResponse, type RawResponse } from './support/raw-http.ts'
import { agentBody } from './support/targets.ts'

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
  let platform: MockPlatform
  let server: Server
  let port: number
  let origin: string
  let key: string
  beforeAll(async () => {
    platform = await createMockPlatform()
    key = platform.demo.secretKey ?? ''
    server = createHttpServer(() => platform)
    port = (await listen(server, 0, '127.0.0.1')).port
    origin = `http://127.0.0.1:${port}`
  })
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )

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
