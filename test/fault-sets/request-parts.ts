/**
 * Reading and rewriting engine requests, shared by the held-out fault sets (test/fault-sets/held-out-*.ts): the
 * parts of a request or an answer a fault looks at, and the rewrites several faults make.
 */
import { isJsonContentType } from '../../mocks/engine/request-body.ts'
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'

export type Json = Record<string, unknown>
export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export const urlOf = (request: EngineRequest) => new URL(request.url, 'http://engine.invalid')
export const pathOf = (request: EngineRequest) => urlOf(request).pathname
export const queryOf = (request: EngineRequest) => urlOf(request).searchParams

/** The request's bearer token, or undefined. */
export function tokenOf(request: EngineRequest): string | undefined {
  const match = /^bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')
  return match?.[1]
}

/** A JSON value written with sorted keys: two bodies are the same request when these are equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`
  return JSON.stringify(value) ?? 'undefined'
}

/** The request sent with another key. */
export const withToken = (request: EngineRequest, token: string): EngineRequest => ({
  ...request,
  headers: { ...request.headers, authorization: `Bearer ${token}` },
})

/** The request's body parsed as JSON, whatever its Content-Type; undefined when there is none or it does not parse. */
export function jsonOf(request: EngineRequest): unknown {
  if (request.body === null) return undefined
  try {
    return JSON.parse(request.body)
  } catch {
    return undefined
  }
}

/** The request's JSON object body, when it is one the engine would read as JSON. */
export function objectBody(request: EngineRequest): Json | undefined {
  if (!isJsonContentType(request.headers['content-type'])) return undefined
  const body = jsonOf(request)
  return isObject(body) ? body : undefined
}

/** Whether the request is one of the v1 API (a path under `/v1/`). */
export const isV1 = (request: EngineRequest) => pathOf(request).startsWith('/v1/')

/** Whether the request only reads (GET or HEAD). */
export const isRead = (request: EngineRequest) => request.method === 'GET' || request.method === 'HEAD'

/** Whether the answer is a success (2xx). */
export const ok = (response: EngineResponse) => response.status >= 200 && response.status < 300

/** The answer's error object (`body.error`), or undefined. */
export const errorOf = (response: EngineResponse): Json | undefined =>
  isObject(response.body) && isObject(response.body.error) ? response.body.error : undefined

/** The answer's error code, or undefined. */
export const codeOf = (response: EngineResponse) => errorOf(response)?.code

/** The request with `value` as its JSON body. */
export const withJson = (request: EngineRequest, value: unknown): EngineRequest => ({
  ...request,
  body: JSON.stringify(value),
})

/** The request with its query rewritten by `change` (the path kept; no `?` when the query ends up empty). */
export function withQuery(request: EngineRequest, change: (query: URLSearchParams) => void): EngineRequest {
  const url = urlOf(request)
  change(url.searchParams)
  const query = url.searchParams.toString()
  return { ...request, url: `${url.pathname}${query ? `?${query}` : ''}` }
}

/** The request with header `name` (lower case) set to `value`. */
export const withHeader = (request: EngineRequest, name: string, value: string): EngineRequest => ({
  ...request,
  headers: { ...request.headers, [name]: value },
})

/** A path of one item of a v1 collection: the collection and the ID as sent. */
export const ITEM_PATH = /^\/v1\/(agents|call-logs|integrations|team-members)\/([^/]+)\/?$/

/** The collection and ID of an item path (the ID decoded as the engine decodes it). */
export function itemOf(request: EngineRequest): { collection: string; id: string } | undefined {
  const match = ITEM_PATH.exec(pathOf(request))
  if (!match) return undefined
  let id = match[2] as string
  try {
    id = decodeURIComponent(id)
  } catch {
    // kept as sent
  }
  return { collection: match[1] as string, id }
}

/** The ID of `method` (GET also matches HEAD) on an item of `collection`, or undefined. */
export function itemId(request: EngineRequest, method: string, collection: string): string | undefined {
  const sent = request.method.toUpperCase()
  if (sent !== method && !(method === 'GET' && sent === 'HEAD')) return undefined
  const item = itemOf(request)
  return item?.collection === collection ? item.id : undefined
}

/** Whether the request creates an item of `collection`. */
export const isCreate = (request: EngineRequest, collection: 'agents' | 'team-members') =>
  request.method === 'POST' && new RegExp(`^/v1/${collection}/?$`).test(pathOf(request))

/** Whether the request reads the list of `collection`. */
export const isList = (request: EngineRequest, collection: string) =>
  isRead(request) && new RegExp(`^/v1/${collection}/?$`).test(pathOf(request))

/**
 * The objects of type `type` an answer carries (the object itself, or a list's items), as the answer's own
 * objects, so that a fault may change them; a DELETE's `{id, object, deleted}` is not one.
 */
export function objectsOf(response: EngineResponse, type: string): Json[] {
  if (!ok(response) || !isObject(response.body)) return []
  const body = response.body
  if (body.object === 'list' && Array.isArray(body.data))
    return body.data.filter((item): item is Json => isObject(item) && item.object === type)
  return body.object === type && body.deleted !== true ? [body] : []
}

/** Whether the request reads the call analytics. */
export const isAnalytics = (request: EngineRequest) => isList(request, 'analytics/calls')
