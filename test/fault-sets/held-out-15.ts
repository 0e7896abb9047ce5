/**
 * Held-out fault set 15: thirty faults an implementer of the platform's v1 API could plausibly ship, written blind to
 * the contract suite: neither its checks, nor its exploration, nor its tests, nor its documentation were read, and
 * the suite was never run; held-out-14 (written at the same time) was not read either. held-out-3 to held-out-13 were
 * read for their format only, and so as not to repeat their faults (every fault here breaks another rule, on another
 * operation, or in another situation than theirs). The sources were the platform's spec, the product decisions (the
 * repository's own record of them is `docs/decisions/`), the contract (`openapi/v1.yaml`,
 * `openapi/mock-control.yaml`) and the mock engine (the correct implementation every fault wraps). Each fault wraps
 * the correct engine (`faultyHandler`): it rewrites a request before the engine sees it (as a proxy, a body parser or
 * a router in front of a correct core would pass it on), answers in the engine's place where a layer in front of the
 * core answers by itself (the engine is then sent a CORS preflight, which it answers without authenticating or
 * counting anything, so that nothing the faulty layer would not have done happens), or rewrites the engine's answer,
 * keeping what it needs to remember in the closure `make()` returns (cached answers, the platform clock as answers
 * show it).
 *
 * The theme is "a gateway, a framework and a cache in front of a correct core": the business logic is right, the
 * layers around it are not. A reverse proxy and a WAF with their own limits and error pages, an authentication and a
 * rate-limiting plugin that answer by themselves, forwarded headers trusted from the client (the address, the host,
 * the request ID), a header allowlist, a gateway that rebuilds the query string; CORS middleware with a short list
 * or mounted before the router; the defaults of web frameworks (PUT routed like PATCH, case-insensitive routes and
 * query names, query schemas on reads only, the error fallback and XML converter picked by `Accept`, a JSON decoder
 * that stops at the first value, a form parser left mounted, prototype-poisoning protection, empty strings made
 * null, an XSS filter, a model binder that answers type errors itself); edge and proxy caches (a cache key without
 * the query, answers replayed whole, stale-while-revalidate); and serialisers (decimals as strings, query text
 * echoed, nulls left out). Every fault deviates from the platform's spec, the contract or a decision (cited in
 * `what`), in specific situations only (ordinary traffic, the first reads of every endpoint and a create and a read,
 * is unchanged), and never where the spec leaves a choice open (docs/decisions/011-allowed-forms.md). Liveness:
 * `scripts/fault-sets/held-out-15-live.ts`.
 */
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'
import {
  errorOf,
  ITEM_PATH,
  isObject,
  type Json,
  jsonOf,
  pathOf,
  queryOf,
  tightest,
  urlOf,
  type Window,
  withJson,
} from './request-parts.ts'

export interface HeldOutFault {
  name: string
  kind:
    | 'gateway'
    | 'cors'
    | 'routing'
    | 'negotiation'
    | 'query-parsing'
    | 'body-parsing'
    | 'cache'
    | 'serialisation'
  /** The deviation, with the sentence of the spec, the contract or the decision it breaks. */
  what: string
  make: () => Fault
}

// ------------------------------------------------------------------------------------------------- helpers

const isV1 = (request: EngineRequest) => /^\/v1(\/|$)/.test(pathOf(request))
const header = (request: EngineRequest, name: string) => request.headers[name]?.trim() || undefined

/** Whether the request's body is sent as JSON (what the engine's body parser takes). */
const sentAsJson = (request: EngineRequest) =>
  /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(header(request, 'content-type') ?? '')

/** Every string of a JSON value changed by `change` (object keys kept). */
function mapStrings(value: unknown, change: (text: string) => unknown): unknown {
  if (typeof value === 'string') return change(value)
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, change))
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, change)]))
  return value
}

const encoder = new TextEncoder()
const bytesOf = (text: string | null) => (text === null ? 0 : encoder.encode(text).length)

/**
 * What the engine is sent in place of a request that a layer in front of the platform answers by itself: a CORS
 * preflight of a documented path, which the engine answers without authenticating, counting or changing anything.
 */
const answeredInFront = (request: EngineRequest): EngineRequest => ({
  method: 'OPTIONS',
  url: '/v1/user',
  headers: {},
  body: null,
  clientIp: request.clientIp,
  baseUrl: request.baseUrl,
})

/** Requests a fault answers in the engine's place, with the answer it gives (or makes from the engine's). */
function inFront(
  decide: (request: EngineRequest) => ((engine: EngineResponse) => EngineResponse) | undefined,
): Fault {
  const pending = new Map<EngineRequest, (engine: EngineResponse) => EngineResponse>()
  return {
    request(request) {
      const answer = decide(request)
      if (!answer) return request
      const sent = answeredInFront(request)
      pending.set(sent, answer)
      return sent
    },
    response(response, request) {
      const answer = pending.get(request)
      pending.delete(request)
      return answer ? answer(response) : response
    },
  }
}

/** An HTML page as a proxy writes it. */
const htmlPage = (status: number, html: string, headers: Record<string, string> = {}): EngineResponse => ({
  status,
  headers: { 'content-type': 'text/html', ...headers },
  body: html,
})

const nginxPage = (status: number, reason: string) =>
  `<html>\r\n<head><title>${status} ${reason}</title></head>\r\n<body>\r\n<center><h1>${status} ${reason}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`

// -------------------------------------------------------------------------------------- the platform clock

/** The two windows of an answer's `RateLimit-Policy` and `RateLimit` (hourly first), or undefined. */
function windowsOf(headers: Record<string, string>): Window[] | undefined {
  const policy = headers['ratelimit-policy']
  const current = headers.ratelimit
  if (!policy || !current) return undefined
  const quotas = [...policy.matchAll(/"(\w+)";q=(\d+);w=(\d+)/g)]
  const states = [...current.matchAll(/"(\w+)";r=(-?\d+);t=(\d+)/g)]
  if (quotas.length !== 2 || states.length !== 2) return undefined
  return quotas.map((quota, i) => ({
    policy: quota[1] as string,
    q: Number(quota[2]),
    w: Number(quota[3]),
    r: Number(states[i]?.[2]),
    t: Number(states[i]?.[3]),
  }))
}

/**
 * The platform clock (whole seconds) as the answers show it: `X-RateLimit-Reset` less that window's `t` on v1
 * answers, `now` on the control plane's clock answers. `POST /_mock/reset` starts the platform again: the caches
 * a fault keeps are emptied with it.
 */
class PlatformClock {
  now = 0
  private readonly kept: { clear(): void }[] = []

  map<K, V>(): Map<K, V> {
    const map = new Map<K, V>()
    this.kept.push(map)
    return map
  }

  observe(request: EngineRequest, response: EngineResponse): void {
    const path = pathOf(request)
    if (path === '/_mock/reset' && response.status < 300) {
      for (const kept of this.kept) kept.clear()
      return
    }
    const body = isObject(response.body) ? response.body : undefined
    if (path.startsWith('/_mock/clock') && response.status < 300 && typeof body?.now === 'string') {
      const ms = Date.parse(body.now)
      if (Number.isFinite(ms)) this.now = Math.floor(ms / 1000)
      return
    }
    const windows = windowsOf(response.headers)
    const reset = Number(response.headers['x-ratelimit-reset'])
    if (windows && Number.isFinite(reset)) this.now = reset - tightest(windows).t
  }
}

/**
 * An edge cache of the answers to GETs that `keyOf` names: a fresh entry (younger than `ttl` seconds) is served
 * whole, the stored Request-Id and rate-limit fields included, without the request reaching the platform. `purge`
 * says which requests empty the cache once they succeed.
 */
function edgeCache(options: {
  keyOf: (request: EngineRequest) => string | undefined
  ttl: number
  purge?: (request: EngineRequest) => boolean
}): Fault {
  const clock = new PlatformClock()
  const entries = clock.map<string, { answer: EngineResponse; at: number }>()
  const hits = new Map<EngineRequest, EngineResponse>()
  return {
    request(request) {
      const key = request.method === 'GET' ? options.keyOf(request) : undefined
      const entry = key === undefined ? undefined : entries.get(key)
      if (!entry || clock.now - entry.at >= options.ttl) return request
      const sent = answeredInFront(request)
      hits.set(sent, structuredClone(entry.answer))
      return sent
    },
    response(response, request) {
      const hit = hits.get(request)
      hits.delete(request)
      if (hit) return hit
      clock.observe(request, response)
      if (options.purge?.(request) && response.status < 300) entries.clear()
      const key = request.method === 'GET' ? options.keyOf(request) : undefined
      if (key !== undefined && response.status === 200)
        entries.set(key, { answer: structuredClone(response), at: clock.now })
      return response
    },
  }
}

// ------------------------------------------------------------------------------------------ body parsing parts

/** The first JSON value of a text and what follows it, as a streaming decoder reads it; undefined if none. */
function firstJsonValue(text: string): { value: unknown; rest: string } | undefined {
  const start = text.search(/\S/)
  if (start < 0 || (text[start] !== '{' && text[start] !== '[')) return undefined
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') {
      depth--
      if (depth === 0) {
        try {
          return { value: JSON.parse(text.slice(start, i + 1)), rest: text.slice(i + 1) }
        } catch {
          return undefined
        }
      }
    }
  }
  return undefined
}

/** A form body read as `qs` reads it (`voice[provider]=openai` nests); every value a string. */
function formOf(text: string): Json {
  const out: Json = {}
  for (const [name, value] of new URLSearchParams(text)) {
    const path = name.split(/[[\]]+/).filter((part) => part !== '')
    let target = out
    path.forEach((part, i) => {
      if (i === path.length - 1) target[part] = value
      else {
        if (!isObject(target[part])) target[part] = {}
        target = target[part] as Json
      }
    })
  }
  return out
}

/** Whether a parsed JSON value holds an own `__proto__` key anywhere. */
function hasProtoKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasProtoKey)
  if (!isObject(value)) return false
  return Object.keys(value).some((key) => key === '__proto__' || hasProtoKey(value[key]))
}

const escapeHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#x27;')

/** The value at a dotted path of a JSON value (`voice.speed`, `webhook_events.1`). */
function valueAt(value: unknown, path: string): unknown {
  let current = value
  for (const part of path.split('.')) {
    if (Array.isArray(current)) current = current[Number(part)]
    else if (isObject(current)) current = current[part]
    else return undefined
  }
  return current
}

const DOTNET_TYPES: Record<string, string> = {
  integer: 'System.Int32',
  number: 'System.Double',
  boolean: 'System.Boolean',
  string: 'System.String',
  array: 'System.Collections.Generic.List`1[System.String]',
  object: 'System.Collections.Generic.Dictionary`2[System.String,System.String]',
}

// ----------------------------------------------------------------------------------------- negotiation parts

/** The quality a request's `Accept` gives to any of `types` (0 when it lists none of them). */
function qualityOf(accept: string, types: string[]): number {
  let best = 0
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase())
    if (!type || !types.includes(type)) continue
    const q = params.find((param) => param.startsWith('q='))
    best = Math.max(best, q === undefined ? 1 : Number(q.slice(2)) || 0)
  }
  return best
}

/** A JSON value written as Jackson's XML mapper writes a bean (lists wrapped in an element of their own name). */
function toXml(name: string, value: unknown): string {
  if (value === null || value === undefined) return `<${name}/>`
  if (Array.isArray(value)) return `<${name}>${value.map((item) => toXml(name, item)).join('')}</${name}>`
  if (isObject(value))
    return `<${name}>${Object.entries(value)
      .map(([key, item]) => toXml(key, item))
      .join('')}</${name}>`
  return `<${name}>${escapeHtml(String(value))}</${name}>`
}

const XML_ROOTS: Record<string, string> = {
  user: 'User',
  agent: 'Agent',
  call_log: 'CallLog',
  call_analytics: 'CallAnalytics',
  integration: 'Integration',
  team_member: 'TeamMember',
  list: 'ListResponse',
}

// ------------------------------------------------------------------------------------------------- the faults

export const faults: HeldOutFault[] = [
  // --------------------------------------------------------------------------------------------- gateway
  {
    name: 'body-limit-answered-by-proxy',
    kind: 'gateway',
    what:
      'The reverse proxy in front of the platform enforces the 1 MiB limit itself (`client_max_body_size 1m`): a request whose body is over 1,048,576 bytes never reaches the platform and gets nginx\'s own 413 page (`text/html`, "413 Request Entity Too Large"), without the error envelope, without Request-Id and without rate-limit fields, and before the key is looked at, so that a request without a valid key gets 413 instead of 401. ' +
      'Contract, PayloadTooLarge: 413 `invalid_request_error` / `payload_too_large` in the `Error` envelope; Conventions: "Every response, success or error, carries a `Request-Id: req_...` header", "Every authenticated response ... carries ... `RateLimit-Policy` and `RateLimit`"; Order of checks: "1. **401** authentication ... 5. ... a body over 1 MiB (413)"; docs/decisions/005-order-of-checks.md.',
    make: () =>
      inFront((request) => {
        if (!isV1(request) || (!request.bodyTooLarge && bytesOf(request.body) <= 1_048_576)) return undefined
        return () => htmlPage(413, nginxPage(413, 'Request Entity Too Large'))
      }),
  },
  {
    name: 'server-errors-replaced-by-proxy-page',
    kind: 'gateway',
    what:
      "The reverse proxy intercepts server errors (`proxy_intercept_errors on; error_page 500 502 503 504 /50x.html`): every 5xx answer of the platform reaches the client as the proxy's HTML page with the same status, without the platform's headers: no error envelope (`api_error` / `internal_error`, `bad_gateway`, `service_unavailable`, `gateway_timeout`), no Request-Id, no `Retry-After` on a 503 and no rate-limit fields. " +
      'Contract, Errors: "Every error uses one envelope" and the table\'s rows for 500, 502, 503 ("header `Retry-After`") and 504; Conventions: "Every response, success or error, carries a `Request-Id`"; docs/decisions/007-errors.md (500 `api_error` / `internal_error`); docs/decisions/012-scenarios.md: injected statuses are "answered with the contract\'s error envelope".',
    make: () => ({
      response(response, request) {
        if (!isV1(request) || response.status < 500) return response
        return htmlPage(
          response.status,
          '<!DOCTYPE html>\n<html>\n<head>\n<title>Error</title>\n</head>\n<body>\n<h1>An error occurred.</h1>\n<p>Sorry, the page you are looking for is currently unavailable.<br/>\nPlease try again later.</p>\n</body>\n</html>\n',
        )
      },
    }),
  },
  {
    name: 'missing-key-answered-by-gateway',
    kind: 'gateway',
    what:
      'The gateway\'s authentication plugin rejects requests that carry no credentials before they reach the platform (keys that are present, valid or not, are passed on for the platform to check): a request without an Authorization header (or with an empty one) gets the plugin\'s 401, `{"message": "No API key found in request"}` with `WWW-Authenticate: Key realm="kong"` and no Request-Id, instead of the platform\'s 401. ' +
      'Spec, Errors: "Authentication failure returns status 401 with this body shape: error (object), error.type `authentication_error`, error.message ..., error.code `invalid_api_key`"; contract, Unauthorized: "The body has exactly the platform\'s documented shape", header WWW-Authenticate "RFC 6750 `Bearer` challenge"; docs/decisions/002-authentication.md: "Every 401 has exactly the body the spec shows ... A 401 carries `WWW-Authenticate: Bearer`".',
    make: () =>
      inFront((request) => {
        if (!isV1(request) || request.method === 'OPTIONS' || header(request, 'authorization') !== undefined)
          return undefined
        return () => ({
          status: 401,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'www-authenticate': 'Key realm="kong"',
          },
          body: { message: 'No API key found in request' },
        })
      }),
  },
  {
    name: 'forwarded-for-trusted-from-client',
    kind: 'gateway',
    what:
      'The platform runs with "trust proxy" on behind its load balancer and takes the client address from the leftmost entry of `X-Forwarded-For`, the one the client itself wrote (the balancer appends the address it saw): a key restricted by `allowed_ips` is accepted from anywhere by a client that sends `X-Forwarded-For: <an allowed address>`, and refused (403 key_restricted) from an allowed address when the client sends another address in that header. ' +
      'docs/decisions/003-api-keys.md: "`allowed_ips` (CIDR ranges; a request from elsewhere is 403 `key_restricted`)"; contract, Order of checks: "key restrictions (`key_restricted`: client IP not in `allowed_ips` ...)"; Forbidden: "client IP outside `allowed_ips`".',
    make: () => ({
      request(request) {
        const forwarded = header(request, 'x-forwarded-for')?.split(',')[0]?.trim()
        if (!isV1(request) || !forwarded) return request
        return { ...request, clientIp: forwarded }
      },
    }),
  },
  {
    name: 'client-request-id-kept',
    kind: 'gateway',
    what:
      'The request-ID layer keeps an ID the request arrives with (`X-Request-Id` or `Request-Id`, "so that a client\'s trace continues"), as proxies that preserve `x-request-id` do, instead of giving every request its own: a client that sends one gets it back as the answer\'s Request-Id (and as `error.request_id`), whatever its form, and the same one on every request it sends with it. ' +
      'Contract, header Request-Id: "Unique ID of this request", pattern `^req_[A-Za-z0-9]+$`; Conventions: "Every response, success or error, carries a `Request-Id: req_...` header"; docs/decisions/001-general.md: "Every response, success or error, carries `Request-Id: req_...`".',
    make: () => ({
      response(response, request) {
        const sent = header(request, 'x-request-id') ?? header(request, 'request-id')
        if (!isV1(request) || sent === undefined) return response
        response.headers['request-id'] = sent
        const error = errorOf(response)
        if (error && 'request_id' in error) error.request_id = sent
        return response
      },
    }),
  },
  {
    name: 'location-from-forwarded-host',
    kind: 'gateway',
    what:
      'The framework builds absolute URLs from the forwarded headers (`X-Forwarded-Host`, `X-Forwarded-Proto`), which the proxy passes on from the client as they came: a create sent with `X-Forwarded-Host: evil.example` answers `Location: https://evil.example/v1/agents/agt_...` (or `.../team-members/mem_...`), a URL on a host the client chose, which names no resource of the platform. ' +
      'Contract, header Location: "The created resource: an absolute URL or a reference relative to the request\'s URL ... built from the server\'s own public base URL (never from the request\'s `Host` header, which the client chooses)"; createAgent and inviteTeamMember: 201 "with ... a `Location` header".',
    make: () => ({
      response(response, request) {
        const host = header(request, 'x-forwarded-host')?.split(',')[0]?.trim()
        const location = response.headers.location
        if (!isV1(request) || !host || !location) return response
        const proto = header(request, 'x-forwarded-proto')?.split(',')[0]?.trim() ?? 'http'
        try {
          const url = new URL(location)
          response.headers.location = `${proto}://${host}${url.pathname}${url.search}`
        } catch {
          // a relative Location stays as it is
        }
        return response
      },
    }),
  },
  {
    name: 'burst-429-from-gateway-plugin',
    kind: 'gateway',
    what:
      "The per-minute burst limit is enforced by the gateway's rate-limiting plugin (the platform keeps the hourly window): a request refused for the burst window gets the plugin's 429, `{\"message\": \"API rate limit exceeded\"}` with `Retry-After` and the plugin's own fields (`X-RateLimit-Limit-Minute`, `X-RateLimit-Remaining-Minute`, `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`), without the platform's error envelope (`rate_limit_error`, `policy`, `retry_after`) and without `RateLimit`, `RateLimit-Policy` and `X-RateLimit-*`; hourly 429s are the platform's. " +
      'Contract, TooManyRequests: `error.type` `rate_limit_error`, `error.code` `rate_limit_exceeded`, required `policy` and `retry_after` ("`error.retry_after` equals the `Retry-After` header"), "The rate-limit headers show `r=0` for the exhausted window"; Rate limits: "Every authenticated response (everything except 401) carries ... `RateLimit-Policy` and `RateLimit`, and the legacy `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`"; docs/decisions/006-rate-limits.md.',
    make: () => ({
      response(response, request) {
        const error = errorOf(response)
        if (!isV1(request) || response.status !== 429 || error?.policy !== 'burst') return response
        const burst = windowsOf(response.headers)?.find((window) => window.w === 60)
        const headers: Record<string, string> = {
          'content-type': 'application/json; charset=utf-8',
          'retry-after': response.headers['retry-after'] ?? '60',
          'x-ratelimit-limit-minute': String(burst?.q ?? ''),
          'x-ratelimit-remaining-minute': '0',
          'ratelimit-limit': String(burst?.q ?? ''),
          'ratelimit-remaining': '0',
          'ratelimit-reset': String(burst?.t ?? ''),
        }
        const requestId = response.headers['request-id']
        if (requestId) headers['request-id'] = requestId
        return { status: 429, headers, body: { message: 'API rate limit exceeded' } }
      },
    }),
  },
  {
    name: 'response-headers-allowlist-drops-replay-and-allow',
    kind: 'gateway',
    what:
      'The gateway passes only the response headers listed in its configuration (Content-Type, Location, Request-Id, Retry-After, WWW-Authenticate, the rate-limit fields, the CORS fields); `Idempotent-Replayed` and `Allow` were never added to the list: a replayed POST comes without `Idempotent-Replayed: true`, and a 405 without `Allow`. ' +
      'Contract, Idempotency: a retry "returns the stored status, headers and body, plus `Idempotent-Replayed: true`"; header Idempotent-Replayed: "`true` when this response is the stored response of an earlier request"; MethodNotAllowed: "`Allow` lists the documented methods" (required); Order of checks: "known path, undocumented method -> 405 with `Allow`"; docs/decisions/001-general.md: "405 with an `Allow` header"; docs/decisions/008-lists-and-idempotency.md.',
    make: () => ({
      response(response, request) {
        if (!isV1(request)) return response
        delete response.headers['idempotent-replayed']
        delete response.headers.allow
        return response
      },
    }),
  },
  {
    name: 'encoded-plus-in-query-becomes-space',
    kind: 'gateway',
    what:
      "The gateway rebuilds the upstream URI from the decoded query parameters and writes a `+` back as it is: an offset sent percent-encoded, as it must be (`started_after=2026-03-10T17:00:00%2B05:30`, `start=...%2B01:00`), reaches the platform as a literal `+`, which its query parser reads as a space, so the bound is refused with 400 invalid_parameter (GET /call-logs' `started_after` / `started_before`, GET /analytics/calls' `start` / `end`); offsets written with `-` or `Z` pass. " +
      'Contract, Conventions: "Timestamps *sent* in query parameters may carry any RFC 3339 offset and a fraction of a second (`T`/`Z` in either case); they are compared as the instants they name"; listCallLogs: `started_after` "Only calls with `started_at` strictly after this instant (RFC 3339)".',
    make: () => ({
      request(request) {
        if (!isV1(request) || !/%2b/i.test(request.url)) return request
        const at = request.url.indexOf('?')
        if (at < 0) return request
        return {
          ...request,
          url: `${request.url.slice(0, at)}?${request.url.slice(at + 1).replace(/%2b/gi, '+')}`,
        }
      },
    }),
  },
  {
    name: 'waf-blocks-bodies-over-8-kb',
    kind: 'gateway',
    what:
      "The web application firewall in front of the API runs a managed core rule set whose body-size rule (`SizeRestrictions_BODY`) blocks request bodies over 8 KB (8,192 bytes): a create or update with a long system prompt (well within its 20,000 characters), many metadata entries or long credentials gets the firewall's 403 page (`text/html`) before the key is even looked at, instead of being carried out. " +
      'Contract: `system_prompt` "maxLength: 20000", `Metadata` "at most 50 keys ... values strings of at most 500 characters", PayloadTooLarge: only "a body larger than 1 MiB (1,048,576 bytes)" is refused for its size; Forbidden: 403 is `insufficient_permissions` or `key_restricted` in the `Error` envelope; docs/decisions/007-errors.md (413 for "a body over 1 MiB").',
    make: () =>
      inFront((request) => {
        if (!isV1(request) || bytesOf(request.body) <= 8192) return undefined
        return () =>
          htmlPage(
            403,
            '<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 Forbidden</h1></center>\r\n</body>\r\n</html>\r\n',
          )
      }),
  },

  // ------------------------------------------------------------------------------------------------ cors
  {
    name: 'preflight-omits-idempotency-key',
    kind: 'cors',
    what:
      "The CORS middleware is configured with `allowedHeaders: ['Authorization', 'Content-Type']` (the list of its documentation's example): preflights answer `Access-Control-Allow-Headers: Authorization, Content-Type`, so a browser refuses to send a POST that carries `Idempotency-Key`, and a web client cannot retry creates safely. " +
      'Contract, Conventions: "**CORS.** The standalone mock answers CORS preflights (`OPTIONS`, 204) for every documented path; it allows the request headers `Authorization, Content-Type, Idempotency-Key`"; docs/decisions/001-general.md: "it allows `Authorization, Content-Type, Idempotency-Key`".',
    make: () => ({
      response(response, request) {
        if (
          !isV1(request) ||
          request.method !== 'OPTIONS' ||
          !response.headers['access-control-allow-headers']
        )
          return response
        response.headers['access-control-allow-headers'] = 'Authorization, Content-Type'
        return response
      },
    }),
  },
  {
    name: 'preflight-answered-on-any-path',
    kind: 'cors',
    what:
      "The CORS middleware is mounted on the whole application, before the router, with its defaults (`app.use(cors())`, `preflightContinue: false`): it answers every OPTIONS itself, 204 with its default method list (`GET,HEAD,PUT,PATCH,POST,DELETE`) and the request's own `Access-Control-Request-Headers` reflected, so an OPTIONS of a path that does not exist (`/v1/agent`, `/v1/calls`, `/v2/...` under the API) gets 204 instead of 404 route_not_found. " +
      'Contract, Conventions: "The standalone mock answers CORS preflights (`OPTIONS`, 204) for every documented path"; Versioning: "`/v2/...` and any other unknown path answer 404 `route_not_found`"; docs/decisions/001-general.md: "any unknown path is 404 `route_not_found`".',
    make: () => ({
      response(response, request) {
        if (!/^\/v\d+(\/|$)/.test(pathOf(request)) || request.method !== 'OPTIONS') return response
        const headers: Record<string, string> = {
          vary: 'Origin, Access-Control-Request-Headers',
          'access-control-allow-methods': 'GET,HEAD,PUT,PATCH,POST,DELETE',
          'access-control-max-age': '600',
          'content-length': '0',
        }
        const origin = header(request, 'origin')
        if (origin) {
          headers['access-control-allow-origin'] = origin
          headers['access-control-expose-headers'] = 'Request-Id, RateLimit, RateLimit-Policy, Retry-After'
        }
        const asked = header(request, 'access-control-request-headers')
        if (asked) headers['access-control-allow-headers'] = asked
        const requestId = response.headers['request-id']
        if (requestId) headers['request-id'] = requestId
        return { status: 204, headers, body: undefined }
      },
    }),
  },

  // ---------------------------------------------------------------------------------------------- routing
  {
    name: 'put-routed-as-patch',
    kind: 'routing',
    what:
      'The routes are declared as resources (`resources :agents, :team_members, :integrations`), which map both PATCH and PUT to the update action: a PUT on /agents/{agent_id}, /team-members/{member_id} or /integrations/{integration_id} is carried out as a partial update (200, the object changed) instead of being refused with 405. ' +
      'docs/decisions/001-general.md: "A documented path called with an undocumented method is 405 with an `Allow` header"; contract, Order of checks: "known path, undocumented method -> 405 with `Allow`"; MethodNotAllowed ("PUT on an agent").',
    make: () => ({
      request(request) {
        if (request.method.toUpperCase() !== 'PUT') return request
        const item = ITEM_PATH.exec(pathOf(request))
        if (!item || item[1] === 'call-logs') return request
        return { ...request, method: 'PATCH' }
      },
    }),
  },
  {
    name: 'routes-matched-case-insensitively',
    kind: 'routing',
    what:
      "The router matches paths case-insensitively (Express's default, `caseSensitive: false`): `/v1/Agents`, `/v1/TEAM-MEMBERS/{member_id}`, `/v1/Analytics/Calls` are served as the documented paths (IDs and slugs are still compared as written) instead of answering 404 route_not_found. " +
      'Contract, Versioning: "`/v2/...` and any other unknown path answer 404 `route_not_found` (after authentication and rate limiting)"; docs/decisions/001-general.md: "`/v2/...` and any unknown path is 404 `route_not_found`".',
    make: () => ({
      request(request) {
        const url = urlOf(request)
        const parts = url.pathname.split('/')
        if (parts[1]?.toLowerCase() !== 'v1') return request
        const route = ['user', 'agents', 'call-logs', 'analytics', 'integrations', 'team-members']
        if (!route.includes(parts[2]?.toLowerCase() ?? '')) return request
        parts[1] = 'v1'
        parts[2] = parts[2]?.toLowerCase() as string
        if (parts[2] === 'analytics' && parts[3]?.toLowerCase() === 'calls') parts[3] = 'calls'
        const path = parts.join('/')
        if (path === url.pathname) return request
        return { ...request, url: `${path}${url.search}` }
      },
    }),
  },

  // ------------------------------------------------------------------------------------------ negotiation
  {
    name: 'route-errors-as-html-for-browsers',
    kind: 'negotiation',
    what:
      "Errors the framework raises itself, before the platform's handlers (no route for the path: 404; no handler for the method: 405), go to its error fallback, whose JSON branch was customised to the platform's envelope but whose HTML branch, picked when `Accept` lists `text/html` (every browser navigation and many HTTP libraries' defaults), is the framework's \"Whitelabel Error Page\": such a request gets a `text/html` page instead of the JSON error. " +
      'Contract, Conventions: "**JSON only.** Request and response bodies are JSON objects (`application/json`, UTF-8)"; Errors: "Every error uses one envelope"; NotFound (`route_not_found`) and MethodNotAllowed: `content: application/json`; docs/decisions/007-errors.md: "One envelope for every error".',
    make: () => ({
      response(response, request) {
        const code = errorOf(response)?.code
        if (!isV1(request) || (code !== 'route_not_found' && code !== 'method_not_allowed')) return response
        if (!/text\/html/i.test(header(request, 'accept') ?? '')) return response
        const reason = response.status === 404 ? 'Not Found' : 'Method Not Allowed'
        response.headers['content-type'] = 'text/html;charset=UTF-8'
        response.body = `<html><body><h1>Whitelabel Error Page</h1><p>This application has no explicit mapping for /error, so you are seeing this as a fallback.</p><div>There was an unexpected error (type=${reason}, status=${response.status}).</div></body></html>`
        return response
      },
    }),
  },
  {
    name: 'xml-when-accept-prefers-it',
    kind: 'negotiation',
    what:
      "An XML data-format module on the classpath (pulled in by a reporting dependency) adds an XML message converter, and the framework negotiates the answer's format from `Accept`: a request whose `Accept` lists `application/xml` or `text/xml` with a quality at least that of JSON (a browser's `text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8`, or `application/xml` alone) gets its answer, success or error, as XML (`application/xml`) instead of JSON. " +
      'Contract, Conventions: "**JSON only.** Request and response bodies are JSON objects (`application/json`, UTF-8)"; every operation documents its answers as `content: application/json`; docs/decisions/001-general.md: "Bodies are JSON".',
    make: () => ({
      response(response, request) {
        const accept = header(request, 'accept')
        if (!isV1(request) || !accept || !isObject(response.body)) return response
        const xml = qualityOf(accept, ['application/xml', 'text/xml'])
        if (xml === 0 || xml < qualityOf(accept, ['application/json'])) return response
        const object = typeof response.body.object === 'string' ? response.body.object : undefined
        const root = object ? (XML_ROOTS[object] ?? 'Response') : 'ErrorResponse'
        response.headers['content-type'] = 'application/xml;charset=UTF-8'
        response.body = toXml(root, response.body)
        return response
      },
    }),
  },

  // ---------------------------------------------------------------------------------------- query parsing
  {
    name: 'query-names-bound-case-insensitively',
    kind: 'query-parsing',
    what:
      "The framework's model binding matches query parameter names case-insensitively (ASP.NET Core's default): `?Limit=5`, `?STATUS=completed`, `?Starting_After=...`, `?Granularity=hour` are bound to the documented parameters and applied, instead of being refused as unknown parameters. " +
      'Contract, Lists and pagination: "Unknown query parameters are rejected on every operation with 400 `invalid_parameter` (`error.param` names it)"; BadRequest: "`invalid_parameter`: a query or header parameter is unknown".',
    make: () => ({
      request(request) {
        if (!isV1(request)) return request
        const known = [
          'limit',
          'starting_after',
          'ending_before',
          'agent_id',
          'status',
          'direction',
          'started_after',
          'started_before',
          'min_duration_seconds',
          'max_duration_seconds',
          'start',
          'end',
          'granularity',
          'timezone',
          'group_by',
        ]
        const url = urlOf(request)
        const names = [...url.searchParams.keys()]
        if (!names.some((name) => name !== name.toLowerCase() && known.includes(name.toLowerCase())))
          return request
        const query = new URLSearchParams()
        for (const [name, value] of url.searchParams)
          query.append(known.includes(name.toLowerCase()) ? name.toLowerCase() : name, value)
        return { ...request, url: `${url.pathname}?${query.toString()}` }
      },
    }),
  },
  {
    name: 'write-routes-ignore-query-string',
    kind: 'query-parsing',
    what:
      'The query validator is attached to the read routes only (`router.get(path, validateQuery(schema), handler)`); the write routes declare no query schema and the framework ignores parameters no schema names: a POST, PATCH or DELETE sent with a query string (`POST /agents?dry_run=true`, `DELETE /call-logs/{id}?soft=true`, `PATCH /team-members/{id}?notify=false`) is carried out (the agent created, the call log deleted) instead of being refused. ' +
      'Contract, Lists and pagination: "Unknown query parameters are rejected on every operation with 400 `invalid_parameter` (`error.param` names it)"; Order of checks: "5. **400 ...** malformed request ...: query and header parameters (400 `invalid_parameter` ...)", before anything is done.',
    make: () => ({
      request(request) {
        const method = request.method.toUpperCase()
        if (!isV1(request) || !['POST', 'PATCH', 'DELETE'].includes(method) || queryOf(request).size === 0)
          return request
        return { ...request, url: pathOf(request) }
      },
    }),
  },

  // ----------------------------------------------------------------------------------------- body parsing
  {
    name: 'trailing-data-after-body-ignored',
    kind: 'body-parsing',
    what:
      'Bodies are read with a streaming JSON decoder that decodes the first value and stops (`json.NewDecoder(r.Body).Decode(&req)`), without checking that nothing follows: a body with anything after its JSON object (`{"email": "a@example.com"} {"email": "b@example.com"}`, `{"role": "admin"}]`, `{...} trailing`) is carried out with the first object instead of being refused with 400 invalid_json. ' +
      'Contract, BadRequest: "`invalid_json`: the body is empty, not valid JSON, or not a JSON object"; Order of checks: "then the body itself (400 `invalid_json`: empty, not JSON, or not a JSON object)"; docs/decisions/005-order-of-checks.md ("400 for a body that does not parse").',
    make: () => ({
      request(request) {
        if (!isV1(request) || request.body === null || !sentAsJson(request) || jsonOf(request) !== undefined)
          return request
        const first = firstJsonValue(request.body)
        if (!first || !isObject(first.value) || first.rest.trim() === '') return request
        return withJson(request, first.value)
      },
    }),
  },
  {
    name: 'form-encoded-bodies-accepted',
    kind: 'body-parsing',
    what:
      "The application mounts a form parser beside the JSON one (`express.urlencoded({ extended: true })`, left from the dashboard's HTML forms): a body sent as `application/x-www-form-urlencoded` (`email=kim%40example.com&role=admin`, `voice[provider]=openai`) is parsed into an object and handled like JSON (an invitation made, a role changed; strings only, so numeric and boolean fields are 422) instead of being refused with 415. " +
      'Contract, UnsupportedMediaType: "415 - a request body was sent with a `Content-Type` other than `application/json`" (example: "A form-encoded body"); Order of checks: "a body whose `Content-Type` is not `application/json` (415)"; docs/decisions/007-errors.md: "`unsupported_media_type` (a body that is not `application/json`)".',
    make: () => ({
      request(request) {
        const type = header(request, 'content-type') ?? ''
        if (!isV1(request) || request.body === null || !/^application\/x-www-form-urlencoded/i.test(type))
          return request
        return {
          ...request,
          headers: { ...request.headers, 'content-type': 'application/json' },
          body: JSON.stringify(formOf(request.body)),
        }
      },
    }),
  },
  {
    name: 'proto-keys-refused-by-body-parser',
    kind: 'body-parsing',
    what:
      "The framework's JSON parser protects against prototype poisoning with its default setting (`onProtoPoisoning: 'error'`): a body holding the key `__proto__` anywhere, for example as a metadata key of an agent or a configuration key of an integration, is refused with 400 invalid_json (\"Object contains forbidden prototype property\") although it is a valid JSON object and the key a valid one. " +
      'Contract, Metadata: "Free-form string key/value pairs for your own use: at most 50 keys, keys 1-40 characters"; IntegrationConfig: "At most 50 keys of 1-40 characters"; BadRequest: "`invalid_json`: the body is empty, not valid JSON, or not a JSON object".',
    make: () => {
      const poisoned = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isV1(request) || !sentAsJson(request) || !hasProtoKey(jsonOf(request))) return request
          const sent = { ...request, body: '{"__proto__":' }
          poisoned.add(sent)
          return sent
        },
        response(response, request) {
          const wasPoisoned = poisoned.delete(request)
          const error = errorOf(response)
          if (wasPoisoned && error?.code === 'invalid_json')
            error.message =
              'The request body is not valid JSON: Object contains forbidden prototype property.'
          return response
        },
      }
    },
  },
  {
    name: 'empty-strings-converted-to-null',
    kind: 'body-parsing',
    what:
      'A global request middleware turns every empty string of a request body into null before validation (Laravel\'s `ConvertEmptyStringsToNull`, on by default): `first_message: ""` or `description: ""` is stored and answered as null, and `system_prompt: ""` (its documented default, sent to clear a prompt) or an empty metadata value is refused with 422 `type`. ' +
      'Contract, AgentCreateRequest: `system_prompt` "{type: string ... default: \'\'}", `first_message` "{type: [string, \'null\']}" ("`null` lets the model open"); updateAgent: "Only the fields sent change ... every other field ... **replaces** the stored value"; Metadata: "values strings of at most 500 characters".',
    make: () => ({
      request(request) {
        const body = jsonOf(request)
        if (!isV1(request) || !sentAsJson(request) || !isObject(body)) return request
        const cleaned = mapStrings(body, (text) => (text === '' ? null : text))
        return JSON.stringify(cleaned) === JSON.stringify(body) ? request : withJson(request, cleaned)
      },
    }),
  },
  {
    name: 'bodies-html-escaped-by-xss-filter',
    kind: 'body-parsing',
    what:
      'An XSS-sanitising middleware HTML-escapes every string of every request body before the handlers see it: `<`, `>`, `&`, `"` and `\'` are stored as entities, so an agent named `R&D <front desk>` is created, answered and read back as `R&amp;D &lt;front desk&gt;`, a system prompt loses its markup, and a value near its length limit grows past it (422 max_length). ' +
      'Contract, createAgent: "Creates an agent" from the body\'s fields (`name` "{type: string, minLength: 1, maxLength: 100}"), the example answer repeating each field as sent; updateAgent: "every other field ... **replaces** the stored value"; Agent.system_prompt: "Instructions for the language model".',
    make: () => ({
      request(request) {
        const body = jsonOf(request)
        if (!isV1(request) || !sentAsJson(request) || !isObject(body)) return request
        const escaped = mapStrings(body, escapeHtml)
        return JSON.stringify(escaped) === JSON.stringify(body) ? request : withJson(request, escaped)
      },
    }),
  },
  {
    name: 'type-errors-answered-by-model-binder',
    kind: 'body-parsing',
    what:
      'Bodies are bound to typed request objects by the framework before the platform\'s validator runs, and a value the JSON deserialiser cannot convert (a string for an integer, a number for a string, an object for a boolean, null for a number) makes the framework answer by itself with its automatic validation problem: 400 `application/problem+json` (`{type, title: "One or more validation errors occurred.", status: 400, errors: {"$.max_call_duration_seconds": [...]}, traceId}`) instead of 422 `validation_failed` with code `type`; other validation errors are the platform\'s 422. ' +
      'Contract, UnprocessableEntity: "422 - the body is a JSON object but breaks the schema. Every problem is listed in `errors`"; FieldError.code: "`type` (wrong JSON type, including `null` where not allowed)"; Errors: "Every error uses one envelope"; docs/decisions/007-errors.md: 422 `validation_error` / `validation_failed`.',
    make: () => ({
      response(response, request) {
        const entries = errorOf(response)?.errors
        if (!isV1(request) || response.status !== 422 || !Array.isArray(entries)) return response
        const body = jsonOf(request)
        const failure = entries.filter(isObject).find((entry) => {
          if (entry.code !== 'type' || typeof entry.param !== 'string' || entry.param === '') return false
          const expected = /must be of type (\w+)/.exec(String(entry.message))?.[1] ?? ''
          return valueAt(body, entry.param) !== null || ['integer', 'number', 'boolean'].includes(expected)
        })
        if (!failure) return response
        const param = String(failure.param)
        const expected = /must be of type (\w+)/.exec(String(failure.message))?.[1] ?? 'string'
        const path = `$${param
          .split('.')
          .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
          .join('')}`
        const at = (request.body ?? '').indexOf(`"${param.split('.').at(-1)}"`)
        const requestId = response.headers['request-id'] ?? ''
        const trace = [...requestId].map((c) => c.charCodeAt(0).toString(16)).join('')
        response.status = 400
        response.headers['content-type'] = 'application/problem+json; charset=utf-8'
        response.body = {
          type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
          title: 'One or more validation errors occurred.',
          status: 400,
          errors: {
            [path]: [
              `The JSON value could not be converted to ${DOTNET_TYPES[expected] ?? 'System.String'}. Path: ${path} | LineNumber: 0 | BytePositionInLine: ${Math.max(at, 0)}.`,
            ],
          },
          traceId: `00-${trace.padEnd(32, '0').slice(0, 32)}-${trace.padEnd(16, '0').slice(0, 16)}-00`,
        }
        return response
      },
    }),
  },

  // ----------------------------------------------------------------------------------------------- caches
  {
    name: 'analytics-cache-key-without-query',
    kind: 'cache',
    what:
      'The CDN behaviour for `/v1/analytics/*` forwards the query string to the platform but leaves it out of the cache key (`Authorization` is in it): within 60 seconds of an analytics answer, the same key asking for another range, granularity, time zone, grouping or agent gets the earlier answer, whole (its Request-Id, its rate-limit fields), and the request is not counted. ' +
      'Contract, getCallAnalytics: "Aggregates the account\'s call logs over the half-open range `[start, end)`", the answer echoing `start`, `end`, `granularity`, `timezone`, `group_by` and `agent_id`; header Request-Id: "Unique ID of this request"; Rate limits: "Every admitted request counts in both windows"; docs/decisions/006-rate-limits.md.',
    make: () =>
      edgeCache({
        ttl: 60,
        keyOf: (request) =>
          /^\/v1\/analytics\/calls\/?$/.test(pathOf(request))
            ? `${header(request, 'authorization') ?? ''} ${pathOf(request)}`
            : undefined,
      }),
  },
  {
    name: 'integrations-replayed-from-edge-cache',
    kind: 'cache',
    what:
      'GET /integrations and GET /integrations/{integration_id} are cached at the edge for 30 seconds per URL and `Authorization` ("the catalogue rarely changes"; a PATCH purges it): a repeated read within that time gets the stored answer whole, with the Request-Id of the earlier request and its rate-limit fields, without the request being counted or its key checked again (a key revoked in the meantime still reads). ' +
      'Contract, header Request-Id: "Unique ID of this request"; Rate limits: "Every admitted request counts in both windows, whatever its status"; header RateLimit: "`r` is what remains in the window after this request"; spec, States: "key revoked ... requests that use the key receive 401"; docs/decisions/003-api-keys.md: "A revocation is effective on the very next request".',
    make: () =>
      edgeCache({
        ttl: 30,
        keyOf: (request) =>
          /^\/v1\/integrations(\/[^/]+)?\/?$/.test(pathOf(request))
            ? `${header(request, 'authorization') ?? ''} ${request.url}`
            : undefined,
        purge: (request) => request.method === 'PATCH' && /^\/v1\/integrations\//.test(pathOf(request)),
      }),
  },
  {
    name: 'agent-read-stale-while-revalidate',
    kind: 'cache',
    what:
      'The reverse proxy caches GET /agents/{agent_id} for 5 seconds and serves an expired copy while it refreshes it in the background (`proxy_cache_use_stale updating; proxy_cache_background_update on`), and writes do not purge it: after a PATCH (or a DELETE) of an agent read before, reads answer the agent as it was (or 200 for the deleted agent), with the earlier Request-Id and rate-limit fields, until the copy is 5 seconds old, and the first read after that still gets the old copy while the proxy refreshes it; only the read after that shows the change. ' +
      'Contract, updateAgent: "Partially updates an agent"; getAgent: "An unknown ID, an ID of another account, or an ID of a deleted agent gives 404"; deleteAgent: "Deleting it again gives 404"; header Request-Id: "Unique ID of this request".',
    make: () => {
      const clock = new PlatformClock()
      const entries = clock.map<string, { answer: EngineResponse; at: number }>()
      const hits = new Map<EngineRequest, EngineResponse>()
      const keyOf = (request: EngineRequest) =>
        request.method === 'GET' && /^\/v1\/agents\/[^/]+\/?$/.test(pathOf(request))
          ? `${header(request, 'authorization') ?? ''} ${pathOf(request)}`
          : undefined
      return {
        request(request) {
          const key = keyOf(request)
          const entry = key === undefined ? undefined : entries.get(key)
          if (!entry || clock.now - entry.at >= 5) return request
          const sent = answeredInFront(request)
          hits.set(sent, structuredClone(entry.answer))
          return sent
        },
        response(response, request) {
          const hit = hits.get(request)
          hits.delete(request)
          if (hit) return hit
          clock.observe(request, response)
          const key = keyOf(request)
          if (key === undefined) return response
          const kept = entries.get(key)
          const stale = kept && clock.now - kept.at < 600 ? kept : undefined
          if (response.status === 200) entries.set(key, { answer: structuredClone(response), at: clock.now })
          else entries.delete(key)
          return stale ? structuredClone(stale.answer) : response
        },
      }
    },
  },

  // ---------------------------------------------------------------------------------------- serialisation
  {
    name: 'call-log-cost-as-decimal-string',
    kind: 'serialisation',
    what:
      'The detail serializer of GET /call-logs/{call_log_id} declares `cost_usd` as a decimal field, which the serialization framework renders as a string by default (`COERCE_DECIMAL_TO_STRING`): a call log read by ID has `"cost_usd": "0.0485"` (`"0.0000"` for an unanswered call), a string, while lists (another serializer) give the number. ' +
      'Contract, CallLog: `cost_usd` "{type: [number, \'null\'], minimum: 0}", "Cost of the call in US dollars, at most 4 decimals"; Conventions: "Response objects contain exactly the documented fields".',
    make: () => ({
      response(response, request) {
        if (!['GET', 'HEAD'].includes(request.method) || response.status !== 200 || !isObject(response.body))
          return response
        const item = ITEM_PATH.exec(pathOf(request))
        if (item?.[1] !== 'call-logs' || typeof response.body.cost_usd !== 'number') return response
        response.body.cost_usd = response.body.cost_usd.toFixed(4)
        return response
      },
    }),
  },
  {
    name: 'analytics-range-echoed-as-sent',
    kind: 'serialisation',
    what:
      'GET /analytics/calls computes with the parsed instants but echoes `start` and `end` from the query text (`query.start ?? defaultStart.toISOString()`): a bound sent with an offset, in lower case or with a fraction (`2026-03-10T13:00:00+01:00`, `2026-03-10t12:00:00z`) comes back in that form instead of as the UTC instant with `Z`. ' +
      'Contract, CallAnalytics: `start` and `end` are `Timestamp` ("ISO 8601 / RFC 3339 UTC timestamp with `Z`", pattern `...Z$`); Conventions: "**Timestamps** are ISO 8601 / RFC 3339 in UTC with a `Z` suffix"; docs/decisions/001-general.md: "timestamps ISO 8601 in UTC with `Z`".',
    make: () => ({
      response(response, request) {
        if (!/^\/v1\/analytics\/calls\/?$/.test(pathOf(request)) || response.status !== 200) return response
        if (!isObject(response.body)) return response
        const query = queryOf(request)
        for (const bound of ['start', 'end']) {
          const sent = query.get(bound)
          if (sent !== null && sent !== '') response.body[bound] = sent
        }
        return response
      },
    }),
  },
  {
    name: 'group-bucket-nulls-omitted',
    kind: 'serialisation',
    what:
      "The groups of GET /analytics/calls are serialised through a class shared with the dashboard's chart export, annotated to leave out null values (`@JsonInclude(Include.NON_NULL)`): in `groups[].totals` and in every `groups[].series[].metrics`, `avg_duration_seconds`, `avg_cost_usd` and `success_rate` are missing when they are null (a group or bucket without completed or analysed calls) instead of present with null; the top-level totals and series are right. " +
      'Contract, AnalyticsMetrics: `required` lists `avg_duration_seconds`, `avg_cost_usd` and `success_rate` (`type: [number, \'null\']`, "`null` if no completed call"); Conventions: "**Nullability.** A field that is listed as `required` is always present; a nullable field is present with `null` rather than omitted".',
    make: () => ({
      response(response, request) {
        if (!/^\/v1\/analytics\/calls\/?$/.test(pathOf(request)) || response.status !== 200) return response
        const groups = isObject(response.body) ? response.body.groups : undefined
        if (!Array.isArray(groups)) return response
        const prune = (metrics: unknown) => {
          if (!isObject(metrics)) return
          for (const field of ['avg_duration_seconds', 'avg_cost_usd', 'success_rate'])
            if (metrics[field] === null) delete metrics[field]
        }
        for (const group of groups.filter(isObject)) {
          prune(group.totals)
          if (Array.isArray(group.series))
            for (const bucket of group.series.filter(isObject)) prune(bucket.metrics)
        }
        return response
      },
    }),
  },
]
