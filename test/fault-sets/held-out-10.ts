/**
 * Held-out fault set 10: thirty faults of a backend written on an everyday web framework, in its first release,
 * written blind to the contract suite: neither its checks, nor its exploration, nor its tests, nor its documentation,
 * nor the held-out-3 list were read, and the suite was never run. held-out-4 to held-out-9 were read for their format
 * only, and so as not to repeat their faults (every fault here breaks another rule, on another operation, or in
 * another situation). The sources were the platform's spec, the product decisions (the repository's own record of
 * them is `docs/decisions/`), the contract (`openapi/v1.yaml`, `openapi/mock-control.yaml`) and the mock engine (the
 * correct implementation every fault wraps). Each fault wraps the correct engine (`faultyHandler`): it rewrites a
 * request before the engine sees it (the value a framework's parser or coercion would hand the handler, a method
 * taken from a header, a body flagged too large, a path ID left encoded), or rewrites or replaces the engine's answer
 * (a framework's default error body, a serializer's field names, a date library's format, a float column's value),
 * keeping what it needs to remember in the closure `make()` returns (objects and values seen in answers).
 *
 * The theme is the bugs such stacks really ship, spread over every operation: query strings (enum values matched in
 * any case, an empty value taken as absent, unknown parameters ignored where no schema was declared), paths
 * (percent-encoded IDs not decoded, a method override honoured), JSON bodies (null taken as absent, integers written
 * `1.0` refused, a string `"false"` coerced to true, long strings cut by a column, astral characters lost by a
 * 3-byte charset, e-mail addresses "normalised"), content negotiation and content types, the Authorization header
 * (case and whitespace), a framework's default error handler and body limit on one route, a middleware mounted in
 * the wrong order on one route, serializers that rename or drop fields in one situation, date libraries (an outdated
 * time-zone database, a strict layout, `+00:00` for `Z`), an ORM's default ordering, integer division and
 * single-precision floats in metrics and fields, and rate-limit counters read at the wrong moment or in the wrong
 * unit. Every fault deviates from the platform's spec, the contract or a decision (cited in `what`), in specific
 * situations only (ordinary traffic, the first reads of every endpoint and a create and a read, is unchanged), and
 * never where the spec leaves a choice open (docs/decisions/011-allowed-forms.md). Liveness:
 * `scripts/fault-sets/held-out-10-live.ts`.
 */
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'
import {
  errorOf,
  isObject,
  isRead,
  isV1,
  type Json,
  jsonOf,
  knownZone,
  ok,
  pathOf,
  queryOf,
  RFC3339,
  single,
  tightest as tightestOf,
  urlOf,
  windowsByName,
  withJson,
  withQuery,
  writeWindows,
} from './request-parts.ts'

export interface HeldOutFault {
  name: string
  kind:
    | 'pages'
    | 'order'
    | 'accounts'
    | 'keys'
    | 'time'
    | 'idempotency'
    | 'validation'
    | 'errors'
    | 'headers'
    | 'relations'
  /** The deviation, with the sentence of the spec, the contract or the decision it breaks. */
  what: string
  make: () => Fault
}

// ------------------------------------------------------------------------------------------------- helpers

/** The objects of a v1 answer: the list's items, or the object itself. */
function objectsOf(response: EngineResponse): Json[] {
  if (!isObject(response.body)) return []
  if (response.body.object === 'list' && Array.isArray(response.body.data))
    return response.body.data.filter(isObject)
  return [response.body]
}

/** The headers an answer owes to this request: its Request-Id, the rate-limit fields and the CORS fields. */
function ownHeaders(current: EngineResponse): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(current.headers))
    if (
      name === 'request-id' ||
      name.startsWith('ratelimit') ||
      name.startsWith('x-ratelimit') ||
      (name.startsWith('access-control-') && name !== 'access-control-allow-methods') ||
      name === 'vary'
    )
      headers[name] = value
  return headers
}

/** An answer with `body`, built on the engine's answer (its Request-Id and rate-limit headers). */
function answerWith(base: EngineResponse, status: number, body: unknown): EngineResponse {
  return {
    status,
    headers: { ...ownHeaders(base), 'content-type': 'application/json; charset=utf-8' },
    body,
  }
}

/** An error answer in the platform's envelope, built on the engine's answer. */
function errorAnswer(base: EngineResponse, status: number, error: Json): EngineResponse {
  const requestId = base.headers['request-id']
  return answerWith(base, status, { error: { ...error, ...(requestId ? { request_id: requestId } : {}) } })
}

/** The platform's 400 `invalid_parameter`, built on the engine's answer. */
const invalidParameter = (base: EngineResponse, param: string, message: string) =>
  errorAnswer(base, 400, { type: 'invalid_request_error', code: 'invalid_parameter', message, param })

const ITEM_PATH = /^\/v1\/(agents|call-logs|integrations|team-members)\/([^/]+)(\/?)$/

/** The collection and the ID of an item path, the ID decoded as the router decodes it. */
function itemOf(path: string): { collection: string; id: string } | undefined {
  const match = ITEM_PATH.exec(path)
  if (!match) return undefined
  let id = match[2] as string
  try {
    id = decodeURIComponent(id)
  } catch {
    // kept as sent
  }
  return { collection: match[1] as string, id }
}

const ANALYTICS = '/v1/analytics/calls'

/** UTF-8 length of a text, in bytes. */
const byteLength = (text: string) => new TextEncoder().encode(text).length

// ------------------------------------------------------------------------------- rate-limit headers

// ------------------------------------------------------------------------------------------------- faults

const CALL_STATUSES = [
  'queued',
  'ringing',
  'in_progress',
  'completed',
  'no_answer',
  'busy',
  'failed',
  'canceled',
]
const DIRECTIONS = ['inbound', 'outbound']
const UNDER_WAY = new Set(['queued', 'ringing', 'in_progress'])

/** Zones of the IANA database added after the 2020a release a stale bundled copy stops at. */
const NEWER_ZONES = new Set(['Europe/Kyiv', 'Pacific/Kanton', 'America/Ciudad_Juarez'])

/** The first problem the analytics route's query schema finds, or undefined (the contract's parameters). */
function analyticsQueryProblem(query: URLSearchParams): { param: string; message: string } | undefined {
  const allowed = ['start', 'end', 'granularity', 'timezone', 'group_by', 'agent_id']
  for (const name of new Set(query.keys())) {
    if (!allowed.includes(name)) return { param: name, message: `Unknown query parameter '${name}'.` }
    if (query.getAll(name).length > 1) return { param: name, message: `'${name}' may be given only once.` }
  }
  const granularity = query.get('granularity')
  if (granularity !== null && !['hour', 'day', 'week', 'month', 'total'].includes(granularity))
    return { param: 'granularity', message: "'granularity' must be one of: hour, day, week, month, total." }
  const groupBy = query.get('group_by')
  if (groupBy !== null && !['agent_id', 'channel', 'direction'].includes(groupBy))
    return { param: 'group_by', message: "'group_by' must be one of: agent_id, channel, direction." }
  const agent = query.get('agent_id')
  if (agent !== null && !/^agt_[A-Za-z0-9]{1,60}$/.test(agent))
    return { param: 'agent_id', message: '\'agent_id\' must match pattern "^agt_[A-Za-z0-9]+$".' }
  for (const name of ['start', 'end']) {
    const value = query.get(name)
    if (value !== null && (!RFC3339.test(value) || !Number.isFinite(Date.parse(value.toUpperCase()))))
      return { param: name, message: `${name}: '${value.slice(0, 40)}' is not an RFC 3339 timestamp.` }
  }
  const timezone = query.get('timezone')
  if (timezone !== null && !knownZone(timezone))
    return { param: 'timezone', message: `Unknown time zone '${timezone.slice(0, 64)}'.` }
  return undefined
}

export const faults: HeldOutFault[] = [
  // ------------------------------------------------------------------------------------------------- keys
  {
    name: 'bearer-token-split-on-single-space',
    kind: 'keys',
    what:
      'The key is read with `header.split(\' \')[1]`: an Authorization header with more than one space between `Bearer` and the key (`Bearer  sk-svc-...`) yields an empty token, and a valid key gets 401 "no API key provided". ' +
      'The platform\'s spec, Authentication: "The key is sent in the HTTP header `Authorization` with the scheme `Bearer`: `Authorization: Bearer <API_KEY>`"; RFC 6750 section 2.1: `credentials = "Bearer" 1*SP b64token` (one or more spaces); docs/decisions/002: "Only `Authorization: Bearer <key>` authenticates" (an empty token is 401, a key that is sent is not empty).',
    make: () => ({
      request(request) {
        const header = request.headers.authorization
        if (header === undefined || !/^bearer {2,}\S/i.test(header)) return request
        return { ...request, headers: { ...request.headers, authorization: 'Bearer ' } }
      },
    }),
  },
  {
    name: 'bearer-scheme-matched-case-sensitively',
    kind: 'keys',
    what:
      'The authentication middleware tests `header.startsWith(\'Bearer \')`: a header whose scheme is written in another case (`bearer sk-svc-...`, `BEARER ...`, as some HTTP clients and proxies send it) is refused with 401 "must use the Bearer scheme". ' +
      'docs/decisions/002: "Only `Authorization: Bearer <key>` authenticates; the scheme name may be written in any case"; contract, bearerAuth: "the scheme name `Bearer` is matched case-insensitively"; RFC 9110 section 11.1 (auth schemes are case-insensitive).',
    make: () => {
      const rewritten = new Map<EngineRequest, string>()
      return {
        request(request) {
          const match = /^\s*(\S+)(\s+\S.*)$/.exec(request.headers.authorization ?? '')
          const scheme = match?.[1]
          if (!match || scheme === undefined || scheme === 'Bearer' || scheme.toLowerCase() !== 'bearer')
            return request
          const sent = { ...request, headers: { ...request.headers, authorization: `Basic${match[2]}` } }
          rewritten.set(sent, scheme)
          return sent
        },
        response(response, request) {
          const scheme = rewritten.get(request)
          rewritten.delete(request)
          const error = errorOf(response)
          if (scheme !== undefined && response.status === 401 && error && typeof error.message === 'string')
            error.message = error.message.replace("'Basic'", `'${scheme.slice(0, 16)}'`)
          return response
        },
      }
    },
  },

  // ---------------------------------------------------------------------------------------------- headers
  {
    name: 'accept-list-answered-406',
    kind: 'headers',
    what:
      "The read routes negotiate with `if (accept && accept !== 'application/json' && accept !== '*/*') return 406`: a client whose Accept header lists several types (axios sends `application/json, text/plain, */*`) or gives JSON a parameter (`application/json; charset=utf-8`, `application/json;q=0.9`) gets 406 Not Acceptable with the framework's default body, although it accepts JSON. " +
      'Contract, Conventions: "**JSON only.** Request and response bodies are JSON objects (`application/json`, UTF-8)"; every GET documents its 200 (and no 406); RFC 9110 section 12.5.1 (a list and media-type parameters are part of Accept).',
    make: () => ({
      response(response, request) {
        const accept = request.headers.accept?.trim()
        if (!accept || !isRead(request) || !isV1(request) || !ok(response)) return response
        if (accept === 'application/json' || accept === '*/*') return response
        if (!/application\/json|application\/\*|\*\/\*/i.test(accept)) return response
        return answerWith(response, 406, {
          statusCode: 406,
          error: 'Not Acceptable',
          message: 'Not Acceptable',
        })
      },
    }),
  },
  {
    name: 'member-removal-answered-as-html',
    kind: 'headers',
    what:
      "DELETE /team-members/{member_id} answers with `res.send(JSON.stringify(result))`, and the framework labels a string body `text/html; charset=utf-8`: the removal's answer is JSON text served as HTML, which clients that parse by Content-Type do not read as JSON. " +
      'Contract, removeTeamMember: 200 `content: application/json` (schema DeletedObject); Conventions: "**JSON only.** Request and response bodies are JSON objects (`application/json`, UTF-8)"; docs/decisions/001: "Bodies are JSON".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'DELETE' || itemOf(pathOf(request))?.collection !== 'team-members')
          return response
        if (response.status !== 200) return response
        return {
          status: 200,
          headers: { ...response.headers, 'content-type': 'text/html; charset=utf-8' },
          body: JSON.stringify(response.body),
        }
      },
    }),
  },
  {
    name: 'x-ratelimit-reset-in-milliseconds-on-429',
    kind: 'headers',
    what:
      'The 429 handler writes `X-RateLimit-Reset` from `Date.now() + t * 1000`, in milliseconds, while the success path writes seconds: on a 429, and only there, the reset is a time some 55,000 years ahead. ' +
      'Contract, X-RateLimit-Reset header: "Unix time in whole seconds (current time + that window\'s `t`)"; docs/decisions/006: "`X-RateLimit-Reset` (epoch seconds)".',
    make: () => ({
      response(response) {
        const reset = Number(response.headers['x-ratelimit-reset'])
        if (response.status === 429 && Number.isFinite(reset))
          response.headers['x-ratelimit-reset'] = String(reset * 1000)
        return response
      },
    }),
  },
  {
    name: 'ratelimit-remaining-before-count-on-updates',
    kind: 'headers',
    what:
      'On the PATCH and DELETE routes the rate-limit header middleware is mounted before the limiter counts the request, so `r` (and `X-RateLimit-Remaining`) on their answers is what remained before this request: one more than what is left. ' +
      'Contract, RateLimit header: "`r` is what remains in the window after this request"; X-RateLimit-Remaining: "Requests remaining in that same window after this request"; docs/decisions/006: "`r` is what remains after this request".',
    make: () => ({
      response(response, request) {
        if ((request.method !== 'PATCH' && request.method !== 'DELETE') || !isV1(request)) return response
        if (response.status === 429) return response
        const windows = windowsByName(response.headers)
        const reset = Number(response.headers['x-ratelimit-reset'])
        if (!windows || !Number.isFinite(reset)) return response
        const now = reset - tightestOf(windows).t
        for (const window of windows) window.r = Math.min(window.q, window.r + 1)
        writeWindows(response.headers, windows, now)
        return response
      },
    }),
  },

  // ----------------------------------------------------------------------------------------------- errors
  {
    name: 'integration-json-errors-from-framework-handler',
    kind: 'errors',
    what:
      "The integrations routes are registered in a plugin scope of their own, without the platform's error handler: a PATCH /integrations/{integration_id} whose body does not parse as a JSON object gets the framework's default 400 body (`{statusCode, code: FST_ERR_CTP_INVALID_JSON_BODY, error: \"Bad Request\", message}`) instead of the platform's envelope with `invalid_json`. " +
      'Contract, Errors: "Every error uses one envelope, `{"error": {"type", "code", "message", "param"?, "request_id"?, ...}}`"; BadRequest: "`invalid_json`: the body is empty, not valid JSON, or not a JSON object"; docs/decisions/007: "One envelope for every error".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'PATCH' || itemOf(pathOf(request))?.collection !== 'integrations')
          return response
        const error = errorOf(response)
        if (response.status !== 400 || error?.code !== 'invalid_json') return response
        return answerWith(response, 400, {
          statusCode: 400,
          code: 'FST_ERR_CTP_INVALID_JSON_BODY',
          error: 'Bad Request',
          message: String(error.message),
        })
      },
    }),
  },
  {
    name: 'agent-body-limit-at-framework-default',
    kind: 'errors',
    what:
      "The agents router parses bodies with the JSON parser's default limit (100 KiB, `express.json()` without `{limit: '1mb'}`): a create or update of an agent whose body is over 102,400 bytes and well under 1 MiB (a long system prompt in a non-Latin script, metadata near its bounds) is refused with 413 and nothing is done. " +
      'Contract, PayloadTooLarge: "413 - the request body is larger than 1 MiB (1,048,576 bytes)"; Errors table: "`payload_too_large` (body over 1 MiB = 1,048,576 bytes)"; docs/decisions/007: "`payload_too_large` (a body over 1 MiB)".',
    make: () => {
      const refused = new Set<EngineRequest>()
      return {
        request(request) {
          const path = pathOf(request)
          const agents =
            (request.method === 'POST' && path === '/v1/agents') ||
            (request.method === 'PATCH' && itemOf(path)?.collection === 'agents')
          if (!agents || request.body === null || request.bodyTooLarge) return request
          const bytes = byteLength(request.body)
          if (bytes <= 102_400 || bytes > 1_048_576) return request
          const sent = { ...request, bodyTooLarge: true }
          refused.add(sent)
          return sent
        },
        response(response, request) {
          const wasRefused = refused.delete(request)
          const error = errorOf(response)
          if (wasRefused && response.status === 413 && error)
            error.message = 'request entity too large: the body exceeds the limit of 102400 bytes.'
          return response
        },
      }
    },
  },
  {
    name: 'analytics-query-validated-before-authentication',
    kind: 'errors',
    what:
      'The query schema of GET /analytics/calls is attached as application-level middleware ahead of the authentication middleware: a request with an invalid query (an unknown parameter, `granularity=daily`, an unknown time zone, a malformed bound) and a missing, invalid, revoked or expired key gets 400 invalid_parameter instead of 401. ' +
      'Contract, Order of checks: "1. **401** authentication ... 5. **400 / 413 / 415 / 400** malformed request ... query and header parameters"; docs/decisions/005: "401 authentication -> 429 rate limit -> 404 / 405 route -> 403 ... -> 400 malformed request"; the platform\'s spec, Errors: 401 when "the API key is missing, invalid or revoked".',
    make: () => ({
      response(response, request) {
        if (!isRead(request) || pathOf(request) !== ANALYTICS || response.status !== 401) return response
        const problem = analyticsQueryProblem(queryOf(request))
        if (!problem) return response
        const requestId = response.headers['request-id']
        return {
          status: 400,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            ...(requestId ? { 'request-id': requestId } : {}),
          },
          body: {
            error: {
              type: 'invalid_request_error',
              code: 'invalid_parameter',
              message: problem.message,
              param: problem.param,
              ...(requestId ? { request_id: requestId } : {}),
            },
          },
        }
      },
    }),
  },
  {
    name: 'method-override-header-honoured',
    kind: 'errors',
    what:
      'The method-override middleware (installed for HTML forms) is mounted on the API too: a POST with `X-HTTP-Method-Override: DELETE` (or PATCH, PUT, GET) is routed as that method, so a POST to /agents/{agent_id} or /team-members/{member_id} deletes or changes the object instead of being refused with 405. ' +
      'docs/decisions/001: "A documented path called with an undocumented method is 405 with an `Allow` header"; contract, MethodNotAllowed: "405 - the path exists but not with this method"; Order of checks: "known path, undocumented method -> 405 with `Allow`".',
    make: () => ({
      request(request) {
        const override = request.headers['x-http-method-override']?.trim().toUpperCase()
        if (request.method !== 'POST' || !isV1(request) || !override) return request
        if (!['GET', 'PATCH', 'DELETE', 'PUT'].includes(override)) return request
        const headers = { ...request.headers }
        delete headers['x-http-method-override']
        return { ...request, method: override, headers }
      },
    }),
  },
  {
    name: 'percent-encoded-path-ids-not-decoded',
    kind: 'errors',
    what:
      'The router matches path parameters on the raw request path and hands them over undecoded: an ID sent percent-encoded (`/agents/agt%5F8fK2...`, `/integrations/google%5Fcalendar`, as URL builders that encode every `_` send it) is looked up as written, and an existing object answers 404 resource_not_found (GET, PATCH and DELETE alike). ' +
      'RFC 3986 sections 2.3 and 6.2.2.2: percent-encoded unreserved characters are equivalent to the characters themselves ("should be decoded"); contract, getAgent / getIntegration / getTeamMember / getCallLog: 404 only for "an unknown ID, an ID of another account, or an ID of a deleted agent" (a slug outside the catalog); NotFound: "the path ID does not exist in the key\'s account".',
    make: () => ({
      request(request) {
        const url = urlOf(request)
        const match = ITEM_PATH.exec(url.pathname)
        const segment = match?.[2]
        if (!match || segment === undefined || !segment.includes('%')) return request
        const raw = segment.replace(/%/g, '%25')
        return { ...request, url: `/v1/${match[1]}/${raw}${match[3]}${url.search}` }
      },
    }),
  },

  // ------------------------------------------------------------------------------------------- validation
  {
    name: 'call-log-enum-filters-case-insensitive',
    kind: 'validation',
    what:
      'The `status` and `direction` filters of GET /call-logs are compared in a case-insensitive column (citext / `ILIKE`), and the query schema declares them as plain strings: `status=COMPLETED` or `direction=Inbound` is accepted and filters as its lower-case value instead of being refused. ' +
      'Contract, listCallLogs: "A filter value of the wrong shape ... is 400 `invalid_parameter`", parameters `status` (CallStatus: `queued`, ..., `canceled`) and `direction` (CallDirection: `inbound`, `outbound`); BadRequest: "a query or header parameter is unknown, of the wrong type or out of range".',
    make: () => ({
      request(request) {
        if (!isRead(request) || pathOf(request) !== '/v1/call-logs') return request
        const query = queryOf(request)
        const folded: [string, string][] = []
        for (const [name, values] of [
          ['status', CALL_STATUSES],
          ['direction', DIRECTIONS],
        ] as const) {
          const value = single(query, name)
          if (value !== undefined && value !== value.toLowerCase() && values.includes(value.toLowerCase()))
            folded.push([name, value.toLowerCase()])
        }
        if (folded.length === 0) return request
        return withQuery(request, (q) => {
          for (const [name, value] of folded) q.set(name, value)
        })
      },
    }),
  },
  {
    name: 'item-reads-ignore-unknown-query-parameters',
    kind: 'validation',
    what:
      'Query schemas are declared on the list routes only, and the framework ignores parameters no schema names: GET /user and the item reads (GET /agents/{agent_id}, /call-logs/{call_log_id}, /integrations/{integration_id}, /team-members/{member_id}) answer 200 to `?expand=voice`, `?fields=email` or a misspelt parameter instead of 400. ' +
      'Contract, Lists and pagination: "Unknown query parameters are rejected on every operation with 400 `invalid_parameter` (`error.param` names it)"; BadRequest: "`invalid_parameter`: a query or header parameter is unknown".',
    make: () => ({
      request(request) {
        if (!isRead(request) || request.headers.authorization === undefined) return request
        const url = urlOf(request)
        if (url.search === '' || (url.pathname !== '/v1/user' && !ITEM_PATH.test(url.pathname)))
          return request
        return { ...request, url: url.pathname }
      },
    }),
  },
  {
    name: 'float-written-integers-refused',
    kind: 'validation',
    what:
      'Agent bodies are decoded into a struct with integer fields by a decoder that refuses a number token with a fraction or an exponent: `max_call_duration_seconds: 600.0` or `llm.max_tokens: 1e3` (what JSON writers in some languages produce for whole numbers) is 422 type on create and update, although it is a whole number. ' +
      'Contract: `jsonSchemaDialect` 2020-12 and AgentCreateRequest / AgentUpdateRequest `max_call_duration_seconds: {type: integer}`, LlmInput / LlmUpdate `max_tokens: {type: integer}`; JSON Schema 2020-12 (core, section 4.2.1): "integer" matches "any number with a zero fractional part", and 1.0 and 1 are the same JSON value.',
    make: () => ({
      request(request) {
        const path = pathOf(request)
        const agents =
          (request.method === 'POST' && path === '/v1/agents') ||
          (request.method === 'PATCH' && itemOf(path)?.collection === 'agents')
        if (!agents || request.body === null) return request
        const body = jsonOf(request)
        if (!isObject(body)) return request
        let changed = false
        for (const match of request.body.matchAll(
          /"(max_call_duration_seconds|max_tokens)"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g,
        )) {
          const [, field, token = ''] = match
          if (/^-?\d+$/.test(token) || !Number.isInteger(Number(token))) continue
          if (field === 'max_call_duration_seconds' && typeof body.max_call_duration_seconds === 'number') {
            body.max_call_duration_seconds = token
            changed = true
          }
          if (field === 'max_tokens' && isObject(body.llm) && typeof body.llm.max_tokens === 'number') {
            body.llm.max_tokens = token
            changed = true
          }
        }
        return changed ? withJson(request, body) : request
      },
    }),
  },
  {
    name: 'string-false-turns-integration-on',
    kind: 'validation',
    what:
      'PATCH /integrations/{integration_id} reads `enabled` with `Boolean(body.enabled)`: a string is accepted instead of refused, and any non-empty string, `"false"` and `"0"` included, switches the integration on. ' +
      'Contract, IntegrationUpdateRequest: `enabled: {type: boolean}`; UnprocessableEntity: "the body is a JSON object but breaks the schema"; FieldError code `type` ("wrong JSON type"); updateIntegration: "`enabled` switches the integration on or off".',
    make: () => ({
      request(request) {
        if (request.method !== 'PATCH' || itemOf(pathOf(request))?.collection !== 'integrations')
          return request
        const body = jsonOf(request)
        if (!isObject(body) || typeof body.enabled !== 'string') return request
        return withJson(request, { ...body, enabled: Boolean(body.enabled) })
      },
    }),
  },
  {
    name: 'null-ignored-on-agent-update',
    kind: 'validation',
    what:
      'PATCH /agents/{agent_id} dumps its update model with `exclude_none=True` (meant to leave out the fields not sent), which also drops the fields sent as `null`: `description: null` or `first_message: null` clears nothing (the old text stays), and a body holding only such fields is 422 min_properties. ' +
      'Contract, updateAgent: "Nullable fields (`description`, `first_message`, `webhook_url`) are cleared with `null`"; AgentUpdateRequest: "`null` clears `description`, `first_message` and `webhook_url`"; docs/decisions/009: "PATCH (partial; `null` clears a nullable field)".',
    make: () => ({
      request(request) {
        if (request.method !== 'PATCH' || itemOf(pathOf(request))?.collection !== 'agents') return request
        const body = jsonOf(request)
        if (!isObject(body)) return request
        const kept: Json = {}
        let dropped = false
        for (const [field, value] of Object.entries(body))
          if (value === null && (field === 'description' || field === 'first_message')) dropped = true
          else kept[field] = value
        return dropped ? withJson(request, kept) : request
      },
    }),
  },
  {
    name: 'long-system-prompt-truncated',
    kind: 'validation',
    what:
      'The agents table keeps `system_prompt` in a VARCHAR(10000) column and the database runs without strict mode, so a longer value is cut with a warning: a system prompt of 10,001 to 20,000 characters is stored, answered and read back cut to its first 10,000 characters, with a 200 or 201. ' +
      'Contract, Agent / AgentCreateRequest / AgentUpdateRequest: `system_prompt: {type: string, maxLength: 20000}`; updateAgent: "Only the fields sent change ... every other field ... **replaces** the stored value as a whole".',
    make: () => ({
      request(request) {
        const path = pathOf(request)
        const agents =
          (request.method === 'POST' && path === '/v1/agents') ||
          (request.method === 'PATCH' && itemOf(path)?.collection === 'agents')
        if (!agents) return request
        const body = jsonOf(request)
        if (!isObject(body) || typeof body.system_prompt !== 'string') return request
        const characters = Array.from(body.system_prompt)
        if (characters.length <= 10_000 || characters.length > 20_000) return request
        return withJson(request, { ...body, system_prompt: characters.slice(0, 10_000).join('') })
      },
    }),
  },
  {
    name: 'astral-characters-lost-in-member-names',
    kind: 'validation',
    what:
      "The team_members table was created with MySQL's `utf8` (3-byte utf8mb3) character set: a name with characters outside the Basic Multilingual Plane (emoji, some CJK and historic scripts) is stored, and answered, with each such character replaced by `?`. " +
      'Contract, Conventions: "Request and response bodies are JSON objects (`application/json`, UTF-8)"; TeamMemberInviteRequest: `name: {type: string, minLength: 1, maxLength: 100}`; TeamMember.name: "Display name".',
    make: () => ({
      request(request) {
        if (request.method !== 'POST' || pathOf(request) !== '/v1/team-members') return request
        const body = jsonOf(request)
        if (!isObject(body) || typeof body.name !== 'string') return request
        const name = body.name.replace(/[\u{10000}-\u{10FFFF}]/gu, '?')
        return name === body.name ? request : withJson(request, { ...body, name })
      },
    }),
  },
  {
    name: 'gmail-addresses-normalized',
    kind: 'validation',
    what:
      'The invitation validator runs `normalizeEmail()` with its defaults: for gmail.com and googlemail.com addresses it removes the dots and the `+tag` of the local part and rewrites the domain, so `Jo.Doe+ops@googlemail.com` is stored and answered as `jodoe@gmail.com`, and inviting `jo.doe@gmail.com` after `jodoe@gmail.com` is 409 member_already_exists. ' +
      'Contract, inviteTeamMember: "The e-mail address is stored lower-cased; if any member or pending invitation of the account already has it (case-insensitive), the answer is 409 `member_already_exists`"; TeamMember: "E-mail addresses are unique per account (case-insensitive) and stored lower-cased".',
    make: () => ({
      request(request) {
        if (request.method !== 'POST' || pathOf(request) !== '/v1/team-members') return request
        const body = jsonOf(request)
        if (!isObject(body) || typeof body.email !== 'string') return request
        const match = /^([^@\s]+)@(gmail\.com|googlemail\.com)$/i.exec(body.email)
        if (!match) return request
        const local = (match[1] as string).split('+')[0]?.replace(/\./g, '').toLowerCase() ?? ''
        if (local === '') return request
        const email = `${local}@gmail.com`
        return email === body.email ? request : withJson(request, { ...body, email })
      },
    }),
  },

  // ------------------------------------------------------------------------------------------------- pages
  {
    name: 'empty-team-limit-means-default',
    kind: 'pages',
    what:
      'GET /team-members reads its page size with `query.limit ? Number(query.limit) : 20`: an empty value (`?limit=`, as a form or a URL template with an unset variable sends it) is taken as absent and the default page of 20 is listed instead of 400 invalid_parameter. ' +
      'Contract, parameter Limit: "Maximum number of objects to return, 1-100 (default 20). Out of range or not an integer is 400 `invalid_parameter`" (the default applies when `limit` is absent); Conventions: "Numbers in query parameters are written as JSON writes them, in decimal digits".',
    make: () => ({
      request(request) {
        if (!isRead(request) || pathOf(request) !== '/v1/team-members') return request
        const values = queryOf(request).getAll('limit')
        if (values.length !== 1 || values[0] !== '') return request
        return withQuery(request, (q) => q.delete('limit'))
      },
    }),
  },

  // ------------------------------------------------------------------------------------------------- order
  {
    name: 'team-page-after-cursor-in-id-order',
    kind: 'order',
    what:
      "The cursor path of GET /team-members loads the page's member IDs and then hydrates them with `WHERE id IN (...)`, a query without ORDER BY: the ORM's default ordering by primary key shows through, and a page asked with `starting_after` comes in ascending ID order (random with respect to age) instead of newest first. " +
      'Contract, listTeamMembers: "newest first (`created_at` descending, then `id` descending)"; Lists and pagination: "`starting_after=<id>` returns the objects after that one in this order (older)"; docs/decisions/008: "Objects come newest first by `created_at`, then by `id`".',
    make: () => ({
      response(response, request) {
        if (!isRead(request) || pathOf(request) !== '/v1/team-members' || response.status !== 200)
          return response
        if (!queryOf(request).has('starting_after') || !isObject(response.body)) return response
        const data = response.body.data
        if (Array.isArray(data))
          data.sort((a, b) => {
            const left = isObject(a) ? String(a.id) : ''
            const right = isObject(b) ? String(b.id) : ''
            return left < right ? -1 : left > right ? 1 : 0
          })
        return response
      },
    }),
  },

  // -------------------------------------------------------------------------------------------------- time
  {
    name: 'newer-time-zone-names-refused',
    kind: 'time',
    what:
      'Analytics buckets are computed with a date library that bundles its own copy of the IANA time-zone database, frozen at release 2020a: zones added since (`Europe/Kyiv`, `Pacific/Kanton`, `America/Ciudad_Juarez`) are unknown to it, and GET /analytics/calls with one of them is 400 invalid_parameter naming `timezone`. ' +
      'Contract, getCallAnalytics parameter timezone: "IANA time zone name used to align `day`, `week` and `month` buckets ... Unknown names are 400 `invalid_parameter`" (these names are in the current IANA database); docs/decisions/009: analytics takes `timezone`.',
    make: () => ({
      response(response, request) {
        if (!isRead(request) || pathOf(request) !== ANALYTICS || response.status !== 200) return response
        const timezone = single(queryOf(request), 'timezone')
        if (timezone === undefined || !NEWER_ZONES.has(timezone)) return response
        return invalidParameter(response, 'timezone', `Unknown time zone '${timezone}'.`)
      },
    }),
  },
  {
    name: 'lowercase-timestamp-letters-refused',
    kind: 'time',
    what:
      'The `started_after` and `started_before` filters of GET /call-logs are parsed with a strict layout (`2006-01-02T15:04:05Z07:00`) that takes only an upper-case `T` and `Z`: `2026-03-01t00:00:00z` is 400 invalid_parameter although RFC 3339 allows the letters in either case. ' +
      'Contract, Conventions: "Timestamps *sent* in query parameters may carry any RFC 3339 offset and a fraction of a second (`T`/`Z` in either case); they are compared as the instants they name"; RFC 3339 section 5.6 (NOTE: "T" and "Z" may alternatively be lower case).',
    make: () => ({
      response(response, request) {
        if (!isRead(request) || pathOf(request) !== '/v1/call-logs' || response.status !== 200)
          return response
        const query = queryOf(request)
        for (const name of ['started_after', 'started_before']) {
          const value = single(query, name)
          if (value !== undefined && /^\d{4}-\d{2}-\d{2}t|z$/.test(value))
            return invalidParameter(
              response,
              name,
              `${name}: '${value.slice(0, 40)}' is not an RFC 3339 timestamp like 2026-03-01T00:00:00Z.`,
            )
        }
        return response
      },
    }),
  },
  {
    name: 'connected-at-written-with-utc-offset',
    kind: 'time',
    what:
      "The code path that stores an integration's credentials stamps `connected_at` with `datetime.now(timezone.utc).isoformat()`: an integration connected (or re-connected) through the API shows `connected_at` as `2026-03-10T12:00:00+00:00` in the PATCH answer and in every later read, while every other timestamp ends in `Z`. " +
      'Contract, Timestamp: "ISO 8601 / RFC 3339 UTC timestamp with `Z`, with or without fractional seconds" (pattern ending in `Z$`); Conventions: "**Timestamps** are ISO 8601 / RFC 3339 in UTC with a `Z` suffix"; docs/decisions/001: "timestamps ISO 8601 in UTC with `Z`"; docs/decisions/011 allows fractional seconds, not another suffix.',
    make: () => {
      const stamped = new Set<string>()
      const isoformat = (stamp: string) => stamp.replace(/(\.\d+)?Z$/, '+00:00')
      return {
        response(response, request) {
          const path = pathOf(request)
          if (path === '/_mock/reset' && ok(response)) stamped.clear()
          if (!path.startsWith('/v1/integrations') || !ok(response)) return response
          const body = jsonOf(request)
          if (
            request.method === 'PATCH' &&
            isObject(body) &&
            isObject(body.credentials) &&
            isObject(response.body) &&
            typeof response.body.connected_at === 'string'
          )
            stamped.add(`${String(response.body.id)}\n${response.body.connected_at}`)
          for (const integration of objectsOf(response))
            if (
              typeof integration.connected_at === 'string' &&
              stamped.has(`${String(integration.id)}\n${integration.connected_at}`)
            )
              integration.connected_at = isoformat(integration.connected_at)
          return response
        },
      }
    },
  },

  // --------------------------------------------------------------------------------------------- relations
  {
    name: 'group-avg-duration-integer-division',
    kind: 'relations',
    what:
      "With `group_by`, GET /analytics/calls computes each group's average in SQL as `SUM(duration_seconds) / COUNT(*) FILTER (WHERE status = 'completed')` over integer columns: integer division, so the groups' `avg_duration_seconds` (totals and every bucket) is cut to a whole number (61.73 becomes 61) while the top-level figures are right. " +
      'Contract, getCallAnalytics: "`avg_duration_seconds` = `total_duration_seconds / completed_count` (rounded to 2 decimals)"; AnalyticsMetrics.avg_duration_seconds: "`total_duration_seconds / completed_count`, 2 decimals"; getCallAnalytics, Grouping: "each with its own `totals` and `series`".',
    make: () => {
      const truncate = (metrics: unknown) => {
        if (!isObject(metrics)) return
        const completed = Number(metrics.completed_count)
        const total = Number(metrics.total_duration_seconds)
        if (completed > 0 && Number.isFinite(total))
          metrics.avg_duration_seconds = Math.trunc(total / completed)
      }
      return {
        response(response, request) {
          if (!isRead(request) || pathOf(request) !== ANALYTICS || response.status !== 200) return response
          if (!isObject(response.body) || !Array.isArray(response.body.groups)) return response
          for (const group of response.body.groups) {
            if (!isObject(group)) continue
            truncate(group.totals)
            if (Array.isArray(group.series))
              for (const bucket of group.series) if (isObject(bucket)) truncate(bucket.metrics)
          }
          return response
        },
      }
    },
  },
  {
    name: 'hourly-cost-in-single-precision',
    kind: 'relations',
    what:
      "The hourly roll-up table keeps `total_cost_usd` in a `real` (4-byte float) column: with `granularity=hour`, every bucket's `total_cost_usd` comes back as a single-precision value (0.4218 as 0.42179998755455017) and the totals, summed from those buckets in floating point, carry the error too, so neither has at most 4 decimals, and the totals are no longer the exact sum of the calls' costs. " +
      'Contract, getCallAnalytics: "Every count and every total ... summed over `series` equals the same field of `totals` exactly (costs have at most 4 decimals and sums are rounded to 4 decimals)"; AnalyticsMetrics.total_cost_usd: "Sum of `cost_usd` of completed calls, 4 decimals".',
    make: () => ({
      response(response, request) {
        if (!isRead(request) || pathOf(request) !== ANALYTICS || response.status !== 200) return response
        if (single(queryOf(request), 'granularity') !== 'hour' || !isObject(response.body)) return response
        const { series, totals } = response.body
        if (!Array.isArray(series) || !isObject(totals)) return response
        let sum = 0
        for (const bucket of series) {
          if (!isObject(bucket) || !isObject(bucket.metrics)) continue
          const cost = Math.fround(Number(bucket.metrics.total_cost_usd))
          bucket.metrics.total_cost_usd = cost
          sum += cost
        }
        totals.total_cost_usd = sum
        return response
      },
    }),
  },
  {
    name: 'unended-call-log-omits-null-fields',
    kind: 'relations',
    what:
      'GET /call-logs/{call_log_id} of a call still under way (queued, ringing, in progress) is served from the live-call cache, whose serializer leaves out the fields not yet set: `ended_at`, `duration_seconds`, `cost_usd`, `end_reason`, `recording_url` and `analysis` (and `started_at` while queued) are missing instead of `null`. ' +
      'Contract, Conventions: "**Nullability.** A field that is listed as `required` is always present; a nullable field is present with `null` rather than omitted"; CallLog: all of these are `required`; CallLogSummary: "All four of `ended_at`, `duration_seconds`, `cost_usd` and `end_reason` are `null` while the call is not final".',
    make: () => ({
      response(response, request) {
        if (!isRead(request) || itemOf(pathOf(request))?.collection !== 'call-logs') return response
        if (response.status !== 200 || !isObject(response.body)) return response
        const log = response.body
        if (!UNDER_WAY.has(String(log.status))) return response
        for (const [field, value] of Object.entries(log)) if (value === null) delete log[field]
        return response
      },
    }),
  },
  {
    name: 'member-update-answer-in-camel-case',
    kind: 'relations',
    what:
      'PATCH /team-members/{member_id} returns the ORM entity as it is instead of passing it through the API serializer (the other team-member routes do): its answer carries `invitedAt`, `joinedAt` and `createdAt` in place of `invited_at`, `joined_at` and `created_at`. ' +
      'Contract, Conventions: "Field names are `snake_case`"; updateTeamMember: 200 with schema TeamMember (`required: [id, object, email, name, role, status, invited_at, joined_at, created_at]`, `additionalProperties: false`); docs/decisions/001: "field names in snake_case".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'PATCH' || itemOf(pathOf(request))?.collection !== 'team-members')
          return response
        if (response.status !== 200 || !isObject(response.body)) return response
        const renamed: Json = {}
        for (const [field, value] of Object.entries(response.body))
          renamed[field.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())] = value
        response.body = renamed
        return response
      },
    }),
  },
  {
    name: 'same-role-patch-answers-204',
    kind: 'relations',
    what:
      'PATCH /team-members/{member_id} runs `UPDATE ... SET role = ? WHERE id = ? AND role <> ?` and answers 204 No Content, without the member, when no row changed: setting the role a member (or invitation) already has gets an empty 204 instead of 200 with the member. ' +
      'Contract, updateTeamMember: "Setting the role a member already has succeeds and changes nothing", and its success answer is `200` with schema TeamMember (no 204 is documented).',
    make: () => {
      const roles = new Map<string, unknown>()
      return {
        response(response, request) {
          const path = pathOf(request)
          if (!path.startsWith('/v1/team-members') || !ok(response)) return response
          const item = itemOf(path)
          if (request.method === 'PATCH' && item && response.status === 200) {
            const body = jsonOf(request)
            const before = roles.get(item.id)
            if (isObject(body) && before !== undefined && body.role === before)
              return { status: 204, headers: ownHeaders(response), body: undefined }
          }
          for (const member of objectsOf(response))
            if (member.object === 'team_member' && typeof member.id === 'string')
              roles.set(member.id, member.role)
          return response
        },
      }
    },
  },
  {
    name: 'patched-voice-speed-in-single-precision',
    kind: 'relations',
    what:
      'The update DTO of PATCH /agents/{agent_id} declares `voice.speed` as a 32-bit float (the create DTO uses a 64-bit one): a speed set by a PATCH is rounded to single precision before it is stored, so `speed: 1.05` is answered and read back (by ID and in lists) as 1.0499999523162842. ' +
      'Contract, updateAgent: "`voice` and `llm` are **merged** field by field into the stored objects"; VoiceUpdate / Voice: `speed: {type: number, minimum: 0.5, maximum: 2}` (the number sent is the number stored); docs/decisions/009: "PATCH (partial ...)".',
    make: () => {
      const rounded = new Map<string, { exact: number; shown: number }>()
      return {
        response(response, request) {
          const path = pathOf(request)
          if (!path.startsWith('/v1/agents') || !ok(response)) return response
          const item = itemOf(path)
          if (item && request.method === 'DELETE') rounded.delete(item.id)
          if (item && request.method === 'PATCH') {
            const body = jsonOf(request)
            const speed = isObject(body) && isObject(body.voice) ? body.voice.speed : undefined
            if (typeof speed === 'number')
              if (Math.fround(speed) !== speed)
                rounded.set(item.id, { exact: speed, shown: Math.fround(speed) })
              else rounded.delete(item.id)
          }
          for (const agent of objectsOf(response)) {
            const entry = typeof agent.id === 'string' ? rounded.get(agent.id) : undefined
            if (
              entry &&
              agent.object === 'agent' &&
              isObject(agent.voice) &&
              agent.voice.speed === entry.exact
            )
              agent.voice.speed = entry.shown
          }
          return response
        },
      }
    },
  },
]
