import http from 'node:http'
import https from 'node:https'
import type { SentRequest } from './exchange.ts'

/** What a transport returns: the status, lower-case headers and the body text. */
export interface TransportResponse {
  status: number
  headers: Record<string, string>
  text: string
}

/** Sends one request; the client is written against this, not against a particular HTTP stack. */
export type Transport = (request: SentRequest) => Promise<TransportResponse>

/**
 * A transport over a `fetch` function (a custom one, or the global fetch looked up at call time so that
 * MSW's `setupServer` interception applies).
 */
export function fetchTransport(fetchImpl?: typeof fetch): Transport {
  return async (request) => {
    const doFetch = fetchImpl ?? globalThis.fetch
    const response = await doFetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
    })
    const headers: Record<string, string> = {}
    response.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value
    })
    return { status: response.status, headers, text: await response.text() }
  }
}

/**
 * A transport over `node:http` / `node:https` with keep-alive: several times cheaper per request than
 * fetch in Node, which matters for a suite that sends a few thousand requests, many at once. A request that
 * meets a kept-alive connection just as the server closes it is sent again once. MSW's `setupServer`
 * intercepts it as well.
 */
export function nodeTransport(): Transport {
  const agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  }
  const attempt = (request: SentRequest, retried: boolean): Promise<TransportResponse> =>
    new Promise((resolve, reject) => {
      const url = new URL(request.url)
      const isHttps = url.protocol === 'https:'
      const headers: Record<string, string | number> = { ...request.headers }
      if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body)
      // Looked up at call time on the module object, so that MSW's interception (which patches it) applies.
      const send = isHttps ? https.request : http.request
      const req = send(
        url,
        {
          method: request.method,
          headers,
          agent: retried ? false : isHttps ? agents['https:'] : agents['http:'],
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('error', reject)
          res.on('end', () => {
            const out: Record<string, string> = {}
            for (const [name, value] of Object.entries(res.headers))
              if (value !== undefined)
                out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
            resolve({
              status: res.statusCode ?? 0,
              headers: out,
              text: Buffer.concat(chunks).toString('utf8'),
            })
          })
        },
      )
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the server closed as this request went out (its idle timeout): the request
        // never reached it. Node's documented remedy: send it again, once, on a fresh connection.
        if (!retried && req.reusedSocket && error.code === 'ECONNRESET')
          attempt(request, true).then(resolve, reject)
        else reject(error)
      })
      req.end(request.body)
    })
  return (request) => attempt(request, false)
}
