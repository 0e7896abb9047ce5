/**
 * Held-out fault set 20: thirty faults an implementer of the platform's v1 API could plausibly ship, written blind to
 * the contract suite: neither its checks, nor its exploration, nor its tests, nor its documentation were read, and the
 * suite was never run. held-out-3 to held-out-19 were read for their format only, and so as not to repeat their
 * faults (every fault here breaks another rule, on another operation, or in another situation than theirs). The
 * sources were the platform's spec, the product decisions (`docs/decisions/`), the contract (`openapi/v1.yaml`,
 * `openapi/mock-control.yaml`) and the mock engine (the correct implementation every fault wraps).
 *
 * No theme: a general set, as an independent QA team would write it, spread over the whole spec: key records and
 * their lifecycle in the dashboard (rotation date, last use, revocation, IP allowlists), the permission a key kind is
 * given, both rate-limit windows and their fields, agents, simulated calls and their logs, analytics, integrations,
 * team members, pagination, idempotency, the error envelope, the webhook signing secret, the journal and the clock.
 * The bugs are the ordinary ones: an off-by-one at a limit or at a window's edge, a bound made exclusive, a date
 * computed in months instead of days, a field written once and never again, a header set in one branch only, a
 * validation too strict on one field and too lenient on another, a merge where a replacement was asked for, a
 * middleware applied to one method too many, an error code taken from another product. About half of them only show
 * after a sequence of requests (objects made, changed and read again; windows filled; keys used and revoked); the
 * rest show on one request.
 *
 * Each fault wraps the correct engine (`faultyHandler`): it rewrites a request before the engine sees it, answers in
 * the engine's place (the engine is then sent a stand-in: the same request made harmless, which passes the same
 * authentication, rate-limit, route and permission checks and is counted alike; or a CORS preflight, which is not
 * counted, where the faulty platform's answer is one that is not counted either), or rewrites the engine's answer,
 * keeping what it needs in the closure `make()` returns (keys and accounts seen through the control plane, objects as
 * answers showed them, simulated calls started there, the platform clock as the answers show it). Where the faulty
 * platform refuses a value the engine would take, the engine is sent the request with that value replaced by one it
 * refuses at the same step, so that it still checks and counts the request as the faulty platform would and changes
 * nothing, and its refusal is reworded. Every fault deviates from the platform's spec, the contract or a decision
 * (cited in `what`), in specific situations only (ordinary traffic, the first reads of every endpoint and a create and
 * a read, is unchanged), and never where the spec leaves a choice open (docs/decisions/011-allowed-forms.md).
 * Liveness: `scripts/fault-sets/held-out-20-live.ts`.
 */
import { errors } from '../../mocks/engine/api-error.ts'
import { cidrContains, parseCidr, parseIp } from '../../mocks/engine/cidr.ts'
import { sha256Hex } from '../../mocks/engine/secrets.ts'
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import { KeptBook, Seen } from './fault-books.ts'
import {
  canonical,
  codeOf,
  errorAnswer,
  errorOf,
  type GeneralSetFault,
  harmless,
  isAnalytics,
  isCreate,
  isList,
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
  ownHeaders,
  passedToBody,
  pathOf,
  preflightInstead,
  queryOf,
  secondOf,
  timestampOf,
  tokenOf,
  validBody,
  type Window,
  windowHeaders,
  windowsOf,
  withJson,
  withQuery,
} from './request-parts.ts'

/** A fault of this set: a general set's (request-parts.ts). */
export type HeldOutFault = GeneralSetFault

// ------------------------------------------------------------------------------------------------- helpers

const DAY = 86_400

// ---------------------------------------------------------------------------------------- what a fault learns

/**
 * What the faults of this set may need to know: the account of each key (a key's 201 in the control plane names it,
 * `GET /user` tells it for any other key), the records of the keys made through the control plane, the keys that no
 * longer authenticate, the accounts made through the control plane since the platform started (whose objects a fault
 * has seen from their first one), and the platform clock as the answers show it. `POST /_mock/reset`, which starts
 * the platform again, empties them all and every map a fault asked for.
 */
class Book extends KeptBook {
  /** The platform clock in whole seconds, as last seen (undefined until an answer tells it). */
  private seen: number | undefined
  /** When (wall-clock milliseconds) an answer last told the platform clock. */
  private seenAt = 0
  private readonly keys = this.map<string, string>()
  private readonly records = this.map<string, Json>()
  private readonly tokens = this.map<string, string>()
  private readonly dead = this.set<string>()
  private readonly fresh = this.set<string>()

  /** The platform clock at this moment, in whole seconds (a clock that follows real time moves with the wall). */
  clock(): number | undefined {
    return this.seen === undefined ? undefined : this.seen + Math.floor((Date.now() - this.seenAt) / 1000)
  }

  private tell(second: number | undefined): void {
    if (second === undefined) return
    this.seen = second
    this.seenAt = Date.now()
  }

  /** Learns from an answer. */
  observe(request: EngineRequest, response: EngineResponse): void {
    const path = pathOf(request)
    const body = isObject(response.body) ? response.body : undefined
    if (path === '/_mock/reset' && ok(response)) {
      this.empty()
      this.seen = undefined
      return
    }
    if (path.startsWith('/_mock/clock') && ok(response)) this.tell(secondOf(body?.now))
    if (request.method === 'POST' && response.status === 201 && body) {
      if (path === '/_mock/accounts' || /^\/_mock\/accounts\/[^/]+\/(keys|calls)$/.test(path))
        this.tell(secondOf(body.created_at))
      if (path === '/_mock/accounts' && typeof body.id === 'string') this.fresh.add(body.id)
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
    if (deleted && request.method === 'DELETE' && ok(response)) {
      this.fresh.delete(deleted[1] as string)
      for (const [token, account] of this.keys) if (account === deleted[1]) this.dead.add(token)
    }
    this.tell(nowOf(response))
    const token = tokenOf(request)
    if (!path.startsWith('/v1/') || token === undefined) return
    if (response.status === 401) this.dead.add(token)
    if (/^\/v1\/user\/?$/.test(path) && response.status === 200 && body && typeof body.id === 'string')
      this.keys.set(token, body.id)
  }

  /** The account of a key; a key never seen counts as an account of its own. */
  account(token: string | undefined): string {
    return (token === undefined ? undefined : this.keys.get(token)) ?? `token:${token ?? ''}`
  }

  /** Whether a key is known to authenticate: made through the control plane, or answered, and not refused since. */
  valid(token: string | undefined): token is string {
    if (token === undefined || !this.keys.has(token) || this.dead.has(token)) return false
    const restrictions = this.records.get(token)?.restrictions
    const expiry = isObject(restrictions) ? secondOf(restrictions.expires_at) : undefined
    const now = this.clock()
    return expiry === undefined || now === undefined || expiry > now
  }

  /** The record of a key made through the control plane (undefined for any other key). */
  recordOf(token: string | undefined): Json | undefined {
    return token === undefined ? undefined : this.records.get(token)
  }

  /** Whether an account was made through the control plane since the platform started (its objects all seen). */
  isFresh(account: string): boolean {
    return this.fresh.has(account)
  }
}

/** A startCall answer of the control plane: the account and the new call log. */
function startedCall(
  request: EngineRequest,
  response: EngineResponse,
): { account: string; id: string } | undefined {
  const match = /^\/_mock\/accounts\/([^/]+)\/calls\/?$/.exec(pathOf(request))
  if (!match || request.method !== 'POST' || response.status !== 201 || !isObject(response.body))
    return undefined
  return typeof response.body.id === 'string'
    ? { account: match[1] as string, id: response.body.id }
    : undefined
}

/** The key records (`object: "api_key"`) a control-plane answer carries: a created, revoked or listed key. */
function keyRecords(request: EngineRequest, response: EngineResponse): Json[] {
  if (!pathOf(request).startsWith('/_mock/') || !ok(response) || !isObject(response.body)) return []
  const body = response.body
  if (body.object === 'list' && Array.isArray(body.data))
    return body.data.filter((item): item is Json => isObject(item) && item.object === 'api_key')
  return body.object === 'api_key' ? [body] : []
}

/** A number the contract takes as a whole number (an integer written as JSON writes it). */
const isWhole = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value)

// ------------------------------------------------------------------------------------------------- faults

export const faults: HeldOutFault[] = [
  // ------------------------------------------------------------------------------------------------- keys
  {
    name: 'rotation-due-in-three-calendar-months',
    kind: 'keys',
    what:
      "The dashboard computes a key's rotation date with a date library's `addMonths(created_at, 3)` (\"every quarter\"): `rotation_due_at` is three calendar months after `created_at` (89 to 92 days, the day clamped to the end of a shorter month), not 90 days, in the 201 of a new key, in the key list and in a revocation's answer. " +
      'The platform\'s spec, Rotation and handling: "Keys are to be rotated every 90 days"; docs/decisions/003-api-keys.md: "`rotation_due_at` (90 days after creation: the spec\'s rotation period)"; mock-control createKey: "`rotation_due_at` is `created_at` + 90 days"; ApiKey.rotation_due_at: "`created_at` + 90 days, the platform\'s rotation period".',
    make: () => {
      const addMonths = (created: string, months: number): string | undefined => {
        const at = Date.parse(created)
        if (!Number.isFinite(at)) return undefined
        const date = new Date(at)
        const day = date.getUTCDate()
        const target = new Date(
          Date.UTC(
            date.getUTCFullYear(),
            date.getUTCMonth() + months,
            1,
            date.getUTCHours(),
            date.getUTCMinutes(),
            date.getUTCSeconds(),
          ),
        )
        const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate()
        target.setUTCDate(Math.min(day, last))
        return timestampOf(Math.floor(target.getTime() / 1000))
      }
      return {
        response(response, request) {
          for (const record of keyRecords(request, response)) {
            const due = typeof record.created_at === 'string' ? addMonths(record.created_at, 3) : undefined
            if (due !== undefined) record.rotation_due_at = due
          }
          return response
        },
      }
    },
  },
  {
    name: 'last-used-at-written-once',
    kind: 'keys',
    what:
      "The key's `last_used_at` is filled in by `UPDATE api_keys SET last_used_at = now() WHERE id = ? AND last_used_at IS NULL` (meant to save a write per request): it records the first request a key authenticated and never moves again, so the dashboard's key list (and a revocation's answer) shows a key in daily use as last used on its first day, and the owner watching for the old key after a rotation cannot tell whether it is still used. Keys used once are right. " +
      'Mock-control ApiKey: "`last_used_at` is the last time the key authenticated a request"; docs/decisions/003-api-keys.md: a key record holds "`last_used_at`"; the platform\'s spec, Rotation and handling: "revoke the old key; watch for failed requests".',
    make: () => {
      const book = new Book()
      const first = book.map<string, string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (isV1(request) && response.status !== 401) {
            const record = book.recordOf(tokenOf(request))
            const now = nowOf(response)
            const id = record === undefined ? undefined : String(record.id)
            if (id !== undefined && now !== undefined && !first.has(id)) first.set(id, timestampOf(now))
          }
          for (const record of keyRecords(request, response)) {
            const at = first.get(String(record.id))
            if (at !== undefined && record.last_used_at !== null) record.last_used_at = at
          }
          return response
        },
      }
    },
  },
  {
    name: 're-revocation-restamps-revoked-at',
    kind: 'keys',
    what:
      "Revocation is `UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE id = ?` without a `status = 'active'` condition: revoking a key that is already revoked answers 200 (right) but moves its `revoked_at` to the time of the repeated call, in that answer and in the key list, so the record no longer says when the key stopped working. First revocations are right. " +
      'Mock-control revokeKey: "Revoking a revoked key is idempotent: 200 with the unchanged record (`revoked_at` keeps its first value). Revocation is final"; docs/decisions/003-api-keys.md: "Revoking a revoked key changes nothing".',
    make: () => {
      const book = new Book()
      const revokedAt = book.map<string, string>()
      return {
        response(response, request) {
          const before = book.clock()
          book.observe(request, response)
          const revoked = /^\/_mock\/keys\/([^/]+)\/revoke\/?$/.exec(pathOf(request))
          if (revoked && request.method === 'POST' && ok(response) && isObject(response.body)) {
            const id = revoked[1] as string
            if (revokedAt.has(id) && before !== undefined) revokedAt.set(id, timestampOf(before))
            else if (!revokedAt.has(id) && typeof response.body.revoked_at === 'string')
              revokedAt.set(id, response.body.revoked_at)
          }
          for (const record of keyRecords(request, response)) {
            const at = revokedAt.get(String(record.id))
            if (at !== undefined) record.revoked_at = at
          }
          return response
        },
      }
    },
  },
  {
    name: 'bare-addresses-in-allowlist-never-match',
    kind: 'keys',
    what:
      'The IP allowlist is matched by a CIDR library whose `contains(range, ip)` needs a prefix length and answers false for an entry without one: a key restricted to a single address written as such (`203.0.113.7`, `127.0.0.1`, `2001:db8::7`) refuses every request from that very address with 403 `key_restricted`, while the same address written `203.0.113.7/32` works; key creation accepts both forms. Ranges written as CIDRs are right. ' +
      'Mock-control createKey: "`allowed_ips` (IPv4/IPv6 addresses or CIDRs; requests from elsewhere get 403 `key_restricted`)"; contract, Forbidden: "`key_restricted`: the key\'s restrictions reject the request (client IP outside `allowed_ips` ...)".',
    make: () => {
      const book = new Book()
      const OUTSIDE = ['192.0.2.1', '198.51.100.1', '203.0.113.1', '100.64.0.1', '2001:db8::1', 'fd00::1']
      return {
        request(request) {
          if (!isV1(request) || request.method === 'OPTIONS' || request.clientIp === undefined) return request
          const record = book.recordOf(tokenOf(request))
          const restrictions = isObject(record?.restrictions) ? record.restrictions : undefined
          const entries = Array.isArray(restrictions?.allowed_ips)
            ? restrictions.allowed_ips.filter((entry): entry is string => typeof entry === 'string')
            : []
          const ip = parseIp(request.clientIp)
          if (entries.length === 0 || !ip) return request
          const holds = (entry: string) => {
            const range = parseCidr(entry)
            return range !== null && cidrContains(range, ip)
          }
          const byCidr = entries.filter((entry) => entry.includes('/')).some(holds)
          const byBare = entries.filter((entry) => !entry.includes('/')).some(holds)
          if (byCidr || !byBare) return request
          const elsewhere = OUTSIDE.find((address) => {
            const other = parseIp(address)
            return (
              other !== null &&
              !entries.some((entry) => {
                const range = parseCidr(entry)
                return range !== null && cidrContains(range, other)
              })
            )
          })
          return elsewhere === undefined ? request : { ...request, clientIp: elsewhere }
        },
        response(response, request) {
          book.observe(request, response)
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ permissions
  {
    name: 'publishable-keys-refused-on-user',
    kind: 'permissions',
    what:
      'GET /user is guarded by the "secret keys only" middleware of the account-administration routes (the user is account data, and publishable keys "cannot modify sensitive data"): a publishable key gets 403 `key_restricted` ("publishable keys cannot read the account") on GET /user (and HEAD), while it reads agents as it should. Secret keys are right. ' +
      'Contract, getUser: "Needs only a valid key of either type, no scope (`x-required-permission: []`)"; docs/decisions/004-permissions.md: "`GET /user` needs only a valid key"; the platform\'s spec, Endpoints: "GET /user returns user information when the key is valid".',
    make: () => {
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isRead(request) || !/^\/v1\/user\/?$/.test(pathOf(request))) return request
          if (!tokenOf(request)?.startsWith('pk-svc-')) return request
          // An unknown query parameter: the engine authenticates, counts and checks restrictions, then answers 400.
          const sent = { ...request, url: '/v1/user?held_out_20=1' }
          noted.add(sent)
          return sent
        },
        response(response, request) {
          if (!noted.delete(request)) return response
          if (response.status !== 400 || codeOf(response) !== 'invalid_parameter') return response
          return errorAnswer(response, 403, {
            type: 'permission_error',
            code: 'key_restricted',
            message: 'Publishable keys cannot read the account; use a secret key on your server.',
          })
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ rate limits
  {
    name: 'window-edge-request-still-counted',
    kind: 'rate-limits',
    what:
      "The sliding windows evict with `ZREMRANGEBYSCORE key -inf (now - w)`, an exclusive bound, while `t` is computed as `oldest + w - now`: a request made exactly `w` seconds ago still counts, so the request that comes exactly when the oldest counted one should leave the window (after waiting the `t`, or the `Retry-After`, the platform itself gave) is refused with 429 (`Retry-After: 1`), and at that second `RateLimit` shows one request less remaining with `t=0`. Requests that do not fall on a window's edge are right. " +
      'Contract, RateLimit: "`t` is the whole seconds (rounded up) until the oldest request counted in that window leaves it"; Retry-After: "the largest `t` among the exhausted windows, rounded up, so a retry after this delay is admitted"; docs/decisions/006-rate-limits.md: "Two sliding windows, and a request is admitted only when both have room: `hourly` (3,600 s) and `burst` (60 s)".',
    make: () => {
      const book = new Book()
      const ledger = book.map<string, number[]>()
      const quotas = book.map<string, Window[]>()
      const refused = new Map<EngineRequest, { account: string; now: number }>()
      /** The faulty platform's windows at `now`: a request `w` seconds old still counts, and leaves with `t=0`. */
      const shown = (account: string, now: number): (Window & { used: number; edge: number })[] =>
        (quotas.get(account) ?? []).map((window) => {
          const counted = (ledger.get(account) ?? []).filter((second) => second + window.w >= now)
          const oldest = counted.length > 0 ? Math.min(...counted) : undefined
          return {
            ...window,
            used: counted.length,
            edge: counted.filter((second) => second + window.w === now).length,
            r: Math.max(0, window.q - counted.length),
            t: oldest === undefined ? 0 : oldest + window.w - now,
          }
        })
      return {
        request(request) {
          if (!isV1(request) || request.method === 'OPTIONS') return request
          const token = tokenOf(request)
          const now = book.clock()
          if (!book.valid(token) || now === undefined) return request
          const account = book.account(token)
          if (!book.isFresh(account)) return request
          const windows = shown(account, now)
          const engineFull = windows.some((window) => window.used - window.edge >= window.q)
          const faultFull = windows.some((window) => window.used >= window.q)
          if (engineFull || !faultFull) return request
          const sent = preflightInstead(request)
          refused.set(sent, { account, now })
          return sent
        },
        response(response, request) {
          const note = refused.get(request)
          refused.delete(request)
          book.observe(request, response)
          if (note) {
            const windows = shown(note.account, note.now)
            let policy = 'hourly'
            let retryAfter = -1
            for (const window of windows)
              if (window.used >= window.q && window.t > retryAfter) {
                retryAfter = window.t
                policy = window.policy
              }
            return errors
              .rateLimited(policy, Math.max(1, retryAfter))
              .toResponse(response.headers['request-id'] ?? '', {
                ...ownHeaders(response),
                ...windowHeaders(windows, note.now),
              })
          }
          if (!isV1(request)) return response
          const token = tokenOf(request)
          const account = book.account(token)
          const now = nowOf(response)
          const windows = windowsOf(response.headers)
          if (!book.isFresh(account) || now === undefined || !windows) return response
          quotas.set(account, windows)
          // A 429 of the limiter is not counted; one a scenario injected was admitted first, and is.
          if (response.status === 429 && response.headers['mock-scenario'] === undefined) return response
          const entries = (ledger.get(account) ?? []).filter((second) => second + 3600 >= now)
          entries.push(now)
          ledger.set(account, entries)
          const faulty = shown(account, now)
          if (faulty.some((window) => window.edge > 0))
            Object.assign(response.headers, windowHeaders(faulty, now))
          return response
        },
      }
    },
  },
  {
    name: 'empty-window-reset-reported-as-window-length',
    kind: 'rate-limits',
    what:
      "The usage view computes each window's `reset_seconds` as `(oldest ?? now) + w - now`, defaulting the oldest counted request to now: a window in which nothing is counted reports `reset_seconds` 3600 (hourly) or 60 (burst) instead of 0, so an account that made no request looks as if it had to wait a whole window. Windows with counted requests are right. " +
      'Mock-control getRateLimitUsage: "`reset_seconds` is the `t` of the v1 `RateLimit` header (whole seconds, rounded up, until the oldest counted request leaves the window; 0 when the window is empty)"; docs/decisions/006-rate-limits.md: "`t` the whole seconds until the oldest request counted in the window leaves it (0 when none)".',
    make: () => ({
      response(response, request) {
        if (!/^\/_mock\/accounts\/[^/]+\/rate-limit\/?$/.test(pathOf(request))) return response
        if (response.status !== 200 || !isObject(response.body) || !Array.isArray(response.body.windows))
          return response
        for (const window of response.body.windows)
          if (isObject(window) && window.used === 0)
            window.reset_seconds = window.policy === 'hourly' ? 3600 : 60
        return response
      },
    }),
  },
  {
    name: 'hourly-429-without-retry-after',
    kind: 'rate-limits',
    what:
      'The burst window is enforced by the gateway, which sets `Retry-After`, and the hourly quota by the platform\'s quota service, which writes the wait only into the body: a 429 for an exhausted hourly window (`error.policy: "hourly"`) carries `error.retry_after` but no `Retry-After` header, so a client that honours the header retries at once. Burst 429s are right. ' +
      'Contract, TooManyRequests: headers `Retry-After` (`required: true`), "`error.retry_after` equals the `Retry-After` header"; Rate limits: "A 429 adds `Retry-After`"; docs/decisions/006-rate-limits.md: "A 429 carries `Retry-After` in seconds".',
    make: () => ({
      response(response, request) {
        if (!isV1(request) || response.status !== 429 || errorOf(response)?.policy !== 'hourly')
          return response
        delete response.headers['retry-after']
        return response
      },
    }),
  },

  // ----------------------------------------------------------------------------------------------- agents
  {
    name: 'all-four-webhook-events-refused',
    kind: 'agents',
    what:
      'The list of webhook events is validated with `if (events.length >= WEBHOOK_EVENTS.length)` ("more events than exist"), an off-by-one: an agent cannot subscribe to all four events: a create or an update with all of `call.started`, `call.ended`, `call.analyzed` and `transcript.ready` is 422 (`max_items` on `webhook_events`, "at most 3 events") and nothing is stored. Up to three events are right. ' +
      'Contract, AgentCreateRequest / AgentUpdateRequest.webhook_events: `{type: array, uniqueItems: true, maxItems: 4, items: WebhookEvent}`; WebhookEvent: `enum: [call.started, call.ended, call.analyzed, transcript.ready]`; docs/decisions/013-calls-and-webhooks.md: agents subscribe to `call.started`, `call.ended`, `call.analyzed`, `transcript.ready`.',
    make: () => {
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isCreate(request, 'agents') && itemId(request, 'PATCH', 'agents') === undefined) return request
          const body = objectBody(request)
          const events = body?.webhook_events
          if (!body || !Array.isArray(events) || events.length !== 4 || !validBody(request)) return request
          // Five events (one twice): the engine refuses them at the same step, and nothing is stored.
          const sent = withJson(request, { ...body, webhook_events: [...events, events[0]] })
          noted.add(sent)
          return sent
        },
        response(response, request) {
          if (!noted.delete(request) || response.status !== 422) return response
          const error = errorOf(response)
          if (!error) return response
          const problem = {
            param: 'webhook_events',
            code: 'max_items',
            message: 'webhook_events may list at most 3 events.',
          }
          error.message = `Invalid request body: ${problem.message}`
          error.param = problem.param
          error.errors = [problem]
          return response
        },
      }
    },
  },
  {
    name: 'call-duration-minimum-unchecked',
    kind: 'agents',
    what:
      '`max_call_duration_seconds` is checked only for being a positive integer and not above 7200: an agent created or updated with a cap under 30 seconds (1 to 29) is accepted, 201 or 200, and keeps that value in every later read, instead of 422. Values from 30 up are right. ' +
      'Contract, AgentCreateRequest / AgentUpdateRequest / Agent: `max_call_duration_seconds: {type: integer, minimum: 30, maximum: 7200}`; docs/decisions/009-resources.md: "max_call_duration_seconds (30-7200)".',
    make: () => {
      const book = new Book()
      const shown = book.map<string, number>()
      const noted = new Map<EngineRequest, number>()
      return {
        request(request) {
          if (!isCreate(request, 'agents') && itemId(request, 'PATCH', 'agents') === undefined) return request
          const body = objectBody(request)
          const cap = body?.max_call_duration_seconds
          if (!body || !isWhole(cap) || cap < 1 || cap >= 30) return request
          const sent = withJson(request, { ...body, max_call_duration_seconds: 30 })
          if (!validBody(sent)) return request
          noted.set(sent, cap)
          return sent
        },
        response(response, request) {
          const cap = noted.get(request)
          noted.delete(request)
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const patched = itemId(request, 'PATCH', 'agents')
          const body = objectBody(request)
          if (
            ok(response) &&
            isObject(response.body) &&
            (patched !== undefined || isCreate(request, 'agents'))
          ) {
            const key = `${account} ${String(response.body.id)}`
            if (cap !== undefined) shown.set(key, cap)
            else if (body && 'max_call_duration_seconds' in body) shown.delete(key)
          }
          const removed = itemId(request, 'DELETE', 'agents')
          if (removed !== undefined && response.status === 200) shown.delete(`${account} ${removed}`)
          for (const agent of objectsOf(response, 'agent')) {
            const value = shown.get(`${account} ${String(agent.id)}`)
            if (value !== undefined) agent.max_call_duration_seconds = value
          }
          return response
        },
      }
    },
  },
  {
    name: 'voice-provider-change-resets-speed',
    kind: 'agents',
    what:
      'An update that changes `voice.provider` rebuilds the voice from the new provider\'s defaults before merging what was sent (a voice is "per provider"): PATCH `{"voice": {"provider": "cartesia", "voice_id": "..."}}` of an agent whose speed was 1.25 answers, and stores, `voice.speed: 1`. Updates that keep the provider, or that send the speed, are right. ' +
      'Contract, updateAgent: "`voice` and `llm` are **merged** field by field into the stored objects (send only what changes)"; VoiceUpdate: "Fields to change in the agent\'s voice; merged into the stored voice"; docs/decisions/009-resources.md: "PATCH (partial ...)".',
    make: () => {
      const book = new Book()
      const seen = book.keep(new Seen('agent', 'agents'))
      return {
        request(request) {
          const agent = itemId(request, 'PATCH', 'agents')
          if (!isV1(request) || agent === undefined) return request
          const body = objectBody(request)
          const voice = body?.voice
          const before = seen.get(book.account(tokenOf(request)), agent)?.voice
          if (!body || !isObject(voice) || typeof voice.provider !== 'string' || 'speed' in voice)
            return request
          if (!isObject(before) || before.provider === voice.provider || !validBody(request)) return request
          return withJson(request, { ...body, voice: { ...voice, speed: 1 } })
        },
        response(response, request) {
          book.observe(request, response)
          seen.observe(request, response, book.account(tokenOf(request)))
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------------ calls
  {
    name: 'transcript-empty-until-call-ends',
    kind: 'calls',
    what:
      'The transcript is written to the call log once, by the end-of-call job (the live lines go to a streaming buffer the API does not read): a call that is `in_progress` is answered with `transcript: []` by GET /call-logs/{call_log_id}, although lines were said, and the whole transcript appears only when the call ends. Calls that ended are right. ' +
      'Mock-control startCall: "A completed call\'s transcript grows as the conversation goes on ... `GET /v1/call-logs` and `GET /v1/analytics/calls` show every stage"; contract, CallLog.transcript: "Utterances in order; `[]` when nothing was said (yet)"; the call.started event: "`transcript` empty or holding what was said in the first moment".',
    make: () => ({
      response(response) {
        for (const log of objectsOf(response, 'call_log'))
          if (log.status === 'in_progress' && Array.isArray(log.transcript)) log.transcript = []
        return response
      },
    }),
  },
  {
    name: 'recording-url-ignores-agent-setting',
    kind: 'calls',
    what:
      "The call log's presenter builds `recording_url` from the call's ID for every completed call placed through the platform (`https://recordings.example.com/v1/<call_id>.mp3`), whether or not its agent records calls: a completed call of an agent with `recording_enabled: false` shows a recording URL (that leads nowhere), in lists and by ID. Calls of agents that record, calls that did not complete, and the imported history are right. " +
      'Contract, CallLogSummary.recording_url: "Recording of the call; `null` when recording was disabled or the call has not ended"; Agent.recording_enabled; mock-control startCall: "with `ended_at`, `duration_seconds` ..., `cost_usd`, `end_reason` and, when the agent records calls, `recording_url`".',
    make: () => {
      const book = new Book()
      const live = book.set<string>()
      return {
        response(response, request) {
          book.observe(request, response)
          const started = startedCall(request, response)
          if (started) live.add(started.id)
          for (const log of objectsOf(response, 'call_log'))
            if (live.has(String(log.id)) && log.status === 'completed' && log.recording_url === null)
              log.recording_url = `https://recordings.example.com/v1/${String(log.id)}.mp3`
          return response
        },
      }
    },
  },
  {
    name: 'min-duration-bound-exclusive',
    kind: 'calls',
    what:
      'The call-log filter is written `duration_seconds > :min AND duration_seconds <= :max`: `min_duration_seconds` is an exclusive bound, so calls that lasted exactly the minimum are left out of GET /call-logs (`min_duration_seconds=60` misses the 60-second calls) while `max_duration_seconds` keeps its exact value. Calls longer than the minimum are right. ' +
      'Contract, listCallLogs: "`min_duration_seconds` / `max_duration_seconds` are inclusive bounds on `duration_seconds`"; parameter min_duration_seconds: "Only ended calls with `duration_seconds` >= this value".',
    make: () => ({
      request(request) {
        if (!isList(request, 'call-logs')) return request
        const query = queryOf(request)
        const sent = query.getAll('min_duration_seconds')
        const max = query.getAll('max_duration_seconds')
        if (sent.length !== 1 || !/^(0|[1-9][0-9]*)$/.test(sent[0] as string) || max.length > 1)
          return request
        const min = Number(sent[0])
        if (max.length === 1 && /^(0|[1-9][0-9]*)$/.test(max[0] as string) && Number(max[0]) < min + 1)
          return request
        return withQuery(request, (changed) => {
          changed.set('min_duration_seconds', String(min + 1))
        })
      },
    }),
  },
  {
    name: 'live-call-numbers-lose-plus',
    kind: 'calls',
    what:
      "Phone numbers of the calls placed through the platform are kept in BIGINT columns (numbers are digits) and written back as digits: `from_number` and `to_number` of a live phone call show `14155550123` instead of `+14155550123`, in the control plane's answer that starts it and in every v1 read, lists and by ID. Web calls (no numbers) and the imported history are right. " +
      'Contract, CallLogSummary / CallLog: from_number "Caller\'s number in E.164", to_number "Called number in E.164" (PhoneNumber `pattern: ^\\+[1-9][0-9]{1,14}$`); docs/decisions/009-resources.md: "from_number, to_number (E.164|null)".',
    make: () => {
      const book = new Book()
      const live = book.set<string>()
      return {
        response(response, request) {
          book.observe(request, response)
          const started = startedCall(request, response)
          if (started) live.add(started.id)
          for (const log of objectsOf(response, 'call_log')) {
            if (!live.has(String(log.id))) continue
            for (const field of ['from_number', 'to_number'] as const) {
              const number = log[field]
              if (typeof number === 'string') log[field] = number.replace(/^\+/, '')
            }
          }
          return response
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------------- analytics
  {
    name: 'group-series-only-buckets-with-calls',
    kind: 'analytics',
    what:
      "The groups of GET /analytics/calls are read with `GROUP BY value, bucket`, which yields no row for a bucket in which a group had no call, and the series of each group is built from those rows: a group's `series` holds only the buckets in which it had calls, so the groups' series are shorter than the top-level series and no longer line up with its buckets. The top-level series, and groups with calls in every bucket, are right. " +
      'Contract, getCallAnalytics, Grouping: "each with its own `totals` and `series` (same buckets as the top-level series)"; Buckets: "Empty buckets are included (all counts 0, averages `null`)"; CallAnalytics: "`series` tiles `[start, end)` in buckets".',
    make: () => ({
      response(response, request) {
        if (!isAnalytics(request) || response.status !== 200 || !isObject(response.body)) return response
        const groups = response.body.groups
        if (!Array.isArray(groups)) return response
        for (const group of groups)
          if (isObject(group) && Array.isArray(group.series))
            group.series = group.series.filter(
              (bucket) => isObject(bucket) && isObject(bucket.metrics) && bucket.metrics.call_count !== 0,
            )
        return response
      },
    }),
  },
  {
    name: 'total-range-limited-to-744-hours',
    kind: 'analytics',
    what:
      'The range check of GET /analytics/calls counts the buckets of `total` as hours (`MAX_BUCKETS * HOUR`), like those of `hour`: with `granularity=total`, a range longer than 31 days is 400 `invalid_parameter` (`param: start`, "at most 744 hours"), although a total may cover up to 744 days. The other granularities, and total ranges of at most 31 days, are right. ' +
      'Contract, getCallAnalytics, Range: "The range may cover at most **744 buckets** of the chosen granularity (for example 31 days of `hour`; for `total` the range may be at most 744 days)".',
    make: () => ({
      response(response, request) {
        if (!isAnalytics(request) || response.status !== 200 || !isObject(response.body)) return response
        const body = response.body
        const start = secondOf(body.start)
        const end = secondOf(body.end)
        if (body.granularity !== 'total' || start === undefined || end === undefined) return response
        if (end - start <= 744 * 3600) return response
        return errorAnswer(response, 400, {
          type: 'invalid_request_error',
          code: 'invalid_parameter',
          message: 'The range may cover at most 744 hours.',
          param: 'start',
        })
      },
    }),
  },

  // ----------------------------------------------------------------------------------------- integrations
  {
    name: 'integration-config-merged-on-update',
    kind: 'integrations',
    what:
      "PATCH /integrations/{integration_id} merges the `config` it is sent into the stored one (`{...stored, ...sent}`, as it would merge any JSON column): a setting left out of the new configuration survives, so a key can never be removed from an integration's config (only overwritten), and `config: {}` changes nothing. A first configuration, and settings that are sent again, are right. " +
      'Contract, updateIntegration: "`config` **replaces** the stored configuration as a whole (`{}` empties it)".',
    make: () => {
      const book = new Book()
      const seen = book.keep(new Seen('integration', 'integrations'))
      return {
        request(request) {
          const slug = itemId(request, 'PATCH', 'integrations')
          if (!isV1(request) || slug === undefined) return request
          const body = objectBody(request)
          const stored = seen.get(book.account(tokenOf(request)), slug)?.config
          if (!body || !isObject(body.config) || !isObject(stored)) return request
          const sent = withJson(request, { ...body, config: { ...stored, ...body.config } })
          return validBody(request) && validBody(sent) ? sent : request
        },
        response(response, request) {
          book.observe(request, response)
          seen.observe(request, response, book.account(tokenOf(request)))
          return response
        },
      }
    },
  },
  {
    name: 'connecting-switches-integration-on',
    kind: 'integrations',
    what:
      'Storing credentials switches an integration on (`enabled = true` in the connect path, so that a connected integration "just works"): PATCH `{"credentials": {...}}` of a disabled integration answers, and leaves it, `enabled: true`, although `enabled` was not sent. Updates that send `enabled`, and connections of integrations already on, are right. ' +
      'Contract, updateIntegration: "Partially updates an integration ... `enabled` switches the integration on or off (allowed in any `status`). `credentials` (write-only) replaces the stored credentials: the integration becomes `connected`, `connected_at` is set to now and `credential_hint` is recomputed" (`enabled` is not among what a connection changes).',
    make: () => ({
      request(request) {
        if (!isV1(request) || itemId(request, 'PATCH', 'integrations') === undefined) return request
        const body = objectBody(request)
        if (!body || !isObject(body.credentials) || 'enabled' in body) return request
        return withJson(request, { ...body, enabled: true })
      },
    }),
  },

  // ------------------------------------------------------------------------------------------------- team
  {
    name: 'member-limit-reached-one-early',
    kind: 'team',
    what:
      'The team-size check is `if (members + 1 >= MAX_MEMBERS)` (the new member counted twice): an account that holds 199 members and invitations (the owner included) gets 409 `limit_reached` on the next invitation, so a team can never reach the 200 members the service keeps. Teams below 199 are right. ' +
      'Contract, Conflict: "`limit_reached` (the account already holds as many objects of this kind as the service keeps; the mock: 1,000 agents and 200 team members per account; nothing is created)"; inviteTeamMember: "Answers **201** with the new member".',
    make: () => {
      const book = new Book()
      const members = book.map<string, number>()
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isCreate(request, 'team-members') || request.headers['idempotency-key'] !== undefined)
            return request
          const account = book.account(tokenOf(request))
          if (!book.isFresh(account) || (members.get(account) ?? 1) < 199 || !validBody(request))
            return request
          const sent = harmless(request)
          noted.add(sent)
          return sent
        },
        response(response, request) {
          const wasNoted = noted.delete(request)
          book.observe(request, response)
          if (wasNoted)
            return passedToBody(response)
              ? errorAnswer(response, 409, {
                  type: 'conflict_error',
                  code: 'limit_reached',
                  message:
                    'This account holds the most team members it may (200); remove some before inviting more.',
                })
              : response
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          if (!book.isFresh(account)) return response
          const count = members.get(account) ?? 1
          if (
            isCreate(request, 'team-members') &&
            response.status === 201 &&
            !response.headers['idempotent-replayed']
          )
            members.set(account, count + 1)
          if (itemId(request, 'DELETE', 'team-members') !== undefined && response.status === 200)
            members.set(account, count - 1)
          return response
        },
      }
    },
  },
  {
    name: 'rejoin-restamps-joined-at',
    kind: 'team',
    what:
      "Accepting an invitation is an upsert of the membership (`status = 'active', joined_at = now()`) without a check of the member's state: accepting again for a member who has already joined answers 200 and moves their `joined_at` to now (as GET /v1/team-members then shows), instead of 409 `member_already_joined`. First acceptances, and the owner (refused), are right. " +
      'Mock-control joinTeamMember: "A member who is already active (the owner among them) is 409 `member_already_joined`"; contract, TeamMember.joined_at: "When the member accepted the invitation".',
    make: () => {
      const book = new Book()
      const seen = book.keep(new Seen('team_member', 'team-members'))
      const restamped = book.map<string, string>()
      return {
        response(response, request) {
          const before = book.clock()
          book.observe(request, response)
          const join = /^\/_mock\/accounts\/([^/]+)\/team-members\/([^/]+)\/join\/?$/.exec(pathOf(request))
          if (join && request.method === 'POST') {
            const account = join[1] as string
            const id = join[2] as string
            if (ok(response)) {
              seen.learn(response, account)
              restamped.delete(`${account} ${id}`)
              return response
            }
            const member = seen.get(account, id)
            if (
              response.status !== 409 ||
              codeOf(response) !== 'member_already_joined' ||
              !member ||
              member.role === 'owner' ||
              before === undefined
            )
              return response
            const joinedAt = timestampOf(before)
            restamped.set(`${account} ${id}`, joinedAt)
            return {
              status: 200,
              headers: { 'content-type': 'application/json; charset=utf-8', ...ownHeaders(response) },
              body: { ...member, status: 'active', joined_at: joinedAt },
            }
          }
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          seen.observe(request, response, account)
          const removed = itemId(request, 'DELETE', 'team-members')
          if (removed !== undefined && response.status === 200) restamped.delete(`${account} ${removed}`)
          for (const member of objectsOf(response, 'team_member')) {
            const at = restamped.get(`${account} ${String(member.id)}`)
            if (at !== undefined) member.joined_at = at
          }
          return response
        },
      }
    },
  },
  {
    name: 'owner-role-change-answered-422',
    kind: 'errors',
    what:
      'The owner rule of PATCH /team-members/{member_id} lives in the body validator ("the owner\'s role is not editable"): changing the owner\'s role to a valid role is 422 `validation_failed` (`errors: [{param: "role", code: "invalid"}]`) instead of 409 `owner_role_immutable`, so a client that branches on the code cannot tell a bad body from the owner rule. Other members are right. ' +
      'Contract, updateTeamMember: "The owner\'s role cannot be changed: 409 `owner_role_immutable` (checked after validation, per the order of checks)"; TeamMember: "the owner\'s role cannot be changed (409 `owner_role_immutable`)"; docs/decisions/007-errors.md: 409 `conflict_error` codes include `owner_role_immutable`.',
    make: () => ({
      response(response, request) {
        if (!isV1(request) || response.status !== 409 || codeOf(response) !== 'owner_role_immutable')
          return response
        const problem = { param: 'role', code: 'invalid', message: "The owner's role is not editable." }
        return errorAnswer(response, 422, {
          type: 'validation_error',
          code: 'validation_failed',
          message: `Invalid request body: ${problem.message}`,
          param: 'role',
          errors: [problem],
        })
      },
    }),
  },

  // ------------------------------------------------------------------------------------------- pagination
  {
    name: 'unknown-cursor-ignored',
    kind: 'pagination',
    what:
      'The cursor is resolved with `findOne(id)` and, when nothing is found, the query runs without it: a `starting_after` or `ending_before` that is not an object of the collection in this account (a typo, an ID of another collection or of another account) answers 200 with the first page instead of 400 `invalid_cursor`, so a client paging with a bad cursor loops over the first page. Cursors of the collection are right. ' +
      'Contract, Lists and pagination: "an ID that is not an object of that collection is 400 `invalid_cursor`"; parameter StartingAfter: "an ID that is not an object of this collection in this account is 400 `invalid_cursor`".',
    make: () => {
      const book = new Book()
      const known = book.set<string>()
      return {
        request(request) {
          const collection = isList(request, 'agents')
            ? 'agents'
            : isList(request, 'call-logs')
              ? 'call-logs'
              : ''
          if (!collection) return request
          const account = book.account(tokenOf(request))
          const query = queryOf(request)
          if (!book.isFresh(account) || (query.has('starting_after') && query.has('ending_before')))
            return request
          const param = query.has('starting_after') ? 'starting_after' : 'ending_before'
          const cursor = query.getAll(param)
          if (cursor.length !== 1 || !/^[a-z]+_[A-Za-z0-9]+$/.test(cursor[0] as string)) return request
          if (known.has(`${account} ${collection} ${cursor[0]}`)) return request
          return withQuery(request, (changed) => {
            changed.delete(param)
          })
        },
        response(response, request) {
          book.observe(request, response)
          const started = startedCall(request, response)
          if (started) known.add(`${started.account} call-logs ${started.id}`)
          if (isCreate(request, 'agents') && response.status === 201 && isObject(response.body))
            known.add(`${book.account(tokenOf(request))} agents ${String(response.body.id)}`)
          return response
        },
      }
    },
  },
  {
    name: 'agent-filtered-call-logs-ignore-limit',
    kind: 'pagination',
    what:
      "GET /call-logs with `agent_id` is served from the agent's call index, a path that forgot the page size: it answers up to 100 call logs (the most a page holds) whatever `limit` says (and the default 20 too), so a client that pages an agent's calls with `limit=10` gets a page ten times larger than asked. Lists without `agent_id` are right. " +
      'Contract, parameter Limit: "Maximum number of objects to return, 1-100 (default 20)"; listCallLogs: "paginated" like every list; docs/decisions/008-lists-and-idempotency.md: "Lists take `limit` (1-100, default 20)".',
    make: () => ({
      request(request) {
        if (!isList(request, 'call-logs')) return request
        const query = queryOf(request)
        if (query.getAll('agent_id').length !== 1) return request
        const limit = query.getAll('limit')
        if (limit.length > 1 || (limit.length === 1 && !/^([1-9][0-9]?|100)$/.test(limit[0] as string)))
          return request
        return withQuery(request, (changed) => {
          changed.set('limit', '100')
        })
      },
    }),
  },

  // ------------------------------------------------------------------------------------------ idempotency
  {
    name: 'idempotency-keys-enforced-on-patch',
    kind: 'idempotency',
    what:
      'The idempotency middleware is mounted on every write method, not only POST: a PATCH that carries an `Idempotency-Key` (which many HTTP clients add to every write) is stored, and a later PATCH with the same key is answered from the store: with the same body it gets the first answer again (`Idempotent-Replayed: true`), nothing is updated and `updated_at` does not move; with another body (the next change of a settings form) it is 409 `idempotency_key_reused` and the change is lost. PATCHes without the header are right. ' +
      'Contract, Idempotency: "`POST` operations accept an `Idempotency-Key` header"; updateAgent: "`updated_at` is set to the current time on every successful update, even if no value changed"; the responses of updateAgent and updateIntegration document no 409 at all; docs/decisions/008-lists-and-idempotency.md: "A POST accepts `Idempotency-Key`".',
    make: () => {
      const book = new Book()
      const stored = book.map<string, { fingerprint: string; at: number; answer: EngineResponse }>()
      const noted = new Map<EngineRequest, EngineResponse | 'conflict'>()
      const fingerprint = (request: EngineRequest) =>
        `${pathOf(request).replace(/\/$/, '')} ${canonical(jsonOf(request))}`
      return {
        request(request) {
          const key = request.headers['idempotency-key']
          if (!isV1(request) || request.method !== 'PATCH' || key === undefined || !itemOf(request))
            return request
          const entry = stored.get(`${book.account(tokenOf(request))} ${key}`)
          const now = book.clock()
          if (!entry || now === undefined || entry.at + DAY <= now) return request
          if (entry.fingerprint === fingerprint(request)) {
            const sent = harmless(request)
            noted.set(sent, entry.answer)
            return sent
          }
          if (!validBody(request)) return request
          const sent = harmless(request)
          noted.set(sent, 'conflict')
          return sent
        },
        response(response, request) {
          const note = noted.get(request)
          noted.delete(request)
          book.observe(request, response)
          if (note !== undefined) {
            if (!passedToBody(response)) return response
            if (note === 'conflict')
              return errors
                .conflict(
                  'idempotency_key_reused',
                  'This Idempotency-Key was already used with a different request.',
                  'Idempotency-Key',
                )
                .toResponse(response.headers['request-id'] ?? '', ownHeaders(response))
            const replay = structuredClone(note)
            replay.headers = { ...replay.headers, ...ownHeaders(response), 'idempotent-replayed': 'true' }
            return replay
          }
          const key = request.headers['idempotency-key']
          const now = nowOf(response)
          if (!isV1(request) || request.method !== 'PATCH' || key === undefined || now === undefined)
            return response
          if (!ok(response) || !/^[\x21-\x7e]{1,255}$/.test(key)) return response
          const slot = `${book.account(tokenOf(request))} ${key}`
          const entry = stored.get(slot)
          if (!entry || entry.at + DAY <= now)
            stored.set(slot, {
              fingerprint: fingerprint(request),
              at: now,
              answer: structuredClone(response),
            })
          return response
        },
      }
    },
  },
  {
    name: 'idempotency-conflict-typed-as-idempotency-error',
    kind: 'errors',
    what:
      "The 409 of a reused `Idempotency-Key` is built by an idempotency library ported from Stripe's model, with Stripe's error type: `error.type` is `idempotency_error` instead of `conflict_error` (the code, `idempotency_key_reused`, is right), so a client that dispatches on `type` does not recognise the conflict. The other 409s are right. " +
      'Contract, Errors: "| 409 | `conflict_error` | `member_already_exists`, `owner_role_immutable`, `cannot_remove_owner`, `idempotency_key_reused`, `limit_reached` |"; Error.error.type: `enum` without `idempotency_error`; docs/decisions/007-errors.md: "409 conflict_error ... idempotency_key_reused".',
    make: () => ({
      response(response, request) {
        const error = errorOf(response)
        if (isV1(request) && response.status === 409 && error?.code === 'idempotency_key_reused')
          error.type = 'idempotency_error'
        return response
      },
    }),
  },
  {
    name: 'idempotency-keys-with-spaces-accepted',
    kind: 'idempotency',
    what:
      'The `Idempotency-Key` header is checked for its length and for control characters only (`/^[\\x20-\\x7e]{1,255}$/`): a key with spaces (`order 42`, a sentence, a key padded with spaces) is accepted and used (stored, replayed, conflicting) instead of 400 `invalid_parameter` naming `Idempotency-Key`. Keys of printable characters without spaces are right. ' +
      'Contract, parameter IdempotencyKey: "1-255 printable ASCII characters ...; longer or empty values are 400 `invalid_parameter` (`param: Idempotency-Key`)", `pattern: ^[\\x21-\\x7E]+$`; Idempotency: "`POST` operations accept an `Idempotency-Key` header (1-255 printable ASCII characters)".',
    make: () => ({
      request(request) {
        const key = request.headers['idempotency-key']
        if (!isV1(request) || request.method !== 'POST' || key === undefined) return request
        if (!/^[\x20-\x7e]{1,255}$/.test(key) || !key.includes(' ')) return request
        return { ...request, headers: { ...request.headers, 'idempotency-key': `sp-${sha256Hex(key)}` } }
      },
    }),
  },

  // ---------------------------------------------------------------------------------------- control plane
  {
    name: 'webhook-secret-rotation-not-reported',
    kind: 'control-plane',
    what:
      "Creating the signing secret answers `rotated` from the insert's result (`rotated = inserted === 0`), and the upsert reports one row whether it inserted or replaced: replacing an account's signing secret answers `rotated: false`, as for a first secret, so a dashboard cannot warn that the receivers still verify with the old secret. First secrets are right. " +
      'Mock-control createWebhookSecret: "Creates the account\'s webhook signing secret, or replaces it (`rotated: true`) ... Every attempt from then on is signed with the new secret only"; docs/decisions/013-calls-and-webhooks.md: "the account\'s signing secret (`whsec_...`, shown once when created or rotated through the control plane)".',
    make: () => ({
      response(response, request) {
        if (
          request.method !== 'POST' ||
          !/^\/_mock\/accounts\/[^/]+\/webhook-secret\/?$/.test(pathOf(request))
        )
          return response
        if (response.status === 201 && isObject(response.body) && response.body.rotated === true)
          response.body.rotated = false
        return response
      },
    }),
  },
  {
    name: 'journal-listed-oldest-first',
    kind: 'control-plane',
    what:
      'The journal is read in its insertion order (`SELECT ... ORDER BY id LIMIT :limit` on an append-only table): GET /_mock/journal lists the oldest of the kept requests first, and with a `limit` it answers the oldest ones, so the request that just failed is at the end of the list or not in it at all. One-entry journals are right. ' +
      'Mock-control listJournal: "The request journal: the most recent 1000 requests to `/v1` ..., newest first"; summary "List recent v1 requests"; docs/decisions/010-control-plane.md: "a journal of recent requests (key ID, route, status), to watch for failed requests after a rotation".',
    make: () => {
      const limits = new Map<EngineRequest, number>()
      return {
        request(request) {
          if (request.method !== 'GET' || !/^\/_mock\/journal\/?$/.test(pathOf(request))) return request
          const sent = queryOf(request).getAll('limit')
          if (sent.length > 1 || (sent.length === 1 && !/^[1-9][0-9]{0,3}$/.test(sent[0] as string)))
            return request
          const limit = sent.length === 1 ? Number(sent[0]) : 100
          if (limit > 1000) return request
          const changed = withQuery(request, (query) => {
            query.set('limit', '1000')
          })
          limits.set(changed, limit)
          return changed
        },
        response(response, request) {
          const limit = limits.get(request)
          limits.delete(request)
          if (limit === undefined || response.status !== 200 || !isObject(response.body)) return response
          const data = response.body.data
          if (!Array.isArray(data)) return response
          response.body.data = [...data].reverse().slice(0, limit)
          response.body.has_more = data.length > limit
          return response
        },
      }
    },
  },
  {
    name: 'clock-advance-drops-fractions',
    kind: 'control-plane',
    what:
      'The clock is advanced by `parseInt(seconds)` whole seconds: a fractional advance loses its fraction (1.5 s moves the clock by 1 s, and 0.5 s answers 200 without moving it), so tests that step through a window in half seconds never reach its end. Whole-second advances are right. ' +
      'Mock-control advanceClock: "Moves the clock forward by `seconds` (fractions allowed; more than 0, at most one year per call) and answers with the new clock"; ClockAdvanceRequest.seconds: `{type: number, exclusiveMinimum: 0}`.',
    make: () => ({
      request(request) {
        if (request.method !== 'POST' || !/^\/_mock\/clock\/advance\/?$/.test(pathOf(request))) return request
        const body = objectBody(request)
        const seconds = body?.seconds
        if (!body || typeof seconds !== 'number' || Number.isInteger(seconds) || !validBody(request))
          return request
        const whole = Math.floor(seconds)
        if (whole > 0) return withJson(request, { ...body, seconds: whole })
        // Nothing to move: the clock as it is, as the answer to the advance.
        const { 'content-type': _type, ...headers } = request.headers
        return { ...request, method: 'GET', url: '/_mock/clock', body: null, headers }
      },
    }),
  },
]
