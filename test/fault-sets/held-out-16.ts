/**
 * Held-out fault set 16: thirty faults an implementer of the platform's v1 API could plausibly ship, written blind to
 * the contract suite: neither its checks, nor its exploration, nor its tests, nor its documentation were read, and the
 * suite was never run. held-out-3 to held-out-15 were read for their format only, and so as not to repeat their
 * faults (every fault here breaks another rule, on another operation, or in another situation than theirs). The
 * sources were the platform's spec, the product decisions (the repository's own record of them is `docs/decisions/`),
 * the contract (`openapi/v1.yaml`, `openapi/mock-control.yaml`) and the mock engine (the correct implementation every
 * fault wraps). Each fault wraps the correct engine (`faultyHandler`): it rewrites a request before the engine sees it
 * (a value as a faulty column would store it, a placeholder for what the engine would refuse to store twice, an ID
 * as a faulty sequence or collation resolves it, a header a lagging replica would not have seen), answers in the
 * engine's place where the faulty storage answers by itself (the engine is then sent a harmless read, or a CORS
 * preflight, which it answers without counting anything, so that nothing the faulty platform would not have done
 * happens), or rewrites the engine's answer, keeping what it needs to remember in the closure `make()` returns (keys
 * and accounts seen through the control plane, objects as answers showed them, deletions, simulated calls, the
 * platform clock as the answers show it, a ledger of counted requests).
 *
 * The theme is "the storage and the clock beneath a correct API layer": the handlers are right, what they store into
 * and read from is not. Collations (case-insensitive names, IDs and metadata keys), column types and widths (a
 * minute-rounding datetime, a byte-sized name column, a TEXT column holding idempotency bodies, DECIMAL and NUMERIC
 * scales, an ENUM without a newer value, a SET column, key/value tables that return text), NULL and empty values
 * (an empty JSON object stored as NULL, an empty map written back as a list, empty strings dropped by a document
 * store), soft deletes (a finder without the scope, an upsert that revives a removed row), a sequence that reuses
 * the newest ID, read replicas (uniqueness, cursor and idempotency lookups that miss the last second's writes), an
 * object cache a deletion does not reach, database defaults and triggers (a lazily inserted row, ON UPDATE
 * CURRENT_TIMESTAMP), a join with the carrier's call records, a job queue (an index filled by a job, a redelivered
 * job), time zones stored as offsets, a clock read once per connection, floating-point sums, and a rate-limit counter
 * incremented outside the transaction. Every fault deviates from the platform's spec, the contract or a decision
 * (cited in `what`), in specific situations only (ordinary traffic, the first reads of every endpoint and a create and
 * a read, is unchanged), and never where the spec leaves a choice open (docs/decisions/011-allowed-forms.md).
 * Liveness: `scripts/fault-sets/held-out-16-live.ts`.
 */
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'
import {
  preflightInstead as answeredInFront,
  canonical,
  chars,
  errorAnswer,
  isAnalytics,
  isCreate,
  isObject,
  isV1,
  itemId,
  itemOf,
  type Json,
  jsonOf,
  newestFirst,
  nowOf,
  objectsOf,
  ok,
  ownHeaders,
  pathOf,
  queryOf,
  replayed,
  secondOf,
  startedCall,
  tightest,
  timestampOf,
  tokenOf,
  urlOf,
  windowsOf,
  withJson,
} from './request-parts.ts'

export interface HeldOutFault {
  name: string
  kind:
    | 'collation'
    | 'width'
    | 'precision'
    | 'decimals'
    | 'typing'
    | 'nulls'
    | 'soft-delete'
    | 'sequence'
    | 'replica'
    | 'cache'
    | 'defaults'
    | 'denormalised'
    | 'queue'
    | 'clock'
    | 'counters'
  /** The deviation, with the sentence of the spec, the contract or the decision it breaks. */
  what: string
  make: () => Fault
}

// ------------------------------------------------------------------------------------------------- helpers

/** The list a read asks for (`agents`, `call-logs`, `team-members`, `integrations`), or undefined. */
function listOf(request: EngineRequest): string | undefined {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined
  return /^\/v1\/(agents|call-logs|team-members|integrations)\/?$/.exec(pathOf(request))?.[1]
}

/** A JSON answer built on the engine's answer (its Request-Id, rate-limit and CORS headers). */
const answer = (base: EngineResponse, status: number, body: unknown): EngineResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...ownHeaders(base) },
  body,
})

// ---------------------------------------------------------------------------------------- what a fault learns

/**
 * What every fault of this set may need to know: the account of each key (a key's 201 in the control plane names
 * it, `GET /user` tells it for any other key), the platform clock as the answers show it (v1 rate-limit fields, the
 * control plane's clock and the creation times it answers), and the state a fault keeps in maps it asks for.
 * `POST /_mock/reset`, which starts the platform again, empties them all.
 */
class Book {
  /** The platform clock in whole seconds, as last seen (undefined until an answer tells it). */
  now: number | undefined
  private readonly keys = new Map<string, string>()
  private readonly kept: { clear(): void }[] = [this.keys]

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

  /** Something else to empty on a reset. */
  keep<T extends { clear(): void }>(value: T): T {
    this.kept.push(value)
    return value
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
    const created =
      request.method === 'POST' &&
      response.status === 201 &&
      (path === '/_mock/accounts' || /^\/_mock\/accounts\/[^/]+\/(keys|calls)$/.test(path))
    if (created) this.now = secondOf(body?.created_at) ?? this.now
    if (/^\/_mock\/accounts\/[^/]+\/keys$/.test(path) && response.status === 201 && body)
      if (typeof body.value === 'string' && typeof body.account_id === 'string')
        this.keys.set(body.value, body.account_id)
    this.now = nowOf(response) ?? this.now
    const token = tokenOf(request)
    if (/^\/v1\/user\/?$/.test(path) && response.status === 200 && body && token !== undefined)
      if (typeof body.id === 'string') this.keys.set(token, body.id)
    return false
  }

  /** The account of a key; a key never seen counts as an account of its own. */
  account(token: string | undefined): string {
    return (token === undefined ? undefined : this.keys.get(token)) ?? `token:${token ?? ''}`
  }

  /** The account of a request: its key's (v1), or the one its control-plane path names. */
  accountOf(request: EngineRequest): string {
    const path = /^\/_mock\/accounts\/([^/]+)/.exec(pathOf(request))
    return path ? (path[1] as string) : this.account(tokenOf(request))
  }
}

// ------------------------------------------------------------------------------------------- ID aliases

const ID = /\b(?:agt|mem|call)_[A-Za-z0-9]+\b/g

/**
 * IDs the faulty platform shows for objects the engine knows under other IDs: requests are sent to the engine with
 * the engine's IDs (path, query and body), answers are shown with the platform's (body and headers).
 */
class Aliases {
  private readonly toEngine = new Map<string, string>()
  private readonly toShown = new Map<string, string>()

  link(shown: string, engine: string): void {
    const before = this.toEngine.get(shown)
    if (before !== undefined) this.toShown.delete(before)
    this.toEngine.set(shown, engine)
    this.toShown.set(engine, shown)
  }

  clear(): void {
    this.toEngine.clear()
    this.toShown.clear()
  }

  request(request: EngineRequest): EngineRequest {
    if (this.toEngine.size === 0) return request
    const swap = (text: string) => text.replace(ID, (id) => this.toEngine.get(id) ?? id)
    const url = swap(request.url)
    const body = request.body === null ? null : swap(request.body)
    return url === request.url && body === request.body ? request : { ...request, url, body }
  }

  response(response: EngineResponse): void {
    if (this.toShown.size === 0) return
    const swap = (text: string) => text.replace(ID, (id) => this.toShown.get(id) ?? id)
    if (isObject(response.body) || Array.isArray(response.body))
      response.body = JSON.parse(swap(JSON.stringify(response.body)))
    for (const [name, value] of Object.entries(response.headers)) response.headers[name] = swap(value)
  }
}

// ---------------------------------------------------------------------------------------- team-member e-mails

/**
 * E-mail placeholders handed to the engine in place of an address it would refuse as taken, shown as the address
 * they stand for in every answer; a retry with the same Idempotency-Key is sent with the same placeholder.
 */
function placeholders(book: Book) {
  const standsFor = book.map<string, string>()
  const retried = book.map<string, string>()
  let counter = 0
  return {
    /** The invitation sent with a placeholder address that stands for `email`. */
    send(request: EngineRequest, body: Json, email: string): EngineRequest {
      const key = request.headers['idempotency-key']
      const slot = key === undefined ? undefined : `${book.account(tokenOf(request))} ${key} ${email}`
      let stand = slot === undefined ? undefined : retried.get(slot)
      if (stand === undefined) {
        counter++
        stand = `h16-member-${counter}@placeholder.invalid`
        standsFor.set(stand, email)
        if (slot !== undefined) retried.set(slot, stand)
      }
      return withJson(request, { ...body, email: stand })
    },
    /** The placeholder already used for a retry of this request, if any. */
    retry(request: EngineRequest, email: string): string | undefined {
      const key = request.headers['idempotency-key']
      return key === undefined ? undefined : retried.get(`${book.account(tokenOf(request))} ${key} ${email}`)
    },
    /** The address a placeholder stands for (or the address itself). */
    real: (email: string) => standsFor.get(email) ?? email,
    /** Shows placeholders as the addresses they stand for. */
    show(response: EngineResponse): void {
      for (const member of objectsOf(response, 'team_member'))
        if (typeof member.email === 'string') member.email = standsFor.get(member.email) ?? member.email
    },
  }
}

// ------------------------------------------------------------------------------------------- value helpers

const encoder = new TextEncoder()
const bytesOf = (text: string) => encoder.encode(text).length

/** The longest prefix of whole characters of `text` that fits in `limit` UTF-8 bytes. */
function cutToBytes(text: string, limit: number): string {
  let out = ''
  let used = 0
  for (const char of text) {
    const size = bytesOf(char)
    if (used + size > limit) break
    out += char
    used += size
  }
  return out
}

/** Whether a metadata map is one the contract accepts (at most 50 keys of 1-40 characters, string values of at most 500). */
const validMetadata = (value: unknown): value is Record<string, string> =>
  isObject(value) &&
  Object.keys(value).length <= 50 &&
  Object.entries(value).every(
    ([key, v]) => chars(key) >= 1 && chars(key) <= 40 && typeof v === 'string' && chars(v) <= 500,
  )

/** Code-point order, as the contract compares names. */
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

const WEBHOOK_EVENT_ORDER = ['call.started', 'call.ended', 'call.analyzed', 'transcript.ready']
const FINAL_STATUSES = new Set(['completed', 'no_answer', 'busy', 'failed', 'canceled'])

/** The UTC offset, in minutes, of a time zone at an instant (undefined for an unknown zone). */
function offsetMinutes(timeZone: string, ms: number): number | undefined {
  let formatter: Intl.DateTimeFormat
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
  const parts: Record<string, number> = {}
  for (const part of formatter.formatToParts(ms))
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
}

// --------------------------------------------------------------------------------- the counted-requests ledger

interface Quota {
  policy: string
  q: number
  w: number
}

/** One account's requests as a faulty limiter counts them: admitted ones, and refused ones it never uncounted. */
interface Ledger {
  quotas: Quota[]
  admitted: number[]
  refused: number[]
}

interface LedgerWindow extends Quota {
  used: number
  r: number
  t: number
}

function ledgerWindows(ledger: Ledger, now: number): LedgerWindow[] {
  return ledger.quotas.map((quota) => {
    const live = [...ledger.admitted, ...ledger.refused].filter((second) => second + quota.w > now)
    const oldest = live.length > 0 ? Math.min(...live) : undefined
    return {
      ...quota,
      used: live.length,
      r: Math.max(0, quota.q - live.length),
      t: oldest === undefined ? 0 : oldest + quota.w - now,
    }
  })
}

/** `RateLimit` and the legacy fields, as the ledger has them. */
function ledgerHeaders(windows: LedgerWindow[], now: number): Record<string, string> {
  const best = tightest(windows)
  return {
    ratelimit: windows.map((window) => `"${window.policy}";r=${window.r};t=${window.t}`).join(', '),
    'x-ratelimit-limit': String(best.q),
    'x-ratelimit-remaining': String(best.r),
    'x-ratelimit-reset': String(now + best.t),
  }
}

/** The exhausted window that decides the wait (the engine's rule) and the wait, or undefined when none is. */
function ledgerRefusal(
  windows: LedgerWindow[],
  exhausted: Set<string>,
): { policy: string; retryAfter: number } | undefined {
  if (exhausted.size === 0) return undefined
  let policy = [...exhausted][0] as string
  let retryAfter = 0
  for (const window of windows)
    if (exhausted.has(window.policy) && window.t >= retryAfter) {
      retryAfter = window.t
      policy = window.policy
    }
  return { policy, retryAfter: Math.max(1, retryAfter) }
}

// ------------------------------------------------------------------------------------------------- faults

export const faults: HeldOutFault[] = [
  // ------------------------------------------------------------------------------------------- collation
  {
    name: 'credential-hint-key-sorted-by-collation',
    kind: 'collation',
    what:
      'Integration credentials are kept one row per entry in `integration_credentials(integration, name, value)`, whose `name` column is `citext` (names compare lower-cased), and the hint is read with `ORDER BY name LIMIT 1`: when the credential names differ in case (`Token` and `secret`, `apiKey` and `api_key`), `credential_hint` shows the last four characters of the value whose name sorts first once lower-cased, not by code point, in the PATCH answer and in every later read. ' +
      'Contract, updateIntegration: "`credential_hint` is `"..."` followed by the last 4 characters of the credential value whose key sorts first (by code point)"; Integration.credential_hint: "the last 4 characters of a stored credential".',
    make: () => ({
      request(request) {
        if (itemId(request, 'PATCH', 'integrations') === undefined) return request
        const body = jsonOf(request)
        if (!isObject(body) || !isObject(body.credentials)) return request
        const entries = Object.entries(body.credentials)
        const valid =
          entries.length >= 2 &&
          entries.length <= 20 &&
          entries.every(
            ([name, value]) =>
              /^[\x20-\x7e]{1,40}$/.test(name) &&
              typeof value === 'string' &&
              chars(value) >= 8 &&
              chars(value) <= 4096,
          )
        const names = entries.map(([name]) => name)
        if (!valid || new Set(names.map((name) => name.toLowerCase())).size !== names.length) return request
        const first = [...names].sort(byCodePoint)[0]
        const folded = [...names].sort((a, b) => byCodePoint(a.toLowerCase(), b.toLowerCase()))[0]
        if (first === folded) return request
        // Credentials are never returned: only the hint shows which name sorted first.
        const credentials = Object.fromEntries(entries.map(([name, value]) => [name.toLowerCase(), value]))
        return withJson(request, { ...body, credentials })
      },
    }),
  },
  {
    name: 'metadata-keys-folded-by-collation',
    kind: 'collation',
    what:
      "Agent metadata is kept one row per key in `agent_metadata(agent_id, key, value)`, with a unique key on (agent_id, key) in the table's case-insensitive collation (`utf8mb4_0900_ai_ci`), written with `INSERT ... ON DUPLICATE KEY UPDATE value = VALUES(value)`: a metadata map whose keys differ only in case (`Region` and `region`, `crmId` and `CRMID`) is stored, answered and read back as one entry, under the first key's spelling with the last key's value, on create and on update. " +
      'Contract, Metadata: "Free-form string key/value pairs for your own use: at most 50 keys, keys 1-40 characters"; updateAgent: "every other field, including `metadata` ... **replaces** the stored value as a whole"; createAgent answers the agent created from the body.',
    make: () => ({
      request(request) {
        const create = isCreate(request, 'agents')
        if (!create && itemId(request, 'PATCH', 'agents') === undefined) return request
        const body = jsonOf(request)
        if (!isObject(body) || !validMetadata(body.metadata)) return request
        const folded = new Map<string, [string, string]>()
        for (const [key, value] of Object.entries(body.metadata)) {
          const slot = key.toLowerCase()
          const before = folded.get(slot)
          folded.set(slot, [before?.[0] ?? key, value])
        }
        if (folded.size === Object.keys(body.metadata).length) return request
        return withJson(request, { ...body, metadata: Object.fromEntries(folded.values()) })
      },
    }),
  },
  {
    name: 'item-ids-matched-case-insensitively',
    kind: 'collation',
    what:
      "The ID columns of agents, call logs and team members use the database's default case-insensitive collation (`utf8mb4_general_ci`): an ID written in another case (`agt_8FK2MQX7...` for `agt_8fK2mQx7...`, an ID lower-cased by a client or a URL normaliser) finds the object, in the path (GET, PATCH and DELETE of /agents/{agent_id}, /call-logs/{call_log_id}, /team-members/{member_id}), as a cursor (`starting_after`, `ending_before`) and as the `agent_id` filter of GET /call-logs and GET /analytics/calls, instead of naming no object. " +
      'docs/decisions/001-general.md: "Identifiers carry a type prefix followed by base62 characters" (base62: upper and lower case are different digits); contract, getAgent: "An unknown ID ... gives 404 `resource_not_found`"; StartingAfter: "an ID that is not an object of this collection in this account is 400 `invalid_cursor`"; listCallLogs: "an `agent_id` that has the right shape but no call logs simply yields an empty list".',
    make: () => {
      const book = new Book()
      const known = book.map<string, string>()
      const learn = (account: string, id: unknown) => {
        if (typeof id === 'string' && /^(agt|call|mem)_[A-Za-z0-9]+$/.test(id))
          known.set(`${account} ${id.toLowerCase()}`, id)
      }
      return {
        request(request) {
          if (!isV1(request)) return request
          const account = book.account(tokenOf(request))
          const resolve = (id: string) => {
            const found = known.get(`${account} ${id.toLowerCase()}`)
            return found !== undefined && found !== id ? found : undefined
          }
          const url = urlOf(request)
          let path = url.pathname
          const item = itemOf(request)
          const stored = item && item.collection !== 'integrations' ? resolve(item.id) : undefined
          if (item && stored) path = path.replace(/[^/]+(\/?)$/, `${stored}$1`)
          let changed = path !== url.pathname
          for (const name of ['starting_after', 'ending_before', 'agent_id']) {
            const sent = url.searchParams.get(name)
            const found = sent === null ? undefined : resolve(sent)
            if (found === undefined) continue
            url.searchParams.set(name, found)
            changed = true
          }
          if (!changed) return request
          const query = url.searchParams.toString()
          return { ...request, url: `${path}${query ? `?${query}` : ''}` }
        },
        response(response, request) {
          book.observe(request, response)
          const started = startedCall(request, response)
          if (started) {
            learn(started.account, started.log.id)
            learn(started.account, started.log.agent_id)
          }
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          for (const type of ['agent', 'call_log', 'team_member'])
            for (const object of objectsOf(response, type)) {
              learn(account, object.id)
              learn(account, object.agent_id)
            }
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------------- width
  {
    name: 'agent-name-cut-at-100-bytes',
    kind: 'width',
    what:
      "The agents table keeps `name` in a `varchar(100)` column of a UTF-8 collation on SQL Server, where the length counts bytes, and the connection runs with `ANSI_WARNINGS OFF`, so a longer value is cut without an error: a name of at most 100 characters but more than 100 bytes (50 Cyrillic, Greek or accented Latin letters and more, 34 CJK characters and more) is stored, answered and read back cut to its first 100 bytes' worth of whole characters, with a 201 or 200. " +
      'Contract, Agent / AgentCreateRequest / AgentUpdateRequest: `name: {type: string, minLength: 1, maxLength: 100}` (JSON Schema counts characters); createAgent answers the agent created from the body; updateAgent: "every other field ... **replaces** the stored value"; Conventions: "Request and response bodies are JSON objects (`application/json`, UTF-8)".',
    make: () => ({
      request(request) {
        if (!isCreate(request, 'agents') && itemId(request, 'PATCH', 'agents') === undefined) return request
        const body = jsonOf(request)
        if (!isObject(body) || typeof body.name !== 'string') return request
        if (chars(body.name) > 100 || bytesOf(body.name) <= 100) return request
        return withJson(request, { ...body, name: cutToBytes(body.name, 100) })
      },
    }),
  },
  {
    name: 'idempotency-body-compared-in-64k-column',
    kind: 'width',
    what:
      'The idempotency table keeps the first request body, to compare retries with, in a MySQL `TEXT` column (65,535 bytes) on a server that is not in strict mode, so a longer body is stored cut, and a retry is compared with what was stored after being cut the same way: two bodies over 64 KiB that share their first 65,535 bytes are the same request, and a retry with the same Idempotency-Key whose body differs only further on (the last metadata values of an agent, the end of a long system prompt in a non-Latin script) gets the first answer replayed, with `Idempotent-Replayed: true`, instead of 409 idempotency_key_reused. ' +
      'Contract, Idempotency: "a retry with the same key, same path and the same body (compared as JSON values ...) returns the stored status, headers and body ... The same key with another body or another path is 409 `idempotency_key_reused`"; docs/decisions/008-lists-and-idempotency.md: "the same key with another request is 409 `idempotency_key_reused`".',
    make: () => {
      const book = new Book()
      const stored = book.map<string, { path: string; body: string; at: number }>()
      const LIMIT = 65_535
      const slotOf = (request: EngineRequest) => {
        const key = request.headers['idempotency-key']
        return key === undefined ? undefined : `${book.account(tokenOf(request))} ${key}`
      }
      const cut = (text: string) => encoder.encode(text).slice(0, LIMIT).join(',')
      return {
        request(request) {
          const slot = slotOf(request)
          if (!isV1(request) || request.method !== 'POST' || slot === undefined || request.body === null)
            return request
          const first = stored.get(slot)
          if (!first || first.path !== pathOf(request) || first.body === request.body) return request
          if (book.now === undefined || book.now - first.at >= 86_400) return request
          if (bytesOf(request.body) <= LIMIT || bytesOf(first.body) <= LIMIT) return request
          return cut(first.body) === cut(request.body) ? { ...request, body: first.body } : request
        },
        response(response, request) {
          book.observe(request, response)
          const slot = slotOf(request)
          if (!isV1(request) || request.method !== 'POST' || slot === undefined || request.body === null)
            return response
          if (ok(response) && !replayed(response) && !stored.has(slot) && book.now !== undefined)
            stored.set(slot, { path: pathOf(request), body: request.body, at: book.now })
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------- precision
  {
    name: 'invitation-times-rounded-to-minute',
    kind: 'precision',
    what:
      'The team_members table keeps `created_at` and `invited_at` in SQL Server `smalldatetime` columns, which round to the nearest minute: an invitation made at 12:00:40 is answered and read back with `created_at` and `invited_at` 12:01:00 (a time still to come), one made at 12:00:20 with 12:00:00, and the list orders invitations by the rounded value; invitations made on a whole minute are unchanged. ' +
      'Contract, inviteTeamMember: "Answers **201** with the new member (`status: invited`, `joined_at: null`, `invited_at` = `created_at` = now)"; TeamMember.invited_at: "When the invitation was sent"; listTeamMembers: "newest first (`created_at` descending, then `id` descending)".',
    make: () => {
      const book = new Book()
      const rounded = book.map<string, string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          if (isCreate(request, 'team-members') && response.status === 201 && isObject(response.body)) {
            const second = secondOf(response.body.created_at)
            if (second !== undefined && second % 60 !== 0) {
              const minute = Math.floor(second / 60) * 60 + (second % 60 >= 30 ? 60 : 0)
              rounded.set(`${account} ${String(response.body.id)}`, timestampOf(minute))
            }
          }
          let touched = false
          for (const member of objectsOf(response, 'team_member')) {
            const at = rounded.get(`${account} ${String(member.id)}`)
            if (at === undefined) continue
            touched = true
            member.created_at = at
            if (member.invited_at !== null) member.invited_at = at
          }
          const body = response.body
          if (touched && listOf(request) === 'team-members' && isObject(body) && Array.isArray(body.data))
            body.data = (body.data as Json[]).sort(newestFirst)
          return response
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------------- decimals
  {
    name: 'llm-temperature-in-decimal-2-1',
    kind: 'decimals',
    what:
      "The agents table keeps `llm_temperature` in a `DECIMAL(2,1)` column (one decimal, enough for the dashboard's slider), so a temperature with more decimals is rounded half away from zero when it is stored: an agent created or updated with `llm.temperature: 0.75` (or 0.25, 1.35) is answered and read back with 0.8 (0.3, 1.4), with a 201 or 200. " +
      'Contract, LlmInput / LlmUpdate / Llm: `temperature: {type: number, minimum: 0, maximum: 2}` (any number in the range); updateAgent: "`voice` and `llm` are **merged** field by field into the stored objects"; createAgent answers the agent created from the body.',
    make: () => ({
      request(request) {
        if (!isCreate(request, 'agents') && itemId(request, 'PATCH', 'agents') === undefined) return request
        const body = jsonOf(request)
        if (!isObject(body) || !isObject(body.llm)) return request
        const temperature = body.llm.temperature
        if (typeof temperature !== 'number' || temperature < 0 || temperature > 2) return request
        const stored = Math.round(Number((temperature * 10).toPrecision(12))) / 10
        if (stored === temperature) return request
        return withJson(request, { ...body, llm: { ...body.llm, temperature: stored } })
      },
    }),
  },
  {
    name: 'group-success-rate-two-decimals',
    kind: 'decimals',
    what:
      "With `group_by`, GET /analytics/calls reads each group's metrics from a per-group roll-up table whose `success_rate` column is `NUMERIC(3,2)`: in `groups[].totals` and in every `groups[].series[].metrics`, `success_rate` is rounded to 2 decimals (2 of 3 analysed calls successful gives 0.67, 4 of 11 gives 0.36), while the top-level `totals` and `series` keep 4 decimals. " +
      'Contract, getCallAnalytics: "`success_rate` = `successful_count / analyzed_count` (rounded to 4 decimals, `null` when nothing was analyzed)"; AnalyticsMetrics.success_rate: "`successful_count / analyzed_count`, 4 decimals"; AnalyticsGroup.totals and series are `AnalyticsMetrics`.',
    make: () => ({
      response(response, request) {
        if (!isAnalytics(request) || response.status !== 200 || !isObject(response.body)) return response
        const groups = response.body.groups
        if (!Array.isArray(groups)) return response
        const round = (metrics: unknown) => {
          if (isObject(metrics) && typeof metrics.success_rate === 'number')
            metrics.success_rate = Math.round(metrics.success_rate * 100) / 100
        }
        for (const group of groups.filter(isObject)) {
          round(group.totals)
          if (Array.isArray(group.series))
            for (const bucket of group.series.filter(isObject)) round(bucket.metrics)
        }
        return response
      },
    }),
  },
  {
    name: 'group-cost-totals-summed-in-floating-point',
    kind: 'decimals',
    what:
      "With `group_by`, each group's `totals.total_cost_usd` is summed in application code from the group's bucket rows (`buckets.reduce((sum, b) => sum + b.total_cost_usd, 0)`), in binary floating point and without rounding, while the top-level totals come from the database's exact `SUM` over a `NUMERIC` column: a group whose calls fall in several buckets gets a total such as 2.8506000000000005 (more than 4 decimals) instead of 2.8506. " +
      'Contract, getCallAnalytics: "Every count and every total ... summed over `series` equals the same field of `totals` exactly (costs have at most 4 decimals and sums are rounded to 4 decimals)", "Group totals add up to the top-level `totals`"; AnalyticsMetrics.total_cost_usd: "Sum of `cost_usd` of completed calls, 4 decimals".',
    make: () => ({
      response(response, request) {
        if (!isAnalytics(request) || response.status !== 200 || !isObject(response.body)) return response
        const groups = response.body.groups
        if (!Array.isArray(groups)) return response
        for (const group of groups.filter(isObject)) {
          if (!isObject(group.totals) || !Array.isArray(group.series)) continue
          let sum = 0
          for (const bucket of group.series.filter(isObject))
            if (isObject(bucket.metrics) && typeof bucket.metrics.total_cost_usd === 'number')
              sum += bucket.metrics.total_cost_usd
          group.totals.total_cost_usd = sum
        }
        return response
      },
    }),
  },

  // ---------------------------------------------------------------------------------------------- typing
  {
    name: 'config-values-read-back-as-text',
    kind: 'typing',
    what:
      'Integration settings written through PATCH go to a key/value table, `integration_settings(integration, key, value text)` (the old JSON column is read only for integrations whose configuration was never changed since the migration): once an integration\'s `config` has been set through the API, its numbers and booleans come back as strings (`{"timeout_seconds": 10, "notify_on_failure": true}` is answered and read back, by ID and in the list, as `{"timeout_seconds": "10", "notify_on_failure": "true"}`). ' +
      'Contract, IntegrationConfig: "values are strings (at most 1000 characters), numbers or booleans"; updateIntegration: "`config` **replaces** the stored configuration as a whole"; the connect_slack example answers `notify_on_failure: true` as sent.',
    make: () => {
      const book = new Book()
      const textual = book.set<string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const patched = itemId(request, 'PATCH', 'integrations')
          const body = jsonOf(request)
          if (patched !== undefined && response.status === 200 && isObject(body) && isObject(body.config))
            textual.add(`${account} ${patched}`)
          for (const integration of objectsOf(response, 'integration'))
            if (textual.has(`${account} ${String(integration.id)}`) && isObject(integration.config))
              integration.config = Object.fromEntries(
                Object.entries(integration.config).map(([key, value]) => [key, String(value)]),
              )
          return response
        },
      }
    },
  },
  {
    name: 'enterprise-plan-outside-enum-stored-empty',
    kind: 'typing',
    what:
      "The users table's `plan` column is a MySQL `ENUM('free','pro','team')` declared before the enterprise plan existed, and the server is not in strict mode, which stores a value outside an ENUM as the empty string: GET /user of an enterprise account answers `plan: \"\"` (its rate limits, kept elsewhere, are right). " +
      'The platform\'s spec, Resources: the User\'s `plan` is the "plan of the account; plans named in the rate-limit table are `free`, `pro`, `enterprise`"; contract, User.plan: `{type: string, enum: [free, pro, enterprise]}`, "Plan of the account; decides the rate limits".',
    make: () => ({
      response(response, request) {
        if (!/^\/v1\/user\/?$/.test(pathOf(request)) || response.status !== 200 || !isObject(response.body))
          return response
        if (response.body.plan === 'enterprise') response.body.plan = ''
        return response
      },
    }),
  },
  {
    name: 'webhook-events-in-set-column-order',
    kind: 'typing',
    what:
      "The agents table keeps `webhook_events` in a MySQL `SET('call.started','call.ended','call.analyzed','transcript.ready')` column, which returns its members in the order of the column's definition: an agent created or updated with `webhook_events: [\"transcript.ready\", \"call.ended\"]` is answered and read back with `[\"call.ended\", \"transcript.ready\"]`, the events in another order than the one sent. " +
      'Contract, updateAgent: "every other field, including `metadata` and `webhook_events`, **replaces** the stored value as a whole"; AgentCreateRequest.webhook_events: `{type: array, uniqueItems: true, ...}` (an array, whose order is part of its value); createAgent answers the agent created from the body.',
    make: () => {
      const book = new Book()
      const written = book.set<string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const body = jsonOf(request)
          const wrote = isObject(body) && Array.isArray(body.webhook_events)
          if (wrote && isCreate(request, 'agents') && response.status === 201 && isObject(response.body))
            written.add(`${account} ${String(response.body.id)}`)
          const patched = itemId(request, 'PATCH', 'agents')
          if (wrote && patched !== undefined && response.status === 200) written.add(`${account} ${patched}`)
          for (const agent of objectsOf(response, 'agent'))
            if (written.has(`${account} ${String(agent.id)}`) && Array.isArray(agent.webhook_events))
              agent.webhook_events = [...agent.webhook_events].sort(
                (a, b) => WEBHOOK_EVENT_ORDER.indexOf(String(a)) - WEBHOOK_EVENT_ORDER.indexOf(String(b)),
              )
          return response
        },
      }
    },
  },
  {
    name: 'live-call-empty-metadata-as-array',
    kind: 'typing',
    what:
      'Call logs of live calls (simulated through the telephony path, not imported history) are written by the telephony worker, a PHP service whose `json_decode($json, true)` / `json_encode` round trip turns an empty object into an empty list: a live call without metadata has `metadata: []` in GET /call-logs and GET /call-logs/{call_log_id}, instead of `{}`. ' +
      'Contract, CallLogSummary / CallLog: `metadata: {$ref: Metadata}`, Metadata: `{type: object, ...}` ("Free-form string key/value pairs"); Conventions: "Request and response bodies are JSON objects"; the examples show `metadata: {}` for a call without metadata.',
    make: () => {
      const book = new Book()
      const live = book.set<string>()
      return {
        response(response, request) {
          book.observe(request, response)
          const started = startedCall(request, response)
          if (started) live.add(String(started.log.id))
          if (!isV1(request)) return response
          for (const log of objectsOf(response, 'call_log'))
            if (live.has(String(log.id)) && isObject(log.metadata) && Object.keys(log.metadata).length === 0)
              log.metadata = []
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------------- nulls
  {
    name: 'emptied-metadata-read-back-null',
    kind: 'nulls',
    what:
      "The update path writes agents through the ORM's `update()`, whose JSON field is declared with `empty_as_null` (the create path inserts the column default `'{}'` itself): a PATCH that empties an agent's metadata (`metadata: {}`) stores SQL NULL, and the agent is answered and read back, by ID and in the list, with `metadata: null` until metadata is set again. " +
      'Contract, updateAgent: "`metadata: {}` removes all keys"; Agent.metadata: `{$ref: Metadata}` (an object), "present in every response to a secret key"; AgentUpdateRequest: "`null` clears `description`, `first_message` and `webhook_url`" (not `metadata`).',
    make: () => {
      const book = new Book()
      const emptied = book.set<string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const patched = itemId(request, 'PATCH', 'agents')
          const body = jsonOf(request)
          if (patched !== undefined && response.status === 200 && isObject(body) && 'metadata' in body) {
            if (isObject(body.metadata) && Object.keys(body.metadata).length === 0)
              emptied.add(`${account} ${patched}`)
            else emptied.delete(`${account} ${patched}`)
          }
          for (const agent of objectsOf(response, 'agent'))
            if (emptied.has(`${account} ${String(agent.id)}`) && 'metadata' in agent) agent.metadata = null
          return response
        },
      }
    },
  },
  {
    name: 'replayed-empty-strings-become-null',
    kind: 'nulls',
    what:
      'Stored idempotent answers are kept in a document store whose marshaller writes empty strings as NULL (`convertEmptyValues`, needed by the store\'s older API, which refused empty strings): a replay of a create with `Idempotency-Key` answers the stored object with every empty string turned into `null`, so a replayed agent created without a system prompt has `system_prompt: null`, and one created with `first_message: ""` has `first_message: null`. ' +
      "Contract, Idempotency: a retry \"returns the stored status, headers and body, plus `Idempotent-Replayed: true`\"; Agent.system_prompt: `{type: string, maxLength: 20000}` (not nullable), AgentCreateRequest `system_prompt ... default: ''`; the minimal createAgent example answers `system_prompt: ''`.",
    make: () => {
      const nulled = (value: unknown): unknown => {
        if (value === '') return null
        if (Array.isArray(value)) return value.map(nulled)
        if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, nulled(v)]))
        return value
      }
      return {
        response(response, request) {
          if (!isV1(request) || request.method !== 'POST' || !replayed(response)) return response
          response.body = nulled(response.body)
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------- soft delete
  {
    name: 'deleted-call-log-readable-by-id',
    kind: 'soft-delete',
    what:
      'Call logs are soft-deleted (a `deleted_at` column) and the lists and analytics leave deleted rows out, but GET /call-logs/{call_log_id} loads the row with the primary-key finder, which skips the default scope (`findByPk(id, { paranoid: false })`, written so that support could open deleted calls): a deleted call log is still answered by ID, 200 with its transcript, as it was when deleted, instead of 404 (DELETE of it again is 404). ' +
      'Contract, deleteCallLog: "Permanently deletes a call log (with its transcript, analysis and recording reference)"; NotFound: "`resource_not_found`: the path ID does not exist in the key\'s account (or has the wrong shape, or was deleted)".',
    make: () => {
      const book = new Book()
      const logs = book.map<string, Json>()
      const gone = book.map<string, Json>()
      const remember = (account: string, log: Json) => {
        const key = `${account} ${String(log.id)}`
        const before = logs.get(key)
        if ('transcript' in log) logs.set(key, structuredClone(log))
        else if (before) logs.set(key, { ...before, ...structuredClone(log) })
      }
      return {
        response(response, request) {
          book.observe(request, response)
          const started = startedCall(request, response)
          if (started) remember(started.account, started.log)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          for (const log of objectsOf(response, 'call_log')) remember(account, log)
          const removed = itemId(request, 'DELETE', 'call-logs')
          const last = removed === undefined ? undefined : logs.get(`${account} ${removed}`)
          if (removed !== undefined && response.status === 200 && last)
            gone.set(`${account} ${removed}`, last)
          const read = itemId(request, 'GET', 'call-logs')
          const kept = read === undefined ? undefined : gone.get(`${account} ${read}`)
          if (!kept || response.status !== 404) return response
          return answer(response, 200, structuredClone(kept))
        },
      }
    },
  },
  {
    name: 'reinvite-revives-removed-member',
    kind: 'soft-delete',
    what:
      "Team members are soft-deleted, the unique index on (account_id, email) covers removed rows, and the invite path is an upsert (`INSERT ... ON CONFLICT (account_id, email) DO UPDATE SET deleted_at = NULL, status = 'invited', role = EXCLUDED.role, name = EXCLUDED.name, joined_at = NULL, invited_at = now()`): inviting again an address that was removed revives the old row, so the new invitation is answered with the removed member's ID and its original `created_at` (it sorts where the old member was), and the old ID, which answered 404 after the removal, resolves again. " +
      'Contract, inviteTeamMember: "Answers **201** with the new member (`status: invited`, `joined_at: null`, `invited_at` = `created_at` = now)"; removeTeamMember: "Removes a member, or withdraws a pending invitation"; NotFound: "the path ID does not exist in the key\'s account (or ... was deleted)".',
    make: () => {
      const book = new Book()
      const aliases = book.keep(new Aliases())
      const members = book.map<string, { email: string; created_at: string }>()
      const removed = book.map<string, { id: string; created_at: string }>()
      const createdAt = book.map<string, string>()
      return {
        request: (request) => aliases.request(request),
        response(response, request) {
          if (book.observe(request, response)) return response
          if (!isV1(request)) return response
          aliases.response(response)
          const account = book.account(tokenOf(request))
          if (isCreate(request, 'team-members') && response.status === 201 && isObject(response.body)) {
            const body = response.body
            const revived = removed.get(`${account} ${String(body.email)}`)
            if (revived && !replayed(response)) {
              removed.delete(`${account} ${String(body.email)}`)
              aliases.link(revived.id, String(body.id))
              createdAt.set(revived.id, revived.created_at)
              aliases.response(response)
            }
          }
          const removal = itemId(request, 'DELETE', 'team-members')
          if (removal !== undefined && response.status === 200 && isObject(response.body)) {
            const id = String(response.body.id)
            const member = members.get(`${account} ${id}`)
            if (member) removed.set(`${account} ${member.email}`, { id, created_at: member.created_at })
          }
          let touched = false
          for (const member of objectsOf(response, 'team_member')) {
            const at = createdAt.get(String(member.id))
            if (at !== undefined) {
              member.created_at = at
              touched = true
            }
            members.set(`${account} ${String(member.id)}`, {
              email: String(member.email),
              created_at: String(member.created_at),
            })
          }
          const body = response.body
          if (touched && listOf(request) === 'team-members' && isObject(body) && Array.isArray(body.data))
            body.data = (body.data as Json[]).sort(newestFirst)
          return response
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------------- sequence
  {
    name: 'newest-agent-id-reused-after-delete',
    kind: 'sequence',
    what:
      "Agent IDs are the base62 encoding of the agents table's integer key (`agt_` + hashids of the rowid), and the key is a SQLite `INTEGER PRIMARY KEY` without `AUTOINCREMENT`, which hands out the largest key plus one: when the account's newest agent is deleted, the next agent created gets the same ID, so the deleted agent's ID, which answered 404, names the new agent again (GET answers it, PATCH changes it, a second DELETE of the old ID deletes it) and the new agent's call logs carry the old agent's ID. " +
      'Contract, getAgent: "An unknown ID, an ID of another account, or an ID of a deleted agent gives 404 `resource_not_found`"; deleteAgent: "Permanently deletes an agent ... Deleting it again gives 404"; header Location: the created resource; docs/decisions/008-lists-and-idempotency.md: "Cursor pagination on object IDs stays correct while objects are created and deleted".',
    make: () => {
      const book = new Book()
      const aliases = book.keep(new Aliases())
      const newest = book.map<string, string>()
      const reusable = book.map<string, string>()
      return {
        request: (request) => aliases.request(request),
        response(response, request) {
          if (book.observe(request, response)) return response
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          if (isCreate(request, 'agents') && response.status === 201 && isObject(response.body)) {
            if (!replayed(response)) {
              const freed = reusable.get(account)
              if (freed !== undefined) {
                reusable.delete(account)
                aliases.link(freed, String(response.body.id))
              }
            }
            aliases.response(response)
            if (!replayed(response) && isObject(response.body)) newest.set(account, String(response.body.id))
            return response
          }
          aliases.response(response)
          const removal = itemId(request, 'DELETE', 'agents')
          if (removal !== undefined && response.status === 200 && isObject(response.body)) {
            const id = String(response.body.id)
            if (newest.get(account) === id) {
              newest.delete(account)
              reusable.set(account, id)
            }
          }
          return response
        },
      }
    },
  },

  // --------------------------------------------------------------------------------------------- replica
  {
    name: 'duplicate-invite-same-second-on-replica',
    kind: 'replica',
    what:
      'POST /team-members checks that the address is not taken with a SELECT on the read replica, which trails the primary by up to a second, and the table has no unique index on (account_id, email) (the check is the only guard): an address invited within the same second of the platform clock (a double submit, a retry with a new Idempotency-Key after a timeout) is invited a second time, 201 with a new member, and the account then holds two invitations for one address; from the next second on the check sees it (409). ' +
      'Contract, inviteTeamMember: "if any member or pending invitation of the account already has it (case-insensitive), the answer is 409 `member_already_exists` (`param: email`)"; TeamMember: "E-mail addresses are unique per account (case-insensitive)"; docs/decisions/009-resources.md (team members, invite).',
    make: () => {
      const book = new Book()
      const invited = book.map<string, number>()
      const usedKeys = book.set<string>()
      const stand = placeholders(book)
      const keyOf = (request: EngineRequest) => {
        const key = request.headers['idempotency-key']
        return key === undefined ? undefined : `${book.account(tokenOf(request))} ${key}`
      }
      return {
        request(request) {
          if (!isCreate(request, 'team-members')) return request
          const body = jsonOf(request)
          if (!isObject(body) || typeof body.email !== 'string') return request
          const email = body.email.toLowerCase()
          const again = stand.retry(request, email)
          if (again !== undefined) return withJson(request, { ...body, email: again })
          // A key used before is replayed (or refused) by the idempotency layer, before the check runs.
          const key = keyOf(request)
          if (key !== undefined && usedKeys.has(key)) return request
          const at = invited.get(`${book.account(tokenOf(request))} ${email}`)
          if (at === undefined || at !== book.now) return request
          return stand.send(request, body, email)
        },
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          stand.show(response)
          if (isCreate(request, 'team-members') && response.status === 201 && isObject(response.body)) {
            const at = secondOf(response.body.created_at)
            const email = stand.real(String(response.body.email))
            if (at !== undefined && !replayed(response))
              invited.set(`${book.account(tokenOf(request))} ${email}`, at)
            const key = keyOf(request)
            if (key !== undefined) usedKeys.add(key)
          }
          return response
        },
      }
    },
  },
  {
    name: 'fresh-cursor-unknown-on-replica',
    kind: 'replica',
    what:
      'The lists resolve their cursor (the `created_at` and `id` of the object named by `starting_after` or `ending_before`) with a point query on the read replica, which trails the primary by up to a second, while the page itself is read from the primary: a cursor naming an agent, call log or team member created in the same second of the platform clock (a client that creates an object and pages from it at once) is 400 invalid_cursor, although the object exists and is listed. ' +
      'Contract, StartingAfter / EndingBefore: "Cursor: the ID of an object of this collection ... an ID that is not an object of this collection in this account is 400 `invalid_cursor`"; Lists and pagination: "`starting_after=<id>` returns the objects after that one in this order (older)"; docs/decisions/008-lists-and-idempotency.md.',
    make: () => {
      const book = new Book()
      const born = book.map<string, number>()
      const refused = new Map<EngineRequest, { param: string; id: string }>()
      return {
        request(request) {
          const list = listOf(request)
          if (list === undefined || list === 'integrations') return request
          const query = queryOf(request)
          const params = ['starting_after', 'ending_before'].filter((name) => query.has(name))
          if (params.length !== 1) return request
          const param = params[0] as string
          const id = query.get(param) as string
          const at = born.get(`${book.account(tokenOf(request))} ${id}`)
          if (at === undefined || at !== book.now) return request
          const url = urlOf(request)
          url.searchParams.delete(param)
          const rest = url.searchParams.toString()
          const sent = { ...request, url: `${url.pathname}${rest ? `?${rest}` : ''}` }
          refused.set(sent, { param, id })
          return sent
        },
        response(response, request) {
          const cursor = refused.get(request)
          refused.delete(request)
          book.observe(request, response)
          const started = startedCall(request, response)
          const at = started ? secondOf(started.log.created_at) : undefined
          if (started && at !== undefined) born.set(`${started.account} ${String(started.log.id)}`, at)
          if (!isV1(request)) return response
          if (cursor) {
            if (response.status !== 200) return response
            return errorAnswer(response, 400, {
              type: 'invalid_request_error',
              code: 'invalid_cursor',
              message: `No object with id '${cursor.id}' to page from.`,
              param: cursor.param,
            })
          }
          const created = isCreate(request, 'agents') || isCreate(request, 'team-members')
          if (created && response.status === 201 && isObject(response.body) && !replayed(response)) {
            const second = secondOf(response.body.created_at)
            if (second !== undefined)
              born.set(`${book.account(tokenOf(request))} ${String(response.body.id)}`, second)
          }
          return response
        },
      }
    },
  },
  {
    name: 'idempotency-lookup-on-replica',
    kind: 'replica',
    what:
      'The idempotency middleware looks the key up on the read replica, which trails the primary by up to a second (the record is written on the primary, and a second insert of the same key is silently ignored): a retry sent in the same second of the platform clock as the first request (a client that retries at once after a timeout) is carried out again, creating a second agent or invitation (a same-second retry with another body is carried out too, instead of 409), while a retry a second later replays the first answer. ' +
      'Contract, Idempotency: "a retry with the same key, same path and the same body ... returns the stored status, headers and body, plus `Idempotent-Replayed: true`, without creating anything again ... The same key with another body or another path is 409 `idempotency_key_reused`"; docs/decisions/008-lists-and-idempotency.md: "Idempotency keys make a POST safe to retry after a lost answer".',
    make: () => {
      const book = new Book()
      const records = book.map<string, number>()
      const slotOf = (request: EngineRequest) => {
        const key = request.headers['idempotency-key']
        return key === undefined ? undefined : `${book.account(tokenOf(request))} ${key}`
      }
      return {
        request(request) {
          const slot = slotOf(request)
          if (!isV1(request) || request.method !== 'POST' || slot === undefined) return request
          if (records.get(slot) === undefined || records.get(slot) !== book.now) return request
          const headers = { ...request.headers }
          delete headers['idempotency-key']
          return { ...request, headers }
        },
        response(response, request) {
          book.observe(request, response)
          const slot = slotOf(request)
          if (!isV1(request) || request.method !== 'POST' || slot === undefined) return response
          if (ok(response) && !replayed(response) && !records.has(slot) && book.now !== undefined)
            records.set(slot, book.now)
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------------- cache
  {
    name: 'removed-member-served-from-object-cache',
    kind: 'cache',
    what:
      'Team members read by ID go through an object cache (five minutes of platform time) that is filled by reads and invitations and written through by role changes, but not invalidated by removals: for five minutes after a member was read, invited or changed, GET /team-members/{member_id} of that member once removed (or of a withdrawn invitation) answers 200 with the member as cached, instead of 404 (PATCH and DELETE, which load from the database, answer 404). ' +
      'Contract, removeTeamMember: "Removes a member, or withdraws a pending invitation, and answers `{id, object: \\"team_member\\", deleted: true}`"; NotFound: "`resource_not_found`: the path ID does not exist in the key\'s account (or has the wrong shape, or was deleted)".',
    make: () => {
      const book = new Book()
      const cache = book.map<string, { member: Json; at: number }>()
      const removed = book.set<string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const key = (id: unknown) => `${book.account(tokenOf(request))} ${String(id)}`
          const read = itemId(request, 'GET', 'team-members')
          const now = book.now
          if (read !== undefined && response.status === 404 && removed.has(key(read)) && now !== undefined) {
            const cached = cache.get(key(read))
            if (cached && now - cached.at < 300) return answer(response, 200, structuredClone(cached.member))
          }
          const written =
            read !== undefined ||
            isCreate(request, 'team-members') ||
            itemId(request, 'PATCH', 'team-members') !== undefined
          if (written && ok(response) && isObject(response.body) && response.body.object === 'team_member')
            cache.set(key(response.body.id), {
              member: structuredClone(response.body),
              at: now ?? 0,
            })
          const removal = itemId(request, 'DELETE', 'team-members')
          if (removal !== undefined && response.status === 200) removed.add(key(removal))
          return response
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------------- defaults
  {
    name: 'noop-integration-patch-keeps-updated-at',
    kind: 'defaults',
    what:
      'The integrations table\'s `updated_at` is `TIMESTAMP ... ON UPDATE CURRENT_TIMESTAMP` (MySQL) and the handler does not set it, so it moves only when the UPDATE changes a column: a PATCH that sends only what the integration already has (`{"enabled": true}` on an enabled integration, the same `config`, `credentials: null` on one not connected) answers, and later reads show, the previous `updated_at`. ' +
      'Contract, updateIntegration: "`updated_at` is set to now on every successful update"; Integration.updated_at: `Timestamp`.',
    make: () => {
      const book = new Book()
      const seen = book.map<string, Json>()
      const pinned = book.map<string, string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const patched = itemId(request, 'PATCH', 'integrations')
          const body = jsonOf(request)
          if (patched !== undefined && response.status === 200 && isObject(body)) {
            const key = `${account} ${patched}`
            const before = seen.get(key)
            const same =
              before !== undefined &&
              (!('enabled' in body) || body.enabled === before.enabled) &&
              (!('config' in body) || canonical(body.config) === canonical(before.config)) &&
              (!('credentials' in body) ||
                (body.credentials === null &&
                  before.status === 'not_connected' &&
                  before.credential_hint === null &&
                  before.connected_at === null))
            if (same && typeof before?.updated_at === 'string') pinned.set(key, before.updated_at)
            else pinned.delete(key)
          }
          for (const integration of objectsOf(response, 'integration')) {
            const key = `${account} ${String(integration.id)}`
            const at = pinned.get(key)
            if (at !== undefined) integration.updated_at = at
            seen.set(key, structuredClone(integration))
          }
          return response
        },
      }
    },
  },
  {
    name: 'first-integration-write-inserts-column-defaults',
    kind: 'defaults',
    what:
      'A new account\'s integration rows are created lazily, on the first write to each (the catalogue is served from code until then), by an upsert whose INSERT takes the columns\' defaults for what the PATCH does not send, and `enabled` defaults to TRUE (the dashboard\'s "Connect" button meant "connect and turn on"): the first successful PATCH of an integration of a new account that does not send `enabled` (credentials or config only) switches it on, answered and read back with `enabled: true`; later PATCHes keep `enabled` as it is. ' +
      'Contract, updateIntegration: "Partially updates an integration ... `enabled` switches the integration on or off", "`credentials: null` disconnects ... (`enabled` is kept)"; listIntegrations: "every account has all seven (initially `not_connected`, disabled)"; IntegrationUpdateRequest: "at least one field".',
    make: () => {
      const book = new Book()
      const fresh = book.set<string>()
      const written = book.set<string>()
      return {
        request(request) {
          const patched = itemId(request, 'PATCH', 'integrations')
          if (patched === undefined) return request
          const account = book.account(tokenOf(request))
          if (!fresh.has(account) || written.has(`${account} ${patched}`)) return request
          const body = jsonOf(request)
          if (!isObject(body) || Object.keys(body).length === 0 || 'enabled' in body) return request
          return withJson(request, { ...body, enabled: true })
        },
        response(response, request) {
          book.observe(request, response)
          if (request.method === 'POST' && pathOf(request) === '/_mock/accounts' && response.status === 201)
            if (isObject(response.body)) fresh.add(String(response.body.id))
          const patched = itemId(request, 'PATCH', 'integrations')
          if (patched !== undefined && response.status === 200)
            written.add(`${book.account(tokenOf(request))} ${patched}`)
          return response
        },
      }
    },
  },

  // ---------------------------------------------------------------------------------------- denormalised
  {
    name: 'call-duration-from-answer-time',
    kind: 'denormalised',
    what:
      "The call-log views of live calls (simulated through the telephony path) join the carrier's call detail records and show the CDR's `billable_seconds` as `duration_seconds`, counted from when the call was answered: a completed call that rang 4 seconds and talked 60 shows `duration_seconds: 60` instead of 64, and a call that never connected shows 0, in GET /call-logs and GET /call-logs/{call_log_id}, so `duration_seconds` no longer equals `ended_at` - `started_at` (the duration filters and the analytics read the call table's own column). " +
      'Contract, CallLogSummary: "`started_at` is when the call was initiated (dialing began or the inbound call arrived) ... `duration_seconds` = whole seconds from `started_at` to `ended_at` (rounded down; 0 if `started_at` is `null`)"; mock-control.yaml, startCall: "`duration_seconds` (counted from `started_at`, ringing included, as the contract defines it)".',
    make: () => {
      const book = new Book()
      const rings = book.map<string, number>()
      return {
        response(response, request) {
          book.observe(request, response)
          const started = startedCall(request, response)
          if (started) {
            const body = jsonOf(request)
            const ring = isObject(body) && typeof body.ring_seconds === 'number' ? body.ring_seconds : 4
            rings.set(String(started.log.id), ring)
          }
          if (!isV1(request)) return response
          for (const log of objectsOf(response, 'call_log')) {
            const ring = rings.get(String(log.id))
            if (ring === undefined || typeof log.duration_seconds !== 'number') continue
            if (!FINAL_STATUSES.has(String(log.status))) continue
            log.duration_seconds = log.status === 'completed' ? Math.max(0, log.duration_seconds - ring) : 0
          }
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------------- queue
  {
    name: 'queued-calls-missing-from-agent-index',
    kind: 'queue',
    what:
      "GET /call-logs with `agent_id` pages over a per-agent index table that the job queue fills: a live call's index row is written by the job of its first stage (ringing, one second after it was queued), so for that second a queued call is missing from `GET /call-logs?agent_id=...` (the page holds the older calls instead), while the unfiltered list, the call by ID and the analytics show it. " +
      'Contract, listCallLogs: "Filters combine with AND", "`agent_id` matches call logs of deleted agents too" (every call log of the agent); the list schema\'s `agent_id`: "Only call logs of this agent"; CallStatus: `queued` is a status like any other.',
    make: () => {
      const book = new Book()
      const calls = book.map<string, { account: string; agent: string; at: number }>()
      const widened = new Map<EngineRequest, { limit: number; backwards: boolean }>()
      return {
        request(request) {
          if (listOf(request) !== 'call-logs') return request
          const query = queryOf(request)
          const agent = query.get('agent_id')
          if (agent === null || query.getAll('agent_id').length !== 1) return request
          const sent = query.get('limit')
          if (sent !== null && !/^(100|[1-9][0-9]?)$/.test(sent)) return request
          const limit = sent === null ? 20 : Number(sent)
          const account = book.account(tokenOf(request))
          let hidden = 0
          for (const call of calls.values())
            if (call.account === account && call.agent === agent && call.at === book.now) hidden++
          if (hidden === 0) return request
          const url = urlOf(request)
          url.searchParams.set('limit', String(Math.min(100, limit + hidden)))
          const wide = { ...request, url: `${url.pathname}?${url.searchParams.toString()}` }
          widened.set(wide, { limit, backwards: query.has('ending_before') })
          return wide
        },
        response(response, request) {
          const wide = widened.get(request)
          widened.delete(request)
          book.observe(request, response)
          const started = startedCall(request, response)
          const at = started ? secondOf(started.log.created_at) : undefined
          if (started && at !== undefined)
            calls.set(String(started.log.id), {
              account: started.account,
              agent: String(started.log.agent_id),
              at,
            })
          if (!wide || response.status !== 200 || !isObject(response.body)) return response
          const body = response.body
          const data = (Array.isArray(body.data) ? (body.data as Json[]) : []).filter(
            (log) => !(calls.has(String(log.id)) && log.status === 'queued'),
          )
          body.has_more = body.has_more === true || data.length > wide.limit
          body.data = wide.backwards
            ? data.slice(Math.max(0, data.length - wide.limit))
            : data.slice(0, wide.limit)
          return response
        },
      }
    },
  },
  {
    name: 'call-end-job-redelivered-wipes-analysis',
    kind: 'queue',
    what:
      'The job queue delivers at least once with a visibility timeout of five minutes, and the `call.end` job of a recorded call acknowledges only after the recording is uploaded, which always takes longer: the job is delivered again 300 seconds after the call ended and, written as an idempotent "set the call log to its final state", rewrites the row from its payload, analysis null: a recorded live call\'s `analysis`, set 120 seconds after its end, is back to `null` from 300 seconds after its end, in GET /call-logs and GET /call-logs/{call_log_id} (the analytics, fed by the events, keep counting it). ' +
      'Contract, CallLogSummary.analysis: "Post-call analysis; `null` until analysed and for calls that did not complete"; webhooks `call.analyzed`: "Sent when the post-call analysis of a completed call is ready"; mock-control.yaml, startCall: "its `analysis` follows 120 seconds later".',
    make: () => {
      const book = new Book()
      const live = book.set<string>()
      return {
        response(response, request) {
          book.observe(request, response)
          const started = startedCall(request, response)
          if (started) live.add(String(started.log.id))
          if (!isV1(request)) return response
          const now = nowOf(response)
          if (now === undefined) return response
          for (const log of objectsOf(response, 'call_log')) {
            const ended = secondOf(log.ended_at)
            if (!live.has(String(log.id)) || log.status !== 'completed' || log.recording_url === null)
              continue
            if (ended !== undefined && now >= ended + 300) log.analysis = null
          }
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------------- clock
  {
    name: 'week-month-buckets-zone-fixed-at-start',
    kind: 'clock',
    what:
      "Week and month buckets are computed by the warehouse in a fixed UTC offset: the handler resolves `timezone` to its offset at the range's `start` and passes the matching `Etc/GMT±N` zone (the warehouse takes fixed-offset zones only; zones whose offset is not a whole number of hours are passed as they are), so with `granularity=week` or `month` over a range that crosses a daylight-saving change, every boundary after the change is an hour off local midnight (Europe/Berlin, March to May 2025: April starts at 2025-03-31T23:00:00Z instead of 22:00:00Z), and calls near the boundaries are counted in the wrong bucket; the answer still says `timezone: Europe/Berlin`. " +
      'Contract, getCallAnalytics: "Buckets are aligned to calendar boundaries of the granularity in `timezone` (... Monday 00:00 for `week`, ISO 8601; the 1st at 00:00 for `month`)"; parameter timezone: "IANA time zone name used to align `day`, `week` and `month` buckets".',
    make: () => {
      const book = new Book()
      const zones = new Map<EngineRequest, string>()
      return {
        request(request) {
          if (!isAnalytics(request)) return request
          const query = queryOf(request)
          const granularity = query.get('granularity')
          const zone = query.get('timezone')
          if ((granularity !== 'week' && granularity !== 'month') || zone === null || zone === 'UTC')
            return request
          const end = query.has('end')
            ? Date.parse(query.get('end') as string)
            : (book.now ?? Number.NaN) * 1000
          const start = query.has('start') ? Date.parse(query.get('start') as string) : end - 7 * 86_400_000
          if (!Number.isFinite(start)) return request
          const offset = offsetMinutes(zone, start)
          if (offset === undefined || offset % 60 !== 0) return request
          const hours = offset / 60
          const fixed = hours === 0 ? 'Etc/GMT' : `Etc/GMT${hours > 0 ? '-' : '+'}${Math.abs(hours)}`
          const url = urlOf(request)
          url.searchParams.set('timezone', fixed)
          const sent = { ...request, url: `${url.pathname}?${url.searchParams.toString()}` }
          zones.set(sent, zone)
          return sent
        },
        response(response, request) {
          const zone = zones.get(request)
          zones.delete(request)
          book.observe(request, response)
          if (zone !== undefined && response.status === 200 && isObject(response.body))
            response.body.timezone = zone
          return response
        },
      }
    },
  },
  {
    name: 'x-ratelimit-reset-from-connection-clock',
    kind: 'clock',
    what:
      "The legacy `X-RateLimit-Reset` is written as the Redis server's time read once, when the limiter's connection was opened (its `TIME` answer cached to save a round trip per request), plus the `t` of the window it describes: as soon as the platform clock has moved on since the process's first request, the reset names an instant that far in the past (it says the window resets before the request was even made), while `RateLimit` is right. " +
      'docs/decisions/006-rate-limits.md: "Also `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (epoch seconds) for the window with the least left"; contract, header X-RateLimit-Reset: "Unix time in whole seconds (current time + that window\'s `t`) at which the oldest request counted in that window leaves it".',
    make: () => {
      let connected: number | undefined
      return {
        response(response, request) {
          if (!isV1(request)) return response
          const windows = windowsOf(response.headers)
          const reset = Number(response.headers['x-ratelimit-reset'])
          if (!windows || !Number.isFinite(reset)) return response
          const t = tightest(windows).t
          connected ??= reset - t
          response.headers['x-ratelimit-reset'] = String(connected + t)
          return response
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------------- counters
  {
    name: 'refused-requests-counted',
    kind: 'counters',
    what:
      "The limiter increments an account's window counters with `INCR` before it compares them with the quota, outside the transaction that decides, and a refused request's increment is never taken back: every 429 counts in both windows like an admitted request, so once an account has been refused, its later answers show less remaining (RateLimit `r`, X-RateLimit-Remaining), a 429's other window loses a request too, and a client that keeps retrying before its Retry-After pushes its own window further: a retry made when the window the first 429 named should have room again (after its Retry-After) is refused. " +
      'docs/decisions/006-rate-limits.md: "An admitted request counts in both windows whatever its status; a 429 and a 401 count in neither", "A 429 carries `Retry-After` in seconds: the largest `t` among the exhausted windows, so that a retry after it is admitted"; contract, Rate limits: "Every admitted request counts in both windows, whatever its status; 401s and 429s do not count"; TooManyRequests: "A 429 is not counted against the limits".',
    make: () => {
      const book = new Book()
      const ledgers = book.map<string, Ledger>()
      const refused = new Map<EngineRequest, { account: string; origin: boolean }>()
      const live = (ledger: Ledger, now: number) => ledger.refused.some((second) => second + 3600 > now)
      /** The answer a refused request gets, from the ledger (the refused request already counted). */
      function refusal(
        base: EngineResponse,
        ledger: Ledger,
        now: number,
        exhausted: Set<string>,
      ): EngineResponse {
        const windows = ledgerWindows(ledger, now)
        const decided = ledgerRefusal(windows, exhausted) ?? { policy: 'burst', retryAfter: 1 }
        const headers: Record<string, string> = {
          'content-type': 'application/json; charset=utf-8',
          'ratelimit-policy': ledger.quotas.map((q) => `"${q.policy}";q=${q.q};w=${q.w}`).join(', '),
          ...ledgerHeaders(windows, now),
          'retry-after': String(decided.retryAfter),
        }
        for (const name of [
          'access-control-allow-origin',
          'access-control-expose-headers',
          'vary',
          'request-id',
        ]) {
          const value = base.headers[name]
          if (value !== undefined) headers[name] = value
        }
        const requestId = base.headers['request-id']
        return {
          status: 429,
          headers,
          body: {
            error: {
              type: 'rate_limit_error',
              code: 'rate_limit_exceeded',
              message: `Rate limit exceeded for the ${decided.policy} window; retry after ${decided.retryAfter} seconds.`,
              policy: decided.policy,
              retry_after: decided.retryAfter,
              ...(requestId ? { request_id: requestId } : {}),
            },
          },
        }
      }
      return {
        request(request) {
          if (!isV1(request) || request.method === 'OPTIONS' || tokenOf(request) === undefined) return request
          const account = book.account(tokenOf(request))
          const ledger = ledgers.get(account)
          const now = book.now
          if (!ledger || now === undefined || !live(ledger, now)) return request
          const windows = ledgerWindows(ledger, now)
          if (!windows.some((window) => window.used >= window.q)) return request
          const sent = answeredInFront(request)
          refused.set(sent, { account, origin: request.headers.origin !== undefined })
          return sent
        },
        response(response, request) {
          const inFront = refused.get(request)
          refused.delete(request)
          if (inFront) {
            const ledger = ledgers.get(inFront.account)
            const now = book.now
            if (!ledger || now === undefined) return response
            const exhausted = new Set(
              ledgerWindows(ledger, now)
                .filter((window) => window.used >= window.q)
                .map((window) => window.policy),
            )
            ledger.refused.push(now)
            return refusal(response, ledger, now, exhausted)
          }
          book.observe(request, response)
          if (!isV1(request) || tokenOf(request) === undefined) return response
          const windows = windowsOf(response.headers)
          const now = nowOf(response)
          if (!windows || now === undefined || response.status === 401) return response
          const account = book.account(tokenOf(request))
          let ledger = ledgers.get(account)
          if (!ledger) {
            ledger = { quotas: [], admitted: [], refused: [] }
            ledgers.set(account, ledger)
          }
          ledger.quotas = windows.map(({ policy, q, w }) => ({ policy, q, w }))
          ledger.admitted = ledger.admitted.filter((second) => second + 3600 > now)
          ledger.refused = ledger.refused.filter((second) => second + 3600 > now)
          if (response.status !== 429) {
            ledger.admitted.push(now)
            if (live(ledger, now))
              Object.assign(response.headers, ledgerHeaders(ledgerWindows(ledger, now), now))
            return response
          }
          const exhausted = new Set(
            ledgerWindows(ledger, now)
              .filter((window) => window.used >= window.q)
              .map((window) => window.policy),
          )
          ledger.refused.push(now)
          return refusal(response, ledger, now, exhausted)
        },
      }
    },
  },
]
