import { createServer, type IncomingHttpHeaders } from 'node:http'

/** A request the receiver got: its headers and raw body. */
export interface ReceivedWebhook {
  headers: IncomingHttpHeaders
  body: string
  /** When it arrived (real epoch ms). */
  at: number
}

/** Bodies over this many bytes are cut (an event is a few KiB). */
const MAX_BODY_BYTES = 1024 * 1024

/**
 * A webhook receiver for the suite on a free loopback port: records every request and answers with the
 * statuses given, in turn (the last from then on). It never runs unless the suite provisions a mock.
 */
export async function startWebhookReceiver(statuses: readonly number[] = [200]) {
  const received: ReceivedWebhook[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() })
      const status = statuses[Math.min(received.length - 1, statuses.length - 1)] ?? 200
      res.writeHead(status, { 'content-type': 'text/plain' }).end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/contract-suite/webhooks`,
    received,
    /** Waits until `count` requests arrived, or `ms` passed; resolves to whether they did. */
    async waitFor(count: number, ms: number): Promise<boolean> {
      const until = Date.now() + ms
      while (received.length < count && Date.now() < until) await new Promise((r) => setTimeout(r, 25))
      return received.length >= count
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>
