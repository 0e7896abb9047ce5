/**
 * Held-out fault set 13: thirty faults an implementer of the platform's v1 API could plausibly ship, written blind to
 * the contract suite: neither its checks, nor its exploration, nor its tests, nor its documentation, nor the
 * held-out-3 list, nor held-out-12 (written at the same time) were read, and the suite was never run. held-out-4 to
 * held-out-11 were read for their format only, and so as not to repeat their faults (every fault here breaks another
 * rule, on another operation, or in another situation than theirs). The sources were the platform's spec, the product
 * decisions (the repository's own record of them is `docs/decisions/`), the contract (`openapi/v1.yaml`,
 * `openapi/mock-control.yaml`) and the mock engine (the correct implementation every fault wraps). Each fault wraps
 * the correct engine (`faultyHandler`): it rewrites a request before the engine sees it (a filter bound as a faulty
 * query would read it, a time zone as a faulty alignment would round it, finer buckets that the faulty bucketing is
 * then rebuilt from, an idempotency key or body that a faulty store would take for another, a harmless read in place
 * of a write it would have refused), or rewrites or replaces the engine's answer, keeping what it needs to remember
 * in the closure `make()` returns (accounts, keys and revocations seen through the control plane, the clock as the
 * answers show it, objects and calls seen in answers, the positions of listed objects, stored idempotent answers).
 *
 * The theme is "lists and analytics with real volumes": what goes wrong only with many objects or long ranges.
 * Pages of 100 and the objects past the 100th, filters and cursors at a page boundary and in both directions,
 * objects created in the same second on both sides of a cursor, the team near its size limit; analytics over many
 * agents (groups past ten, counts of two digits, groups without calls in the range, `group_by` with `agent_id`), long
 * ranges (limits per granularity, long hour series, the default range in a time zone), calendars (the ISO week across
 * the new year, a leap day, month ends, 45-minute offsets, the southern hemisphere's winter), metrics over many hours
 * (averages of averages); call-log filters on durations and times (billed minutes, fractional seconds, long windows);
 * idempotency with many keys and bodies (hash collisions, arrays, defaults, retries at the quota); rate limits under
 * many requests (a clock-hour counter behind the sliding window, both windows exhausted at once, the refused request
 * counted in the headers, a revoked key still counted after a rotation). Every fault deviates from the platform's
 * spec, the contract or a decision (cited in `what`), in specific situations only (ordinary traffic, the first reads
 * of every endpoint and a create and a read, is unchanged), and never where the spec leaves a choice open
 * (docs/decisions/011-allowed-forms.md). Liveness: `scripts/fault-sets/held-out-13-live.ts`.
 */
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'
import {
  type Bucket,
  canonical,
  isObject,
  isRead,
  isV1,
  itemOf,
  type Json,
  jsonOf,
  neutralRead,
  newestFirst,
  ok,
  pathOf,
  queryOf,
  tightest,
  tokenOf,
  type Window,
  withQuery,
} from './request-parts.ts'

export interface HeldOutFault {
  name: string
  kind: 'lists' | 'members' | 'analytics' | 'call-logs' | 'idempotency' | 'rate-limits'
  /** The deviation, with the sentence of the spec, the contract or the decision it breaks. */
  what: string
  make: () => Fault
}

// ------------------------------------------------------------------------------------------------- helpers

const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000
/** Idempotency keys are kept 24 hours (by the platform clock). */
const IDEMPOTENCY_SECONDS = 24 * 3600

const LIST_PATH = /^\/v1\/(agents|call-logs|team-members)\/?$/

/** The collection a read lists (`agents`, `call-logs`, `team-members`), or undefined. */
function listOf(request: EngineRequest): string | undefined {
  if (!isRead(request)) return undefined
  return LIST_PATH.exec(pathOf(request))?.[1]
}

/** The items of a list answer. */
const itemsOf = (response: EngineResponse): Json[] =>
  isObject(response.body) && Array.isArray(response.body.data) ? response.body.data.filter(isObject) : []

/** The query parameters that are not paging parameters (the filters of a list). */
const filtersOf = (request: EngineRequest) =>
  [...queryOf(request).keys()].filter((name) => !['limit', 'starting_after', 'ending_before'].includes(name))

/** The page size a list request asks for (the contract's default, 20, when absent). */
function limitOf(request: EngineRequest): number {
  const sent = queryOf(request).get('limit')
  return sent !== null && /^[1-9][0-9]*$/.test(sent) ? Number(sent) : 20
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

/** An error answer in the platform's envelope, built on the engine's answer (its Request-Id, rate-limit headers). */
function errorAnswer(base: EngineResponse, status: number, error: Json): EngineResponse {
  const requestId = base.headers['request-id']
  return {
    status,
    headers: { ...ownHeaders(base), 'content-type': 'application/json; charset=utf-8' },
    body: { error: { ...error, ...(requestId ? { request_id: requestId } : {}) } },
  }
}

const invalidParameter = (base: EngineResponse, param: string, message: string) =>
  errorAnswer(base, 400, { type: 'invalid_request_error', code: 'invalid_parameter', message, param })

/** A query that lists nothing (queued calls have no duration): what a filter that can match no call answers. */
function matchingNothing(request: EngineRequest): EngineRequest {
  return withQuery(request, (query) => {
    query.set('status', 'queued')
    query.set('min_duration_seconds', '0')
    query.delete('max_duration_seconds')
  })
}

/** An RFC 3339 instant sent in a query (any offset, any fraction, `T` and `Z` in either case), in milliseconds. */
function instantOf(text: string | null): number | undefined {
  if (text === null) return undefined
  if (!/^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(text)) return undefined
  const ms = Date.parse(text.toUpperCase())
  return Number.isFinite(ms) ? ms : undefined
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')

// ------------------------------------------------------------------------------------- rate-limit headers

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

/** The platform clock (whole seconds) of an authenticated answer: `X-RateLimit-Reset` less that window's `t`. */
function nowOf(headers: Record<string, string>): number | undefined {
  const windows = windowsOf(headers)
  const reset = Number(headers['x-ratelimit-reset'])
  if (!windows || !Number.isFinite(reset)) return undefined
  return reset - tightest(windows).t
}

/** Writes `RateLimit` and the `X-RateLimit-*` fields for `windows` at `now` (seconds). */
function writeWindows(headers: Record<string, string>, windows: Window[], now: number): void {
  headers.ratelimit = windows.map((window) => `"${window.policy}";r=${window.r};t=${window.t}`).join(', ')
  const x = tightest(windows)
  headers['x-ratelimit-limit'] = String(x.q)
  headers['x-ratelimit-remaining'] = String(x.r)
  headers['x-ratelimit-reset'] = String(now + x.t)
}

// ---------------------------------------------------------------------------------------- what a fault learns

interface KeyInfo {
  id: string
  account: string
  /** A key with restrictions (addresses, origins, expiry) is never used in another key's place. */
  plain: boolean
}

/**
 * What the faults of this set watch: the accounts and keys made through the control plane (the 201 of a key shows
 * its value once, with its account), revocations, the calls started there (their agent and creation time), the
 * platform clock as answers show it (the control plane's clock, the rate-limit headers of v1 answers). `POST
 * /_mock/reset`, which starts the platform again, empties everything kept, the maps a fault asks for included.
 */
class Tracker {
  private readonly keys = new Map<string, KeyInfo>()
  private readonly revoked = new Set<string>()
  /** Accounts created through the control plane: they start with the owner alone and without calls. */
  private readonly fresh = new Set<string>()
  /** Calls of each account (created through the control plane or seen in v1 answers): id -> agent, created_at. */
  readonly calls = new Map<string, Map<string, { agent: string; created_at: string }>>()
  /** The platform clock in whole seconds, as the last answer showed it. */
  now: number | undefined
  private readonly kept: { clear(): void }[] = [this.keys, this.revoked, this.fresh, this.calls]

  map<K, V>(): Map<K, V> {
    const map = new Map<K, V>()
    this.kept.push(map)
    return map
  }

  observe(request: EngineRequest, response: EngineResponse): void {
    const path = pathOf(request)
    const body = isObject(response.body) ? response.body : undefined
    if (path === '/_mock/reset' && ok(response)) {
      for (const kept of this.kept) kept.clear()
      this.now = undefined
      return
    }
    if (path.startsWith('/_mock/clock') && ok(response) && body && typeof body.now === 'string') {
      const ms = Date.parse(body.now)
      if (Number.isFinite(ms)) this.now = Math.floor(ms / 1000)
      return
    }
    if (request.method === 'POST' && path === '/_mock/accounts' && response.status === 201 && body) {
      this.fresh.add(String(body.id))
      return
    }
    if (/^\/_mock\/accounts\/[^/]+\/keys$/.test(path) && response.status === 201 && body) {
      if (typeof body.value !== 'string') return
      const restrictions = isObject(body.restrictions) ? body.restrictions : {}
      const plain =
        (!Array.isArray(restrictions.allowed_ips) || restrictions.allowed_ips.length === 0) &&
        (!Array.isArray(restrictions.allowed_origins) || restrictions.allowed_origins.length === 0) &&
        (restrictions.expires_at === null || restrictions.expires_at === undefined)
      this.keys.set(body.value, { id: String(body.id), account: String(body.account_id), plain })
      return
    }
    const revoked = /^\/_mock\/keys\/([^/]+)\/revoke$/.exec(path)
    if (revoked && ok(response)) {
      this.revoked.add(revoked[1] as string)
      return
    }
    const started = /^\/_mock\/accounts\/([^/]+)\/calls$/.exec(path)
    if (started && request.method === 'POST' && response.status === 201 && body) {
      this.callsOf(started[1] as string).set(String(body.id), {
        agent: String(body.agent_id),
        created_at: String(body.created_at),
      })
      return
    }
    if (!isV1(request)) return
    const now = nowOf(response.headers)
    if (now !== undefined) this.now = now
    const item = itemOf(request)
    const account = this.account(tokenOf(request))
    if (request.method === 'DELETE' && item?.collection === 'call-logs' && response.status === 200) {
      this.callsOf(account).delete(item.id)
      return
    }
    if (!isRead(request) || response.status !== 200) return
    const logs = listOf(request) === 'call-logs' ? itemsOf(response) : body ? [body] : []
    for (const log of logs)
      if (log.object === 'call_log' && typeof log.id === 'string')
        this.callsOf(account).set(log.id, { agent: String(log.agent_id), created_at: String(log.created_at) })
  }

  callsOf(account: string): Map<string, { agent: string; created_at: string }> {
    let calls = this.calls.get(account)
    if (!calls) {
      calls = new Map()
      this.calls.set(account, calls)
    }
    return calls
  }

  /** The account of a key made through the control plane; any other token counts as an account of its own. */
  account(token: string | undefined): string {
    const info = token ? this.keys.get(token) : undefined
    return info?.account ?? `token:${token ?? ''}`
  }

  isFresh(account: string): boolean {
    return this.fresh.has(account)
  }

  isRevoked(token: string | undefined): boolean {
    const info = token ? this.keys.get(token) : undefined
    return info !== undefined && this.revoked.has(info.id)
  }

  /** Another active key of the account without restrictions, made through the control plane. */
  activeKeyOf(account: string): string | undefined {
    for (const [value, info] of this.keys)
      if (info.account === account && info.plain && !this.revoked.has(info.id)) return value
    return undefined
  }
}

// ---------------------------------------------------------------------------------------- analytics parts

const ANALYTICS = /^\/v1\/analytics\/calls\/?$/
const isAnalytics = (request: EngineRequest) => isRead(request) && ANALYTICS.test(pathOf(request))
const analyticsBody = (request: EngineRequest, response: EngineResponse): Json | undefined =>
  isAnalytics(request) && response.status === 200 && isObject(response.body) ? response.body : undefined

/** Sums kept as the platform keeps them (cost in 1/10000 USD), so that recomputed figures are exact. */
interface Tally {
  call_count: number
  completed_count: number
  analyzed_count: number
  successful_count: number
  duration: number
  costUnits: number
  positive: number
  neutral: number
  negative: number
}

function tallyOf(metrics: unknown): Tally {
  const m = isObject(metrics) ? metrics : {}
  const sentiment = isObject(m.sentiment) ? m.sentiment : {}
  return {
    call_count: Number(m.call_count ?? 0),
    completed_count: Number(m.completed_count ?? 0),
    analyzed_count: Number(m.analyzed_count ?? 0),
    successful_count: Number(m.successful_count ?? 0),
    duration: Number(m.total_duration_seconds ?? 0),
    costUnits: Math.round(Number(m.total_cost_usd ?? 0) * 10_000),
    positive: Number(sentiment.positive ?? 0),
    neutral: Number(sentiment.neutral ?? 0),
    negative: Number(sentiment.negative ?? 0),
  }
}

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals

/** The contract's `AnalyticsMetrics` of a tally (averages over completed calls, rates over analysed ones). */
function present(tally: Tally): Json {
  const completed = tally.completed_count
  return {
    call_count: tally.call_count,
    completed_count: completed,
    analyzed_count: tally.analyzed_count,
    successful_count: tally.successful_count,
    total_duration_seconds: tally.duration,
    avg_duration_seconds: completed > 0 ? round(tally.duration / completed, 2) : null,
    total_cost_usd: tally.costUnits / 10_000,
    avg_cost_usd: completed > 0 ? round(tally.costUnits / 10_000 / completed, 4) : null,
    success_rate: tally.analyzed_count > 0 ? round(tally.successful_count / tally.analyzed_count, 4) : null,
    sentiment: { positive: tally.positive, neutral: tally.neutral, negative: tally.negative },
  }
}

/** The metrics of several buckets together. */
function sumOf(metrics: unknown[]): Json {
  const total = tallyOf({})
  for (const one of metrics) {
    const tally = tallyOf(one)
    for (const key of Object.keys(total) as (keyof Tally)[]) total[key] += tally[key]
  }
  return present(total)
}

const seriesOf = (value: unknown): Bucket[] =>
  Array.isArray(value)
    ? value.filter(
        (bucket): bucket is Bucket =>
          isObject(bucket) &&
          typeof bucket.start === 'string' &&
          typeof bucket.end === 'string' &&
          isObject(bucket.metrics),
      )
    : []

/** The groups of an analytics answer (empty without `group_by`). */
const groupsOf = (body: Json): Json[] => (Array.isArray(body.groups) ? body.groups.filter(isObject) : [])

/** Every series of an answer: the top-level one and each group's. */
const allSeries = (body: Json): { owner: Json }[] => [
  { owner: body },
  ...groupsOf(body).map((group) => ({ owner: group })),
]

/**
 * Buckets `[b0, b1), [b1, b2), ...` summed from finer buckets, or undefined when a bound is not a bound of the finer
 * series (the bounds are milliseconds, ascending, from the series' start to its end).
 */
function rebucket(series: Bucket[], bounds: number[]): Bucket[] | undefined {
  const out: Bucket[] = []
  let i = 0
  for (let k = 0; k + 1 < bounds.length; k++) {
    const from = bounds[k] as number
    const to = bounds[k + 1] as number
    const parts: Json[] = []
    while (i < series.length && Date.parse((series[i] as Bucket).start) < to) {
      const bucket = series[i] as Bucket
      if (Date.parse(bucket.start) < from || Date.parse(bucket.end) > to) return undefined
      parts.push(bucket.metrics)
      i++
    }
    if (parts.length === 0) return undefined
    out.push({ start: iso(from), end: iso(to), metrics: sumOf(parts) })
  }
  return i === series.length ? out : undefined
}

/** Rebuckets every series of an answer to `bounds` (all or nothing); whether it could. */
function rebucketAll(body: Json, bounds: number[]): boolean {
  const rebuilt = allSeries(body).map(({ owner }) => rebucket(seriesOf(owner.series), bounds))
  if (rebuilt.some((series) => series === undefined)) return false
  allSeries(body).forEach(({ owner }, i) => {
    owner.series = rebuilt[i]
  })
  return true
}

/** Orders groups as the contract does: `totals.call_count` descending, then `value` ascending. */
const byCallCount = (a: Json, b: Json) =>
  tallyOf(b.totals).call_count - tallyOf(a.totals).call_count || (String(a.value) < String(b.value) ? -1 : 1)

// ------------------------------------------------------------------------------------------- time zones

interface Local {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  /** 0 = Monday ... 6 = Sunday. */
  weekday: number
}

const localFormatters = new Map<string, Intl.DateTimeFormat | null>()
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']

/** Wall-clock time of `ms` in `zone`, or undefined for an unknown zone. */
function localOf(zone: string, ms: number): Local | undefined {
  let formatter = localFormatters.get(zone)
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        weekday: 'short',
      })
    } catch {
      formatter = null
    }
    localFormatters.set(zone, formatter)
  }
  if (!formatter) return undefined
  const parts: Record<string, string> = {}
  for (const part of formatter.formatToParts(ms)) parts[part.type] = part.value
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    weekday: WEEKDAYS.indexOf(parts.weekday ?? ''),
  }
}

/** The offset of `zone` at `ms`, in minutes east of UTC. */
function offsetMinutes(zone: string, ms: number): number | undefined {
  const t = localOf(zone, ms)
  if (!t) return undefined
  const wall = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute)
  return Math.round((wall - Math.floor(ms / 60_000) * 60_000) / 60_000)
}

/** The UTC instant of local midnight of a date in `zone` (the date may be out of range: `day` 0, 32 roll over). */
function localMidnight(zone: string, year: number, month: number, day: number): number {
  const wall = Date.UTC(year, month - 1, day)
  const guess = wall - (offsetMinutes(zone, wall) ?? 0) * 60_000
  return wall - (offsetMinutes(zone, guess) ?? 0) * 60_000
}

/** The range an analytics request covers, in milliseconds at whole seconds, or undefined when it cannot be told. */
function rangeOf(
  request: EngineRequest,
  nowSeconds: number | undefined,
): { start: number; end: number } | undefined {
  const query = queryOf(request)
  const second = (ms: number) => Math.floor(ms / 1000) * 1000
  const sentEnd = query.get('end')
  const sentStart = query.get('start')
  const end =
    sentEnd === null ? (nowSeconds === undefined ? undefined : nowSeconds * 1000) : instantOf(sentEnd)
  if (end === undefined) return undefined
  const start = sentStart === null ? second(end) - 7 * DAY_MS : instantOf(sentStart)
  if (start === undefined || second(start) >= second(end)) return undefined
  return { start: second(start), end: second(end) }
}

/** A time zone the request names, or UTC. */
const zoneOf = (request: EngineRequest) => queryOf(request).get('timezone') ?? 'UTC'

// ------------------------------------------------------------------------------------------------- faults

export const faults: HeldOutFault[] = [
  // ------------------------------------------------------------------------------------------------ lists
  {
    name: 'has-more-lost-at-limit-100',
    kind: 'lists',
    what:
      'Every list is read as `LIMIT min(limit + 1, 100)` (the store caps a read at 100 rows): at `limit=100` the extra row that tells whether more follow is never read, so a full page of 100 agents, call logs or team members says `has_more: false` although more objects lie beyond it (in either direction). ' +
      'Contract, Lists and pagination: "`has_more` tells whether more objects exist beyond the returned page in the direction of travel"; parameter Limit: "Maximum number of objects to return, 1-100 (default 20)"; docs/decisions/008: "`limit` (1-100, default 20)".',
    make: () => ({
      response(response, request) {
        if (!listOf(request) || response.status !== 200 || queryOf(request).get('limit') !== '100')
          return response
        if (isObject(response.body) && itemsOf(response).length === 100 && response.body.has_more === true)
          response.body.has_more = false
        return response
      },
    }),
  },
  {
    name: 'cursor-past-newest-100-refused',
    kind: 'lists',
    what:
      "Cursors are resolved against a cache of each collection's newest 100 IDs (the dashboard's page), and a miss is reported as an unknown cursor: `starting_after` or `ending_before` naming an object past the 100th newest (an agent, call log or team member the client reached by paging) is 400 invalid_cursor, so a client walking a long list is stopped once its cursor lies past the 100th object (at the third page of 100, the seventh of 20). " +
      'Contract, StartingAfter: "Cursor: the ID of an object of this collection; returns the objects that follow it (older ones) ...; an ID that is not an object of this collection in this account is 400 `invalid_cursor`"; Lists and pagination: "an ID that is not an object of that collection is 400 `invalid_cursor`".',
    make: () => {
      const t = new Tracker()
      /** Positions (1 = newest) of the objects seen in unfiltered pages, per token and collection. */
      const ranks = t.map<string, Map<string, number>>()
      return {
        response(response, request) {
          t.observe(request, response)
          const collection = listOf(request)
          if (!collection || response.status !== 200 || !isObject(response.body)) return response
          const key = `${tokenOf(request) ?? ''} ${collection}`
          let known = ranks.get(key)
          if (!known) {
            known = new Map()
            ranks.set(key, known)
          }
          const query = queryOf(request)
          const after = query.get('starting_after')
          const before = query.get('ending_before')
          const cursor = after ?? before
          const cursorRank = cursor === null ? undefined : known.get(cursor)
          if (cursorRank !== undefined && cursorRank > 100)
            return errorAnswer(response, 400, {
              type: 'invalid_request_error',
              code: 'invalid_cursor',
              message: `No object with id '${cursor}' to page from.`,
              param: after !== null ? 'starting_after' : 'ending_before',
            })
          if (filtersOf(request).length > 0) return response
          const data = itemsOf(response)
          let first: number | undefined
          if (cursor === null) first = 1
          else if (after !== null && cursorRank !== undefined) first = cursorRank + 1
          else if (before !== null && response.body.has_more === false) {
            first = 1
            known.set(before, data.length + 1)
          } else if (before !== null && cursorRank !== undefined) first = cursorRank - data.length
          if (first === undefined) return response
          for (const [i, item] of data.entries()) known.set(String(item.id), first + i)
          return response
        },
      }
    },
  },
  {
    name: 'same-second-cursor-tie-break-reversed',
    kind: 'lists',
    what:
      'The keyset condition of `starting_after` was expanded by hand as `created_at < :c OR (created_at = :c AND id > :id)`, the id comparison copied from an ascending index: when the cursor agent or team member shares its creation second with others (a bulk import, a script that invites a team), the next page repeats the objects of that second that came before the cursor and skips those that come after it. ' +
      'Contract, Lists and pagination: "Agents, call logs and team members are ordered newest first by `created_at`, ties broken by `id` descending. `starting_after=<id>` returns the objects after that one in this order (older)"; docs/decisions/008: "Objects come newest first by `created_at`, then by `id`".',
    make: () => {
      const t = new Tracker()
      /** Agents and team members as each token last saw them (in lists, by ID, created). */
      const seen = t.map<string, Map<string, Json>>()
      const pages = new Map<EngineRequest, { limit: number; cursor: Json; key: string }>()
      const seenBy = (key: string) => {
        let objects = seen.get(key)
        if (!objects) {
          objects = new Map()
          seen.set(key, objects)
        }
        return objects
      }
      return {
        request(request) {
          const collection = listOf(request)
          const after = queryOf(request).get('starting_after')
          if ((collection !== 'agents' && collection !== 'team-members') || after === null) return request
          if (filtersOf(request).length > 0 || queryOf(request).has('ending_before')) return request
          const key = `${tokenOf(request) ?? ''} ${collection}`
          const cursor = seen.get(key)?.get(after)
          if (!cursor) return request
          const limit = limitOf(request)
          const older = [...seenBy(key).values()].filter(
            (o) => o.created_at === cursor.created_at && String(o.id) < String(cursor.id),
          ).length
          const sent = withQuery(request, (query) => query.set('limit', String(Math.min(100, limit + older))))
          pages.set(sent, { limit, cursor, key })
          return sent
        },
        response(response, request) {
          const page = pages.get(request)
          pages.delete(request)
          t.observe(request, response)
          const collection = listOf(request) ?? itemOf(request)?.collection
          if (!isV1(request) || (collection !== 'agents' && collection !== 'team-members')) return response
          const objects = seenBy(`${tokenOf(request) ?? ''} ${collection}`)
          const item = itemOf(request)
          if (request.method === 'DELETE' && item && response.status === 200) objects.delete(item.id)
          else if (ok(response)) {
            const found = listOf(request) ? itemsOf(response) : isObject(response.body) ? [response.body] : []
            for (const object of found)
              if (typeof object.id === 'string' && typeof object.created_at === 'string')
                objects.set(object.id, structuredClone(object))
          }
          if (!page || response.status !== 200 || !isObject(response.body)) return response
          const { cursor, limit } = page
          const newer = [...objects.values()]
            .filter((o) => o.created_at === cursor.created_at && String(o.id) > String(cursor.id))
            .sort(newestFirst)
          const older = itemsOf(response).filter((o) => o.created_at !== cursor.created_at)
          const candidates = [...newer.map((o) => structuredClone(o)), ...older]
          response.body.data = candidates.slice(0, limit)
          response.body.has_more = candidates.length > limit || response.body.has_more === true
          return response
        },
      }
    },
  },
  {
    name: 'ending-before-drops-agent-filter',
    kind: 'lists',
    what:
      "GET /call-logs serves `agent_id` from the per-agent index on forward scans only; a page asked with `ending_before` scans the account's main list and forgets the agent condition, so paging back through one agent's calls lists the newer calls of every agent. " +
      'Contract, listCallLogs: "Filters combine with AND"; parameter agent_id: "Only call logs of this agent"; EndingBefore: "returns the objects that precede it (newer ones), still ordered newest first".',
    make: () => ({
      request(request) {
        if (listOf(request) !== 'call-logs') return request
        const query = queryOf(request)
        if (!query.has('ending_before') || !query.has('agent_id') || query.has('starting_after'))
          return request
        return withQuery(request, (q) => q.delete('agent_id'))
      },
    }),
  },
  {
    name: 'filtered-has-more-from-scanned-rows',
    kind: 'lists',
    what:
      'GET /call-logs with a filter (status, direction, started_* or *_duration_seconds) computes has_more from the rows its scan left behind, matching or not: a filtered page says `has_more: true` whenever older call logs of any kind remain (newer ones, with `ending_before`), so a client walking the pages ends on an empty page. ' +
      'Contract, Lists and pagination: "`has_more` tells whether more objects exist beyond the returned page in the direction of travel" (the objects of the list the query defines); listCallLogs: "Filters combine with AND".',
    make: () => {
      const t = new Tracker()
      return {
        response(response, request) {
          t.observe(request, response)
          if (listOf(request) !== 'call-logs' || response.status !== 200 || !isObject(response.body))
            return response
          const filters = filtersOf(request).filter((name) => name !== 'agent_id')
          const account = t.account(tokenOf(request))
          if (filters.length === 0 || response.body.has_more !== false || !t.isFresh(account)) return response
          const query = queryOf(request)
          const agent = query.get('agent_id')
          const calls = [...t.callsOf(account)]
            .filter(([, call]) => agent === null || call.agent === agent)
            .map(([id, call]) => `${call.created_at} ${id}`)
          const keyOf = (id: string) => {
            const call = t.callsOf(account).get(id)
            return call ? `${call.created_at} ${id}` : undefined
          }
          const data = itemsOf(response)
          const backwards = query.has('ending_before')
          const edge = backwards ? data[0] : data[data.length - 1]
          const cursor = query.get(backwards ? 'ending_before' : 'starting_after')
          const from = edge ? keyOf(String(edge.id)) : cursor === null ? undefined : keyOf(cursor)
          if (edge === undefined && cursor === null) {
            if (calls.length > 0) response.body.has_more = true
            return response
          }
          if (from === undefined) return response
          if (calls.some((key) => (backwards ? key > from : key < from))) response.body.has_more = true
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ team members
  {
    name: 'team-limit-off-by-one',
    kind: 'members',
    what:
      'The team-size check is written `if (count + 1 >= 200)` (the new member counted twice): an account that holds 199 members and invitations gets 409 limit_reached on its next invitation, so a team never reaches the 200 members the platform keeps, and the invitation is not created. ' +
      'Contract, Conflict: "`limit_reached` (the account already holds as many objects of this kind as the service keeps; the mock: 1,000 agents and 200 team members per account; nothing is created)"; inviteTeamMember: "Invites a person by e-mail. Answers **201** with the new member".',
    make: () => {
      const t = new Tracker()
      /** Members and invitations of accounts created through the control plane (the owner counts). */
      const sizes = t.map<string, number>()
      const refused = new Set<EngineRequest>()
      const ROLES = ['admin', 'editor', 'viewer']
      return {
        request(request) {
          if (request.method !== 'POST' || !/^\/v1\/team-members\/?$/.test(pathOf(request))) return request
          const account = t.account(tokenOf(request))
          if (!t.isFresh(account) || (sizes.get(account) ?? 1) !== 199) return request
          if (request.headers['idempotency-key'] !== undefined) return request
          if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) return request
          const sent = jsonOf(request)
          const valid =
            isObject(sent) &&
            Object.keys(sent).every((name) => ['email', 'role', 'name'].includes(name)) &&
            typeof sent.email === 'string' &&
            /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(sent.email) &&
            sent.email.length <= 254 &&
            (sent.role === undefined || ROLES.includes(String(sent.role))) &&
            (sent.name === undefined ||
              (typeof sent.name === 'string' && sent.name.length > 0 && sent.name.length <= 100))
          if (!valid) return request
          const read = neutralRead(request, '/v1/team-members?limit=1')
          refused.add(read)
          return read
        },
        response(response, request) {
          const wasRefused = refused.delete(request)
          t.observe(request, response)
          const account = t.account(tokenOf(request))
          if (wasRefused) {
            if (response.status !== 200) return response
            return errorAnswer(response, 409, {
              type: 'conflict_error',
              code: 'limit_reached',
              message:
                'This mock holds at most 200 team members per account; delete some, or POST /_mock/reset, before creating more.',
            })
          }
          if (!t.isFresh(account)) return response
          if (
            request.method === 'POST' &&
            /^\/v1\/team-members\/?$/.test(pathOf(request)) &&
            response.status === 201 &&
            response.headers['idempotent-replayed'] === undefined
          )
            sizes.set(account, (sizes.get(account) ?? 1) + 1)
          if (request.method === 'DELETE' && itemOf(request)?.collection === 'team-members' && ok(response))
            sizes.set(account, (sizes.get(account) ?? 1) - 1)
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------- analytics
  {
    name: 'week-buckets-split-at-new-year',
    kind: 'analytics',
    what:
      "Week buckets are grouped by `(calendar year, ISO week number)` instead of the ISO week-year: the days of a week that straddles the new year fall under two keys, so with `granularity=week` the week holding 1 January is cut in two at local midnight of 1 January (two buckets, the second starting on 1 January, whatever its weekday), in the series and in every group's series. " +
      'Contract, getCallAnalytics, Buckets: "Buckets are aligned to calendar boundaries of the granularity in `timezone` (hour; local midnight for `day`; Monday 00:00 for `week`, ISO 8601; the 1st at 00:00 for `month`)"; CallAnalytics: "`series` tiles `[start, end)` in buckets".',
    make: () => {
      const t = new Tracker()
      const rewritten = new Map<EngineRequest, string>()
      return {
        request(request) {
          if (!isAnalytics(request) || queryOf(request).get('granularity') !== 'week') return request
          const zone = zoneOf(request)
          const range = rangeOf(request, t.now)
          if (!range || range.end - range.start > 740 * DAY_MS || !localOf(zone, range.start)) return request
          const first = localOf(zone, range.start) as Local
          const last = localOf(zone, range.end) as Local
          let splits = false
          for (let year = first.year + 1; year <= last.year; year++) {
            const newYear = localMidnight(zone, year, 1, 1)
            if (newYear > range.start && newYear < range.end && localOf(zone, newYear)?.weekday !== 0)
              splits = true
          }
          if (!splits) return request
          const sent = withQuery(request, (query) => query.set('granularity', 'day'))
          rewritten.set(sent, zone)
          return sent
        },
        response(response, request) {
          const zone = rewritten.get(request)
          rewritten.delete(request)
          t.observe(request, response)
          const body = analyticsBody(request, response)
          if (zone === undefined || !body) return response
          const days = seriesOf(body.series)
          const bounds = [Date.parse(String(body.start))]
          for (const day of days.slice(1)) {
            const local = localOf(zone, Date.parse(day.start))
            if (local && (local.weekday === 0 || (local.month === 1 && local.day === 1)))
              bounds.push(Date.parse(day.start))
          }
          bounds.push(Date.parse(String(body.end)))
          rebucketAll(body, bounds)
          body.granularity = 'week'
          return response
        },
      }
    },
  },
  {
    name: 'hour-buckets-45-minute-offsets-halved',
    kind: 'analytics',
    what:
      'Hour buckets in zones whose offset is not a whole number of hours are aligned with the offset rounded down to a half hour (the case written for India and South Australia): in a zone at a 45-minute offset (Asia/Kathmandu +05:45, Australia/Eucla +08:45, Pacific/Chatham +12:45) the `hour` series is cut at :30 UTC, a quarter of an hour off the local hour, and calls are counted in the wrong hour. ' +
      'Contract, getCallAnalytics parameter timezone: "IANA time zone name used to align `day`, `week` and `month` buckets (and `hour` buckets in zones with a non-whole-hour offset)"; Buckets: "Buckets are aligned to calendar boundaries of the granularity in `timezone` (hour; ...)".',
    make: () => {
      const zones = new Map<EngineRequest, string>()
      return {
        request(request) {
          if (!isAnalytics(request) || queryOf(request).get('granularity') !== 'hour') return request
          const zone = queryOf(request).get('timezone')
          const offset = zone === null ? undefined : offsetMinutes(zone, Date.UTC(2026, 0, 1))
          if (zone === null || offset === undefined || Math.abs(offset) % 60 !== 45) return request
          const sent = withQuery(request, (query) => query.set('timezone', 'Asia/Kolkata'))
          zones.set(sent, zone)
          return sent
        },
        response(response, request) {
          const zone = zones.get(request)
          zones.delete(request)
          const body = analyticsBody(request, response)
          if (zone !== undefined && body) body.timezone = zone
          return response
        },
      }
    },
  },
  {
    name: 'southern-winter-calendar-buckets-shifted',
    kind: 'analytics',
    what:
      'Local midnight is computed from the zone\'s January offset plus one hour when the zone is "in daylight saving time", which is tested as "the offset differs from January\'s": right in the northern hemisphere, but in a southern zone with daylight saving (Australia/Sydney, Pacific/Auckland, America/Santiago) January is summer, so during its winter every `day`, `week` and `month` boundary falls two hours before local midnight (22:00 the evening before). ' +
      'Contract, getCallAnalytics, Buckets: "Buckets are aligned to calendar boundaries of the granularity in `timezone` (hour; local midnight for `day`; Monday 00:00 for `week`, ISO 8601; the 1st at 00:00 for `month`)"; parameter timezone: "IANA time zone name used to align `day`, `week` and `month` buckets".',
    make: () => {
      const t = new Tracker()
      const rewritten = new Map<EngineRequest, { granularity: string; faulty: number[]; correct: number[] }>()
      /** Calendar boundaries inside the range: as the zone has them, and as the faulty offset puts them. */
      function boundaries(zone: string, granularity: string, start: number, end: number) {
        const correct: number[] = []
        const faulty: number[] = []
        const first = localOf(zone, start - DAY_MS) as Local
        for (let day = 0; day < 800; day++) {
          const at = localMidnight(zone, first.year, first.month, first.day + day)
          if (at > end + 2 * DAY_MS) break
          const local = localOf(zone, at)
          if (local?.hour !== 0) continue
          if (granularity === 'week' && local.weekday !== 0) continue
          if (granularity === 'month' && local.day !== 1) continue
          const actual = offsetMinutes(zone, at) ?? 0
          const january = offsetMinutes(zone, Date.UTC(local.year, 0, 1)) ?? 0
          const believed = actual === january ? january : january + 60
          const shifted = at - (believed - actual) * 60_000
          if (at > start && at < end) correct.push(at)
          if (shifted > start && shifted < end) faulty.push(shifted)
        }
        return { correct, faulty }
      }
      return {
        request(request) {
          if (!isAnalytics(request) || !queryOf(request).has('timezone')) return request
          const granularity = queryOf(request).get('granularity') ?? 'day'
          if (!['day', 'week', 'month'].includes(granularity)) return request
          const zone = zoneOf(request)
          const range = rangeOf(request, t.now)
          if (!range || range.end - range.start > 740 * HOUR_MS || !localOf(zone, range.start)) return request
          const { correct, faulty } = boundaries(zone, granularity, range.start, range.end)
          if (correct.join() === faulty.join()) return request
          const sent = withQuery(request, (query) => query.set('granularity', 'hour'))
          rewritten.set(sent, {
            granularity,
            faulty: [range.start, ...faulty, range.end],
            correct: [range.start, ...correct, range.end],
          })
          return sent
        },
        response(response, request) {
          const plan = rewritten.get(request)
          rewritten.delete(request)
          t.observe(request, response)
          const body = analyticsBody(request, response)
          if (!plan || !body) return response
          if (!rebucketAll(body, plan.faulty)) rebucketAll(body, plan.correct)
          body.granularity = plan.granularity
          return response
        },
      }
    },
  },
  {
    name: 'leap-day-merged-with-march-first',
    kind: 'analytics',
    what:
      "Day buckets are keyed by day of the year taken from a table of month lengths without leap years: 29 February and 1 March both come out as day 60, so with `granularity=day` a range over a leap day has one 48-hour bucket from 29 February to 2 March instead of two days (in the series and in every group's series). " +
      'Contract, getCallAnalytics, Buckets: "Buckets are aligned to calendar boundaries of the granularity in `timezone` (hour; local midnight for `day`; ...); the first and last buckets are clipped to `start` and `end`, so the buckets exactly tile the range".',
    make: () => ({
      response(response, request) {
        const body = analyticsBody(request, response)
        if (body?.granularity !== 'day') return response
        const zone = String(body.timezone)
        for (const { owner } of allSeries(body)) {
          const series = seriesOf(owner.series)
          const merged: Bucket[] = []
          for (let i = 0; i < series.length; i++) {
            const bucket = series[i] as Bucket
            const next = series[i + 1]
            const local = localOf(zone, Date.parse(bucket.start))
            if (next && local?.month === 2 && local.day === 29) {
              merged.push({
                start: bucket.start,
                end: next.end,
                metrics: sumOf([bucket.metrics, next.metrics]),
              })
              i++
            } else merged.push(bucket)
          }
          owner.series = merged
        }
        return response
      },
    }),
  },
  {
    name: 'month-bucket-ends-at-last-millisecond',
    kind: 'analytics',
    what:
      "Month buckets are built with the date library's `endOfMonth`, which gives the last millisecond of the month: with `granularity=month` every bucket but the last ends at `...T23:59:59.999Z` (in the zone's terms) instead of at the next bucket's start, so the buckets no longer meet and a bucket's `end` is not the 1st at 00:00. " +
      'Contract, AnalyticsBucket: "One time bucket `[start, end)` of a series"; CallAnalytics: "`series` tiles `[start, end)` in buckets"; getCallAnalytics, Buckets: "the 1st at 00:00 for `month`; ... so the buckets exactly tile the range".',
    make: () => ({
      response(response, request) {
        const body = analyticsBody(request, response)
        if (body?.granularity !== 'month') return response
        for (const { owner } of allSeries(body)) {
          const series = seriesOf(owner.series)
          for (let i = 0; i + 1 < series.length; i++)
            (series[i] as Bucket).end = new Date(
              Date.parse((series[i + 1] as Bucket).start) - 1,
            ).toISOString()
        }
        return response
      },
    }),
  },
  {
    name: 'agent-groups-capped-at-ten',
    kind: 'analytics',
    what:
      'Groups are read with the query of the dashboard\'s "top agents" chart, `LIMIT 10`: with more than ten distinct values (ten agents with calls in the range and more), `groups` holds the first ten only, and the group totals no longer add up to the top-level totals. ' +
      'Contract, getCallAnalytics, Grouping: "the response also has `groups`: one entry per distinct value that has at least one call in the range ... Group totals add up to the top-level `totals`".',
    make: () => ({
      response(response, request) {
        const body = analyticsBody(request, response)
        if (body && Array.isArray(body.groups) && body.groups.length > 10)
          body.groups = body.groups.slice(0, 10)
        return response
      },
    }),
  },
  {
    name: 'groups-ordered-by-count-as-text',
    kind: 'analytics',
    what:
      'The database driver returns `COUNT(*)` as a string (a bigint) and the groups are sorted on it as they come: call counts are compared as text, so a group with 9 calls comes before one with 10 or 12 ("9" > "10"), as soon as the counts of the groups have different numbers of digits. ' +
      'Contract, getCallAnalytics, Grouping: "one entry per distinct value that has at least one call in the range, ordered by `totals.call_count` descending then `value` ascending"; AnalyticsMetrics.call_count: `{type: integer}`.',
    make: () => ({
      response(response, request) {
        const body = analyticsBody(request, response)
        if (!body || !Array.isArray(body.groups)) return response
        body.groups = groupsOf(body).sort((a, b) => {
          const [ca, cb] = [String(tallyOf(a.totals).call_count), String(tallyOf(b.totals).call_count)]
          if (ca !== cb) return ca < cb ? 1 : -1
          return String(a.value) < String(b.value) ? -1 : 1
        })
        return response
      },
    }),
  },
  {
    name: 'group-by-ignored-with-agent-filter',
    kind: 'analytics',
    what:
      'GET /analytics/calls has two query paths, the account-wide one and the per-agent one (the agent page of the dashboard), and only the first learned `group_by`: with `agent_id` and `group_by` together, the answer comes without a breakdown (`group_by: null`, `groups: null`). ' +
      'Contract, CallAnalytics: "`groups` is an array exactly when `group_by` is not `null`, and `null` otherwise"; parameter group_by: "Also break the metrics down by this call-log field (see `groups`)"; docs/decisions/009: analytics take `group_by` and `agent_id`.',
    make: () => ({
      response(response, request) {
        const body = analyticsBody(request, response)
        if (!body || !queryOf(request).has('agent_id') || !queryOf(request).has('group_by')) return response
        body.group_by = null
        body.groups = null
        return response
      },
    }),
  },
  {
    name: 'agent-groups-from-all-time-calls',
    kind: 'analytics',
    what:
      'With `group_by=agent_id` the list of groups comes from `SELECT DISTINCT agent_id FROM call_logs` without the range condition (only the metrics are computed over the range): every agent that ever had a call gets a group, all zeros with null averages, also when none of its calls lies in the range. ' +
      'Contract, getCallAnalytics, Grouping: "`groups`: one entry per distinct value that has at least one call in the range, ordered by `totals.call_count` descending then `value` ascending".',
    make: () => {
      const t = new Tracker()
      return {
        response(response, request) {
          t.observe(request, response)
          const body = analyticsBody(request, response)
          if (body?.group_by !== 'agent_id' || !Array.isArray(body.groups)) return response
          const filter = queryOf(request).get('agent_id')
          const agents = new Set(
            [...t.callsOf(t.account(tokenOf(request))).values()].map((call) => call.agent),
          )
          const listed = new Set(groupsOf(body).map((group) => String(group.value)))
          const empty = present(tallyOf({}))
          const added = [...agents]
            .filter((agent) => !listed.has(agent) && (filter === null || filter === agent))
            .map((agent) => ({
              value: agent,
              totals: structuredClone(empty),
              series: seriesOf(body.series).map((bucket) => ({
                start: bucket.start,
                end: bucket.end,
                metrics: structuredClone(empty),
              })),
            }))
          if (added.length > 0) body.groups = [...groupsOf(body), ...added].sort(byCallCount)
          return response
        },
      }
    },
  },
  {
    name: 'hourly-totals-average-of-averages',
    kind: 'analytics',
    what:
      "With `granularity=hour` the totals are read from the hourly roll-up rows, which hold averages: the totals' (and each group's) `avg_duration_seconds`, `avg_cost_usd` and `success_rate` are the plain mean of the non-empty hours' values instead of being recomputed from the summed figures, so a busy hour weighs as much as a quiet one. " +
      'Contract, getCallAnalytics, Metrics: "`avg_duration_seconds` = `total_duration_seconds / completed_count` ...; `success_rate` = `successful_count / analyzed_count`"; Additivity: "Averages and rates are recomputed per bucket, never summed".',
    make: () => ({
      response(response, request) {
        const body = analyticsBody(request, response)
        if (body?.granularity !== 'hour') return response
        const mean = (series: Bucket[], field: string, decimals: number) => {
          const values = series.map((b) => b.metrics[field]).filter((v): v is number => typeof v === 'number')
          return values.length ? round(values.reduce((a, b) => a + b, 0) / values.length, decimals) : null
        }
        for (const { owner } of allSeries(body)) {
          const series = seriesOf(owner.series)
          if (!isObject(owner.totals)) continue
          owner.totals.avg_duration_seconds = mean(series, 'avg_duration_seconds', 2)
          owner.totals.avg_cost_usd = mean(series, 'avg_cost_usd', 4)
          owner.totals.success_rate = mean(series, 'success_rate', 4)
        }
        return response
      },
    }),
  },
  {
    name: 'week-month-ranges-limited-to-744-days',
    kind: 'analytics',
    what:
      'The range check written for `total` (at most 744 days) is applied to every granularity: a `week` or `month` range longer than 744 days (three years by month: 36 buckets; three years by week: 157) is 400 invalid_parameter naming `start`, although it covers far fewer than 744 buckets. ' +
      'Contract, getCallAnalytics, Range: "The range may cover at most **744 buckets** of the chosen granularity (for example 31 days of `hour`; for `total` the range may be at most 744 days); a longer range is 400".',
    make: () => ({
      response(response, request) {
        const body = analyticsBody(request, response)
        if (!body || (body.granularity !== 'week' && body.granularity !== 'month')) return response
        if (Date.parse(String(body.end)) - Date.parse(String(body.start)) <= 744 * DAY_MS) return response
        return invalidParameter(response, 'start', 'The range may cover at most 744 days.')
      },
    }),
  },
  {
    name: 'default-start-at-local-midnight',
    kind: 'analytics',
    what:
      'When a `timezone` is given and `start` is not, the default range is taken as the dashboard\'s "last 7 days": today and the six days before it, from local midnight of the sixth day before the day of `end`, instead of the 7 x 24 hours before `end`; with `granularity=day` the first (partial) day of the default range is missing from the series, the totals and the groups. ' +
      'Contract, getCallAnalytics, Range: "Both bounds are optional: `end` defaults to the current time and `start` to `end` minus 7 days"; parameter start: "Default `end` minus 7 days".',
    make: () => ({
      response(response, request) {
        const body = analyticsBody(request, response)
        const query = queryOf(request)
        if (!body || !query.has('timezone') || query.has('start') || body.granularity !== 'day')
          return response
        const series = seriesOf(body.series)
        if (series.length < 2) return response
        for (const { owner } of allSeries(body)) {
          const kept = seriesOf(owner.series).slice(1)
          owner.series = kept
          owner.totals = sumOf(kept.map((bucket) => bucket.metrics))
        }
        body.start = (series[1] as Bucket).start
        if (Array.isArray(body.groups))
          body.groups = groupsOf(body)
            .filter((group) => tallyOf(group.totals).call_count > 0)
            .sort(byCallCount)
        return response
      },
    }),
  },
  {
    name: 'long-series-cut-to-500-buckets',
    kind: 'analytics',
    what:
      "The series is passed through the chart helper's `maxPoints: 500`, which keeps the newest 500 buckets: a range of more than 500 buckets (more than 21 days by `hour`, more than 16 months by `day`) comes back with a series that starts after `start`, so the buckets no longer tile the range and the series no longer adds up to the totals. " +
      'Contract, CallAnalytics: "`series` tiles `[start, end)` in buckets, oldest first; counts and totals of the series add up to `totals`" (`maxItems: 744`); getCallAnalytics, Range: "The range may cover at most **744 buckets**".',
    make: () => ({
      response(response, request) {
        const body = analyticsBody(request, response)
        if (!body || seriesOf(body.series).length <= 500) return response
        for (const { owner } of allSeries(body)) owner.series = seriesOf(owner.series).slice(-500)
        return response
      },
    }),
  },

  // ------------------------------------------------------------------------------------------- call logs
  {
    name: 'duration-filters-on-billed-minutes',
    kind: 'call-logs',
    what:
      '`min_duration_seconds` and `max_duration_seconds` are applied to the billing column, the duration rounded up to whole minutes (`billed_minutes * 60`): a call of 61 seconds counts as 120, so it is left out of `max_duration_seconds=90` and matches `min_duration_seconds=100`, and a bound that is not a whole number of minutes moves to the minute. ' +
      'Contract, listCallLogs: "`min_duration_seconds` / `max_duration_seconds` are inclusive bounds on `duration_seconds`"; parameters: "Only ended calls with `duration_seconds` >= this value", "Only ended calls with `duration_seconds` <= this value".',
    make: () => ({
      request(request) {
        if (listOf(request) !== 'call-logs') return request
        const query = queryOf(request)
        const min = query.get('min_duration_seconds')
        const max = query.get('max_duration_seconds')
        const whole = (value: string | null) => value === null || /^(0|[1-9][0-9]{0,8})$/.test(value)
        if ((min === null && max === null) || !whole(min) || !whole(max)) return request
        if (min !== null && max !== null && Number(min) > Number(max)) return request
        // ceil(d / 60) * 60 >= min  <=>  d >= 60 * (ceil(min / 60) - 1) + 1 (for min > 0); <= max  <=>  d <= 60 * floor(max / 60)
        const newMin =
          min === null || min === '0' ? min : String(Math.max(0, 60 * (Math.ceil(Number(min) / 60) - 1) + 1))
        const newMax = max === null ? null : String(60 * Math.floor(Number(max) / 60))
        if (newMin !== null && newMax !== null && Number(newMin) > Number(newMax))
          return matchingNothing(request)
        return withQuery(request, (q) => {
          if (newMin !== null) q.set('min_duration_seconds', newMin)
          if (newMax !== null) q.set('max_duration_seconds', newMax)
        })
      },
    }),
  },
  {
    name: 'started-bounds-rounded-to-whole-seconds',
    kind: 'call-logs',
    what:
      '`started_after` and `started_before` are bound to the query as `timestamp(0)`, which rounds a fraction of a second to the nearest whole second: `started_after=...T12:00:04.6Z` becomes 12:00:05 and leaves out a call that started at 12:00:05, `started_before=...T12:00:05.4Z` becomes 12:00:05 and leaves out one that started at 12:00:05 (what clients that send `toISOString()` bounds, with milliseconds, get). ' +
      'Contract, Conventions, Timestamps: "Timestamps *sent* in query parameters may carry any RFC 3339 offset and a fraction of a second (`T`/`Z` in either case); they are compared as the instants they name"; parameter started_after: "Only calls with `started_at` strictly after this instant (RFC 3339)".',
    make: () => ({
      request(request) {
        if (listOf(request) !== 'call-logs') return request
        const query = queryOf(request)
        const rounded: Record<string, string> = {}
        for (const name of ['started_after', 'started_before']) {
          const value = query.get(name)
          const ms = instantOf(value)
          if (value === null || ms === undefined || !/:\d{2}\.\d+/.test(value)) continue
          rounded[name] = iso(Math.round(ms / 1000) * 1000)
        }
        if (Object.keys(rounded).length === 0) return request
        const after = instantOf(rounded.started_after ?? query.get('started_after'))
        const before = instantOf(rounded.started_before ?? query.get('started_before'))
        const sentAfter = instantOf(query.get('started_after'))
        const sentBefore = instantOf(query.get('started_before'))
        if (after !== undefined && before !== undefined && after >= before) {
          if (sentAfter !== undefined && sentBefore !== undefined && sentAfter < sentBefore)
            return matchingNothing(request)
          return request
        }
        return withQuery(request, (q) => {
          for (const [name, value] of Object.entries(rounded)) q.set(name, value)
        })
      },
    }),
  },
  {
    name: 'long-started-window-refused',
    kind: 'call-logs',
    what:
      'GET /call-logs validates `started_after` / `started_before` with the range helper written for analytics, which refuses a window longer than 31 days: asking for the calls of a quarter (or any window over 31 days) is 400 invalid_parameter naming `started_before`. ' +
      'Contract, listCallLogs: "A filter value of the wrong shape, or `min_duration_seconds` > `max_duration_seconds`, or `started_after` >= `started_before`, is 400 `invalid_parameter`" (no length of window is refused); parameters started_after / started_before: "Only calls with `started_at` strictly after / before this instant".',
    make: () => ({
      response(response, request) {
        if (listOf(request) !== 'call-logs' || response.status !== 200) return response
        const after = instantOf(queryOf(request).get('started_after'))
        const before = instantOf(queryOf(request).get('started_before'))
        if (after === undefined || before === undefined || before - after <= 31 * DAY_MS) return response
        return invalidParameter(
          response,
          'started_before',
          'started_after and started_before may be at most 31 days apart.',
        )
      },
    }),
  },

  // ------------------------------------------------------------------------------------------ idempotency
  {
    name: 'idempotency-keys-hash-collide',
    kind: 'idempotency',
    what:
      "Stored answers are looked up by the 32-bit hash of the Idempotency-Key (Java's `String.hashCode`, the key of an in-memory map) without comparing the keys: among many keys two different ones can hash alike (`batch-Aa-1` and `batch-BB-1` do), and the second is taken for the first: its POST gets the first one's answer replayed (same body) or 409 idempotency_key_reused (another body) instead of being carried out. " +
      'Contract, Idempotency: "a retry with the same key, same path and the same body ... returns the stored status, headers and body ... The same key with another body or another path is 409 `idempotency_key_reused`" (only the same key); IdempotencyKey: "1-255 printable ASCII characters (a UUID v4 is recommended)".',
    make: () => {
      const t = new Tracker()
      const hashCode = (text: string) => {
        let hash = 0
        for (let i = 0; i < text.length; i++) hash = (Math.imul(31, hash) + text.charCodeAt(i)) | 0
        return hash
      }
      /** Per account and key hash: the first key stored under it, and when. */
      const stored = t.map<string, { key: string; at: number }>()
      const sentKeys = new Map<EngineRequest, string>()
      return {
        request(request) {
          const key = request.headers['idempotency-key']
          if (request.method !== 'POST' || !isV1(request) || key === undefined) return request
          const slot = `${t.account(tokenOf(request))} ${hashCode(key)}`
          const first = stored.get(slot)
          const fresh = first && (t.now === undefined || t.now - first.at < IDEMPOTENCY_SECONDS)
          const sent =
            first && fresh && first.key !== key
              ? { ...request, headers: { ...request.headers, 'idempotency-key': first.key } }
              : { ...request }
          sentKeys.set(sent, key)
          return sent
        },
        response(response, request) {
          const key = sentKeys.get(request)
          sentKeys.delete(request)
          t.observe(request, response)
          if (key === undefined || !ok(response) || response.headers['idempotent-replayed'] !== undefined)
            return response
          const slot = `${t.account(tokenOf(request))} ${hashCode(key)}`
          const first = stored.get(slot)
          const now = t.now ?? 0
          if (!first || now - first.at >= IDEMPOTENCY_SECONDS) stored.set(slot, { key, at: now })
          return response
        },
      }
    },
  },
  {
    name: 'idempotency-fingerprint-sorts-arrays',
    kind: 'idempotency',
    what:
      'The request fingerprint is made with a "normalising" serializer that sorts object keys and array items alike: a retry with the same Idempotency-Key whose body differs only in the order of an array (`webhook_events: ["call.ended", "call.started"]` after `["call.started", "call.ended"]`) gets the first answer replayed instead of 409 idempotency_key_reused, and the order it asked for is lost. ' +
      'Contract, Idempotency: "a retry with the same key, same path and the same body (compared as JSON values, so whitespace and key order do not matter) returns the stored status, headers and body ... The same key with another body or another path is 409 `idempotency_key_reused`" (array order is part of a JSON value).',
    make: () => sameAfter(sortedCanonical),
  },
  {
    name: 'idempotency-fingerprint-applies-defaults',
    kind: 'idempotency',
    what:
      'The request fingerprint is taken from the validated body, with the create schema\'s defaults filled in: a retry with the same Idempotency-Key whose body adds fields set to their defaults (`status: "active"`, `recording_enabled: false`, `llm.temperature: 0.7`, an invitation\'s `role: "viewer"`), or leaves such fields out, gets the first answer replayed instead of 409 idempotency_key_reused. ' +
      'Contract, Idempotency: "a retry with the same key, same path and the same body (compared as JSON values, so whitespace and key order do not matter) returns the stored status, headers and body ... The same key with another body or another path is 409 `idempotency_key_reused`"; createAgent: "the same key with another body is 409 `idempotency_key_reused`".',
    make: () => sameAfter(withoutDefaults),
  },
  {
    name: 'replay-exempt-from-rate-limit',
    kind: 'idempotency',
    what:
      'The rate limiter lets retries through ("a client retrying after a lost answer must get it"): a POST whose Idempotency-Key and body match a stored answer gets that answer replayed even when the account\'s quota is used up, instead of 429 (it is counted, but never refused). ' +
      'Contract, Idempotency: a retry "returns the stored status, headers and body, plus `Idempotent-Replayed: true` ... (it still counts against rate limits and is still authenticated and permission checked)"; Order of checks: "2. **429** rate limit (per account)"; docs/decisions/006: "a request is admitted only when both have room".',
    make: () => {
      const t = new Tracker()
      const stored = t.map<string, { answer: EngineResponse; at: number }>()
      const slotOf = (request: EngineRequest) => {
        const key = request.headers['idempotency-key']
        const body = jsonOf(request)
        if (request.method !== 'POST' || !isV1(request) || key === undefined || body === undefined)
          return undefined
        return `${t.account(tokenOf(request))} ${key} ${pathOf(request).replace(/\/$/, '')} ${canonical(body)}`
      }
      return {
        response(response, request) {
          t.observe(request, response)
          const slot = slotOf(request)
          if (slot === undefined) return response
          const now = t.now ?? 0
          const kept = stored.get(slot)
          if (ok(response) && response.headers['idempotent-replayed'] === undefined)
            stored.set(slot, { answer: structuredClone(response), at: now })
          if (response.status !== 429 || !kept || now - kept.at >= IDEMPOTENCY_SECONDS) return response
          const headers: Record<string, string> = {}
          for (const [name, value] of Object.entries(kept.answer.headers))
            if (!name.startsWith('ratelimit') && !name.startsWith('x-ratelimit') && name !== 'request-id')
              headers[name] = value
          for (const [name, value] of Object.entries(response.headers))
            if (name.startsWith('ratelimit') || name.startsWith('x-ratelimit') || name === 'request-id')
              headers[name] = value
          headers['idempotent-replayed'] = 'true'
          return { status: kept.answer.status, headers, body: structuredClone(kept.answer.body) }
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ rate limits
  {
    name: 'hourly-headers-from-clock-hour',
    kind: 'rate-limits',
    what:
      "The hourly window is enforced as a sliding window, but its header fields are read from the usage counter kept per clock hour for billing (`usage:<account>:<yyyymmddhh>`): after the top of an hour, `RateLimit`'s hourly `r` counts only the requests made since :00 and its `t` the seconds to the next full hour (and so X-RateLimit-* when hourly is the tighter window), while the requests of the last 60 minutes still count and lead to a 429 the headers did not announce. " +
      'Contract, RateLimit header: "`r` is what remains in the window after this request; `t` is the whole seconds (rounded up) until the oldest request counted in that window leaves it"; docs/decisions/006: "Two sliding windows ... `hourly` (3,600 s)".',
    make: () => {
      const t = new Tracker()
      /** Seconds of the admitted requests of each account, as answers showed them. */
      const admitted = t.map<string, number[]>()
      return {
        response(response, request) {
          t.observe(request, response)
          const windows = windowsOf(response.headers)
          const now = nowOf(response.headers)
          if (!isV1(request) || !windows || now === undefined) return response
          const account = t.account(tokenOf(request))
          const seconds = (admitted.get(account) ?? []).filter((s) => s > now - 3600)
          const hourStart = now - (now % 3600)
          const hourly = windows.find((window) => window.w === 3600)
          if (hourly) {
            const earlier = seconds.filter((s) => s < hourStart).length
            const used = Math.max(0, hourly.q - Math.max(0, hourly.r) - earlier)
            hourly.r = Math.max(0, hourly.q - used)
            hourly.t = hourStart + 3600 - now
            writeWindows(response.headers, windows, now)
          }
          if (response.status !== 429) seconds.push(now)
          admitted.set(account, seconds)
          return response
        },
      }
    },
  },
  {
    name: 'both-exhausted-policy-names-burst',
    kind: 'rate-limits',
    what:
      'The limiter checks the burst window first and names the first exhausted window it meets in the 429: when both windows are exhausted at once (an account at its hourly quota that also sent a burst), `error.policy` says `burst` while `retry_after` and Retry-After give the hourly wait, so a client that reads the policy waits a minute and is refused again. ' +
      'Contract, TooManyRequests: "`error.policy` names the exhausted window that decides the wait (the one with the largest `t`; `hourly` on a tie), `error.retry_after` equals the `Retry-After` header: the largest `t` of the exhausted windows"; docs/decisions/006: "`error.policy` (`hourly` | `burst`)".',
    make: () => ({
      response(response, request) {
        if (!isV1(request) || response.status !== 429 || !isObject(response.body)) return response
        const error = response.body.error
        const burst = windowsOf(response.headers)?.find((window) => window.w === 60)
        if (!isObject(error) || error.policy !== 'hourly' || burst?.r !== 0) return response
        error.policy = 'burst'
        error.message = `Rate limit exceeded for the burst window; retry after ${String(error.retry_after)} seconds.`
        return response
      },
    }),
  },
  {
    name: 'exhausted-remaining-minus-one',
    kind: 'rate-limits',
    what:
      "The limiter counts a request before checking it (INCR, compare, then DECR when refused) and the 429's headers are written from the counter in between: on a 429 the exhausted window shows `r=-1` in RateLimit, and X-RateLimit-Remaining is -1. " +
      'Contract, TooManyRequests: "The rate-limit headers show `r=0` for the exhausted window. A 429 is not counted against the limits"; RateLimit header pattern `r=[0-9]+`; X-RateLimit-Remaining: `{type: integer, minimum: 0}`; docs/decisions/006: "`r` is what remains after this request".',
    make: () => ({
      response(response, request) {
        if (!isV1(request) || response.status !== 429) return response
        const windows = windowsOf(response.headers)
        const now = nowOf(response.headers)
        if (!windows || now === undefined) return response
        for (const window of windows) if (window.r === 0) window.r = -1
        writeWindows(response.headers, windows, now)
        return response
      },
    }),
  },
  {
    name: 'revoked-key-requests-counted',
    kind: 'rate-limits',
    what:
      "The rate limiter runs on the key's account as soon as the key is found, before its status is checked: requests made with a revoked key (an old deployment still running after a rotation) are counted against the account's windows before they get their 401, and once the budget is spent they get 429 instead, so the new key meets 429s the account never earned. " +
      'Contract, Rate limits: "Every admitted request counts in both windows, whatever its status; 401s and 429s do not count"; Order of checks: "1. **401** authentication (missing, malformed, unknown, revoked or expired key). Not counted against rate limits."; docs/decisions/006: "a 429 and a 401 count in neither".',
    make: () => {
      const t = new Tracker()
      const revokedSends = new Map<EngineRequest, string>()
      return {
        request(request) {
          const token = tokenOf(request)
          if (!isV1(request) || request.method === 'OPTIONS' || !t.isRevoked(token)) return request
          const substitute = t.activeKeyOf(t.account(token))
          if (substitute === undefined) return request
          const read = neutralRead(request, '/v1/user')
          read.headers = { ...read.headers, authorization: `Bearer ${substitute}` }
          revokedSends.set(read, token as string)
          return read
        },
        response(response, request) {
          const token = revokedSends.get(request)
          revokedSends.delete(request)
          t.observe(request, response)
          if (token === undefined || response.status === 429) return response
          const requestId = response.headers['request-id']
          return {
            status: 401,
            headers: {
              'content-type': 'application/json; charset=utf-8',
              'www-authenticate': 'Bearer realm="api", error="invalid_token"',
              ...(requestId ? { 'request-id': requestId } : {}),
            },
            body: {
              error: {
                type: 'authentication_error',
                code: 'invalid_api_key',
                message: `This API key (${token.slice(0, 7)}...${token.slice(-4)}) has been revoked. Create a new key in the dashboard.`,
              },
            },
          }
        },
      }
    },
  },
]

// ------------------------------------------------------------------------------------ idempotency fingerprints

/** A JSON value written with sorted keys and sorted array items. */
function sortedCanonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedCanonical).sort().join(',')}]`
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${sortedCanonical(value[key])}`)
      .join(',')}}`
  return JSON.stringify(value) ?? 'undefined'
}

const AGENT_DEFAULTS: Json = {
  description: null,
  status: 'active',
  language: 'en-US',
  system_prompt: '',
  first_message: null,
  first_speaker: 'agent',
  max_call_duration_seconds: 1800,
  recording_enabled: false,
  webhook_url: null,
  webhook_events: [],
  metadata: {},
}
const NESTED_DEFAULTS: Record<string, Json> = {
  voice: { speed: 1 },
  llm: { temperature: 0.7, max_tokens: 1024 },
}

/** A create body with every field that holds its default left out (what the validated, defaulted body hides). */
function withoutDefaults(value: unknown, path: string): string {
  if (!isObject(value)) return canonical(value)
  const body: Json = structuredClone(value)
  const drop = (object: Json, defaults: Json) => {
    for (const [field, fallback] of Object.entries(defaults))
      if (field in object && canonical(object[field]) === canonical(fallback)) delete object[field]
  }
  if (/^\/v1\/agents\/?$/.test(path)) {
    drop(body, AGENT_DEFAULTS)
    for (const [field, defaults] of Object.entries(NESTED_DEFAULTS))
      if (isObject(body[field])) drop(body[field] as Json, defaults)
  }
  if (/^\/v1\/team-members\/?$/.test(path)) drop(body, { role: 'viewer' })
  return canonical(body)
}

/**
 * A store whose fingerprint is `fingerprint(body)`: a retry with a stored key and a body that differs from the stored
 * one but has the same fingerprint is sent as the stored body (so the engine replays it).
 */
function sameAfter(fingerprint: (body: unknown, path: string) => string): Fault {
  const t = new Tracker()
  const stored = t.map<string, { path: string; raw: string; exact: string; print: string; at: number }>()
  const slotOf = (request: EngineRequest) => {
    const key = request.headers['idempotency-key']
    if (request.method !== 'POST' || !isV1(request) || key === undefined) return undefined
    return `${t.account(tokenOf(request))} ${key}`
  }
  return {
    request(request) {
      const slot = slotOf(request)
      const first = slot === undefined ? undefined : stored.get(slot)
      const body = jsonOf(request)
      if (!first || body === undefined || first.path !== pathOf(request)) return request
      if (t.now !== undefined && t.now - first.at >= IDEMPOTENCY_SECONDS) return request
      if (canonical(body) === first.exact || fingerprint(body, pathOf(request)) !== first.print)
        return request
      return { ...request, body: first.raw }
    },
    response(response, request) {
      t.observe(request, response)
      const slot = slotOf(request)
      const body = jsonOf(request)
      if (slot === undefined || body === undefined || request.body === null || !ok(response)) return response
      if (response.headers['idempotent-replayed'] !== undefined) return response
      const now = t.now ?? 0
      const first = stored.get(slot)
      if (!first || now - first.at >= IDEMPOTENCY_SECONDS)
        stored.set(slot, {
          path: pathOf(request),
          raw: request.body,
          exact: canonical(body),
          print: fingerprint(body, pathOf(request)),
          at: now,
        })
      return response
    },
  }
}
