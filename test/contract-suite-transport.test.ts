import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { nodeTransport } from '../contracts/http/transport.ts'

// Many requests at once leave many kept-alive connections idle; a server closes an idle one after its
// keep-alive timeout, and a request that takes it just then meets a reset (seen as ECONNRESET in a provisioned
// run against the local mock, 16 lanes). Node's documented remedy: send it again, once, on a new connection.

/** A server that resets a connection when the `nth` request arrives on it, without answering. */
async function resettingServer(nth: number) {
  const perSocket = new WeakMap<object, number>()
  let received = 0
  const server = http.createServer((request, response) => {
    received++
    const count = (perSocket.get(request.socket) ?? 0) + 1
    perSocket.set(request.socket, count)
    if (count === nth) {
      request.socket.destroy()
      return
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/user`
  return {
    url,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

describe('nodeTransport', () => {
  let close: (() => Promise<void>) | undefined
  afterEach(async () => close?.())

  it('sends a request again, once, on a new connection when a kept-alive one is reset under it', async () => {
    const server = await resettingServer(2)
    close = server.close
    const send = nodeTransport()
    const first = await send({ method: 'GET', url: server.url, headers: {} })
    const second = await send({ method: 'GET', url: server.url, headers: {} })
    expect([first.status, second.status]).toEqual([200, 200])
    expect(server.received()).toBe(3)
  })

  it('does not send again when a new connection is reset: the target broke it', async () => {
    const server = await resettingServer(1)
    close = server.close
    await expect(nodeTransport()({ method: 'GET', url: server.url, headers: {} })).rejects.toThrow(
      /socket hang up|ECONNRESET/,
    )
    expect(server.received()).toBe(1)
  })
})
