import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { errors } from '../engine/api-error.ts'
import { MAX_BODY_BYTES } from '../engine/request-body.ts'
import type { EngineRequest, EngineResponse } from '../engine/types.ts'
import { readBody } from './read-body.ts'

export interface RequestHandler {
  handle(request: EngineRequest): Promise<EngineResponse>
}

export interface HttpServerOptions {
  /** Called after a response was produced and before it is sent (persistence hooks in here). */
  beforeSend?: (request: EngineRequest, response: EngineResponse) => Promise<void> | void
  /** Headers must arrive within this many ms (slowloris guard). */
  headersTimeoutMs?: number
  /** The whole request must arrive within this many ms. */
  requestTimeoutMs?: number
  /** Idle keep-alive connections are closed after this many ms. */
  keepAliveTimeoutMs?: number
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return headers
}

function send(res: ServerResponse, response: EngineResponse, method: string): void {
  const payload =
    response.body === undefined
      ? ''
      : typeof response.body === 'string'
        ? response.body
        : JSON.stringify(response.body)
  const headers: Record<string, string | number> = { ...response.headers }
  if (response.status !== 204) headers['content-length'] = Buffer.byteLength(payload)
  res.writeHead(response.status, headers)
  res.end(method === 'HEAD' || response.status === 204 ? undefined : payload)
}

/** A node:http server in front of the engine; the only Node-specific layer of the mock. */
export function createHttpServer(handler: () => RequestHandler, options: HttpServerOptions = {}): Server {
  const server = createServer(async (req, res) => {
    const method = (req.method ?? 'GET').toUpperCase()
    const headers = headersOf(req)
    const base: Omit<EngineRequest, 'body'> = {
      method,
      url: req.url ?? '/',
      headers,
      clientIp: req.socket.remoteAddress,
    }
    try {
      const body = await readBody(req)
      if (!body.ok) {
        if (body.reason === 'aborted') return
        const error = errors.payloadTooLarge(MAX_BODY_BYTES)
        res.setHeader('connection', 'close')
        send(
          res,
          { status: 413, headers: { 'content-type': 'application/json; charset=utf-8' }, body: error.body() },
          method,
        )
        req.destroy()
        return
      }
      const request: EngineRequest = { ...base, body: body.body }
      const response = await handler().handle(request)
      await options.beforeSend?.(request, response)
      send(res, response, method)
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      if (!res.headersSent)
        send(
          res,
          {
            status: 500,
            headers: { 'content-type': 'application/json; charset=utf-8' },
            body: errors.internal(`Internal error: ${message}`).body(),
          },
          method,
        )
    }
  })
  server.headersTimeout = options.headersTimeoutMs ?? 10_000
  server.requestTimeout = options.requestTimeoutMs ?? 30_000
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000
  return server
}

/** Starts listening; rejects with a one-line, human message when the port is taken or the host is bad. */
export function listen(server: Server, port: number, host: string): Promise<{ port: number }> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening)
      if (error.code === 'EADDRINUSE')
        reject(
          new Error(`Port ${port} on ${host} is already in use: stop the other process or pass --port <n>.`),
        )
      else if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN')
        reject(new Error(`Cannot listen on ${host}: no such address on this machine.`))
      else if (error.code === 'EACCES')
        reject(new Error(`Not allowed to listen on ${host}:${port} (try a port above 1024).`))
      else reject(new Error(`Cannot listen on ${host}:${port}: ${error.message}`))
    }
    const onListening = () => {
      server.off('error', onError)
      const address = server.address()
      resolve({ port: typeof address === 'object' && address ? address.port : port })
    }
    server.once('error', onError)
    server.once('listening', onListening)
    server.listen(port, host)
  })
}
