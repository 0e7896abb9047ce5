/**
 * Held-out fault set 9: thirty faults an implementer of the platform's v1 API could plausibly ship, each of which
 * shows only after a sequence of operations (state over time, and many steps). Written blind to the contract suite:
 * neither its checks, nor its exploration, nor its tests, nor its documentation, nor the held-out-3 list were read,
 * and the suite was never run. held-out-4 to held-out-7 were read for their format only, and so as not to repeat
 * their faults (every fault here breaks another rule, on another operation, or in another situation). The sources
 * were the platform's spec, the product decisions (`docs/decisions/`), the contract (`openapi/v1.yaml`,
 * `openapi/mock-control.yaml`) and the mock engine (the correct implementation every fault wraps). Each fault wraps
 * the correct engine (`faultyHandler`): it rewrites a request before the engine sees it (another query, another
 * `Idempotency-Key`, a harmless read in place of a write it must not carry out), or rewrites or replaces the engine's
 * answer, keeping what it needs to remember in the closure `make()` returns (keys and calls seen through the control
 * plane, objects and answers seen before, the mock clock as the answers show it, its own caches and counters).
 *
 * The weight is on what changes between one request and a later one: caches that serve a stale answer for a while
 * or to another key, counters and windows that reset at the wrong moment, idempotency records kept too loosely or
 * too tightly, objects that come back after a delete, a rejected PATCH that leaves something behind, pages that
 * shift while a client walks them, calls that are still under way, analytics buckets across hour, day, month and
 * daylight-saving boundaries, and state transitions of integrations and team members. Every fault deviates from
 * the platform's spec, the contract or a decision (cited in `what`), in specific situations only (the first reads
 * of every endpoint, a create and a read are unchanged), and never where the spec leaves a choice open
 * (docs/decisions/011-allowed-forms.md). Liveness: `scripts/fault-sets/held-out-9-live.ts`.
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
  tokenOf,
  toTimestamp,
  urlOf,
  type Window,
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

const listOf = (response: EngineResponse): Json[] | undefined =>
  isObject(response.body) && Array.isArray(response.body.data) ? (response.body.data as Json[]) : undefined

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

/** `stored` answered again as a replay, with the Request-Id and rate-limit headers of the engine's answer. */
function replayOf(stored: EngineResponse, current: EngineResponse): EngineResponse {
  return {
    status: stored.status,
    headers: { ...stored.headers, ...ownHeaders(current), 'idempotent-replayed': 'true' },
    body: structuredClone(stored.body),
  }
}

const KIND: Record<string, string> = {
  agents: 'agent',
  'call-logs': 'call log',
  'team-members': 'team member',
  integrations: 'integration',
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

/** The engine's 404 for an item that is not there (as `resourceNotFound` words it). */
function notFound(base: EngineResponse, collection: string, id: string, head = false): EngineResponse {
  const answer = errorAnswer(base, 404, {
    type: 'not_found_error',
    code: 'resource_not_found',
    message: `No ${KIND[collection]} with id '${id}'.`,
    param: PATH_PARAM[collection] as string,
  })
  if (head) answer.body = undefined
  return answer
}

const SECOND_MS = 1000
const MINUTE_MS = 60_000
const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

/** Whether the query has only parameters of `allowed`, each at most once. */
const onlyParams = (query: URLSearchParams, allowed: string[]) =>
  [...query.keys()].every((name) => allowed.includes(name) && query.getAll(name).length === 1)

/** `limit` as the contract takes it (1-100, default 20), or undefined for a value the engine refuses. */
function limitOf(query: URLSearchParams): number | undefined {
  const sent = query.get('limit')
  if (sent === null) return 20
  return /^(100|[1-9][0-9]?)$/.test(sent) ? Number(sent) : undefined
}

// ------------------------------------------------------------------------ rate-limit headers, and the clock

/** A 429 of `policy` in the platform's form, on the rate-limit headers of `base` (that window shown exhausted). */
function tooManyRequests(base: EngineResponse, policy: string, retryAfter: number): EngineResponse {
  const answer = errorAnswer(base, 429, {
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
    message: `Rate limit exceeded for the ${policy} window; retry after ${retryAfter} seconds.`,
    policy,
    retry_after: retryAfter,
  })
  const windows = windowsByName(base.headers)
  const now = nowSecondsOf(base)
  if (windows && now !== undefined) {
    for (const window of windows) if (window.policy === policy) window.r = 0
    writeWindows(answer.headers, windows, now)
  }
  answer.headers['retry-after'] = String(retryAfter)
  return answer
}

// ---------------------------------------------------------------------------------------- what a fault learns

interface KeyInfo {
  id: string
  account: string
  type: string
  permissions: string[]
}

/** A simulated call as the control plane started it: its account and when it ends. */
interface PlannedCall {
  account: string
  endsAt: number
}

/**
 * What every fault of this set watches: the mock clock, the keys made through the control plane (whose 201 shows
 * a key's value once: its account, type and scopes), the calls started there (their account and planned end), and
 * the maps and sets a fault keeps (emptied by `POST /_mock/reset`, which starts the platform again).
 */
class Tracker {
  readonly clock = new ClockWatch()
  private readonly keys = new Map<string, KeyInfo>()
  readonly calls = new Map<string, PlannedCall>()
  private readonly kept: { clear(): void }[] = [this.keys, this.calls]

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

  observe(request: EngineRequest, response: EngineResponse): void {
    this.clock.observe(request, response)
    const path = pathOf(request)
    if (!path.startsWith('/_mock/') || request.method === 'GET') return
    if (path === '/_mock/reset' && ok(response)) {
      for (const kept of this.kept) kept.clear()
      return
    }
    const body = isObject(response.body) ? response.body : undefined
    if (/^\/_mock\/accounts\/[^/]+\/keys$/.test(path) && response.status === 201 && body) {
      if (typeof body.value !== 'string') return
      this.keys.set(body.value, {
        id: String(body.id),
        account: String(body.account_id),
        type: String(body.type),
        permissions: Array.isArray(body.permissions) ? (body.permissions as string[]) : ALL_SCOPES,
      })
      return
    }
    const started = /^\/_mock\/accounts\/([^/]+)\/calls$/.exec(path)
    if (started && request.method === 'POST' && response.status === 201 && body) {
      const input = jsonOf(request)
      const sent = isObject(input) ? input : {}
      const created = Date.parse(String(body.created_at))
      const ring = typeof sent.ring_seconds === 'number' ? sent.ring_seconds : 4
      const talk = typeof sent.duration_seconds === 'number' ? sent.duration_seconds : 60
      const outcome = typeof sent.outcome === 'string' ? sent.outcome : 'completed'
      if (typeof body.id === 'string' && Number.isFinite(created))
        this.calls.set(body.id, {
          account: started[1] as string,
          endsAt: created + SECOND_MS + ring * SECOND_MS + (outcome === 'completed' ? talk * SECOND_MS : 0),
        })
    }
  }

  /** The account of a key made through the control plane; any other token counts as an account of its own. */
  account(token: string | undefined): string {
    const info = token ? this.keys.get(token) : undefined
    return info?.account ?? `token:${token ?? ''}`
  }

  /** The key's type (`secret` for a token not made through the control plane). */
  type(token: string | undefined): string {
    return (token ? this.keys.get(token)?.type : undefined) ?? 'secret'
  }

  /** Whether the key holds `scope` (a token not made through the control plane is taken to hold all). */
  holds(token: string | undefined, scope: string): boolean {
    const info = token ? this.keys.get(token) : undefined
    if (!info) return true
    return (
      info.permissions.includes(scope) ||
      (scope === 'agents:read' && info.permissions.includes('agents:write')) ||
      (scope === 'integrations:read' && info.permissions.includes('integrations:write'))
    )
  }

  /** The mock clock at `response` (its rate-limit headers), or as last seen. */
  now(response?: EngineResponse): number | undefined {
    const seconds = response ? nowSecondsOf(response) : undefined
    return seconds !== undefined ? seconds * 1000 : this.clock.now()
  }
}

/** The objects of a v1 answer: the list's items, or the object itself. */
function objectsOf(response: EngineResponse): Json[] {
  if (!isObject(response.body)) return []
  if (response.body.object === 'list' && Array.isArray(response.body.data))
    return response.body.data.filter(isObject)
  return [response.body]
}

// ------------------------------------------------------------------------------------------- idempotency

const IDEMPOTENCY_FORM = /^[\x21-\x7e]{1,255}$/

/** The `Idempotency-Key` of a v1 POST, when the engine would take it. */
function idempotencyKeyOf(request: EngineRequest): string | undefined {
  if (request.method !== 'POST' || !isV1(request)) return undefined
  const key = request.headers['idempotency-key']
  return key !== undefined && IDEMPOTENCY_FORM.test(key) ? key : undefined
}

/** The request with another `Idempotency-Key` (`key` with `suffix`), unless that one would be too long. */
function rekeyed(request: EngineRequest, key: string, suffix: string): EngineRequest {
  if (suffix === '' || key.length + suffix.length > 255) return request
  return { ...request, headers: { ...request.headers, 'idempotency-key': `${key}${suffix}` } }
}

/** A short digest of a text (FNV-1a, base 36): enough to tell keys apart in a suffix. */
function digest(text: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(36)
}

// ---------------------------------------------------------------------------------------- analytics parts

const bucketsOf = (value: unknown): Bucket[] | undefined =>
  Array.isArray(value) && value.every((b) => isObject(b) && isObject(b.metrics))
    ? (value as Bucket[])
    : undefined

/** Buckets folded into runs: a run starts at every index `starts` holds (and at 0). */
function fold(series: Bucket[], starts: Set<number>): Bucket[] {
  const runs: Bucket[] = []
  series.forEach((bucket, i) => {
    const last = runs[runs.length - 1]
    if (!last || starts.has(i)) runs.push({ start: bucket.start, end: bucket.end, metrics: bucket.metrics })
    else {
      last.end = bucket.end
      last.metrics = addMetrics(last.metrics, bucket.metrics)
    }
  })
  return runs
}

/** Applies `change` to the top-level series and to every group's series of an analytics answer. */
function eachSeries(body: Json, change: (series: Bucket[]) => Bucket[]): void {
  const top = bucketsOf(body.series)
  if (top) body.series = change(top)
  if (Array.isArray(body.groups))
    for (const group of body.groups) {
      if (!isObject(group)) continue
      const series = bucketsOf(group.series)
      if (series) group.series = change(series)
    }
}

const formatters = new Map<string, Intl.DateTimeFormat>()

/** The local wall-clock parts of `ms` in `timezone` (undefined for an unknown zone). */
function localParts(timezone: string, ms: number): Record<string, number> | undefined {
  try {
    let format = formatters.get(timezone)
    if (!format) {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: timezone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
      })
      formatters.set(timezone, format)
    }
    const parts: Record<string, number> = {}
    for (const part of format.formatToParts(ms))
      if (part.type !== 'literal') parts[part.type] = Number(part.value)
    return parts
  } catch {
    return undefined
  }
}

const ANALYTICS = '/v1/analytics/calls'

// ------------------------------------------------------------------------------------------ call-log hiding

/**
 * Call logs a faulty implementation answered as deleted without forgetting them (the engine keeps them): the
 * call-log reads of their account leave them out until `until`, everything else (analytics) still sees them. A
 * DELETE it decides to keep becomes a GET of the same call log, so that nothing is deleted.
 */
class CallLogHider {
  private readonly hidden: Map<string, { account: string; until: number }>
  private readonly pending = new Map<
    EngineRequest,
    { kind: 'delete' | 'gone'; id: string; account: string; until: number }
  >()

  constructor(
    private readonly tracker: Tracker,
    /** Until when a DELETE of `id` answered now is only pretended (undefined: carried out). */
    private readonly keepUntil: (id: string, account: string, now: number | undefined) => number | undefined,
  ) {
    this.hidden = tracker.map()
  }

  private isHidden(id: string, account: string, now: number | undefined): boolean {
    const entry = this.hidden.get(id)
    return entry !== undefined && entry.account === account && (now === undefined || now < entry.until)
  }

  private hiddenOf(account: string, now: number | undefined): string[] {
    return [...this.hidden.keys()].filter((id) => this.isHidden(id, account, now))
  }

  request(request: EngineRequest): EngineRequest {
    const path = pathOf(request)
    const token = tokenOf(request)
    const account = this.tracker.account(token)
    const now = this.tracker.now()
    const item = itemOf(path)
    if (request.method === 'DELETE' && item?.collection === 'call-logs') {
      if (!this.tracker.holds(token, 'call_logs:read') || !this.tracker.holds(token, 'resources:delete'))
        return request
      if (request.body !== null && request.body !== '') return request
      const gone = this.isHidden(item.id, account, now)
      const until = gone ? 0 : this.keepUntil(item.id, account, now)
      if (until === undefined) return request
      const read = neutralRead(request, path)
      this.pending.set(read, { kind: gone ? 'gone' : 'delete', id: item.id, account, until })
      return read
    }
    if (request.method === 'GET' && path === '/v1/call-logs') {
      const hidden = this.hiddenOf(account, now).length
      const query = queryOf(request)
      const limit = limitOf(query)
      if (hidden === 0 || limit === undefined || query.getAll('limit').length > 1) return request
      return withQuery(request, (q) => q.set('limit', String(Math.min(100, limit + hidden))))
    }
    return request
  }

  response(response: EngineResponse, sent: EngineRequest, original: EngineRequest): EngineResponse {
    const pending = this.pending.get(sent)
    this.pending.delete(sent)
    const now = this.tracker.now(response)
    if (pending) {
      if (response.status !== 200) return response
      if (pending.kind === 'gone') return notFound(response, 'call-logs', pending.id)
      this.hidden.set(pending.id, { account: pending.account, until: pending.until })
      return answerWith(response, 200, { id: pending.id, object: 'call_log', deleted: true })
    }
    const account = this.tracker.account(tokenOf(sent))
    const path = pathOf(sent)
    const item = itemOf(path)
    if (
      item?.collection === 'call-logs' &&
      (sent.method === 'GET' || sent.method === 'HEAD') &&
      response.status === 200 &&
      this.isHidden(item.id, account, now)
    )
      return notFound(response, 'call-logs', item.id, sent.method === 'HEAD')
    const data = listOf(response)
    if (sent.method === 'GET' && path === '/v1/call-logs' && response.status === 200 && data) {
      const hidden = new Set(this.hiddenOf(account, now))
      if (hidden.size === 0 || !isObject(response.body)) return response
      const query = queryOf(original)
      const limit = limitOf(query) ?? 20
      const kept = data.filter((log) => !hidden.has(String(log.id)))
      const page = query.has('ending_before')
        ? kept.slice(Math.max(0, kept.length - limit))
        : kept.slice(0, limit)
      response.body.data = page
      response.body.has_more = kept.length > limit || response.body.has_more === true
    }
    return response
  }
}

// ------------------------------------------------------------------------------------------------- faults

export const faults: HeldOutFault[] = [
  // ----------------------------------------------------------------------------------------------- pages
  {
    name: 'call-log-cursor-resolved-to-offset',
    kind: 'pages',
    what:
      'GET /call-logs turns `starting_after` into the position the cursor call had on the page that returned it, and reads on from that offset: when calls arrive (or are deleted) while a client walks the pages, the next page repeats (or skips) call logs. ' +
      'Contract, Lists and pagination: "`starting_after=<id>` returns the objects after that one in this order (older)"; parameter StartingAfter: "returns the objects that follow it"; docs/decisions/008: "Cursor pagination on object IDs stays correct while objects are created and deleted (an offset would skip or repeat)".',
    make: () => {
      const t = new Tracker()
      const positions = t.map<string, number>()
      const pending = new Map<EngineRequest, { token: string; from: number; limit: number }>()
      return {
        request(request) {
          if (request.method !== 'GET' || pathOf(request) !== '/v1/call-logs') return request
          const query = queryOf(request)
          const cursor = single(query, 'starting_after')
          const limit = limitOf(query)
          if (!cursor || limit === undefined || !onlyParams(query, ['limit', 'starting_after']))
            return request
          const token = tokenOf(request) ?? ''
          const at = positions.get(`${token} ${cursor}`)
          if (at === undefined || at + 1 + limit > 100) return request
          const rewritten = withQuery(request, (q) => {
            q.delete('starting_after')
            q.set('limit', '100')
          })
          pending.set(rewritten, { token, from: at + 1, limit })
          return rewritten
        },
        response(response, request) {
          t.observe(request, response)
          const asked = pending.get(request)
          pending.delete(request)
          const data = listOf(response)
          if (response.status !== 200 || !data || !isObject(response.body)) return response
          const token = tokenOf(request) ?? ''
          if (asked) {
            const page = data.slice(asked.from, asked.from + asked.limit)
            response.body.has_more = data.length > asked.from + asked.limit || response.body.has_more === true
            response.body.data = page
            page.forEach((log, i) => {
              positions.set(`${token} ${String(log.id)}`, asked.from + i)
            })
            return response
          }
          const query = queryOf(request)
          if (request.method === 'GET' && pathOf(request) === '/v1/call-logs' && onlyParams(query, ['limit']))
            data.forEach((log, i) => {
              positions.set(`${token} ${String(log.id)}`, i)
            })
          return response
        },
      }
    },
  },
  {
    name: 'team-has-more-from-cached-count',
    kind: 'pages',
    what:
      "GET /team-members works out has_more from the team's size, which it counts once and then keeps for 60 seconds: a first page read within a minute of an earlier one says has_more: false although members invited since then lie beyond it. " +
      'Contract, Lists and pagination: "`has_more` tells whether more objects exist beyond the returned page in the direction of travel"; inviteTeamMember: "Answers **201** with the new member" (from then on a member of the list).',
    make: () => {
      const t = new Tracker()
      const sizes = t.map<string, { size: number; at: number }>()
      return {
        response(response, request) {
          t.observe(request, response)
          if (request.method !== 'GET' || pathOf(request) !== '/v1/team-members' || response.status !== 200)
            return response
          const query = queryOf(request)
          const data = listOf(response)
          const now = t.now(response)
          if (!data || now === undefined || !onlyParams(query, ['limit']) || !isObject(response.body))
            return response
          const account = t.account(tokenOf(request))
          const counted = sizes.get(account)
          if (counted && now - counted.at < MINUTE_MS) {
            response.body.has_more = counted.size > data.length
            return response
          }
          if (response.body.has_more === false) sizes.set(account, { size: data.length, at: now })
          else sizes.delete(account)
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ idempotency
  {
    name: 'idempotency-records-dropped-at-utc-midnight',
    kind: 'idempotency',
    what:
      "Idempotency records are kept in a table per UTC day, and yesterday's table is dropped at midnight: a retry a few minutes after a POST made just before 00:00 UTC is carried out again (a second agent or invitation) instead of replayed, and the same key with another body is carried out instead of 409. " +
      'Contract, Idempotency: "Keys are scoped to the account and kept for 24 hours (by the platform clock)", a retry "returns the stored status, headers and body, plus `Idempotent-Replayed: true`, without creating anything again"; docs/decisions/008: "kept 24 hours".',
    make: () => {
      const t = new Tracker()
      const records = t.map<string, { day: number | undefined; generation: number }>()
      const pending = new Map<EngineRequest, string>()
      return {
        request(request) {
          const key = idempotencyKeyOf(request)
          if (key === undefined) return request
          const name = `${t.account(tokenOf(request))}\n${key}`
          const now = t.now()
          const today = now === undefined ? undefined : Math.floor(now / DAY_MS)
          let record = records.get(name)
          if (!record) {
            record = { day: today, generation: 0 }
            records.set(name, record)
          } else if (record.day === undefined) record.day = today
          else if (today !== undefined && today > record.day) {
            record.generation++
            record.day = today
          }
          const sent = rekeyed(request, key, record.generation > 0 ? `~d${record.generation}` : '')
          pending.set(sent, name)
          return sent
        },
        response(response, request) {
          t.observe(request, response)
          const name = pending.get(request)
          pending.delete(request)
          const record = name ? records.get(name) : undefined
          const now = t.now(response)
          if (record && record.day === undefined && now !== undefined) record.day = Math.floor(now / DAY_MS)
          return response
        },
      }
    },
  },
  {
    name: 'idempotency-keyed-per-api-key',
    kind: 'idempotency',
    what:
      'Idempotency records are keyed by the API key that sent the request rather than by the account: after a rotation (a new key of the same account), a retry with the same Idempotency-Key and body is carried out again instead of replayed, and another body with that key is carried out instead of 409. ' +
      'Contract, Idempotency: "Keys are scoped to the account and kept for 24 hours"; spec, Rotation and handling: "generate a new key; update the applications; test; revoke the old key" (a retry may come with the new key); docs/decisions/014: "one `Idempotency-Key` creates one object".',
    make: () => ({
      request(request) {
        const key = idempotencyKeyOf(request)
        const token = tokenOf(request)
        if (key === undefined || token === undefined) return request
        return rekeyed(request, key, `~k${digest(token)}`)
      },
    }),
  },
  {
    name: 'idempotency-store-keeps-last-five-keys',
    kind: 'idempotency',
    what:
      'Stored answers are kept in a small least-recently-used cache of five keys per account: after five more POSTs with other keys, a retry of the first one is carried out again (a duplicate object) instead of replayed. ' +
      'Contract, Idempotency: "Keys are scoped to the account and kept for 24 hours (by the platform clock). A successful (2xx) response is stored with its key; a retry with the same key ... returns the stored status, headers and body ... without creating anything again".',
    make: () => {
      const t = new Tracker()
      const recent = t.map<string, string[]>()
      const generations = t.map<string, number>()
      const pending = new Map<EngineRequest, { account: string; key: string; generation: number }>()
      return {
        request(request) {
          const key = idempotencyKeyOf(request)
          if (key === undefined) return request
          const account = t.account(tokenOf(request))
          const name = `${account}\n${key}`
          const kept = recent.get(account) ?? []
          const known = generations.get(name)
          const evicted = known !== undefined && !kept.includes(key)
          const generation = known === undefined ? 0 : evicted ? known + 1 : known
          const sent = rekeyed(request, key, generation > 0 ? `~r${generation}` : '')
          pending.set(sent, { account, key, generation })
          return sent
        },
        response(response, request) {
          t.observe(request, response)
          const used = pending.get(request)
          pending.delete(request)
          if (!used || !ok(response)) return response
          generations.set(`${used.account}\n${used.key}`, used.generation)
          const kept = (recent.get(used.account) ?? []).filter((key) => key !== used.key)
          kept.push(used.key)
          while (kept.length > 5) kept.shift()
          recent.set(used.account, kept)
          return response
        },
      }
    },
  },
  {
    name: 'idempotency-conflict-releases-key',
    kind: 'idempotency',
    what:
      'When a key is reused with another body, the 409 handler deletes the stored record ("release the key") before answering: a later retry with the original body is carried out again, creating a duplicate, instead of replayed. ' +
      'Contract, Idempotency: "The same key with another body or another path is 409 `idempotency_key_reused`", and a retry with the same key, path and body "returns the stored status, headers and body ... without creating anything again" for 24 hours.',
    make: () => {
      const t = new Tracker()
      const generations = t.map<string, number>()
      const pending = new Map<EngineRequest, string>()
      return {
        request(request) {
          const key = idempotencyKeyOf(request)
          if (key === undefined) return request
          const name = `${t.account(tokenOf(request))}\n${key}`
          const generation = generations.get(name) ?? 0
          const sent = rekeyed(request, key, generation > 0 ? `~c${generation}` : '')
          pending.set(sent, name)
          return sent
        },
        response(response, request) {
          t.observe(request, response)
          const name = pending.get(request)
          pending.delete(request)
          if (name && response.status === 409 && errorOf(response)?.code === 'idempotency_key_reused')
            generations.set(name, (generations.get(name) ?? 0) + 1)
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------------- keys
  {
    name: 'replay-served-to-revoked-key',
    kind: 'keys',
    what:
      'The idempotency layer sits in front of authentication: a retry of a POST with the same Idempotency-Key and body, sent with a key revoked since the first request, gets the stored 201 replayed instead of 401. ' +
      'docs/decisions/003: "A revocation is effective on the very next request"; spec, States and transitions: "active | key revoked | ... | revoked | requests that use the key receive 401"; contract, Idempotency: a replay "is still authenticated and permission checked".',
    make: () => {
      const t = new Tracker()
      const stored = t.map<string, EngineResponse>()
      const nameOf = (request: EngineRequest, key: string) =>
        `${tokenOf(request) ?? ''}\n${key}\n${pathOf(request)}\n${canonical(jsonOf(request))}`
      return {
        response(response, request) {
          t.observe(request, response)
          const key = idempotencyKeyOf(request)
          if (key === undefined) return response
          const name = nameOf(request, key)
          if (ok(response)) {
            if (!stored.has(name)) stored.set(name, structuredClone(response))
            return response
          }
          const first = stored.get(name)
          if (response.status === 401 && first) return replayOf(first, response)
          return response
        },
      }
    },
  },
  {
    name: 'agent-list-cache-shared-by-key-types',
    kind: 'keys',
    what:
      "GET /agents answers are cached per account and query for 30 seconds (cleared by any agent write), but not per key type: a publishable key reading the list just after a secret key gets the secret key's view, with system_prompt, webhook_url and metadata (and a secret key just after a publishable one gets them left out). " +
      'Contract, listAgents: "Responses to a **publishable** key omit the sensitive fields `system_prompt`, `webhook_url` and `metadata` from every agent; responses to a secret key always include them"; docs/decisions/004: "Agent fields that are sensitive (`system_prompt`, `webhook_url`, `metadata`) are left out of what it reads".',
    make: () => {
      const t = new Tracker()
      const cached = t.map<string, { body: unknown; type: string; at: number }>()
      return {
        response(response, request) {
          t.observe(request, response)
          const path = pathOf(request)
          const token = tokenOf(request)
          const account = t.account(token)
          if (!path.startsWith('/v1/agents')) return response
          if (request.method !== 'GET' && request.method !== 'HEAD') {
            if (ok(response))
              for (const name of [...cached.keys()]) if (name.startsWith(`${account}\n`)) cached.delete(name)
            return response
          }
          const now = t.now(response)
          if (
            request.method !== 'GET' ||
            path !== '/v1/agents' ||
            response.status !== 200 ||
            now === undefined
          )
            return response
          const name = `${account}\n${urlOf(request).search}`
          const type = t.type(token)
          const entry = cached.get(name)
          if (entry && now - entry.at < 30 * SECOND_MS) {
            if (entry.type !== type) response.body = structuredClone(entry.body)
            return response
          }
          cached.set(name, { body: structuredClone(response.body), type, at: now })
          return response
        },
      }
    },
  },

  // --------------------------------------------------------------------------------------------- accounts
  {
    name: 'agent-cache-keyed-by-id-only',
    kind: 'accounts',
    what:
      "Agents read by ID are cached for 60 seconds under the agent's ID alone, and the account is checked only when the cache misses: within a minute of one account reading (or updating) its agent, a key of another account that asks for that ID gets the agent instead of 404. " +
      'Contract, getAgent: "An unknown ID, an ID of another account, or an ID of a deleted agent gives 404 `resource_not_found`"; Order of checks: "6. **404** resource: the path ID does not exist in the key\'s account".',
    make: () => {
      const t = new Tracker()
      const cached = t.map<string, { body: unknown; token: string; at: number }>()
      return {
        response(response, request) {
          t.observe(request, response)
          const item = itemOf(pathOf(request))
          const token = tokenOf(request) ?? ''
          const now = t.now(response)
          if (item?.collection !== 'agents' || now === undefined) return response
          if (request.method === 'DELETE' && ok(response)) cached.delete(item.id)
          if ((request.method === 'GET' || request.method === 'PATCH') && response.status === 200)
            cached.set(item.id, { body: structuredClone(response.body), token, at: now })
          const entry = cached.get(item.id)
          if (
            request.method === 'GET' &&
            response.status === 404 &&
            errorOf(response)?.code === 'resource_not_found' &&
            entry &&
            entry.token !== token &&
            t.account(entry.token) !== t.account(token) &&
            now - entry.at < MINUTE_MS
          )
            return answerWith(response, 200, structuredClone(entry.body))
          return response
        },
      }
    },
  },
  {
    name: 'user-cached-after-plan-change',
    kind: 'accounts',
    what:
      'GET /user answers are cached per key for ten minutes: after the account changes plan (an upgrade in the dashboard), GET /user keeps reporting the old plan until the entry expires. ' +
      'Spec, Endpoints: GET /user returns "the User object: id, email, name, plan, created_at", plan being "plan of the account"; contract, getUser: "Returns the user (account) that owns the API key"; mock-control updateAccount: "Switches the plan".',
    make: () => {
      const t = new Tracker()
      const cached = t.map<string, { body: unknown; at: number }>()
      return {
        response(response, request) {
          t.observe(request, response)
          if (request.method !== 'GET' || pathOf(request) !== '/v1/user' || response.status !== 200)
            return response
          const token = tokenOf(request) ?? ''
          const now = t.now(response)
          if (now === undefined) return response
          const entry = cached.get(token)
          if (entry && now - entry.at < 10 * MINUTE_MS) response.body = structuredClone(entry.body)
          else cached.set(token, { body: structuredClone(response.body), at: now })
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ rate limits
  {
    name: 'plan-quotas-cached-for-an-hour',
    kind: 'time',
    what:
      "The rate limiter reads the account's quotas from a cache with a one-hour lifetime: after an upgrade (free to pro), the account keeps being limited, and told, by the free plan's quotas (RateLimit-Policy q=10, 429 at the eleventh request of a minute) until the hour is over. " +
      'Spec, Limits: "Pro | 1,000 requests per hour | 50 requests per minute"; docs/decisions/006: "Free: 100 and 10; pro: 1,000 and 50"; mock-control updateAccount: "the new quotas apply from the next request (so lifting the limits ends a 429 at once, lowering them may cause one)".',
    make: () => {
      const t = new Tracker()
      const accounts = t.map<
        string,
        { quotas: Map<string, number>; at: number; used: Map<string, number>; changed: boolean }
      >()
      const refused = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isV1(request) || request.method === 'OPTIONS') return request
          const state = accounts.get(t.account(tokenOf(request)))
          const now = t.now()
          if (!state?.changed || now === undefined || now - state.at >= HOUR_MS) return request
          const full = [...state.quotas].some(([policy, q]) => (state.used.get(policy) ?? 0) >= q)
          if (!full) return request
          const read = neutralRead(request)
          refused.add(read)
          return read
        },
        response(response, request) {
          t.observe(request, response)
          const wasRefused = refused.delete(request)
          if (!isV1(request) || response.status === 401) return response
          const windows = windowsByName(response.headers)
          const nowSeconds = nowSecondsOf(response)
          if (!windows || nowSeconds === undefined)
            return wasRefused ? tooManyRequests(response, 'burst', 1) : response
          const now = nowSeconds * 1000
          const account = t.account(tokenOf(request))
          let state = accounts.get(account)
          if (!state || now - state.at >= HOUR_MS) {
            state = {
              quotas: new Map(windows.map((w) => [w.policy, w.q])),
              at: now,
              used: new Map(),
              changed: false,
            }
            accounts.set(account, state)
          }
          state.changed = false
          let exceeded: Window | undefined
          for (const window of windows) {
            const used = window.q - window.r
            const q = state.quotas.get(window.policy) ?? window.q
            state.used.set(window.policy, used)
            if (q === window.q) continue
            state.changed = true
            window.q = q
            window.r = Math.max(0, q - used)
            if (used > q && !exceeded) exceeded = window
          }
          if (!state.changed) return wasRefused ? tooManyRequests(response, 'burst', 1) : response
          writeWindows(response.headers, windows, nowSeconds)
          if (wasRefused || exceeded) {
            const policy = exceeded?.policy ?? 'burst'
            return tooManyRequests(response, policy, Math.max(1, exceeded?.t ?? 1))
          }
          return response
        },
      }
    },
  },
  {
    name: 'hourly-counter-expiry-renewed-by-each-request',
    kind: 'time',
    what:
      'The hourly window is a counter whose one-hour expiry is set again on every admitted request (INCR then EXPIRE): as long as the account sends at least one request an hour, nothing ever leaves the window, so RateLimit r keeps falling and the account gets 429 although fewer than q requests were made in the last hour. ' +
      'docs/decisions/006: "Two sliding windows, and a request is admitted only when both have room: `hourly` (3,600 s) and `burst` (60 s)"; contract, Rate limits: "Requests are limited per **account** ... by two sliding windows"; RateLimit: "`r` is what remains after this request".',
    make: () => {
      const t = new Tracker()
      const counters = t.map<string, { count: number; expires: number; q: number }>()
      const refused = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isV1(request) || request.method === 'OPTIONS') return request
          const counter = counters.get(t.account(tokenOf(request)))
          const now = t.now()
          if (!counter || now === undefined || now >= counter.expires || counter.count < counter.q)
            return request
          const read = neutralRead(request)
          refused.add(read)
          return read
        },
        response(response, request) {
          t.observe(request, response)
          const wasRefused = refused.delete(request)
          if (!isV1(request) || response.status === 401) return response
          const windows = windowsByName(response.headers)
          const nowSeconds = nowSecondsOf(response)
          const hourly = windows?.find((w) => w.policy === 'hourly')
          if (!windows || !hourly || nowSeconds === undefined)
            return wasRefused ? tooManyRequests(response, 'hourly', 1) : response
          const now = nowSeconds * 1000
          const account = t.account(tokenOf(request))
          const counter = counters.get(account)
          if (wasRefused)
            return tooManyRequests(
              response,
              'hourly',
              Math.max(1, Math.ceil(((counter?.expires ?? now) - now) / 1000)),
            )
          if (response.status === 429) return response
          if (!counter) {
            counters.set(account, { count: hourly.q - hourly.r, expires: now + HOUR_MS, q: hourly.q })
            return response
          }
          if (now >= counter.expires) counter.count = 0
          counter.count++
          counter.expires = now + HOUR_MS
          counter.q = hourly.q
          const remaining = Math.max(0, hourly.q - counter.count)
          if (remaining === hourly.r) return response
          hourly.r = remaining
          writeWindows(response.headers, windows, nowSeconds)
          if (counter.count > hourly.q) return tooManyRequests(response, 'hourly', HOUR_MS / 1000)
          return response
        },
      }
    },
  },
  {
    name: 'burst-429-starts-a-penalty-minute',
    kind: 'time',
    what:
      'A burst 429 puts the account in a "penalty box" for a whole window from the refused request: Retry-After says 60 whatever the window holds, and a retry after the time the sliding window would give (when the oldest counted request has left it) is refused again. ' +
      'docs/decisions/006: "A 429 carries `Retry-After` in seconds: the largest `t` among the exhausted windows, so that a retry after it is admitted"; `t` is "the whole seconds until the oldest request counted in the window leaves it"; contract, Rate limits: "two sliding windows; a request is admitted only if both have room".',
    make: () => {
      const t = new Tracker()
      const boxes = t.map<string, number>()
      const refused = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isV1(request) || request.method === 'OPTIONS') return request
          const until = boxes.get(t.account(tokenOf(request)))
          const now = t.now()
          if (until === undefined || now === undefined || now >= until) return request
          const read = neutralRead(request)
          refused.add(read)
          return read
        },
        response(response, request) {
          t.observe(request, response)
          const wasRefused = refused.delete(request)
          if (!isV1(request) || response.status === 401) return response
          const now = t.now(response)
          const account = t.account(tokenOf(request))
          const until = boxes.get(account)
          if (wasRefused)
            return tooManyRequests(
              response,
              'burst',
              Math.max(1, Math.ceil(((until ?? 0) - (now ?? 0)) / 1000)),
            )
          if (now === undefined) return response
          if (response.status !== 429 || errorOf(response)?.policy !== 'burst') return response
          const burst = windowsByName(response.headers)?.find((w) => w.policy === 'burst')
          const box = until !== undefined && now < until ? until : now + (burst?.w ?? 60) * 1000
          boxes.set(account, box)
          return tooManyRequests(response, 'burst', Math.max(1, Math.ceil((box - now) / 1000)))
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------- HEAD and OPTIONS
  {
    name: 'head-of-deleted-call-log-from-cache',
    kind: 'headers',
    what:
      'HEAD /call-logs/{id} is answered from a cache of the last successful GET or HEAD of that path (five minutes), which DELETE does not clear: after a call log is deleted, HEAD still answers 200 while GET answers 404. ' +
      'Contract, Conventions: "**HEAD** is answered wherever GET is documented, like that GET without a body (RFC 9110 section 9.3.2): the same status and headers"; deleteCallLog: "Permanently deletes a call log"; NotFound: "the path ID does not exist in the key\'s account".',
    make: () => {
      const t = new Tracker()
      const seen = t.map<string, { headers: Record<string, string>; at: number }>()
      return {
        response(response, request) {
          t.observe(request, response)
          const item = itemOf(pathOf(request))
          const now = t.now(response)
          if (item?.collection !== 'call-logs' || now === undefined) return response
          const name = `${tokenOf(request) ?? ''}\n${item.id}`
          if ((request.method === 'GET' || request.method === 'HEAD') && response.status === 200) {
            seen.set(name, { headers: { ...response.headers }, at: now })
            return response
          }
          const entry = seen.get(name)
          if (request.method === 'HEAD' && response.status === 404 && entry && now - entry.at < 5 * MINUTE_MS)
            return { status: 200, headers: { ...entry.headers, ...ownHeaders(response) }, body: undefined }
          return response
        },
      }
    },
  },
  {
    name: 'preflight-of-deleted-object-404',
    kind: 'headers',
    what:
      'The path-parameter middleware that loads an agent, call log or team member runs for every method, preflights included: once the object is deleted, an OPTIONS preflight of its path answers 404 resource_not_found instead of 204, so a browser can no longer even learn that its DELETE or GET gets a 404. ' +
      'Contract, Conventions: "**CORS.** The standalone mock answers CORS preflights (`OPTIONS`, 204) for every documented path ... Preflights are not authenticated and not counted"; docs/decisions/001: "The standalone mock answers CORS preflights".',
    make: () => {
      const t = new Tracker()
      const deleted = t.set<string>()
      return {
        response(response, request) {
          t.observe(request, response)
          const item = itemOf(pathOf(request))
          if (!item || item.collection === 'integrations') return response
          if (request.method === 'DELETE' && ok(response)) deleted.add(item.id)
          if (request.method !== 'OPTIONS' || response.status !== 204 || !deleted.has(item.id))
            return response
          const answer = notFound(response, item.collection, item.id)
          delete answer.headers['access-control-allow-headers']
          delete answer.headers['access-control-max-age']
          return answer
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------------- call logs
  {
    name: 'deleted-live-call-returns-when-it-ends',
    kind: 'relations',
    what:
      "Deleting a call that is still under way removes its row, but the call's worker writes each later stage with an upsert: the call log is gone (404, left out of lists) only until the call reaches its final status, and then it is back, completed, in GET /call-logs and by ID. " +
      'Contract, deleteCallLog: "A call that has not ended yet (`queued`, `ringing`, `in_progress`) can be deleted too; it is simply forgotten"; mock-control startCall: "Deleting the call log stops the call"; NotFound: "(or has the wrong shape, or was deleted)".',
    make: () => {
      const t = new Tracker()
      const hider = new CallLogHider(t, (id, account, now) => {
        const call = t.calls.get(id)
        return call && call.account === account && now !== undefined && now < call.endsAt
          ? call.endsAt
          : undefined
      })
      const originals = new Map<EngineRequest, EngineRequest>()
      return {
        request(request) {
          const sent = hider.request(request)
          originals.set(sent, request)
          return sent
        },
        response(response, request) {
          t.observe(request, response)
          const original = originals.get(request) ?? request
          originals.delete(request)
          return hider.response(response, request, original)
        },
      }
    },
  },
  {
    name: 'deleted-call-logs-still-in-analytics',
    kind: 'relations',
    what:
      'Call logs are soft-deleted (a deleted_at column): the call-log reads leave them out, but the analytics query forgets `deleted_at IS NULL`, so a deleted call keeps counting in GET /analytics/calls (call_count, durations, costs, sentiment). ' +
      'Contract, deleteCallLog: "A deleted call log no longer counts in analytics"; getCallAnalytics: "Which calls count: every call log whose `created_at` lies in the range (all statuses; deleted call logs are gone and do not count)".',
    make: () => {
      const t = new Tracker()
      const hider = new CallLogHider(t, () => Number.POSITIVE_INFINITY)
      const originals = new Map<EngineRequest, EngineRequest>()
      return {
        request(request) {
          const sent = hider.request(request)
          originals.set(sent, request)
          return sent
        },
        response(response, request) {
          t.observe(request, response)
          const original = originals.get(request) ?? request
          originals.delete(request)
          return hider.response(response, request, original)
        },
      }
    },
  },
  {
    name: 'call-log-cached-while-under-way',
    kind: 'time',
    what:
      'GET /call-logs/{id} answers are cached per key for five minutes on the assumption that a call log never changes, which is wrong for a call still under way: read once while it rings, the call keeps showing that stage (no transcript, no end, no analysis) for five minutes after it ended. ' +
      'Mock-control startCall: "The call then moves on the mock clock ... `GET /v1/call-logs` and `GET /v1/analytics/calls` show every stage"; contract, getCallLog: "Returns one call log, including its `transcript`"; CallLogSummary: "`ended_at` is set when the call reaches a final status".',
    make: () => {
      const t = new Tracker()
      const cached = t.map<string, { body: unknown; at: number }>()
      return {
        response(response, request) {
          t.observe(request, response)
          const item = itemOf(pathOf(request))
          const now = t.now(response)
          if (item?.collection !== 'call-logs' || now === undefined) return response
          const name = `${tokenOf(request) ?? ''}\n${item.id}`
          if (request.method === 'DELETE') cached.delete(name)
          if (request.method !== 'GET' || response.status !== 200) return response
          const entry = cached.get(name)
          if (entry && now - entry.at < 5 * MINUTE_MS) response.body = structuredClone(entry.body)
          else cached.set(name, { body: structuredClone(response.body), at: now })
          return response
        },
      }
    },
  },
  {
    name: 'status-filter-reads-status-at-creation',
    kind: 'relations',
    what:
      'The `status` filter of GET /call-logs uses an index column written when the call log is inserted and never updated: a simulated call still matches status=queued after it rang, connected and completed, and never matches its current status. ' +
      'Contract, listCallLogs parameter status: "Only call logs with this status"; listCallLogs: "Filters combine with AND"; mock-control startCall: "answers 201 with its call log, `queued`. The call then moves on the mock clock ... `GET /v1/call-logs` ... show[s] every stage".',
    make: () => {
      const t = new Tracker()
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
      const FILTERS = [
        'limit',
        'status',
        'agent_id',
        'direction',
        'started_after',
        'started_before',
        'min_duration_seconds',
        'max_duration_seconds',
      ]
      const pending = new Map<EngineRequest, { status: string; limit: number }>()
      return {
        request(request) {
          if (request.method !== 'GET' || pathOf(request) !== '/v1/call-logs') return request
          const query = queryOf(request)
          const status = single(query, 'status')
          const limit = limitOf(query)
          if (!status || !STATUSES.includes(status) || limit === undefined || !onlyParams(query, FILTERS))
            return request
          if (![...t.calls.keys()].length) return request
          const rewritten = withQuery(request, (q) => {
            q.delete('status')
            q.set('limit', '100')
          })
          pending.set(rewritten, { status, limit })
          return rewritten
        },
        response(response, request) {
          t.observe(request, response)
          const asked = pending.get(request)
          pending.delete(request)
          const data = listOf(response)
          if (!asked || response.status !== 200 || !data || !isObject(response.body)) return response
          const matching = data.filter(
            (log) => (t.calls.has(String(log.id)) ? 'queued' : log.status) === asked.status,
          )
          response.body.has_more = matching.length > asked.limit || response.body.has_more === true
          response.body.data = matching.slice(0, asked.limit)
          return response
        },
      }
    },
  },
  {
    name: 'listed-calls-miss-late-analysis',
    kind: 'relations',
    what:
      'The list of call logs is served from a summary row written when the call reaches its final status; the analysis that arrives 120 seconds later is written to the full call log only, so in GET /call-logs a simulated call keeps `analysis: null` while GET /call-logs/{id} shows it. ' +
      'Contract, listCallLogs: "List items are `CallLogSummary` objects: a call log without its `transcript`"; CallLogSummary: "every field of `CallLog` except `transcript`"; mock-control startCall: "its `analysis` follows 120 seconds later".',
    make: () => {
      const t = new Tracker()
      return {
        response(response, request) {
          t.observe(request, response)
          if (request.method !== 'GET' || pathOf(request) !== '/v1/call-logs' || response.status !== 200)
            return response
          for (const log of listOf(response) ?? []) if (t.calls.has(String(log.id))) log.analysis = null
          return response
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------------- analytics
  {
    name: 'closed-analytics-buckets-frozen',
    kind: 'time',
    what:
      'Analytics buckets that have ended are computed once and kept (history is taken as immutable): a call that began in a bucket and ended after the bucket closed keeps being counted as not completed there (no duration, cost or analysis), and a call log deleted later still counts in its closed bucket; the totals follow the series. ' +
      'Contract, getCallAnalytics: "Which calls count: every call log whose `created_at` lies in the range (all statuses; deleted call logs are gone and do not count)"; "Durations and costs are taken over **completed calls only**"; deleteCallLog: "A deleted call log no longer counts in analytics".',
    make: () => {
      const t = new Tracker()
      const frozen = t.map<string, Json>()
      return {
        response(response, request) {
          t.observe(request, response)
          if (request.method !== 'GET' || pathOf(request) !== ANALYTICS || response.status !== 200)
            return response
          const now = t.now(response)
          const body = response.body
          if (now === undefined || !isObject(body) || body.group_by !== null) return response
          const series = bucketsOf(body.series)
          if (!series) return response
          const scope = [t.account(tokenOf(request)), body.granularity, body.timezone, body.agent_id].join(
            '\n',
          )
          let changed = false
          for (const bucket of series) {
            if (Date.parse(bucket.end) > now) continue
            const name = `${scope}\n${bucket.start}\n${bucket.end}`
            const kept = frozen.get(name)
            if (!kept) frozen.set(name, structuredClone(bucket.metrics))
            else if (canonical(kept) !== canonical(bucket.metrics)) {
              bucket.metrics = structuredClone(kept)
              changed = true
            }
          }
          if (changed)
            body.totals = series.reduce((sum, bucket) => addMetrics(sum, bucket.metrics), emptyMetrics())
          return response
        },
      }
    },
  },
  {
    name: 'month-buckets-step-30-days',
    kind: 'time',
    what:
      'Month buckets are aligned to the 1st only once, at the first month boundary of the range, and then step 30 days: from 1 December the buckets start on 1 December, 31 December and 30 January instead of on the 1st of each month. ' +
      'Contract, getCallAnalytics: "Buckets are aligned to calendar boundaries of the granularity in `timezone` (... the 1st at 00:00 for `month`)"; parameter granularity: "Bucket size of `series`".',
    make: () => {
      const t = new Tracker()
      const pending = new Map<EngineRequest, string>()
      return {
        request(request) {
          if (request.method !== 'GET' || pathOf(request) !== ANALYTICS) return request
          const query = queryOf(request)
          if (single(query, 'granularity') !== 'month') return request
          const sentEnd = query.get('end')
          const end = sentEnd === null ? t.now() : instantOf(sentEnd)
          const sentStart = query.get('start')
          const start =
            sentStart === null ? (end === undefined ? undefined : end - 7 * DAY_MS) : instantOf(sentStart)
          if (start === undefined || end === undefined || end <= start || end - start > 740 * DAY_MS)
            return request
          const rewritten = withQuery(request, (q) => q.set('granularity', 'day'))
          pending.set(rewritten, query.get('timezone') ?? 'UTC')
          return rewritten
        },
        response(response, request) {
          t.observe(request, response)
          const timezone = pending.get(request)
          pending.delete(request)
          if (timezone === undefined || response.status !== 200 || !isObject(response.body)) return response
          response.body.granularity = 'month'
          eachSeries(response.body, (series) => {
            const first = series.findIndex((bucket) => {
              const parts = localParts(timezone, Date.parse(bucket.start))
              return parts?.day === 1 && parts.hour === 0 && parts.minute === 0
            })
            const starts = new Set<number>()
            if (first >= 0) for (let i = first; i < series.length; i += 30) starts.add(i)
            return fold(series, starts)
          })
          return response
        },
      }
    },
  },
  {
    name: 'hour-buckets-keyed-by-local-hour',
    kind: 'time',
    what:
      'Hour buckets are grouped by their local wall-clock label ("2026-10-25 02h") in the requested timezone: when clocks go back, the two different hours that share a label are folded into one two-hour bucket, and the series has one bucket fewer. ' +
      'Contract, getCallAnalytics: "Buckets are aligned to calendar boundaries of the granularity in `timezone` (hour; ...)", "the buckets exactly tile the range"; parameter granularity: "Bucket size of `series`" (an hour is 3600 seconds).',
    make: () => {
      const t = new Tracker()
      return {
        response(response, request) {
          t.observe(request, response)
          if (request.method !== 'GET' || pathOf(request) !== ANALYTICS || response.status !== 200)
            return response
          const body = response.body
          if (!isObject(body) || body.granularity !== 'hour' || typeof body.timezone !== 'string')
            return response
          const timezone = body.timezone
          const label = (bucket: Bucket) => {
            const p = localParts(timezone, Date.parse(bucket.start))
            return p ? `${p.year}-${p.month}-${p.day} ${p.hour}` : bucket.start
          }
          eachSeries(body, (series) => {
            const starts = new Set<number>()
            series.forEach((bucket, i) => {
              if (i === 0 || label(bucket) !== label(series[i - 1] as Bucket)) starts.add(i)
            })
            return fold(series, starts)
          })
          return response
        },
      }
    },
  },
  {
    name: 'analytics-default-end-fixed-at-first-use',
    kind: 'time',
    what:
      'The default `end` of GET /analytics/calls is computed once, when the route is first used, and reused (a default argument evaluated at set-up): later requests without `end` aggregate up to that first instant, so calls made since then are never counted and `end` in the answer stays in the past. ' +
      'Contract, getCallAnalytics: "Both bounds are optional: `end` defaults to the current time and `start` to `end` minus 7 days"; parameter end: "Exclusive end of the range (RFC 3339). Default the current time".',
    make: () => {
      const t = new Tracker()
      const fixed = t.map<'end', string>()
      const rewritten = new Set<EngineRequest>()
      return {
        request(request) {
          if (request.method !== 'GET' || pathOf(request) !== ANALYTICS) return request
          const end = fixed.get('end')
          if (queryOf(request).has('end') || end === undefined) return request
          const sent = withQuery(request, (q) => q.set('end', end))
          rewritten.add(sent)
          return sent
        },
        response(response, request) {
          t.observe(request, response)
          const wasRewritten = rewritten.delete(request)
          if (
            !wasRewritten &&
            request.method === 'GET' &&
            pathOf(request) === ANALYTICS &&
            !queryOf(request).has('end') &&
            response.status === 200 &&
            isObject(response.body) &&
            typeof response.body.end === 'string' &&
            !fixed.has('end')
          )
            fixed.set('end', response.body.end)
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------------- agents
  {
    name: 'rejected-agent-patch-partly-applied',
    kind: 'relations',
    what:
      'PATCH /agents/{id} assigns the fields of the body to the cached agent one by one and validates afterwards: when the body is refused (422), the fields that were valid stay changed on the agent, and later reads show them. ' +
      'Contract, Order of checks: "A request is checked in this order; the first failing check decides the response" (a 422 carries nothing out); UnprocessableEntity: "the body is a JSON object but breaks the schema. Every problem is listed in `errors`"; updateAgent: "Only the fields sent change" (on a successful update).',
    make: () => {
      const t = new Tracker()
      const FIELDS = [
        'name',
        'description',
        'status',
        'language',
        'first_message',
        'first_speaker',
        'max_call_duration_seconds',
        'recording_enabled',
      ]
      const leftovers = t.map<string, Json>()
      return {
        response(response, request) {
          t.observe(request, response)
          const item = itemOf(pathOf(request))
          if (item?.collection === 'agents' && request.method === 'DELETE' && ok(response))
            leftovers.delete(item.id)
          if (item?.collection === 'agents' && request.method === 'PATCH') {
            const body = jsonOf(request)
            const error = errorOf(response)
            if (response.status === 422 && isObject(body) && error && Array.isArray(error.errors)) {
              const params = error.errors.map((e) => (isObject(e) ? String(e.param) : ''))
              const kept = leftovers.get(item.id) ?? {}
              for (const field of FIELDS)
                if (field in body && !params.some((p) => p === field || p.startsWith(`${field}.`)))
                  kept[field] = body[field]
              if (Object.keys(kept).length > 0) leftovers.set(item.id, kept)
            } else if (response.status === 200 && isObject(body)) {
              const kept = leftovers.get(item.id)
              if (kept) for (const field of Object.keys(body)) delete kept[field]
            }
          }
          if (!pathOf(request).startsWith('/v1/agents') || !ok(response)) return response
          for (const agent of objectsOf(response)) {
            const kept = typeof agent.id === 'string' ? leftovers.get(agent.id) : undefined
            if (kept && agent.object === 'agent') Object.assign(agent, structuredClone(kept))
          }
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------- integrations
  {
    name: 'enabling-integration-resets-config',
    kind: 'relations',
    what:
      'Switching an integration on runs its set-up again, which starts from an empty configuration: a PATCH {"enabled": true} on a disabled integration also empties the `config` stored while it was off. ' +
      'Contract, updateIntegration: "`enabled` switches the integration on or off (allowed in any `status`)", "`config` **replaces** the stored configuration as a whole" (only when sent); docs/decisions/009: "list, get, PATCH `{enabled, config, credentials}`".',
    make: () => {
      const t = new Tracker()
      const enabled = t.map<string, boolean>()
      return {
        request(request) {
          const item = itemOf(pathOf(request))
          if (request.method !== 'PATCH' || item?.collection !== 'integrations') return request
          const body = jsonOf(request)
          const name = `${t.account(tokenOf(request))}\n${item.id}`
          if (!isObject(body) || body.enabled !== true || 'config' in body || enabled.get(name) !== false)
            return request
          return withJson(request, { ...body, config: {} })
        },
        response(response, request) {
          t.observe(request, response)
          if (!pathOf(request).startsWith('/v1/integrations') || !ok(response)) return response
          const account = t.account(tokenOf(request))
          for (const integration of objectsOf(response))
            if (integration.object === 'integration' && typeof integration.enabled === 'boolean')
              enabled.set(`${account}\n${String(integration.id)}`, integration.enabled)
          return response
        },
      }
    },
  },
  {
    name: 'config-only-patch-keeps-updated-at',
    kind: 'time',
    what:
      "An integration's `updated_at` is written by the connection and on/off paths only: a PATCH that changes only `config` answers, and later reads show, the previous updated_at. " +
      'Contract, updateIntegration: "`updated_at` is set to now on every successful update"; "`config` **replaces** the stored configuration as a whole".',
    make: () => {
      const t = new Tracker()
      const shown = t.map<string, string>()
      const kept = t.map<string, string>()
      return {
        response(response, request) {
          t.observe(request, response)
          if (!pathOf(request).startsWith('/v1/integrations') || !ok(response)) return response
          const account = t.account(tokenOf(request))
          const item = itemOf(pathOf(request))
          if (request.method === 'PATCH' && item) {
            const name = `${account}\n${item.id}`
            const body = jsonOf(request)
            const onlyConfig = isObject(body) && Object.keys(body).length === 1 && 'config' in body
            const before = shown.get(name)
            if (onlyConfig && before !== undefined) kept.set(name, before)
            else kept.delete(name)
          }
          for (const integration of objectsOf(response)) {
            if (integration.object !== 'integration') continue
            const name = `${account}\n${String(integration.id)}`
            const old = kept.get(name)
            if (old !== undefined) integration.updated_at = old
            if (typeof integration.updated_at === 'string') shown.set(name, integration.updated_at)
          }
          return response
        },
      }
    },
  },
  {
    name: 'failing-integration-stays-error-on-new-credentials',
    kind: 'relations',
    what:
      'Only a `not_connected` integration moves to `connected` when credentials are stored; one whose stored credentials the provider rejected (`error`) keeps status `error` after new credentials are sent (connected_at and credential_hint do change), until it is disconnected. ' +
      'Contract, updateIntegration: "`credentials` (write-only) replaces the stored credentials: the integration becomes `connected`, `connected_at` is set to now and `credential_hint` is recomputed"; Integration: "`error` (credentials stored but the provider rejected them; only in seeded data, since the mock does not contact providers)".',
    make: () => {
      const t = new Tracker()
      const status = t.map<string, string>()
      const stuck = t.set<string>()
      return {
        response(response, request) {
          t.observe(request, response)
          if (!pathOf(request).startsWith('/v1/integrations') || !ok(response)) return response
          const account = t.account(tokenOf(request))
          const item = itemOf(pathOf(request))
          if (request.method === 'PATCH' && item) {
            const name = `${account}\n${item.id}`
            const body = jsonOf(request)
            if (isObject(body) && body.credentials === null) stuck.delete(name)
            else if (
              isObject(body) &&
              isObject(body.credentials) &&
              (stuck.has(name) || status.get(name) === 'error')
            )
              stuck.add(name)
          }
          for (const integration of objectsOf(response)) {
            if (integration.object !== 'integration') continue
            const name = `${account}\n${String(integration.id)}`
            if (stuck.has(name)) integration.status = 'error'
            if (typeof integration.status === 'string') status.set(name, integration.status)
          }
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------- team members
  {
    name: 'role-change-resends-invitation',
    kind: 'time',
    what:
      'Changing the role of a pending invitation sends the invitation again and stamps `invited_at` with the time of the change, although the invitation was sent earlier. ' +
      'Contract, updateTeamMember: "Changes the role of a member or of a pending invitation" (nothing else); TeamMember.invited_at: "When the invitation was sent"; inviteTeamMember: "`invited_at` = `created_at` = now" (at the invitation).',
    make: () => {
      const t = new Tracker()
      const last = t.map<string, { role: unknown; status: unknown }>()
      const resent = t.map<string, string>()
      return {
        response(response, request) {
          t.observe(request, response)
          if (!pathOf(request).startsWith('/v1/team-members') || !ok(response)) return response
          const item = itemOf(pathOf(request))
          const now = t.now(response)
          if (item && request.method === 'DELETE') resent.delete(item.id)
          if (item && request.method === 'PATCH' && isObject(response.body) && now !== undefined) {
            const before = last.get(item.id)
            if (before && before.status === 'invited' && before.role !== response.body.role)
              resent.set(item.id, toTimestamp(now))
          }
          for (const member of objectsOf(response)) {
            if (member.object !== 'team_member' || typeof member.id !== 'string') continue
            const stamp = resent.get(member.id)
            if (stamp !== undefined) member.invited_at = stamp
            last.set(member.id, { role: member.role, status: member.status })
          }
          return response
        },
      }
    },
  },
  {
    name: 'member-limit-counts-removed-members',
    kind: 'relations',
    what:
      "The team's size for the 200-member limit is a counter raised by every invitation and never lowered by a removal: an account that invited 199 people and removed some gets 409 limit_reached on its next invitation although it holds fewer than 200 members. " +
      'Contract, Conflict: "`limit_reached` (the account already holds as many objects of this kind as the service keeps; the mock: 1,000 agents and 200 team members per account; nothing is created)"; removeTeamMember: "Removes a member, or withdraws a pending invitation".',
    make: () => {
      const t = new Tracker()
      const invited = t.map<string, number>()
      const refused = new Set<EngineRequest>()
      const looksValid = (body: unknown) =>
        isObject(body) &&
        typeof body.email === 'string' &&
        /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(body.email) &&
        body.email.length <= 254 &&
        Object.keys(body).every((k) => k === 'email' || k === 'role' || k === 'name') &&
        (body.role === undefined || ['admin', 'editor', 'viewer'].includes(String(body.role))) &&
        (body.name === undefined ||
          (typeof body.name === 'string' && body.name.length >= 1 && body.name.length <= 100))
      return {
        request(request) {
          if (request.method !== 'POST' || pathOf(request) !== '/v1/team-members') return request
          const token = tokenOf(request)
          if ((invited.get(t.account(token)) ?? 1) < 200 || !t.holds(token, 'team_members:write'))
            return request
          if (!(request.headers['content-type'] ?? '').startsWith('application/json')) return request
          if (!looksValid(jsonOf(request))) return request
          const read = neutralRead(request)
          refused.add(read)
          return read
        },
        response(response, request) {
          t.observe(request, response)
          if (refused.delete(request)) {
            if (response.status !== 200) return response
            return errorAnswer(response, 409, {
              type: 'conflict_error',
              code: 'limit_reached',
              message:
                'This mock holds at most 200 team members per account; delete some, or POST /_mock/reset, before creating more.',
            })
          }
          if (
            request.method === 'POST' &&
            pathOf(request) === '/v1/team-members' &&
            response.status === 201 &&
            response.headers['idempotent-replayed'] !== 'true'
          ) {
            const account = t.account(tokenOf(request))
            invited.set(account, (invited.get(account) ?? 1) + 1)
          }
          return response
        },
      }
    },
  },
]
