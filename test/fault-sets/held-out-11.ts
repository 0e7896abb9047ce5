/**
 * Held-out fault set 11: thirty faults an implementer of the platform's v1 API could plausibly ship, written blind to
 * the contract suite: neither its checks, nor its exploration, nor its tests, nor its documentation, nor the
 * held-out-3 list were read, and the suite was never run. held-out-4 to held-out-9 were read for their format only,
 * and so as not to repeat their faults (every fault here breaks a sentence none of them broke, or the same rule on
 * another operation or in another situation). The sources were the platform's spec, the product decisions (the
 * repository's own record of them is `docs/decisions/`), the contract (`openapi/v1.yaml`, `openapi/mock-control.yaml`)
 * and the mock engine (the correct implementation every fault wraps). Each fault wraps the correct engine
 * (`faultyHandler`): it rewrites a request before the engine sees it (a header the faulty parser would have
 * assumed, a date it would have rolled over, a harmless read in place of a write it would have refused), or rewrites
 * or replaces the engine's answer, keeping what it needs to remember in the closure `make()` returns (keys, accounts,
 * agents and calls seen through the control plane and the answers, integrations and team members as last seen).
 *
 * The theme is "sentence by sentence": the contract was read operation by operation, field by field (its
 * conventions, its error table, every schema field's description) together with the decisions, and thirty sentences
 * no earlier set broke were picked, each broken the way an implementer who skimmed or misread it would: call-log
 * fields (end reasons, numbers by direction, recording, transcript, analysis, the agent filter), analytics metrics
 * (rounding of group averages, sentiment counts, group values, `groups` without calls, bucket bounds, impossible
 * dates), integrations (write-only credentials, `connected_at` on disconnect, `enabled` in any status, the credential
 * hint), team members (invitation names, an unchanged role, the owner, withdrawing an invitation), the user object
 * and key messages, and headers and errors on particular statuses (Request-Id of a preflight, `Allow`, 415 without a
 * Content-Type, 413 before 415, `param` of 404 and 422, `Idempotent-Replayed`, `Location`). Every fault deviates from
 * the platform's spec, the contract or a decision (cited in `what`), in specific situations only (ordinary traffic,
 * the first reads of every endpoint and a create and a read, is unchanged), and never where the spec leaves a choice
 * open (docs/decisions/011-allowed-forms.md). Liveness: `scripts/fault-sets/held-out-11-live.ts`.
 */
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'
import {
  ALL_SCOPES,
  isObject,
  isRead,
  isV1,
  itemOf,
  type Json,
  jsonOf,
  neutralRead,
  ok,
  pathOf,
  queryOf,
  tokenOf,
  urlOf,
} from './request-parts.ts'

export interface HeldOutFault {
  name: string
  kind: 'call-logs' | 'analytics' | 'integration' | 'members' | 'keys' | 'headers' | 'errors'
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

/** An error answer in the platform's envelope, built on the engine's answer (its Request-Id, rate-limit headers). */
function errorAnswer(base: EngineResponse, status: number, error: Json): EngineResponse {
  const requestId = base.headers['request-id']
  return {
    status,
    headers: { ...ownHeaders(base), 'content-type': 'application/json; charset=utf-8' },
    body: { error: { ...error, ...(requestId ? { request_id: requestId } : {}) } },
  }
}

/** A 422 with one field error, as the platform words it. */
function validationAnswer(base: EngineResponse, param: string, code: string, message: string) {
  return errorAnswer(base, 422, {
    type: 'validation_error',
    code: 'validation_failed',
    message: `Invalid request body: ${message}`,
    param,
    errors: [{ param, code, message }],
  })
}

/** Whether a Content-Type names JSON as the engine takes it (`application/json`, `+json` types, parameters). */
function namesJson(contentType: string | undefined): boolean {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? ''
  return type === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(type)
}

const MAX_BODY_BYTES = 1024 * 1024

// ---------------------------------------------------------------------------------------- what a fault learns

interface KeyInfo {
  account: string
  type: string
  permissions: string[]
}

/** A simulated call as the control plane started it. */
interface LiveCall {
  account: string
  agent: string
  direction: string
}

/**
 * What the faults of this set watch: the accounts and keys made through the control plane (the 201 of a key shows
 * its value once: its account, type and scopes), the calls started there, and the agents seen in v1 answers (their
 * name and whether they record). `POST /_mock/reset`, which starts the platform again, empties everything kept,
 * the maps and sets a fault asks for included.
 */
class Tracker {
  private readonly keys = new Map<string, KeyInfo>()
  /** Accounts created through the control plane: they start with every integration `not_connected`. */
  private readonly fresh = new Set<string>()
  readonly calls = new Map<string, LiveCall>()
  readonly agents = new Map<string, { name: string; recording: boolean }>()
  private readonly kept: { clear(): void }[] = [this.keys, this.fresh, this.calls, this.agents]

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
    const path = pathOf(request)
    const body = isObject(response.body) ? response.body : undefined
    if (path === '/_mock/reset' && ok(response)) {
      for (const kept of this.kept) kept.clear()
      return
    }
    if (request.method === 'POST' && path === '/_mock/accounts' && response.status === 201 && body) {
      this.fresh.add(String(body.id))
      return
    }
    if (/^\/_mock\/accounts\/[^/]+\/keys$/.test(path) && response.status === 201 && body) {
      if (typeof body.value !== 'string') return
      this.keys.set(body.value, {
        account: String(body.account_id),
        type: String(body.type),
        permissions: Array.isArray(body.permissions) ? (body.permissions as string[]) : ALL_SCOPES,
      })
      return
    }
    const started = /^\/_mock\/accounts\/([^/]+)\/calls$/.exec(path)
    if (started && request.method === 'POST' && response.status === 201 && body) {
      if (typeof body.id === 'string')
        this.calls.set(body.id, {
          account: started[1] as string,
          agent: String(body.agent_id),
          direction: String(body.direction),
        })
      return
    }
    if (isV1(request) && ok(response))
      for (const object of objectsOf(response))
        if (object.object === 'agent' && typeof object.id === 'string' && typeof object.name === 'string')
          this.agents.set(object.id, { name: object.name, recording: object.recording_enabled === true })
  }

  /** The account of a key made through the control plane; any other token counts as an account of its own. */
  account(token: string | undefined): string {
    const info = token ? this.keys.get(token) : undefined
    return info?.account ?? `token:${token ?? ''}`
  }

  /** Whether the account was created through the control plane (and so started with a fresh catalogue). */
  isFresh(account: string): boolean {
    return this.fresh.has(account)
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
}

/** The call logs of a v1 answer (a list's items or the object). */
const callLogsOf = (response: EngineResponse) => objectsOf(response).filter((o) => o.object === 'call_log')

/** The integrations of a v1 answer, with their account's key (`<account> <slug>`). */
function integrationsOf(t: Tracker, request: EngineRequest, response: EngineResponse) {
  const account = t.account(tokenOf(request))
  return objectsOf(response)
    .filter((o) => o.object === 'integration' && typeof o.id === 'string')
    .map((integration) => ({ key: `${account} ${String(integration.id)}`, integration }))
}

/** The team members of a v1 answer (a list's items or the object). */
const membersOf = (response: EngineResponse) =>
  objectsOf(response).filter((o) => o.object === 'team_member' && typeof o.id === 'string')

// ---------------------------------------------------------------------------------------- analytics parts

const ANALYTICS = '/v1/analytics/calls'

/** Every metrics object of an analytics answer: the totals, each bucket, each group's totals and buckets. */
function metricsOf(body: Json, groupsOnly = false): Json[] {
  const found: Json[] = []
  const buckets = (series: unknown) => {
    if (Array.isArray(series))
      for (const bucket of series)
        if (isObject(bucket) && isObject(bucket.metrics)) found.push(bucket.metrics)
  }
  if (!groupsOnly) {
    if (isObject(body.totals)) found.push(body.totals)
    buckets(body.series)
  }
  if (Array.isArray(body.groups))
    for (const group of body.groups) {
      if (!isObject(group)) continue
      if (isObject(group.totals)) found.push(group.totals)
      buckets(group.series)
    }
  return found
}

/** Every bucket of an analytics answer, the groups' buckets included. */
function bucketsOf(body: Json): Json[] {
  const found: Json[] = []
  const take = (series: unknown) => {
    if (Array.isArray(series)) for (const bucket of series) if (isObject(bucket)) found.push(bucket)
  }
  take(body.series)
  if (Array.isArray(body.groups)) for (const group of body.groups) if (isObject(group)) take(group.series)
  return found
}

/** The offset of `timezone` at `ms`, in minutes east of UTC (undefined for an unknown zone). */
function offsetMinutes(timezone: string, ms: number): number | undefined {
  try {
    const name =
      new Intl.DateTimeFormat('en-US', { timeZone: timezone, timeZoneName: 'longOffset' })
        .formatToParts(ms)
        .find((part) => part.type === 'timeZoneName')?.value ?? ''
    const match = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name)
    if (!match) return undefined
    if (!match[1]) return 0
    return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]))
  } catch {
    return undefined
  }
}

/** An instant written as local wall-clock time in `timezone`, with its offset (`2026-03-09T00:00:00+01:00`). */
function localWithOffset(text: unknown, timezone: string): unknown {
  if (typeof text !== 'string') return text
  const ms = Date.parse(text)
  const offset = Number.isFinite(ms) ? offsetMinutes(timezone, ms) : undefined
  if (offset === undefined) return text
  const local = new Date(ms + offset * 60_000).toISOString().slice(0, 19)
  const sign = offset < 0 ? '-' : '+'
  const abs = Math.abs(offset)
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
}

/** A query timestamp whose day lies past its month's end, rolled over as `Date.UTC` rolls it; else undefined. */
function rolledOver(value: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})([Tt].*)$/.exec(value)
  if (!match) return undefined
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined
  const date = new Date(Date.UTC(year, month - 1, day))
  if (date.getUTCDate() === day) return undefined
  return `${date.toISOString().slice(0, 10)}${match[4]}`
}

// ------------------------------------------------------------------------------------------------- faults

const NEVER_CONNECTED = ['no_answer', 'busy', 'canceled']

export const faults: HeldOutFault[] = [
  // ------------------------------------------------------------------------------------------- call logs
  {
    name: 'unanswered-call-end-reason-error',
    kind: 'call-logs',
    what:
      'GET /call-logs/{id} (the detail serializer, which maps the telephony provider\'s hangup cause) gives a call that never connected (`no_answer`, `busy`, `canceled`) `end_reason: "error"`, the cause the provider reports for a call that did not go through, instead of `null`; lists are right. ' +
      'Contract, CallEndReason: "Why a call that connected ended (`error` also for `failed` calls). `null` while the call has not ended, and for calls that never connected (`no_answer`, `busy`, `canceled`)"; CallLogSummary: "except `end_reason`, which stays `null` for `no_answer`, `busy` and `canceled`".',
    make: () => ({
      response(response, request) {
        if (!isRead(request) || itemOf(request)?.collection !== 'call-logs' || response.status !== 200)
          return response
        const log = response.body
        if (isObject(log) && NEVER_CONNECTED.includes(String(log.status)) && log.end_reason === null)
          log.end_reason = 'error'
        return response
      },
    }),
  },
  {
    name: 'outbound-call-numbers-swapped',
    kind: 'call-logs',
    what:
      "Live calls (placed through the telephony path, not imported history) are stored as (customer number, agent line) whatever their direction: for an outbound call `from_number` holds the customer who was called and `to_number` the agent's line, in lists and by ID. " +
      'Contract, CallLogSummary / CallLog: from_number "Caller\'s number in E.164; `null` for web calls"; to_number "Called number in E.164; `null` for web calls" (an outbound call is placed from the agent\'s line to the customer).',
    make: () => {
      const t = new Tracker()
      return {
        response(response, request) {
          t.observe(request, response)
          if (!isV1(request) || !isRead(request) || response.status !== 200) return response
          for (const log of callLogsOf(response)) {
            const live = t.calls.get(String(log.id))
            if (live?.direction !== 'outbound' || log.from_number === null || log.to_number === null) continue
            const from = log.from_number
            log.from_number = log.to_number
            log.to_number = from
          }
          return response
        },
      }
    },
  },
  {
    name: 'recording-url-before-call-ends',
    kind: 'call-logs',
    what:
      'The recording URL is allocated when recording starts, at the connection: a live call of an agent with `recording_enabled` shows its `recording_url` while it is still `in_progress`, in lists and by ID. ' +
      'Contract, CallLogSummary.recording_url: "Recording of the call; `null` when recording was disabled or the call has not ended".',
    make: () => {
      const t = new Tracker()
      return {
        response(response, request) {
          t.observe(request, response)
          if (!isV1(request) || !isRead(request) || response.status !== 200) return response
          for (const log of callLogsOf(response)) {
            const live = t.calls.get(String(log.id))
            if (!live || log.status !== 'in_progress' || log.recording_url !== null) continue
            if (t.agents.get(live.agent)?.recording)
              log.recording_url = `https://recordings.example.com/v1/${String(log.id)}.mp3`
          }
          return response
        },
      }
    },
  },
  {
    name: 'empty-transcript-as-null',
    kind: 'call-logs',
    what:
      'GET /call-logs/{id} writes the transcript column as stored, NULL until the first utterance: a call in which nothing was said (yet), queued, ringing or never answered, has `transcript: null` instead of `[]`. ' +
      'Contract, CallLog.transcript: "Utterances in order; `[]` when nothing was said (yet)" (an array, required, not nullable); Conventions, Nullability: "A field that is listed as `required` is always present; a nullable field is present with `null`" (and only a nullable one).',
    make: () => ({
      response(response, request) {
        if (!isRead(request) || itemOf(request)?.collection !== 'call-logs' || response.status !== 200)
          return response
        const log = response.body
        if (isObject(log) && Array.isArray(log.transcript) && log.transcript.length === 0)
          log.transcript = null
        return response
      },
    }),
  },
  {
    name: 'failed-call-analysed',
    kind: 'call-logs',
    what:
      'The detail view of a call log joins the analysis table, which the post-call job fills for every call that ended on the line, failed ones included: GET /call-logs/{id} of a `failed` call shows an `analysis` (negative, not successful) instead of `null`. ' +
      'Contract, CallAnalysis: "Post-call analysis, produced for completed calls only"; CallLogSummary.analysis: "`null` until analysed and for calls that did not complete"; webhook call.analyzed: "Sent when the post-call analysis of a completed call is ready".',
    make: () => ({
      response(response, request) {
        if (!isRead(request) || itemOf(request)?.collection !== 'call-logs' || response.status !== 200)
          return response
        const log = response.body
        if (isObject(log) && log.status === 'failed' && log.analysis === null && log.ended_at !== null)
          log.analysis = {
            summary: 'The call failed before the caller could be helped.',
            sentiment: 'negative',
            successful: false,
          }
        return response
      },
    }),
  },
  {
    name: 'deleted-agent-filter-refused',
    kind: 'call-logs',
    what:
      "The `agent_id` filter of GET /call-logs is validated against the account's agents: the ID of an agent that was deleted (whose call logs are kept) is 400 invalid_parameter (`param: agent_id`) instead of listing its call logs. " +
      'Contract, listCallLogs: "`agent_id` matches call logs of deleted agents too; an `agent_id` that has the right shape but no call logs simply yields an empty list"; deleteAgent: "The agent\'s call logs are **kept** (they keep its `agent_id` and still appear in lists and analytics)".',
    make: () => {
      const t = new Tracker()
      const deleted = t.set<string>()
      return {
        response(response, request) {
          t.observe(request, response)
          const item = itemOf(request)
          if (request.method === 'DELETE' && item?.collection === 'agents' && response.status === 200)
            deleted.add(item.id)
          if (request.method !== 'GET' || pathOf(request) !== '/v1/call-logs' || response.status !== 200)
            return response
          const agent = queryOf(request).get('agent_id')
          if (agent === null || !deleted.has(agent)) return response
          return errorAnswer(response, 400, {
            type: 'invalid_request_error',
            code: 'invalid_parameter',
            message: `agent_id: no agent with id '${agent}' in this account.`,
            param: 'agent_id',
          })
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------- analytics
  {
    name: 'group-average-integer-division',
    kind: 'analytics',
    what:
      "The grouped query divides integer columns (`SUM(duration_seconds) / COUNT(*)`, integer division in SQL): each group's avg_duration_seconds, in its totals and in its series, is truncated to a whole second (14.5 becomes 14), while the top-level averages are right. " +
      'Contract, getCallAnalytics, Metrics: "`avg_duration_seconds` = `total_duration_seconds / completed_count` (rounded to 2 decimals)"; AnalyticsMetrics.avg_duration_seconds: "`total_duration_seconds / completed_count`, 2 decimals".',
    make: () => ({
      response(response, request) {
        if (pathOf(request) !== ANALYTICS || response.status !== 200 || !isObject(response.body))
          return response
        for (const metrics of metricsOf(response.body, true)) {
          const completed = Number(metrics.completed_count)
          if (completed > 0 && typeof metrics.avg_duration_seconds === 'number')
            metrics.avg_duration_seconds = Math.floor(Number(metrics.total_duration_seconds) / completed)
        }
        return response
      },
    }),
  },
  {
    name: 'unanalysed-calls-counted-neutral',
    kind: 'analytics',
    what:
      "A completed call whose analysis is not ready yet is counted under `sentiment.neutral` (the sentiment column defaults to neutral): in the two minutes between a call's end and its analysis, the sentiment counts add up to more than `analyzed_count`. " +
      'Contract, getCallAnalytics, Metrics: "`sentiment` counts `analysis.sentiment` values (they add up to `analyzed_count`)"; SentimentCounts: "Number of analysed calls per sentiment; the three add up to `analyzed_count`".',
    make: () => ({
      response(response, request) {
        if (pathOf(request) !== ANALYTICS || response.status !== 200 || !isObject(response.body))
          return response
        for (const metrics of metricsOf(response.body)) {
          const waiting = Number(metrics.completed_count) - Number(metrics.analyzed_count)
          if (waiting > 0 && isObject(metrics.sentiment))
            metrics.sentiment.neutral = Number(metrics.sentiment.neutral) + waiting
        }
        return response
      },
    }),
  },
  {
    name: 'agent-groups-labelled-by-name',
    kind: 'analytics',
    what:
      "With `group_by=agent_id`, each group's `value` is the agent's name (what the dashboard shows) instead of its ID. " +
      'Contract, AnalyticsGroup.value: "The group\'s value (an agent ID, a channel or a direction)"; getCallAnalytics, Grouping: "one entry per distinct value that has at least one call in the range"; docs/decisions/001: identifiers carry a type prefix (`agt_`).',
    make: () => {
      const t = new Tracker()
      return {
        response(response, request) {
          t.observe(request, response)
          if (pathOf(request) !== ANALYTICS || response.status !== 200 || !isObject(response.body))
            return response
          if (response.body.group_by !== 'agent_id' || !Array.isArray(response.body.groups)) return response
          for (const group of response.body.groups) {
            if (!isObject(group)) continue
            const agent = t.agents.get(String(group.value))
            if (agent) group.value = agent.name
          }
          return response
        },
      }
    },
  },
  {
    name: 'no-calls-groups-null',
    kind: 'analytics',
    what:
      'Groups are built with a JSON aggregate that yields NULL over no rows (`json_agg` in Postgres): with `group_by` and a range without calls, `groups` is `null` instead of an empty array. ' +
      'Contract, CallAnalytics: "`groups` is an array exactly when `group_by` is not `null`, and `null` otherwise"; groups: "One entry per group when `group_by` is set; `null` when `group_by` is `null`".',
    make: () => ({
      response(response, request) {
        if (pathOf(request) !== ANALYTICS || response.status !== 200 || !isObject(response.body))
          return response
        if (
          response.body.group_by !== null &&
          Array.isArray(response.body.groups) &&
          !response.body.groups.length
        )
          response.body.groups = null
        return response
      },
    }),
  },
  {
    name: 'local-bucket-bounds-with-offset',
    kind: 'analytics',
    what:
      "With a `timezone` other than UTC, the bounds of the buckets (of the series and of every group's series) are written as local wall-clock times with their offset (`2026-03-09T00:00:00+01:00`) instead of UTC instants with `Z`. " +
      'Contract, getCallAnalytics, Buckets: "Bucket bounds are returned as UTC instants (`Z`)"; Conventions, Timestamps: "ISO 8601 / RFC 3339 in UTC with a `Z` suffix"; docs/decisions/011 leaves open only fractional seconds, not the offset.',
    make: () => ({
      response(response, request) {
        if (pathOf(request) !== ANALYTICS || response.status !== 200 || !isObject(response.body))
          return response
        const timezone = response.body.timezone
        if (typeof timezone !== 'string' || timezone === 'UTC') return response
        for (const bucket of bucketsOf(response.body)) {
          bucket.start = localWithOffset(bucket.start, timezone)
          bucket.end = localWithOffset(bucket.end, timezone)
        }
        return response
      },
    }),
  },
  {
    name: 'impossible-date-rolled-over',
    kind: 'analytics',
    what:
      'Query timestamps are read with a lenient date constructor that rolls an impossible day over into the next month: `start=2026-02-30T00:00:00Z` is taken as 2 March (`started_before=2026-04-31T...` as 1 May) instead of being refused. ' +
      'Contract, Conventions, Timestamps: "A timestamp that names no instant is 400 `invalid_parameter` naming the parameter: an impossible date or time, ..."; BadRequest: "`invalid_parameter`: a query or header parameter is ... of the wrong type or out of range".',
    make: () => ({
      request(request) {
        if (!isV1(request) || request.method !== 'GET') return request
        const url = urlOf(request)
        let changed = false
        for (const name of ['start', 'end', 'started_after', 'started_before']) {
          const values = url.searchParams.getAll(name)
          const rolled = values.length === 1 ? rolledOver(values[0] as string) : undefined
          if (rolled === undefined) continue
          url.searchParams.set(name, rolled)
          changed = true
        }
        return changed ? { ...request, url: `${url.pathname}?${url.searchParams.toString()}` } : request
      },
    }),
  },

  // ---------------------------------------------------------------------------------------- integrations
  {
    name: 'credentials-echoed-in-update',
    kind: 'integration',
    what:
      'PATCH /integrations/{id} answers the stored record merged with the request body: when credentials are sent, the answer carries them back (`credentials: {...}`) beside `credential_hint`. ' +
      'Contract, updateIntegration: "Credentials are never returned, in this or any other response"; IntegrationUpdateRequest.credentials: "Write-only: never returned"; Integration: closed object (`additionalProperties: false`); docs/decisions/009: "Credentials are written, never read back (a `credential_hint` only)".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'PATCH' || itemOf(request)?.collection !== 'integrations') return response
        const sent = jsonOf(request)
        if (
          response.status !== 200 ||
          !isObject(response.body) ||
          !isObject(sent) ||
          !isObject(sent.credentials)
        )
          return response
        response.body.credentials = sent.credentials
        return response
      },
    }),
  },
  {
    name: 'disconnect-keeps-connected-at',
    kind: 'integration',
    what:
      '`credentials: null` removes the credentials and the hint but leaves `connected_at` at the time of the last connection, in the answer and in later reads, although the integration is `not_connected`. ' +
      'Contract, updateIntegration: "`credentials: null` disconnects: `status` becomes `not_connected`, `connected_at` and `credential_hint` become `null` (`enabled` is kept)"; Integration.connected_at: "When credentials were last stored; `null` while not connected".',
    make: () => {
      const t = new Tracker()
      const lastConnected = t.map<string, string>()
      const kept = t.map<string, string>()
      return {
        response(response, request) {
          t.observe(request, response)
          if (!isV1(request) || !ok(response)) return response
          const sent = request.method === 'PATCH' ? jsonOf(request) : undefined
          for (const { key, integration } of integrationsOf(t, request, response)) {
            if (typeof integration.connected_at === 'string') {
              lastConnected.set(key, integration.connected_at)
              kept.delete(key)
              continue
            }
            const before = lastConnected.get(key)
            if (isObject(sent) && sent.credentials === null && before !== undefined) kept.set(key, before)
            const since = kept.get(key)
            if (since !== undefined && integration.status === 'not_connected')
              integration.connected_at = since
          }
          return response
        },
      }
    },
  },
  {
    name: 'enable-requires-connection',
    kind: 'integration',
    what:
      'Switching on an integration that has no credentials is refused: PATCH `{"enabled": true}` on a `not_connected` integration (without credentials in the same request) is 422 (`invalid` on `enabled`, "connect it first"), and the integration stays off. ' +
      'Contract, updateIntegration: "`enabled` switches the integration on or off (allowed in any `status`)".',
    make: () => {
      const t = new Tracker()
      const status = t.map<string, string>()
      const refused = new Map<EngineRequest, string>()
      return {
        request(request) {
          const item = itemOf(request)
          if (request.method !== 'PATCH' || item?.collection !== 'integrations') return request
          const token = tokenOf(request)
          if (!t.holds(token, 'integrations:write')) return request
          const sent = jsonOf(request)
          if (!isObject(sent) || sent.enabled !== true || isObject(sent.credentials)) return request
          const known = Object.keys(sent).every((name) => ['enabled', 'config', 'credentials'].includes(name))
          const account = t.account(token)
          const current =
            status.get(`${account} ${item.id}`) ?? (t.isFresh(account) ? 'not_connected' : undefined)
          if (!known || current !== 'not_connected' || request.body === null || request.body.length > 100_000)
            return request
          if (!namesJson(request.headers['content-type'])) return request
          const read = neutralRead(request, request.url)
          refused.set(read, item.id)
          return read
        },
        response(response, request) {
          const slug = refused.get(request)
          refused.delete(request)
          t.observe(request, response)
          if (isV1(request) && ok(response))
            for (const { key, integration } of integrationsOf(t, request, response))
              status.set(key, String(integration.status))
          if (slug === undefined || response.status !== 200) return response
          if (isObject(response.body) && response.body.status !== 'not_connected') return response
          return validationAnswer(
            response,
            'enabled',
            'invalid',
            `${slug} has no credentials: connect it (send credentials) before enabling it.`,
          )
        },
      }
    },
  },
  {
    name: 'credential-hint-first-four',
    kind: 'integration',
    what:
      '`credential_hint` shows the first four characters of the credential (its type prefix, `...xoxb`) instead of the last four, in the PATCH answer and in later reads. ' +
      'Contract, updateIntegration: "`credential_hint` is `"..."` followed by the last 4 characters of the credential value whose key sorts first (by code point)"; Integration: "`credential_hint` shows the last four characters of one of them".',
    make: () => {
      const t = new Tracker()
      const hints = t.map<string, { engine: string; shown: string }>()
      return {
        response(response, request) {
          t.observe(request, response)
          if (!isV1(request) || !ok(response)) return response
          const sent = request.method === 'PATCH' ? jsonOf(request) : undefined
          for (const { key, integration } of integrationsOf(t, request, response)) {
            if (
              isObject(sent) &&
              isObject(sent.credentials) &&
              typeof integration.credential_hint === 'string'
            ) {
              const credentials = sent.credentials
              const first = Object.keys(credentials).sort()[0]
              const value = first === undefined ? undefined : credentials[first]
              if (typeof value === 'string')
                hints.set(key, { engine: integration.credential_hint, shown: `...${value.slice(0, 4)}` })
            }
            const hint = hints.get(key)
            if (hint && integration.credential_hint === hint.engine) integration.credential_hint = hint.shown
          }
          return response
        },
      }
    },
  },

  // ---------------------------------------------------------------------------------------- team members
  {
    name: 'name-guessed-from-email',
    kind: 'members',
    what:
      'An invitation sent without a name gets a display name guessed from a `first.last` e-mail address (`priya.nair@...` becomes "Priya Nair"), in the 201 and in later reads, instead of `null`. ' +
      'Contract, TeamMember.name: "Display name; `null` when the invitation gave none"; inviteTeamMember, example `viewer` ("Invite a viewer without a name"): created with `name: null`.',
    make: () => {
      const t = new Tracker()
      const guessed = t.map<string, string>()
      const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase()
      return {
        response(response, request) {
          t.observe(request, response)
          if (!isV1(request) || !ok(response)) return response
          if (request.method === 'POST' && pathOf(request).replace(/\/$/, '') === '/v1/team-members') {
            const sent = jsonOf(request)
            const member = response.body
            if (isObject(sent) && sent.name === undefined && isObject(member) && member.name === null) {
              const local = /^([a-z]+)\.([a-z]+)@/i.exec(String(member.email))
              if (local)
                guessed.set(String(member.id), `${capital(local[1] ?? '')} ${capital(local[2] ?? '')}`)
            }
          }
          for (const member of membersOf(response)) {
            const name = guessed.get(String(member.id))
            if (name !== undefined && member.name === null) member.name = name
          }
          return response
        },
      }
    },
  },
  {
    name: 'same-role-update-refused',
    kind: 'members',
    what:
      'PATCH /team-members/{id} with the role the member already has is refused with 422 (`invalid` on `role`, "already has this role") instead of succeeding. ' +
      'Contract, updateTeamMember: "Setting the role a member already has succeeds and changes nothing".',
    make: () => {
      const t = new Tracker()
      const roles = t.map<string, string>()
      return {
        response(response, request) {
          t.observe(request, response)
          const item = itemOf(request)
          const before = item?.collection === 'team-members' ? roles.get(item.id) : undefined
          if (isV1(request) && ok(response))
            for (const member of membersOf(response)) roles.set(String(member.id), String(member.role))
          if (request.method !== 'PATCH' || response.status !== 200 || before === undefined) return response
          const sent = jsonOf(request)
          if (!isObject(sent) || sent.role !== before) return response
          return validationAnswer(response, 'role', 'invalid', `The member already has the role ${before}.`)
        },
      }
    },
  },
  {
    name: 'owner-removal-forbidden',
    kind: 'members',
    what:
      'Removing the owner is answered as a permission failure, 403 `permission_error` (code `cannot_remove_owner`), instead of 409 `conflict_error`. ' +
      'Contract, removeTeamMember: "The owner cannot be removed: 409 `cannot_remove_owner`"; Errors table: 409 `conflict_error` with `cannot_remove_owner`, 403 `permission_error` with `insufficient_permissions`, `key_restricted` only; docs/decisions/007.',
    make: () => ({
      response(response, request) {
        if (request.method !== 'DELETE' || response.status !== 409 || !isObject(response.body))
          return response
        const error = response.body.error
        if (!isObject(error) || error.code !== 'cannot_remove_owner') return response
        return errorAnswer(response, 403, {
          type: 'permission_error',
          code: 'cannot_remove_owner',
          message: 'The account owner cannot be removed.',
        })
      },
    }),
  },
  {
    name: 'invitation-withdrawal-not-found',
    kind: 'members',
    what:
      'DELETE /team-members/{id} looks the member up among active members only: withdrawing a pending invitation is 404 resource_not_found, and the invitation stays. ' +
      'Contract, removeTeamMember: "Removes a member, or withdraws a pending invitation, and answers `{id, object: "team_member", deleted: true}`"; TeamMember: "A person with access to the account, or a pending invitation (`status: invited`)".',
    make: () => {
      const t = new Tracker()
      const invited = t.set<string>()
      const withdrawals = new Map<EngineRequest, string>()
      return {
        request(request) {
          const item = itemOf(request)
          if (request.method !== 'DELETE' || item?.collection !== 'team-members' || !invited.has(item.id))
            return request
          const token = tokenOf(request)
          if (!t.holds(token, 'resources:delete') || !t.holds(token, 'team_members:write')) return request
          if (request.body !== null && request.body !== '') return request
          const read = neutralRead(request, request.url)
          withdrawals.set(read, item.id)
          return read
        },
        response(response, request) {
          const id = withdrawals.get(request)
          withdrawals.delete(request)
          t.observe(request, response)
          if (isV1(request) && ok(response))
            for (const member of membersOf(response))
              if (member.status === 'invited') invited.add(String(member.id))
              else invited.delete(String(member.id))
          if (id === undefined || response.status !== 200) return response
          return errorAnswer(response, 404, {
            type: 'not_found_error',
            code: 'resource_not_found',
            message: `No team member with id '${id}'.`,
            param: 'member_id',
          })
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------ the user and keys
  {
    name: 'publishable-user-without-email',
    kind: 'keys',
    what:
      'GET /user hides the e-mail address from publishable keys (client-side code is not trusted with personal data): the User object comes without `email`. ' +
      'The platform\'s spec, Endpoints: GET /user returns "the User object: id, email, name, plan, created_at"; contract, getUser: "Needs only a valid key of either type, no scope"; User: `email` is required; docs/decisions/004: "`GET /user` needs only a valid key".',
    make: () => {
      const t = new Tracker()
      return {
        response(response, request) {
          t.observe(request, response)
          if (
            !isRead(request) ||
            pathOf(request).replace(/\/$/, '') !== '/v1/user' ||
            response.status !== 200
          )
            return response
          if (t.type(tokenOf(request)) === 'publishable' && isObject(response.body))
            delete response.body.email
          return response
        },
      }
    },
  },
  {
    name: 'revoked-key-echoed-in-message',
    kind: 'keys',
    what:
      'The 401 for a revoked key names the whole key in its message ("This API key sk-svc-<all 40 characters> has been revoked"), so that its owner can tell which one it was. ' +
      'docs/decisions/002: "A message never repeats a whole key: at most its prefix and its last four characters"; contract, Unauthorized: the message "shows at most the key\'s prefix and last four characters"; Errors: "Messages never echo a whole API key".',
    make: () => ({
      response(response, request) {
        if (response.status !== 401 || !isObject(response.body) || !isObject(response.body.error))
          return response
        const token = tokenOf(request)
        const error = response.body.error
        if (token === undefined || !/has been revoked/.test(String(error.message))) return response
        error.message = `This API key ${token} has been revoked. Create a new key in the dashboard.`
        return response
      },
    }),
  },

  // ------------------------------------------------------------------------------------------- headers
  {
    name: 'preflight-without-request-id',
    kind: 'headers',
    what:
      'CORS preflights are answered by the CORS middleware, mounted before the one that gives every request its ID: the 204 to an OPTIONS carries no Request-Id. ' +
      'Contract, Conventions: "**Request-Id.** Every response, success or error, carries a `Request-Id: req_...` header"; Request-Id header: "Present on every response"; docs/decisions/001: "Every response, success or error, carries `Request-Id: req_...`".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'OPTIONS' || !isV1(request)) return response
        delete response.headers['request-id']
        return response
      },
    }),
  },
  {
    name: 'allow-lists-every-method',
    kind: 'headers',
    what:
      'The 405 handler writes one `Allow` value for the whole API (`GET, HEAD, POST, PATCH, DELETE`) instead of the methods of the path: PUT /user is told that POST, PATCH and DELETE are allowed there. ' +
      'Contract, Allow header: "The methods documented for this path, comma separated"; MethodNotAllowed: "405 - the path exists but not with this method. `Allow` lists the documented methods"; docs/decisions/001: "405 with an `Allow` header".',
    make: () => ({
      response(response, request) {
        if (response.status !== 405 || !isV1(request)) return response
        response.headers.allow = 'GET, HEAD, POST, PATCH, DELETE'
        return response
      },
    }),
  },
  {
    name: 'idempotent-replayed-false-on-first',
    kind: 'headers',
    what:
      'A POST that carries an `Idempotency-Key` and is carried out for the first time answers `Idempotent-Replayed: false`. ' +
      'Contract, Idempotent-Replayed header: "`true` when this response is the stored response of an earlier request with the same `Idempotency-Key`. Absent otherwise." (`enum: [\'true\']`).',
    make: () => ({
      response(response, request) {
        if (request.method !== 'POST' || !isV1(request) || !ok(response)) return response
        if (request.headers['idempotency-key'] === undefined || response.headers['idempotent-replayed'])
          return response
        response.headers['idempotent-replayed'] = 'false'
        return response
      },
    }),
  },
  {
    name: 'location-from-request-path',
    kind: 'headers',
    what:
      'Location is built by appending the new ID to the path the client posted to: a create sent to `/v1/agents/` or `/v1/team-members/` (with the trailing slash the router accepts) answers `Location: .../v1/agents//agt_...`, which names no resource. ' +
      'Contract, Location header: "The created resource: an absolute URL or a reference relative to the request\'s URL (RFC 9110)" (pattern `(agents/agt_|team-members/mem_)`); createAgent: "Answers **201** with the agent and a `Location` header".',
    make: () => ({
      response(response, request) {
        const location = response.headers.location
        if (request.method !== 'POST' || response.status !== 201 || !isV1(request) || !location)
          return response
        try {
          const created = new URL(location)
          const id = created.pathname.split('/').pop() ?? ''
          response.headers.location = `${created.origin}${pathOf(request)}/${id}`
        } catch {
          // a relative Location is left as it is
        }
        return response
      },
    }),
  },

  // -------------------------------------------------------------------------------------------- errors
  {
    name: 'missing-content-type-parsed',
    kind: 'errors',
    what:
      'A body sent without a Content-Type is sniffed and parsed as JSON anyway: POST and PATCH bodies without the header are carried out instead of refused with 415. ' +
      'Contract, UnsupportedMediaType: "415 - a request body was sent with a `Content-Type` other than `application/json` (parameters such as `charset=utf-8` are allowed), or without a `Content-Type`"; Order of checks, 5: "a body whose `Content-Type` is not `application/json` (415)".',
    make: () => ({
      request(request) {
        if (!isV1(request) || (request.method !== 'POST' && request.method !== 'PATCH')) return request
        const type = request.headers['content-type']
        if ((type !== undefined && type.trim() !== '') || request.body === null || request.body.trim() === '')
          return request
        return { ...request, headers: { ...request.headers, 'content-type': 'application/json' } }
      },
    }),
  },
  {
    name: 'oversized-body-media-type-first',
    kind: 'errors',
    what:
      'The Content-Type is checked before the size of the body: a body over 1 MiB sent as something other than JSON (a file upload, form data) is 415 unsupported_media_type instead of 413 payload_too_large. ' +
      'Contract, Order of checks, 5: "400 / 413 / 415 / 400 malformed request, in this order: ...; a body over 1 MiB (413, ...); a body whose `Content-Type` is not `application/json` (415)"; docs/decisions/005: "then 413 for a body over 1 MiB, 415 for a body that is not JSON".',
    make: () => ({
      request(request) {
        if (!isV1(request) || (request.method !== 'POST' && request.method !== 'PATCH')) return request
        if (request.body === null || request.body.length <= MAX_BODY_BYTES) return request
        const type = request.headers['content-type']
        if (type === undefined || type.trim() === '' || namesJson(type)) return request
        return { ...request, body: request.body.slice(0, 64) }
      },
    }),
  },
  {
    name: 'not-found-param-named-id',
    kind: 'errors',
    what:
      "404 resource_not_found names the route's generic `:id` segment in `error.param` (`id`) instead of the path parameter of the operation (`agent_id`, `call_log_id`, `integration_id`, `member_id`). " +
      'Contract, NotFound: "`resource_not_found`: the path ID does not exist in the key\'s account ...; `param` names the path parameter" (example `param: agent_id`); Errors table, 404: "`param` (`resource_not_found`: the path parameter)".',
    make: () => ({
      response(response, request) {
        if (response.status !== 404 || !isV1(request) || !isObject(response.body)) return response
        const error = response.body.error
        if (isObject(error) && error.code === 'resource_not_found' && typeof error.param === 'string')
          error.param = 'id'
        return response
      },
    }),
  },
  {
    name: 'validation-param-json-pointer',
    kind: 'errors',
    what:
      "422 field errors name their field with the schema library's JSON Pointer (`/voice/speed`, `/webhook_events/1`, `/name`) instead of the dotted path, in `errors[].param` and in `param`. " +
      'Contract, FieldError.param: "Dotted path of the field (`name`, `voice.speed`, `webhook_events.1`); `""` = the whole body"; UnprocessableEntity: "`errors[].param` is the dotted path of the field (`name`, `voice.speed`, `webhook_events.1`, `metadata.crm_id`)".',
    make: () => {
      const pointer = (param: unknown) =>
        typeof param === 'string' && param !== '' ? `/${param.split('.').join('/')}` : param
      return {
        response(response, request) {
          if (response.status !== 422 || !isV1(request) || !isObject(response.body)) return response
          const error = response.body.error
          if (!isObject(error) || !Array.isArray(error.errors)) return response
          for (const entry of error.errors) if (isObject(entry)) entry.param = pointer(entry.param)
          if ('param' in error) error.param = pointer(error.param)
          return response
        },
      }
    },
  },
]
