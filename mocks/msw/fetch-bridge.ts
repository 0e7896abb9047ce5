import type { EngineRequest, EngineResponse } from '../engine/types.ts'

/** A Fetch `Request` as the engine's plain request; `pathname` is relative to the API's origin. */
export async function toEngineRequest(
  request: Request,
  pathname: string,
  search: string,
  baseUrl?: string,
): Promise<EngineRequest> {
  const headers: Record<string, string> = {}
  request.headers.forEach((value, name) => {
    headers[name] = value
  })
  const method = request.method.toUpperCase()
  const body = method === 'GET' || method === 'HEAD' ? null : await request.text()
  return { method, url: pathname + search, headers, body: body === '' ? null : body, baseUrl }
}

/** The engine's response as a Fetch `Response` (without a body for a HEAD request). */
export function toFetchResponse(response: EngineResponse, method = 'GET'): Response {
  const body =
    method.toUpperCase() === 'HEAD' ||
    response.body === undefined ||
    response.status === 204 ||
    response.status === 304
      ? null
      : typeof response.body === 'string'
        ? response.body
        : response.body instanceof Uint8Array
          ? (response.body as Uint8Array<ArrayBuffer>)
          : JSON.stringify(response.body)
  return new Response(body, { status: response.status, headers: response.headers })
}
