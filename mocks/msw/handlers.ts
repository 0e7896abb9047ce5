import { http } from 'msw'
import type { MockPlatform } from '../platform.ts'
import { answerWithEffect } from './answer-with-effect.ts'
import { bodyOf, toEngineRequest } from './fetch-bridge.ts'
import { requestPattern } from './request-pattern.ts'

export interface HandlerOptions {
  /**
   * Where the app under test sends API requests: the base URL including `/v1`
   * (`http://127.0.0.1:4010/v1` by default, or a relative `/v1` in a browser app).
   */
  baseUrl?: string
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/v1'

/** Most request URLs kept parsed; past it the cache starts again empty. */
const MAX_PARSED_URLS = 512

/**
 * MSW request handlers that answer the v1 API and the control plane (`/_mock/`) from a platform.
 * `platform` is a getter so that a test can swap in a fresh platform without touching the handlers.
 */
export function createHandlers(
  platform: () => MockPlatform,
  { baseUrl = DEFAULT_BASE_URL }: HandlerOptions = {},
) {
  const apiRoot = baseUrl.replace(/\/+$/, '')
  if (!apiRoot.endsWith('/v1')) throw new Error(`baseUrl must end in /v1, got '${baseUrl}'`)
  const mountPoint = apiRoot.slice(0, -'/v1'.length)
  const mountPath = (mountPoint.startsWith('http') ? new URL(mountPoint).pathname : mountPoint).replace(
    /\/+$/,
    '',
  )

  const absoluteRoot = /^https?:\/\//i.test(apiRoot) ? apiRoot : undefined
  /** Request URLs as parsed, by their text: an app repeats the same few, and parsing is a cost of each request. */
  let parsed = new Map<string, URL>()
  const parse = (text: string) => {
    let url = parsed.get(text)
    if (url === undefined) {
      url = new URL(text)
      if (parsed.size >= MAX_PARSED_URLS) parsed = new Map()
      parsed.set(text, url)
    }
    return url
  }

  const forward = (prefix: string) =>
    http.all(requestPattern(mountPoint, prefix), async ({ request }) => {
      const url = parse(request.url)
      const pathname = url.pathname.slice(mountPath.length)
      // `Location` comes from the configured base URL (or, for a relative one, the page's own origin).
      const base = absoluteRoot ?? `${url.origin}${mountPath}/v1`
      const read = bodyOf(request)
      const engineRequest = toEngineRequest(request, pathname, url.search, base, read && (await read))
      return answerWithEffect(await platform().handle(engineRequest), request)
    })

  return [forward('/v1'), forward('/_mock')]
}
