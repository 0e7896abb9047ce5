import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'
import { createHttpServer, listen } from '../../mocks/server/http-server.ts'
import { ONE_BUFFER_MAX_BYTES, writeAnswer } from '../../mocks/server/write-answer.ts'

/** Sends raw request bytes on a fresh connection; resolves with every chunk received until `done` says so. */
function exchange(port: number, request: string, done: (received: Buffer) => boolean): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket: Socket = connect(port, '127.0.0.1', () => socket.write(request))
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no complete answer; got ${Buffer.concat(chunks).toString('latin1')}`))
    }, 5_000)
    const finish = () => {
      clearTimeout(timer)
      socket.destroy()
      resolve(chunks)
    }
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      if (done(Buffer.concat(chunks))) finish()
    })
    socket.on('end', finish)
    socket.on('error', reject)
  })
}

/** Whether `bytes` hold `count` whole answers framed by Content-Length (none for a 204 or for HEAD). */
function answered(bytes: Buffer, count = 1, head = false): boolean {
  let at = 0
  for (let i = 0; i < count; i++) {
    const headEnd = bytes.indexOf('\r\n\r\n', at)
    if (headEnd < 0) return false
    const lines = bytes.subarray(at, headEnd).toString('latin1')
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(lines)?.[1] ?? 0)
    const bodyless = head || / 204 /.test(lines)
    at = headEnd + 4 + (bodyless ? 0 : length)
    if (at > bytes.length) return false
  }
  return true
}

describe('an answer of the node:http server', () => {
  let platform: MockPlatform
  let server: Server
  let port: number
  /** What the server's sockets were handed, write by write. */
  const writes: { kind: 'write' | 'writev'; chunks: Buffer[] }[] = []

  beforeAll(async () => {
    platform = await createMockPlatform()
    server = createHttpServer(() => platform)
    server.on('connection', (socket: Socket) => {
      const spied = socket as unknown as {
        _write(chunk: Buffer, encoding: string, callback: () => void): void
        _writev(chunks: { chunk: Buffer | string }[], callback: () => void): void
      }
      const write = spied._write.bind(socket)
      const writev = spied._writev.bind(socket)
      spied._write = (chunk, encoding, callback) => {
        writes.push({ kind: 'write', chunks: [Buffer.from(chunk)] })
        write(chunk, encoding, callback)
      }
      spied._writev = (chunks, callback) => {
        writes.push({ kind: 'writev', chunks: chunks.map(({ chunk }) => Buffer.from(chunk)) })
        writev(chunks, callback)
      }
    })
    port = (await listen(server, 0, '127.0.0.1')).port
  })
  afterAll(() => {
    server.close()
    server.closeAllConnections()
  })

  it('is handed to the socket as one buffer, head and body, for a small answer', async () => {
    writes.length = 0
    const request = `GET /v1/user HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${platform.demo.secretKey}\r\n\r\n`
    const received = Buffer.concat(await exchange(port, request, (bytes) => answered(bytes)))
    const text = received.toString('latin1')
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(text).toContain(`"id":"${platform.demo.account.id}"`)
    expect(writes).toEqual([{ kind: 'write', chunks: [received] }])
  })

  it('reaches a raw socket in one chunk, head and body, for a small answer', async () => {
    const request = `GET /v1/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${platform.demo.secretKey}\r\n\r\n`
    const chunks = await exchange(port, request, (bytes) => answered(bytes))
    expect(chunks).toHaveLength(1)
    expect(chunks[0]?.toString('latin1')).toMatch(
      /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\{"object":"list"[\s\S]*\}$/,
    )
  })
})

/** One answer as the engine gives it, to be written by `writeAnswer` and by Node's own `writeHead` + `end`. */
interface Case {
  name: string
  status: number
  headers: Record<string, string>
  body: string
  /** Raw request(s) sent on one connection (`%s` is the case's path). */
  request?: string
  /** Answers expected on the connection. */
  answers?: number
}

const JSON_TYPE = 'application/json; charset=utf-8'
const small = JSON.stringify({ id: 'usr_1', object: 'user', name: 'Søren Ünal 東京' })
const large = JSON.stringify({ data: 'x'.repeat(ONE_BUFFER_MAX_BYTES + 10) })
const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n`

const CASES: Case[] = [
  {
    name: 'a small JSON answer',
    status: 200,
    headers: { 'content-type': JSON_TYPE, 'request-id': 'req_1' },
    body: small,
  },
  {
    name: 'an answer to HEAD (its length, no body)',
    status: 200,
    headers: { 'content-type': JSON_TYPE },
    body: small,
    request: 'HEAD %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
  },
  { name: 'a 204 (no length, no body)', status: 204, headers: { allow: 'GET, OPTIONS' }, body: '' },
  {
    name: 'a 401 with its challenge',
    status: 401,
    headers: { 'content-type': JSON_TYPE, 'www-authenticate': 'Bearer realm="api", error="invalid_token"' },
    body: '{"error":{"type":"authentication_error"}}',
  },
  {
    name: 'a body over the one-buffer size',
    status: 200,
    headers: { 'content-type': JSON_TYPE },
    body: large,
  },
  {
    name: 'a header value with obs-text (Latin-1)',
    status: 200,
    headers: { 'access-control-allow-origin': 'http://caf\u00e9.example' },
    body: small,
  },
  {
    name: 'an answer that closes its connection itself',
    status: 413,
    headers: { 'content-type': JSON_TYPE, connection: 'close' },
    body: '{"error":{}}',
  },
  {
    name: 'an answer to a request that asks to close',
    status: 200,
    headers: { 'content-type': JSON_TYPE },
    body: small,
    request: get('%s', 'Connection: close\r\n'),
  },
  {
    name: 'an answer to HTTP/1.0',
    status: 200,
    headers: { 'content-type': JSON_TYPE },
    body: small,
    request: 'GET %s HTTP/1.0\r\n\r\n',
  },
  {
    name: 'pipelined answers',
    status: 200,
    headers: { 'content-type': JSON_TYPE },
    body: small,
    request: get('%s') + get('%s') + get('%s'),
    answers: 3,
  },
]

/** A server answering each case's path, through `writeAnswer` or through Node's `writeHead` + `end`. */
async function caseServer(way: 'writeAnswer' | 'node'): Promise<{ server: Server; port: number }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const found = CASES[Number(req.url?.slice(1))] as Case
    const body = Buffer.from(found.body)
    const withBody = req.method !== 'HEAD' && found.status !== 204
    if (way === 'writeAnswer') writeAnswer(res, found.status, found.headers, body, withBody)
    else {
      const headers: Record<string, string | number> = { ...found.headers }
      if (found.status !== 204) headers['content-length'] = body.length
      res.writeHead(found.status, headers)
      res.end(withBody ? body : undefined)
    }
  })
  server.keepAliveTimeout = 5_000
  return { server, port: (await listen(server, 0, '127.0.0.1')).port }
}

describe('writeAnswer', () => {
  let ours: { server: Server; port: number }
  let nodes: { server: Server; port: number }
  beforeAll(async () => {
    ;[ours, nodes] = await Promise.all([caseServer('writeAnswer'), caseServer('node')])
  })
  afterAll(() => {
    for (const { server } of [ours, nodes]) {
      server.close()
      server.closeAllConnections()
    }
  })

  const bytesFrom = async (port: number, index: number) => {
    const found = CASES[index] as Case
    const request = (found.request ?? get('%s')).replaceAll('%s', `/${index}`)
    const chunks = await exchange(port, request, (bytes) =>
      answered(bytes, found.answers ?? 1, request.startsWith('HEAD')),
    )
    // The only part that may differ: the second the answer was sent in.
    return Buffer.concat(chunks)
      .toString('latin1')
      .replace(/\r\nDate: [^\r]+/g, '\r\nDate: <date>')
  }

  it.each(CASES.map((found, index) => [found.name, index] as const))(
    'sends the bytes Node sends for %s',
    async (_name, index) => {
      const [mine, node] = await Promise.all([bytesFrom(ours.port, index), bytesFrom(nodes.port, index)])
      expect(mine).toBe(node)
      expect(mine).toMatch(/^HTTP\/1\.[01] \d{3} /)
    },
  )

  it.each([
    ['alone', { 'x-bad': 'a\r\nInjected: yes' }],
    [
      'after good ones',
      { 'content-type': 'application/json', 'request-id': 'req_1', 'x-bad': 'a\nInjected: yes' },
    ],
    [
      'before good ones',
      { 'x-bad': 'a\rInjected: yes', 'request-id': 'req_1', ratelimit: '"burst";r=9;t=1' },
    ],
    ['as a control character', { 'request-id': 'req_1', 'x-bad': 'a\u0000b', 'x-after': 'c' }],
  ])('refuses a header value Node refuses, as Node does (%s)', async (_name, headers) => {
    const server = createServer((_req, res) => {
      try {
        writeAnswer(res, 200, headers as Record<string, string>, Buffer.from('{}'), true)
      } catch (error) {
        res.writeHead(500, { 'x-error': (error as NodeJS.ErrnoException).code ?? 'none' }).end()
      }
    })
    const { port } = await listen(server, 0, '127.0.0.1')
    try {
      const text = Buffer.concat(await exchange(port, get('/'), (bytes) => answered(bytes))).toString(
        'latin1',
      )
      expect(text).toMatch(/^HTTP\/1\.1 500 /)
      expect(text).toContain('x-error: ERR_INVALID_CHAR')
      expect(text).not.toContain('Injected')
    } finally {
      server.close()
      server.closeAllConnections()
    }
  })
})
