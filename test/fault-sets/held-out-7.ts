/**
 * Held-out fault set 7: thirty faults an implementer of the platform's v1 API could plausibly ship, written blind
 * to the contract suite: neither its checks, nor its exploration, nor its tests, nor the held-out-3 list were read,
 * and the suite was never run. held-out-4, held-out-5 and held-out-6 were read for their format only, and so as not
 * to repeat their faults (every fault here breaks another rule, on another operation, or in another situation). The
 * sources were the platform's spec, the product decisions, the contract
 * (`openapi/v1.yaml`, `openapi/mock-control.yaml`), `docs/decisions/` and the mock engine (the correct
 * implementation every fault wraps). Each fault wraps the correct engine (`faultyHandler`): it rewrites a request
 * before the engine sees it (another query, another key of the same account, a harmless read in place of a write
 * it must not carry out), or rewrites or replaces the engine's answer, keeping what it needs to remember in the
 * closure `make()` returns (accounts, keys and objects seen through the control plane and the answers, calls
 * started there, the mock clock as the answers show it, its own idempotency records).
 *
 * The weight is on relations between operations and on edge situations: what a PATCH or a second key does to later
 * reads, pages and their `has_more`, two accounts, keys with unusual scopes and restrictions, the mock clock (calls
 * under way, a daylight-saving change, zones with half-hour offsets, the idempotency lifetime), equivalent request
 * forms and the order of checks. Every fault deviates from the platform's spec, the contract or a decision (cited in
 * `what`), in specific situations only, and never where the spec leaves a choice open
 * (docs/decisions/011-allowed-forms.md). Liveness: `scripts/fault-sets/held-out-7-live.ts`.
 */
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'
import { ClockWatch } from './fault-books.ts'
import {
  ALL_SCOPES,
  addMetrics,
  type Bucket,
  canonical,
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
  tokenOf,
  toTimestamp,
  urlOf,
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

const SLUGS = ['twilio', 'salesforce', 'hubspot', 'google_calendar', 'slack', 'zapier', 'webhook']
const ID_FORM: Record<string, RegExp> = {
  agents: /^agt_[A-Za-z0-9]+$/,
  'call-logs': /^call_[A-Za-z0-9]+$/,
  'team-members': /^mem_[A-Za-z0-9]+$/,
}
const PATH_PARAM: Record<string, string> = {
  agents: 'agent_id',
  'call-logs': 'call_log_id',
  'team-members': 'member_id',
  integrations: 'integration_id',
}

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

/** The scope the contract names for an item operation (the first one, for removeTeamMember). */
function scopeOf(method: string, collection: string): string {
  if (method === 'DELETE') return 'resources:delete'
  if (collection === 'agents') return method === 'GET' || method === 'HEAD' ? 'agents:read' : 'agents:write'
  if (collection === 'call-logs') return 'call_logs:read'
  if (collection === 'integrations')
    return method === 'GET' || method === 'HEAD' ? 'integrations:read' : 'integrations:write'
  return 'team_members:write'
}

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
const IDEMPOTENCY_MS = 24 * HOUR_MS

// ------------------------------------------------------------------------ rate-limit headers, and the clock

// ---------------------------------------------------------------------------------------- what a fault learns

interface KeyInfo {
  id: string
  account: string
  type: string
  permissions: string[]
  restrictions: { allowed_ips: string[]; allowed_origins: string[]; expires_at: string | null }
  created_at: string
  revoked: boolean
}

/**
 * The keys made through the control plane (whose 201 shows a key's value once), the keys revoked there, the
 * accounts made there, and the account each other token answered `GET /v1/user` for. A token never seen otherwise
 * counts as an account of its own.
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
        created_at: String(body.created_at),
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
    for (const [token, info] of this.byToken) {
      const r = info.restrictions
      if (
        info.account === account &&
        !info.revoked &&
        info.type === 'secret' &&
        r.allowed_ips.length === 0 &&
        r.allowed_origins.length === 0 &&
        r.expires_at === null &&
        scopes.every((scope) => hasScope(info.permissions, scope))
      )
        return token
    }
    return undefined
  }
}

/** The account every agent, call log and team member seen in an answer (or started as a call) belongs to. */
class Owners {
  keys = new KeyBook()
  private owner = new Map<string, string>()

  observe(request: EngineRequest, response: EngineResponse): void {
    this.keys.observe(request, response)
    const path = pathOf(request)
    if (path === '/_mock/reset' && response.status < 300) {
      this.owner.clear()
      return
    }
    const started = /^\/_mock\/accounts\/([^/]+)\/calls$/.exec(path)
    if (request.method === 'POST' && started && response.status === 201 && isObject(response.body)) {
      if (typeof response.body.id === 'string') this.owner.set(response.body.id, started[1] as string)
      return
    }
    if (!isV1(request) || !ok(response) || !isObject(response.body)) return
    const account = this.keys.account(tokenOf(request))
    const items =
      response.body.object === 'list' && Array.isArray(response.body.data)
        ? response.body.data
        : [response.body]
    for (const item of items)
      if (isObject(item) && typeof item.id === 'string' && !this.owner.has(item.id))
        this.owner.set(item.id, account)
  }

  of(id: string): string | undefined {
    return this.owner.get(id)
  }
}

// ---------------------------------------------------------------------------------------- analytics parts

/** The offset of `timezone` from UTC at `ms`, in minutes (undefined for an unknown zone). */
function offsetMinutes(timezone: string, ms: number): number | undefined {
  try {
    const parts: Record<string, number> = {}
    const format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
    for (const part of format.formatToParts(ms))
      if (part.type !== 'literal') parts[part.type] = Number(part.value)
    const wall = Date.UTC(
      parts.year ?? 1970,
      (parts.month ?? 1) - 1,
      parts.day ?? 1,
      parts.hour ?? 0,
      parts.minute ?? 0,
      parts.second ?? 0,
    )
    return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000)
  } catch {
    return undefined
  }
}

/** Whether `ms` is local midnight in `timezone`. */
const isLocalMidnight = (timezone: string, ms: number) =>
  (((Math.floor(ms / 60_000) + (offsetMinutes(timezone, ms) ?? 0)) % 1440) + 1440) % 1440 === 0

/**
 * Hour buckets folded into "days" that begin at the first local midnight of the range and then every 24 hours
 * (a daylight-saving change moves every later boundary by an hour).
 */
function fixedDays(hours: Bucket[], timezone: string, start: number, end: number): Bucket[] {
  const firstMidnight = hours
    .map((h) => Date.parse(h.start))
    .find((ms) => ms > start && isLocalMidnight(timezone, ms))
  const boundaries = [start]
  for (let b = firstMidnight ?? end; b < end; b += DAY_MS) boundaries.push(b)
  boundaries.push(end)
  const days: Bucket[] = boundaries.slice(1).map((b, i) => ({
    start: toTimestamp(boundaries[i] as number),
    end: toTimestamp(b),
    metrics: emptyMetrics(),
  }))
  for (const hour of hours) {
    const at = Date.parse(hour.start)
    let i = 0
    while (i < days.length - 1 && (boundaries[i + 1] as number) <= at) i++
    const day = days[i] as Bucket
    day.metrics = addMetrics(day.metrics, hour.metrics)
  }
  return days
}

const ANALYTICS = '/v1/analytics/calls'

// ---------------------------------------------------------------------------------------------- validation

/** The engine's 422 body for `errors` (the first entry's param repeated). */
function validationError(errors: { param: string; code: string; message: string }[]): Json {
  return {
    type: 'validation_error',
    code: 'validation_failed',
    message: `Invalid request body: ${errors.length} error${errors.length === 1 ? '' : 's'}.`,
    param: errors[0]?.param ?? '',
    errors,
  }
}

/** What the contract's `TeamMemberUpdateRequest` finds wrong with `body` (a JSON object). */
function memberUpdateProblems(body: Json): { param: string; code: string; message: string }[] {
  const problems: { param: string; code: string; message: string }[] = []
  for (const field of Object.keys(body))
    if (field !== 'role')
      problems.push({ param: field, code: 'unknown_field', message: `'${field}' is not a known field.` })
  if (!('role' in body)) problems.push({ param: 'role', code: 'required', message: "'role' is required." })
  else if (typeof body.role !== 'string')
    problems.push({ param: 'role', code: 'type', message: "'role' must be a string." })
  else if (!['admin', 'editor', 'viewer'].includes(body.role))
    problems.push({
      param: 'role',
      code: 'enum',
      message: `'role' must be one of: "admin", "editor", "viewer".`,
    })
  return problems
}

// ------------------------------------------------------------------------------------------------- faults

export const faults: HeldOutFault[] = [
  // ----------------------------------------------------------------------------------------------- pages
  {
    name: 'call-log-filters-applied-after-limit',
    kind: 'pages',
    what:
      'GET /call-logs reads limit+1 rows of the (agent-indexed) list and only then applies the status and direction filters in application code: a filtered page comes back short or empty although matching calls exist further on, and has_more, computed from the filtered rows, says false while they remain. ' +
      'Contract, listCallLogs: "Filters combine with AND"; parameter Limit: "Maximum number of objects to return"; Lists and pagination: "`has_more` tells whether more objects exist beyond the returned page in the direction of travel".',
    make: () => {
      const pending = new Map<EngineRequest, { limit: number; status?: string; direction?: string }>()
      const STATUSES = [
        'queued',
        'ringing',
        'in_progress',
        'completed',
        'no_answer',
        'busy',
        'failed',
        'canceled',
      ]
      return {
        request(request) {
          if (request.method !== 'GET' || pathOf(request) !== '/v1/call-logs') return request
          const query = queryOf(request)
          const allowed = ['limit', 'starting_after', 'ending_before', 'agent_id', 'status', 'direction']
          if ([...query.keys()].some((name) => !allowed.includes(name) || query.getAll(name).length > 1))
            return request
          const status = query.get('status') ?? undefined
          const direction = query.get('direction') ?? undefined
          if (status === undefined && direction === undefined) return request
          if (status !== undefined && !STATUSES.includes(status)) return request
          if (direction !== undefined && direction !== 'inbound' && direction !== 'outbound') return request
          const sent = query.get('limit')
          if (sent !== null && !/^([1-9][0-9]?)$/.test(sent)) return request
          const limit = sent === null ? 20 : Number(sent)
          const rewritten = withQuery(request, (q) => {
            q.delete('status')
            q.delete('direction')
            q.set('limit', String(limit + 1))
          })
          pending.set(rewritten, { limit, status, direction })
          return rewritten
        },
        response(response, request) {
          const asked = pending.get(request)
          pending.delete(request)
          const data = listOf(response)
          if (!asked || response.status !== 200 || !data || !isObject(response.body)) return response
          const matching = data.filter(
            (log) =>
              (asked.status === undefined || log.status === asked.status) &&
              (asked.direction === undefined || log.direction === asked.direction),
          )
          response.body.data = matching.slice(0, asked.limit)
          response.body.has_more = matching.length > asked.limit
          return response
        },
      }
    },
  },
  {
    name: 'team-members-limit-ignored',
    kind: 'pages',
    what:
      'GET /team-members was written as "a team is small": it reads the whole team (up to the 100 the list can hold) whatever `limit` says, so `limit=1` lists every member and has_more is false. ' +
      'Contract, listTeamMembers parameters Limit / StartingAfter / EndingBefore; parameter Limit: "Maximum number of objects to return, 1-100 (default 20)"; docs/decisions/008: "Lists take `limit` (1-100, default 20)".',
    make: () => ({
      request(request) {
        if (request.method !== 'GET' || pathOf(request) !== '/v1/team-members') return request
        const query = queryOf(request)
        const limit = query.get('limit')
        if (limit === null || query.getAll('limit').length > 1 || !/^(100|[1-9][0-9]?)$/.test(limit))
          return request
        return withQuery(request, (q) => q.set('limit', '100'))
      },
    }),
  },
  {
    name: 'integrations-list-paginated',
    kind: 'pages',
    what:
      'The generic list middleware is mounted on GET /integrations too: `limit`, `starting_after` and `ending_before` are taken (a slug as cursor) and page the catalogue, with has_more true when entries remain, instead of being refused as unknown parameters. ' +
      'Contract, listIntegrations: "The list is not paginated (no `limit` / cursor parameters; `has_more` is always `false`)"; Lists and pagination: "Unknown query parameters are rejected on every operation with 400 `invalid_parameter`"; IntegrationList.has_more: "Always `false`".',
    make: () => {
      const pending = new Map<EngineRequest, { limit: number; after?: string; before?: string }>()
      return {
        request(request) {
          if (request.method !== 'GET' || pathOf(request) !== '/v1/integrations') return request
          const query = queryOf(request)
          const names = [...query.keys()]
          if (
            names.length === 0 ||
            names.some((n) => !['limit', 'starting_after', 'ending_before'].includes(n))
          )
            return request
          const sent = query.get('limit')
          if (sent !== null && !/^(100|[1-9][0-9]?)$/.test(sent)) return request
          const after = query.get('starting_after') ?? undefined
          const before = query.get('ending_before') ?? undefined
          if (after !== undefined && before !== undefined) return request
          if (
            (after !== undefined && !SLUGS.includes(after)) ||
            (before !== undefined && !SLUGS.includes(before))
          )
            return request
          const rewritten = withQuery(request, (q) => {
            q.delete('limit')
            q.delete('starting_after')
            q.delete('ending_before')
          })
          pending.set(rewritten, { limit: sent === null ? 20 : Number(sent), after, before })
          return rewritten
        },
        response(response, request) {
          const asked = pending.get(request)
          pending.delete(request)
          const data = listOf(response)
          if (!asked || response.status !== 200 || !data || !isObject(response.body)) return response
          let page: Json[]
          let more: boolean
          if (asked.before !== undefined) {
            const until = data.findIndex((i) => i.id === asked.before)
            const earlier = data.slice(0, Math.max(0, until))
            page = earlier.slice(Math.max(0, earlier.length - asked.limit))
            more = earlier.length > asked.limit
          } else {
            const from = asked.after === undefined ? 0 : data.findIndex((i) => i.id === asked.after) + 1
            const later = data.slice(from)
            page = later.slice(0, asked.limit)
            more = later.length > asked.limit
          }
          response.body.data = page
          response.body.has_more = more
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------------- order
  {
    name: 'transcript-grouped-by-speaker',
    kind: 'order',
    what:
      "Calls are recorded in two channels and each channel is transcribed on its own; the full call log joins the two results one after the other (the agent's lines, then the caller's) instead of merging them by time, so the transcript is not in the order things were said. " +
      'Contract, CallLog.transcript: "Utterances in order"; TranscriptEntry: "One utterance of a call, in order of `start_seconds`"; getCallLog: "Returns one call log, including its `transcript`".',
    make: () => ({
      response(response, request) {
        const item = itemOf(pathOf(request))
        if (request.method !== 'GET' || item?.collection !== 'call-logs' || response.status !== 200)
          return response
        const body = response.body
        if (!isObject(body) || !Array.isArray(body.transcript)) return response
        const lines = body.transcript as Json[]
        body.transcript = [
          ...lines.filter((l) => l.role === 'agent'),
          ...lines.filter((l) => l.role !== 'agent'),
        ]
        return response
      },
    }),
  },
  {
    name: 'completed-filter-ordered-by-end-time',
    kind: 'order',
    what:
      'GET /call-logs?status=completed is served from the "finished calls" index, which is keyed on ended_at: completed calls come by the time they ended, newest end first, so a long call that started earlier but ended later comes before a newer short one. ' +
      'Contract, listCallLogs: "Lists the account\'s call logs, newest first (`created_at` descending, then `id` descending)"; Lists and pagination: "Agents, call logs and team members are ordered newest first by `created_at`, ties broken by `id` descending".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'GET' || pathOf(request) !== '/v1/call-logs') return response
        if (queryOf(request).get('status') !== 'completed') return response
        const data = listOf(response)
        if (response.status !== 200 || !data) return response
        const key = (log: Json) => `${String(log.ended_at ?? '')}\u0000${String(log.id)}`
        data.sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0))
        return response
      },
    }),
  },

  // -------------------------------------------------------------------------------------------- accounts
  {
    name: 'foreign-ids-answer-403',
    kind: 'accounts',
    what:
      'Item operations load the object by ID and then compare its account with the caller\'s, answering 403 insufficient_permissions ("not yours") for an agent, call log or team member of another account instead of 404: a key learns which IDs exist in other accounts. ' +
      'Contract, NotFound: "`resource_not_found`: the path ID does not exist in the key\'s account"; getAgent: "An unknown ID, an ID of another account, or an ID of a deleted agent gives 404 `resource_not_found`"; Order of checks: "6. **404** resource: the path ID does not exist in the key\'s account".',
    make: () => {
      const owners = new Owners()
      return {
        response(response, request) {
          const item = itemOf(pathOf(request))
          const error = errorOf(response)
          const owner = item ? owners.of(item.id) : undefined
          const mine = owners.keys.account(tokenOf(request))
          owners.observe(request, response)
          if (!item || item.collection === 'integrations' || response.status !== 404) return response
          if (error?.code !== 'resource_not_found' || owner === undefined || owner === mine) return response
          const scope = scopeOf(request.method, item.collection)
          return errorAnswer(response, 403, {
            type: 'permission_error',
            code: 'insufficient_permissions',
            message: 'This API key does not have access to this object.',
            required_permission: scope,
          })
        },
      }
    },
  },
  {
    name: 'user-created-at-from-key',
    kind: 'accounts',
    what:
      "GET /user reads the account through a join with the API key's row, and the key's created_at column shadows the user's: the User object carries the creation time of the key that asked, so two keys of one account report different created_at values. " +
      'Spec, Resources, User: "created_at | string | ISO 8601 UTC timestamp" (of the user); contract, getUser: "Returns the user (account) that owns the API key"; User.created_at (the account\'s).',
    make: () => {
      const keys = new KeyBook()
      return {
        response(response, request) {
          keys.observe(request, response)
          if (request.method !== 'GET' || pathOf(request) !== '/v1/user' || response.status !== 200)
            return response
          const info = keys.info(tokenOf(request))
          if (info && isObject(response.body)) response.body.created_at = info.created_at
          return response
        },
      }
    },
  },
  {
    name: 'agents-scoped-to-creating-key',
    kind: 'accounts',
    what:
      'Agents are stored with the key that created them and every agent query filters on that key instead of on the account: another key of the same account does not see them in GET /agents and gets 404 for them by ID (GET, PATCH, DELETE). ' +
      'Spec, Key types: a secret key has "full read and write access to the account"; contract, listAgents: "Lists the account\'s agents"; getAgent: 404 only for "an unknown ID, an ID of another account, or an ID of a deleted agent".',
    make: () => {
      const creator = new Map<string, string>()
      const hidden = new Set<EngineRequest>()
      return {
        request(request) {
          const item = itemOf(pathOf(request))
          const token = tokenOf(request)
          if (item?.collection !== 'agents' || !token) return request
          const by = creator.get(item.id)
          if (by === undefined || by === token) return request
          const rewritten =
            request.method === 'GET' || request.method === 'HEAD'
              ? request
              : neutralRead(request, urlOf(request).pathname)
          hidden.add(rewritten)
          return rewritten
        },
        response(response, request) {
          const token = tokenOf(request)
          if (hidden.has(request)) {
            hidden.delete(request)
            if (response.status !== 200) return response
            const item = itemOf(pathOf(request))
            return errorAnswer(response, 404, {
              type: 'not_found_error',
              code: 'resource_not_found',
              message: `No agent with id '${item?.id ?? ''}'.`,
              param: 'agent_id',
            })
          }
          const path = pathOf(request)
          if (request.method === 'POST' && path === '/v1/agents' && response.status === 201 && token) {
            if (
              isObject(response.body) &&
              typeof response.body.id === 'string' &&
              !creator.has(response.body.id)
            )
              creator.set(response.body.id, token)
            return response
          }
          if (
            request.method === 'GET' &&
            path === '/v1/agents' &&
            response.status === 200 &&
            isObject(response.body)
          ) {
            const data = listOf(response) ?? []
            response.body.data = data.filter((a) => {
              const by = creator.get(String(a.id))
              return by === undefined || by === token
            })
          }
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------------ keys
  {
    name: 'allowed-origins-matched-by-prefix',
    kind: 'keys',
    what:
      "A key's allowed_origins are compared with `origin.startsWith(allowed)`: `https://app.example.com.attacker.test` (or `https://app.example.com:8443`) passes for a key restricted to `https://app.example.com`. " +
      'docs/decisions/003: "`allowed_origins` (the request\'s `Origin` must be listed; else 403 `key_restricted`)"; contract, Forbidden: "`key_restricted`: ... an `Origin` header missing from / not listed in `allowed_origins`".',
    make: () => {
      const keys = new KeyBook()
      const original = new Map<EngineRequest, string>()
      return {
        request(request) {
          if (!isV1(request)) return request
          const origin = request.headers.origin
          const allowed = keys.info(tokenOf(request))?.restrictions.allowed_origins ?? []
          if (!origin || allowed.length === 0 || allowed.includes(origin)) return request
          const prefix = allowed.find((o) => origin.startsWith(o))
          if (prefix === undefined) return request
          const rewritten = { ...request, headers: { ...request.headers, origin: prefix } }
          original.set(rewritten, origin)
          return rewritten
        },
        response(response, request) {
          keys.observe(request, response)
          const origin = original.get(request)
          original.delete(request)
          if (origin !== undefined && response.headers['access-control-allow-origin'] !== undefined)
            response.headers['access-control-allow-origin'] = origin
          return response
        },
      }
    },
  },
  {
    name: 'agent-delete-guarded-by-agents-write',
    kind: 'keys',
    what:
      'DELETE /agents/{id} is guarded like the other agent writes, by agents:write ("write covers delete"): a key with agents:write but without resources:delete deletes agents, and a key with resources:delete but without agents:write gets 403 naming agents:write. ' +
      'Spec, Permission choices: Write "create and modify agents; ...; delete resources" (separate capabilities); docs/decisions/004: "Every DELETE needs `resources:delete`"; contract, deleteAgent: "Needs `resources:delete` (every DELETE does)".',
    make: () => {
      const keys = new KeyBook()
      const refused = new Set<EngineRequest>()
      return {
        request(request) {
          const item = itemOf(pathOf(request))
          if (request.method !== 'DELETE' || item?.collection !== 'agents') return request
          const info = keys.info(tokenOf(request))
          if (!info || info.revoked) return request
          const write = info.permissions.includes('agents:write')
          const remove = info.permissions.includes('resources:delete')
          if (write && !remove) {
            const other = keys.find(info.account, ['resources:delete'])
            return other ? withToken(request, other) : request
          }
          if (!write && remove) {
            const read = neutralRead(request)
            refused.add(read)
            return read
          }
          return request
        },
        response(response, request) {
          keys.observe(request, response)
          if (!refused.has(request)) return response
          refused.delete(request)
          if (response.status !== 200) return response
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
    name: 'empty-permission-list-grants-everything',
    kind: 'keys',
    what:
      'The permission check reads "no scopes listed" as "unrestricted" (`if (!key.permissions.length) return next()`): a key created with `permissions: []` reads and writes everything (agents, call logs, analytics, integrations, team members, deletes) instead of only GET /user. ' +
      'Control plane, createKey: "`[]` creates a key that can only call `GET /v1/user`"; spec, Permission choices: "When a key lacks permission for an action, the request fails with 403"; contract, x-required-permission: "**all** listed scopes are required".',
    make: () => {
      const keys = new KeyBook()
      return {
        request(request) {
          if (!isV1(request) || pathOf(request) === '/v1/user') return request
          const info = keys.info(tokenOf(request))
          if (!info || info.revoked || info.type !== 'secret' || info.permissions.length > 0) return request
          const full = keys.find(info.account, ALL_SCOPES)
          return full ? withToken(request, full) : request
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
    name: 'hour-buckets-ignore-half-hour-offsets',
    kind: 'time',
    what:
      "Hour buckets are cut with `date_trunc('hour', created_at)` in UTC whatever `timezone` says: in a zone whose offset is not a whole number of hours (Asia/Kolkata, Australia/Adelaide) the hour series starts at :00 UTC instead of at local :00 (:30 UTC). " +
      'Contract, getCallAnalytics parameter timezone: "IANA time zone name used to align `day`, `week` and `month` buckets (and `hour` buckets in zones with a non-whole-hour offset)"; Buckets: "aligned to calendar boundaries of the granularity in `timezone`".',
    make: () => {
      const clock = new ClockWatch()
      const zone = new Map<EngineRequest, string>()
      return {
        request(request) {
          if (request.method !== 'GET' || pathOf(request) !== ANALYTICS) return request
          const query = queryOf(request)
          const timezone = query.get('timezone')
          if (query.get('granularity') !== 'hour' || !timezone || query.getAll('timezone').length > 1)
            return request
          const at = instantOf(query.get('start')) ?? clock.now()
          if (at === undefined) return request
          const offset = offsetMinutes(timezone, at)
          if (offset === undefined || offset % 60 === 0) return request
          const rewritten = withQuery(request, (q) => q.set('timezone', 'UTC'))
          zone.set(rewritten, timezone)
          return rewritten
        },
        response(response, request) {
          clock.observe(request, response)
          const timezone = zone.get(request)
          zone.delete(request)
          if (timezone !== undefined && response.status === 200 && isObject(response.body))
            response.body.timezone = timezone
          return response
        },
      }
    },
  },
  {
    name: 'day-buckets-step-24-hours',
    kind: 'time',
    what:
      'Day buckets are found at the first local midnight of the range and then by adding 86,400 seconds: across a daylight-saving change (Europe/Berlin, 29 March 2026) every later "day" starts an hour off local midnight, and calls are counted in the wrong day. ' +
      'Contract, getCallAnalytics, Buckets: "Buckets are aligned to calendar boundaries of the granularity in `timezone` (...; local midnight for `day`; ...)"; parameter timezone: "IANA time zone name used to align `day`, `week` and `month` buckets".',
    make: () => {
      const pending = new Map<EngineRequest, string>()
      return {
        request(request) {
          if (request.method !== 'GET' || pathOf(request) !== ANALYTICS) return request
          const query = queryOf(request)
          const timezone = query.get('timezone')
          const granularity = query.get('granularity') ?? 'day'
          if (granularity !== 'day' || !timezone || query.has('group_by')) return request
          if ([...query.keys()].some((name) => query.getAll(name).length > 1)) return request
          const start = instantOf(query.get('start'))
          const end = instantOf(query.get('end'))
          if (start === undefined || end === undefined || end <= start || end - start > 31 * DAY_MS)
            return request
          const a = offsetMinutes(timezone, start)
          const b = offsetMinutes(timezone, end)
          if (a === undefined || b === undefined || a === b) return request
          const rewritten = withQuery(request, (q) => q.set('granularity', 'hour'))
          pending.set(rewritten, timezone)
          return rewritten
        },
        response(response, request) {
          const timezone = pending.get(request)
          pending.delete(request)
          const body = response.body
          if (
            timezone === undefined ||
            response.status !== 200 ||
            !isObject(body) ||
            !Array.isArray(body.series)
          )
            return response
          body.granularity = 'day'
          body.series = fixedDays(
            body.series as Bucket[],
            timezone,
            Date.parse(String(body.start)),
            Date.parse(String(body.end)),
          )
          return response
        },
      }
    },
  },
  {
    name: 'started-before-inclusive',
    kind: 'time',
    what:
      'started_before is compiled to `started_at <= :started_before` (the SQL BETWEEN habit): a call that started exactly at the bound is listed. ' +
      'Contract, listCallLogs: "`started_after` / `started_before` are exclusive bounds on `started_at`"; parameter started_before: "Only calls with `started_at` strictly before this instant (RFC 3339)".',
    make: () => ({
      request(request) {
        if (request.method !== 'GET' || pathOf(request) !== '/v1/call-logs') return request
        const query = queryOf(request)
        if (query.getAll('started_before').length !== 1 || query.getAll('started_after').length > 1)
          return request
        const before = instantOf(query.get('started_before'))
        if (before === undefined) return request
        const after = query.has('started_after') ? instantOf(query.get('started_after')) : undefined
        if (query.has('started_after') && (after === undefined || after >= before)) return request
        return withQuery(request, (q) => q.set('started_before', new Date(before + 1).toISOString()))
      },
    }),
  },
  {
    name: 'default-start-ignores-end',
    kind: 'time',
    what:
      'The default of `start` is computed from the current time (now minus 7 days) even when `end` is given: a query with only an earlier `end` covers less than a week (or is refused as an empty range) instead of the 7 days before `end`. ' +
      'Contract, getCallAnalytics, Range: "Both bounds are optional: `end` defaults to the current time and `start` to `end` minus 7 days"; parameter start: "Default `end` minus 7 days".',
    make: () => {
      const clock = new ClockWatch()
      return {
        request(request) {
          if (request.method !== 'GET' || pathOf(request) !== ANALYTICS) return request
          const query = queryOf(request)
          const now = clock.now()
          if (query.has('start') || !query.has('end') || now === undefined) return request
          if (instantOf(query.get('end')) === undefined) return request
          return withQuery(request, (q) => q.set('start', toTimestamp(now - 7 * DAY_MS)))
        },
        response(response, request) {
          clock.observe(request, response)
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------- idempotency
  {
    name: 'idempotency-keys-case-insensitive',
    kind: 'idempotency',
    what:
      'Idempotency keys are stored in a column with a case-insensitive collation: `Import-7F3A` and `import-7f3a` are the same key, so a second POST with a differently cased key and another body is 409 idempotency_key_reused (and one with the same body is a replay) instead of a new request. ' +
      'Contract, IdempotencyKey: "1-255 printable ASCII characters"; Idempotency: "a retry with the same key ... returns the stored status ...; The same key with another body ... is 409" (only the same key: keys are opaque strings compared exactly).',
    make: () => ({
      request(request) {
        const key = request.headers['idempotency-key']
        if (request.method !== 'POST' || !isV1(request) || key === undefined) return request
        return { ...request, headers: { ...request.headers, 'idempotency-key': key.toLowerCase() } }
      },
    }),
  },
  {
    name: 'expired-idempotency-key-still-conflicts',
    kind: 'idempotency',
    what:
      'The 24-hour expiry is applied when a stored answer is replayed but not when the key is checked for reuse: more than 24 hours after the first request, the same key with another body is still 409 idempotency_key_reused instead of being carried out as a new request. ' +
      'Contract, Idempotency: "Keys are scoped to the account and kept for 24 hours (by the platform clock)"; mock-control advanceClock: "idempotency keys older than 24 h are forgotten"; docs/decisions/008: "kept 24 hours".',
    make: () => {
      const clock = new ClockWatch()
      const keys = new KeyBook()
      const records = new Map<string, { fingerprint: string; at: number }>()
      const refused = new Set<EngineRequest>()
      const idOf = (request: EngineRequest) =>
        `${keys.account(tokenOf(request))}\u0000${request.headers['idempotency-key'] ?? ''}`
      const fingerprintOf = (request: EngineRequest) =>
        `${pathOf(request)}\u0000${canonical(jsonOf(request))}`
      return {
        request(request) {
          if (request.method !== 'POST' || !isV1(request) || request.headers['idempotency-key'] === undefined)
            return request
          const stored = records.get(idOf(request))
          const now = clock.now()
          if (!stored || now === undefined || now - stored.at < IDEMPOTENCY_MS) return request
          if (stored.fingerprint === fingerprintOf(request) || jsonOf(request) === undefined) return request
          const read = neutralRead(request)
          refused.add(read)
          return read
        },
        response(response, request) {
          clock.observe(request, response)
          keys.observe(request, response)
          if (refused.has(request)) {
            refused.delete(request)
            if (response.status !== 200) return response
            return errorAnswer(response, 409, {
              type: 'conflict_error',
              code: 'idempotency_key_reused',
              message: 'This Idempotency-Key was already used with a different request.',
              param: 'Idempotency-Key',
            })
          }
          if (
            request.method === 'POST' &&
            isV1(request) &&
            request.headers['idempotency-key'] !== undefined &&
            ok(response) &&
            response.headers['idempotent-replayed'] === undefined
          ) {
            const at = nowSecondsOf(response)
            if (at !== undefined)
              records.set(idOf(request), { fingerprint: fingerprintOf(request), at: at * 1000 })
          }
          return response
        },
      }
    },
  },
  {
    name: 'idempotency-fingerprint-drops-nested-fields',
    kind: 'idempotency',
    what:
      'The request fingerprint is `JSON.stringify(body, Object.keys(body).sort())`: the replacer array also filters the keys of nested objects, so `voice` and `llm` always fingerprint as `{}` and a retry that differs only inside them (another voice_id, model or temperature) replays the first answer instead of 409. ' +
      'Contract, Idempotency: "a retry with the same key, same path and the same body (compared as JSON values ...) returns the stored status...; The same key with another body or another path is 409 `idempotency_key_reused`"; createAgent: "the same key with another body is 409".',
    make: () => {
      const keys = new KeyBook()
      const records = new Map<string, { shallow: string; full: string; answer: EngineResponse }>()
      const replays = new Map<EngineRequest, EngineResponse>()
      const idOf = (request: EngineRequest) =>
        `${keys.account(tokenOf(request))}\u0000${request.headers['idempotency-key'] ?? ''}`
      const shallowOf = (request: EngineRequest) => {
        const body = jsonOf(request)
        const sorted = isObject(body) ? Object.keys(body).sort() : undefined
        return `${pathOf(request)}\u0000${JSON.stringify(body, sorted)}`
      }
      const fullOf = (request: EngineRequest) => `${pathOf(request)}\u0000${canonical(jsonOf(request))}`
      return {
        request(request) {
          if (request.method !== 'POST' || !isV1(request) || request.headers['idempotency-key'] === undefined)
            return request
          const stored = records.get(idOf(request))
          if (!stored || !isObject(jsonOf(request))) return request
          if (stored.shallow !== shallowOf(request) || stored.full === fullOf(request)) return request
          const read = neutralRead(request)
          replays.set(read, stored.answer)
          return read
        },
        response(response, request) {
          keys.observe(request, response)
          const stored = replays.get(request)
          if (stored) {
            replays.delete(request)
            return response.status === 200 ? replayOf(stored, response) : response
          }
          if (
            request.method === 'POST' &&
            isV1(request) &&
            request.headers['idempotency-key'] !== undefined &&
            ok(response) &&
            response.headers['idempotent-replayed'] === undefined
          )
            records.set(idOf(request), {
              shallow: shallowOf(request),
              full: fullOf(request),
              answer: structuredClone(response),
            })
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ validation
  {
    name: 'metadata-values-coerced-to-strings',
    kind: 'validation',
    what:
      'Agent metadata is parsed into a `dict[str, str]` model in coercing mode: numbers and booleans are accepted and stored as strings (`{"seats": 3}` becomes `{"seats": "3"}`) instead of refused. ' +
      'Contract, Metadata: "Free-form string key/value pairs ...: values strings of at most 500 characters" (`additionalProperties: {type: string}`); UnprocessableEntity: "the body is a JSON object but breaks the schema" (FieldError code `type`); docs/decisions/009: "metadata (a map of strings)".',
    make: () => ({
      request(request) {
        const path = pathOf(request)
        const create = request.method === 'POST' && path === '/v1/agents'
        const update = request.method === 'PATCH' && itemOf(path)?.collection === 'agents'
        if (!create && !update) return request
        const body = jsonOf(request)
        if (!isObject(body) || !isObject(body.metadata)) return request
        const metadata = body.metadata
        const scalar = Object.entries(metadata).filter(
          ([, v]) => typeof v === 'number' || typeof v === 'boolean',
        )
        if (scalar.length === 0) return request
        for (const [name, value] of scalar) metadata[name] = String(value)
        return withJson(request, body)
      },
    }),
  },
  {
    name: 'null-clears-any-agent-field',
    kind: 'validation',
    what:
      'PATCH /agents/{id} treats `null` as "clear this field" for every field that has an empty value: `system_prompt: null` stores "", `metadata: null` stores {}, `webhook_events: null` stores [], and the update succeeds instead of 422. ' +
      'Contract, AgentUpdateRequest: "`null` clears `description`, `first_message` and `webhook_url` (other fields reject `null` with code `type`)"; updateAgent: "Nullable fields (`description`, `first_message`, `webhook_url`) are cleared with `null`".',
    make: () => ({
      request(request) {
        if (request.method !== 'PATCH' || itemOf(pathOf(request))?.collection !== 'agents') return request
        const body = jsonOf(request)
        if (!isObject(body)) return request
        const empty: Record<string, unknown> = { system_prompt: '', metadata: {}, webhook_events: [] }
        const cleared = Object.keys(empty).filter((field) => field in body && body[field] === null)
        if (cleared.length === 0) return request
        for (const field of cleared) body[field] = empty[field]
        return withJson(request, body)
      },
    }),
  },
  {
    name: 'integration-config-accepts-nested-values',
    kind: 'validation',
    what:
      'Integration config is stored as a JSON column and only checked to be an object: arrays and nested objects as values (`{"channels": ["#a", "#b"]}`) are accepted, stored and returned instead of refused. ' +
      'Contract, IntegrationConfig: "values are strings (at most 1000 characters), numbers or booleans" (`additionalProperties: {type: [string, number, boolean]}`); UnprocessableEntity: 422 for a body that breaks the schema.',
    make: () => {
      const keys = new KeyBook()
      const nested = new Map<string, Json>()
      const placeholder = (name: string) => `\u0000nested:${name}`
      const restore = (account: string, integration: unknown) => {
        if (!isObject(integration) || !isObject(integration.config)) return
        const kept = nested.get(`${account}\u0000${String(integration.id)}`)
        if (!kept) return
        for (const [name, value] of Object.entries(kept))
          if (integration.config[name] === placeholder(name))
            integration.config[name] = structuredClone(value)
      }
      const sent = new Map<EngineRequest, Json>()
      return {
        request(request) {
          const item = itemOf(pathOf(request))
          if (request.method !== 'PATCH' || item?.collection !== 'integrations') return request
          const body = jsonOf(request)
          if (!isObject(body) || !isObject(body.config)) return request
          const config = body.config
          const values: Json = {}
          for (const [name, value] of Object.entries(config))
            if (typeof value === 'object' && value !== null) {
              values[name] = value
              config[name] = placeholder(name)
            }
          const rewritten = withJson(request, body)
          sent.set(rewritten, values)
          return rewritten
        },
        response(response, request) {
          keys.observe(request, response)
          const account = keys.account(tokenOf(request))
          const values = sent.get(request)
          sent.delete(request)
          if (values && response.status === 200 && isObject(response.body))
            nested.set(`${account}\u0000${String(response.body.id)}`, values)
          if (!pathOf(request).startsWith('/v1/integrations') || response.status !== 200) return response
          for (const integration of listOf(response) ?? [response.body]) restore(account, integration)
          return response
        },
      }
    },
  },

  // ---------------------------------------------------------------------------------------------- errors
  {
    name: 'validation-stops-at-first-error',
    kind: 'errors',
    what:
      'The body validator runs with abort-early (the default of the schema library): a 422 lists only the first problem found, so a client fixing a body needs one round trip per mistake. ' +
      'Contract, Order of checks: "7. **422** body validation (`validation_failed`, every problem listed in `errors`...)"; UnprocessableEntity: "Every problem is listed in `errors`"; docs/decisions/007: "listing every problem of a body in one 422 saves a round trip per mistake".',
    make: () => ({
      response(response) {
        const error = errorOf(response)
        if (response.status === 422 && error && Array.isArray(error.errors) && error.errors.length > 1) {
          error.errors = error.errors.slice(0, 1)
          error.message = 'Invalid request body: 1 error.'
        }
        return response
      },
    }),
  },
  {
    name: 'member-body-validated-before-lookup',
    kind: 'errors',
    what:
      "PATCH /team-members/{id} validates the body in the route's schema middleware, before the handler loads the member: an unknown (or deleted, or other account's) member ID with an invalid body (role `owner`, an unknown field, no role) is 422 instead of 404. " +
      'docs/decisions/005: "-> 404 resource -> 422 body validation -> 409 conflict"; contract, Order of checks: "6. **404** resource ... 7. **422** body validation".',
    make: () => {
      const bodies = new Map<EngineRequest, Json>()
      return {
        request(request) {
          if (request.method !== 'PATCH' || itemOf(pathOf(request))?.collection !== 'team-members')
            return request
          const body = jsonOf(request)
          if (isObject(body)) bodies.set(request, body)
          return request
        },
        response(response, request) {
          const body = bodies.get(request)
          bodies.delete(request)
          if (!body || response.status !== 404 || errorOf(response)?.code !== 'resource_not_found')
            return response
          const problems = memberUpdateProblems(body)
          return problems.length > 0 ? errorAnswer(response, 422, validationError(problems)) : response
        },
      }
    },
  },
  {
    name: 'malformed-path-id-answers-400',
    kind: 'errors',
    what:
      'Path parameters are validated against their patterns by the request validator: an ID of the wrong shape (`/agents/123`, `/team-members/abc`, `/integrations/Slack`) is 400 invalid_parameter naming the path parameter instead of 404 resource_not_found. ' +
      'Contract, Conventions: "A path ID that does not have the right shape is treated like an unknown ID (404 `resource_not_found`)"; NotFound: "the path ID does not exist in the key\'s account (or has the wrong shape, or was deleted)"; getIntegration: "A slug outside the catalog is 404".',
    make: () => ({
      response(response, request) {
        const item = itemOf(pathOf(request))
        if (!item || response.status !== 404 || errorOf(response)?.code !== 'resource_not_found')
          return response
        const form = ID_FORM[item.collection]
        const wellFormed =
          item.collection === 'integrations'
            ? SLUGS.includes(item.id)
            : !!form?.test(item.id) && item.id.length <= 64
        if (wellFormed) return response
        const param = PATH_PARAM[item.collection] as string
        return errorAnswer(response, 400, {
          type: 'invalid_request_error',
          code: 'invalid_parameter',
          message: `Invalid value for ${param}: '${item.id}' does not match the expected format.`,
          param,
        })
      },
    }),
  },

  // --------------------------------------------------------------------------------------------- headers
  {
    name: 'retry-after-as-http-date',
    kind: 'headers',
    what:
      'Retry-After of a 429 is written in its HTTP-date form (`Tue, 10 Mar 2026 12:01:00 GMT`), which RFC 9110 also allows, instead of the delay in seconds the contract fixes. ' +
      'Contract, Retry-After header: "Seconds to wait (`delay-seconds`): the largest `t` among the exhausted windows ... Equal to `error.retry_after`" (`schema: {type: integer, minimum: 1}`); docs/decisions/006: "A 429 carries `Retry-After` in seconds".',
    make: () => ({
      response(response) {
        const seconds = Number(response.headers['retry-after'])
        const now = nowSecondsOf(response)
        if (response.status !== 429 || !Number.isFinite(seconds) || now === undefined) return response
        response.headers['retry-after'] = new Date((now + seconds) * 1000).toUTCString()
        return response
      },
    }),
  },
  {
    name: 'allow-header-omits-head',
    kind: 'headers',
    what:
      "The 405 handler lists the route table's methods, where HEAD is answered implicitly and so never registered: `Allow` says `GET, DELETE, PATCH` without HEAD. " +
      'Contract, Conventions: "**HEAD** is answered wherever GET is documented ... `Allow` lists it after `GET`"; Allow header: "The methods documented for this path, comma separated, with `HEAD` after `GET` where there is a GET".',
    make: () => ({
      response(response) {
        const allow = response.headers.allow
        if (response.status !== 405 || !allow) return response
        response.headers.allow = allow
          .split(',')
          .map((method) => method.trim())
          .filter((method) => method !== 'HEAD')
          .join(', ')
        return response
      },
    }),
  },

  // ------------------------------------------------------------------------------------------- relations
  {
    name: 'clearing-webhook-url-drops-events',
    kind: 'relations',
    what:
      'PATCH /agents/{id} keeps the webhook settings "consistent": clearing webhook_url (null) also empties webhook_events, although the request did not send them. ' +
      'Contract, updateAgent: "Partially updates an agent. Only the fields sent change"; AgentUpdateRequest: "`null` clears `description`, `first_message` and `webhook_url`" (that field only); the clear_webhook example sends `webhook_events: []` explicitly.',
    make: () => ({
      request(request) {
        if (request.method !== 'PATCH' || itemOf(pathOf(request))?.collection !== 'agents') return request
        const body = jsonOf(request)
        if (!isObject(body) || body.webhook_url !== null || 'webhook_events' in body) return request
        return withJson(request, { ...body, webhook_events: [] })
      },
    }),
  },
  {
    name: 'calls-under-way-not-counted',
    kind: 'relations',
    what:
      'GET /analytics/calls aggregates the "finished calls" table: calls still queued, ringing or in progress are missing from call_count (totals, series and groups; a group whose calls are all under way is left out), and appear only once they end. ' +
      'Contract, getCallAnalytics: "Which calls count: every call log whose `created_at` lies in the range (all statuses ...)"; AnalyticsMetrics.call_count: "Calls of any status"; mock-control startCall: "`GET /v1/call-logs` and `GET /v1/analytics/calls` show every stage".',
    make: () => {
      interface Started {
        account: string
        created: number
        endAt: number
        fields: Json
      }
      const keys = new KeyBook()
      const calls = new Map<string, Started>()
      const maxSeconds = new Map<string, number>()
      const underWay = (call: Started, now: number) => now < call.endAt
      const minus = (metrics: unknown) => {
        if (isObject(metrics)) metrics.call_count = Number(metrics.call_count) - 1
      }
      function inBucket(series: unknown, at: number): Json | undefined {
        if (!Array.isArray(series)) return undefined
        return (series as Json[]).find(
          (b) => Date.parse(String(b.start)) <= at && at < Date.parse(String(b.end)),
        )
      }
      return {
        response(response, request) {
          keys.observe(request, response)
          const path = pathOf(request)
          const body = response.body
          const started = /^\/_mock\/accounts\/([^/]+)\/calls$/.exec(path)
          if (request.method === 'POST' && started && response.status === 201 && isObject(body)) {
            const input = jsonOf(request)
            const sent = isObject(input) ? input : {}
            const created = Date.parse(String(body.created_at))
            const ring = typeof sent.ring_seconds === 'number' ? sent.ring_seconds : 4
            const outcome = typeof sent.outcome === 'string' ? sent.outcome : 'completed'
            const talk = Math.min(
              typeof sent.duration_seconds === 'number' ? sent.duration_seconds : 60,
              maxSeconds.get(String(body.agent_id)) ?? 7200,
            )
            calls.set(String(body.id), {
              account: started[1] as string,
              created,
              endAt: created + 1000 + ring * 1000 + (outcome === 'completed' ? talk * 1000 : 0),
              fields: { agent_id: body.agent_id, channel: body.channel, direction: body.direction },
            })
            return response
          }
          if (!isV1(request) || !ok(response) || !isObject(body)) return response
          if (body.object === 'agent' && typeof body.id === 'string')
            maxSeconds.set(body.id, Number(body.max_call_duration_seconds))
          if (request.method === 'DELETE' && body.object === 'call_log') calls.delete(String(body.id))
          if (request.method !== 'GET' || path !== ANALYTICS || body.object !== 'call_analytics')
            return response
          const nowSeconds = nowSecondsOf(response)
          if (nowSeconds === undefined) return response
          const now = nowSeconds * 1000
          const account = keys.account(tokenOf(request))
          const start = Date.parse(String(body.start))
          const end = Date.parse(String(body.end))
          const groupBy = typeof body.group_by === 'string' ? body.group_by : undefined
          const groups = Array.isArray(body.groups) ? (body.groups as Json[]) : undefined
          for (const call of calls.values()) {
            if (
              call.account !== account ||
              !underWay(call, now) ||
              call.created < start ||
              call.created >= end
            )
              continue
            if (typeof body.agent_id === 'string' && call.fields.agent_id !== body.agent_id) continue
            minus(body.totals)
            minus(inBucket(body.series, call.created)?.metrics)
            const group = groupBy ? groups?.find((g) => g.value === String(call.fields[groupBy])) : undefined
            if (group) {
              minus(group.totals)
              minus(inBucket(group.series, call.created)?.metrics)
            }
          }
          if (groups) {
            const count = (g: Json) => (isObject(g.totals) ? Number(g.totals.call_count) : 0)
            body.groups = groups
              .filter((g) => count(g) > 0)
              .sort((a, b) => count(b) - count(a) || (String(a.value) < String(b.value) ? -1 : 1))
          }
          return response
        },
      }
    },
  },
  {
    name: 'inactive-agents-left-out-of-list',
    kind: 'relations',
    what:
      'GET /agents applies the default scope of the agent model (`status = active`, the one the call router uses): an agent switched to inactive by a PATCH disappears from the list, while GET /agents/{id} still returns it. ' +
      'Contract, listAgents: "Lists the account\'s agents, newest first" (no status filter is documented); Agent.status: "Only `active` agents take calls" (inactive agents still exist); updateAgent pause_and_tune example (`status: inactive`).',
    make: () => ({
      response(response, request) {
        if (request.method !== 'GET' || pathOf(request) !== '/v1/agents') return response
        const data = listOf(response)
        if (response.status === 200 && data && isObject(response.body))
          response.body.data = data.filter((agent) => agent.status !== 'inactive')
        return response
      },
    }),
  },
  {
    name: 'credential-hint-from-first-sent-key',
    kind: 'relations',
    what:
      "credential_hint is taken from the first credential in the order the client sent them (`Object.values(credentials)[0]`), not from the key that sorts first: sending `{auth_token, account_sid}` to Twilio shows the auth token's last four characters, and the hint changes with the JSON key order of the same credentials. " +
      'Contract, updateIntegration: "`credential_hint` is `\\"...\\"` followed by the last 4 characters of the credential value whose key sorts first (by code point)".',
    make: () => {
      const keys = new KeyBook()
      const hints = new Map<string, string | null>()
      const sent = new Map<EngineRequest, unknown>()
      return {
        request(request) {
          if (request.method === 'PATCH' && itemOf(pathOf(request))?.collection === 'integrations') {
            const body = jsonOf(request)
            if (isObject(body) && 'credentials' in body) sent.set(request, body.credentials)
          }
          return request
        },
        response(response, request) {
          keys.observe(request, response)
          const account = keys.account(tokenOf(request))
          const credentials = sent.get(request)
          const wasSent = sent.has(request)
          sent.delete(request)
          if (!pathOf(request).startsWith('/v1/integrations') || response.status !== 200) return response
          if (wasSent && isObject(response.body)) {
            const id = `${account}\u0000${String(response.body.id)}`
            const values = isObject(credentials) ? Object.values(credentials) : []
            if (values.length > 1 && typeof values[0] === 'string') hints.set(id, `...${values[0].slice(-4)}`)
            else hints.delete(id)
          }
          for (const integration of listOf(response) ?? [response.body]) {
            if (!isObject(integration)) continue
            const hint = hints.get(`${account}\u0000${String(integration.id)}`)
            if (hint !== undefined && integration.status !== 'not_connected')
              integration.credential_hint = hint
          }
          return response
        },
      }
    },
  },
]
