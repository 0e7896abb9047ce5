import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { ApiError, errors } from '../engine/api-error.ts'
import type { EngineResponse } from '../engine/types.ts'
import { edgeErrorResponse, writeRawResponse } from './edge-errors.ts'

/** Every method the mock answers somewhere (`Allow` of a CONNECT refusal: the mock is not a proxy). */
const METHODS = ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS']

/** Sends an edge error on a response object and closes the connection (the body, if any, is unread). */
export function sendEdgeError(res: ServerResponse, response: EngineResponse): void {
  const payload = JSON.stringify(response.body)
  res.shouldKeepAlive = false
  res.writeHead(response.status, {
    ...response.headers,
    'content-length': Buffer.byteLength(payload),
    connection: 'close',
  })
  res.end(payload)
}

function expectationFailed(expectation: string): EngineResponse {
  return edgeErrorResponse(
    new ApiError(
      417,
      'invalid_request_error',
      'invalid_parameter',
      `The expectation '${expectation.slice(0, 100)}' cannot be met: the only one this server knows is Expect: 100-continue.`,
      { param: 'Expect' },
    ),
  )
}

/**
 * Node's answers to odd but legal requests, replaced by the API's: `Expect: 100-continue` gets
 * `100 Continue` unless the declared body is over the limit (then the 413 comes at once and the
 * client never sends it); any other expectation gets 417 with the error envelope (Node sends a
 * bare 417); `CONNECT` gets 405 with the envelope (Node answers nothing: the mock is not a proxy).
 */
export function answerProtocolEdges(server: Server, limitOf: (req: IncomingMessage) => number): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const expectation = req.headers.expect ?? ''
    if (expectation.trim().toLowerCase() !== '100-continue') {
      sendEdgeError(res, expectationFailed(expectation))
      return
    }
    const declared = Number(req.headers['content-length'])
    // An oversize body is refused unread: asking for it would only waste the client's upload.
    if (!(Number.isFinite(declared) && declared > limitOf(req))) res.writeContinue()
    server.emit('request', req, res)
  })
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    sendEdgeError(res, expectationFailed(req.headers.expect ?? ''))
  })
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy())
    writeRawResponse(
      socket,
      edgeErrorResponse(
        new ApiError(
          405,
          'invalid_request_error',
          'method_not_allowed',
          `Method CONNECT is not allowed: this server is not a proxy; allowed: ${METHODS.join(', ')}.`,
          {},
          { allow: METHODS.join(', ') },
        ),
      ),
    )
  })
}

/** 400 for an HTTP/1.1 request without `Host` (RFC 9112 section 3.2), with the envelope (Node's is bare). */
export function missingHost(): EngineResponse {
  return edgeErrorResponse(errors.invalidParameter('Host', 'An HTTP/1.1 request needs a Host header.'))
}
