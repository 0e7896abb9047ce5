/**
 * The ceiling: a bare node:http server that answers, for `METHOD path`, exactly the bytes the mock
 * answered (status, headers, body), captured by the harness and sent here over IPC. Run as a child.
 */
import { createServer } from 'node:http'
import type { CapturedResponse } from './capture.ts'

const responses = new Map<string, { status: number; headers: string[]; body: Buffer }>()

process.on('message', (message: { key: string; response: CapturedResponse }) => {
  const { status, headers, body } = message.response
  responses.set(message.key, { status, headers: headers.flat(), body: Buffer.from(body, 'base64') })
  process.send?.({ stored: message.key })
})

const server = createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0]
  const found = responses.get(`${req.method} ${path}`)
  if (!found) {
    res.writeHead(404).end()
    return
  }
  res.writeHead(found.status, found.headers)
  res.end(found.body)
})
server.keepAliveTimeout = 5_000
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  console.log(`bare listening on ${typeof address === 'object' && address ? address.port : 0}`)
})
process.on('disconnect', () => process.exit(0))
