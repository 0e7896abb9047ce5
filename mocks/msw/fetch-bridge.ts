import { answerText } from '../engine/contract/contract-drift.ts'
import type { EngineRequest, EngineResponse } from '../engine/types.ts'

/**
 * A Fetch `Request` as the engine's plain request; `pathname` is relative to the API's origin. `body` is the
 * request's text, read by the caller (`bodyOf`) where there may be one.
 */
export function toEngineRequest(
  request: Request,
  pathname: string,
  search: string,
  baseUrl: string | undefined,
  body: string | null,
): EngineRequest {
  const headers: Record<string, string> = {}
  request.headers.forEach((value, name) => {
    headers[name] = value
  })
  return { method: request.method.toUpperCase(), url: pathname + search, headers, body, baseUrl }
}

/** A request's body as text (null for an empty one); null at once for GET and HEAD, which carry none. */
export function bodyOf(request: Request): Promise<string | null> | null {
  const method = request.method.toUpperCase()
  if (method === 'GET' || method === 'HEAD') return null
  return request.text().then((text) => (text === '' ? null : text))
}

const utf8 = new TextEncoder()
/** JSON texts encoded last, newest first: the same list answered again is the same text, encoded once. */
const encoded: { text: string; bytes: Uint8Array<ArrayBuffer> }[] = []
const ENCODED_KEPT = 8

/** A JSON text's UTF-8 bytes (a `Response` copies them: they may be handed out again). */
function bytesOf(text: string): Uint8Array<ArrayBuffer> {
  for (const entry of encoded) if (entry.text === text) return entry.bytes
  const bytes = utf8.encode(text)
  encoded.unshift({ text, bytes })
  if (encoded.length > ENCODED_KEPT) encoded.pop()
  return bytes
}

/**
 * The engine's response as a Fetch `Response` (without a body for a HEAD request). A JSON body goes as its UTF-8
 * bytes, the very text the drift check encoded (a string would be scanned and encoded again by `Response`); a
 * page, or a body without a content type (which `Response` then names), goes as a string; bytes as they are.
 */
export function toFetchResponse(response: EngineResponse, method = 'GET'): Response {
  const { body, status } = response
  // A `Headers` made here once: given a plain object, MSW's interceptors (which patch `Response` to note the
  // header names as sent) would make a second one besides the response's own.
  const init = { status, headers: new Headers(response.headers) }
  if (method.toUpperCase() === 'HEAD' || body === undefined || status === 204 || status === 304)
    return new Response(null, init)
  if (typeof body === 'string') return new Response(body, init)
  // JSON the engine wrote as bytes itself (a capsule): sent as they are.
  if (body instanceof Uint8Array) return new Response(body as Uint8Array<ArrayBuffer>, init)
  const text = answerText(body)
  return new Response(response.headers['content-type'] === undefined ? text : bytesOf(text), init)
}
