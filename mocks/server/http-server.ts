import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { errors } from '../engine/api-error.ts'
import { bodyLimitOf, MAX_BODY_BYTES } from '../engine/request-body.ts'
import type { EngineRequest, EngineResponse } from '../engine/types.ts'
import { upperCaseMethod } from '../engine/upper-case-method.ts'
import { carryOutEffect } from './carry-out-effect.ts'
import { capConnections, defaultMaxConnections } from './connection-cap.ts'
import { clientErrorResponse, edgeErrorResponse, onClientError } from './edge-errors.ts'
import { createJsonEncoder, jsonText } from './json-encoder.ts'
import { answerProtocolEdges, missingHost, sendEdgeError } from './protocol-edges.ts'
import { type BodyPace, hasBody, NO_BODY, readBody } from './read-body.ts'
import { writeAnswer } from './write-answer.ts'

export interface RequestHandler {
  handle(request: EngineRequest): Promise<EngineResponse>
  /** Count of state changes so far, from any adapter (the platform's); encoded list items are dropped when it moves. */
  changes?(): number
}

export interface HttpServerOptions {
  /** Called after a response was produced and before it is sent (persistence hooks in here). */
  beforeSend?: (request: EngineRequest, response: EngineResponse) => Promise<void> | void
  /** The request line and headers must arrive within this many ms of the connection or the last response (slowloris guard). Default 10 s. */
  headersTimeoutMs?: number
  /** The whole request, body included, must arrive within this many ms. Default 30 s. */
  requestTimeoutMs?: number
  /** Idle keep-alive connections are closed after this many ms. Default 5 s. */
  keepAliveTimeoutMs?: number
  /** A socket with no traffic at all for this many ms is closed (covers stalled readers). Default 60 s. */
  socketIdleTimeoutMs?: number
  /**
   * Bodies over this many bytes get 413 without being read whole. Default 1 MiB; `POST /_mock/capsule` takes a
   * capsule, up to 64 MiB, whatever this says.
   */
  maxBodyBytes?: number
  /**
   * How slowly a request body may arrive: after `graceMs` (2 s) from its headers, at least `minBytesPerSecond`
   * (1 KiB) a second on average; a body that falls behind gets 408 and its connection is closed.
   */
  bodyPace?: BodyPace
  /**
   * The API's public base URL, ending in `/v1`, for the `Location` of created resources (read per
   * request, so it may be known only once the server listens). Undefined: the address and port the
   * connection reached. Never the `Host` header, which the client chooses.
   */
  baseUrl?: () => string | undefined
  /**
   * Most connections held at once (`capConnections`): past it a new connection replaces the one idle
   * the longest, or gets 503 when all are busy. Default `defaultMaxConnections()` (1024, or less under
   * a low descriptor limit).
   */
  maxConnections?: number
}

/** A body must arrive at 1 KiB a second on average, after its first 2 s. */
export const DEFAULT_BODY_PACE: BodyPace = { graceMs: 2_000, minBytesPerSecond: 1024 }

/** After a 413 the rest of the body is drained for at most this long, then the socket is closed. */
const LINGER_MS = 2_000

/** Header values by lower-case name; a repeated header is joined with ", " (even `Authorization`, so a
 * request carrying two keys never authenticates as the first one). */
function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {}
  const raw = request.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase()
    const value = raw[i + 1] as string
    // An inherited member (`constructor`) is no header sent before.
    const before = Object.hasOwn(headers, name) ? headers[name] : undefined
    headers[name] = before === undefined ? value : `${before}, ${value}`
  }
  return headers
}

function send(
  res: ServerResponse,
  response: EngineResponse,
  method: string,
  payload: Uint8Array | string = response.body instanceof Uint8Array
    ? response.body
    : jsonText(response.body),
): void {
  writeAnswer(res, response.status, response.headers, payload, method !== 'HEAD' && response.status !== 204)
}

/** Methods that never change the state. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
const API_URL = /^\/v1(?:[/?]|$)/

/**
 * Sends a response to a body that was not read whole (oversize, or too slow) and closes the connection once it
 * is out, draining (not keeping) what is left.
 */
function refuseUnread(
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  response: EngineResponse,
): void {
  res.setHeader('connection', 'close')
  lingerOnClose(req.socket)
  req.resume()
  send(res, response, method)
}

/**
 * Closes as servers do after an answer sent before the body was read (a lingering close): our side is ended
 * once the answer is out, and what the client still sends is read and dropped until it stops or `LINGER_MS`
 * passes. Node would destroy the socket as soon as a `Connection: close` answer is written; closed with the
 * body still arriving, the socket is reset, and a client busy writing meets EPIPE before it reads the answer.
 */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = () => {
    if (socket.writable) socket.end()
    socket.resume()
    const timer = setTimeout(() => socket.destroy(), LINGER_MS)
    timer.unref()
    socket.once('close', () => clearTimeout(timer))
  }
}

/** The API's base URL at the address and port this connection reached (the server's own, not the client's Host). */
function socketBaseUrl(req: IncomingMessage): string {
  const { localAddress, localPort } = req.socket
  const address = localAddress?.includes(':') ? `[${localAddress}]` : (localAddress ?? '127.0.0.1')
  return `http://${address}:${localPort ?? 80}/v1`
}

/**
 * A node:http server in front of the engine; the only Node-specific layer of the mock. It refuses
 * oversize bodies early, answers unparseable requests with the API's error envelope, and closes
 * slow or idle connections (header, request, keep-alive and socket timeouts, a minimum pace for bodies). Between changes it
 * sends the items of `/v1` lists from bytes encoded once (see `createJsonEncoder`): changes must come
 * as requests with an unsafe method, to this server or counted by the handler's `changes()`.
 */
export function createHttpServer(handler: () => RequestHandler, options: HttpServerOptions = {}): Server {
  const headersTimeout = options.headersTimeoutMs ?? 10_000
  const requestTimeout = options.requestTimeoutMs ?? 30_000
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES
  /** The body limit of a request: the route's own (a capsule's) where it is larger than 1 MiB. */
  const limitOf = (method: string, url: string | undefined) => {
    const own = bodyLimitOf(method, url ?? '/')
    return own > MAX_BODY_BYTES ? own : limit
  }
  const pace = options.bodyPace ?? DEFAULT_BODY_PACE
  // Listed items are reused as encoded bytes between changes. Every change comes through a request
  // with an unsafe method: none is in flight when bytes are reused, and each one ends by forgetting them.
  const encoder = createJsonEncoder()
  let writesInFlight = 0
  let seenChanges: number | undefined
  const server = createServer(
    // Node checks the header and request timeouts on this interval (30 s by default, far too coarse).
    {
      connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(headersTimeout / 4))),
      // Node's own refusal is a bare 400; the handler answers with the envelope instead.
      requireHostHeader: false,
    },
    async (req, res) => {
      // A connection refused for the cap was answered 503 already: none of its requests runs.
      if (cap.refused(req.socket)) {
        req.socket.destroy()
        return
      }
      const headers = headersOf(req)
      if (req.httpVersion === '1.1' && headers.host === undefined) {
        sendEdgeError(res, missingHost())
        return
      }
      const method = upperCaseMethod(req.method ?? 'GET')
      const write = !SAFE_METHODS.has(method)
      if (write) writesInFlight++
      try {
        const body = hasBody(headers)
          ? await readBody(req, {
              limit: limitOf(method, req.url),
              pace,
              onProgress: () => cap.bodyProgress(req.socket),
            })
          : NO_BODY
        if (!body.ok && body.reason === 'too-slow') {
          refuseUnread(req, res, method, clientErrorResponse('ERR_HTTP_REQUEST_TIMEOUT'))
          return
        }
        if (!body.ok && body.reason !== 'too-large') return
        const request: EngineRequest = {
          method,
          url: req.url ?? '/',
          headers,
          body: body.ok ? body.body : null,
          clientIp: req.socket.remoteAddress,
          baseUrl: options.baseUrl?.() ?? socketBaseUrl(req),
          // An oversize body is not read: the engine answers 413 in its order of checks.
          bodyTooLarge: !body.ok,
          bodyNotUtf8: body.ok && body.invalidUtf8 === true,
        }
        const response = await handler().handle(request)
        // The engine answered in its order of checks (401, 404, ... or 413); whatever it said is what
        // happened, and what its journal recorded: send it, then close the connection (the body is unread).
        if (!body.ok) {
          refuseUnread(req, res, method, response)
          return
        }
        if (options.beforeSend) await options.beforeSend(request, response)
        // A scenario's delay or network error: the engine has no timers and no sockets; this adapter does.
        if (response.effect && !(await carryOutEffect(req, res, response.effect))) return
        const reuse = !write && writesInFlight === 0 && API_URL.test(request.url)
        if (reuse) {
          const changes = handler().changes?.()
          if (changes !== seenChanges) encoder.invalidate()
          seenChanges = changes
        }
        send(res, response, method, encoder.encode(response.body, reuse))
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        if (!res.headersSent)
          send(res, edgeErrorResponse(errors.internal(`Internal error: ${message}`)), method)
        else res.destroy()
      } finally {
        if (write) {
          writesInFlight--
          encoder.invalidate()
        }
      }
    },
  )
  server.headersTimeout = headersTimeout
  server.requestTimeout = requestTimeout
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000
  server.timeout = options.socketIdleTimeoutMs ?? 60_000
  const cap = capConnections(server, { max: options.maxConnections ?? defaultMaxConnections() })
  server.on('clientError', onClientError)
  answerProtocolEdges(server, (req) => limitOf((req.method ?? 'GET').toUpperCase(), req.url))
  // A client may shut its sending side once its request is complete (half-close). By default Node then
  // drops the response still being prepared (a durable state write takes milliseconds): answer, then close.
  Object.assign(server, { httpAllowHalfOpen: true })
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
