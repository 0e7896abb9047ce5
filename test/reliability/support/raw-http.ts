import { connect } from 'node:net'

/** One HTTP/1.1 response read off a socket. */
export interface RawResponse {
  status: number
  headers: Record<string, string[]>
  body: Buffer
}

/** The response to bytes written on a fresh connection, if any came before the socket closed. */
export interface RawExchange {
  response?: RawResponse
  /** The server closed the connection (after or without answering). */
  closed: boolean
  /** Milliseconds from connecting to the end of the exchange. */
  elapsedMs: number
}

/** Parses the first complete response in `data`; undefined while incomplete. */
export function parseResponse(data: Buffer, head = false): RawResponse | undefined {
  const end = data.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? Number.NaN)
  const headers: Record<string, string[]> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    const name = line.slice(0, colon).trim().toLowerCase()
    headers[name] = [...(headers[name] ?? []), line.slice(colon + 1).trim()]
  }
  const length = head || status === 204 || status === 304 ? 0 : Number(headers['content-length']?.[0] ?? 0)
  if (data.length < end + 4 + length) return undefined
  return { status, headers, body: data.subarray(end + 4, end + 4 + length) }
}

export interface RawOptions {
  /** Give up after this many ms (the socket is destroyed). Default 5000. */
  timeoutMs?: number
  /** The request is HEAD (the response has no body whatever its Content-Length). */
  head?: boolean
  /** Half-close the connection after writing. Default true. */
  end?: boolean
}

/** Writes raw bytes on a new connection and reads the first response, or notes that none came. */
export function rawExchange(
  port: number,
  bytes: Buffer | string,
  options: RawOptions = {},
): Promise<RawExchange> {
  const started = performance.now()
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let settled = false
    const socket = connect(port, '127.0.0.1')
    const finish = (closed: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve({
        response: parseResponse(Buffer.concat(chunks), options.head),
        closed,
        elapsedMs: performance.now() - started,
      })
    }
    const timer = setTimeout(() => finish(false), options.timeoutMs ?? 5_000)
    socket.on('connect', () => {
      socket.write(bytes)
      if (options.end ?? true) socket.end()
    })
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      if (parseResponse(Buffer.concat(chunks), options.head)) finish(false)
    })
    socket.on('error', () => finish(true))
    socket.on('close', () => finish(true))
  })
}
