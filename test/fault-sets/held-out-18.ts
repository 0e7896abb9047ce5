/**
 * Held-out fault set 18: thirty faults an implementer of the platform's v1 API could plausibly ship, written blind to
 * the contract suite: neither its checks, nor its exploration, nor its tests, nor its documentation were read, and the
 * suite was never run. held-out-3 to held-out-17 were read for their format only, and so as not to repeat their
 * faults (every fault here breaks another rule, on another operation, or in another situation than theirs). The
 * sources were the platform's spec, the product decisions (the repository's own record of them is `docs/decisions/`),
 * the contract (`openapi/v1.yaml`, `openapi/mock-control.yaml`) and the mock engine (the correct implementation every
 * fault wraps).
 *
 * The theme is "the rare paths: what most clients never send". The everyday paths are right: the first reads of
 * every endpoint, an ordinary create, read, update and delete, a list with its default parameters. What is wrong is
 * what few clients exercise: the less common plans (enterprise without custom quotas, custom quotas on any plan) and
 * the legacy rate-limit fields once the hourly window is the tighter one; roles other than the everyday ones (the
 * last admin, an active member, the owner read by ID); narrow keys (an analytics-only key that filters by agent, a
 * publishable key asking for more than it may); keys that expire far in the future; the catalogue's one slug with an
 * underscore, a disconnection of what was never connected, HEAD on item paths; values at the end of what each field
 * or parameter allows (long webhook URLs, temperatures above 1, zone names with signs and digits, duration bounds of
 * 0, instants before 1970, leap days); calendars at their seams (December into January by month, a range that ends
 * exactly on a bucket boundary); objects in their rarest states (calls never answered, calls cut at the duration cap,
 * agents with a call under way, canceled calls filtered by status); optional fields sent as `null`, omitted fields,
 * web calls without numbers, an agent that lets the caller speak first; a provider few agents use; and the CORS
 * header only browser clients read.
 *
 * Each fault wraps the correct engine (`faultyHandler`): it rewrites a request before the engine sees it, answers in
 * the engine's place (the engine is then sent a stand-in: the same request made harmless, which passes the same
 * authentication, rate-limit, route and permission checks and is counted alike; or a CORS preflight, which is not
 * counted, where the faulty platform's answer is one that is not counted either), or rewrites the engine's answer,
 * keeping what it needs in the closure `make()` returns (keys and accounts seen through the control plane, objects as
 * answers showed them, simulated calls started there, the platform clock as the answers show it). Where the faulty
 * platform refuses a value the engine would take, the engine is sent the request with that value replaced by one it
 * refuses at the same step (a "poisoned" value), so that it still checks and counts the request as the faulty platform
 * would and changes nothing, and its refusal is reworded. Every fault deviates from the platform's spec, the contract
 * or a decision (cited in `what`), in specific situations only (ordinary traffic, the first reads of every endpoint and
 * a create and a read, is unchanged), and never where the spec leaves a choice open
 * (docs/decisions/011-allowed-forms.md). Liveness: `scripts/fault-sets/held-out-18-live.ts`.
 */
import { errors } from '../../mocks/engine/api-error.ts'
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'
import {
  chars,
  controlAccounts,
  emptyMetrics,
  errorAnswer,
  errorOf,
  failWith,
  harmless,
  isAnalytics,
  isCreate,
  isObject,
  isRead,
  isV1,
  itemId,
  itemOf,
  type Json,
  jsonOf,
  nowOf,
  objectBody,
  objectsOf,
  ok,
  oversized,
  ownHeaders,
  passedToBody,
  passedToSize,
  pathOf,
  preflightInstead,
  queryOf,
  secondOf,
  startedCall,
  timestampOf,
  tokenOf,
  urlOf,
  windowHeaders,
  windowsOf,
  withJson,
  withQuery,
} from './request-parts.ts'

export interface HeldOutFault {
  name: string
  kind:
    | 'plans'
    | 'roles'
    | 'scopes'
    | 'rare-operations'
    | 'extremes'
    | 'instants'
    | 'calendar'
    | 'rare-states'
    | 'rare-values'
    | 'optional-fields'
    | 'headers'
  /** The deviation, with the sentence of the spec, the contract or the decision it breaks. */
  what: string
  make: () => Fault
}

// ------------------------------------------------------------------------------------------------- helpers

const paramOf = (response: EngineResponse) => errorOf(response)?.param

const isCallLogList = (request: EngineRequest) =>
  isRead(request) && /^\/v1\/call-logs\/?$/.test(pathOf(request))

/** A read made harmless: an unknown query parameter added, which the engine refuses after the permission check. */
const PROBE = 'h18_probe'
const probed = (request: EngineRequest): EngineRequest =>
  withQuery(request, (query) => {
    query.set(PROBE, '1')
  })

/** The account a control-plane `POST /_mock/accounts` just created, or undefined. */
function createdAccount(request: EngineRequest, response: EngineResponse): string | undefined {
  if (request.method !== 'POST' || !/^\/_mock\/accounts\/?$/.test(pathOf(request))) return undefined
  if (response.status !== 201 || !isObject(response.body)) return undefined
  return typeof response.body.id === 'string' ? response.body.id : undefined
}

/**
 * Rewrites the entries of a 422's `errors` with `change` and keeps the envelope consistent with them (`param` the
 * first entry's, the message the engine's form).
 */
function reword422(response: EngineResponse, change: (entry: Json) => Json | undefined): EngineResponse {
  const error = errorOf(response)
  if (response.status !== 422 || !error || !Array.isArray(error.errors)) return response
  const entries: Json[] = []
  for (const entry of error.errors as unknown[]) {
    if (!isObject(entry)) continue
    const changed = change(entry)
    if (changed) entries.push(changed)
  }
  const first = entries[0]
  error.errors = entries
  if (first) error.param = first.param
  error.message =
    entries.length === 1 && first
      ? `Invalid request body: ${String(first.message)}`
      : `Invalid request body: ${entries.length} errors.`
  return response
}

/** The one entry per param a 422 should have for `param`: the first entry for it reworded, the others dropped. */
function rewordParam(response: EngineResponse, param: string, code: string, message: string): EngineResponse {
  let done = false
  return reword422(response, (entry) => {
    if (entry.param !== param) return entry
    if (done) return undefined
    done = true
    return { param, code, message }
  })
}

// ---------------------------------------------------------------------------------------------- time zones

const zoneFormatters = new Map<string, Intl.DateTimeFormat>()

/** The wall-clock fields of an instant in a time zone (undefined for an unknown zone). */
function localTime(
  timeZone: string,
  ms: number,
):
  | {
      year: number
      month: number
      day: number
      hour: number
      minute: number
      second: number
      weekday: number
    }
  | undefined {
  let formatter = zoneFormatters.get(timeZone)
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      })
    } catch {
      return undefined
    }
    zoneFormatters.set(timeZone, formatter)
  }
  const parts: Record<string, number> = {}
  for (const part of formatter.formatToParts(ms))
    if (part.type !== 'literal') parts[part.type] = Number(part.value)
  const year = parts.year ?? 1970
  const month = parts.month ?? 1
  const day = parts.day ?? 1
  return {
    year,
    month,
    day,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
    // Monday 0 ... Sunday 6
    weekday: (new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7,
  }
}

/** Whether a time zone name is one the platform knows. */
const knownZone = (zone: string) => localTime(zone, 0) !== undefined

// ---------------------------------------------------------------------------------------- what a fault learns

/**
 * What every fault of this set may need to know: the account of each key (a key's 201 in the control plane names
 * it, `GET /user` tells it for any other key), the scopes and restrictions of the keys made through the control
 * plane, the keys that no longer authenticate, and the platform clock as the answers show it. `POST /_mock/reset`,
 * which starts the platform again, empties them all and every map a fault asked for.
 */
class Book {
  /** The platform clock in whole seconds, as last seen (undefined until an answer tells it). */
  now: number | undefined
  private readonly keys = new Map<string, string>()
  private readonly records = new Map<string, Json>()
  private readonly tokens = new Map<string, string>()
  private readonly dead = new Set<string>()
  private readonly kept: { clear(): void }[] = [this.keys, this.records, this.tokens, this.dead]

  map<K, V>(): Map<K, V> {
    const map = new Map<K, V>()
    this.kept.push(map)
    return map
  }

  set<T>(): Set<T> {
    const set = new Set<T>()
    this.kept.push(set)
    return set
  }

  /** Learns from an answer; whether it was a reset. */
  observe(request: EngineRequest, response: EngineResponse): boolean {
    const path = pathOf(request)
    const body = isObject(response.body) ? response.body : undefined
    if (path === '/_mock/reset' && ok(response)) {
      for (const kept of this.kept) kept.clear()
      this.now = undefined
      return true
    }
    if (path.startsWith('/_mock/clock') && ok(response)) this.now = secondOf(body?.now) ?? this.now
    if (request.method === 'POST' && response.status === 201 && body) {
      if (path === '/_mock/accounts' || /^\/_mock\/accounts\/[^/]+\/(keys|calls)$/.test(path))
        this.now = secondOf(body.created_at) ?? this.now
      if (/^\/_mock\/accounts\/[^/]+\/keys$/.test(path) && typeof body.value === 'string') {
        if (typeof body.account_id === 'string') this.keys.set(body.value, body.account_id)
        this.records.set(body.value, structuredClone(body))
        if (typeof body.id === 'string') this.tokens.set(body.id, body.value)
      }
    }
    const revoked = /^\/_mock\/keys\/([^/]+)\/revoke$/.exec(path)
    const revokedToken = revoked ? this.tokens.get(revoked[1] as string) : undefined
    if (revokedToken !== undefined && ok(response)) this.dead.add(revokedToken)
    const deleted = /^\/_mock\/accounts\/([^/]+)$/.exec(path)
    if (deleted && request.method === 'DELETE' && ok(response))
      for (const [token, account] of this.keys) if (account === deleted[1]) this.dead.add(token)
    this.now = nowOf(response) ?? this.now
    const token = tokenOf(request)
    if (!path.startsWith('/v1/') || token === undefined) return false
    if (response.status === 401) this.dead.add(token)
    if (/^\/v1\/user\/?$/.test(path) && response.status === 200 && body && typeof body.id === 'string')
      this.keys.set(token, body.id)
    return false
  }

  /** The account of a key; a key never seen counts as an account of its own. */
  account(token: string | undefined): string {
    return (token === undefined ? undefined : this.keys.get(token)) ?? `token:${token ?? ''}`
  }

  /** Whether a key is known to authenticate: made through the control plane, or answered, and not refused since. */
  valid(token: string | undefined): token is string {
    return token !== undefined && this.keys.has(token) && !this.dead.has(token)
  }

  /** Whether a key was revoked, or its account deleted, or it was refused with 401. */
  isDead(token: string | undefined): boolean {
    return token !== undefined && this.dead.has(token)
  }

  /** The scopes of a key made through the control plane (undefined for any other key). */
  scopesOf(token: string | undefined): string[] | undefined {
    const record = token === undefined ? undefined : this.records.get(token)
    return Array.isArray(record?.permissions) ? record.permissions.map(String) : undefined
  }

  /** The `restrictions.expires_at` of a key made through the control plane. */
  expiryOf(token: string | undefined): string | undefined {
    const record = token === undefined ? undefined : this.records.get(token)
    const restrictions = isObject(record?.restrictions) ? record.restrictions : undefined
    return typeof restrictions?.expires_at === 'string' ? restrictions.expires_at : undefined
  }
}

/** The objects of one type as the answers last showed them, per account; removals forget them. */
class Seen {
  private readonly objects = new Map<string, Json>()

  constructor(
    private readonly type: string,
    private readonly collection: string,
  ) {}

  get(account: string, id: string): Json | undefined {
    return this.objects.get(`${account} ${id}`)
  }

  all(account: string): Json[] {
    return [...this.objects.entries()]
      .filter(([key]) => key.startsWith(`${account} `))
      .map(([, value]) => value)
  }

  set(account: string, object: Json): void {
    this.objects.set(`${account} ${String(object.id)}`, structuredClone(object))
  }

  forget(account: string): void {
    for (const key of [...this.objects.keys()]) if (key.startsWith(`${account} `)) this.objects.delete(key)
  }

  clear(): void {
    this.objects.clear()
  }

  /** Learns from a v1 answer (objects merged over what was seen, so that a partial view keeps the rest). */
  observe(request: EngineRequest, response: EngineResponse, account: string): void {
    if (!isV1(request)) return
    for (const object of objectsOf(response, this.type)) {
      const key = `${account} ${String(object.id)}`
      this.objects.set(key, { ...this.objects.get(key), ...structuredClone(object) })
    }
    const removed = itemId(request, 'DELETE', this.collection)
    if (removed !== undefined && response.status === 200) this.objects.delete(`${account} ${removed}`)
  }
}

/** A call started through the control plane, and when it reaches its final status (platform seconds). */
interface LiveCall {
  account: string
  agent: string
  channel: string
  finalAt: number
}

/**
 * The calls started through the control plane (`startCall`): the platform's live calls, as opposed to the seeded
 * history. When each ends follows from its plan: ringing 1 s after it was queued, then `ring_seconds` (default 4),
 * then, for a completed call, `duration_seconds` (default 60) capped at the agent's `max_call_duration_seconds`.
 */
class LiveCalls {
  private readonly calls = new Map<string, LiveCall>()

  constructor(private readonly agents?: Seen) {}

  get(id: unknown): LiveCall | undefined {
    return typeof id === 'string' ? this.calls.get(id) : undefined
  }

  clear(): void {
    this.calls.clear()
  }

  /** The calls of an agent that have not reached their final status at `now`. */
  underWay(account: string, agent: string, now: number): LiveCall[] {
    return [...this.calls.values()].filter(
      (call) => call.account === account && call.agent === agent && call.finalAt > now,
    )
  }

  observe(request: EngineRequest, response: EngineResponse): void {
    const started = startedCall(request, response)
    if (started && typeof started.log.id === 'string') {
      const input = jsonOf(request)
      const plan = isObject(input) ? input : {}
      const agent = String(started.log.agent_id)
      const seenMax = this.agents?.get(started.account, agent)?.max_call_duration_seconds
      const max = typeof seenMax === 'number' ? seenMax : 1800
      const ring = typeof plan.ring_seconds === 'number' ? plan.ring_seconds : 4
      const talk = typeof plan.duration_seconds === 'number' ? plan.duration_seconds : 60
      const completed = (plan.outcome ?? 'completed') === 'completed'
      const created = secondOf(started.log.created_at) ?? 0
      this.calls.set(started.log.id, {
        account: started.account,
        agent,
        channel: String(started.log.channel),
        finalAt: created + 1 + ring + (completed ? Math.min(talk, max) : 0),
      })
    }
    const removed = itemId(request, 'DELETE', 'call-logs')
    if (removed !== undefined && response.status === 200) this.calls.delete(removed)
  }
}

const SENSITIVE = ['system_prompt', 'webhook_url', 'metadata'] as const
const NEVER_CONNECTED = new Set(['no_answer', 'busy', 'failed', 'canceled'])
const CATALOGUE = ['twilio', 'salesforce', 'hubspot', 'google_calendar', 'slack', 'zapier', 'webhook']

/** Whether an integration config is one the contract accepts (at most 50 keys of 1-40 characters, simple values). */
const validConfig = (value: unknown) =>
  isObject(value) &&
  Object.keys(value).length <= 50 &&
  Object.entries(value).every(
    ([key, v]) =>
      chars(key) >= 1 &&
      chars(key) <= 40 &&
      (typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && chars(v) <= 1000)),
  )

// ------------------------------------------------------------------------------------------------- faults

export const faults: HeldOutFault[] = [
  // ---------------------------------------------------------------------------------------------- plans
  {
    name: 'enterprise-default-quotas-from-pro',
    kind: 'plans',
    what:
      'The limiter reads an account\'s quotas as `custom_limits ?? PLAN_QUOTAS[plan] ?? PLAN_QUOTAS.pro`, and the plan table has no enterprise row ("enterprise is custom", so the author expected every enterprise account to have its own limits): an enterprise account that runs on the default quotas is limited, and told, as a pro account: `RateLimit-Policy` says `q=1000` and `q=50` (and `RateLimit` `r`, `X-RateLimit-*` follow), and its 51st request within a minute (or 1001st within an hour) is refused with 429 instead of being admitted. Accounts of other plans, and enterprise accounts with custom limits, are right. ' +
      'docs/decisions/006-rate-limits.md: "Free: 100 and 10; pro: 1,000 and 50; enterprise: set per account (by default 10,000 and 500)"; contract, Rate limits: "enterprise | set per account (default 10,000) | set per account (default 500)"; RateLimit-Policy header: "The account\'s quota policies"; mock-control createAccount: "free 100/10, pro 1000/50, enterprise 10000/500 per hour/minute".',
    make: () => {
      const book = new Book()
      const flagged = book.map<string, boolean>()
      const ledger = book.map<string, number[]>()
      const refused = new Map<EngineRequest, string>()
      const PRO = [
        { policy: 'hourly', q: 1000, w: 3600 },
        { policy: 'burst', q: 50, w: 60 },
      ]
      const state = (account: string, now: number) => {
        const seconds = (ledger.get(account) ?? []).filter((second) => second + 3600 > now)
        ledger.set(account, seconds)
        return PRO.map((quota) => {
          const live = seconds.filter((second) => second + quota.w > now)
          const oldest = live.length > 0 ? Math.min(...live) : undefined
          return {
            ...quota,
            used: live.length,
            r: Math.max(0, quota.q - live.length),
            t: oldest === undefined ? 0 : oldest + quota.w - now,
          }
        })
      }
      return {
        request(request) {
          if (!isV1(request) || request.method === 'OPTIONS') return request
          const token = tokenOf(request)
          if (!book.valid(token) || book.now === undefined) return request
          const account = book.account(token)
          if (!flagged.get(account)) return request
          if (state(account, book.now).every((window) => window.used < window.q)) return request
          const sent = preflightInstead(request)
          refused.set(sent, account)
          return sent
        },
        response(response, request) {
          const refusedFor = refused.get(request)
          refused.delete(request)
          book.observe(request, response)
          for (const account of controlAccounts(request, response))
            flagged.set(String(account.id), account.plan === 'enterprise' && account.custom_limits === false)
          if (refusedFor !== undefined) {
            const now = book.now ?? 0
            const windows = state(refusedFor, now)
            let policy = 'burst'
            let retryAfter = 0
            for (const window of windows)
              if (window.used >= window.q && window.t >= retryAfter) {
                retryAfter = window.t
                policy = window.policy
              }
            retryAfter = Math.max(1, retryAfter)
            const error = errors.rateLimited(policy, retryAfter)
            return error.toResponse(response.headers['request-id'] ?? '', {
              ...ownHeaders(response),
              ...windowHeaders(windows, now),
            })
          }
          const token = tokenOf(request)
          if (!isV1(request) || token === undefined) return response
          const account = book.account(token)
          const windows = windowsOf(response.headers)
          const now = nowOf(response)
          if (!flagged.get(account) || !windows || now === undefined) return response
          if (response.status === 429 && response.headers['mock-scenario'] === undefined) return response
          ledger.set(account, [...(ledger.get(account) ?? []), now])
          const pro = windows.map((window) => {
            const quota = PRO.find((p) => p.policy === window.policy)
            if (!quota) return window
            return { ...window, q: quota.q, r: Math.max(0, quota.q - (window.q - window.r)) }
          })
          Object.assign(response.headers, windowHeaders(pro, now))
          return response
        },
      }
    },
  },
  {
    name: 'custom-limits-reported-as-enterprise',
    kind: 'plans',
    what:
      'GET /user derives the plan it shows from the account\'s billing record, where custom quotas are an enterprise feature: `plan: account.custom_limits ? "enterprise" : account.plan`. A free or pro account given its own limits (which the dashboard allows on any plan) is answered with `plan: "enterprise"`, so a client that shows the plan, or picks its own throttling from it, is misled; accounts on their plan\'s default quotas are right. ' +
      'The platform\'s spec, User: "plan | string | plan of the account"; contract, User.plan: "Plan of the account; decides the rate limits"; getUser: "Returns the user (account) that owns the API key"; mock-control createAccount: "`limits` overrides the plan\'s default quotas ... for **any** plan, not only enterprise; `custom_limits` then reads `true`".',
    make: () => {
      const book = new Book()
      const custom = book.map<string, boolean>()
      return {
        response(response, request) {
          book.observe(request, response)
          for (const account of controlAccounts(request, response))
            custom.set(String(account.id), account.custom_limits === true)
          if (!isV1(request) || !isRead(request) || !/^\/v1\/user\/?$/.test(pathOf(request))) return response
          const user = objectsOf(response, 'user')[0]
          if (user && custom.get(String(user.id))) user.plan = 'enterprise'
          return response
        },
      }
    },
  },
  {
    name: 'legacy-ratelimit-fields-always-burst',
    kind: 'headers',
    what:
      'The legacy `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` were written when the platform had only the per-minute limiter, and still describe the burst window whatever the hourly one holds: once the hourly window is the one with the least remaining (an account late in a busy hour, an account whose custom hourly quota is below its burst quota, every 429 for the hourly window), they show the burst quota and its remaining room, so a client that throttles on them keeps sending into a 429. While burst is the tighter window (nearly always) they are right. ' +
      'Contract, Rate limits: "the legacy `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` for the window with the least remaining (ties: `burst`)"; X-RateLimit-Limit header: "Quota of the window with the least remaining requests (ties go to `burst`)"; X-RateLimit-Remaining: "Requests remaining in that same window"; docs/decisions/006-rate-limits.md: "for the window with the least left".',
    make: () => ({
      response(response) {
        const windows = windowsOf(response.headers)
        const now = nowOf(response)
        const burst = windows?.find((window) => window.policy === 'burst')
        if (!windows || now === undefined || !burst || response.headers['x-ratelimit-limit'] === undefined)
          return response
        response.headers['x-ratelimit-limit'] = String(burst.q)
        response.headers['x-ratelimit-remaining'] = String(burst.r)
        response.headers['x-ratelimit-reset'] = String(now + burst.t)
        return response
      },
    }),
  },

  // ---------------------------------------------------------------------------------------------- roles
  {
    name: 'last-admin-demotion-refused',
    kind: 'roles',
    what:
      'A guard meant to keep every account administrable refuses to take away the last `admin` role: PATCH /team-members/{member_id} that changes the only member (or invitation) with role `admin` to `editor` or `viewer`, and DELETE of that member, are answered 409 `last_admin` ("make another member admin first"), and nothing changes. The guard forgets that the owner administers the account anyway; with two admins, or for editors and viewers, both operations are right. ' +
      'Contract, updateTeamMember: "Changes the role of a member or of a pending invitation. `role` is required and must be `admin`, `editor` or `viewer` ... The owner\'s role cannot be changed: 409 `owner_role_immutable`"; removeTeamMember: "Removes a member, or withdraws a pending invitation ... The owner cannot be removed: 409 `cannot_remove_owner`"; Conflict: the 409 codes are `member_already_exists`, `owner_role_immutable`, `cannot_remove_owner`, `idempotency_key_reused`, `limit_reached`; docs/decisions/009-resources.md: "the owner can be neither changed nor removed" (the owner only).',
    make: () => {
      const book = new Book()
      const roles = book.map<string, Map<string, string>>()
      const complete = book.set<string>()
      const noted = new Map<EngineRequest, { param: string }>()
      const team = (account: string) => {
        let members = roles.get(account)
        if (!members) {
          members = new Map()
          roles.set(account, members)
        }
        return members
      }
      const lastAdmin = (account: string, id: string) => {
        if (!complete.has(account)) return false
        const members = team(account)
        if (members.get(id) !== 'admin') return false
        return ![...members].some(([other, role]) => other !== id && role === 'admin')
      }
      return {
        request(request) {
          if (!isV1(request)) return request
          const account = book.account(tokenOf(request))
          const patched = itemId(request, 'PATCH', 'team-members')
          if (patched !== undefined) {
            const body = objectBody(request)
            const keys = body ? Object.keys(body) : []
            const role = body?.role
            if (keys.length !== 1 || (role !== 'editor' && role !== 'viewer')) return request
            if (!lastAdmin(account, patched)) return request
            const sent = harmless(request)
            noted.set(sent, { param: 'role' })
            return sent
          }
          const removed = itemId(request, 'DELETE', 'team-members')
          if (removed === undefined || !lastAdmin(account, removed)) return request
          const sent = oversized(request)
          noted.set(sent, { param: 'member_id' })
          return sent
        },
        response(response, request) {
          const note = noted.get(request)
          noted.delete(request)
          book.observe(request, response)
          const created = createdAccount(request, response)
          if (created !== undefined) complete.add(created)
          if (note) {
            if (!passedToBody(response) && !passedToSize(response)) return response
            return errorAnswer(response, 409, {
              type: 'conflict_error',
              code: 'last_admin',
              message: 'This is the last admin of the account: make another member admin first.',
              param: note.param,
            })
          }
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const path = pathOf(request)
          const body = isObject(response.body) ? response.body : undefined
          if (isRead(request) && /^\/v1\/team-members\/?$/.test(path) && body?.has_more === false) {
            const query = queryOf(request)
            if (!query.has('starting_after') && !query.has('ending_before')) {
              team(account).clear()
              complete.add(account)
            }
          }
          for (const member of objectsOf(response, 'team_member'))
            team(account).set(String(member.id), String(member.role))
          const removed = itemId(request, 'DELETE', 'team-members')
          if (removed !== undefined && response.status === 200) team(account).delete(removed)
          return response
        },
      }
    },
  },
  {
    name: 'active-member-role-change-reinvites',
    kind: 'roles',
    what:
      'A role change goes through the invitation service, which sends the member an invitation to confirm the new role: PATCH /team-members/{member_id} of a member who has joined (`status: active`) answers, and every later read shows, the member as `invited` again, with `joined_at: null` and `invited_at` set to the time of the change. Role changes of pending invitations (the only members a new account has) are right. ' +
      'Contract, updateTeamMember: "Changes the role of a member or of a pending invitation" (nothing else); TeamMember.joined_at: "When the member accepted the invitation (the owner - created the account); `null` while invited"; invited_at: "When the invitation was sent"; inviteTeamMember: "The mock sends no e-mail and has no endpoint to accept an invitation"; docs/decisions/009-resources.md: "PATCH `{role}`".',
    make: () => {
      const book = new Book()
      const reinvited = book.map<string, string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const patched = itemId(request, 'PATCH', 'team-members')
          const member = objectsOf(response, 'team_member')[0]
          if (patched !== undefined && member?.status === 'active' && member.role !== 'owner') {
            const now = nowOf(response) ?? book.now
            if (now !== undefined) reinvited.set(`${account} ${patched}`, timestampOf(now))
          }
          const removed = itemId(request, 'DELETE', 'team-members')
          if (removed !== undefined && response.status === 200) reinvited.delete(`${account} ${removed}`)
          for (const shown of objectsOf(response, 'team_member')) {
            const at = reinvited.get(`${account} ${String(shown.id)}`)
            if (at === undefined) continue
            shown.status = 'invited'
            shown.joined_at = null
            shown.invited_at = at
          }
          return response
        },
      }
    },
  },
  {
    name: 'owner-read-by-id-with-invited-at',
    kind: 'roles',
    what:
      'The detail serializer of GET /team-members/{member_id} fills `invited_at` with `member.invited_at ?? member.created_at` ("when the person got access"): the owner, read by ID, shows an `invited_at` equal to its `created_at`, although nobody invited them; in the list, and for every other member, `invited_at` is right. ' +
      'Contract, TeamMember.invited_at: "When the invitation was sent; `null` for the owner, who was never invited"; TeamMember: "Exactly one member is the `owner`: the person who created the account"; getTeamMember: "Returns one team member or pending invitation".',
    make: () => ({
      response(response, request) {
        if (!isV1(request) || itemId(request, 'GET', 'team-members') === undefined) return response
        const member = objectsOf(response, 'team_member')[0]
        if (member?.role === 'owner' && member.invited_at === null) member.invited_at = member.created_at
        return response
      },
    }),
  },

  // --------------------------------------------------------------------------------------------- scopes
  {
    name: 'analytics-agent-filter-needs-agents-read',
    kind: 'scopes',
    what:
      "GET /analytics/calls resolves agent IDs through the agents service, which enforces `agents:read` on the caller's key: a request with `agent_id`, or with `group_by=agent_id`, made with a key that holds `analytics:read` but not `agents:read` (a reporting key: `analytics:read` alone, or with `call_logs:read`) gets 403 `insufficient_permissions` naming `agents:read`, instead of the analytics. Unfiltered analytics, and the same requests with keys that may read agents, are right. " +
      'Contract, getCallAnalytics: "Needs `analytics:read`" (`x-required-permission: [analytics:read]`); Authentication and permissions: "Each operation names the scopes it needs in `x-required-permission` (an array; **all** listed scopes are required ...)"; parameter agent_id: "Only calls of this agent (call logs of deleted agents included; no existence check)"; docs/decisions/004-permissions.md (`analytics:read` = access analytics).',
    make: () => {
      const book = new Book()
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isV1(request) || !isAnalytics(request)) return request
          const query = queryOf(request)
          if (!query.has('agent_id') && query.get('group_by') !== 'agent_id') return request
          const scopes = book.scopesOf(tokenOf(request))
          if (!scopes || scopes.includes('agents:read') || scopes.includes('agents:write')) return request
          const sent = probed(request)
          noted.add(sent)
          return sent
        },
        response(response, request) {
          const wasNoted = noted.delete(request)
          book.observe(request, response)
          if (!wasNoted || response.status !== 400) return response
          return failWith(response, errors.missingPermission('agents:read'))
        },
      }
    },
  },
  {
    name: 'publishable-writes-refused-as-restricted',
    kind: 'scopes',
    what:
      'Publishable keys are handled as restricted keys: whatever a publishable key may not do (create or change an agent, read call logs, analytics, integrations or team members, delete anything) is refused with 403 `key_restricted` ("publishable keys are read-only") and no `required_permission`, instead of `insufficient_permissions` naming the missing scope. Secret keys without a scope get the right 403, and what a publishable key may do is answered. ' +
      'Contract, Forbidden: "`insufficient_permissions`: the key lacks a scope listed in the operation\'s `x-required-permission`; `required_permission` names the (first) missing scope. `key_restricted`: the key\'s restrictions reject the request (client IP outside `allowed_ips`, or an `Origin` header missing from / not listed in `allowed_origins`)"; docs/decisions/004-permissions.md: "A 403 has `error.type` `permission_error`, `error.code` `insufficient_permissions` (or `key_restricted`), and `error.required_permission` naming the scope that is missing"; "A publishable key may hold `agents:read` only".',
    make: () => ({
      response(response, request) {
        const error = errorOf(response)
        if (!isV1(request) || !tokenOf(request)?.startsWith('pk-svc-')) return response
        if (response.status !== 403 || error?.code !== 'insufficient_permissions') return response
        error.code = 'key_restricted'
        error.message = 'Publishable keys are read-only: use a secret key for this request.'
        delete error.required_permission
        return response
      },
    }),
  },

  // ----------------------------------------------------------------------------------------- instants
  {
    name: 'key-expiry-after-2038-wraps',
    kind: 'instants',
    what:
      "A key's `expires_at` is kept in the key cache as a signed 32-bit count of seconds: an expiry after 2038-01-19T03:14:07Z wraps to a time in the early twentieth century, and the key is refused from its first request with 401 saying it expired at that time (a key given a long life, `2040-01-01T00:00:00Z`, never works). Keys without an expiry, or expiring before 2038, are right. " +
      'docs/decisions/003-api-keys.md: "`expires_at` (after it the key is refused with a 401 whose message says it expired)"; mock-control createKey: "`expires_at` (after it the key gets 401 with a message saying it expired; must be in the future ...)"; contract, Conventions: instants from "0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z" are timestamps the platform represents; the spec: an active key is in use until it is revoked.',
    make: () => {
      const book = new Book()
      const refused = new Map<EngineRequest, { token: string; at: string }>()
      const LIMIT = 2 ** 31
      return {
        request(request) {
          if (!isV1(request) || request.method === 'OPTIONS') return request
          const token = tokenOf(request)
          const expiry = secondOf(book.expiryOf(token))
          if (token === undefined || expiry === undefined || expiry < LIMIT || book.isDead(token))
            return request
          const wrapped = ((((expiry + LIMIT) % 2 ** 32) + 2 ** 32) % 2 ** 32) - LIMIT
          if (book.now !== undefined && wrapped > book.now) return request
          const sent = preflightInstead(request)
          refused.set(sent, { token, at: timestampOf(wrapped) })
          return sent
        },
        response(response, request) {
          const refusal = refused.get(request)
          refused.delete(request)
          book.observe(request, response)
          if (!refusal) return response
          const redacted = `${refusal.token.slice(0, 7)}...${refusal.token.slice(-4)}`
          return errors
            .unauthenticated(`This API key (${redacted}) expired at ${refusal.at}.`)
            .toResponse(response.headers['request-id'] ?? '', ownHeaders(response))
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------- rare operations
  {
    name: 'google-calendar-slug-unroutable',
    kind: 'rare-operations',
    what:
      "The integration routes declare their path parameter as `:integration_id([a-z]+)`, a pattern written from the one-word slugs: `google_calendar`, the catalogue's one slug with an underscore, matches no route, so GET, HEAD, PATCH (and the preflight) of /integrations/google_calendar answer 404 `route_not_found`, although the list shows the integration. Every other slug is right. " +
      'Contract, listIntegrations: "always exactly seven entries, one per provider: `twilio`, `salesforce`, `hubspot`, `google_calendar`, `slack`, `zapier`, `webhook`"; getIntegration: "Returns one integration by its provider slug. A slug outside the catalog is 404"; IntegrationSlug: enum with `google_calendar`; Conventions, CORS: preflights "for every documented path".',
    make: () => {
      const original = new Map<EngineRequest, string>()
      return {
        request(request) {
          const item = itemOf(request)
          if (item?.collection !== 'integrations' || item.id !== 'google_calendar') return request
          const url = urlOf(request)
          const sent = { ...request, url: `${url.pathname.replace(/\/$/, '')}/-${url.search}` }
          original.set(sent, url.pathname)
          return sent
        },
        response(response, request) {
          const path = original.get(request)
          original.delete(request)
          const error = errorOf(response)
          if (path !== undefined && error?.code === 'route_not_found')
            error.message = `Unrecognized request URL (${request.method} ${path}).`
          return response
        },
      }
    },
  },
  {
    name: 'disconnect-of-unconnected-integration-404',
    kind: 'rare-operations',
    what:
      'PATCH /integrations/{integration_id} carries out `credentials: null` as a deletion of the stored credentials and maps "no row deleted" to not found: disconnecting an integration that is not connected (a client that makes sure an integration is off, a retried disconnection) is answered 404 `resource_not_found` ("no credentials are stored") and nothing in the request is applied, instead of 200 with the integration `not_connected` and `updated_at` set. Disconnecting a connected integration is right. ' +
      'Contract, updateIntegration: "`credentials: null` disconnects: `status` becomes `not_connected`, `connected_at` and `credential_hint` become `null` (`enabled` is kept)", "`updated_at` is set to now on every successful update"; NotFound: "`resource_not_found`: the path ID does not exist in the key\'s account"; listIntegrations: "every account has all seven (initially `not_connected`, disabled)".',
    make: () => {
      const book = new Book()
      const status = book.map<string, string>()
      const noted = new Map<EngineRequest, string>()
      return {
        request(request) {
          const slug = itemId(request, 'PATCH', 'integrations')
          if (!isV1(request) || slug === undefined) return request
          const body = objectBody(request)
          if (!body || body.credentials !== null) return request
          const valid = Object.entries(body).every(
            ([field, value]) =>
              field === 'credentials' ||
              (field === 'enabled' && typeof value === 'boolean') ||
              (field === 'config' && validConfig(value)),
          )
          if (!valid || status.get(`${book.account(tokenOf(request))} ${slug}`) !== 'not_connected')
            return request
          const sent = harmless(request)
          noted.set(sent, slug)
          return sent
        },
        response(response, request) {
          const slug = noted.get(request)
          noted.delete(request)
          book.observe(request, response)
          const created = createdAccount(request, response)
          if (created !== undefined)
            for (const id of CATALOGUE) status.set(`${created} ${id}`, 'not_connected')
          if (slug !== undefined)
            return passedToBody(response)
              ? errorAnswer(response, 404, {
                  type: 'not_found_error',
                  code: 'resource_not_found',
                  message: `No credentials are stored for integration '${slug}'.`,
                  param: 'integration_id',
                })
              : response
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          for (const integration of objectsOf(response, 'integration'))
            status.set(`${account} ${String(integration.id)}`, String(integration.status))
          return response
        },
      }
    },
  },
  {
    name: 'head-on-item-paths-405',
    kind: 'rare-operations',
    what:
      "HEAD is answered by the framework for the list routes (registered with an explicit HEAD handler, for clients that poll them) but not for the item routes, which are registered for GET only: HEAD /agents/{agent_id}, /call-logs/{call_log_id}, /integrations/{integration_id} and /team-members/{member_id} are answered 405 `method_not_allowed` (with the path's `Allow`, which lists HEAD) instead of the GET's status and headers. HEAD of lists, of /user and of analytics is right. " +
      'Contract, Conventions: "**HEAD** is answered wherever GET is documented, like that GET without a body (RFC 9110 section 9.3.2): the same status and headers, authenticated, permission-checked, and counted against the rate limits like the GET. `Allow` lists it after `GET`"; MethodNotAllowed: "405 - the path exists but not with this method"; docs/decisions/001-general.md: "A documented path called with an undocumented method is 405".',
    make: () => {
      const ALLOW: Record<string, string[]> = {
        agents: ['GET', 'HEAD', 'DELETE', 'PATCH'],
        'call-logs': ['GET', 'HEAD', 'DELETE'],
        integrations: ['GET', 'HEAD', 'PATCH'],
        'team-members': ['GET', 'HEAD', 'DELETE', 'PATCH'],
      }
      return {
        response(response, request) {
          const item = itemOf(request)
          if (request.method !== 'HEAD' || !item || response.status === 401 || response.status === 429)
            return response
          return failWith(
            response,
            errors.methodNotAllowed('HEAD', ALLOW[item.collection] ?? ['GET', 'HEAD']),
          )
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------------- extremes
  {
    name: 'webhook-url-limited-to-255-characters',
    kind: 'extremes',
    what:
      'Agent bodies are validated with a `webhook_url` limit of 255 characters (the width of the column it was first stored in): a webhook URL longer than that, such as a signed URL carrying a token in its query, is refused with 422 `max_length` on `webhook_url`, on create and on update, and nothing is created or changed, although URLs of up to 2,048 characters are allowed. Shorter URLs are right. ' +
      'Contract, Agent, AgentCreateRequest and AgentUpdateRequest: `webhook_url: {type: [string, null], format: uri, maxLength: 2048, ...}`; UnprocessableEntity: "422 - the body is a JSON object but breaks the schema"; docs/decisions/009-resources.md (`webhook_url` among the agent\'s fields).',
    make: () => {
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isCreate(request, 'agents') && itemId(request, 'PATCH', 'agents') === undefined) return request
          const body = objectBody(request)
          if (typeof body?.webhook_url !== 'string' || chars(body.webhook_url) <= 255) return request
          const sent = withJson(request, { ...body, webhook_url: 'h18:too-long' })
          noted.add(sent)
          return sent
        },
        response(response, request) {
          if (!noted.delete(request)) return response
          return rewordParam(
            response,
            'webhook_url',
            'max_length',
            "'webhook_url' must be at most 255 characters.",
          )
        },
      }
    },
  },
  {
    name: 'anthropic-temperature-capped-at-one',
    kind: 'extremes',
    what:
      "The language-model settings are checked against each provider's own API limits, and Anthropic's API takes temperatures from 0 to 1: an agent created with `llm: {provider: anthropic, temperature: 1.5}`, or an update that sets a temperature above 1 on an agent whose model is Anthropic's, is refused with 422 `maximum` on `llm.temperature`, and nothing is created or changed, although the platform allows 0 to 2 for every provider. Temperatures up to 1, and every other provider, are right. " +
      'Contract, Llm / LlmInput / LlmUpdate: `temperature: {type: number, minimum: 0, maximum: 2}`; docs/decisions/009-resources.md: "llm {provider, model, temperature 0-2, max_tokens}"; UnprocessableEntity: 422 only for "a JSON object [that] breaks the schema".',
    make: () => {
      const book = new Book()
      const agents = new Seen('agent', 'agents')
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          const patched = itemId(request, 'PATCH', 'agents')
          if (!isCreate(request, 'agents') && patched === undefined) return request
          const body = objectBody(request)
          const llm = isObject(body?.llm) ? body.llm : undefined
          if (
            !body ||
            !llm ||
            typeof llm.temperature !== 'number' ||
            llm.temperature <= 1 ||
            llm.temperature > 2
          )
            return request
          const stored =
            patched === undefined ? undefined : agents.get(book.account(tokenOf(request)), patched)
          const storedLlm = isObject(stored?.llm) ? stored.llm : undefined
          if ((llm.provider ?? storedLlm?.provider) !== 'anthropic') return request
          const sent = withJson(request, { ...body, llm: { ...llm, temperature: 99 } })
          noted.add(sent)
          return sent
        },
        response(response, request) {
          const wasNoted = noted.delete(request)
          if (book.observe(request, response)) agents.clear()
          agents.observe(request, response, book.account(tokenOf(request)))
          if (!wasNoted) return response
          return rewordParam(
            response,
            'llm.temperature',
            'maximum',
            "'llm.temperature' must be <= 1 for anthropic models.",
          )
        },
      }
    },
  },
  {
    name: 'zone-names-with-signs-or-digits-refused',
    kind: 'extremes',
    what:
      'The `timezone` of GET /analytics/calls is checked with `^[A-Za-z_]+(/[A-Za-z_]+)*$` before it is looked up: valid IANA names with a digit, a plus or a minus sign (`Etc/GMT+5`, `Etc/GMT-14`, `America/Port-au-Prince`, `EST5EDT`, `Etc/GMT0`) are refused with 400 `invalid_parameter` naming `timezone` ("unknown time zone"), although the platform knows them. Names of letters, underscores and slashes are right. ' +
      'Contract, getCallAnalytics parameter timezone: "IANA time zone name used to align `day`, `week` and `month` buckets ... Unknown names are 400 `invalid_parameter`" (`pattern: ^[A-Za-z][A-Za-z0-9_+\\-]*(/[A-Za-z0-9_+\\-]+)*$`, `maxLength: 64`).',
    make: () => {
      const noted = new Map<EngineRequest, string>()
      return {
        request(request) {
          if (!isV1(request) || !isAnalytics(request)) return request
          const zone = queryOf(request).get('timezone')
          if (zone === null || !/[0-9+-]/.test(zone) || !knownZone(zone)) return request
          const sent = withQuery(request, (query) => {
            query.set('timezone', 'Not/AZone')
          })
          noted.set(sent, zone)
          return sent
        },
        response(response, request) {
          const zone = noted.get(request)
          noted.delete(request)
          const error = errorOf(response)
          if (zone !== undefined && error && paramOf(response) === 'timezone')
            error.message = `Unknown time zone '${zone}'.`
          return response
        },
      }
    },
  },
  {
    name: 'zero-duration-bounds-ignored',
    kind: 'extremes',
    what:
      'GET /call-logs builds its duration conditions with `if (query.min_duration_seconds)` and `if (query.max_duration_seconds)`, so a bound of 0, the smallest allowed, is taken as absent: `min_duration_seconds=0` lists the calls not yet ended too (queued, ringing, in progress), and `max_duration_seconds=0` lists every call instead of those of 0 seconds. Bounds of 1 or more are right. ' +
      'Contract, listCallLogs: "`min_duration_seconds` / `max_duration_seconds` are inclusive bounds on `duration_seconds` (calls whose `duration_seconds` is `null`, i.e. not ended, never match a duration filter)"; parameters min_duration_seconds / max_duration_seconds: `{type: integer, minimum: 0}`, "Only ended calls with `duration_seconds` >= this value" / "<= this value".',
    make: () => ({
      request(request) {
        if (!isV1(request) || !isCallLogList(request)) return request
        const query = queryOf(request)
        if (query.get('min_duration_seconds') !== '0' && query.get('max_duration_seconds') !== '0')
          return request
        return withQuery(request, (rewritten) => {
          for (const name of ['min_duration_seconds', 'max_duration_seconds'])
            if (rewritten.get(name) === '0') rewritten.delete(name)
        })
      },
    }),
  },

  // ----------------------------------------------------------------------------------------- instants
  {
    name: 'pre-epoch-started-bounds-refused',
    kind: 'instants',
    what:
      'The `started_after` and `started_before` filters of GET /call-logs are converted to unsigned epoch seconds, and an instant before 1970-01-01T00:00:00Z does not convert: a bound such as `0001-01-01T00:00:00Z` (the zero time Go clients send for "from the beginning") or `1900-01-01T00:00:00Z` is refused with 400 `invalid_parameter` naming it, instead of matching every call. Bounds from 1970 on are right. ' +
      'Contract, Conventions: "Timestamps *sent* in query parameters may carry any RFC 3339 offset ...; A timestamp that names no instant is 400 `invalid_parameter` naming the parameter: an impossible date or time, an offset past ±23:59, a leap second ..., or an instant outside 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z"; listCallLogs parameter started_after: "Only calls with `started_at` strictly after this instant (RFC 3339)".',
    make: () => {
      const noted = new Map<EngineRequest, Map<string, string>>()
      return {
        request(request) {
          if (!isV1(request) || !isCallLogList(request)) return request
          const query = queryOf(request)
          const early = new Map<string, string>()
          for (const name of ['started_after', 'started_before']) {
            const value = query.get(name)
            const ms = value === null ? Number.NaN : Date.parse(value)
            if (value !== null && Number.isFinite(ms) && ms < 0) early.set(name, value)
          }
          if (early.size === 0) return request
          const sent = withQuery(request, (rewritten) => {
            for (const name of early.keys()) rewritten.set(name, 'h18-before-epoch')
          })
          noted.set(sent, early)
          return sent
        },
        response(response, request) {
          const early = noted.get(request)
          noted.delete(request)
          const param = paramOf(response)
          const error = errorOf(response)
          const value = typeof param === 'string' ? early?.get(param) : undefined
          if (error && value !== undefined)
            error.message = `${String(param)}: ${value} is out of range (the earliest instant is 1970-01-01T00:00:00Z).`
          return response
        },
      }
    },
  },
  {
    name: 'leap-day-bounds-refused',
    kind: 'instants',
    what:
      'The range parser of GET /analytics/calls checks the day of the month against a table of month lengths without leap years: a `start` or `end` on 29 February (`2024-02-29T00:00:00Z`, a monthly report of a leap February, a range that ends on the leap day) is refused with 400 `invalid_parameter` naming it ("is not a day of the calendar"). Every other date is right. ' +
      'Contract, Conventions: "A timestamp that names no instant is 400 `invalid_parameter` naming the parameter: an impossible date or time ..." (29 February of a leap year names an instant); getCallAnalytics parameters start / end: "Inclusive start of the range (RFC 3339)" / "Exclusive end of the range (RFC 3339)".',
    make: () => {
      const noted = new Map<EngineRequest, Map<string, string>>()
      return {
        request(request) {
          if (!isV1(request) || !isAnalytics(request)) return request
          const query = queryOf(request)
          const leap = new Map<string, string>()
          for (const name of ['start', 'end']) {
            const value = query.get(name)
            const year = value === null ? Number.NaN : Number(/^(\d{4})-02-29[Tt]/.exec(value)?.[1])
            const leapYear = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
            if (value !== null && leapYear && Number.isFinite(Date.parse(value))) leap.set(name, value)
          }
          if (leap.size === 0) return request
          const sent = withQuery(request, (rewritten) => {
            for (const name of leap.keys()) rewritten.set(name, 'h18-leap-day')
          })
          noted.set(sent, leap)
          return sent
        },
        response(response, request) {
          const leap = noted.get(request)
          noted.delete(request)
          const param = paramOf(response)
          const error = errorOf(response)
          const value = typeof param === 'string' ? leap?.get(param) : undefined
          if (error && value !== undefined)
            error.message = `${String(param)}: ${value.slice(0, 10)} is not a day of the calendar.`
          return response
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------------- calendar
  {
    name: 'december-month-bucket-crashes',
    kind: 'calendar',
    what:
      'Month buckets are stepped with `date(year, month + 1, 1)`, which raises for December (there is no month 13): GET /analytics/calls with `granularity=month` over a range in which a bucket starts on 1 January (a year-end report, the last twelve months) fails with 500 `internal_error`. Month ranges within one calendar year, and every other granularity, are right. ' +
      'Contract, getCallAnalytics: "Buckets are aligned to calendar boundaries of the granularity in `timezone` (... the 1st at 00:00 for `month`)", its documented answers (200 for a valid range); Errors: "500 | `api_error` | `internal_error` | (not documented per operation; the mock returns it only when a scenario injects it)"; docs/decisions/009-resources.md: granularity `month`.',
    make: () => ({
      response(response, request) {
        if (!isV1(request) || !isAnalytics(request) || response.status !== 200 || !isObject(response.body))
          return response
        const body = response.body
        if (body.granularity !== 'month' || typeof body.timezone !== 'string' || !Array.isArray(body.series))
          return response
        const zone = body.timezone
        const crosses = (body.series as unknown[]).slice(1).some((bucket) => {
          const start = isObject(bucket) ? Date.parse(String(bucket.start)) : Number.NaN
          return Number.isFinite(start) && localTime(zone, start)?.month === 1
        })
        return crosses
          ? failWith(response, errors.internal('Internal error: month must be in 1..12'))
          : response
      },
    }),
  },
  {
    name: 'aligned-end-adds-empty-bucket',
    kind: 'calendar',
    what:
      'The bucket loop of GET /analytics/calls runs `while (cursor <= end)`: when `end` falls exactly on a boundary of the granularity in the time zone (an hour, local midnight, Monday 00:00, the 1st; as a range "up to midnight" or "up to the 1st" has it), the series (and every group\'s series) ends with one more bucket, from `end` to `end`, all zeros, so the series holds one bucket past the range (745 for a full 744-hour range). Ranges whose `end` is not on a boundary are right. ' +
      'Contract, getCallAnalytics, Buckets: "the first and last buckets are clipped to `start` and `end`, so the buckets exactly tile the range"; CallAnalytics: "`series` tiles `[start, end)` in buckets, oldest first" (`maxItems: 744`); AnalyticsBucket: "One time bucket `[start, end)` of a series".',
    make: () => ({
      response(response, request) {
        if (!isV1(request) || !isAnalytics(request) || response.status !== 200 || !isObject(response.body))
          return response
        const body = response.body
        const end = Date.parse(String(body.end))
        const zone = typeof body.timezone === 'string' ? body.timezone : 'UTC'
        const local = Number.isFinite(end) ? localTime(zone, end) : undefined
        if (local?.second !== 0 || local.minute !== 0) return response
        const midnight = local.hour === 0
        const aligned =
          body.granularity === 'hour' ||
          (body.granularity === 'day' && midnight) ||
          (body.granularity === 'week' && midnight && local.weekday === 0) ||
          (body.granularity === 'month' && midnight && local.day === 1)
        if (!aligned) return response
        const extra = () => ({ start: String(body.end), end: String(body.end), metrics: emptyMetrics() })
        if (Array.isArray(body.series)) body.series.push(extra())
        if (Array.isArray(body.groups))
          for (const group of body.groups)
            if (isObject(group) && Array.isArray(group.series)) group.series.push(extra())
        return response
      },
    }),
  },

  // ----------------------------------------------------------------------------------------- rare states
  {
    name: 'unanswered-call-cost-null',
    kind: 'rare-states',
    what:
      "The cost of a live call is joined from the carrier's billing records, which have no row for a call that never connected: a call placed through the platform that ends `no_answer`, `busy`, `failed` or `canceled` shows `cost_usd: null`, in lists and by ID, instead of 0. Completed calls, and the imported history, are right. " +
      'Contract, CallLogSummary: "`cost_usd` is set at the end (at most 4 decimals; 0 for calls that were never answered). All four of `ended_at`, `duration_seconds`, `cost_usd` and `end_reason` are `null` while the call is not final"; mock-control startCall: "(the other outcomes, which never connect: `end_reason` `error` for `failed`, `null` otherwise; `cost_usd` 0)".',
    make: () => {
      const book = new Book()
      const calls = new LiveCalls()
      return {
        response(response, request) {
          if (book.observe(request, response)) calls.clear()
          calls.observe(request, response)
          if (!isV1(request)) return response
          for (const log of objectsOf(response, 'call_log'))
            if (calls.get(log.id) && NEVER_CONNECTED.has(String(log.status)) && log.cost_usd === 0)
              log.cost_usd = null
          return response
        },
      }
    },
  },
  {
    name: 'duration-cap-reported-as-agent-ended',
    kind: 'rare-states',
    what:
      "A live call that reaches its agent's `max_call_duration_seconds` is ended by the platform hanging up on the agent's side, and the end reason is taken from the side that hung up: such a call shows `end_reason: agent_ended` (in lists, by ID) instead of `max_duration_reached`, so calls cut by the cap cannot be told from calls the agent closed. Calls that end before the cap are right. " +
      'Contract, Agent.max_call_duration_seconds: "Calls are ended (`end_reason: max_duration_reached`) after this many seconds"; CallEndReason: enum with `max_duration_reached`; mock-control startCall: "it ends `duration_seconds` after it connected (capped at the agent\'s `max_call_duration_seconds`, then `end_reason: max_duration_reached`)".',
    make: () => {
      const book = new Book()
      const calls = new LiveCalls()
      return {
        response(response, request) {
          if (book.observe(request, response)) calls.clear()
          calls.observe(request, response)
          if (!isV1(request)) return response
          for (const log of objectsOf(response, 'call_log'))
            if (calls.get(log.id) && log.end_reason === 'max_duration_reached') log.end_reason = 'agent_ended'
          return response
        },
      }
    },
  },
  {
    name: 'agent-with-live-call-undeletable',
    kind: 'rare-states',
    what:
      'DELETE /agents/{agent_id} refuses an agent that has a call under way (queued, ringing or in progress), because the call router holds it: 409 `agent_in_call` ("end its calls first"), and the agent stays, instead of being deleted (its call logs kept). Agents without a call under way are deleted as they should be. ' +
      'Contract, deleteAgent: "Permanently deletes an agent and answers `{id, object: "agent", deleted: true}`. The agent\'s call logs are **kept** (they keep its `agent_id` and still appear in lists and analytics)"; deleteCallLog: "A call that has not ended yet (`queued`, `ringing`, `in_progress`) can be deleted too" (a call under way blocks nothing); Conflict: its codes (`member_already_exists`, `owner_role_immutable`, `cannot_remove_owner`, `idempotency_key_reused`, `limit_reached`).',
    make: () => {
      const book = new Book()
      const agents = new Seen('agent', 'agents')
      const calls = new LiveCalls(agents)
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          const agent = itemId(request, 'DELETE', 'agents')
          if (!isV1(request) || agent === undefined || book.now === undefined) return request
          if (calls.underWay(book.account(tokenOf(request)), agent, book.now).length === 0) return request
          const sent = oversized(request)
          noted.add(sent)
          return sent
        },
        response(response, request) {
          const wasNoted = noted.delete(request)
          if (book.observe(request, response)) {
            agents.clear()
            calls.clear()
          }
          agents.observe(request, response, book.account(tokenOf(request)))
          calls.observe(request, response)
          if (!wasNoted || !passedToSize(response)) return response
          return errorAnswer(response, 409, {
            type: 'conflict_error',
            code: 'agent_in_call',
            message: 'This agent has a call in progress: end its calls before deleting it.',
            param: 'agent_id',
          })
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------- rare values
  {
    name: 'canceled-status-filter-spelled-cancelled',
    kind: 'rare-values',
    what:
      'The `status` filter of GET /call-logs is validated against an enum that spells the last status the British way, `cancelled`: `status=canceled` (the status the call logs carry) is refused with 400 `invalid_parameter` naming `status`, and `status=cancelled` is accepted and lists the canceled calls. The other statuses are right. ' +
      'Contract, CallStatus: enum `queued, ringing, in_progress, completed, no_answer, busy, failed, canceled`; listCallLogs parameter status: "Only call logs with this status" (`$ref: CallStatus`); listCallLogs: "A filter value of the wrong shape ... is 400 `invalid_parameter`"; Lists and pagination: "Unknown query parameters are rejected".',
    make: () => {
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isV1(request) || !isCallLogList(request)) return request
          const status = queryOf(request).get('status')
          if (status === 'cancelled')
            return withQuery(request, (query) => {
              query.set('status', 'canceled')
            })
          if (status !== 'canceled') return request
          const sent = withQuery(request, (query) => {
            query.set('status', 'h18-canceled')
          })
          noted.add(sent)
          return sent
        },
        response(response, request) {
          const error = errorOf(response)
          if (noted.delete(request) && error && paramOf(response) === 'status')
            error.message =
              '\'status\' must be one of: "queued", "ringing", "in_progress", "completed", "no_answer", "busy", "failed", "cancelled".'
          return response
        },
      }
    },
  },
  {
    name: 'newer-voice-providers-refused-on-update',
    kind: 'rare-values',
    what:
      'The update schema of agents keeps its own copy of the voice providers, made before Deepgram and PlayHT were added: PATCH /agents/{agent_id} with `voice: {provider: "deepgram"}` or `"playht"` is refused with 422 `enum` on `voice.provider`, although an agent can be created with them. Updates to the other providers, and creates, are right. ' +
      'Contract, VoiceUpdate: `provider: {$ref: VoiceProvider}`; VoiceProvider: enum `elevenlabs, cartesia, openai, azure, deepgram, playht`; updateAgent: "`voice` and `llm` are **merged** field by field into the stored objects (send only what changes)".',
    make: () => {
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          if (itemId(request, 'PATCH', 'agents') === undefined) return request
          const body = objectBody(request)
          const voice = isObject(body?.voice) ? body.voice : undefined
          if (!body || !voice || (voice.provider !== 'deepgram' && voice.provider !== 'playht'))
            return request
          const sent = withJson(request, { ...body, voice: { ...voice, provider: 'h18-provider' } })
          noted.add(sent)
          return sent
        },
        response(response, request) {
          if (!noted.delete(request)) return response
          return rewordParam(
            response,
            'voice.provider',
            'enum',
            '\'voice.provider\' must be one of: "elevenlabs", "cartesia", "openai", "azure".',
          )
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------- optional fields
  {
    name: 'explicit-null-refused-on-create',
    kind: 'optional-fields',
    what:
      'The create schema of agents types `description`, `first_message` and `webhook_url` as optional strings, not nullable ones (the update schema has them nullable): a create that sends one of them as `null` (a client that serialises every field of its model) is refused with 422 `type` on each, although `null` is their documented default. Creates that leave them out, or send strings, are right. ' +
      'Contract, AgentCreateRequest: `description: {type: [string, null], default: null}`, `first_message: {type: [string, null], default: null}`, `webhook_url: {type: [string, null], default: null}`; FieldError.code: "`type` (wrong JSON type, including `null` where not allowed)"; Conventions, Nullability: "a nullable field is present with `null`".',
    make: () => {
      const NULLABLE = ['description', 'first_message', 'webhook_url']
      const noted = new Map<EngineRequest, string[]>()
      return {
        request(request) {
          if (!isCreate(request, 'agents')) return request
          const body = objectBody(request)
          const nulls = NULLABLE.filter(
            (field) => body !== undefined && field in body && body[field] === null,
          )
          if (!body || nulls.length === 0) return request
          const poisoned = { ...body }
          for (const field of nulls) poisoned[field] = 0
          const sent = withJson(request, poisoned)
          noted.set(sent, nulls)
          return sent
        },
        response(response, request) {
          const nulls = noted.get(request)
          noted.delete(request)
          if (!nulls) return response
          return reword422(response, (entry) =>
            typeof entry.param === 'string' && nulls.includes(entry.param) && entry.code === 'type'
              ? { ...entry, message: `'${entry.param}' must be of type string.` }
              : entry,
          )
        },
      }
    },
  },
  {
    name: 'publishable-view-nulls-sensitive-fields',
    kind: 'optional-fields',
    what:
      'The agent presenter for publishable keys blanks the sensitive fields instead of leaving them out: agents read with a publishable key (list and by ID) carry `system_prompt: null`, `webhook_url: null` and `metadata: null`. Nothing secret shows, but the fields are there with values their types do not allow (a string, an object), and a client that tells "not shown to this key" from "empty" by their presence is misled. Secret keys are answered right. ' +
      'Contract, Agent: "`system_prompt`, `webhook_url` and `metadata` are sensitive: they are present in every response to a secret key and **omitted** in responses to a publishable key, which is why they are not `required`" (`system_prompt: {type: string}`, `metadata: {type: object}`); Conventions, Nullability: "Fields that are not `required` are omitted in the documented cases only"; listAgents: "Responses to a **publishable** key omit the sensitive fields".',
    make: () => ({
      response(response, request) {
        if (!isV1(request) || !tokenOf(request)?.startsWith('pk-svc-')) return response
        for (const agent of objectsOf(response, 'agent'))
          for (const field of SENSITIVE) if (!(field in agent)) agent[field] = null
        return response
      },
    }),
  },
  {
    name: 'web-call-numbers-empty-strings',
    kind: 'optional-fields',
    what:
      'Live calls are stored with NOT NULL phone-number columns defaulting to the empty string: a web call placed through the platform (from a browser widget, without phone numbers) shows `from_number: ""` and `to_number: ""`, in lists and by ID, instead of `null`. Phone calls, and the imported history, are right. ' +
      'Contract, CallLogSummary / CallLog: from_number "Caller\'s number in E.164; `null` for web calls", to_number "Called number in E.164; `null` for web calls" (`anyOf: [PhoneNumber, null]`, PhoneNumber `pattern: ^\\+[1-9][0-9]{1,14}$`); docs/decisions/009-resources.md: "to_number (E.164 or null)".',
    make: () => {
      const book = new Book()
      const calls = new LiveCalls()
      return {
        response(response, request) {
          if (book.observe(request, response)) calls.clear()
          calls.observe(request, response)
          if (!isV1(request)) return response
          for (const log of objectsOf(response, 'call_log')) {
            if (calls.get(log.id)?.channel !== 'web') continue
            if (log.from_number === null) log.from_number = ''
            if (log.to_number === null) log.to_number = ''
          }
          return response
        },
      }
    },
  },
  {
    name: 'user-first-speaker-drops-first-message',
    kind: 'optional-fields',
    what:
      'The agents service keeps the opening settings "consistent": when a create or an update sets `first_speaker: user`, it also clears `first_message` (the agent waits for the caller, so its first message was taken to be meaningless): the agent is answered and stored with `first_message: null`, the text sent (or stored) lost. Bodies that set `first_speaker: agent`, or leave it out, are right. ' +
      'Contract, updateAgent: "Partially updates an agent. Only the fields sent change"; AgentCreateRequest: "Omitted fields take their `default`" (sent ones are kept); Agent.first_message: "What the agent says first when `first_speaker` is `agent`; `null` lets the model open" (a field of its own, not cleared by `first_speaker`).',
    make: () => ({
      request(request) {
        if (!isCreate(request, 'agents') && itemId(request, 'PATCH', 'agents') === undefined) return request
        const body = objectBody(request)
        if (body?.first_speaker !== 'user') return request
        const message = body.first_message
        if (message !== undefined && (typeof message !== 'string' || chars(message) > 1000)) return request
        return withJson(request, { ...body, first_message: null })
      },
    }),
  },

  // --------------------------------------------------------------------------------------------- headers
  {
    name: 'cors-exposes-request-id-only',
    kind: 'headers',
    what:
      'The CORS middleware is configured with `exposedHeaders: ["Request-Id"]`: answers to cross-origin requests expose only `Request-Id`, so a browser application cannot read `RateLimit`, `RateLimit-Policy` or `Retry-After` (nor `Location` or `Idempotent-Replayed`) and cannot back off or follow a created object. Requests without an `Origin` (servers) are unaffected. ' +
      'docs/decisions/001-general.md: "The standalone mock answers CORS preflights: it allows `Authorization, Content-Type, Idempotency-Key` and exposes `Request-Id, RateLimit, RateLimit-Policy, Retry-After`"; contract, Conventions, CORS: "it allows the request headers `Authorization, Content-Type, Idempotency-Key` and exposes `Request-Id, RateLimit, RateLimit-Policy, Retry-After`".',
    make: () => ({
      response(response) {
        if (response.headers['access-control-expose-headers'] !== undefined)
          response.headers['access-control-expose-headers'] = 'Request-Id'
        return response
      },
    }),
  },
]
