import { http } from 'msw'
import type { MockPlatform } from '../platform.ts'
import { answerWithEffect } from './answer-with-effect.ts'
import { toEngineRequest } from './fetch-bridge.ts'

export interface HandlerOptions {
  /**
   * Where the app under test sends API requests: the base URL including `/v1`
   * (`http://127.0.0.1:4010/v1` by default, or a relative `/v1` in a browser app).
   */
  baseUrl?: string
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/v1'

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

  const forward = (prefix: string) =>
    http.all(`${mountPoint}${prefix}/*`, async ({ request }) => {
      const url = new URL(request.url)
      const pathname = url.pathname.slice(mountPath.length)
      // `Location` comes from the configured base URL (or, for a relative one, the page's own origin).
      const engineRequest = await toEngineRequest(
        request,
        pathname,
        url.search,
        absoluteRoot ?? `${url.origin}${mountPath}/v1`,
      )
      return answerWithEffect(await platform().handle(engineRequest), request)
    })

  return [forward('/v1'), forward('/_mock')]
}
