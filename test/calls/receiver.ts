import { createServer, type IncomingHttpHeaders } from 'node:http'
import { listen } from '../../mocks/server/http-server.ts'

/** One request a receiver got. */
export interface Received {
  headers: IncomingHttpHeaders
  body: string
}

/**
 * A webhook receiver on a free loopback port that records every request and answers with the statuses given,
 * in turn (the last one from then on).
 */
export async function startReceiver(statuses: number[] = [200]) {
  const received: Received[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      const status = statuses[Math.min(received.length - 1, statuses.length - 1)] ?? 200
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no')
    })
  })
  const { port } = await listen(server, 0, '127.0.0.1')
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    /** The parsed bodies, in arrival order. */
    events: () =>
      received.map(
        (r) => JSON.parse(r.body) as { id: string; type: string; data: { object: Record<string, unknown> } },
      ),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** Waits until `done()` holds (polling every 20 ms), or fails after `ms`. */
export async function eventually(done: () => boolean, ms = 5000, what = 'the condition'): Promise<void> {
  const until = Date.now() + ms
  while (!done()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
