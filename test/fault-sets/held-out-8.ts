/**
 * Held-out fault set 8: thirty faults of the kind implementers of the platform's v1 API really ship, written blind to
 * the contract suite: neither its checks, nor its exploration, nor its tests, nor its documentation, nor the
 * held-out-3 list were read, and the suite was never run. held-out-4 to held-out-7 were read for their format only,
 * and so as not to repeat their faults (every fault here breaks another rule, on another operation, or in another
 * situation). The sources were the platform's spec, the product decisions (the repository's own record of them is
 * `docs/decisions/`), the contract (`openapi/v1.yaml`, `openapi/mock-control.yaml`) and the mock engine (the correct
 * implementation every fault wraps). Each fault wraps the correct engine (`faultyHandler`): it rewrites a request
 * before the engine sees it (another query, another key of the same account, an input the engine refuses the way
 * the faulty platform refuses the original, a harmless read in place of a write it must not carry out), or rewrites
 * or replaces the engine's answer, keeping what it needs to remember in the closure `make()` returns (keys and
 * accounts seen through the control plane, objects seen in answers, calls started there, the mock clock as the
 * answers show it, its own caches).
 *
 * The theme is breadth: every operation and every rule gets a fault or two (the user, agents, call logs and their
 * filters, analytics and each of its parameters, integrations, team members, key scopes and restrictions, both
 * rate-limit windows and their headers, idempotency, the error envelope and its codes, content types, CORS,
 * pagination, body validation, the order of checks), each the kind of slip that reaches production: an off-by-one
 * at a boundary, a check made on the wrong field, a cache or a replica that goes stale, a header computed from the
 * wrong window, a default copied from another provider, a guard forgotten on a sibling operation, an error of the
 * right status with the wrong code, a time-zone offset dropped. Every fault deviates from the platform's spec, the
 * contract or a decision (cited in `what`), in specific situations only (ordinary traffic, the first reads of every
 * endpoint and a create and a read, is unchanged), and never where the spec leaves a choice open
 * (docs/decisions/011-allowed-forms.md). Liveness: `scripts/fault-sets/held-out-8-live.ts`.
 */
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'
import { ClockWatch, type KeyInfo } from './fault-books.ts'
import {
  emptyMetrics,
  errorOf,
  hasScope,
  ITEM_PATH,
  instantOf,
  isObject,
  isV1,
  type Json,
  jsonOf,
  neutralRead,
  nowSecondsOf,
  ok,
  pathOf,
  queryOf,
  single,
  tightest as tightestOf,
  tokenOf,
  toTimestamp,
  windowsByName,
  withHeader,
  withJson,
  withQuery,
  withToken,
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

const listOf = (response: EngineResponse): Json[] | undefined =>
  isObject(response.body) && Array.isArray(response.body.data) ? (response.body.data as Json[]) : undefined

/** The objects of an answer: the items of a list, or the answer's own object. */
const objectsOf = (response: EngineResponse): Json[] =>
  listOf(response) ?? (isObject(response.body) ? [response.body] : [])

/** The headers an answer owes to this request: its Request-Id and the rate-limit fields. */
function ownHeaders(current: EngineResponse): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(current.headers))
    if (name === 'request-id' || name.startsWith('ratelimit') || name.startsWith('x-ratelimit'))
      headers[name] = value
  return headers
}

/** An error answer in the platform's envelope, built on the engine's answer (its Request-Id and rate-limit headers). */
function errorAnswer(base: EngineResponse, status: number, error: Json): EngineResponse {
  const requestId = base.headers['request-id']
  return {
    status,
    headers: { ...ownHeaders(base), 'content-type': 'application/json; charset=utf-8' },
    body: { error: { ...error, ...(requestId ? { request_id: requestId } : {}) } },
  }
}

const ANALYTICS = '/v1/analytics/calls'
const LISTS = ['/v1/agents', '/v1/call-logs', '/v1/team-members']
const SENSITIVE = ['system_prompt', 'webhook_url', 'metadata']

/** The collection and ID of an item path, the ID decoded as the router decodes it. */
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

/** The path without one trailing slash (the router takes both). */
const routePath = (path: string) => (path.length > 4 && path.endsWith('/') ? path.slice(0, -1) : path)

const COLLECTION_METHODS: Record<string, string[]> = {
  '/v1/user': ['GET', 'HEAD'],
  '/v1/agents': ['GET', 'HEAD', 'POST'],
  '/v1/call-logs': ['GET', 'HEAD'],
  [ANALYTICS]: ['GET', 'HEAD'],
  '/v1/integrations': ['GET', 'HEAD'],
  '/v1/team-members': ['GET', 'HEAD', 'POST'],
}
const ITEM_METHODS: Record<string, string[]> = {
  agents: ['GET', 'HEAD', 'PATCH', 'DELETE'],
  'call-logs': ['GET', 'HEAD', 'DELETE'],
  integrations: ['GET', 'HEAD', 'PATCH'],
  'team-members': ['GET', 'HEAD', 'PATCH', 'DELETE'],
}

/** The methods the contract documents for a v1 path, or undefined for a path it does not have. */
function methodsOf(path: string): string[] | undefined {
  const route = routePath(path)
  const item = itemOf(route)
  return item ? ITEM_METHODS[item.collection] : COLLECTION_METHODS[route]
}

/** An RFC 3339 timestamp as the contract takes it in a query (any offset, optional fraction). */
const RFC3339 = /^(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?)([Zz]|[+-]\d{2}:\d{2})$/

const HOUR_MS = 3_600_000

// ------------------------------------------------------------------------ rate-limit headers, and the clock

// ---------------------------------------------------------------------------------------- what a fault learns

const unrestricted = (info: KeyInfo) =>
  info.restrictions.allowed_ips.length === 0 &&
  info.restrictions.allowed_origins.length === 0 &&
  info.restrictions.expires_at === null

/**
 * The keys made through the control plane (whose 201 shows a key's value once), the keys revoked there, and the
 * account each other token answered `GET /v1/user` for. A token never seen otherwise counts as an account of its own.
 */
class KeyBook {
  private byToken = new Map<string, KeyInfo>()
  private byId = new Map<string, KeyInfo>()
  private users = new Map<string, string>()

  observe(request: EngineRequest, response: EngineResponse): void {
    const path = pathOf(request)
    if (path === '/v1/user' && response.status === 200 && isObject(response.body)) {
      const token = tokenOf(request)
      if (token && typeof response.body.id === 'string') this.users.set(token, response.body.id)
      return
    }
    if (!path.startsWith('/_mock/') || request.method === 'GET') return
    if (path === '/_mock/reset' && response.status < 300) {
      this.byToken.clear()
      this.byId.clear()
      this.users.clear()
      return
    }
    if (/^\/_mock\/accounts\/[^/]+\/keys$/.test(path) && response.status === 201 && isObject(response.body)) {
      const body = response.body
      if (typeof body.value !== 'string') return
      const info: KeyInfo = {
        id: String(body.id),
        account: String(body.account_id),
        type: String(body.type),
        permissions: Array.isArray(body.permissions) ? (body.permissions as string[]) : [],
        restrictions: {
          allowed_ips: [],
          allowed_origins: [],
          expires_at: null,
          ...(isObject(body.restrictions) ? (body.restrictions as Partial<KeyInfo['restrictions']>) : {}),
        },
        revoked: false,
      }
      this.byToken.set(body.value, info)
      this.byId.set(info.id, info)
      return
    }
    const revoke = /^\/_mock\/keys\/([^/]+)\/revoke$/.exec(path)
    if (revoke && response.status === 200) {
      const info = this.byId.get(revoke[1] as string)
      if (info) info.revoked = true
    }
  }

  info(token: string | undefined): KeyInfo | undefined {
    return token ? this.byToken.get(token) : undefined
  }

  account(token: string | undefined): string {
    return this.info(token)?.account ?? (token ? this.users.get(token) : undefined) ?? `token:${token ?? ''}`
  }

  /** An active, unrestricted secret key of `account` holding every scope of `scopes`, as its token. */
  find(account: string, scopes: string[]): string | undefined {
    for (const [token, info] of this.byToken)
      if (
        info.account === account &&
        !info.revoked &&
        info.type === 'secret' &&
        unrestricted(info) &&
        scopes.every((scope) => hasScope(info.permissions, scope))
      )
        return token
    return undefined
  }
}

/** Overrides of fields of objects (by ID) that the faulty platform stored differently from the engine. */
class Overrides {
  private fields = new Map<string, Json>()

  set(id: string, field: string, value: unknown): void {
    this.fields.set(id, { ...(this.fields.get(id) ?? {}), [field]: value })
  }

  forget(id: string, field?: string): void {
    if (field === undefined) {
      this.fields.delete(id)
      return
    }
    const kept = this.fields.get(id)
    if (kept) delete kept[field]
  }

  get(id: string): Json | undefined {
    return this.fields.get(id)
  }

  /** Applies the overrides to every object of the answer; `write` sets one field of one object. */
  apply(response: EngineResponse, write: (object: Json, field: string, value: unknown) => void): void {
    for (const object of objectsOf(response)) {
      const kept = typeof object.id === 'string' ? this.fields.get(object.id) : undefined
      if (kept) for (const [field, value] of Object.entries(kept)) write(object, field, value)
    }
  }
}

// ---------------------------------------------------------------------------------------- analytics parts

const GROUP_VALUES: Record<string, string[]> = {
  direction: ['inbound', 'outbound'],
  channel: ['phone', 'web'],
}

// ------------------------------------------------------------------------------------------------- faults

export const faults: HeldOutFault[] = [
  // ------------------------------------------------------------------------------------------------ keys
  {
    name: 'user-guarded-by-agents-read',
    kind: 'keys',
    what:
      'GET /user is mounted behind the guard of the Read group\'s "view" capability, agents:read: a key that holds no agents scope (a reporting key with only call_logs:read and analytics:read, a team-admin key, a key made with `permissions: []`) gets 403 insufficient_permissions naming agents:read instead of its user. ' +
      'Contract, getUser: "Needs only a valid key of either type, no scope (`x-required-permission: []`)"; docs/decisions/004: "`GET /user` needs only a valid key"; spec, Endpoints: "GET /user returns user information when the key is valid".',
    make: () => {
      const keys = new KeyBook()
      return {
        response(response, request) {
          keys.observe(request, response)
          if (
            request.method !== 'GET' ||
            routePath(pathOf(request)) !== '/v1/user' ||
            response.status !== 200
          )
            return response
          const info = keys.info(tokenOf(request))
          if (!info || hasScope(info.permissions, 'agents:read')) return response
          return errorAnswer(response, 403, {
            type: 'permission_error',
            code: 'insufficient_permissions',
            message: "This API key lacks the permission 'agents:read' required for this request.",
            required_permission: 'agents:read',
          })
        },
      }
    },
  },
  {
    name: 'read-only-secret-key-treated-as-publishable',
    kind: 'keys',
    what:
      "Whether to hide the sensitive agent fields is decided from the key's scopes rather than its type (`key.permissions equals PUBLISHABLE_SCOPES`): a secret key created with only agents:read (a dashboard widget's server key) gets agents without system_prompt, webhook_url and metadata, in lists and by ID. " +
      'Contract, listAgents: "Responses to a **publishable** key omit the sensitive fields ...; responses to a secret key always include them"; Agent: "present in every response to a secret key and **omitted** in responses to a publishable key"; docs/decisions/004: sensitive fields "are left out of responses to it" (the publishable key).',
    make: () => {
      const keys = new KeyBook()
      return {
        response(response, request) {
          keys.observe(request, response)
          if (request.method !== 'GET' || response.status !== 200) return response
          const path = routePath(pathOf(request))
          if (path !== '/v1/agents' && itemOf(path)?.collection !== 'agents') return response
          const info = keys.info(tokenOf(request))
          if (info?.type !== 'secret' || info.permissions.join(',') !== 'agents:read') return response
          for (const agent of objectsOf(response)) for (const field of SENSITIVE) delete agent[field]
          return response
        },
      }
    },
  },
  {
    name: 'call-log-read-by-id-unguarded',
    kind: 'keys',
    what:
      'The call_logs:read guard is declared on the list route only: GET /call-logs/{id} is answered to any valid key of the account, so a key without call_logs:read (an agents-only key, a publishable key) reads a call log with its transcript instead of getting 403. ' +
      'Contract, getCallLog: "Needs `call_logs:read`" (`x-required-permission: [call_logs:read]`); spec, Permission choices: "When a key lacks permission for an action, the request fails with 403"; docs/decisions/004: `call_logs:read` | read call logs.',
    make: () => {
      const keys = new KeyBook()
      return {
        request(request) {
          const item = itemOf(pathOf(request))
          if (request.method !== 'GET' || item?.collection !== 'call-logs') return request
          const info = keys.info(tokenOf(request))
          if (!info || info.revoked || !unrestricted(info) || hasScope(info.permissions, 'call_logs:read'))
            return request
          const other = keys.find(info.account, ['call_logs:read'])
          return other ? withToken(request, other) : request
        },
        response(response, request) {
          keys.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'allowed-ips-first-entry-only',
    kind: 'keys',
    what:
      'The IP restriction is checked against `allowed_ips[0]` only (the form had one field before it took a list): a key restricted to several networks is refused (403 key_restricted) from every address that matches a later entry and not the first. ' +
      'docs/decisions/003: "`allowed_ips` (CIDRs; a request from elsewhere gets 403 `key_restricted`)"; control plane, createKey: "`allowed_ips` (IPv4/IPv6 addresses or CIDRs; requests from elsewhere get 403 `key_restricted`)" (from elsewhere than any of them); contract, Forbidden: "client IP outside `allowed_ips`".',
    make: () => {
      const keys = new KeyBook()
      const refused = new Set<EngineRequest>()
      /** Whether `ip` is `entry` or lies inside it (IPv4, or an IPv6 address compared as text). */
      const within = (entry: string, ip: string) => {
        const [base = '', bits] = entry.split('/')
        const v4 = (text: string) => {
          const parts = text.trim().split('.')
          if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255))
            return undefined
          return parts.reduce((sum, p) => sum * 256 + Number(p), 0)
        }
        const a = v4(base)
        const b = v4(ip)
        if (a === undefined || b === undefined) return entry.trim() === ip
        const prefix = bits === undefined ? 32 : Number(bits)
        if (!Number.isInteger(prefix) || prefix < 0 || prefix > 32) return false
        const size = 2 ** (32 - prefix)
        return Math.floor(a / size) === Math.floor(b / size)
      }
      return {
        request(request) {
          if (!isV1(request) || request.clientIp === undefined) return request
          if (!methodsOf(pathOf(request))?.includes(request.method)) return request
          const info = keys.info(tokenOf(request))
          const ips = info?.restrictions.allowed_ips ?? []
          if (!info || info.revoked || ips.length < 2 || within(ips[0] as string, request.clientIp))
            return request
          const read = neutralRead(request)
          refused.add(read)
          return read
        },
        response(response, request) {
          keys.observe(request, response)
          if (!refused.has(request)) return response
          refused.delete(request)
          if (response.status !== 200) return response
          return errorAnswer(response, 403, {
            type: 'permission_error',
            code: 'key_restricted',
            message: `This API key may not be used from IP address ${request.clientIp ?? ''}.`,
          })
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------------- pages
  {
    name: 'publishable-key-sees-sensitive-fields-on-later-pages',
    kind: 'pages',
    what:
      'GET /agents with a cursor takes the "next page" query path, which was written later and forgets to pass the key to the presenter: a publishable key paging with starting_after or ending_before gets system_prompt, webhook_url and metadata on every page after the first. ' +
      'Contract, listAgents: "Responses to a **publishable** key omit the sensitive fields `system_prompt`, `webhook_url` and `metadata` from every agent"; docs/decisions/004: "Agent fields that are sensitive ... are left out of responses to it"; spec, Key types: publishable "read-only access to public data".',
    make: () => {
      const keys = new KeyBook()
      return {
        request(request) {
          if (request.method !== 'GET' || routePath(pathOf(request)) !== '/v1/agents') return request
          const query = queryOf(request)
          if (!query.has('starting_after') && !query.has('ending_before')) return request
          const info = keys.info(tokenOf(request))
          if (info?.type !== 'publishable' || info.revoked || !unrestricted(info)) return request
          const secret = keys.find(info.account, ['agents:read'])
          return secret ? withToken(request, secret) : request
        },
        response(response, request) {
          keys.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'has-more-true-on-exactly-full-page',
    kind: 'pages',
    what:
      'has_more is computed as `rows.length === limit` (no limit+1 read): a page that happens to hold exactly `limit` objects says has_more true although none follow, and the client fetches an empty page. ' +
      'Contract, Lists and pagination: "`has_more` tells whether more objects exist beyond the returned page in the direction of travel"; docs/decisions/008: "Response: `{\\"object\\": \\"list\\", \\"data\\": [...], \\"has_more\\": bool}`".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'GET' || !LISTS.includes(routePath(pathOf(request)))) return response
        const data = listOf(response)
        if (response.status !== 200 || !data || !isObject(response.body) || response.body.has_more !== false)
          return response
        const sent = single(queryOf(request), 'limit')
        const limit = sent === undefined ? 20 : Number(sent)
        if (data.length === limit) response.body.has_more = true
        return response
      },
    }),
  },

  // ------------------------------------------------------------------------------------------ validation
  {
    name: 'anthropic-temperature-defaults-to-one',
    kind: 'validation',
    what:
      "The create handler fills an omitted llm.temperature with the provider's own default, and for `anthropic` that is 1.0 (copied from the provider's API docs): an agent created with `llm: {provider: anthropic, model}` gets temperature 1 instead of 0.7. " +
      'Contract, LlmInput: "`temperature` defaults to 0.7 and `max_tokens` to 1024" (`temperature: {..., default: 0.7}`); createAgent: "every other field takes the `default` documented in `AgentCreateRequest`".',
    make: () => ({
      request(request) {
        if (request.method !== 'POST' || routePath(pathOf(request)) !== '/v1/agents') return request
        const body = jsonOf(request)
        if (!isObject(body) || !isObject(body.llm) || body.llm.provider !== 'anthropic') return request
        if ('temperature' in body.llm) return request
        return withJson(request, { ...body, llm: { ...body.llm, temperature: 1 } })
      },
    }),
  },
  {
    name: 'voice-speed-unchecked-on-update',
    kind: 'validation',
    what:
      'PATCH /agents/{id} merges `voice` into the stored object before validating, and the merged object is checked only for its required keys: a voice.speed outside 0.5-2 (0.2, 3) is accepted and stored, while the same value is refused (422) on create. ' +
      'Contract, VoiceUpdate: "`speed: {type: number, minimum: 0.5, maximum: 2}`"; Voice.speed: "minimum: 0.5, maximum: 2"; UnprocessableEntity: "the body is a JSON object but breaks the schema"; docs/decisions/009: "voice {provider, voice_id, speed 0.5-2}".',
    make: () => {
      const stored = new Overrides()
      const pending = new Map<EngineRequest, { id: string; speed: number }>()
      return {
        request(request) {
          const item = itemOf(pathOf(request))
          if (request.method !== 'PATCH' || item?.collection !== 'agents') return request
          const body = jsonOf(request)
          if (!isObject(body) || !isObject(body.voice)) return request
          const speed = body.voice.speed
          if (typeof speed !== 'number' || !Number.isFinite(speed) || (speed >= 0.5 && speed <= 2))
            return request
          const rewritten = withJson(request, {
            ...body,
            voice: { ...body.voice, speed: Math.min(2, Math.max(0.5, speed)) },
          })
          pending.set(rewritten, { id: item.id, speed })
          return rewritten
        },
        response(response, request) {
          const asked = pending.get(request)
          pending.delete(request)
          const item = itemOf(pathOf(request))
          if (item?.collection === 'agents' && ok(response)) {
            const body = jsonOf(request)
            if (request.method === 'DELETE') stored.forget(item.id)
            else if (asked) stored.set(asked.id, 'speed', asked.speed)
            else if (
              request.method === 'PATCH' &&
              isObject(body) &&
              isObject(body.voice) &&
              'speed' in body.voice
            )
              stored.forget(item.id, 'speed')
          }
          const path = routePath(pathOf(request))
          if (ok(response) && (path === '/v1/agents' || item?.collection === 'agents'))
            stored.apply(response, (agent, _field, value) => {
              if (isObject(agent.voice)) agent.voice.speed = value
            })
          return response
        },
      }
    },
  },
  {
    name: 'metadata-key-of-40-characters-refused',
    kind: 'validation',
    what:
      'The metadata key length is checked with `key.length < 40`: a key of exactly 40 characters is refused with 422 (max_length on `metadata`) on create and on update, although 40 is the documented maximum. ' +
      'Contract, Metadata: "at most 50 keys, keys 1-40 characters" (`propertyNames: {minLength: 1, maxLength: 40}`); docs/decisions/009: "metadata (string map)".',
    make: () => ({
      request(request) {
        const path = routePath(pathOf(request))
        const create = request.method === 'POST' && path === '/v1/agents'
        const update = request.method === 'PATCH' && itemOf(path)?.collection === 'agents'
        if (!create && !update) return request
        const body = jsonOf(request)
        if (!isObject(body) || !isObject(body.metadata)) return request
        const metadata = body.metadata
        if (!Object.keys(metadata).some((key) => key.length === 40)) return request
        const renamed: Json = {}
        for (const [key, value] of Object.entries(metadata))
          renamed[key.length === 40 ? `${key}_` : key] = value
        return withJson(request, { ...body, metadata: renamed })
      },
    }),
  },
  {
    name: 'equal-duration-bounds-refused',
    kind: 'validation',
    what:
      'GET /call-logs refuses `min_duration_seconds` equal to `max_duration_seconds` (`if (min >= max) 400`), the check written like the one for started_after / started_before: asking for the calls of exactly 60 seconds is 400 invalid_parameter instead of a list. ' +
      'Contract, listCallLogs: "`min_duration_seconds` / `max_duration_seconds` are inclusive bounds on `duration_seconds`"; "A filter value of the wrong shape, or `min_duration_seconds` > `max_duration_seconds` ... is 400" (strictly greater).',
    make: () => ({
      request(request) {
        if (request.method !== 'GET' || routePath(pathOf(request)) !== '/v1/call-logs') return request
        const query = queryOf(request)
        const min = single(query, 'min_duration_seconds')
        const max = single(query, 'max_duration_seconds')
        if (min === undefined || min !== max || !/^(0|[1-9][0-9]{0,8})$/.test(min)) return request
        return withQuery(request, (q) => q.set('max_duration_seconds', String(Number(min) - 1)))
      },
    }),
  },

  // ------------------------------------------------------------------------------------------- relations
  {
    name: 'call-under-way-cannot-be-deleted',
    kind: 'relations',
    what:
      'DELETE /call-logs/{id} refuses a call that has not ended (queued, ringing, in progress) with 409 `call_in_progress` ("hang up first"), a guard added for the live-call table. ' +
      'Contract, deleteCallLog: "A call that has not ended yet (`queued`, `ringing`, `in_progress`) can be deleted too; it is simply forgotten"; Conflict: the 409 codes are `member_already_exists`, `owner_role_immutable`, `cannot_remove_owner`, `idempotency_key_reused`, `limit_reached`.',
    make: () => {
      const keys = new KeyBook()
      const clock = new ClockWatch()
      const calls = new Map<string, { account: string; endAt: number }>()
      const maxSeconds = new Map<string, number>()
      const refused = new Set<EngineRequest>()
      const FINAL = ['completed', 'no_answer', 'busy', 'failed', 'canceled']
      return {
        request(request) {
          const item = itemOf(pathOf(request))
          if (request.method !== 'DELETE' || item?.collection !== 'call-logs') return request
          const call = calls.get(item.id)
          const now = clock.now()
          if (!call || now === undefined || now >= call.endAt) return request
          const token = tokenOf(request)
          const info = keys.info(token)
          if (keys.account(token) !== call.account) return request
          if (info && (info.revoked || !hasScope(info.permissions, 'resources:delete'))) return request
          const read = neutralRead(request)
          refused.add(read)
          return read
        },
        response(response, request) {
          keys.observe(request, response)
          clock.observe(request, response)
          const path = pathOf(request)
          const started = /^\/_mock\/accounts\/([^/]+)\/calls$/.exec(path)
          if (request.method === 'POST' && started && response.status === 201 && isObject(response.body)) {
            const sent = jsonOf(request)
            const input = isObject(sent) ? sent : {}
            const body = response.body
            const created = Date.parse(String(body.created_at))
            const ring = typeof input.ring_seconds === 'number' ? input.ring_seconds : 4
            const outcome = typeof input.outcome === 'string' ? input.outcome : 'completed'
            const talk = Math.min(
              typeof input.duration_seconds === 'number' ? input.duration_seconds : 60,
              maxSeconds.get(String(body.agent_id)) ?? 7200,
            )
            calls.set(String(body.id), {
              account: started[1] as string,
              endAt: created + 1000 + ring * 1000 + (outcome === 'completed' ? talk * 1000 : 0),
            })
            return response
          }
          if (refused.has(request)) {
            refused.delete(request)
            if (response.status !== 200) return response
            return errorAnswer(response, 409, {
              type: 'conflict_error',
              code: 'call_in_progress',
              message: 'This call has not ended yet; a call log can be deleted once the call is over.',
              param: 'call_log_id',
            })
          }
          if (!isV1(request) || !ok(response)) return response
          for (const object of objectsOf(response)) {
            if (object.object === 'agent' && typeof object.id === 'string')
              maxSeconds.set(object.id, Number(object.max_call_duration_seconds))
            const call = typeof object.id === 'string' ? calls.get(object.id) : undefined
            if (call && object.object === 'call_log' && FINAL.includes(String(object.status))) call.endAt = 0
          }
          const item = itemOf(path)
          if (request.method === 'DELETE' && item?.collection === 'call-logs') calls.delete(item.id)
          return response
        },
      }
    },
  },
  {
    name: 'empty-direction-groups-listed',
    kind: 'relations',
    what:
      'With group_by=direction or group_by=channel the groups are built by iterating the enum (`for value of [inbound, outbound]`), so a value without any call in the range still gets a group, all zeros. ' +
      'Contract, getCallAnalytics, Grouping: "`groups`: one entry per distinct value that has at least one call in the range, ordered by `totals.call_count` descending then `value` ascending".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'GET' || routePath(pathOf(request)) !== ANALYTICS || response.status !== 200)
          return response
        const body = response.body
        if (!isObject(body) || !Array.isArray(body.groups) || !Array.isArray(body.series)) return response
        const values = GROUP_VALUES[String(body.group_by)]
        if (!values) return response
        const groups = body.groups as Json[]
        for (const value of values)
          if (!groups.some((group) => group.value === value))
            groups.push({
              value,
              totals: emptyMetrics(),
              series: (body.series as Json[]).map((bucket) => ({
                start: bucket.start,
                end: bucket.end,
                metrics: emptyMetrics(),
              })),
            })
        return response
      },
    }),
  },
  {
    name: 'empty-config-ignored-on-update',
    kind: 'relations',
    what:
      'PATCH /integrations/{id} applies config with `if (config && Object.keys(config).length)`, so `config: {}` sent with other fields is ignored: the stored configuration stays as it was instead of being emptied. ' +
      'Contract, updateIntegration: "`config` **replaces** the stored configuration as a whole (`{}` empties it)"; docs/decisions/009: "PATCH `{enabled, config, credentials}`".',
    make: () => ({
      request(request) {
        if (request.method !== 'PATCH' || itemOf(pathOf(request))?.collection !== 'integrations')
          return request
        const body = jsonOf(request)
        if (!isObject(body) || !isObject(body.config) || Object.keys(body.config).length > 0) return request
        if (Object.keys(body).length < 2) return request
        const rest = { ...body }
        delete rest.config
        return withJson(request, rest)
      },
    }),
  },
  {
    name: 'integration-list-cached-a-minute',
    kind: 'relations',
    what:
      'GET /integrations is served from a per-account cache kept 60 seconds and not invalidated by PATCH /integrations/{id}: right after connecting, disabling or reconfiguring an integration, the list still shows the old status, config and credential_hint, while GET /integrations/{id} shows the new ones. ' +
      'Contract, updateIntegration: the answer is "The updated integration" and `updated_at` "is set to now on every successful update"; listIntegrations: "Lists the whole integration catalog" (of the account, as it is); spec, Permission choices: "update integrations".',
    make: () => {
      const keys = new KeyBook()
      const cache = new Map<string, { body: unknown; at: number }>()
      return {
        response(response, request) {
          keys.observe(request, response)
          if (request.method !== 'GET' || routePath(pathOf(request)) !== '/v1/integrations') return response
          const now = nowSecondsOf(response)
          if (response.status !== 200 || now === undefined) return response
          const account = keys.account(tokenOf(request))
          const cached = cache.get(account)
          if (cached && now - cached.at < 60) {
            response.body = structuredClone(cached.body)
            return response
          }
          cache.set(account, { body: structuredClone(response.body), at: now })
          return response
        },
      }
    },
  },
  {
    name: 'member-email-case-kept',
    kind: 'relations',
    what:
      'POST /team-members lower-cases the e-mail for its uniqueness check only and stores it as sent: `Priya.Nair@Example.com` is returned (at creation, by ID, in the list) with its capitals. ' +
      'Contract, inviteTeamMember: "The e-mail address is stored lower-cased"; TeamMember: "E-mail addresses are unique per account (case-insensitive) and stored lower-cased"; example `viewer`: "Created from the viewer request (e-mail lower-cased)".',
    make: () => {
      const sent = new Overrides()
      return {
        response(response, request) {
          const path = routePath(pathOf(request))
          const item = itemOf(path)
          if (request.method === 'POST' && path === '/v1/team-members' && response.status === 201) {
            const body = jsonOf(request)
            const email = isObject(body) && typeof body.email === 'string' ? body.email : undefined
            if (
              isObject(response.body) &&
              typeof response.body.id === 'string' &&
              email &&
              email !== email.toLowerCase()
            )
              sent.set(response.body.id, 'email', email)
          }
          if (request.method === 'DELETE' && item?.collection === 'team-members' && ok(response)) {
            sent.forget(item.id)
            return response
          }
          if (ok(response) && (path === '/v1/team-members' || item?.collection === 'team-members'))
            sent.apply(response, (member, field, value) => {
              member[field] = value
            })
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------------ time
  {
    name: 'hour-range-of-744-buckets-refused',
    kind: 'time',
    what:
      'The bucket limit is checked with `buckets >= 744`: a range of exactly 744 hour buckets (31 whole days by hour) is refused with 400 invalid_parameter naming start, although 744 is the documented maximum. ' +
      'Contract, getCallAnalytics, Range: "The range may cover at most **744 buckets** of the chosen granularity (for example 31 days of `hour` ...); a longer range is 400"; CallAnalytics.series: "maxItems: 744".',
    make: () => ({
      request(request) {
        if (request.method !== 'GET' || routePath(pathOf(request)) !== ANALYTICS) return request
        const query = queryOf(request)
        if (single(query, 'granularity') !== 'hour') return request
        const timezone = query.getAll('timezone')
        if (
          timezone.length > 1 ||
          (timezone.length === 1 && !['UTC', 'Etc/UTC'].includes(timezone[0] as string))
        )
          return request
        const start = instantOf(single(query, 'start'))
        const end = instantOf(single(query, 'end'))
        if (start === undefined || end === undefined || start % HOUR_MS !== 0 || end % HOUR_MS !== 0)
          return request
        if (end - start !== 744 * HOUR_MS) return request
        return withQuery(request, (q) => q.set('end', toTimestamp(end + HOUR_MS)))
      },
    }),
  },
  {
    name: 'future-end-refused',
    kind: 'time',
    what:
      'The range check refuses any bound in the future (`if (start > now || end > now) 400`): a dashboard asking for "today" up to midnight tonight gets 400 invalid_parameter naming end, although only start may not be in the future. ' +
      'Contract, getCallAnalytics, Range: "`end` must be after `start`, and `start` must not be in the future; otherwise 400" (nothing bounds `end` by the current time); parameter end: "Exclusive end of the range (RFC 3339)".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'GET' || routePath(pathOf(request)) !== ANALYTICS || response.status !== 200)
          return response
        const end = instantOf(single(queryOf(request), 'end'))
        const now = nowSecondsOf(response)
        if (end === undefined || now === undefined || Math.floor(end / 1000) <= now) return response
        return errorAnswer(response, 400, {
          type: 'invalid_request_error',
          code: 'invalid_parameter',
          message: 'end must not be in the future.',
          param: 'end',
        })
      },
    }),
  },
  {
    name: 'analytics-bounds-drop-their-offset',
    kind: 'time',
    what:
      'GET /analytics/calls parses start and end with a "local datetime" parser that drops the offset: `2026-03-09T00:00:00+05:30` is taken as 00:00 UTC, so a range given in a client\'s own offset is shifted by that offset (calls counted in the wrong range, start and end echoed as other instants). ' +
      'Contract, Conventions: "Timestamps *sent* in query parameters may carry any RFC 3339 offset ...; they are compared as the instants they name"; getCallAnalytics parameter start: "Inclusive start of the range (RFC 3339)".',
    make: () => ({
      request(request) {
        if (request.method !== 'GET' || routePath(pathOf(request)) !== ANALYTICS) return request
        const query = queryOf(request)
        const changes: [string, string][] = []
        for (const name of ['start', 'end']) {
          const value = single(query, name)
          const match = value === undefined ? null : RFC3339.exec(value)
          if (!match || /^([Zz]|[+-]00:00)$/.test(match[2] as string)) continue
          if (instantOf(value) === undefined) continue
          changes.push([name, `${match[1]}Z`])
        }
        if (changes.length === 0) return request
        return withQuery(request, (q) => {
          for (const [name, value] of changes) q.set(name, value)
        })
      },
    }),
  },
  {
    name: 'member-role-read-stale-after-change',
    kind: 'time',
    what:
      'Team-member reads go to a read replica that lags its primary by up to a second: in the same second as a successful PATCH /team-members/{id}, GET of that member (and the list) still shows the previous role; once the clock moves on, the new one. ' +
      'Contract, updateTeamMember: "Changes the role of a member or of a pending invitation"; getTeamMember: "Returns one team member or pending invitation" (as it is, after the change the 200 acknowledged); docs/decisions/014: a mock "that forgets an acknowledged write teaches a frontend to expect a platform that does".',
    make: () => {
      const roles = new Map<string, string>()
      const stale = new Map<string, { role: string; at: number }>()
      return {
        response(response, request) {
          const path = routePath(pathOf(request))
          const item = itemOf(path)
          if (!ok(response) || (path !== '/v1/team-members' && item?.collection !== 'team-members'))
            return response
          const now = nowSecondsOf(response)
          if (request.method === 'PATCH' && item && isObject(response.body)) {
            const previous = roles.get(item.id)
            const role = String(response.body.role)
            if (previous !== undefined && previous !== role && now !== undefined)
              stale.set(item.id, { role: previous, at: now })
            roles.set(item.id, role)
            return response
          }
          if (request.method === 'DELETE' && item) {
            roles.delete(item.id)
            stale.delete(item.id)
            return response
          }
          for (const member of objectsOf(response)) {
            if (typeof member.id !== 'string') continue
            const old = stale.get(member.id)
            if (old && old.at === now && request.method === 'GET') {
              member.role = old.role
              continue
            }
            stale.delete(member.id)
            if (typeof member.role === 'string') roles.set(member.id, member.role)
          }
          return response
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------------- headers
  {
    name: 'retry-after-one-second-short',
    kind: 'headers',
    what:
      'Retry-After (and error.retry_after) is computed as the last second in which the oldest counted request still counts (`oldest + w - now - 1`), one second short: a client that waits exactly that long is refused again. ' +
      'Contract, Retry-After header: "the largest `t` among the exhausted windows, rounded up, so a retry after this delay is admitted. Equal to `error.retry_after`"; docs/decisions/006: "`Retry-After` (delay-seconds) = the largest `t` of the exhausted windows, so a retry after it is admitted".',
    make: () => ({
      response(response) {
        const error = errorOf(response)
        const seconds = Number(response.headers['retry-after'])
        if (response.status !== 429 || !error || !Number.isInteger(seconds) || seconds < 2) return response
        response.headers['retry-after'] = String(seconds - 1)
        error.retry_after = seconds - 1
        if (typeof error.message === 'string')
          error.message = error.message.replace(`${seconds} seconds`, `${seconds - 1} seconds`)
        return response
      },
    }),
  },
  {
    name: 'burst-reset-at-next-whole-minute',
    kind: 'headers',
    what:
      'The burst window is reported as if it were a fixed calendar minute: its `t` (and X-RateLimit-Reset when burst is the tightest window, and Retry-After when burst decides a 429) is the time to the next whole minute, not to when the oldest counted request leaves the sliding 60-second window. ' +
      'docs/decisions/006: "Two sliding windows ... `t` is the whole seconds until the oldest request counted in that window leaves it"; contract, RateLimit header: "`t` is the whole seconds (rounded up) until the oldest request counted in that window leaves it"; X-RateLimit-Reset: "current time + that window\'s `t`".',
    make: () => ({
      response(response) {
        const windows = windowsByName(response.headers)
        const now = nowSecondsOf(response)
        if (!windows || now === undefined) return response
        const burst = windows.find((w) => w.policy === 'burst')
        if (!burst || burst.t === 0) return response
        const t = 60 - (now % 60)
        if (t === burst.t) return response
        burst.t = t
        response.headers.ratelimit = windows.map((w) => `"${w.policy}";r=${w.r};t=${w.t}`).join(', ')
        if (tightestOf(windows) === burst) response.headers['x-ratelimit-reset'] = String(now + t)
        const error = errorOf(response)
        if (response.status === 429 && error) {
          let wait = 0
          let policy = String(error.policy)
          for (const w of windows)
            if (w.r === 0 && (w.t > wait || (w.t === wait && w.policy === 'hourly'))) {
              wait = w.t
              policy = w.policy
            }
          wait = Math.max(1, wait)
          response.headers['retry-after'] = String(wait)
          error.retry_after = wait
          error.policy = policy
        }
        return response
      },
    }),
  },
  {
    name: 'preflight-requires-authentication',
    kind: 'headers',
    what:
      'The authentication middleware is mounted before the CORS one, so a CORS preflight (OPTIONS, which browsers send without credentials) gets 401 instead of 204, and no browser app can call the API. ' +
      'Contract, Conventions: "CORS. The standalone mock answers CORS preflights (`OPTIONS`, 204) for every documented path ... Preflights are not authenticated and not counted"; docs/decisions/001: "The standalone mock answers CORS preflights".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'OPTIONS' || !isV1(request) || response.status !== 204) return response
        if ((request.headers.authorization ?? '').trim() !== '') return response
        return {
          status: 401,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'www-authenticate': 'Bearer realm="api"',
            'request-id': response.headers['request-id'] ?? '',
          },
          body: {
            error: {
              type: 'authentication_error',
              code: 'invalid_api_key',
              message:
                'No API key provided. Send it in the Authorization header: Authorization: Bearer <API_KEY>.',
            },
          },
        }
      },
    }),
  },
  {
    name: 'cors-headers-missing-on-429',
    kind: 'headers',
    what:
      'The rate limiter answers 429 itself, before the CORS middleware adds its headers: a rate-limited browser request gets no Access-Control-Allow-Origin (nor the exposed headers), so the page sees a network error and cannot read Retry-After. ' +
      'docs/decisions/001: the mock "exposes `Request-Id, RateLimit, RateLimit-Policy, Retry-After`" (Retry-After exists only on 429s); contract, Conventions: "CORS ... exposes `Request-Id, RateLimit, RateLimit-Policy, Retry-After`".',
    make: () => ({
      response(response, request) {
        if (response.status !== 429 || !request.headers.origin) return response
        delete response.headers['access-control-allow-origin']
        delete response.headers['access-control-expose-headers']
        delete response.headers.vary
        return response
      },
    }),
  },

  // ----------------------------------------------------------------------------------------- idempotency
  {
    name: 'idempotency-key-of-255-characters-refused',
    kind: 'idempotency',
    what:
      'The Idempotency-Key length is checked with `key.length < 255`: a key of exactly 255 characters is refused with 400 invalid_parameter, although 255 is the documented maximum. ' +
      'Contract, IdempotencyKey: "1-255 printable ASCII characters ...; longer or empty values are 400" (`maxLength: 255`); docs/decisions/008: "POST accepts `Idempotency-Key` (at most 255 characters ...)".',
    make: () => ({
      request(request) {
        const key = request.headers['idempotency-key']
        if (request.method !== 'POST' || !isV1(request) || key?.length !== 255) return request
        return withHeader(request, 'idempotency-key', `${key}x`)
      },
    }),
  },
  {
    name: 'replay-carries-stored-ratelimit-headers',
    kind: 'idempotency',
    what:
      "An idempotent replay returns the stored response's headers whole, the rate-limit fields included: a replay shows the RateLimit / X-RateLimit-* values of the first request (more remaining, another reset) instead of the account's quota after this request, which was counted. " +
      'Contract, Idempotency: a replay "still counts against rate limits"; RateLimit header: "`r` is what remains in the window after this request"; docs/decisions/006: "Every authenticated response carries ... `r` is what remains after this request".',
    make: () => {
      const keys = new KeyBook()
      const stored = new Map<string, Record<string, string>>()
      return {
        response(response, request) {
          keys.observe(request, response)
          const key = request.headers['idempotency-key']
          if (request.method !== 'POST' || !isV1(request) || key === undefined || !ok(response))
            return response
          const id = `${keys.account(tokenOf(request))}\u0000${key}`
          const limits = ownHeaders(response)
          delete limits['request-id']
          if (response.headers['idempotent-replayed'] !== 'true') {
            stored.set(id, limits)
            return response
          }
          const first = stored.get(id)
          if (first) Object.assign(response.headers, first)
          return response
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------------- accounts
  {
    name: 'idempotency-keys-scoped-per-api-key',
    kind: 'accounts',
    what:
      'Idempotency records are keyed by (API key, Idempotency-Key) instead of (account, Idempotency-Key): a request sent with another key of the same account (a retry after a rotation, or from a second worker) is carried out as a new one: the same body creates a duplicate, and another body is carried out instead of being refused with 409. ' +
      'Contract, Idempotency: "Keys are scoped to the account and kept for 24 hours"; parameter IdempotencyKey: "Scoped to the account and kept 24 hours"; docs/decisions/008: "a replay returns the stored response with `Idempotent-Replayed: true`" (whichever key of the account sends it).',
    make: () => {
      const keys = new KeyBook()
      const owner = new Map<string, string>()
      const ordinal = new Map<string, number>()
      const original = new Map<EngineRequest, string>()
      const idOf = (request: EngineRequest, key: string) => `${keys.account(tokenOf(request))}\u0000${key}`
      return {
        request(request) {
          const key = request.headers['idempotency-key']
          const token = tokenOf(request)
          if (request.method !== 'POST' || !isV1(request) || key === undefined || !token) return request
          if (!/^[\x21-\x7e]{1,255}$/.test(key)) return request
          const first = owner.get(idOf(request, key))
          if (first === undefined || first === token) return request
          if (!ordinal.has(token)) ordinal.set(token, ordinal.size + 1)
          const rewritten = withHeader(
            request,
            'idempotency-key',
            `${key.slice(0, 240)}~k${ordinal.get(token)}`,
          )
          original.set(rewritten, key)
          return rewritten
        },
        response(response, request) {
          keys.observe(request, response)
          const rewritten = original.has(request)
          original.delete(request)
          const key = request.headers['idempotency-key']
          const token = tokenOf(request)
          if (rewritten || request.method !== 'POST' || !isV1(request) || !key || !token || !ok(response))
            return response
          if (!owner.has(idOf(request, key))) owner.set(idOf(request, key), token)
          return response
        },
      }
    },
  },

  // ---------------------------------------------------------------------------------------------- errors
  {
    name: 'expired-key-reported-as-revoked',
    kind: 'errors',
    what:
      'Key status is computed as `revoked_at || expires_at <= now ? "revoked" : "active"`, so a key past its expires_at gets the revoked message ("has been revoked") and its owner looks for a revocation nobody made. ' +
      'docs/decisions/002: "a message that tells missing / invalid / revoked / expired apart"; docs/decisions/003: "`expires_at` (after it: 401, message says expired)"; contract, Unauthorized: "The message tells the four cases apart" (example `expired`: "expired at ...").',
    make: () => ({
      response(response) {
        const error = errorOf(response)
        if (response.status !== 401 || !error || typeof error.message !== 'string') return response
        const match = /^This API key( \([^)]*\))? expired at /.exec(error.message)
        if (match)
          error.message = `This API key${match[1] ?? ''} has been revoked. Create a new key in the dashboard.`
        return response
      },
    }),
  },
  {
    name: 'unknown-v1-route-before-authentication',
    kind: 'errors',
    what:
      'The router runs before the authentication middleware: an unknown path under /v1 (`/v1/agent`, `/v1/calls`) answers 404 route_not_found to a request without a key or with an invalid one, instead of 401, so anyone can probe which routes exist. ' +
      'docs/decisions/005: "401 (authentication) -> 429 (rate limit) -> 404/405 (route) -> ..."; contract, Order of checks: "1. **401** authentication ... 3. **404 / 405** routing"; Conventions: "any other unknown path answer 404 `route_not_found` (after authentication and rate limiting)".',
    make: () => ({
      response(response, request) {
        if (response.status !== 401 || request.method === 'OPTIONS' || !isV1(request)) return response
        const path = pathOf(request)
        if (methodsOf(path)) return response
        return {
          status: 404,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'request-id': response.headers['request-id'] ?? '',
          },
          body: {
            error: {
              type: 'not_found_error',
              code: 'route_not_found',
              message: `Unrecognized request URL (${request.method} ${path}).`,
              request_id: response.headers['request-id'] ?? '',
            },
          },
        }
      },
    }),
  },
  {
    name: 'unparseable-body-before-media-type',
    kind: 'errors',
    what:
      'The body parser runs JSON.parse on every body before the Content-Type is looked at: a body sent as text/plain (or form data) that is not JSON gets 400 invalid_json instead of 415 unsupported_media_type. ' +
      'Contract, Order of checks: "5. **400 / 413 / 415 / 400** malformed request, in this order: ...; a body whose `Content-Type` is not `application/json` (415); then the body itself (400 `invalid_json` ...)"; docs/decisions/007: "415 ... unsupported_media_type (a body that is not application/json)".',
    make: () => ({
      response(response, request) {
        if (response.status !== 415 || request.body === null || request.body.trim() === '') return response
        try {
          JSON.parse(request.body)
          return response
        } catch (cause) {
          return errorAnswer(response, 400, {
            type: 'invalid_request_error',
            code: 'invalid_json',
            message: `The request body is not valid JSON: ${cause instanceof Error ? cause.message : 'malformed'}.`,
          })
        }
      },
    }),
  },
  {
    name: 'unknown-field-code-from-schema-library',
    kind: 'errors',
    what:
      "422 entries for unknown fields carry the schema library's keyword as their code, `additional_properties`, instead of the platform's `unknown_field` (the other codes were mapped, this one was missed). " +
      'Contract, UnprocessableEntity: "Unknown fields are errors with code `unknown_field`"; FieldError.code enum (`unknown_field`, no `additional_properties`); docs/decisions/007: "422 | validation_error | validation_failed, with `errors: [{param, code, message}]`; unknown fields are errors".',
    make: () => ({
      response(response) {
        const error = errorOf(response)
        if (response.status !== 422 || !error || !Array.isArray(error.errors)) return response
        for (const entry of error.errors as Json[])
          if (isObject(entry) && entry.code === 'unknown_field') entry.code = 'additional_properties'
        return response
      },
    }),
  },
]
