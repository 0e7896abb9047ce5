import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import { ApiError } from '../engine/api-error.ts'
import { newId } from '../engine/random.ts'
import type { EngineResponse } from '../engine/types.ts'

const JSON_TYPE = 'application/json; charset=utf-8'

/** An error the server answers itself, before the engine sees the request; it carries a Request-Id. */
export function edgeErrorResponse(error: ApiError, status = error.status): EngineResponse {
  const requestId = newId('req', 20)
  return {
    status,
    headers: { 'content-type': JSON_TYPE, 'request-id': requestId, ...error.headers },
    body: error.body(requestId),
  }
}

/** The status and envelope for a request that Node's HTTP parser refused or that timed out. */
export function clientErrorResponse(code: string | undefined): EngineResponse {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return edgeErrorResponse(
      new ApiError(408, 'invalid_request_error', 'invalid_parameter', 'The request did not arrive in time.'),
    )
  if (code === 'HPE_HEADER_OVERFLOW')
    return edgeErrorResponse(
      new ApiError(431, 'invalid_request_error', 'invalid_parameter', 'The request headers are too large.'),
    )
  return edgeErrorResponse(
    new ApiError(
      400,
      'invalid_request_error',
      'invalid_parameter',
      `The HTTP request is malformed${code ? ` (${code})` : ''}.`,
    ),
  )
}

/** Writes a complete HTTP/1.1 response straight to a socket and closes it (no request object exists). */
export function writeRawResponse(socket: Duplex, response: EngineResponse): void {
  const payload = JSON.stringify(response.body)
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? 'Error'}`]
  for (const [name, value] of Object.entries(response.headers)) lines.push(`${name}: ${value}`)
  lines.push(`content-length: ${Buffer.byteLength(payload)}`, 'connection: close')
  socket.end(`${lines.join('\r\n')}\r\n\r\n${payload}`)
}

interface SocketWithMessage extends Duplex {
  _httpMessage?: { headersSent?: boolean } | null
}

/**
 * The server's `clientError` listener: a request Node could not parse (bad request line, bad or
 * oversize headers, conflicting lengths) or one that timed out gets the API's error envelope with
 * `Connection: close`, instead of Node's bare answer; a socket already gone is just destroyed.
 */
export function onClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const inProgress = (socket as SocketWithMessage)._httpMessage?.headersSent === true
  if (error.code === 'ECONNRESET' || !socket.writable || inProgress) {
    socket.destroy()
    return
  }
  writeRawResponse(socket, clientErrorResponse(error.code))
}
