/**
 * Reading and rewriting engine requests, shared by the held-out fault sets (test/fault-sets/held-out-*.ts): the
 * parts of a request or an answer a fault looks at, and the rewrites several faults make.
 */
import type { ApiError } from '../../mocks/engine/api-error.ts'
import { createRouter } from '../../mocks/engine/contract/router.ts'
import { createValidators } from '../../mocks/engine/contract/validators.ts'
import { exceedsBodyLimit, isJsonContentType } from '../../mocks/engine/request-body.ts'
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import { mockControlDocument } from '../../openapi/generated/mock-control.document.ts'
import { v1Document } from '../../openapi/generated/v1.document.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'

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

/**
 * A 422 of the engine reworded as another platform words it: each field error on `param` says `message`, and an
 * error with one field error only says it too.
 */
export function rewordFieldError(response: EngineResponse, param: string, message: string): EngineResponse {
  const error = errorOf(response)
  if (response.status !== 422 || !error || !Array.isArray(error.errors)) return response
  for (const problem of error.errors)
    if (isObject(problem) && problem.param === param) problem.message = message
  const first = error.errors[0]
  if (error.errors.length === 1 && isObject(first)) error.message = `Invalid request body: ${first.message}`
  return response
}

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

/** The headers an answer owes to this request: its Request-Id, the rate-limit fields and the CORS fields. */
export function ownHeaders(current: EngineResponse): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(current.headers))
    if (
      name === 'request-id' ||
      name.startsWith('ratelimit') ||
      name.startsWith('x-ratelimit') ||
      name === 'access-control-allow-origin' ||
      name === 'access-control-expose-headers' ||
      name === 'vary'
    )
      headers[name] = value
  return headers
}

/** An error envelope the engine has no builder for (a code or a wording of the faulty platform's own). */
export function errorAnswer(base: EngineResponse, status: number, error: Json): EngineResponse {
  const requestId = base.headers['request-id']
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...ownHeaders(base) },
    body: { error: { ...error, ...(requestId ? { request_id: requestId } : {}) } },
  }
}

/**
 * What the engine is sent in place of a request that the faulty platform answers with an answer that is not counted
 * (a 401, a 429): a CORS preflight of a documented path (with the request's Origin), which the engine answers
 * without authenticating, counting or changing anything.
 */
export function preflightInstead(request: EngineRequest): EngineRequest {
  const origin = request.headers.origin
  return {
    method: 'OPTIONS',
    url: '/v1/user',
    headers: origin ? { origin } : {},
    body: null,
    clientIp: request.clientIp,
    baseUrl: request.baseUrl,
  }
}

/**
 * The same request with an empty JSON array for a body: the engine takes it through authentication, the rate limit,
 * the route, the permission and the query, counts it as the request would have been counted, and answers 400
 * `invalid_json` where it would have read the body; nothing is carried out.
 */
export const harmless = (request: EngineRequest): EngineRequest => ({
  ...request,
  headers: { ...request.headers, 'content-type': 'application/json' },
  body: '[]',
})

/** Whether the engine took a `harmless` stand-in as far as reading its body (and refused it there). */
export const passedToBody = (response: EngineResponse) =>
  response.status === 400 && codeOf(response) === 'invalid_json'

/** An error of the engine's own making, answered with the headers the engine's answer carried. */
export const failWith = (base: EngineResponse, error: ApiError): EngineResponse =>
  error.toResponse(base.headers['request-id'] ?? '', ownHeaders(base))

/** Whether the answer is an idempotent replay (`Idempotent-Replayed: true`). */
export const replayed = (response: EngineResponse) => response.headers['idempotent-replayed'] === 'true'

/** A startCall answer of the control plane: the account and the new call log. */
export function startedCall(
  request: EngineRequest,
  response: EngineResponse,
): { account: string; log: Json } | undefined {
  const match = /^\/_mock\/accounts\/([^/]+)\/calls\/?$/.exec(pathOf(request))
  if (!match || request.method !== 'POST' || response.status !== 201 || !isObject(response.body))
    return undefined
  return { account: match[1] as string, log: response.body }
}

/** Whole seconds since the epoch of a timestamp, or undefined. */
export function secondOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined
  const ms = Date.parse(value)
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined
}

/** The contract's form of an instant given in whole seconds. */
export const timestampOf = (second: number) => new Date(second * 1000).toISOString().replace('.000Z', 'Z')

/**
 * One rate-limit window of an answer: its policy's name, quota (`q`) and length (`w`), what remains (`r`) and the
 * seconds until it resets (`t`).
 */
export interface Window {
  policy: string
  q: number
  w: number
  r: number
  t: number
}

/** The windows of an answer's `RateLimit-Policy` and `RateLimit`, in the headers' order, or undefined. */
export function windowsOf(headers: Record<string, string>): Window[] | undefined {
  const policy = headers['ratelimit-policy']
  const current = headers.ratelimit
  if (!policy || !current) return undefined
  const quotas = [...policy.matchAll(/"(\w+)";q=(\d+);w=(\d+)/g)]
  const states = [...current.matchAll(/"(\w+)";r=(-?\d+);t=(\d+)/g)]
  if (quotas.length === 0 || quotas.length !== states.length) return undefined
  return quotas.map((quota, i) => ({
    policy: quota[1] as string,
    q: Number(quota[2]),
    w: Number(quota[3]),
    r: Number(states[i]?.[2]),
    t: Number(states[i]?.[3]),
  }))
}

/** The platform clock of an authenticated answer, in whole seconds: `X-RateLimit-Reset` less that window's `t`. */
export function nowOf(response: EngineResponse): number | undefined {
  const windows = windowsOf(response.headers)
  const reset = Number(response.headers['x-ratelimit-reset'])
  if (!windows || !Number.isFinite(reset)) return undefined
  return reset - tightest(windows).t
}

/** `RateLimit-Policy`, `RateLimit` and the legacy fields of windows, as the engine writes them. */
export function windowHeaders(windows: Window[], now: number): Record<string, string> {
  const best = tightest(windows)
  return {
    'ratelimit-policy': windows.map((window) => `"${window.policy}";q=${window.q};w=${window.w}`).join(', '),
    ratelimit: windows.map((window) => `"${window.policy}";r=${window.r};t=${window.t}`).join(', '),
    'x-ratelimit-limit': String(best.q),
    'x-ratelimit-remaining': String(best.r),
    'x-ratelimit-reset': String(now + best.t),
  }
}

/** The window the legacy `X-RateLimit-*` fields describe: the least remaining, ties to the shorter. */
export function tightest<T extends { r: number; w: number }>(windows: T[]): T {
  let best = windows[0] as T
  for (const window of windows)
    if (window.r < best.r || (window.r === best.r && window.w < best.w)) best = window
  return best
}

/** Routers and body validators built from the contract documents (`openapi/v1.yaml`, `openapi/mock-control.yaml`). */
export const v1Router = createRouter(v1Document)

export const v1Validators = createValidators(v1Document)

export const controlRouter = createRouter(mockControlDocument)

export const controlValidators = createValidators(mockControlDocument)

/**
 * Whether a request's body is one the contract accepts for the operation the request is routed to: a JSON object the
 * engine reads (not over 1 MiB, sent as JSON) without a validation problem.
 */
export function validBody(request: EngineRequest): boolean {
  const control = pathOf(request).startsWith('/_mock/')
  const router = control ? controlRouter : v1Router
  const validators = control ? controlValidators : v1Validators
  const path = pathOf(request).replace(/^\/(v1|_mock)/, '') || '/'
  const route = router.match(request.method, path)
  if (route.kind !== 'operation' || !route.operation.hasBody || request.body === null) return false
  if (exceedsBodyLimit(request.body) || !isJsonContentType(request.headers['content-type'])) return false
  const body = jsonOf(request)
  if (!isObject(body)) return false
  return (
    validators.body(route.operation.operationId, route.operation.object, structuredClone(body)).length === 0
  )
}

/** The metrics of an analytics bucket that holds no call. */
export const emptyMetrics = (): Json => ({
  call_count: 0,
  completed_count: 0,
  analyzed_count: 0,
  successful_count: 0,
  total_duration_seconds: 0,
  avg_duration_seconds: null,
  total_cost_usd: 0,
  avg_cost_usd: null,
  success_rate: null,
  sentiment: { positive: 0, neutral: 0, negative: 0 },
})

/** An RFC 3339 timestamp as the contract takes it in a query (any offset, optional fraction). */
export const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

/** The instant (milliseconds) of an RFC 3339 timestamp, or undefined when the value is not one. */
export function instantOf(value: string | null | undefined): number | undefined {
  if (typeof value !== 'string' || !RFC3339.test(value)) return undefined
  const ms = Date.parse(value.toUpperCase())
  return Number.isFinite(ms) ? ms : undefined
}

/** ISO 8601 UTC in whole seconds with `Z`, as the engine writes it. */
export const toTimestamp = (ms: number) =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')

/** A single value of a query parameter sent once, or undefined. */
export function single(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name)
  return values.length === 1 ? values[0] : undefined
}

/** A valid `limit` as sent (absent: the default 20), or undefined when the engine would refuse it. */
export function limitAsSent(query: URLSearchParams): number | undefined {
  const all = query.getAll('limit')
  if (all.length === 0) return 20
  if (all.length > 1 || !/^(100|[1-9][0-9]?)$/.test(all[0] as string)) return undefined
  return Number(all[0])
}

/** Newest first, as lists order objects: `created_at` descending, then `id` descending. */
export const newestFirst = (a: Json, b: Json) => {
  const [ka, kb] = [`${String(a.created_at)} ${String(a.id)}`, `${String(b.created_at)} ${String(b.id)}`]
  return ka < kb ? 1 : ka > kb ? -1 : 0
}

/** The key the lists are ordered by: creation time, then ID. */
export const sortKey = (item: Json) => `${String(item.created_at)}\u0000${String(item.id)}`

/**
 * A harmless read of the same key in place of a write the faulty implementation would not carry out (the engine
 * still authenticates and counts it, as the faulty platform would count the refused or replayed request).
 */
export function neutralRead(request: EngineRequest, url = '/v1/user'): EngineRequest {
  const headers = { ...request.headers }
  delete headers['content-type']
  delete headers['idempotency-key']
  return { ...request, method: 'GET', url, headers, body: null }
}

/** Whether `permissions` grant `scope` (a write permission also grants the read of the same resource). */
export const hasScope = (permissions: string[], scope: string) =>
  permissions.includes(scope) ||
  (scope === 'agents:read' && permissions.includes('agents:write')) ||
  (scope === 'integrations:read' && permissions.includes('integrations:write'))

/** Every permission a key may be given. */
export const ALL_SCOPES = [
  'agents:read',
  'call_logs:read',
  'analytics:read',
  'integrations:read',
  'agents:write',
  'integrations:write',
  'team_members:write',
  'resources:delete',
]

/** `value` rounded to `places` decimal places. */
export const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places

/** The metrics of two buckets together (counts and totals added, averages and rates recomputed). */
export function addMetrics(a: Json, b: Json): Json {
  const sum = (name: string) => Number(a[name] ?? 0) + Number(b[name] ?? 0)
  const completed = sum('completed_count')
  const analyzed = sum('analyzed_count')
  const successful = sum('successful_count')
  const duration = sum('total_duration_seconds')
  const cost = round(sum('total_cost_usd'), 4)
  const sa = isObject(a.sentiment) ? a.sentiment : {}
  const sb = isObject(b.sentiment) ? b.sentiment : {}
  const sentiment = (name: string) => Number(sa[name] ?? 0) + Number(sb[name] ?? 0)
  return {
    call_count: sum('call_count'),
    completed_count: completed,
    analyzed_count: analyzed,
    successful_count: successful,
    total_duration_seconds: duration,
    avg_duration_seconds: completed > 0 ? round(duration / completed, 2) : null,
    total_cost_usd: cost,
    avg_cost_usd: completed > 0 ? round(cost / completed, 4) : null,
    success_rate: analyzed > 0 ? round(successful / analyzed, 4) : null,
    sentiment: {
      positive: sentiment('positive'),
      neutral: sentiment('neutral'),
      negative: sentiment('negative'),
    },
  }
}

/** One bucket of an analytics series: its bounds and its metrics. */
export interface Bucket {
  start: string
  end: string
  metrics: Json
}

/**
 * A DELETE made harmless: the same request with a body over 1 MiB, which the engine takes through authentication,
 * the rate limit, the route, the permission and the query, counts, and refuses with 413 before it looks the object
 * up; nothing is deleted.
 */
/** The same request with a JSON body one byte over the engine's 1 MiB limit, which the engine refuses with 413. */
export const oversized = (request: EngineRequest): EngineRequest => ({
  ...request,
  headers: { ...request.headers, 'content-type': 'application/json' },
  body: ' '.repeat(1024 * 1024 + 1),
})

/** Whether the engine took an `oversized` stand-in as far as its size check (and refused it there). */
export const passedToSize = (response: EngineResponse) =>
  response.status === 413 && codeOf(response) === 'payload_too_large'

/** The accounts a control-plane answer shows (create, get, update, list): `{id, plan, custom_limits, ...}`. */
export function controlAccounts(request: EngineRequest, response: EngineResponse): Json[] {
  const path = pathOf(request)
  if (!ok(response) || !isObject(response.body)) return []
  if (!/^\/_mock\/accounts(\/[^/]+)?\/?$/.test(path) || request.method === 'DELETE') return []
  const body = response.body
  const all = body.object === 'list' && Array.isArray(body.data) ? body.data : [body]
  return all.filter(
    (item): item is Json => isObject(item) && item.object === 'user' && typeof item.id === 'string',
  )
}

/** Newest first by `sortKey` (creation time, then ID): the order `spliceIntoPage` merges a page in. */
const bySortKeyNewestFirst = (a: Json, b: Json) => {
  const ka = sortKey(a)
  const kb = sortKey(b)
  return ka < kb ? 1 : ka > kb ? -1 : 0
}

/**
 * Puts `extras` into a list page where the order of lists puts them (newest first), as far as the page reaches:
 * past its cursor, and not beyond its far end when more objects lie there; a page over its limit drops the
 * objects farthest from the cursor and says `has_more`.
 */
export function spliceIntoPage(
  body: Json,
  extras: Json[],
  query: URLSearchParams,
  keyOf: (id: string) => string | undefined,
): void {
  const sent = query.get('limit')
  const limit = sent === null ? 20 : Number(sent)
  const after = query.get('starting_after')
  const before = query.get('ending_before')
  const cursor = after ?? before
  const cursorKey = cursor === null ? undefined : keyOf(cursor)
  if ((cursor !== null && cursorKey === undefined) || !Array.isArray(body.data)) return
  const data = body.data as Json[]
  const newest = data[0] === undefined ? undefined : sortKey(data[0])
  const last = data[data.length - 1]
  const oldest = last === undefined ? undefined : sortKey(last)
  const fits = extras.filter((item) => {
    const key = sortKey(item)
    if (after !== null && cursorKey !== undefined && key >= cursorKey) return false
    if (before !== null && cursorKey !== undefined && key <= cursorKey) return false
    if (body.has_more !== true) return true
    return before !== null ? newest === undefined || key < newest : oldest === undefined || key > oldest
  })
  if (fits.length === 0) return
  let merged = [...data, ...fits].sort(bySortKeyNewestFirst)
  if (merged.length > limit) {
    merged = before !== null ? merged.slice(merged.length - limit) : merged.slice(0, limit)
    body.has_more = true
  }
  body.data = merged
}

/**
 * The windows of `RateLimit-Policy` and `RateLimit`, in their order (hourly, burst), each state paired with the
 * policy of its name (a state with a negative remainder is not read), or undefined when a state has no policy or
 * none is read.
 */
export function windowsByName(headers: Record<string, string>): Window[] | undefined {
  const policy = headers['ratelimit-policy']
  const current = headers.ratelimit
  if (!policy || !current) return undefined
  const quotas = new Map<string, { q: number; w: number }>()
  for (const match of policy.matchAll(/"(\w+)";q=(\d+);w=(\d+)/g))
    quotas.set(match[1] as string, { q: Number(match[2]), w: Number(match[3]) })
  const windows: Window[] = []
  for (const match of current.matchAll(/"(\w+)";r=(\d+);t=(\d+)/g)) {
    const quota = quotas.get(match[1] as string)
    if (!quota) return undefined
    windows.push({ policy: match[1] as string, ...quota, r: Number(match[2]), t: Number(match[3]) })
  }
  return windows.length > 0 ? windows : undefined
}

/** The mock clock's whole second as a rate-limited answer implies it (`X-RateLimit-Reset` less its window's `t`). */
export function nowSecondsOf(response: EngineResponse): number | undefined {
  const windows = windowsByName(response.headers)
  const reset = Number(response.headers['x-ratelimit-reset'])
  if (!windows || !Number.isFinite(reset)) return undefined
  return reset - tightest(windows).t
}

/** `headers` with the rate-limit fields written again from `windows`, at the whole second `nowSeconds`. */
export function writeWindows(headers: Record<string, string>, windows: Window[], nowSeconds: number): void {
  headers['ratelimit-policy'] = windows.map((w) => `"${w.policy}";q=${w.q};w=${w.w}`).join(', ')
  headers.ratelimit = windows.map((w) => `"${w.policy}";r=${w.r};t=${w.t}`).join(', ')
  const best = tightest(windows)
  headers['x-ratelimit-limit'] = String(best.q)
  headers['x-ratelimit-remaining'] = String(best.r)
  headers['x-ratelimit-reset'] = String(nowSeconds + best.t)
}

/** Whether a time zone name is one the runtime knows (as the engine asks it). */
export function knownZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name })
    return true
  } catch {
    return false
  }
}

/** The length of a string in characters (code points), as the contract counts it. */
export const chars = (value: string) => Array.from(value).length

/** A fault of the general held-out sets (20 and later): a name, the area it is in, what it breaks, the wrapper. */
export interface GeneralSetFault {
  name: string
  kind:
    | 'keys'
    | 'permissions'
    | 'rate-limits'
    | 'agents'
    | 'calls'
    | 'analytics'
    | 'integrations'
    | 'team'
    | 'pagination'
    | 'idempotency'
    | 'errors'
    | 'control-plane'
  /** The deviation, with the sentence of the spec, the contract or the decision it breaks. */
  what: string
  make: () => Fault
}

/** The path of an account's keys in the control plane (`listKeys`, `createKey`). */
export const KEYS_PATH = /^\/_mock\/accounts\/([^/]+)\/keys\/?$/

/** The path of an account of the control plane (`getAccount`, `updateAccount`, `deleteAccount`). */
export const ACCOUNT_PATH = /^\/_mock\/accounts\/([^/]+)\/?$/

/** The path of an account's simulated calls (`listCalls`, `startCall`). */
export const CALLS_PATH = /^\/_mock\/accounts\/([^/]+)\/calls\/?$/
