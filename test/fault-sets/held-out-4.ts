/**
 * Held-out fault set 4: thirty faults an implementer of the platform's v1 API could plausibly ship, written
 * without reading the contract suite's checks, its exploration or the earlier fault lists (held-out-3 was read
 * for its format only, so as not to repeat its faults). Each fault wraps the correct engine (`faultyHandler`): it
 * rewrites a request before the engine sees it, or rewrites or replaces the engine's answer, keeping what it
 * needs to remember in the closure `make()` returns (keys seen created through the control plane, objects seen in
 * answers, the mock clock as the answers show it, its own idempotency records).
 *
 * The faults live in the relations between operations and in edge situations: what a create, update or delete
 * does to later lists and reads, pages in both directions, keys and scopes of one account against another, the
 * mock clock (expiry, sliding windows, idempotency lifetime, calls under way), equivalent request forms and the
 * order of checks. Every fault deviates from the platform's spec, the contract or a decision of
 * `docs/decisions/` (cited in `what`), in specific situations only, and never where the spec leaves a choice
 * open (docs/decisions/011-allowed-forms.md). Liveness: `scripts/fault-sets/held-out-4-live.ts`.
 */
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'
import type { KeyInfo } from './fault-books.ts'
import {
  canonical,
  errorOf,
  ITEM_PATH,
  isObject,
  isRead,
  type Json,
  jsonOf,
  limitAsSent,
  pathOf,
  queryOf,
  round,
  tightest as tightestOf,
  tokenOf,
  type Window,
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

/** A `req_` identifier of the engine's shape (base62), not the one of the answer. */
const otherRequestId = () => `req_${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`

/** An error answer in the platform's envelope, built on the engine's answer (its Request-Id and rate-limit headers). */
function errorAnswer(base: EngineResponse, status: number, error: Json): EngineResponse {
  const requestId = base.headers['request-id']
  const headers = { ...base.headers }
  delete headers.location
  delete headers['idempotent-replayed']
  delete headers.allow
  delete headers['www-authenticate']
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
  return {
    status: stored.status,
    headers: { ...headers, 'idempotent-replayed': 'true' },
    body: structuredClone(stored.body),
  }
}

const isListPath = (path: string) => /^\/v1\/(agents|call-logs|team-members)\/?$/.test(path)

/** The ID in an item path, decoded as the router decodes it. */
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

/** An `Idempotency-Key` the engine takes (1-255 printable ASCII characters), leaving room for a suffix. */
const suffixableKey = (key: string | undefined): key is string =>
  key !== undefined && /^[\x21-\x7E]{1,240}$/.test(key)

/** Newest first: created_at descending, then id descending (docs/decisions/008). Negative: `a` comes first. */
function newestFirst(a: Json, b: Json): number {
  const at = Date.parse(String(a.created_at))
  const bt = Date.parse(String(b.created_at))
  if (at !== bt) return bt - at
  return String(a.id) < String(b.id) ? 1 : String(a.id) > String(b.id) ? -1 : 0
}

/**
 * Whether the engine's answer got past authentication, the rate limit and the route (docs/decisions/005), so
 * that a permission or restriction failure would be the answer now. A preflight is not such a request.
 */
function pastRoute(request: EngineRequest, response: EngineResponse): boolean {
  if (request.method === 'OPTIONS' || !pathOf(request).startsWith('/v1/')) return false
  if ([401, 405, 429].includes(response.status)) return false
  return !(response.status === 404 && errorOf(response)?.code === 'route_not_found')
}

const pastPermission = (request: EngineRequest, response: EngineResponse) =>
  pastRoute(request, response) && response.status !== 403

// ------------------------------------------------------------------------ rate-limit headers, and the clock

/** The windows of `RateLimit-Policy` and `RateLimit`, in their order (hourly, burst), or undefined. */
function windowsOf(headers: Record<string, string>): Window[] | undefined {
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
  return windows.length === 2 ? windows : undefined
}

const rateLimitHeader = (windows: Window[]) =>
  windows.map((window) => `"${window.policy}";r=${window.r};t=${window.t}`).join(', ')

/**
 * The mock clock as the answers show it: `now` of `GET /_mock/clock` and `POST /_mock/clock/advance`, and the
 * whole second every rate-limited answer implies (`X-RateLimit-Reset` less the `t` of the window it describes).
 */
class ClockWatch {
  private at: number | undefined

  observe(request: EngineRequest, response: EngineResponse): void {
    const path = pathOf(request)
    if (path === '/_mock/reset') {
      this.at = undefined
      return
    }
    if (
      (path === '/_mock/clock' || path === '/_mock/clock/advance') &&
      response.status === 200 &&
      isObject(response.body) &&
      typeof response.body.now === 'string'
    ) {
      this.at = Date.parse(response.body.now)
      return
    }
    const windows = windowsOf(response.headers)
    const reset = Number(response.headers['x-ratelimit-reset'])
    if (!windows || !Number.isFinite(reset)) return
    const ms = (reset - tightestOf(windows).t) * 1000
    if (this.at === undefined || ms > this.at) this.at = ms
  }

  now(): number | undefined {
    return this.at
  }
}

// ----------------------------------------------------------- what a fault learns by watching the traffic

/**
 * The accounts and keys made through the control plane (`POST /_mock/accounts`, and
 * `POST /_mock/accounts/{id}/keys`, whose 201 shows the value once) and the keys revoked there: which account a
 * key belongs to, its type, scopes and restrictions. A key it never saw made (the seeded demo keys) counts as an
 * account of its own.
 */
class KeyBook {
  private byToken = new Map<string, KeyInfo>()
  private byId = new Map<string, KeyInfo>()
  /** The e-mail address of each account made through the control plane (its owner's, lower-cased). */
  emails = new Map<string, string>()

  observe(request: EngineRequest, response: EngineResponse): void {
    const path = pathOf(request)
    if (request.method !== 'POST' || !path.startsWith('/_mock/')) return
    if (path === '/_mock/accounts' && response.status === 201 && isObject(response.body)) {
      const { id, email } = response.body
      if (typeof id === 'string' && typeof email === 'string') this.emails.set(id, email.toLowerCase())
      return
    }
    if (/^\/_mock\/accounts\/[^/]+\/keys$/.test(path) && response.status === 201) {
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
    if (revoke && response.status === 200) {
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

const sameScopes = (a: KeyInfo, b: KeyInfo) =>
  [...a.permissions].sort().join() === [...b.permissions].sort().join()

interface Seen {
  body: Json
  account: string
}

/**
 * The agents, call logs and team members seen in the engine's answers (the latest version of each, with its
 * account; calls started through the control plane too), and those deleted (with their last version).
 */
class Objects {
  keys = new KeyBook()
  agents = new Map<string, Seen>()
  calls = new Map<string, Seen>()
  members = new Map<string, Seen>()
  deleted = new Map<string, Seen>()

  table(object: unknown) {
    return object === 'agent'
      ? this.agents
      : object === 'call_log'
        ? this.calls
        : object === 'team_member'
          ? this.members
          : undefined
  }

  tableOfPath(path: string) {
    return path.startsWith('/v1/agents')
      ? this.agents
      : path.startsWith('/v1/call-logs')
        ? this.calls
        : path.startsWith('/v1/team-members')
          ? this.members
          : undefined
  }

  observe(request: EngineRequest, response: EngineResponse): void {
    this.keys.observe(request, response)
    const path = pathOf(request)
    const started = /^\/_mock\/accounts\/([^/]+)\/calls$/.exec(path)
    if (request.method === 'POST' && started && response.status === 201 && isObject(response.body)) {
      const body = response.body
      if (typeof body.id === 'string')
        this.calls.set(body.id, { body: structuredClone(body), account: started[1] as string })
      return
    }
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
      this.deleted.set(body.id, gone ?? { body: { id: body.id, object: body.object }, account })
      return
    }
    const items = body.object === 'list' && Array.isArray(body.data) ? body.data : [body]
    for (const item of items) {
      if (!isObject(item) || typeof item.id !== 'string') continue
      const table = this.table(item.object)
      if (!table) continue
      // What a key sees of an object may be less than the whole (a publishable key, a list's summary): merge.
      const before = table.get(item.id)
      table.set(item.id, { body: structuredClone({ ...(before?.body ?? {}), ...item }), account })
    }
  }

  /** Whether `id` was deleted in `account`. */
  wasDeleted(id: unknown, account: string): boolean {
    return typeof id === 'string' && this.deleted.get(id)?.account === account
  }
}

/** The methods documented for each v1 path (the engine's `Allow`, HEAD after GET). */
const ROUTES: [RegExp, string[]][] = [
  [/^\/v1\/user\/?$/, ['GET', 'HEAD']],
  [/^\/v1\/agents\/?$/, ['GET', 'HEAD', 'POST']],
  [/^\/v1\/agents\/[^/]+\/?$/, ['GET', 'HEAD', 'DELETE', 'PATCH']],
  [/^\/v1\/call-logs\/?$/, ['GET', 'HEAD']],
  [/^\/v1\/call-logs\/[^/]+\/?$/, ['GET', 'HEAD', 'DELETE']],
  [/^\/v1\/analytics\/calls\/?$/, ['GET', 'HEAD']],
  [/^\/v1\/integrations\/?$/, ['GET', 'HEAD']],
  [/^\/v1\/integrations\/[^/]+\/?$/, ['GET', 'HEAD', 'PATCH']],
  [/^\/v1\/team-members\/?$/, ['GET', 'HEAD', 'POST']],
  [/^\/v1\/team-members\/[^/]+\/?$/, ['GET', 'HEAD', 'DELETE', 'PATCH']],
]

/** Every metrics object of an analytics answer: the totals and buckets, of the whole range and of each group. */
function metricsOf(body: Json): Json[] {
  const found: Json[] = []
  const part = (holder: Json) => {
    if (isObject(holder.totals)) found.push(holder.totals)
    if (Array.isArray(holder.series))
      for (const bucket of holder.series)
        if (isObject(bucket) && isObject(bucket.metrics)) found.push(bucket.metrics)
  }
  part(body)
  if (Array.isArray(body.groups)) for (const group of body.groups) if (isObject(group)) part(group)
  return found
}

// ------------------------------------------------------------------------------------------------- faults

export const faults: HeldOutFault[] = [
  // ----------------------------------------------------------------------------------------------- pages
  {
    name: 'ending-before-has-more-always-false',
    kind: 'pages',
    what:
      'has_more is only computed when paging forward (from the newest, or with starting_after); a page asked with ending_before always says has_more: false, also when newer objects remain beyond it. ' +
      'Contract, Lists and pagination: "`has_more` tells whether more objects exist beyond the returned page in the direction of travel."',
    make: () => ({
      response(response, request) {
        if (!isRead(request) || !isListPath(pathOf(request)) || response.status !== 200) return response
        if (!queryOf(request).has('ending_before') || !isObject(response.body)) return response
        if (response.body.has_more === true) response.body.has_more = false
        return response
      },
    }),
  },
  {
    name: 'call-log-cursor-outside-agent-filter-refused',
    kind: 'pages',
    what:
      'With agent_id, call logs are paged over the per-agent index and the cursor is looked up in that index only: a cursor that is a call log of the account but of another agent is refused with 400 invalid_cursor. ' +
      'Contract, StartingAfter: "an ID that is not an object of this collection in this account is 400 `invalid_cursor`" (a call log of another agent is one), and listCallLogs: "Filters combine with AND".',
    make: () => {
      const seen = new Objects()
      return {
        response(response, request) {
          seen.observe(request, response)
          if (!isRead(request) || pathOf(request) !== '/v1/call-logs' || response.status !== 200)
            return response
          const query = queryOf(request)
          const agent = query.get('agent_id')
          const param = query.has('starting_after') ? 'starting_after' : 'ending_before'
          const cursor = query.get(param)
          if (!agent || !cursor) return response
          const call = seen.calls.get(cursor) ?? seen.deleted.get(cursor)
          if (!call || call.account !== seen.keys.account(tokenOf(request))) return response
          if (call.body.agent_id === undefined || call.body.agent_id === agent) return response
          return errorAnswer(response, 400, {
            type: 'invalid_request_error',
            code: 'invalid_cursor',
            message: `No object with id '${cursor}' to page from.`,
            param,
          })
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------------- order
  {
    name: 'updated-agent-moves-to-top-of-list',
    kind: 'order',
    what:
      'The agents list is served from an index ordered by last write (a sorted set scored with the time of the create or of the latest PATCH): an older agent that was just updated comes before newer ones. ' +
      'Contract, listAgents: "Lists the account\'s agents, newest first (`created_at` descending, then `id` descending)"; docs/decisions/008: "Objects come newest first by created_at, then by id".',
    make: () => {
      const written = new Map<string, string>()
      const score = (agent: Json) => Date.parse(String(written.get(String(agent.id)) ?? agent.created_at))
      return {
        response(response, request) {
          const item = itemOf(pathOf(request))
          if (request.method === 'PATCH' && item?.collection === 'agents' && response.status === 200) {
            const body = response.body as Json
            written.set(String(body.id), String(body.updated_at))
            return response
          }
          if (!isRead(request) || pathOf(request) !== '/v1/agents' || response.status !== 200) return response
          const body = response.body as Json
          if (!Array.isArray(body.data)) return response
          body.data = [...(body.data as Json[])].sort((a, b) => score(b) - score(a) || newestFirst(a, b))
          return response
        },
      }
    },
  },
  {
    name: 'queued-calls-listed-last',
    kind: 'order',
    what:
      'Call logs are ordered by started_at descending with NULLS LAST, so a call still queued (started_at null), although the newest, comes after every call that started. ' +
      'Contract, listCallLogs: "Lists the account\'s call logs, newest first (`created_at` descending, then `id` descending)".',
    make: () => ({
      response(response, request) {
        if (!isRead(request) || pathOf(request) !== '/v1/call-logs' || response.status !== 200)
          return response
        const body = response.body as Json
        if (!Array.isArray(body.data)) return response
        const data = body.data as Json[]
        body.data = [
          ...data.filter((item) => item.started_at !== null),
          ...data.filter((item) => item.started_at === null),
        ]
        return response
      },
    }),
  },

  // -------------------------------------------------------------------------------------------- accounts
  {
    name: 'cursor-of-another-account-accepted',
    kind: 'accounts',
    what:
      "The cursor's position is looked up by ID over all accounts (only the page query is scoped to the caller's account): starting_after or ending_before naming another account's object is accepted and pages the caller's objects from its position. " +
      'Contract, StartingAfter: "an ID that is not an object of this collection in this account is 400 `invalid_cursor`".',
    make: () => {
      const seen = new Objects()
      const plans = new WeakMap<EngineRequest, { cursor: Json; newer: boolean; limit: number }>()
      return {
        request(request) {
          const path = pathOf(request)
          if (!isRead(request) || !isListPath(path)) return request
          const query = queryOf(request)
          const after = query.getAll('starting_after')
          const before = query.getAll('ending_before')
          if (after.length + before.length !== 1) return request
          const id = (after[0] ?? before[0]) as string
          const other = seen.tableOfPath(path)?.get(id)
          const limit = limitAsSent(query)
          if (!other || other.account === seen.keys.account(tokenOf(request)) || limit === undefined)
            return request
          const sent = withQuery(request, (q) => {
            q.delete('starting_after')
            q.delete('ending_before')
            q.set('limit', '100')
          })
          plans.set(sent, { cursor: other.body, newer: before.length === 1, limit })
          return sent
        },
        response(response, request) {
          seen.observe(request, response)
          const plan = plans.get(request)
          if (!plan || response.status !== 200 || !isObject(response.body)) return response
          const body = response.body
          const data = Array.isArray(body.data) ? (body.data as Json[]) : []
          if (plan.newer) {
            const newer = data.filter((item) => newestFirst(item, plan.cursor) < 0)
            body.data = newer.slice(Math.max(0, newer.length - plan.limit))
            body.has_more = newer.length > plan.limit
          } else {
            const older = data.filter((item) => newestFirst(plan.cursor, item) < 0)
            body.data = older.slice(0, plan.limit)
            body.has_more = older.length > plan.limit || body.has_more === true
          }
          return response
        },
      }
    },
  },
  {
    name: 'integration-settings-shared-across-accounts',
    kind: 'accounts',
    what:
      'Integration records are stored under the provider slug alone (the catalogue is global, so the account was left out of the key): what one account last set on an integration (enabled, config, connection) is what every account reads and updates. ' +
      'Contract, listIntegrations: "every account has all seven (initially `not_connected`, disabled)", answered as "All integrations of the account"; docs/decisions/009 (integrations per account, PATCH `{enabled, config, credentials}`).',
    make: () => {
      const keys = new KeyBook()
      const latest = new Map<string, { account: string; body: Json }>()
      return {
        response(response, request) {
          keys.observe(request, response)
          const path = pathOf(request)
          const account = keys.account(tokenOf(request))
          const one = /^\/v1\/integrations\/([^/]+)\/?$/.exec(path)
          const shared = (item: unknown): unknown => {
            if (!isObject(item) || typeof item.id !== 'string') return item
            const last = latest.get(item.id)
            return last && last.account !== account ? structuredClone(last.body) : item
          }
          if (response.status !== 200 || !isObject(response.body)) return response
          if (request.method === 'PATCH' && one) {
            const answer = response.body
            const last = latest.get(String(answer.id))
            const sent = jsonOf(request)
            if (last && last.account !== account && isObject(sent)) {
              const merged = structuredClone(last.body)
              if ('enabled' in sent) merged.enabled = answer.enabled
              if ('config' in sent) merged.config = answer.config
              if ('credentials' in sent)
                for (const field of ['status', 'connected_at', 'credential_hint'])
                  merged[field] = answer[field]
              merged.updated_at = answer.updated_at
              response.body = merged
            }
            latest.set(String(answer.id), { account, body: structuredClone(response.body as Json) })
            return response
          }
          if (!isRead(request)) return response
          if (one) response.body = shared(response.body)
          else if (path === '/v1/integrations' && Array.isArray(response.body.data))
            response.body.data = response.body.data.map(shared)
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------------ keys
  {
    name: 'expired-key-five-minute-leeway',
    kind: 'keys',
    what:
      'Key expiry is checked with a 300 s clock-skew leeway (the habit of JWT libraries): a key keeps authenticating for five minutes after its expires_at. ' +
      'docs/decisions/003: "expires_at (after it the key is refused with a 401 whose message says it expired)"; contract, bearerAuth: "a key past its `expires_at` restriction is rejected with a message saying it expired".',
    make: () => {
      const keys = new KeyBook()
      const clock = new ClockWatch()
      return {
        request(request) {
          const token = tokenOf(request)
          const info = keys.info(token)
          const now = clock.now()
          if (!info || info.revoked || info.restrictions.expires_at === null || now === undefined)
            return request
          if (info.restrictions.allowed_ips.length > 0 || info.restrictions.allowed_origins.length > 0)
            return request
          if (!pathOf(request).startsWith('/v1/')) return request
          const expiry = Date.parse(info.restrictions.expires_at)
          if (!(now >= expiry && now < expiry + 300_000)) return request
          const twin = keys.find(
            info.account,
            (other) => other.type === info.type && sameScopes(other, info),
            token,
          )
          return twin ? withToken(request, twin) : request
        },
        response(response, request) {
          keys.observe(request, response)
          clock.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'member-removal-without-team-scope',
    kind: 'keys',
    what:
      'DELETE /team-members/{id} is guarded like every other DELETE, by resources:delete alone: a key without team_members:write removes members and withdraws invitations. ' +
      'Contract, removeTeamMember: "Needs both `resources:delete` (every DELETE) and `team_members:write`"; docs/decisions/004: "removing a team member also needs team_members:write".',
    make: () => {
      const keys = new KeyBook()
      return {
        request(request) {
          if (request.method !== 'DELETE' || !/^\/v1\/team-members\/[^/]+\/?$/.test(pathOf(request)))
            return request
          const token = tokenOf(request)
          const info = keys.info(token)
          if (!info || info.revoked || !keys.unrestricted(info)) return request
          if (
            !info.permissions.includes('resources:delete') ||
            info.permissions.includes('team_members:write')
          )
            return request
          const twin = keys.find(
            info.account,
            (other) =>
              other.permissions.includes('resources:delete') &&
              other.permissions.includes('team_members:write'),
            token,
          )
          return twin ? withToken(request, twin) : request
        },
        response(response, request) {
          keys.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'write-scope-does-not-imply-read',
    kind: 'keys',
    what:
      'Scopes are compared literally: a key holding agents:write (or integrations:write) without the matching read scope gets 403 on the GETs of agents (integrations), although it may create and change them. ' +
      'docs/decisions/004: "agents:write implies agents:read; integrations:write implies integrations:read"; contract, listAgents: "Needs `agents:read` (also granted by `agents:write`)".',
    make: () => {
      const keys = new KeyBook()
      return {
        response(response, request) {
          keys.observe(request, response)
          if (!isRead(request)) return response
          const path = pathOf(request)
          const area = /^\/v1\/(agents|integrations)(\/|$)/.exec(path)?.[1]
          const info = keys.info(tokenOf(request))
          if (!area || !info || !pastPermission(request, response)) return response
          const needed = `${area}:read`
          if (info.permissions.includes(needed) || !info.permissions.includes(`${area}:write`))
            return response
          return errorAnswer(response, 403, {
            type: 'permission_error',
            code: 'insufficient_permissions',
            message: `This API key lacks the permission '${needed}' required for this request.`,
            required_permission: needed,
          })
        },
      }
    },
  },
  {
    name: 'allowed-ips-compared-as-text',
    kind: 'keys',
    what:
      'allowed_ips entries are compared with the client address as strings: a listed address passes, but a CIDR range never matches, so a request from inside an allowed range gets 403 key_restricted. ' +
      'docs/decisions/003: "allowed_ips (CIDR ranges; a request from elsewhere is 403 key_restricted)"; control plane, createKey: "`allowed_ips` (IPv4/IPv6 addresses or CIDRs; requests from elsewhere get 403 `key_restricted`)".',
    make: () => {
      const keys = new KeyBook()
      return {
        response(response, request) {
          keys.observe(request, response)
          const info = keys.info(tokenOf(request))
          const ip = request.clientIp
          if (!info || info.restrictions.allowed_ips.length === 0 || !ip) return response
          if (!pastPermission(request, response) || info.restrictions.allowed_ips.includes(ip))
            return response
          return errorAnswer(response, 403, {
            type: 'permission_error',
            code: 'key_restricted',
            message: 'This API key may not be used from this IP address.',
          })
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------------ time
  {
    name: 'idempotency-keys-kept-one-hour',
    kind: 'time',
    what:
      'Idempotency records are written to the cache with its default TTL of 3600 s: an hour after the first request, a retry with the same key and body creates the object again (and another body is carried out instead of 409). ' +
      'Contract, Idempotency: "Keys are scoped to the account and kept for 24 hours (by the platform clock)"; docs/decisions/008: "kept 24 hours".',
    make: () => {
      const keys = new KeyBook()
      const clock = new ClockWatch()
      const records = new Map<string, { at: number | undefined; generation: number }>()
      const slots = new WeakMap<EngineRequest, string>()
      return {
        request(request) {
          const key = request.headers['idempotency-key']
          if (request.method !== 'POST' || !pathOf(request).startsWith('/v1/') || !suffixableKey(key))
            return request
          const slot = `${keys.account(tokenOf(request))}\n${key}`
          const record = records.get(slot)
          const now = clock.now()
          if (record?.at !== undefined && now !== undefined) {
            const age = now - record.at
            if (age >= 3_600_000 && age < 86_400_000) {
              record.generation++
              record.at = undefined
            }
          }
          const generation = record?.generation ?? 0
          const sent =
            generation === 0
              ? { ...request }
              : { ...request, headers: { ...request.headers, 'idempotency-key': `${key}~${generation}` } }
          slots.set(sent, slot)
          return sent
        },
        response(response, request) {
          keys.observe(request, response)
          clock.observe(request, response)
          const slot = slots.get(request)
          if (!slot || response.status < 200 || response.status >= 300) return response
          if (response.headers['idempotent-replayed'] === 'true') return response
          const record = records.get(slot) ?? { at: undefined, generation: 0 }
          record.at = clock.now()
          records.set(slot, record)
          return response
        },
      }
    },
  },
  {
    name: 'ratelimit-reset-from-newest-request',
    kind: 'time',
    what:
      'The t of each RateLimit window (and X-RateLimit-Reset with it) is computed from the newest request counted instead of the oldest: after requests spread over time, every window claims a full w seconds to go. ' +
      'docs/decisions/006: "`t` the whole seconds until the oldest request counted in the window leaves it (0 when none)"; contract RateLimit header: "`t` is the whole seconds (rounded up) until the oldest request counted in that window leaves it".',
    make: () => ({
      response(response, request) {
        if (!pathOf(request).startsWith('/v1/') || response.status === 429) return response
        const windows = windowsOf(response.headers)
        const reset = Number(response.headers['x-ratelimit-reset'])
        if (!windows || !Number.isFinite(reset)) return response
        const nowSeconds = reset - tightestOf(windows).t
        for (const window of windows) if (window.r < window.q) window.t = window.w
        response.headers.ratelimit = rateLimitHeader(windows)
        response.headers['x-ratelimit-reset'] = String(nowSeconds + tightestOf(windows).t)
        return response
      },
    }),
  },
  {
    name: 'success-rate-over-completed-calls',
    kind: 'time',
    what:
      "success_rate divides successful_count by completed_count instead of analyzed_count: in the two minutes between a call's end and its analysis the rate drops, and it reads 0 instead of null while completed calls wait for their analysis. " +
      'Contract, getCallAnalytics: "`success_rate` = `successful_count / analyzed_count` (rounded to 4 decimals, `null` when nothing was analyzed)".',
    make: () => ({
      response(response, request) {
        if (!isRead(request) || pathOf(request) !== '/v1/analytics/calls' || response.status !== 200)
          return response
        if (!isObject(response.body)) return response
        for (const metrics of metricsOf(response.body)) {
          const completed = Number(metrics.completed_count ?? 0)
          metrics.success_rate =
            completed > 0 ? round(Number(metrics.successful_count ?? 0) / completed, 4) : null
        }
        return response
      },
    }),
  },
  {
    name: 'duration-filter-counts-unended-calls-as-zero',
    kind: 'time',
    what:
      'The duration filters read a missing duration as 0 ((duration_seconds ?? 0) <= max): calls still queued, ringing or in progress match max_duration_seconds. ' +
      'Contract, listCallLogs: "`min_duration_seconds` / `max_duration_seconds` are inclusive bounds on `duration_seconds` (calls whose `duration_seconds` is `null`, i.e. not ended, never match a duration filter)".',
    make: () => {
      const plans = new WeakMap<EngineRequest, { max: number; limit: number }>()
      return {
        request(request) {
          if (!isRead(request) || pathOf(request) !== '/v1/call-logs') return request
          const query = queryOf(request)
          const max = query.getAll('max_duration_seconds')
          const min = query.getAll('min_duration_seconds')
          const limit = limitAsSent(query)
          if (max.length !== 1 || !/^(0|[1-9][0-9]{0,8})$/.test(max[0] as string) || limit === undefined)
            return request
          // With a minimum above 0, a duration read as 0 matches nothing more.
          if (min.length > 1 || (min.length === 1 && min[0] !== '0')) return request
          const sent = withQuery(request, (q) => {
            q.delete('max_duration_seconds')
            q.delete('min_duration_seconds')
            q.set('limit', '100')
          })
          plans.set(sent, { max: Number(max[0]), limit })
          return sent
        },
        response(response, request) {
          const plan = plans.get(request)
          if (!plan || response.status !== 200 || !isObject(response.body)) return response
          const body = response.body
          const data = Array.isArray(body.data) ? (body.data as Json[]) : []
          const kept = data.filter((item) => Number(item.duration_seconds ?? 0) <= plan.max)
          body.data = kept.slice(0, plan.limit)
          body.has_more = kept.length > plan.limit || body.has_more === true
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------- idempotency
  {
    name: 'idempotent-bodies-compared-as-text',
    kind: 'idempotency',
    what:
      'The stored request is compared with the retry as raw body text: a retry whose JSON differs only in whitespace or key order is 409 idempotency_key_reused instead of a replay. ' +
      'Contract, Idempotency: "a retry with the same key, same path and the same body (compared as JSON values, so whitespace and key order do not matter) returns the stored status, headers and body".',
    make: () => {
      const keys = new KeyBook()
      const first = new Map<string, string>()
      return {
        response(response, request) {
          keys.observe(request, response)
          const key = request.headers['idempotency-key']
          if (request.method !== 'POST' || !key || !pathOf(request).startsWith('/v1/')) return response
          const slot = `${keys.account(tokenOf(request))}\n${key}`
          if (response.status < 200 || response.status >= 300) return response
          if (response.headers['idempotent-replayed'] !== 'true') {
            first.set(slot, request.body ?? '')
            return response
          }
          const text = first.get(slot)
          if (text === undefined || text === (request.body ?? '')) return response
          return errorAnswer(response, 409, {
            type: 'conflict_error',
            code: 'idempotency_key_reused',
            message: 'This Idempotency-Key was already used with a different request.',
            param: 'Idempotency-Key',
          })
        },
      }
    },
  },
  {
    name: 'replay-served-before-permission-check',
    kind: 'idempotency',
    what:
      'The idempotency cache is consulted before the permission check: another key of the account without the scope (a read-only key) that retries a stored Idempotency-Key with the same body gets the stored 201 instead of 403. ' +
      'Contract, Idempotency: a retry "returns the stored status, headers and body ... (it still counts against rate limits and is still authenticated and permission checked)".',
    make: () => {
      const keys = new KeyBook()
      const stored = new Map<string, { path: string; body: string; response: EngineResponse }>()
      return {
        response(response, request) {
          keys.observe(request, response)
          const key = request.headers['idempotency-key']
          const path = pathOf(request)
          if (request.method !== 'POST' || !key || !path.startsWith('/v1/')) return response
          const slot = `${keys.account(tokenOf(request))}\n${key}`
          if (
            response.status >= 200 &&
            response.status < 300 &&
            response.headers['idempotent-replayed'] !== 'true'
          ) {
            stored.set(slot, { path, body: canonical(jsonOf(request)), response: structuredClone(response) })
            return response
          }
          const entry = stored.get(slot)
          if (response.status !== 403 || errorOf(response)?.code !== 'insufficient_permissions' || !entry)
            return response
          if (entry.path !== path || entry.body !== canonical(jsonOf(request))) return response
          return replayOf(entry.response, response)
        },
      }
    },
  },
  {
    name: 'replay-without-location',
    kind: 'idempotency',
    what:
      'Only the status and body of the first answer are stored: a replayed 201 comes without its Location header. ' +
      'Contract, Idempotency: a retry "returns the stored status, headers and body, plus `Idempotent-Replayed: true`"; createAgent and inviteTeamMember document Location (required) on every 201.',
    make: () => ({
      response(response) {
        if (response.headers['idempotent-replayed'] === 'true') delete response.headers.location
        return response
      },
    }),
  },
  {
    name: 'replay-of-deleted-object-runs-again',
    kind: 'idempotency',
    what:
      'A stored answer is checked against the database before it is replayed; when the object it created has since been deleted, the record is treated as stale and the POST is carried out again, creating a new object. ' +
      'Contract, Idempotency: a retry with the same key, path and body "returns the stored status, headers and body, plus `Idempotent-Replayed: true`, without creating anything again".',
    make: () => {
      const seen = new Objects()
      const made = new Map<string, { id: string | undefined; generation: number }>()
      const slots = new WeakMap<EngineRequest, string>()
      return {
        request(request) {
          const key = request.headers['idempotency-key']
          if (request.method !== 'POST' || !pathOf(request).startsWith('/v1/') || !suffixableKey(key))
            return request
          const account = seen.keys.account(tokenOf(request))
          const slot = `${account}\n${key}`
          const record = made.get(slot)
          if (record?.id !== undefined && seen.wasDeleted(record.id, account)) {
            record.generation++
            record.id = undefined
          }
          const generation = record?.generation ?? 0
          const sent =
            generation === 0
              ? { ...request }
              : { ...request, headers: { ...request.headers, 'idempotency-key': `${key}~${generation}` } }
          slots.set(sent, slot)
          return sent
        },
        response(response, request) {
          seen.observe(request, response)
          const slot = slots.get(request)
          if (!slot || response.status < 200 || response.status >= 300 || !isObject(response.body))
            return response
          if (typeof response.body.id !== 'string') return response
          const record = made.get(slot) ?? { id: undefined, generation: 0 }
          record.id = response.body.id
          made.set(slot, record)
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ validation
  {
    name: 'duplicate-webhook-events-deduplicated',
    kind: 'validation',
    what:
      'webhook_events is turned into a set before it is validated: duplicates are silently dropped instead of refused. ' +
      'Contract, AgentCreateRequest and AgentUpdateRequest: webhook_events "uniqueItems: true" (FieldError code `unique_items`); docs/decisions/007: "422 validation_error ... with errors".',
    make: () => ({
      request(request) {
        const path = pathOf(request)
        const onAgents =
          (request.method === 'POST' && path === '/v1/agents') ||
          (request.method === 'PATCH' && /^\/v1\/agents\/[^/]+$/.test(path))
        const body = jsonOf(request)
        if (!onAgents || !isObject(body) || !Array.isArray(body.webhook_events)) return request
        const events = body.webhook_events
        if (!events.every((event) => typeof event === 'string')) return request
        const unique = [...new Set(events)]
        if (unique.length === events.length) return request
        return withJson(request, { ...body, webhook_events: unique })
      },
    }),
  },
  {
    name: 'query-integers-parsed-leniently',
    kind: 'validation',
    what:
      'Integer query parameters are read with Number(): `05`, `+5`, ` 5`, `5.0`, `1e1`, `0x10` are taken as whole numbers instead of refused. ' +
      'Contract, Conventions: "Numbers in query parameters are written as JSON writes them, in decimal digits (`limit=16`); `0x10`, `+5`, `05`, `1e1` for a whole number, or a value with spaces around it, is 400 `invalid_parameter`."',
    make: () => ({
      request(request) {
        if (!isRead(request) || !pathOf(request).startsWith('/v1/')) return request
        const query = queryOf(request)
        const lenient: [string, string][] = []
        for (const name of ['limit', 'min_duration_seconds', 'max_duration_seconds']) {
          const all = query.getAll(name)
          const raw = all[0]
          if (all.length !== 1 || raw === undefined || /^(0|[1-9][0-9]*)$/.test(raw) || raw.trim() === '')
            continue
          const value = Number(raw)
          if (Number.isSafeInteger(value) && value >= 0) lenient.push([name, String(value)])
        }
        if (lenient.length === 0) return request
        return withQuery(request, (q) => {
          for (const [name, value] of lenient) q.set(name, value)
        })
      },
    }),
  },
  {
    name: 'json-content-type-matched-exactly',
    kind: 'validation',
    what:
      'The body parser accepts only the exact header value "application/json": `application/json; charset=utf-8` (what many HTTP clients send) or `Application/JSON` is 415. ' +
      'Contract, UnsupportedMediaType: "a request body was sent with a `Content-Type` other than `application/json` (parameters such as `charset=utf-8` are allowed)"; media types are case-insensitive (RFC 9110).',
    make: () => {
      const swapped = new WeakMap<EngineRequest, string>()
      return {
        request(request) {
          const type = request.headers['content-type']
          if (!pathOf(request).startsWith('/v1/') || !request.body || !type || type === 'application/json')
            return request
          if (!/^application\/json\s*(;.*)?$/i.test(type.trim())) return request
          const sent = { ...request, headers: { ...request.headers, 'content-type': 'text/plain' } }
          swapped.set(sent, type)
          return sent
        },
        response(response, request) {
          const type = swapped.get(request)
          const error = errorOf(response)
          if (type !== undefined && response.status === 415 && typeof error?.message === 'string')
            error.message = error.message.replace("'text/plain'", `'${type}'`)
          return response
        },
      }
    },
  },

  // ---------------------------------------------------------------------------------------------- errors
  {
    name: 'validation-errors-with-their-own-request-id',
    kind: 'errors',
    what:
      'The validation layer builds its 422 body with a request ID of its own: error.request_id of a 422 differs from the Request-Id header. ' +
      'Contract, Conventions: error bodies "may repeat it as `error.request_id` ...; when present it equals the header"; Error schema: request_id "Same value as the `Request-Id` header".',
    make: () => ({
      response(response) {
        const error = errorOf(response)
        if (response.status === 422 && typeof error?.request_id === 'string')
          error.request_id = otherRequestId()
        return response
      },
    }),
  },
  {
    name: 'owner-role-conflict-before-validation',
    kind: 'errors',
    what:
      'PATCH /team-members/{id} checks "is this the owner?" before it validates the body: the owner patched with an invalid body (role `owner`, an unknown role, no role) is 409 owner_role_immutable instead of 422. ' +
      'Contract, updateTeamMember: "409 `owner_role_immutable` (checked after validation, per the order of checks)"; docs/decisions/005: "404 resource -> 422 body validation -> 409 conflict".',
    make: () => {
      const seen = new Objects()
      return {
        response(response, request) {
          seen.observe(request, response)
          const item = itemOf(pathOf(request))
          if (request.method !== 'PATCH' || item?.collection !== 'team-members' || response.status !== 422)
            return response
          const member = seen.members.get(item.id)
          if (member?.body.role !== 'owner' || member.account !== seen.keys.account(tokenOf(request)))
            return response
          return errorAnswer(response, 409, {
            type: 'conflict_error',
            code: 'owner_role_immutable',
            message: "The owner's role cannot be changed.",
            param: 'role',
          })
        },
      }
    },
  },
  {
    name: 'method-not-allowed-before-authentication',
    kind: 'errors',
    what:
      'The router answers an undocumented method on a known path before the authentication middleware runs: 405 with Allow, to a request without a key or with a revoked one, instead of 401. ' +
      'docs/decisions/005: "401 authentication -> 429 rate limit -> 404 / 405 route"; contract, Order of checks: "1. 401 authentication ... 3. 404 / 405 routing".',
    make: () => ({
      response(response, request) {
        const path = pathOf(request)
        if (response.status !== 401 || request.method === 'OPTIONS' || !path.startsWith('/v1/'))
          return response
        const allow = ROUTES.find(([pattern]) => pattern.test(path))?.[1]
        const method = request.method.toUpperCase()
        if (!allow || allow.includes(method)) return response
        const requestId = response.headers['request-id']
        return {
          status: 405,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            allow: allow.join(', '),
            ...(requestId ? { 'request-id': requestId } : {}),
          },
          body: {
            error: {
              type: 'invalid_request_error',
              code: 'method_not_allowed',
              message: `Method ${method} is not allowed here; allowed: ${allow.join(', ')}.`,
              ...(requestId ? { request_id: requestId } : {}),
            },
          },
        }
      },
    }),
  },

  // --------------------------------------------------------------------------------------------- headers
  {
    name: 'x-ratelimit-tie-goes-to-hourly',
    kind: 'headers',
    what:
      'The legacy X-RateLimit-* fields take the first window with the least remaining, so on a tie they describe the hourly window (its quota and reset) instead of burst. ' +
      'Contract, Rate limits: "`X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` for the window with the least remaining (ties: `burst`)"; X-RateLimit-Limit header: "(ties go to `burst`)".',
    make: () => ({
      response(response, request) {
        if (!pathOf(request).startsWith('/v1/')) return response
        const windows = windowsOf(response.headers)
        const reset = Number(response.headers['x-ratelimit-reset'])
        if (!windows || !Number.isFinite(reset)) return response
        const [hourly, burst] = windows as [Window, Window]
        if (hourly.policy !== 'hourly' || burst.policy !== 'burst' || hourly.r !== burst.r) return response
        const nowSeconds = reset - tightestOf(windows).t
        response.headers['x-ratelimit-limit'] = String(hourly.q)
        response.headers['x-ratelimit-remaining'] = String(hourly.r)
        response.headers['x-ratelimit-reset'] = String(nowSeconds + hourly.t)
        return response
      },
    }),
  },
  {
    name: 'preflight-only-on-collection-paths',
    kind: 'headers',
    what:
      'CORS preflight routes are registered for the literal paths only: OPTIONS on a templated path (/agents/{agent_id}, /team-members/{member_id}, /integrations/{integration_id}, /call-logs/{call_log_id}) is 404, so a browser can never PATCH or DELETE. ' +
      'Contract, Conventions: "The standalone mock answers CORS preflights (`OPTIONS`, 204) for every documented path"; docs/decisions/001: "The standalone mock answers CORS preflights".',
    make: () => ({
      response(response, request) {
        const path = pathOf(request)
        if (request.method !== 'OPTIONS' || !ITEM_PATH.test(path) || response.status !== 204) return response
        const requestId = response.headers['request-id']
        return {
          status: 404,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            ...(requestId ? { 'request-id': requestId } : {}),
          },
          body: {
            error: {
              type: 'not_found_error',
              code: 'route_not_found',
              message: `Unrecognized request URL (OPTIONS ${path}).`,
              ...(requestId ? { request_id: requestId } : {}),
            },
          },
        }
      },
    }),
  },

  // ------------------------------------------------------------------------------------------- relations
  {
    name: 'repeated-delete-answers-deleted',
    kind: 'relations',
    what:
      'DELETE was made "idempotent": deleting an agent, call log or team member that this account already deleted answers 200 {id, object, deleted: true} again instead of 404. ' +
      'Contract, deleteAgent: "Deleting it again gives 404"; NotFound: "`resource_not_found`: the path ID does not exist in the key\'s account (or has the wrong shape, or was deleted)".',
    make: () => {
      const seen = new Objects()
      return {
        response(response, request) {
          const account = seen.keys.account(tokenOf(request))
          seen.observe(request, response)
          const item = itemOf(pathOf(request))
          if (request.method !== 'DELETE' || !item || response.status !== 404) return response
          if (errorOf(response)?.code !== 'resource_not_found' || !seen.wasDeleted(item.id, account))
            return response
          const object = seen.deleted.get(item.id)?.body.object
          const headers = { ...response.headers }
          return { status: 200, headers, body: { id: item.id, object, deleted: true } }
        },
      }
    },
  },
  {
    name: 'agent-deletion-cascades-to-call-logs',
    kind: 'relations',
    what:
      'The call_logs table references agents ON DELETE CASCADE: deleting an agent deletes its call logs, which vanish from GET /call-logs (also with agent_id) and answer 404 by ID. ' +
      'Contract, deleteAgent: "The agent\'s call logs are **kept** (they keep its `agent_id` and still appear in lists and analytics)"; listCallLogs: "`agent_id` matches call logs of deleted agents too".',
    make: () => {
      const seen = new Objects()
      return {
        response(response, request) {
          seen.observe(request, response)
          if (!isRead(request) || response.status !== 200 || !isObject(response.body)) return response
          const account = seen.keys.account(tokenOf(request))
          const gone = (item: unknown) => isObject(item) && seen.wasDeleted(item.agent_id, account)
          const path = pathOf(request)
          if (path === '/v1/call-logs' && Array.isArray(response.body.data)) {
            response.body.data = response.body.data.filter((item) => !gone(item))
            return response
          }
          const item = itemOf(path)
          if (item?.collection !== 'call-logs' || !gone(response.body)) return response
          return errorAnswer(response, 404, {
            type: 'not_found_error',
            code: 'resource_not_found',
            message: `No call log with id '${item.id}'.`,
            param: 'call_log_id',
          })
        },
      }
    },
  },
  {
    name: 'agent-metadata-merged-on-update',
    kind: 'relations',
    what:
      'PATCH /agents/{id} deep-merges every object it is sent, metadata included: keys left out of the new metadata survive, and `metadata: {}` removes nothing. ' +
      'Contract, updateAgent: "every other field, including `metadata` and `webhook_events`, **replaces** the stored value as a whole (`metadata: {}` removes all keys)".',
    make: () => {
      const seen = new Objects()
      return {
        request(request) {
          const item = itemOf(pathOf(request))
          if (request.method !== 'PATCH' || item?.collection !== 'agents') return request
          const body = jsonOf(request)
          const stored = seen.agents.get(item.id)
          if (!isObject(body) || !isObject(body.metadata) || !stored || !isObject(stored.body.metadata))
            return request
          if (stored.account !== seen.keys.account(tokenOf(request))) return request
          const merged = { ...stored.body.metadata, ...body.metadata }
          if (canonical(merged) === canonical(body.metadata)) return request
          return withJson(request, { ...body, metadata: merged })
        },
        response(response, request) {
          seen.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'removed-member-email-stays-taken',
    kind: 'relations',
    what:
      "Removing a team member only marks the row removed, and the account's unique index on e-mail still covers it: inviting the same address again is 409 member_already_exists. " +
      'Contract, removeTeamMember: "Removes a member, or withdraws a pending invitation"; inviteTeamMember: 409 only "if any member or pending invitation of the account already has it".',
    make: () => {
      const seen = new Objects()
      const removed = new Map<string, Set<string>>()
      const substituted = new WeakMap<EngineRequest, { original: string; used: string }>()
      return {
        request(request) {
          if (request.method !== 'POST' || pathOf(request) !== '/v1/team-members') return request
          const body = jsonOf(request)
          if (!isObject(body) || typeof body.email !== 'string') return request
          const account = seen.keys.account(tokenOf(request))
          const email = body.email.toLowerCase()
          if (!removed.get(account)?.has(email)) return request
          // The engine itself answers the 409, after every earlier check: the address becomes the owner's.
          const owner =
            seen.keys.emails.get(account) ??
            [...seen.members.values()].find((m) => m.account === account && m.body.role === 'owner')?.body
              .email
          if (typeof owner !== 'string') return request
          const sent = withJson(request, { ...body, email: owner })
          substituted.set(sent, { original: email, used: owner })
          return sent
        },
        response(response, request) {
          const swap = substituted.get(request)
          if (swap) {
            const error = errorOf(response)
            if (error && typeof error.message === 'string')
              error.message = error.message.replaceAll(swap.used, swap.original)
            return response
          }
          const item = itemOf(pathOf(request))
          const account = seen.keys.account(tokenOf(request))
          const before = item ? seen.members.get(item.id) : undefined
          seen.observe(request, response)
          if (request.method === 'DELETE' && item?.collection === 'team-members' && response.status === 200) {
            const email = before?.body.email
            if (typeof email === 'string') {
              const set = removed.get(account) ?? new Set<string>()
              set.add(email.toLowerCase())
              removed.set(account, set)
            }
          }
          if (request.method === 'POST' && response.status === 201 && isObject(response.body))
            removed.get(account)?.delete(String(response.body.email))
          return response
        },
      }
    },
  },
]
