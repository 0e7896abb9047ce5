import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import { toFetchResponse } from '../../mocks/msw/fetch-bridge.ts'

/** Whatever answers engine requests: the platform, or test code wrapped around it. */
export interface EngineHandler {
  handle(request: EngineRequest): Promise<EngineResponse>
}

/**
 * A `fetch` that hands each request straight to the platform's engine, in-process: the cheapest way to
 * the mock (no port, no request matching), for the mutation run, which runs the suite for every mutant.
 * The suite's own tests reach the mock through MSW and through HTTP as well.
 */
export function engineFetch(platform: () => EngineHandler, baseUrl: string): typeof fetch {
  const root = new URL(baseUrl)
  const mount = root.pathname.replace(/\/v1\/?$/, '')
  return async (input, init = {}) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
    const headers: Record<string, string> = {}
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value
    })
    const request: EngineRequest = {
      method: (init.method ?? 'GET').toUpperCase(),
      url: url.pathname.slice(mount.length) + url.search,
      headers,
      body: typeof init.body === 'string' && init.body !== '' ? init.body : null,
      baseUrl: `${url.origin}${mount}/v1`,
      // In this process, as from this machine: what the HTTP server reports for a local client.
      clientIp: '127.0.0.1',
    }
    return toFetchResponse(await platform().handle(request), request.method)
  }
}
