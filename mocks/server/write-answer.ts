import type { ServerResponse } from 'node:http'

/** Answers up to this many bytes leave as one buffer; a larger body is not copied, the head goes before it. */
export const ONE_BUFFER_MAX_BYTES = 64 * 1024

/** Header names Node's HTTP layer reads itself (framing, keep-alive): such an answer goes through it whole. */
const FRAMING_HEADERS = new Set([
  'connection',
  'content-length',
  'date',
  'expect',
  'keep-alive',
  'trailer',
  'transfer-encoding',
])
/** An HTTP token (RFC 9110 section 5.6.2), what a header name must be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/** What Node refuses in a header value (`checkInvalidHeaderChar`): anything but tab, visible ASCII and obs-text. */
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/
/** Header names seen to be plain tokens (the engine's are a few constants). */
const plainNames = new Set<string>()
const NO_HEADERS: string[] = []

/** The parts of Node's `ServerResponse` this module relies on besides its public API. */
interface ResponseHead {
  /** The head Node built in `writeHead` (status line, headers, blank line), sent with the first body bytes. */
  _header?: unknown
  /** Whether that head was sent. */
  _headerSent?: unknown
}

/** The answer's header lines (`name: value\r\n`), or undefined when Node must see them (framing, a bad value). */
function headerLines(headers: Record<string, string>): string | undefined {
  let lines = ''
  // Every value, joined: a character is refused in one value exactly when it is in the whole (one test).
  let values = ''
  for (const name in headers) {
    const value = headers[name] as string
    if (!plainNames.has(name)) {
      if (FRAMING_HEADERS.has(name.toLowerCase()) || !TOKEN.test(name)) return undefined
      plainNames.add(name)
    }
    values += value
    lines += `${name}: ${value}\r\n`
  }
  return INVALID_VALUE.test(values) ? undefined : lines
}

/**
 * Writes an answer on a node:http response: its status, `headers`, `Content-Length` (but for a 204) and
 * `body`, bytes or a text sent as UTF-8 (unless `withBody` is false: HEAD, 204). Node still decides what it decides for every answer (the
 * `Date`, whether the connection stays open), but the answer's own header lines are joined to its head here,
 * and an answer of up to `ONE_BUFFER_MAX_BYTES` is handed to the socket as one buffer: one write, one packet,
 * where `writeHead` and `end` would queue the head, the body and an empty chunk for one `writev`.
 *
 * Anything unusual goes through Node's own path unchanged: a framing header, a name or value Node would
 * refuse (it then throws, as before), a Node that keeps a response's head in another form; and an answer that
 * is not the connection's current one (a pipelined request's, which waits in Node's queue), or that follows
 * bytes still queued on the socket, or a large one, leaves through `end` with the head joined to it.
 */
export function writeAnswer(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Uint8Array | string,
  withBody: boolean,
): void {
  const bodyLength = typeof body === 'string' ? Buffer.byteLength(body) : body.length
  const node = res as unknown as ResponseHead
  const lines = headerLines(headers)
  if (lines === undefined || node._header !== null || node._headerSent !== false) {
    const all: Record<string, string | number> = { ...headers }
    if (status !== 204) all['content-length'] = bodyLength
    res.writeHead(status, all)
    res.end(withBody ? body : undefined)
    return
  }
  res.writeHead(status, status === 204 ? NO_HEADERS : ['content-length', String(bodyLength)])
  const built = node._header as unknown
  if (typeof built !== 'string')
    throw new Error('node:http kept no head for this answer: it cannot be written as one buffer.')
  const statusLineEnd = built.indexOf('\r\n') + 2
  const head = built.slice(0, statusLineEnd) + lines + built.slice(statusLineEnd)
  node._header = head
  const length = head.length + (withBody ? bodyLength : 0)
  const socket = res.socket
  if (socket === null || res.writableLength !== 0 || length > ONE_BUFFER_MAX_BYTES) {
    res.end(withBody ? body : undefined)
    return
  }
  const bytes = Buffer.allocUnsafe(length)
  bytes.write(head, 0, 'latin1')
  if (withBody) {
    if (typeof body === 'string') bytes.write(body, head.length, 'utf8')
    else bytes.set(body, head.length)
  }
  node._headerSent = true
  socket.write(bytes)
  res.end()
}
