import { readFileSync } from 'node:fs'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { ApiError } from '../engine/api-error.ts'
import { edgeErrorResponse, writeRawResponse } from './edge-errors.ts'

/** Descriptors kept for the process itself (stdio, the state file, the event loop, DNS...). */
const RESERVED_DESCRIPTORS = 64
const DEFAULT_MAX = 1024

/** The soft limit of open files of this process (Linux: /proc/self/limits), or undefined elsewhere. */
export function openFileLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))
    return line?.[1] ? Number(line[1]) : undefined
  } catch {
    return undefined
  }
}

/**
 * The connection cap when none is given: 1024, or three quarters of the descriptors left after 64
 * for the process when that is lower (at least 16), so the cap bites before the descriptors run out.
 */
export function defaultMaxConnections(fileLimit = openFileLimit()): number {
  if (fileLimit === undefined) return DEFAULT_MAX
  return Math.max(16, Math.min(DEFAULT_MAX, Math.floor(((fileLimit - RESERVED_DESCRIPTORS) * 3) / 4)))
}

export interface ConnectionCapOptions {
  /** Most connections open at once. */
  max: number
  /**
   * A connection that has not yet sent a whole request is spared this long after it opened (its
   * request is probably on its way); after that it counts as idle. Default 1 s.
   */
  graceMs?: number
  /** How long a refused connection may linger (its 503 being read) before it is destroyed. Default 1 s. */
  lingerMs?: number
}

interface Connection {
  openedAt: number
  /** Requests being answered on it (pipelined requests are answered one at a time). */
  busy: number
  served: number
  idleSince: number
  /** The request being answered, while there is one. */
  request?: IncomingMessage
  /** When the request came, or the last piece of its body. */
  movedAt: number
}

/** The connection a response is counted on, for the one listener all responses share (no closure per request). */
const CONNECTION = Symbol('connection')
type CountedResponse = ServerResponse & { [CONNECTION]?: Connection }

/** A response closed: its connection has one request less under way (counted once, however often it closes). */
function responseClosed(this: CountedResponse): void {
  const connection = this[CONNECTION]
  if (!connection) return
  this[CONNECTION] = undefined
  connection.busy--
  connection.served++
  connection.request = undefined
  connection.idleSince = performance.now()
}

export interface ConnectionCap {
  /** Whether the socket was refused (its requests must not be answered). */
  refused(socket: Socket): boolean
  /** A piece of the body of the request on this socket arrived (the request is moving). */
  bodyProgress(socket: Socket): void
  /** Connections held now. */
  open(): number
}

/**
 * Caps the connections a server holds. A new connection past the cap takes the place of the
 * connection idle the longest (a keep-alive connection between requests, one that sent no whole
 * request within `graceMs`, or one whose request body has not moved for `graceMs`: a client trickling
 * its body in), which is closed; if every connection is busy, the new one is answered 503 with the
 * error envelope and `Retry-After: 1`, and closed. A request whose body has come whole, or is coming,
 * is never touched.
 */
export function capConnections(server: Server, options: ConnectionCapOptions): ConnectionCap {
  const { max, graceMs = 1_000, lingerMs = 1_000 } = options
  const connections = new Map<Socket, Connection>()
  const refusedSockets = new WeakSet<Socket>()

  /**
   * Since when a connection has been idle, if it may be closed: between requests, or before a first one past
   * the grace, or stalled in a body that has not moved for the grace. Undefined while it is busy.
   */
  function idleSince(connection: Connection, now: number): number | undefined {
    if (connection.busy === 0)
      return connection.served === 0 && now - connection.openedAt < graceMs ? undefined : connection.idleSince
    const request = connection.request
    if (request && !request.complete && now - connection.movedAt >= graceMs) return connection.movedAt
    return undefined
  }

  /** The connection idle the longest among those that may be closed, if any. */
  function longestIdle(now: number): Socket | undefined {
    let victim: Socket | undefined
    let since = Number.POSITIVE_INFINITY
    for (const [socket, connection] of connections) {
      const idle = idleSince(connection, now)
      if (idle !== undefined && idle < since) {
        since = idle
        victim = socket
      }
    }
    return victim
  }

  function refuse(socket: Socket): void {
    refusedSockets.add(socket)
    socket.on('error', () => socket.destroy())
    writeRawResponse(
      socket,
      edgeErrorResponse(
        new ApiError(
          503,
          'api_error',
          'service_unavailable',
          `The mock holds its maximum of ${max} connections, all busy; retry in a second (or start it with a higher --max-connections).`,
          {},
          { 'retry-after': '1' },
        ),
      ),
    )
    setTimeout(() => socket.destroy(), lingerMs).unref()
  }

  server.on('connection', (socket: Socket) => {
    const now = performance.now()
    if (connections.size >= max) {
      const victim = longestIdle(now)
      if (!victim) {
        refuse(socket)
        return
      }
      connections.delete(victim)
      victim.destroy()
    }
    connections.set(socket, { openedAt: now, busy: 0, served: 0, idleSince: now, movedAt: now })
    socket.once('close', () => connections.delete(socket))
  })

  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const connection = connections.get(req.socket as Socket)
    if (!connection) return
    connection.busy++
    connection.request = req
    connection.movedAt = performance.now()
    ;(res as CountedResponse)[CONNECTION] = connection
    res.on('close', responseClosed)
  })

  return {
    refused: (socket) => refusedSockets.has(socket),
    bodyProgress(socket) {
      const connection = connections.get(socket)
      if (connection) connection.movedAt = performance.now()
    },
    open: () => connections.size,
  }
}
