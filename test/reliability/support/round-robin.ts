import { Agent, createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A load balancer for tests: each request goes to the next of `origins` in turn. */
export interface RoundRobin {
  /** `http://127.0.0.1:<port>` */
  origin: string
  close(): Promise<void>
}

const upstream = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY })

/** Starts a round-robin HTTP proxy on a free loopback port in front of `origins`. */
export async function startRoundRobin(origins: readonly string[]): Promise<RoundRobin> {
  let turn = 0
  const server = createServer((incoming, outgoing) => {
    const target = new URL(incoming.url ?? '/', origins[turn++ % origins.length])
    const forwarded = request(
      target,
      { method: incoming.method, headers: incoming.headers, agent: upstream },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(outgoing)
      },
    )
    forwarded.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502)
      outgoing.end()
    })
    incoming.pipe(forwarded)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
