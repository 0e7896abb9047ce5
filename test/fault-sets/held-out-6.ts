/**
 * Held-out fault set 6: thirty faults an implementer of the platform's v1 API could plausibly ship, written blind
 * to the contract suite: neither its checks, nor its exploration, nor its tests, nor the held-out-3 list were read,
 * and the suite was never run. held-out-4 and held-out-5 were read for their format only, and so as not to repeat
 * their faults (every fault here breaks another rule, on another operation, or in another situation). The sources
 * were the platform's spec, the product decisions, the contract (`openapi/v1.yaml`, `openapi/mock-control.yaml`),
 * `docs/decisions/` and the mock engine (the correct implementation every fault wraps). Each fault wraps the
 * correct engine (`faultyHandler`): it rewrites a request before the engine sees it (another query, another key of
 * the object's account, a harmless read in place of a write it must not carry out), or rewrites or replaces the
 * engine's answer, keeping what it needs to remember in the closure `make()` returns (accounts, keys and objects
 * seen through the control plane and the answers, the mock clock as the answers show it, its own caches and
 * idempotency records).
 *
 * The weight is on relations between operations and on edge situations: what a delete, an update or a replay does
 * to later requests, pages in both directions, two accounts, keys and their scopes and restrictions, the mock clock
 * (calls under way, the idempotency lifetime, calendar buckets), equivalent request forms and the order of checks.
 * Every fault deviates from the platform's spec, the contract or a decision (cited in `what`), in specific
 * situations only, and never where the spec leaves a choice open (docs/decisions/011-allowed-forms.md).
 * Liveness: `scripts/fault-sets/held-out-6-live.ts`.
 */
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'
import { ClockWatch, type KeyInfo } from './fault-books.ts'
import {
  addMetrics,
  type Bucket,
  canonical,
  emptyMetrics,
  errorOf,
  hasScope,
  ITEM_PATH,
  instantOf,
  isObject,
  isRead,
  isV1,
  type Json,
  jsonOf,
  limitAsSent,
  neutralRead,
  nowSecondsOf,
  ok,
  pathOf,
  queryOf,
  sortKey,
  tightest as tightestOf,
  tokenOf,
  toTimestamp,
  windowsByName,
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

/** `stored` answered again as a replay, with the Request-Id and rate-limit headers of the engine's answer. */
function replayOf(stored: EngineResponse, current: EngineResponse): EngineResponse {
  return {
    status: stored.status,
    headers: { ...stored.headers, ...ownHeaders(current), 'idempotent-replayed': 'true' },
    body: structuredClone(stored.body),
  }
}

/** A stored answer served again as it was, with this request's own Request-Id and rate-limit headers. */
function cachedOf(stored: EngineResponse, current: EngineResponse): EngineResponse {
  return {
    status: stored.status,
    headers: { ...stored.headers, ...ownHeaders(current) },
    body: structuredClone(stored.body),
  }
}

const LIST_PATH = /^\/v1\/(agents|call-logs|team-members)\/?$/
const SENSITIVE = ['system_prompt', 'webhook_url', 'metadata']

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

const collectionOf = (path: string) => LIST_PATH.exec(path)?.[1]

/** An `Idempotency-Key` the engine takes (1-255 printable ASCII characters). */
const validIdempotencyKey = (key: string | undefined): key is string =>
  key !== undefined && /^[\x21-\x7E]{1,255}$/.test(key)

/** Whether a Content-Type names JSON, as the platform takes it (`application/json`, `+json`, parameters). */
function isJsonContentType(contentType: string | undefined): boolean {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? ''
  return type === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(type)
}

// ------------------------------------------------------------------------ rate-limit headers, and the clock

// ----------------------------------------------------------- what a fault learns by watching the traffic

interface AccountInfo {
  plan: string
  custom: boolean
}

/**
 * The accounts and keys made through the control plane (whose 201 shows a key's value once), the keys revoked
 * there, and the account each other token answered `GET /v1/user` for. A token never seen otherwise counts as
 * an account of its own.
 */
class KeyBook {
  private byToken = new Map<string, KeyInfo>()
  private byId = new Map<string, KeyInfo>()
  private users = new Map<string, string>()
  /** Plan and custom limits of each account made or changed through the control plane. */
  accounts = new Map<string, AccountInfo>()

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
      this.accounts.clear()
      return
    }
    const account = /^\/_mock\/accounts(?:\/([^/]+))?$/.exec(path)
    if (account && ok(response) && isObject(response.body) && typeof response.body.id === 'string') {
      if (request.method === 'DELETE') this.accounts.delete(response.body.id)
      else
        this.accounts.set(response.body.id, {
          plan: String(response.body.plan),
          custom: response.body.custom_limits === true,
        })
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

  /** An active, unrestricted secret key of `account` holding `scope`, as its token. */
  find(account: string, scope: string): string | undefined {
    for (const [token, info] of this.byToken) {
      const r = info.restrictions
      if (
        info.account === account &&
        !info.revoked &&
        info.type === 'secret' &&
        r.allowed_ips.length === 0 &&
        r.allowed_origins.length === 0 &&
        r.expires_at === null &&
        hasScope(info.permissions, scope)
      )
        return token
    }
    return undefined
  }
}

interface Seen {
  body: Json
  account: string
}

/**
 * The agents, call logs and team members seen in the engine's answers (the latest version of each, with its
 * account; calls started through the control plane too), the calls started there, and the objects seen deleted
 * (with their position in the list order).
 */
class Objects {
  keys = new KeyBook()
  agents = new Map<string, Seen>()
  calls = new Map<string, Seen>()
  members = new Map<string, Seen>()
  /** Calls started through the control plane: the ones that move on the clock. */
  simulated = new Set<string>()
  deleted = new Map<string, { collection: string; account: string; key: string }>()

  table(object: unknown) {
    return object === 'agent'
      ? this.agents
      : object === 'call_log'
        ? this.calls
        : object === 'team_member'
          ? this.members
          : undefined
  }

  tableOf(collection: string) {
    return collection === 'agents'
      ? this.agents
      : collection === 'call-logs'
        ? this.calls
        : collection === 'team-members'
          ? this.members
          : undefined
  }

  observe(request: EngineRequest, response: EngineResponse): void {
    this.keys.observe(request, response)
    const path = pathOf(request)
    if (path === '/_mock/reset' && response.status < 300) {
      this.agents.clear()
      this.calls.clear()
      this.members.clear()
      this.simulated.clear()
      this.deleted.clear()
      return
    }
    const started = /^\/_mock\/accounts\/([^/]+)\/calls$/.exec(path)
    if (request.method === 'POST' && started && response.status === 201 && isObject(response.body)) {
      const body = response.body
      if (typeof body.id === 'string') {
        this.calls.set(body.id, { body: structuredClone(body), account: started[1] as string })
        this.simulated.add(body.id)
      }
      return
    }
    if (!isV1(request) || !ok(response) || !isObject(response.body)) return
    const account = this.keys.account(tokenOf(request))
    const body = response.body
    if (body.deleted === true && typeof body.id === 'string') {
      const table = this.table(body.object)
      const before = table?.get(body.id)
      const collection = itemOf(path)?.collection
      if (before && collection)
        this.deleted.set(body.id, { collection, account: before.account, key: sortKey(before.body) })
      table?.delete(body.id)
      return
    }
    const items = body.object === 'list' && Array.isArray(body.data) ? body.data : [body]
    for (const item of items) {
      if (!isObject(item) || typeof item.id !== 'string') continue
      const table = this.table(item.object)
      if (!table) continue
      const before = table.get(item.id)
      table.set(item.id, {
        body: structuredClone({ ...(before?.body ?? {}), ...item }),
        account: before?.account ?? account,
      })
    }
  }

  /** The account `id` was seen in, when it is a live object of `collection`. */
  ownerOf(collection: string, id: string): string | undefined {
    return this.deleted.has(id) ? undefined : this.tableOf(collection)?.get(id)?.account
  }
}

// ---------------------------------------------------------------------------------------- analytics parts

const foldMetrics = (all: Json[]) => all.reduce(addMetrics, emptyMetrics())

/** Day buckets folded into weeks that begin on Sunday (local time in `timezone`). */
function sundayWeeks(days: Bucket[], timezone: string): Bucket[] {
  const weekday = new Intl.DateTimeFormat('en-US', { timeZone: timezone, weekday: 'short' })
  const weeks: Bucket[] = []
  for (const day of days) {
    const last = weeks[weeks.length - 1]
    if (!last || weekday.format(new Date(day.start)) === 'Sun') weeks.push(structuredClone(day))
    else {
      last.end = day.end
      last.metrics = addMetrics(last.metrics, day.metrics)
    }
  }
  return weeks
}

const ANALYTICS = '/v1/analytics/calls'
const DAY_MS = 86_400_000

// ------------------------------------------------------------------------------------------------- faults

export const faults: HeldOutFault[] = [
  // ----------------------------------------------------------------------------------------------- pages
  {
    name: 'has-more-counts-deleted-rows',
    kind: 'pages',
    what:
      'Deletes are soft (a deleted_at column) and has_more is computed from a count that forgets to exclude them: when the only objects beyond a page are deleted ones, the page says has_more: true in that direction, and the next page is empty. ' +
      'Contract, Lists and pagination: "`has_more` tells whether more objects exist beyond the returned page in the direction of travel"; deleteAgent: "Permanently deletes an agent"; removeTeamMember / deleteCallLog (the object is gone).',
    make: () => {
      const seen = new Objects()
      return {
        response(response, request) {
          seen.observe(request, response)
          const collection = collectionOf(pathOf(request))
          const data = listOf(response)
          if (!isRead(request) || !collection || response.status !== 200 || !data || data.length === 0)
            return response
          const query = queryOf(request)
          const filtered = [...query.keys()].some(
            (name) => !['limit', 'starting_after', 'ending_before'].includes(name),
          )
          const body = response.body as Json
          if (filtered || body.has_more !== false) return response
          const account = seen.keys.account(tokenOf(request))
          const backwards = query.has('ending_before')
          const edge = sortKey((backwards ? data[0] : data[data.length - 1]) as Json)
          for (const row of seen.deleted.values())
            if (
              row.collection === collection &&
              row.account === account &&
              (backwards ? row.key > edge : row.key < edge)
            ) {
              body.has_more = true
              break
            }
          return response
        },
      }
    },
  },
  {
    name: 'ending-before-page-oldest-first',
    kind: 'pages',
    what:
      'A page asked with ending_before is read by scanning the index upwards from the cursor and is returned in that scan order: its objects come oldest first (the right objects, in the wrong order), while every other page is newest first. ' +
      'Contract, Lists and pagination: "`ending_before=<id>` the objects before it (newer, still returned newest first)"; EndingBefore: "returns the objects that precede it (newer ones), still ordered newest first"; docs/decisions/008: "Objects come newest first by `created_at`, then by `id`".',
    make: () => ({
      response(response, request) {
        if (!isRead(request) || !collectionOf(pathOf(request)) || response.status !== 200) return response
        const data = listOf(response)
        if (!data || queryOf(request).getAll('ending_before').length !== 1) return response
        ;(response.body as Json).data = [...data].reverse()
        return response
      },
    }),
  },
  {
    name: 'starting-after-includes-cursor',
    kind: 'pages',
    what:
      'The cursor condition of starting_after is written `<=` instead of `<`: the page after an object starts with that object itself, so paging forward repeats the last object of every page (and a full page pushes its last object to the next one). ' +
      'Contract, Lists and pagination: "`starting_after=<id>` returns the objects after that one in this order (older)"; StartingAfter: "returns the objects that follow it (older ones)".',
    make: () => {
      const seen = new Objects()
      return {
        response(response, request) {
          seen.observe(request, response)
          const collection = collectionOf(pathOf(request))
          const data = listOf(response)
          if (!isRead(request) || !collection || response.status !== 200 || !data) return response
          const query = queryOf(request)
          const after = query.getAll('starting_after')
          const limit = limitAsSent(query)
          if (after.length !== 1 || limit === undefined) return response
          const account = seen.keys.account(tokenOf(request))
          const cursor = after[0] as string
          if (seen.ownerOf(collection, cursor) !== account) return response
          const shown = structuredClone(seen.tableOf(collection)?.get(cursor)?.body) as Json
          if (collection === 'call-logs') delete shown.transcript
          if (collection === 'agents' && seen.keys.info(tokenOf(request))?.type === 'publishable')
            for (const field of SENSITIVE) delete shown[field]
          const page = [shown, ...data]
          const body = response.body as Json
          if (page.length > limit) {
            page.pop()
            body.has_more = true
          }
          body.data = page
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------------- order
  {
    name: 'analytics-groups-by-completed-count',
    kind: 'order',
    what:
      'Analytics groups are sorted by completed_count (the column the dashboard shows first) instead of call_count: a group with more calls but fewer completed ones comes after a smaller group. ' +
      'Contract, getCallAnalytics, Grouping: "one entry per distinct value that has at least one call in the range, ordered by `totals.call_count` descending then `value` ascending".',
    make: () => ({
      response(response, request) {
        if (!isRead(request) || pathOf(request) !== ANALYTICS || response.status !== 200) return response
        const body = response.body
        if (!isObject(body) || !Array.isArray(body.groups)) return response
        const completed = (group: Json) =>
          isObject(group.totals) ? Number(group.totals.completed_count ?? 0) : 0
        ;(body.groups as Json[]).sort(
          (a, b) =>
            completed(b) - completed(a) ||
            (String(a.value) < String(b.value) ? -1 : a.value === b.value ? 0 : 1),
        )
        return response
      },
    }),
  },
  {
    name: 'agent-filtered-call-logs-oldest-first',
    kind: 'order',
    what:
      "With agent_id, call logs are read from the per-agent index, which is kept in insertion order, and the page is returned as read: an agent's call logs come oldest first, while the unfiltered list is newest first. " +
      'Contract, listCallLogs: "Lists the account\'s call logs, newest first (`created_at` descending, then `id` descending)"; Lists and pagination: "Agents, call logs and team members are ordered newest first by `created_at`, ties broken by `id` descending".',
    make: () => ({
      response(response, request) {
        if (!isRead(request) || pathOf(request) !== '/v1/call-logs' || response.status !== 200)
          return response
        const data = listOf(response)
        if (!data || !queryOf(request).has('agent_id')) return response
        ;(response.body as Json).data = [...data].reverse()
        return response
      },
    }),
  },

  // -------------------------------------------------------------------------------------------- accounts
  {
    name: 'member-role-change-crosses-accounts',
    kind: 'accounts',
    what:
      "PATCH /team-members/{id} updates the row by ID alone (`UPDATE members SET role = ? WHERE id = ?`): a key of one account changes the role of another account's member or invitation instead of getting 404. " +
      'Contract, NotFound: "`resource_not_found`: the path ID does not exist in the key\'s account"; Order of checks: "6. **404** resource: the path ID does not exist in the key\'s account"; updateTeamMember: "Changes the role of a member or of a pending invitation" (of the key\'s account).',
    make: () => {
      const seen = new Objects()
      return {
        request(request) {
          const item = itemOf(pathOf(request))
          if (request.method !== 'PATCH' || item?.collection !== 'team-members') return request
          const owner = seen.ownerOf('team-members', item.id)
          if (!owner || owner === seen.keys.account(tokenOf(request))) return request
          const token = seen.keys.find(owner, 'team_members:write')
          return token ? withToken(request, token) : request
        },
        response(response, request) {
          seen.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'analytics-agent-filter-crosses-accounts',
    kind: 'accounts',
    what:
      "GET /analytics/calls with agent_id reads the global per-agent index without the account condition: another account's agent ID gives that agent's calls (counts, durations, costs, sentiment) instead of an empty result. " +
      'Contract, getCallAnalytics: "Aggregates the account\'s call logs over the half-open range"; parameter agent_id: "Only calls of this agent (call logs of deleted agents included; no existence check)" (of this account: the account\'s call logs only).',
    make: () => {
      const seen = new Objects()
      return {
        request(request) {
          if (!isRead(request) || pathOf(request) !== ANALYTICS) return request
          const agent = queryOf(request).getAll('agent_id')
          if (agent.length !== 1) return request
          const owner = seen.ownerOf('agents', agent[0] as string)
          if (!owner || owner === seen.keys.account(tokenOf(request))) return request
          const token = seen.keys.find(owner, 'analytics:read')
          return token ? withToken(request, token) : request
        },
        response(response, request) {
          seen.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'call-log-deletable-across-accounts',
    kind: 'accounts',
    what:
      "DELETE /call-logs/{id} deletes by ID alone: a key of one account deletes another account's call log (200 deleted) instead of getting 404, and the owner no longer finds it. " +
      'Contract, NotFound: "`resource_not_found`: the path ID does not exist in the key\'s account"; deleteCallLog: "Permanently deletes a call log" (of the account: every path ID is looked up in the key\'s account).',
    make: () => {
      const seen = new Objects()
      return {
        request(request) {
          const item = itemOf(pathOf(request))
          if (request.method !== 'DELETE' || item?.collection !== 'call-logs') return request
          const owner = seen.ownerOf('call-logs', item.id)
          if (!owner || owner === seen.keys.account(tokenOf(request))) return request
          const token = seen.keys.find(owner, 'resources:delete')
          return token ? withToken(request, token) : request
        },
        response(response, request) {
          seen.observe(request, response)
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------------ keys
  {
    name: 'integration-update-guarded-by-agents-write',
    kind: 'keys',
    what:
      'The route guard of PATCH /integrations/{id} was copied from PATCH /agents/{id} and checks agents:write: a key with agents:write but without integrations:write changes integrations, and a key with integrations:write alone gets 403 naming agents:write. ' +
      'Contract, updateIntegration: "Needs `integrations:write`" (`x-required-permission: [integrations:write]`); spec, Permission choices: Write "update integrations"; docs/decisions/004 (scope table: `integrations:write` = update integrations).',
    make: () => {
      const keys = new KeyBook()
      const refused = new WeakSet<EngineRequest>()
      return {
        request(request) {
          const item = itemOf(pathOf(request))
          if (request.method !== 'PATCH' || item?.collection !== 'integrations') return request
          const info = keys.info(tokenOf(request))
          if (!info || info.revoked) return request
          const agents = info.permissions.includes('agents:write')
          const integrations = info.permissions.includes('integrations:write')
          if (agents && !integrations) {
            const token = keys.find(info.account, 'integrations:write')
            return token ? withToken(request, token) : request
          }
          if (integrations && !agents) {
            const sent = neutralRead(request, pathOf(request))
            refused.add(sent)
            return sent
          }
          return request
        },
        response(response, request) {
          keys.observe(request, response)
          if (!refused.has(request) || response.status !== 200) return response
          return errorAnswer(response, 403, {
            type: 'permission_error',
            code: 'insufficient_permissions',
            message: 'This API key does not have the agents:write permission required for this request.',
            required_permission: 'agents:write',
          })
        },
      }
    },
  },
  {
    name: 'team-members-readable-with-read-scopes',
    kind: 'keys',
    what:
      'Reads of team members are guarded like every other GET, by "any read scope": a read-only key (the `read` group, or any single :read scope) lists and retrieves team members, their e-mail addresses and roles, instead of getting 403. ' +
      'Contract, listTeamMembers: "reading team members requires `team_members:write` as well ...; a read-only key gets 403 `insufficient_permissions` with `required_permission: team_members:write`"; getTeamMember: "Needs `team_members:write`".',
    make: () => {
      const keys = new KeyBook()
      return {
        request(request) {
          const path = pathOf(request)
          if (!isRead(request) || !/^\/v1\/team-members(\/[^/]+)?\/?$/.test(path)) return request
          const info = keys.info(tokenOf(request))
          if (!info || info.revoked || info.permissions.includes('team_members:write')) return request
          if (!info.permissions.some((scope) => scope.endsWith(':read'))) return request
          const token = keys.find(info.account, 'team_members:write')
          return token ? withToken(request, token) : request
        },
        response(response, request) {
          keys.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'ip-restriction-enforced-on-writes-only',
    kind: 'keys',
    what:
      "A key's allowed_ips is checked by the middleware that guards writes only: GET and HEAD requests from an address outside the key's ranges are answered (200) instead of 403 key_restricted. " +
      'docs/decisions/003: "`allowed_ips` (CIDR ranges; a request from elsewhere is 403 `key_restricted`)"; contract, Order of checks: "4. **403** permission ..., and key restrictions (`key_restricted`: client IP not in `allowed_ips` ...)"; getUser: "A key whose restrictions do not match the request (IP or Origin) gives 403 `key_restricted`".',
    make: () => {
      const keys = new KeyBook()
      return {
        request(request) {
          if (!isRead(request) || !isV1(request)) return request
          const info = keys.info(tokenOf(request))
          const range = info?.restrictions.allowed_ips[0]
          if (!range) return request
          return { ...request, clientIp: range.split('/')[0] as string }
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
    name: 'call-ended-at-in-local-time',
    kind: 'time',
    what:
      "The call finisher writes ended_at from the server's local wall clock (Europe/Berlin) followed by `Z`: a call that ends on the platform reports an ended_at one hour (two in summer) late, so ended_at - started_at no longer equals duration_seconds. " +
      'Contract, Conventions: "Timestamps are ISO 8601 / RFC 3339 in UTC with a `Z` suffix"; CallLogSummary: "`duration_seconds` = whole seconds from `started_at` to `ended_at` (rounded down ...)"; docs/decisions/001: "timestamps ISO 8601 in UTC with `Z`".',
    make: () => {
      const seen = new Objects()
      const berlin = new Intl.DateTimeFormat('en-US', {
        timeZone: 'Europe/Berlin',
        timeZoneName: 'longOffset',
      })
      const shift = (at: string) => {
        const offset = /GMT([+-])(\d{2}):(\d{2})/.exec(berlin.format(new Date(at)))
        const minutes = offset
          ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3]))
          : 60
        return toTimestamp(Date.parse(at) + minutes * 60_000)
      }
      return {
        response(response, request) {
          seen.observe(request, response)
          if (!isV1(request) || !ok(response) || !isObject(response.body)) return response
          for (const log of listOf(response) ?? [response.body])
            if (
              log.object === 'call_log' &&
              typeof log.id === 'string' &&
              seen.simulated.has(log.id) &&
              typeof log.ended_at === 'string'
            )
              log.ended_at = shift(log.ended_at)
          return response
        },
      }
    },
  },
  {
    name: 'week-buckets-start-on-sunday',
    kind: 'time',
    what:
      "Week buckets are computed with the date library's default week start (Sunday, the US convention): with granularity=week the series is cut at local Sunday 00:00 instead of Monday 00:00. " +
      'Contract, getCallAnalytics, Buckets: "Buckets are aligned to calendar boundaries of the granularity in `timezone` (... Monday 00:00 for `week`, ISO 8601 ...)".',
    make: () => {
      const clock = new ClockWatch()
      const plans = new WeakMap<EngineRequest, string>()
      return {
        request(request) {
          if (!isRead(request) || pathOf(request) !== ANALYTICS) return request
          const query = queryOf(request)
          if (query.getAll('granularity').length !== 1 || query.get('granularity') !== 'week') return request
          const starts = query.getAll('start')
          const ends = query.getAll('end')
          if (starts.length > 1 || ends.length > 1) return request
          const start = instantOf(starts[0])
          const end = ends.length === 1 ? instantOf(ends[0]) : clock.now()
          if ((starts.length === 1 && start === undefined) || end === undefined) return request
          if (start !== undefined && end - start > 740 * DAY_MS) return request
          const sent = withQuery(request, (q) => q.set('granularity', 'day'))
          plans.set(sent, query.get('timezone') ?? 'UTC')
          return sent
        },
        response(response, request) {
          clock.observe(request, response)
          const timezone = plans.get(request)
          const body = response.body
          if (
            timezone === undefined ||
            response.status !== 200 ||
            !isObject(body) ||
            body.granularity !== 'day'
          )
            return response
          body.granularity = 'week'
          body.series = sundayWeeks(body.series as Bucket[], timezone)
          if (Array.isArray(body.groups))
            for (const group of body.groups as Json[])
              group.series = sundayWeeks(group.series as Bucket[], timezone)
          return response
        },
      }
    },
  },
  {
    name: 'started-filters-compare-created-at',
    kind: 'time',
    what:
      'started_after and started_before are applied to created_at (the indexed column) instead of started_at: calls still queued (started_at null) match them, and the bounds are off by the second a call waits in the queue. ' +
      'Contract, listCallLogs: "`started_after` / `started_before` are exclusive bounds on `started_at` (calls whose `started_at` is `null`, i.e. still queued, never match a `started_*` filter)"; parameter started_after: "Only calls with `started_at` strictly after this instant".',
    make: () => {
      const plans = new WeakMap<EngineRequest, { after?: number; before?: number; limit: number }>()
      return {
        request(request) {
          if (!isRead(request) || pathOf(request) !== '/v1/call-logs') return request
          const query = queryOf(request)
          if (query.has('starting_after') || query.has('ending_before')) return request
          const afters = query.getAll('started_after')
          const befores = query.getAll('started_before')
          if (afters.length + befores.length === 0 || afters.length > 1 || befores.length > 1) return request
          const after = instantOf(afters[0])
          const before = instantOf(befores[0])
          if ((afters.length === 1 && after === undefined) || (befores.length === 1 && before === undefined))
            return request
          if (after !== undefined && before !== undefined && after >= before) return request
          const limit = limitAsSent(query)
          if (limit === undefined) return request
          const sent = withQuery(request, (q) => {
            q.delete('started_after')
            q.delete('started_before')
            q.set('limit', '100')
          })
          plans.set(sent, { after, before, limit })
          return sent
        },
        response(response, request) {
          const plan = plans.get(request)
          const data = listOf(response)
          if (!plan || response.status !== 200 || !data) return response
          const kept = data.filter((log) => {
            const at = Date.parse(String(log.created_at))
            return (
              (plan.after === undefined || at > plan.after) && (plan.before === undefined || at < plan.before)
            )
          })
          const body = response.body as Json
          body.has_more = kept.length > plan.limit || body.has_more === true
          body.data = kept.slice(0, plan.limit)
          return response
        },
      }
    },
  },
  {
    name: 'ringing-reported-as-queued',
    kind: 'time',
    what:
      "The telephony provider's `ringing` callback is not handled: a call stays `queued`, with started_at null, until it connects or reaches its final status, so the ringing stage is never seen. " +
      'Contract, CallStatus: "`queued` -> `ringing` -> `in_progress` -> `completed`"; CallLogSummary: "`started_at` is when the call was initiated (dialing began or the inbound call arrived), `null` only while `queued`"; mock-control startCall: "`ringing` 1 second after it was queued (`started_at` set)".',
    make: () => {
      const seen = new Objects()
      return {
        response(response, request) {
          seen.observe(request, response)
          if (!isV1(request) || !ok(response) || !isObject(response.body)) return response
          for (const log of listOf(response) ?? [response.body])
            if (
              log.object === 'call_log' &&
              typeof log.id === 'string' &&
              seen.simulated.has(log.id) &&
              log.status === 'ringing'
            ) {
              log.status = 'queued'
              log.started_at = null
            }
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------- idempotency
  {
    name: 'idempotency-expiry-renewed-by-replays',
    kind: 'idempotency',
    what:
      'Idempotency records are kept in a cache whose TTL is reset on every read: each replay keeps the key alive for another 24 hours, so a retry more than 24 hours after the first request, when an earlier retry replayed within the day, is replayed again instead of being carried out as a new request. ' +
      'Contract, Idempotency: "Keys are scoped to the account and kept for 24 hours (by the platform clock)"; docs/decisions/008: "A POST accepts `Idempotency-Key` ..., kept 24 hours"; mock-control advanceClock: "idempotency keys older than 24 h are forgotten".',
    make: () => {
      const clock = new ClockWatch()
      const keys = new KeyBook()
      const records = new Map<
        string,
        { fingerprint: string; firstAt: number; lastAt: number; stored: EngineResponse }
      >()
      const replays = new WeakMap<EngineRequest, string>()
      const slotOf = (request: EngineRequest, key: string) => `${keys.account(tokenOf(request))}\u0000${key}`
      const fingerprintOf = (request: EngineRequest) =>
        `${pathOf(request)}\u0000${canonical(jsonOf(request))}`
      return {
        request(request) {
          const key = request.headers['idempotency-key']
          if (request.method !== 'POST' || !isV1(request) || !validIdempotencyKey(key)) return request
          const slot = slotOf(request, key)
          const record = records.get(slot)
          const now = clock.now()
          if (!record || now === undefined || record.fingerprint !== fingerprintOf(request)) return request
          if (now < record.firstAt + DAY_MS || now >= record.lastAt + DAY_MS) return request
          const sent = neutralRead(request, '/v1/user')
          replays.set(sent, slot)
          return sent
        },
        response(response, request) {
          clock.observe(request, response)
          keys.observe(request, response)
          if (pathOf(request) === '/_mock/reset') records.clear()
          const now = clock.now() ?? 0
          const replayed = replays.get(request)
          if (replayed !== undefined) {
            const record = records.get(replayed)
            if (!record || response.status !== 200) return response
            record.lastAt = now
            return replayOf(record.stored, response)
          }
          const key = request.headers['idempotency-key']
          if (request.method !== 'POST' || !isV1(request) || !validIdempotencyKey(key) || !ok(response))
            return response
          const slot = slotOf(request, key)
          const record = records.get(slot)
          if (response.headers['idempotent-replayed'] === 'true') {
            if (record) record.lastAt = now
          } else
            records.set(slot, {
              fingerprint: fingerprintOf(request),
              firstAt: now,
              lastAt: now,
              stored: structuredClone(response),
            })
          return response
        },
      }
    },
  },
  {
    name: 'other-body-replays-first-answer',
    kind: 'idempotency',
    what:
      'The idempotency lookup compares the key and the path but not the body: the same Idempotency-Key sent again to the same operation with another body gets the first answer replayed (with Idempotent-Replayed: true) instead of 409 idempotency_key_reused, and the second request is silently dropped. ' +
      'Contract, Idempotency: "The same key with another body or another path is 409 `idempotency_key_reused`"; createAgent: "the same key with another body is 409 `idempotency_key_reused`"; docs/decisions/008: "the same key with another request is 409".',
    make: () => {
      const keys = new KeyBook()
      const stored = new Map<string, { path: string; response: EngineResponse }>()
      return {
        response(response, request) {
          keys.observe(request, response)
          if (pathOf(request) === '/_mock/reset') stored.clear()
          const key = request.headers['idempotency-key']
          if (request.method !== 'POST' || !isV1(request) || !validIdempotencyKey(key)) return response
          const slot = `${keys.account(tokenOf(request))}\u0000${key}`
          if (ok(response) && response.headers['idempotent-replayed'] !== 'true') {
            stored.set(slot, { path: pathOf(request), response: structuredClone(response) })
            return response
          }
          const first = stored.get(slot)
          if (response.status !== 409 || errorOf(response)?.code !== 'idempotency_key_reused') return response
          if (!first || first.path !== pathOf(request)) return response
          return replayOf(first.response, response)
        },
      }
    },
  },
  {
    name: 'replay-shows-current-object',
    kind: 'idempotency',
    what:
      "Only the created object's ID is stored with an Idempotency-Key, and a replay reads the object again: after the agent or invitation was updated, a retried create answers its current state (new name, role, updated_at) instead of the stored answer. " +
      'Contract, Idempotency: "a retry with the same key, same path and the same body ... returns the stored status, headers and body, plus `Idempotent-Replayed: true`, without creating anything again"; createAgent: "a replay returns the stored 201".',
    make: () => {
      const seen = new Objects()
      return {
        response(response, request) {
          if (
            request.method === 'POST' &&
            isV1(request) &&
            response.status === 201 &&
            response.headers['idempotent-replayed'] === 'true' &&
            isObject(response.body) &&
            typeof response.body.id === 'string'
          ) {
            const collection = collectionOf(pathOf(request))
            const account = seen.keys.account(tokenOf(request))
            const current = collection ? seen.tableOf(collection)?.get(response.body.id) : undefined
            if (current && current.account === account && !seen.deleted.has(response.body.id)) {
              const body = structuredClone(current.body)
              if (seen.keys.info(tokenOf(request))?.type === 'publishable')
                for (const field of SENSITIVE) delete body[field]
              response.body = body
            }
          }
          seen.observe(request, response)
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ validation
  {
    name: 'overlong-idempotency-key-truncated',
    kind: 'validation',
    what:
      'An Idempotency-Key longer than 255 characters is cut to its first 255 (the width of the database column) instead of refused: the POST is carried out, and two long keys that share their first 255 characters collide. ' +
      'Contract, IdempotencyKey: "1-255 printable ASCII characters ...; longer or empty values are 400 `invalid_parameter` (`param: Idempotency-Key`)"; docs/decisions/008: "`Idempotency-Key` (at most 255 characters)".',
    make: () => ({
      request(request) {
        const key = request.headers['idempotency-key']
        if (request.method !== 'POST' || !isV1(request) || key === undefined || key.length <= 255)
          return request
        return { ...request, headers: { ...request.headers, 'idempotency-key': key.slice(0, 255) } }
      },
    }),
  },
  {
    name: 'name-length-counted-in-utf16-units',
    kind: 'validation',
    what:
      "An agent's name and description are measured with the string's UTF-16 length instead of its characters: a name of 60 emoji (60 characters, 120 UTF-16 units) is refused with 422 max_length although it is within the limit. " +
      'Contract, AgentCreateRequest / AgentUpdateRequest: `name: {type: string, minLength: 1, maxLength: 100}`, `description: maxLength: 500` (JSON Schema counts characters, i.e. Unicode code points: draft 2020-12 validation, section 6.3.1); UnprocessableEntity (422 only for a body that breaks the schema).',
    make: () => {
      const limits: Record<string, number> = { name: 100, description: 500 }
      return {
        request(request) {
          const path = pathOf(request)
          const agentWrite =
            (request.method === 'POST' && /^\/v1\/agents\/?$/.test(path)) ||
            (request.method === 'PATCH' && itemOf(path)?.collection === 'agents')
          const body = jsonOf(request)
          if (!agentWrite || !isObject(body)) return request
          let changed = false
          for (const [field, max] of Object.entries(limits)) {
            const value = body[field]
            if (typeof value === 'string' && [...value].length <= max && value.length > max) {
              body[field] = 'x'.repeat(max + 1)
              changed = true
            }
          }
          return changed ? withJson(request, body) : request
        },
      }
    },
  },
  {
    name: 'short-credentials-accepted',
    kind: 'validation',
    what:
      "Credential values shorter than 8 characters are accepted on PATCH /integrations/{id}: the integration is connected and its credential_hint shows the value's last four characters, i.e. most or all of a short secret. " +
      'Contract, IntegrationUpdateRequest.credentials: values `minLength: 8`; updateIntegration: "credential values are 8 characters or longer, so at most half of a value shows"; docs/decisions/007: 422 for a body that breaks the schema.',
    make: () => ({
      request(request) {
        if (request.method !== 'PATCH' || itemOf(pathOf(request))?.collection !== 'integrations')
          return request
        const body = jsonOf(request)
        if (!isObject(body) || !isObject(body.credentials)) return request
        let changed = false
        for (const [name, value] of Object.entries(body.credentials))
          if (typeof value === 'string' && value.length > 0 && value.length < 8) {
            body.credentials[name] = value.padStart(8, '*')
            changed = true
          }
        return changed ? withJson(request, body) : request
      },
    }),
  },

  // ---------------------------------------------------------------------------------------------- errors
  {
    name: 'required-permission-names-team-scope-first',
    kind: 'errors',
    what:
      'DELETE /team-members/{id} runs the team guard before the delete guard: a key holding neither resources:delete nor team_members:write gets 403 with required_permission team_members:write instead of resources:delete. ' +
      'Contract, removeTeamMember: "Needs both `resources:delete` (every DELETE) and `team_members:write`; when both are missing, `error.required_permission` names the first missing one in this order (`resources:delete`)"; Forbidden: "`required_permission` names the (first) missing scope".',
    make: () => {
      const keys = new KeyBook()
      return {
        response(response, request) {
          keys.observe(request, response)
          const error = errorOf(response)
          if (
            request.method !== 'DELETE' ||
            itemOf(pathOf(request))?.collection !== 'team-members' ||
            response.status !== 403 ||
            error?.code !== 'insufficient_permissions' ||
            error.required_permission !== 'resources:delete'
          )
            return response
          const info = keys.info(tokenOf(request))
          if (!info || info.permissions.includes('team_members:write')) return response
          error.required_permission = 'team_members:write'
          error.message =
            'This API key does not have the team_members:write permission required for this request.'
          return response
        },
      }
    },
  },
  {
    name: 'idempotency-conflict-before-validation',
    kind: 'errors',
    what:
      'The idempotency middleware compares the request with the stored one before the body is validated: a reused Idempotency-Key with another body that is also invalid gets 409 idempotency_key_reused instead of the 422 that lists its problems. ' +
      'Contract, Order of checks: "7. **422** body validation ... 8. **409** conflict (... `idempotency_key_reused`)"; docs/decisions/005: "-> 422 body validation -> 409 conflict".',
    make: () => {
      const keys = new KeyBook()
      const fingerprints = new Map<string, string>()
      return {
        response(response, request) {
          keys.observe(request, response)
          if (pathOf(request) === '/_mock/reset') fingerprints.clear()
          const key = request.headers['idempotency-key']
          if (request.method !== 'POST' || !isV1(request) || !validIdempotencyKey(key)) return response
          const slot = `${keys.account(tokenOf(request))}\u0000${key}`
          const fingerprint = `${pathOf(request)}\u0000${canonical(jsonOf(request))}`
          if (ok(response) && response.headers['idempotent-replayed'] !== 'true') {
            fingerprints.set(slot, fingerprint)
            return response
          }
          const first = fingerprints.get(slot)
          if (response.status !== 422 || first === undefined || first === fingerprint) return response
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
    name: 'body-parsed-before-permission',
    kind: 'errors',
    what:
      "The JSON body parser runs as global middleware, before the route's permission guard: a key without the scope that sends a body which is not JSON gets 415, and one that sends malformed JSON gets 400 invalid_json, instead of 403. " +
      'Contract, Order of checks: "4. **403** permission ... 5. **400 / 413 / 415 / 400** malformed request ... a body whose `Content-Type` is not `application/json` (415); then the body itself (400 `invalid_json`...)"; docs/decisions/005: "403 permission and restrictions -> 400 malformed request".',
    make: () => ({
      response(response, request) {
        const error = errorOf(response)
        if (
          !['POST', 'PATCH'].includes(request.method) ||
          !isV1(request) ||
          response.status !== 403 ||
          error?.code !== 'insufficient_permissions' ||
          request.body === null ||
          request.body.trim() === ''
        )
          return response
        if (!isJsonContentType(request.headers['content-type']))
          return errorAnswer(response, 415, {
            type: 'invalid_request_error',
            code: 'unsupported_media_type',
            message: 'The request body must be JSON (Content-Type: application/json).',
          })
        if (isObject(jsonOf(request))) return response
        return errorAnswer(response, 400, {
          type: 'invalid_request_error',
          code: 'invalid_json',
          message: 'The request body is not a valid JSON object.',
        })
      },
    }),
  },

  // --------------------------------------------------------------------------------------------- headers
  {
    name: 'ratelimit-headers-missing-on-error-answers',
    kind: 'headers',
    what:
      'The rate-limit headers are added by the success path only; the error handler builds a fresh response, so 400, 403, 404, 405, 409, 413, 415 and 422 answers carry no RateLimit, RateLimit-Policy or X-RateLimit-* fields although they were counted. ' +
      'Contract, Rate limits: "Every authenticated response (everything except 401) carries the IETF ... fields `RateLimit-Policy` and `RateLimit`, and the legacy `X-RateLimit-*`"; docs/decisions/006: "Every authenticated answer carries ..."; the BadRequest, Forbidden, NotFound, Conflict, UnprocessableEntity responses list them as required headers.',
    make: () => ({
      response(response, request) {
        if (!isV1(request) || ![400, 403, 404, 405, 409, 413, 415, 422].includes(response.status))
          return response
        for (const name of Object.keys(response.headers))
          if (name.startsWith('ratelimit') || name.startsWith('x-ratelimit')) delete response.headers[name]
        return response
      },
    }),
  },
  {
    name: 'ratelimit-policy-from-plan-table',
    kind: 'headers',
    what:
      "RateLimit-Policy and X-RateLimit-Limit are written from the plan's table of quotas, not from the account's own limits: an account with custom limits is told the plan's default q (free: 100 and 10) while it is counted against its own, so the headers contradict RateLimit's r and the 429 comes early. " +
      'Contract, RateLimit-Policy header: "The account\'s quota policies ...: `q` requests per `w` seconds"; X-RateLimit-Limit: "Quota of the window with the least remaining requests"; docs/decisions/006: "enterprise: set per account"; mock-control createAccount: "`limits` overrides the plan\'s default quotas ... for **any** plan".',
    make: () => {
      const keys = new KeyBook()
      const defaults: Record<string, Record<string, number>> = {
        free: { hourly: 100, burst: 10 },
        pro: { hourly: 1000, burst: 50 },
        enterprise: { hourly: 10000, burst: 500 },
      }
      return {
        response(response, request) {
          keys.observe(request, response)
          if (!isV1(request)) return response
          const account = keys.accounts.get(keys.account(tokenOf(request)))
          const table = account?.custom ? defaults[account.plan] : undefined
          const windows = windowsByName(response.headers)
          if (!table || !windows) return response
          const tightest = tightestOf(windows)
          response.headers['ratelimit-policy'] = windows
            .map((window) => `"${window.policy}";q=${table[window.policy] ?? window.q};w=${window.w}`)
            .join(', ')
          if ('x-ratelimit-limit' in response.headers)
            response.headers['x-ratelimit-limit'] = String(table[tightest.policy] ?? tightest.q)
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------- relations
  {
    name: 'agent-list-cache-kept-across-updates',
    kind: 'relations',
    what:
      'GET /agents answers are cached per account and query, and the cache is invalidated when an agent is created or deleted but not when one is updated: after a PATCH, the list keeps showing the agent as it was (old name, status, updated_at) while GET /agents/{id} shows the change. ' +
      'Contract, updateAgent: "Partially updates an agent. Only the fields sent change" (the agent, wherever it is read); "`updated_at` is set to the current time on every successful update"; listAgents: "Lists the account\'s agents" (items are `Agent` objects, the same as getAgent returns).',
    make: () => {
      const keys = new KeyBook()
      const cache = new Map<string, Map<string, EngineResponse>>()
      return {
        response(response, request) {
          keys.observe(request, response)
          const path = pathOf(request)
          if (path === '/_mock/reset') cache.clear()
          if (!isV1(request)) return response
          const token = tokenOf(request)
          const account = keys.account(token)
          const created =
            request.method === 'POST' && /^\/v1\/agents\/?$/.test(path) && response.status === 201
          const deleted = request.method === 'DELETE' && itemOf(path)?.collection === 'agents' && ok(response)
          if (created || deleted) {
            cache.delete(account)
            return response
          }
          if (request.method !== 'GET' || !/^\/v1\/agents\/?$/.test(path) || response.status !== 200)
            return response
          const slot = `${keys.info(token)?.type ?? 'secret'}\u0000${request.url}`
          let entries = cache.get(account)
          if (!entries) {
            entries = new Map()
            cache.set(account, entries)
          }
          const stored = entries.get(slot)
          if (stored) return cachedOf(stored, response)
          entries.set(slot, structuredClone(response))
          return response
        },
      }
    },
  },
  {
    name: 'credential-rotation-keeps-connected-at',
    kind: 'relations',
    what:
      'connected_at is set only when an integration goes from not connected to connected: replacing the credentials of a connected integration (a rotation) keeps the old connected_at. ' +
      'Contract, updateIntegration: "`credentials` (write-only) replaces the stored credentials: the integration becomes `connected`, `connected_at` is set to now and `credential_hint` is recomputed"; Integration.connected_at: "When credentials were last stored".',
    make: () => {
      const keys = new KeyBook()
      const shown = new Map<string, { engine: unknown; shown: unknown }>()
      return {
        response(response, request) {
          keys.observe(request, response)
          if (pathOf(request) === '/_mock/reset') shown.clear()
          if (!isV1(request) || response.status !== 200 || !isObject(response.body)) return response
          const account = keys.account(tokenOf(request))
          const body = jsonOf(request)
          const rotation =
            request.method === 'PATCH' &&
            itemOf(pathOf(request))?.collection === 'integrations' &&
            isObject(body) &&
            isObject(body.credentials)
          for (const item of listOf(response) ?? [response.body]) {
            if (item.object !== 'integration' || typeof item.id !== 'string') continue
            const slot = `${account}\u0000${item.id}`
            const before = shown.get(slot)
            if (rotation && before && typeof before.shown === 'string' && item.connected_at !== null) {
              shown.set(slot, { engine: item.connected_at, shown: before.shown })
              item.connected_at = before.shown
            } else if (before && item.connected_at === before.engine) item.connected_at = before.shown
            else shown.set(slot, { engine: item.connected_at, shown: item.connected_at })
          }
          return response
        },
      }
    },
  },
  {
    name: 'deleted-agents-calls-left-out-of-analytics',
    kind: 'relations',
    what:
      "Analytics joins call_logs with agents (an inner join, to read the agent's name): after an agent is deleted, its call logs, which are kept, no longer count in GET /analytics/calls (totals, series and groups). " +
      'Contract, deleteAgent: "The agent\'s call logs are **kept** (they keep its `agent_id` and still appear in lists and analytics)"; getCallAnalytics: "Which calls count: every call log whose `created_at` lies in the range"; parameter agent_id: "call logs of deleted agents included".',
    make: () => {
      const keys = new KeyBook()
      const deleted = new Map<string, Set<string>>()
      const plans = new WeakMap<EngineRequest, { grouped: boolean; gone: Set<string> }>()
      return {
        request(request) {
          if (!isRead(request) || pathOf(request) !== ANALYTICS) return request
          const gone = deleted.get(keys.account(tokenOf(request)))
          if (!gone || gone.size === 0) return request
          const groupBy = queryOf(request).getAll('group_by')
          if (groupBy.length > 1 || (groupBy.length === 1 && groupBy[0] !== 'agent_id')) return request
          const sent = withQuery(request, (q) => q.set('group_by', 'agent_id'))
          plans.set(sent, { grouped: groupBy.length === 1, gone: new Set(gone) })
          return sent
        },
        response(response, request) {
          keys.observe(request, response)
          if (pathOf(request) === '/_mock/reset') deleted.clear()
          const item = itemOf(pathOf(request))
          if (request.method === 'DELETE' && item?.collection === 'agents' && ok(response)) {
            const account = keys.account(tokenOf(request))
            const gone = deleted.get(account) ?? new Set<string>()
            gone.add(item.id)
            deleted.set(account, gone)
            return response
          }
          const plan = plans.get(request)
          const body = response.body
          if (!plan || response.status !== 200 || !isObject(body) || !Array.isArray(body.groups))
            return response
          const groups = (body.groups as Json[]).filter((group) => !plan.gone.has(String(group.value)))
          body.totals = foldMetrics(groups.map((group) => group.totals as Json))
          body.series = (body.series as Bucket[]).map((bucket, i) => ({
            ...bucket,
            metrics: foldMetrics(
              groups.map((group) => (group.series as Bucket[])[i]?.metrics ?? emptyMetrics()),
            ),
          }))
          body.groups = plan.grouped ? groups : null
          if (!plan.grouped) body.group_by = null
          return response
        },
      }
    },
  },
  {
    name: 'role-change-accepts-invitation',
    kind: 'relations',
    what:
      'Changing the role of a pending invitation goes through the membership upsert, which marks the member active: after PATCH {role}, an invited member is `active` with a joined_at, although nobody accepted the invitation. ' +
      'Contract, updateTeamMember: "Changes the role of a member or of a pending invitation" (example: "The invited viewer, now an editor", `status: invited`, `joined_at: null`); TeamMember.joined_at: "When the member accepted the invitation ...; `null` while invited"; inviteTeamMember: "The mock ... has no endpoint to accept an invitation".',
    make: () => {
      const joined = new Map<string, string>()
      return {
        response(response, request) {
          if (pathOf(request) === '/_mock/reset') joined.clear()
          if (!isV1(request) || !ok(response) || !isObject(response.body)) return response
          const body = response.body
          const item = itemOf(pathOf(request))
          if (
            request.method === 'PATCH' &&
            item?.collection === 'team-members' &&
            body.status === 'invited' &&
            typeof body.id === 'string' &&
            !joined.has(body.id)
          ) {
            const now = nowSecondsOf(response)
            joined.set(body.id, now === undefined ? String(body.created_at) : toTimestamp(now * 1000))
          }
          if (body.deleted === true && typeof body.id === 'string') joined.delete(body.id)
          for (const member of listOf(response) ?? [body]) {
            const at = typeof member.id === 'string' ? joined.get(member.id) : undefined
            if (member.object !== 'team_member' || at === undefined || member.status !== 'invited') continue
            member.status = 'active'
            member.joined_at = at
          }
          return response
        },
      }
    },
  },
]
