import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** A running latency proxy: its origin, what it forwarded, and how to stop it. */
export interface LatencyProxy {
  /** `http://127.0.0.1:<port>`: the target's origin as seen through the proxy. */
  origin: string
  /** Requests forwarded so far. */
  forwarded(): number
  /** Most requests that were held at the same moment (how concurrent the client was). */
  peakInFlight(): number
  close(): Promise<void>
}

/** An answer the proxy gives in the target's place. */
export interface ProxyAnswer {
  status: number
  body: unknown
}

export interface LatencyProxyOptions {
  /**
   * Answers a request in the target's place (it never reaches the target) when this returns an answer: a
   * target that lacks a route the real one has.
   */
  answer?: (method: string, path: string) => ProxyAnswer | undefined
}

/**
 * A loopback HTTP proxy in front of `target` (an origin, e.g. `http://127.0.0.1:4010`) that holds every
 * request `delayMs` before forwarding it: a target across a network, whose round trip costs `delayMs`
 * however many requests are under way. Requests are held independently (a client that sends ten at once
 * waits `delayMs` once, not ten times). Binds 127.0.0.1; `close()` ends every connection.
 */
export async function startLatencyProxy(
  target: string,
  delayMs: number,
  options: LatencyProxyOptions = {},
): Promise<LatencyProxy> {
  const upstream = new URL(target)
  const agent = new http.Agent({ keepAlive: true })
  let forwarded = 0
  let inFlight = 0
  let peak = 0
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      inFlight++
      peak = Math.max(peak, inFlight)
      setTimeout(() => {
        const own = options.answer?.(request.method ?? 'GET', new URL(request.url ?? '/', target).pathname)
        if (own) {
          inFlight--
          response.writeHead(own.status, { 'content-type': 'application/json; charset=utf-8' })
          response.end(JSON.stringify(own.body))
          return
        }
        forwarded++
        const headers = { ...request.headers, host: upstream.host }
        const body = Buffer.concat(chunks)
        const forward = (retried: boolean) => {
          const out = http.request(
            {
              host: upstream.hostname,
              port: upstream.port,
              method: request.method,
              path: request.url,
              headers,
              agent: retried ? false : agent,
            },
            (answer) => {
              response.writeHead(answer.statusCode ?? 502, answer.headers)
              answer.pipe(response)
              answer.on('end', () => inFlight--)
            },
          )
          out.on('error', (error: NodeJS.ErrnoException) => {
            // A kept-alive connection the target closed as the request went out: sent again, once.
            if (response.headersSent) {
              if (!response.writableEnded) response.destroy()
              return
            }
            if (!retried && out.reusedSocket && error.code === 'ECONNRESET') return forward(true)
            inFlight--
            response.writeHead(502, { 'content-type': 'text/plain' })
            response.end(`latency proxy: ${error.message}`)
          })
          out.end(body)
        }
        forward(false)
      }, delayMs)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    forwarded: () => forwarded,
    peakInFlight: () => peak,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy()
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
