/**
 * Held-out fault set 3: thirty faults an implementer of the platform's v1 API could plausibly ship, written
 * without reading the contract suite's checks, its exploration or the earlier fault lists. Each fault wraps the
 * correct engine (`faultyHandler`): it rewrites a request before the engine sees it, or rewrites or replaces
 * the engine's answer, keeping what it needs to remember in the closure `make()` returns (keys seen created
 * through the control plane, objects seen in answers, its own idempotency records).
 *
 * Every fault deviates from the platform's spec or from a decision of `docs/decisions/` (cited in `what`), in
 * specific situations only, and never where the spec leaves a choice open (docs/decisions/011-allowed-forms.md).
 * Measured by `scripts/fault-sets/measure.ts`.
 */
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'
import type { KeyInfo } from './fault-books.ts'
import {
  canonical,
  errorOf,
  isObject,
  type Json,
  jsonOf,
  pathOf,
  queryOf,
  tokenOf,
  urlOf,
  withToken,
} from './request-parts.ts'

export interface HeldOutFault {
  name: string
  kind: 'pages' | 'order' | 'accounts' | 'keys' | 'time' | 'idempotency' | 'validation' | 'errors'
  /** The deviation, with the sentence of the spec, the contract or the decision it breaks. */
  what: string
  make: () => Fault
}

// ------------------------------------------------------------------------------------------------- helpers

/** The query with `name` set to `value` (only when the parameter appears exactly once). */
function withQuery(request: EngineRequest, name: string, value: string): EngineRequest | undefined {
  const url = urlOf(request)
  if (url.searchParams.getAll(name).length !== 1) return undefined
  url.searchParams.set(name, value)
  return { ...request, url: `${url.pathname}?${url.searchParams.toString()}` }
}

/** An error answer in the platform's envelope, built on the engine's answer (its Request-Id and rate-limit headers). */
function errorAnswer(base: EngineResponse, status: number, error: Json): EngineResponse {
  const requestId = base.headers['request-id']
  const headers = { ...base.headers }
  delete headers.location
  delete headers['idempotent-replayed']
  delete headers.allow
  return {
    status,
    headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
    body: { error: { ...error, ...(requestId ? { request_id: requestId } : {}) } },
  }
}

/** `stored` answered again, with the Request-Id and rate-limit headers of the engine's answer to this request. */
function replayOf(stored: EngineResponse, current: EngineResponse): EngineResponse {
  const headers = { ...stored.headers }
  for (const name of Object.keys(current.headers))
    if (name === 'request-id' || name.startsWith('ratelimit') || name.startsWith('x-ratelimit'))
      headers[name] = current.headers[name] as string
  const replayed: EngineResponse = {
    status: stored.status,
    headers: { ...headers, 'idempotent-replayed': 'true' },
    body: structuredClone(stored.body),
  }
  // An error body repeats the Request-Id of the answer it is part of.
  const error = errorOf(replayed)
  if (error && typeof error.request_id === 'string' && current.headers['request-id'])
    error.request_id = current.headers['request-id']
  return replayed
}

const isListPath = (path: string) => /^\/v1\/(agents|call-logs|team-members)$/.test(path)
const SENSITIVE = ['system_prompt', 'webhook_url', 'metadata']
const isPublishable = (token: string | undefined) => token?.startsWith('pk-svc-') === true

function limitOf(request: EngineRequest): number {
  const raw = queryOf(request).get('limit')
  return raw === null ? 20 : Number(raw)
}

/** Newest first: created_at descending, then id descending (docs/decisions/008). Negative: `a` comes first. */
function newestFirst(a: Json, b: Json): number {
  const at = Date.parse(String(a.created_at))
  const bt = Date.parse(String(b.created_at))
  if (at !== bt) return bt - at
  return String(a.id) < String(b.id) ? 1 : String(a.id) > String(b.id) ? -1 : 0
}

/** A whole-second RFC 3339 instant in UTC (`Z`), as the mock writes them. */
const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

// ----------------------------------------------------------- what a fault learns by watching the traffic

/**
 * The keys made through the control plane (`POST /_mock/accounts/{id}/keys`, whose 201 shows the value once) and
 * revoked there: which account a key belongs to, its type, scopes and restrictions. A key it never saw made (the
 * seeded demo keys) counts as an account of its own.
 */
class KeyBook {
  private byToken = new Map<string, KeyInfo>()
  private byId = new Map<string, KeyInfo>()

  observe(request: EngineRequest, response: EngineResponse): void {
    const path = pathOf(request)
    if (
      request.method === 'POST' &&
      /^\/_mock\/accounts\/[^/]+\/keys$/.test(path) &&
      response.status === 201
    ) {
      const body = response.body as Json
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
    }
    const revoke = /^\/_mock\/keys\/([^/]+)\/revoke$/.exec(path)
    if (request.method === 'POST' && revoke && response.status === 200) {
      const info = this.byId.get(revoke[1] as string)
      if (info) info.revoked = true
    }
  }

  info(token: string | undefined): KeyInfo | undefined {
    return token ? this.byToken.get(token) : undefined
  }

  account(token: string | undefined): string {
    return this.info(token)?.account ?? `token:${token ?? ''}`
  }

  unrestricted(info: KeyInfo): boolean {
    const r = info.restrictions
    return r.allowed_ips.length === 0 && r.allowed_origins.length === 0 && r.expires_at === null
  }

  /** An active, unrestricted key of `account` (not `except`) that `accept` takes, as its token. */
  find(account: string, accept: (info: KeyInfo) => boolean, except?: string): string | undefined {
    for (const [token, info] of this.byToken)
      if (
        token !== except &&
        info.account === account &&
        !info.revoked &&
        this.unrestricted(info) &&
        accept(info)
      )
        return token
    return undefined
  }
}

interface Seen {
  body: Json
  account: string
}

/**
 * The agents, call logs and team members seen in the engine's answers (the latest version of each, with its
 * account), and those deleted (with their last version).
 */
class Objects {
  keys = new KeyBook()
  agents = new Map<string, Seen>()
  calls = new Map<string, Seen>()
  members = new Map<string, Seen>()
  deletedAgents = new Map<string, Seen>()
  deletedCalls = new Map<string, Seen>()
  deletedMembers = new Map<string, Seen>()

  private table(object: unknown) {
    return object === 'agent'
      ? this.agents
      : object === 'call_log'
        ? this.calls
        : object === 'team_member'
          ? this.members
          : undefined
  }

  observe(request: EngineRequest, response: EngineResponse): void {
    this.keys.observe(request, response)
    const path = pathOf(request)
    if (
      !path.startsWith('/v1/') ||
      response.status < 200 ||
      response.status >= 300 ||
      !isObject(response.body)
    )
      return
    const token = tokenOf(request)
    const account = this.keys.account(token)
    const body = response.body
    if (body.deleted === true && typeof body.id === 'string') {
      const table = this.table(body.object)
      const gone = table?.get(body.id)
      table?.delete(body.id)
      const deleted =
        body.object === 'agent'
          ? this.deletedAgents
          : body.object === 'call_log'
            ? this.deletedCalls
            : this.deletedMembers
      deleted.set(body.id, gone ?? { body: { id: body.id }, account })
      return
    }
    const items = body.object === 'list' && Array.isArray(body.data) ? body.data : [body]
    for (const item of items) {
      if (!isObject(item) || typeof item.id !== 'string') continue
      const table = this.table(item.object)
      if (!table) continue
      const before = table.get(item.id)
      // A publishable key sees agents without their sensitive fields: keep what a secret key saw of them.
      const merged = isPublishable(token) && before ? { ...before.body, ...item } : item
      table.set(item.id, { body: structuredClone(merged), account })
    }
  }
}

// ------------------------------------------------------------------------------------------------- faults

export const faults: HeldOutFault[] = [
  // ----------------------------------------------------------------------------------------------- pages
  {
    name: 'has-more-on-exactly-full-last-page',
    kind: 'pages',
    what:
      'has_more is computed as "the page is full" (data.length === limit), so a last page that holds exactly limit objects says has_more: true. ' +
      'Contract, Lists and pagination: "`has_more` tells whether more objects exist beyond the returned page in the direction of travel."',
    make: () => ({
      response(response, request) {
        if (request.method !== 'GET' || !isListPath(pathOf(request)) || response.status !== 200)
          return response
        const body = response.body as Json
        if (Array.isArray(body.data) && body.has_more === false && body.data.length === limitOf(request))
          body.has_more = true
        return response
      },
    }),
  },
  {
    name: 'starting-after-skips-created-at-ties',
    kind: 'pages',
    what:
      'The cursor is turned into "created_at < cursor.created_at" (or ">" for ending_before), ignoring the id tie-break, so objects created in the same second as the cursor object are skipped when paging. ' +
      'docs/decisions/008: "Objects come newest first by created_at, then by id"; contract: "`starting_after=<id>` returns the objects after that one in this order".',
    make: () => {
      const seen = new Objects()
      return {
        response(response, request) {
          const cursor = queryOf(request).get('starting_after') ?? queryOf(request).get('ending_before')
          const path = pathOf(request)
          const table =
            path === '/v1/agents' ? seen.agents : path === '/v1/call-logs' ? seen.calls : seen.members
          const at = cursor
            ? (table.get(cursor)?.body.created_at ?? seen.deletedAgents.get(cursor)?.body.created_at)
            : undefined
          seen.observe(request, response)
          if (request.method !== 'GET' || !isListPath(path) || response.status !== 200 || at === undefined)
            return response
          const body = response.body as Json
          if (Array.isArray(body.data))
            body.data = body.data.filter((item) => !isObject(item) || item.created_at !== at)
          return response
        },
      }
    },
  },
  {
    name: 'limit-100-rejected',
    kind: 'pages',
    what:
      'limit is validated as "limit < 100" instead of "<= 100": limit=100 is refused with 400 invalid_parameter. ' +
      'docs/decisions/008: "Lists take limit (1-100, default 20)"; contract Limit parameter: "1-100".',
    make: () => {
      const rewritten = new WeakSet<EngineRequest>()
      return {
        request(request) {
          if (request.method !== 'GET' || !isListPath(pathOf(request))) return request
          if (queryOf(request).get('limit') !== '100') return request
          const sent = withQuery(request, 'limit', '101')
          if (!sent) return request
          rewritten.add(sent)
          return sent
        },
        response(response, request) {
          const error = errorOf(response)
          if (rewritten.has(request) && error?.param === 'limit' && typeof error.message === 'string')
            error.message = error.message.replaceAll('101', '100')
          return response
        },
      }
    },
  },
  {
    name: 'deleted-agent-still-listed',
    kind: 'pages',
    what:
      'DELETE marks the agent deleted, GET /agents/{id} then answers 404, but the list query forgets the "not deleted" condition: the deleted agent still appears in GET /agents where it sorts. ' +
      'Contract, deleteAgent: "Permanently deletes an agent"; getAgent: "an ID of a deleted agent gives 404" (a deleted agent is no longer one of the account\'s agents, which listAgents lists).',
    make: () => {
      const seen = new Objects()
      return {
        response(response, request) {
          seen.observe(request, response)
          if (request.method !== 'GET' || pathOf(request) !== '/v1/agents' || response.status !== 200)
            return response
          const query = queryOf(request)
          if (query.has('ending_before')) return response
          const account = seen.keys.account(tokenOf(request))
          const after = query.get('starting_after')
          const cursor = after ? seen.agents.get(after)?.body : undefined
          if (after && !cursor) return response
          const body = response.body as { data: Json[]; has_more: boolean }
          const last = body.data[body.data.length - 1]
          const ghosts = [...seen.deletedAgents.values()]
            .filter((each) => each.account === account && typeof each.body.created_at === 'string')
            .map((each) => each.body)
            .filter((ghost) => !cursor || newestFirst(cursor, ghost) < 0)
            .filter((ghost) => !body.has_more || (last !== undefined && newestFirst(ghost, last) < 0))
          if (ghosts.length === 0) return response
          const shown = ghosts.map((ghost) => {
            const copy = structuredClone(ghost)
            if (isPublishable(tokenOf(request))) for (const field of SENSITIVE) delete copy[field]
            return copy
          })
          const data = [...body.data, ...shown].sort(newestFirst)
          const limit = limitOf(request)
          body.data = data.slice(0, limit)
          if (data.length > limit) body.has_more = true
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------------- order
  {
    name: 'ending-before-page-oldest-first',
    kind: 'order',
    what:
      'ending_before is answered straight from the "created_at > cursor ORDER BY created_at ASC" query without reversing it: the page comes oldest first. ' +
      'Contract, Lists and pagination: "`ending_before=<id>` the objects before it (newer, still returned newest first)".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'GET' || !isListPath(pathOf(request)) || response.status !== 200)
          return response
        if (!queryOf(request).has('ending_before')) return response
        const body = response.body as Json
        if (Array.isArray(body.data)) body.data.reverse()
        return response
      },
    }),
  },
  {
    name: 'created-at-ties-by-id-ascending',
    kind: 'order',
    what:
      'Objects with the same created_at are ordered by id ascending (ORDER BY created_at DESC, id ASC). ' +
      'Contract, Lists and pagination: "ordered newest first by `created_at`, ties broken by `id` descending".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'GET' || !isListPath(pathOf(request)) || response.status !== 200)
          return response
        const body = response.body as Json
        if (!Array.isArray(body.data)) return response
        body.data = [...(body.data as Json[])].sort((a, b) => {
          const at = Date.parse(String(a.created_at))
          const bt = Date.parse(String(b.created_at))
          if (at !== bt) return bt - at
          return String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0
        })
        return response
      },
    }),
  },

  // -------------------------------------------------------------------------------------------- accounts
  {
    name: 'agent-of-another-account-readable',
    kind: 'accounts',
    what:
      'GET /agents/{id} looks the agent up by id alone, without the account condition: a key of another account reads it. ' +
      'Contract, getAgent: "An unknown ID, an ID of another account, or an ID of a deleted agent gives 404 `resource_not_found`."',
    make: () => {
      const seen = new Objects()
      return {
        response(response, request) {
          seen.observe(request, response)
          const match = /^\/v1\/agents\/([^/]+)$/.exec(pathOf(request))
          if (request.method !== 'GET' || !match || response.status !== 404) return response
          const agent = seen.agents.get(decodeURIComponent(match[1] as string))
          if (!agent || agent.account === seen.keys.account(tokenOf(request))) return response
          const body = structuredClone(agent.body)
          if (isPublishable(tokenOf(request))) for (const field of SENSITIVE) delete body[field]
          return { status: 200, headers: response.headers, body }
        },
      }
    },
  },
  {
    name: 'idempotency-keys-global-not-per-account',
    kind: 'accounts',
    what:
      "Idempotency records are stored under the key alone, not under (account, key): another account sending the same Idempotency-Key gets the first account's stored answer (same body) or 409 idempotency_key_reused (another body). " +
      'Contract, Idempotency: "Keys are scoped to the account and kept for 24 hours".',
    make: () => {
      const keys = new KeyBook()
      const stored = new Map<
        string,
        { account: string; path: string; body: string; response: EngineResponse }
      >()
      const pending = new WeakMap<EngineRequest, 'replay' | 'conflict'>()
      return {
        request(request) {
          const key = request.headers['idempotency-key']
          if (request.method !== 'POST' || !key || !pathOf(request).startsWith('/v1/')) return request
          const entry = stored.get(key)
          const account = keys.account(tokenOf(request))
          if (!entry || entry.account === account) return request
          const same = entry.path === pathOf(request) && entry.body === canonical(jsonOf(request))
          // Nothing of this request is carried out: the engine answers a harmless 400 that is then replaced.
          const harmless = { ...request, body: '[]' }
          pending.set(harmless, same ? 'replay' : 'conflict')
          return harmless
        },
        response(response, request) {
          keys.observe(request, response)
          const key = request.headers['idempotency-key']
          const mode = pending.get(request)
          if (mode && key) {
            if (response.status !== 400 || errorOf(response)?.code !== 'invalid_json') return response
            const entry = stored.get(key)
            if (mode === 'replay' && entry) return replayOf(entry.response, response)
            return errorAnswer(response, 409, {
              type: 'conflict_error',
              code: 'idempotency_key_reused',
              message: 'This Idempotency-Key was already used with a different request body or path.',
              param: 'Idempotency-Key',
            })
          }
          if (
            request.method === 'POST' &&
            key &&
            pathOf(request).startsWith('/v1/') &&
            response.status >= 200 &&
            response.status < 300 &&
            response.headers['idempotent-replayed'] !== 'true' &&
            !stored.has(key)
          )
            stored.set(key, {
              account: keys.account(tokenOf(request)),
              path: pathOf(request),
              body: canonical(jsonOf(request)),
              response: structuredClone(response),
            })
          return response
        },
      }
    },
  },
  {
    name: 'member-email-unique-across-accounts',
    kind: 'accounts',
    what:
      "The team members' e-mail column has a unique index over all accounts: inviting an address that is a member of another account is 409 member_already_exists. " +
      'Contract, inviteTeamMember: "if any member or pending invitation of the account already has it (case-insensitive), the answer is 409 `member_already_exists`" (of the account, not of any account).',
    make: () => {
      const seen = new Objects()
      const substituted = new WeakMap<EngineRequest, { original: string; used: string }>()
      return {
        request(request) {
          if (request.method !== 'POST' || pathOf(request) !== '/v1/team-members') return request
          const body = jsonOf(request)
          if (!isObject(body) || typeof body.email !== 'string') return request
          const email = body.email.toLowerCase()
          const account = seen.keys.account(tokenOf(request))
          const members = [...seen.members.values()]
          const elsewhere = members.some(
            (m) => m.account !== account && String(m.body.email).toLowerCase() === email,
          )
          const here = members.some(
            (m) => m.account === account && String(m.body.email).toLowerCase() === email,
          )
          // The engine itself answers the 409, after every earlier check: the address becomes one the
          // account's owner has (an owner cannot be removed, so it is there).
          const owner = members.find((m) => m.account === account && m.body.role === 'owner')
          if (!elsewhere || here || !owner) return request
          const used = String(owner.body.email)
          const sent = { ...request, body: JSON.stringify({ ...body, email: used }) }
          substituted.set(sent, { original: body.email, used })
          return sent
        },
        response(response, request) {
          const swap = substituted.get(request)
          if (!swap) {
            seen.observe(request, response)
            return response
          }
          const error = errorOf(response)
          if (error && typeof error.message === 'string')
            error.message = error.message.replaceAll(swap.used, swap.original.toLowerCase())
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------------ keys
  {
    name: 'revoked-key-works-once-more',
    kind: 'keys',
    what:
      "Authentication results are cached per key: the first request after a revocation is still authenticated from the cache (as the key's account and scopes), only later ones get 401. " +
      'docs/decisions/003: "A revocation is effective on the very next request"; the spec: "active -> key revoked -> revoked: requests that use the key receive 401".',
    make: () => {
      const keys = new KeyBook()
      const graced = new Set<string>()
      return {
        request(request) {
          const token = tokenOf(request)
          const info = keys.info(token)
          if (!token || !info?.revoked || graced.has(token) || !pathOf(request).startsWith('/v1/'))
            return request
          const twin = keys.find(
            info.account,
            (other) =>
              other.type === info.type &&
              [...other.permissions].sort().join() === [...info.permissions].sort().join(),
            token,
          )
          if (!twin) return request
          graced.add(token)
          return withToken(request, twin)
        },
        response(response, request) {
          keys.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'publishable-key-can-patch-agent',
    kind: 'keys',
    what:
      'PATCH /agents/{id} checks agents:read instead of agents:write (copied from GET), so a publishable key can modify an agent (its answer still leaves the sensitive fields out). ' +
      'The spec: a publishable key has "read-only access to public data; cannot modify sensitive data"; docs/decisions/004: "A publishable key may hold agents:read only"; contract, updateAgent: "Needs `agents:write`".',
    make: () => {
      const keys = new KeyBook()
      const swapped = new WeakSet<EngineRequest>()
      return {
        request(request) {
          const token = tokenOf(request)
          const info = keys.info(token)
          if (request.method !== 'PATCH' || !/^\/v1\/agents\/[^/]+$/.test(pathOf(request))) return request
          if (info?.type !== 'publishable' || !keys.unrestricted(info) || info.revoked) return request
          const writer = keys.find(info.account, (other) => other.permissions.includes('agents:write'))
          if (!writer) return request
          const sent = withToken(request, writer)
          swapped.add(sent)
          return sent
        },
        response(response, request) {
          keys.observe(request, response)
          if (swapped.has(request) && isObject(response.body) && response.body.object === 'agent')
            for (const field of SENSITIVE) delete response.body[field]
          return response
        },
      }
    },
  },
  {
    name: 'analytics-readable-with-call-logs-read',
    kind: 'keys',
    what:
      'Analytics are computed from call logs, and the endpoint checks call_logs:read instead of analytics:read: a key with call_logs:read and without analytics:read reads GET /analytics/calls. ' +
      'The spec: "When a key lacks permission for an action, the request fails with 403"; docs/decisions/004 makes "access analytics" the scope analytics:read; contract, getCallAnalytics: "Needs `analytics:read`".',
    make: () => {
      const keys = new KeyBook()
      return {
        request(request) {
          if (request.method !== 'GET' || pathOf(request) !== '/v1/analytics/calls') return request
          const token = tokenOf(request)
          const info = keys.info(token)
          if (!info || info.revoked || !keys.unrestricted(info)) return request
          if (!info.permissions.includes('call_logs:read') || info.permissions.includes('analytics:read'))
            return request
          const reader = keys.find(info.account, (other) => other.permissions.includes('analytics:read'))
          return reader ? withToken(request, reader) : request
        },
        response(response, request) {
          keys.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'allowed-origins-skipped-without-origin',
    kind: 'keys',
    what:
      'The allowed_origins restriction is only compared when the request has an Origin header; a request without one passes (a server-side caller of a browser key). ' +
      'docs/decisions/003: "allowed_origins (the request\'s Origin must be listed; else 403 key_restricted)"; control plane createKey: "a request whose `Origin` header is missing or not listed gets 403 `key_restricted`".',
    make: () => {
      const keys = new KeyBook()
      return {
        request(request) {
          const info = keys.info(tokenOf(request))
          if (!info || info.restrictions.allowed_origins.length === 0 || request.headers.origin !== undefined)
            return request
          if (!pathOf(request).startsWith('/v1/')) return request
          return { ...request, headers: { ...request.headers, origin: info.restrictions.allowed_origins[0] } }
        },
        response(response, request) {
          keys.observe(request, response)
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------------ time
  {
    name: 'retry-after-from-burst-window',
    kind: 'time',
    what:
      "Retry-After (and error.retry_after) always take the burst window's reset, also when the hourly window is the one exhausted: a client retrying after it is refused again. " +
      'docs/decisions/006: "A 429 carries Retry-After in seconds: the largest t among the exhausted windows, so that a retry after it is admitted."',
    make: () => ({
      response(response) {
        const error = errorOf(response)
        if (response.status !== 429 || !error || error.policy !== 'hourly') return response
        const match = /"burst";r=\d+;t=(\d+)/.exec(response.headers.ratelimit ?? '')
        if (!match) return response
        const seconds = Math.max(1, Number(match[1]))
        if (seconds >= Number(error.retry_after)) return response
        response.headers['retry-after'] = String(seconds)
        error.retry_after = seconds
        return response
      },
    }),
  },
  {
    name: 'retry-after-rounded-down',
    kind: 'time',
    what:
      "The time to the window's reset is rounded down instead of up, so Retry-After is one second short and a retry after it is refused. " +
      'docs/decisions/006: Retry-After is "the largest t among the exhausted windows, so that a retry after it is admitted"; contract Retry-After header: "rounded up".',
    make: () => ({
      response(response) {
        const error = errorOf(response)
        if (
          response.status !== 429 ||
          !error ||
          typeof error.retry_after !== 'number' ||
          error.retry_after < 2
        )
          return response
        error.retry_after -= 1
        response.headers['retry-after'] = String(error.retry_after)
        return response
      },
    }),
  },
  {
    name: 'analytics-timezone-ignored',
    kind: 'time',
    what:
      'The timezone parameter is echoed back but day, week and month buckets are still aligned to UTC midnight. ' +
      'docs/decisions/009 (analytics with `timezone`); contract, getCallAnalytics: "Buckets are aligned to calendar boundaries of the granularity in `timezone` (... local midnight for `day` ...)".',
    make: () => {
      const asked = new WeakMap<EngineRequest, string>()
      return {
        request(request) {
          if (request.method !== 'GET' || pathOf(request) !== '/v1/analytics/calls') return request
          const query = queryOf(request)
          const zone = query.get('timezone')
          const granularity = query.get('granularity') ?? 'day'
          if (!zone || zone === 'UTC' || !['day', 'week', 'month'].includes(granularity)) return request
          try {
            new Intl.DateTimeFormat('en', { timeZone: zone })
          } catch {
            return request
          }
          const sent = withQuery(request, 'timezone', 'UTC')
          if (sent) asked.set(sent, zone)
          return sent ?? request
        },
        response(response, request) {
          const zone = asked.get(request)
          if (zone && response.status === 200 && isObject(response.body)) response.body.timezone = zone
          return response
        },
      }
    },
  },
  {
    name: 'started-after-inclusive',
    kind: 'time',
    what:
      'The started_after filter is written as started_at >= value: a call that started exactly at the bound is listed. ' +
      'Contract, listCallLogs: "`started_after` / `started_before` are exclusive bounds on `started_at`"; parameter started_after: "strictly after this instant".',
    make: () => ({
      request(request) {
        if (request.method !== 'GET' || pathOf(request) !== '/v1/call-logs') return request
        const query = queryOf(request)
        const raw = query.get('started_after')
        if (!raw || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/i.test(raw)) return request
        const at = Date.parse(raw.toUpperCase())
        if (Number.isNaN(at) || at < Date.UTC(1971, 0, 1)) return request
        const before = query.get('started_before')
        // The range check still compares the value asked for.
        if (before !== null && !(Date.parse(before) > at)) return request
        // Timestamps are whole seconds: "> at - 1 s" is ">= at".
        return withQuery(request, 'started_after', isoSeconds(at - 1000)) ?? request
      },
    }),
  },
  {
    name: 'deleted-call-log-still-in-analytics',
    kind: 'time',
    what:
      'Analytics read a rollup that is not updated when a call log is deleted: a deleted call keeps counting in its bucket and in the totals. ' +
      'Contract, deleteCallLog: "A deleted call log no longer counts in analytics"; getCallAnalytics: "deleted call logs are gone and do not count".',
    make: () => {
      const seen = new Objects()
      const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places
      const add = (metrics: Json, call: Json) => {
        const n = (field: string) => Number(metrics[field] ?? 0)
        metrics.call_count = n('call_count') + 1
        if (call.status === 'completed') {
          metrics.completed_count = n('completed_count') + 1
          metrics.total_duration_seconds = n('total_duration_seconds') + Number(call.duration_seconds ?? 0)
          metrics.total_cost_usd = round(n('total_cost_usd') + Number(call.cost_usd ?? 0), 4)
          metrics.avg_duration_seconds = round(n('total_duration_seconds') / n('completed_count'), 2)
          metrics.avg_cost_usd = round(n('total_cost_usd') / n('completed_count'), 4)
        }
        if (isObject(call.analysis)) {
          metrics.analyzed_count = n('analyzed_count') + 1
          if (call.analysis.successful === true) metrics.successful_count = n('successful_count') + 1
          metrics.success_rate = round(n('successful_count') / n('analyzed_count'), 4)
          const sentiment = isObject(metrics.sentiment) ? metrics.sentiment : {}
          const mood = String(call.analysis.sentiment)
          sentiment[mood] = Number(sentiment[mood] ?? 0) + 1
          metrics.sentiment = sentiment
        }
      }
      const addTo = (part: Json, call: Json, at: number) => {
        if (isObject(part.totals)) add(part.totals, call)
        const bucket = (Array.isArray(part.series) ? (part.series as Json[]) : []).find(
          (each) => Date.parse(String(each.start)) <= at && at < Date.parse(String(each.end)),
        )
        if (bucket && isObject(bucket.metrics)) add(bucket.metrics, call)
      }
      return {
        response(response, request) {
          seen.observe(request, response)
          if (
            request.method !== 'GET' ||
            pathOf(request) !== '/v1/analytics/calls' ||
            response.status !== 200
          )
            return response
          const body = response.body as Json
          const account = seen.keys.account(tokenOf(request))
          for (const { body: call, account: owner } of seen.deletedCalls.values()) {
            if (owner !== account || typeof call.created_at !== 'string') continue
            const at = Date.parse(call.created_at)
            if (!(Date.parse(String(body.start)) <= at && at < Date.parse(String(body.end)))) continue
            if (body.agent_id !== null && body.agent_id !== call.agent_id) continue
            if (typeof body.group_by === 'string') {
              const group = (Array.isArray(body.groups) ? (body.groups as Json[]) : []).find(
                (each) => each.value === call[body.group_by as string],
              )
              if (!group) continue
              addTo(group, call, at)
            }
            addTo(body, call, at)
          }
          return response
        },
      }
    },
  },
  {
    name: 'updated-at-kept-on-no-op-patch',
    kind: 'time',
    what:
      'updated_at is only set when a PATCH changes a stored value; a PATCH that sends the values the agent already has leaves it as it was. ' +
      'Contract, updateAgent: "`updated_at` is set to the current time on every successful update, even if no value changed."',
    make: () => {
      const seen = new Objects()
      const kept = new Map<string, string>()
      const same = (before: Json, after: Json) =>
        Object.keys(after).every(
          (field) =>
            field === 'updated_at' ||
            !(field in before) ||
            canonical(before[field]) === canonical(after[field]),
        )
      const apply = (item: unknown) => {
        if (isObject(item) && item.object === 'agent' && typeof item.id === 'string' && kept.has(item.id))
          item.updated_at = kept.get(item.id)
      }
      return {
        response(response, request) {
          const match = /^\/v1\/agents\/([^/]+)$/.exec(pathOf(request))
          if (request.method === 'PATCH' && match && response.status === 200 && isObject(response.body)) {
            const id = String(response.body.id)
            const before = seen.agents.get(id)?.body
            if (before && same(before, response.body)) {
              if (!kept.has(id)) kept.set(id, String(before.updated_at))
            } else kept.delete(id)
          }
          seen.observe(request, response)
          if (!pathOf(request).startsWith('/v1/agents') || !isObject(response.body)) return response
          if (Array.isArray(response.body.data)) for (const item of response.body.data) apply(item)
          else apply(response.body)
          return response
        },
      }
    },
  },
  {
    name: 'connected-at-with-utc-offset',
    kind: 'time',
    what:
      'The integration update path formats connected_at with its own serializer, as "+00:00" instead of "Z". ' +
      'docs/decisions/001: "timestamps ISO 8601 in UTC with Z"; docs/decisions/011 allows only "ISO 8601 / RFC 3339 in UTC with Z, with or without fractional seconds".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'PATCH' || !/^\/v1\/integrations\/[^/]+$/.test(pathOf(request)))
          return response
        if (response.status !== 200 || !isObject(response.body)) return response
        const body = jsonOf(request)
        if (!isObject(body) || !isObject(body.credentials)) return response
        if (typeof response.body.connected_at === 'string')
          response.body.connected_at = response.body.connected_at.replace(/Z$/, '+00:00')
        return response
      },
    }),
  },

  // ----------------------------------------------------------------------------------------- idempotency
  {
    name: 'idempotency-scoped-per-api-key',
    kind: 'idempotency',
    what:
      'Idempotency records are stored under (API key, Idempotency-Key): the same key sent with another API key of the same account creates the object again. ' +
      'Contract, Idempotency: "Keys are scoped to the account"; docs/decisions/006 makes the account the unit ("all keys of an account share it") and 014 "one Idempotency-Key creates one object".',
    make: () => {
      const tag = (token: string) => {
        let hash = 0x811c9dc5
        for (const char of token) hash = Math.imul(hash ^ (char.codePointAt(0) ?? 0), 0x01000193) >>> 0
        return hash.toString(36)
      }
      return {
        request(request) {
          const key = request.headers['idempotency-key']
          const token = tokenOf(request)
          if (request.method !== 'POST' || !key || !token || key.length > 240 || !/^[\x21-\x7E]+$/.test(key))
            return request
          return { ...request, headers: { ...request.headers, 'idempotency-key': `${key}.${tag(token)}` } }
        },
      }
    },
  },
  {
    name: 'replay-answers-200',
    kind: 'idempotency',
    what:
      'A replayed POST answers 200 (the stored body was found, "OK") instead of the stored 201. ' +
      'Contract, Idempotency: a retry "returns the stored status, headers and body, plus `Idempotent-Replayed: true`"; createAgent: "a replay returns the stored 201".',
    make: () => ({
      response(response) {
        if (response.headers['idempotent-replayed'] === 'true' && response.status === 201)
          response.status = 200
        return response
      },
    }),
  },
  {
    name: 'idempotency-stores-error-answers',
    kind: 'idempotency',
    what:
      'Every answer of a POST with an Idempotency-Key is stored, 4xx included: a retry after a 422 or 409 replays the error, and the corrected body with the same key is 409 idempotency_key_reused. ' +
      'Contract, Idempotency: "A successful (2xx) response is stored with its key ... Error responses are not stored: retrying after a 4xx executes the request again."',
    make: () => {
      const keys = new KeyBook()
      const stored = new Map<string, { path: string; body: string; response: EngineResponse }>()
      const pending = new WeakMap<EngineRequest, { slot: string; same: boolean }>()
      const slot = (request: EngineRequest, key: string) => `${keys.account(tokenOf(request))}\n${key}`
      return {
        request(request) {
          const key = request.headers['idempotency-key']
          if (request.method !== 'POST' || !key || !pathOf(request).startsWith('/v1/')) return request
          const entry = stored.get(slot(request, key))
          if (!entry) return request
          // Nothing of this request is carried out: the engine answers a harmless 400 that is then replaced.
          const harmless = { ...request, body: '[]' }
          pending.set(harmless, {
            slot: slot(request, key),
            same: entry.path === pathOf(request) && entry.body === canonical(jsonOf(request)),
          })
          return harmless
        },
        response(response, request) {
          keys.observe(request, response)
          const key = request.headers['idempotency-key']
          const held = pending.get(request)
          if (held) {
            if (response.status !== 400 || errorOf(response)?.code !== 'invalid_json') return response
            const entry = stored.get(held.slot)
            if (entry && held.same) return replayOf(entry.response, response)
            return errorAnswer(response, 409, {
              type: 'conflict_error',
              code: 'idempotency_key_reused',
              message: 'This Idempotency-Key was already used with a different request body or path.',
              param: 'Idempotency-Key',
            })
          }
          const status = response.status
          if (
            request.method === 'POST' &&
            key &&
            pathOf(request).startsWith('/v1/') &&
            status >= 400 &&
            status < 500 &&
            ![401, 403, 429].includes(status) &&
            errorOf(response)?.param !== 'Idempotency-Key'
          )
            stored.set(slot(request, key), {
              path: pathOf(request),
              body: canonical(jsonOf(request)),
              response: structuredClone(response),
            })
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ validation
  {
    name: 'max-call-duration-7200-rejected',
    kind: 'validation',
    what:
      'max_call_duration_seconds is validated with an exclusive maximum: 7200 itself is 422 maximum. ' +
      'docs/decisions/009: "max_call_duration_seconds (30-7200)"; contract Agent schemas: "minimum: 30, maximum: 7200".',
    make: () => ({
      request(request) {
        const path = pathOf(request)
        const onAgents =
          (request.method === 'POST' && path === '/v1/agents') ||
          (request.method === 'PATCH' && /^\/v1\/agents\/[^/]+$/.test(path))
        const body = jsonOf(request)
        if (!onAgents || !isObject(body) || body.max_call_duration_seconds !== 7200) return request
        return { ...request, body: JSON.stringify({ ...body, max_call_duration_seconds: 7201 }) }
      },
      response(response) {
        const error = errorOf(response)
        if (response.status === 422 && error && Array.isArray(error.errors))
          for (const each of error.errors)
            if (isObject(each) && typeof each.message === 'string')
              each.message = each.message.replaceAll('7201', '7200')
        return response
      },
    }),
  },
  {
    name: 'unknown-fields-in-voice-and-llm-ignored',
    kind: 'validation',
    what:
      'Unknown top-level fields are refused, but the nested voice and llm objects are parsed leniently: unknown fields in them are dropped instead of reported. ' +
      'docs/decisions/007: "422 validation_error ... unknown fields are errors"; contract Voice/Llm input schemas: "additionalProperties: false".',
    make: () => {
      const known: Record<string, string[]> = {
        voice: ['provider', 'voice_id', 'speed'],
        llm: ['provider', 'model', 'temperature', 'max_tokens'],
      }
      return {
        request(request) {
          const path = pathOf(request)
          const onAgents =
            (request.method === 'POST' && path === '/v1/agents') ||
            (request.method === 'PATCH' && /^\/v1\/agents\/[^/]+$/.test(path))
          const body = jsonOf(request)
          if (!onAgents || !isObject(body)) return request
          let changed = false
          for (const [field, names] of Object.entries(known)) {
            const part = body[field]
            if (!isObject(part)) continue
            for (const name of Object.keys(part))
              if (!names.includes(name)) {
                delete part[name]
                changed = true
              }
          }
          return changed ? { ...request, body: JSON.stringify(body) } : request
        },
      }
    },
  },
  {
    name: 'only-first-validation-error-reported',
    kind: 'validation',
    what:
      'Validation stops at the first problem: a 422 lists one entry in errors however many fields are wrong. ' +
      'docs/decisions/007: "422 validation_error validation_failed, with errors: [{param, code, message}]" and "listing every problem of a body in one 422 saves a round trip per mistake"; contract: "every problem listed in `errors`".',
    make: () => ({
      response(response) {
        const error = errorOf(response)
        if (response.status === 422 && error && Array.isArray(error.errors) && error.errors.length > 1) {
          error.errors = error.errors.slice(0, 1)
          if (typeof error.message === 'string')
            error.message = error.message.replace(/\d+ errors/, '1 error')
        }
        return response
      },
    }),
  },
  {
    name: 'patch-llm-resets-max-tokens',
    kind: 'validation',
    what:
      "A PATCH of llm is parsed with the create schema's defaults, so an llm update that does not mention max_tokens resets it to 1024. " +
      'Contract, updateAgent: "`voice` and `llm` are **merged** field by field into the stored objects (send only what changes)"; docs/decisions/009: "PATCH (partial ...)".',
    make: () => ({
      request(request) {
        if (request.method !== 'PATCH' || !/^\/v1\/agents\/[^/]+$/.test(pathOf(request))) return request
        const body = jsonOf(request)
        if (
          !isObject(body) ||
          !isObject(body.llm) ||
          'max_tokens' in body.llm ||
          Object.keys(body.llm).length === 0
        )
          return request
        return { ...request, body: JSON.stringify({ ...body, llm: { ...body.llm, max_tokens: 1024 } }) }
      },
    }),
  },

  // ---------------------------------------------------------------------------------------------- errors
  {
    name: 'malformed-path-id-is-400',
    kind: 'errors',
    what:
      'A path ID of the wrong shape (not agt_/call_/mem_ followed by base62) is refused as a bad parameter, 400 invalid_parameter. ' +
      'Contract, Conventions: "A path ID that does not have the right shape is treated like an unknown ID (404 `resource_not_found`)."',
    make: () => {
      const shapes: [RegExp, RegExp][] = [
        [/^\/v1\/agents\/([^/]+)$/, /^agt_[A-Za-z0-9]+$/],
        [/^\/v1\/call-logs\/([^/]+)$/, /^call_[A-Za-z0-9]+$/],
        [/^\/v1\/team-members\/([^/]+)$/, /^mem_[A-Za-z0-9]+$/],
      ]
      return {
        response(response, request) {
          const error = errorOf(response)
          if (response.status !== 404 || error?.code !== 'resource_not_found') return response
          const path = pathOf(request)
          for (const [route, shape] of shapes) {
            const match = route.exec(path)
            if (!match) continue
            let id: string
            try {
              id = decodeURIComponent(match[1] as string)
            } catch {
              id = match[1] as string
            }
            if (shape.test(id) && id.length <= 64) return response
            return errorAnswer(response, 400, {
              type: 'invalid_request_error',
              code: 'invalid_parameter',
              message: `Invalid value for ${String(error.param)}: not an ID of the right shape.`,
              param: String(error.param),
            })
          }
          return response
        },
      }
    },
  },
  {
    name: 'rate-limit-headers-missing-on-handler-errors',
    kind: 'errors',
    what:
      'The rate-limit headers are added by the success path only: 404 and 422 answers raised by the handlers come without RateLimit, RateLimit-Policy and X-RateLimit-*. ' +
      'docs/decisions/006: "Every authenticated answer carries the IETF ... fields"; contract: "Every authenticated response (everything except 401) carries" them.',
    make: () => ({
      response(response, request) {
        if (!pathOf(request).startsWith('/v1/') || (response.status !== 404 && response.status !== 422))
          return response
        for (const name of Object.keys(response.headers))
          if (name.startsWith('ratelimit') || name.startsWith('x-ratelimit')) delete response.headers[name]
        return response
      },
    }),
  },
  {
    name: 'allow-header-without-head',
    kind: 'errors',
    what:
      "The 405 answer's Allow header lists the methods of the route table, which has no HEAD entries (HEAD is served by the GET handler). " +
      'Contract, Conventions: HEAD is answered wherever GET is documented and "`Allow` lists it after `GET`"; Allow header: "with `HEAD` after `GET` where there is a GET".',
    make: () => ({
      response(response) {
        if (response.status !== 405 || !response.headers.allow) return response
        response.headers.allow = response.headers.allow
          .split(/,\s*/)
          .filter((method) => method !== 'HEAD')
          .join(', ')
        const error = errorOf(response)
        if (error && typeof error.message === 'string') error.message = error.message.replace(/HEAD, /g, '')
        return response
      },
    }),
  },
]
