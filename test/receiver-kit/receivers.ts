import { createServer } from 'node:http'
import { Webhook } from 'standardwebhooks'
import { listen } from '../../mocks/server/http-server.ts'

/** A receiver's route as a fetch handler. */
export type Handler = (request: Request) => Promise<Response>

const KNOWN = new Set(['call.started', 'call.ended', 'transcript.ready', 'call.analyzed'])

const headersOf = (request: Request) => Object.fromEntries(request.headers)

/** How a receiver checks a delivery: returns the event, or throws when it must be refused. */
type Verify = (body: string, headers: Record<string, string>) => unknown

interface ReceiverShape {
  verify: Verify
  /** What it answers for an event type it does not know. */
  unknownStatus?: number
}

/**
 * A receiver as its teams write them: verify, refuse with 400 when verification throws, remember event ids
 * (a repeat is acknowledged again, not processed twice), handle the known types, acknowledge the rest.
 */
function receiver({ verify, unknownStatus = 200 }: ReceiverShape) {
  const handled = new Set<string>()
  const received: { type?: string; id?: string; status: number }[] = []
  const handler: Handler = async (request) => {
    const body = await request.text()
    let event: { id?: string; type?: string }
    try {
      event = verify(body, headersOf(request)) as typeof event
    } catch {
      received.push({ status: 400 })
      return new Response('invalid webhook', { status: 400 })
    }
    const status = KNOWN.has(String(event.type)) ? 204 : unknownStatus
    if (status < 300 && event.id) handled.add(event.id)
    received.push({ type: event.type, id: event.id, status })
    return new Response(null, { status })
  }
  return { handler, received, handled }
}

/** The correct receiver: the `standardwebhooks` package verifies the raw body (every signature, the tolerance). */
export function correctReceiver(secret: string) {
  const webhook = new Webhook(secret)
  return receiver({ verify: (body, headers) => webhook.verify(body, headers) })
}

/** Receivers broken in one way each, with the checks each must fail (and no other). */
export const BROKEN: {
  name: string
  make: (secret: string) => ReturnType<typeof receiver>
  fails: string[]
}[] = [
  {
    name: 'skips verification (200 to everything)',
    make: () => receiver({ verify: (body) => JSON.parse(body) }),
    fails: [
      'refusals/wrong-signature',
      'refusals/body-changed',
      'refusals/rotated-out-secret',
      'refusals/timestamp-past',
      'refusals/timestamp-future',
      'refusals/missing-webhook-id',
      'refusals/missing-webhook-timestamp',
      'refusals/missing-webhook-signature',
    ],
  },
  {
    name: 'has no timestamp tolerance',
    make: (secret) => {
      const webhook = new Webhook(secret)
      return receiver({
        verify(body, headers) {
          const id = headers['webhook-id']
          const timestamp = headers['webhook-timestamp']
          const signature = headers['webhook-signature']
          if (!id || !timestamp || !signature) throw new Error('missing headers')
          const expected = webhook.sign(id, new Date(Number(timestamp) * 1000), body)
          if (!signature.split(' ').includes(expected)) throw new Error('no matching signature')
          return JSON.parse(body)
        },
      })
    },
    fails: ['refusals/timestamp-past', 'refusals/timestamp-future'],
  },
  {
    name: 'verifies the signature over re-serialised JSON, not the raw body',
    make: (secret) => {
      const webhook = new Webhook(secret)
      return receiver({
        verify: (body, headers) => webhook.verify(JSON.stringify(JSON.parse(body)), headers),
      })
    },
    fails: ['acceptances/raw-body'],
  },
  {
    name: 'tries only the first signature of webhook-signature',
    make: (secret) => {
      const webhook = new Webhook(secret)
      return receiver({
        verify: (body, headers) =>
          webhook.verify(body, {
            ...headers,
            'webhook-signature': (headers['webhook-signature'] ?? '').split(' ')[0] as string,
          }),
      })
    },
    fails: ['acceptances/several-signatures'],
  },
  {
    name: 'answers 500 to an event type it does not know',
    make: (secret) => {
      const webhook = new Webhook(secret)
      return receiver({ verify: (body, headers) => webhook.verify(body, headers), unknownStatus: 500 })
    },
    fails: ['acceptances/unknown-type'],
  },
]

/** Serves a fetch handler over node:http on a free loopback port. */
export async function serve(handler: Handler, path = '/webhooks') {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      const headers = new Headers()
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string') headers.set(name, value)
      const request = new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers,
        body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
      })
      const response = await handler(request)
      res.writeHead(response.status, Object.fromEntries(response.headers))
      res.end(Buffer.from(await response.arrayBuffer()))
    })
  })
  const { port } = await listen(server, 0, '127.0.0.1')
  return {
    url: `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
