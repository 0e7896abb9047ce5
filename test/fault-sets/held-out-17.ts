/**
 * Held-out fault set 17: thirty faults an implementer of the platform's v1 API could plausibly ship, written blind to
 * the contract suite: neither its checks, nor its exploration, nor its tests, nor its documentation were read, and the
 * suite was never run. held-out-3 to held-out-16 were read for their format only, and so as not to repeat their
 * faults (every fault here breaks another rule, on another operation, or in another situation than theirs). The
 * sources were the platform's spec, the product decisions (the repository's own record of them is `docs/decisions/`),
 * the contract (`openapi/v1.yaml`, `openapi/mock-control.yaml`) and the mock engine (the correct implementation every
 * fault wraps).
 *
 * The theme is "requests in flight together, and the order things happen in": every request handled alone is
 * answered right; what goes wrong is what two requests do to each other when they overlap, or what one request does
 * when it comes in an order the implementer did not expect. Idempotency records looked up before they are reserved,
 * or saved under another request's key, or left locked by a server error; a limiter whose compare-and-set loses, and
 * rate-limit fields read before concurrent increments; loaders coalesced or batched across requests, a request ID,
 * a time-zone formatter, a query builder, a presenter flag and a loaded row kept in process-wide variables; a PATCH
 * and a DELETE racing, concurrent replacements merged, read-modify-write updates losing a field, a count checked
 * before a concurrent insert; reads that see half of a write (an agent's settings, an integration's credentials, the
 * analytics totals against their series); lock contention answered as "not found", a gateway that retries slow
 * invitations; cursors read from a snapshot or from a row removed since; checks that run in another order when two
 * errors coincide; status callbacks, same-second role changes and creation times applied in the order they arrive.
 *
 * Each fault wraps the correct engine (`faultyHandler`): it rewrites a request before the engine sees it, answers in
 * the engine's place (the engine is then sent a stand-in: the same request made harmless, which passes the same
 * authentication, rate-limit, route and permission checks and is counted alike, or a CORS preflight, which is not
 * counted), or rewrites the engine's answer, keeping what it needs in the closure `make()` returns. Requests in flight
 * together are those whose `request` hook ran and whose `response` hook has not yet run; the platform clock is the one
 * the answers show. Every fault deviates from the platform's spec, the contract or a decision (cited in `what`), in
 * specific situations only (ordinary sequential traffic, the first reads of every endpoint and a create and a read,
 * is unchanged), and never where the spec leaves a choice open (docs/decisions/011-allowed-forms.md). Liveness:
 * `scripts/fault-sets/held-out-17-live.ts`.
 */
import { errors } from '../../mocks/engine/api-error.ts'
import { createRouter, type Operation } from '../../mocks/engine/contract/router.ts'
import { createValidators } from '../../mocks/engine/contract/validators.ts'
import { exceedsBodyLimit, isJsonContentType } from '../../mocks/engine/request-body.ts'
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import { corsHeaders } from '../../mocks/engine/v1/cors.ts'
import { v1Document } from '../../openapi/generated/v1.document.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'
import {
  codeOf,
  errorOf,
  failWith,
  harmless,
  isAnalytics,
  isCreate,
  isObject,
  isV1,
  itemOf,
  type Json,
  jsonOf,
  knownZone,
  objectsOf,
  ok,
  ownHeaders,
  passedToBody,
  pathOf,
  preflightInstead,
  queryOf,
  replayed,
  secondOf,
  sortKey,
  spliceIntoPage,
  startedCall,
  tightest,
  timestampOf,
  tokenOf,
  type Window,
  windowsOf,
  withJson,
  withQuery,
} from './request-parts.ts'

export interface HeldOutFault {
  name: string
  kind:
    | 'idempotency'
    | 'rate-limit'
    | 'shared-state'
    | 'race'
    | 'torn-read'
    | 'cursor'
    | 'check-order'
    | 'event-order'
    | 'retry'
  /** The deviation, with the sentence of the spec, the contract or the decision it breaks. */
  what: string
  make: () => Fault
}

// ------------------------------------------------------------------------------------------------- helpers

/** The ID of `method` on an item of `collection`, or undefined. */
function itemId(request: EngineRequest, method: string, collection: string): string | undefined {
  if (request.method.toUpperCase() !== method) return undefined
  const item = itemOf(request)
  return item?.collection === collection ? item.id : undefined
}

/** The list a GET asks for (`agents`, `call-logs`, `team-members`, `integrations`), or undefined. */
function listOf(request: EngineRequest): string | undefined {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined
  return /^\/v1\/(agents|call-logs|team-members|integrations)\/?$/.exec(pathOf(request))?.[1]
}

/** Newest first, as lists order objects: `created_at` descending, then `id` descending. */
const newestFirst = (a: Json, b: Json) => {
  const [ka, kb] = [sortKey(a), sortKey(b)]
  return ka < kb ? 1 : ka > kb ? -1 : 0
}

/** A JSON answer built on the engine's answer (its Request-Id, rate-limit and CORS headers). */
const answer = (
  base: EngineResponse,
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): EngineResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...ownHeaders(base), ...extra },
  body,
})

// ------------------------------------------------------------------------------------------ the contract

const router = createRouter(v1Document)
const validators = createValidators(v1Document)

/** The v1 operation a request is routed to, or undefined. */
function operationOf(request: EngineRequest): Operation | undefined {
  const route = router.match(request.method, pathOf(request).replace(/^\/v1/, '') || '/')
  return route.kind === 'operation' ? route.operation : undefined
}

/**
 * What the contract says of a request's body: `undefined` when the body is not a JSON object the engine would read
 * (it answers 413, 415 or 400 for it), otherwise the validation problems (none: the body is valid).
 */
function bodyProblems(request: EngineRequest): unknown[] | undefined {
  const operation = operationOf(request)
  if (!operation?.hasBody || request.body === null || exceedsBodyLimit(request.body)) return undefined
  if (!isJsonContentType(request.headers['content-type'])) return undefined
  const body = jsonOf(request)
  if (!isObject(body)) return undefined
  return validators.body(operation.operationId, operation.object, structuredClone(body))
}

const validBody = (request: EngineRequest) => bodyProblems(request)?.length === 0

// ---------------------------------------------------------------------------------------- the platform clock

/** The platform clock of an authenticated answer's headers, in whole seconds: `X-RateLimit-Reset` less its `t`. */
function clockOf(headers: Record<string, string>): number | undefined {
  const windows = windowsOf(headers)
  const reset = Number(headers['x-ratelimit-reset'])
  if (!windows || !Number.isFinite(reset)) return undefined
  return reset - tightest(windows).t
}

const nowOf = (response: EngineResponse) => clockOf(response.headers)

/** `RateLimit` and the legacy fields for windows whose `r` a fault changed. */
function rateHeaders(windows: Window[], now: number): Record<string, string> {
  const best = tightest(windows)
  return {
    ratelimit: windows.map((window) => `"${window.policy}";r=${window.r};t=${window.t}`).join(', '),
    'x-ratelimit-limit': String(best.q),
    'x-ratelimit-remaining': String(best.r),
    'x-ratelimit-reset': String(now + best.t),
  }
}

/** The rate-limit fields of an answer. */
function limitHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers))
    if (name.startsWith('ratelimit') || name.startsWith('x-ratelimit')) out[name] = value
  return out
}

// ---------------------------------------------------------------------------------------- what a fault learns

/**
 * What every fault of this set may need to know: the account of each key (a key's 201 in the control plane names
 * it, `GET /user` tells it for any other key), the scopes of the keys made through the control plane, the keys that
 * no longer authenticate, the last rate-limit fields each account was answered with, and the platform clock as the
 * answers show it. `POST /_mock/reset`, which starts the platform again, empties them all and every map a fault
 * asked for.
 */
class Book {
  /** The platform clock in whole seconds, as last seen (undefined until an answer tells it). */
  now: number | undefined
  private readonly keys = new Map<string, string>()
  private readonly scopes = new Map<string, string[]>()
  private readonly tokens = new Map<string, string>()
  private readonly dead = new Set<string>()
  private readonly limits = new Map<string, Record<string, string>>()
  private readonly owners = new Map<string, string>()
  private readonly kept: { clear(): void }[] = [
    this.keys,
    this.scopes,
    this.tokens,
    this.dead,
    this.limits,
    this.owners,
  ]

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
    if (request.method === 'POST' && response.status === 201 && body) {
      if (path === '/_mock/accounts' || /^\/_mock\/accounts\/[^/]+\/(keys|calls)$/.test(path))
        this.now = secondOf(body.created_at) ?? this.now
      if (path === '/_mock/accounts' && typeof body.id === 'string' && typeof body.email === 'string')
        this.owners.set(body.id, body.email.toLowerCase())
      if (/^\/_mock\/accounts\/[^/]+\/keys$/.test(path) && typeof body.value === 'string') {
        if (typeof body.account_id === 'string') this.keys.set(body.value, body.account_id)
        if (Array.isArray(body.permissions)) this.scopes.set(body.value, body.permissions.map(String))
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
    const limits = limitHeaders(response.headers)
    if (limits.ratelimit !== undefined) this.limits.set(this.account(token), limits)
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

  /** Whether a key is known to authenticate: made through the control plane, or answered, and not refused since. */
  valid(token: string | undefined): token is string {
    return token !== undefined && this.keys.has(token) && !this.dead.has(token)
  }

  /** The scopes of a key made through the control plane (undefined for any other key). */
  scopesOf(token: string | undefined): string[] | undefined {
    return token === undefined ? undefined : this.scopes.get(token)
  }

  /** The rate-limit fields an account was last answered with. */
  limitsOf(account: string): Record<string, string> | undefined {
    return this.limits.get(account)
  }

  /** The owner's e-mail address of an account made through the control plane. */
  ownerOf(account: string): string | undefined {
    return this.owners.get(account)
  }
}

// ---------------------------------------------------------------------------------------- requests in flight

/** A request the engine was given and whose answer the fault has not seen yet (or has just seen). */
interface Flight<N> {
  seq: number
  method: string
  path: string
  query: URLSearchParams
  v1: boolean
  token: string | undefined
  account: string
  /** The item its path names, if any. */
  item: { collection: string; id: string } | undefined
  /** The request's `Idempotency-Key`, as the client sent it. */
  key: string | undefined
  /** The request's JSON body, as the client sent it. */
  body: unknown
  /** What the fault noted about this request. */
  note: N
  /** The answer the engine gave, once seen. */
  answer?: EngineResponse
}

/** The requests in flight in the wrapper: their `request` hook ran, their `response` hook has not yet. */
class Flights<N> {
  private next = 0
  private readonly live = new Map<EngineRequest, Flight<N>>()

  /** Requests in flight now, oldest first. */
  list(): Flight<N>[] {
    return [...this.live.values()]
  }

  /** Registers `sent` (what the engine is given) for `original` (what the client sent). */
  add(sent: EngineRequest, original: EngineRequest, book: Book, note: N): Flight<N> {
    const flight: Flight<N> = {
      seq: ++this.next,
      method: original.method.toUpperCase(),
      path: pathOf(original),
      query: queryOf(original),
      v1: isV1(original),
      token: tokenOf(original),
      account: book.accountOf(original),
      item: itemOf(original),
      key: original.headers['idempotency-key'],
      body: jsonOf(original),
      note,
    }
    this.live.set(sent, flight)
    return flight
  }

  /** The flight of a request whose answer is in: no longer in flight. */
  end(sent: EngineRequest, response: EngineResponse): Flight<N> | undefined {
    const flight = this.live.get(sent)
    this.live.delete(sent)
    if (flight) flight.answer = structuredClone(response)
    return flight
  }
}

const isItem = (flight: Flight<unknown>, method: string, collection: string, id: string) =>
  flight.v1 && flight.method === method && flight.item?.collection === collection && flight.item.id === id

// ------------------------------------------------------------------------------------------- seen objects

/** The objects of one type as the answers last showed them, per account; removals forget them. */
class Seen {
  private readonly objects = new Map<string, Json>()

  constructor(
    private readonly type: string,
    private readonly collection: string,
  ) {}

  get(account: string, id: string): Json | undefined {
    const found = this.objects.get(`${account} ${id}`)
    return found === undefined ? undefined : structuredClone(found)
  }

  all(account: string): Json[] {
    return [...this.objects.entries()]
      .filter(([key]) => key.startsWith(`${account} `))
      .map(([, value]) => structuredClone(value))
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

  /** Learns an object from elsewhere (the control plane). */
  put(account: string, object: Json): void {
    this.objects.set(`${account} ${String(object.id)}`, structuredClone(object))
  }
}

const SENSITIVE = ['system_prompt', 'webhook_url', 'metadata'] as const
const CATALOGUE = new Set([
  'twilio',
  'salesforce',
  'hubspot',
  'google_calendar',
  'slack',
  'zapier',
  'webhook',
])
const NEVER_CONNECTED = new Set(['no_answer', 'busy', 'failed', 'canceled'])
const ROLES = new Set(['admin', 'editor', 'viewer'])
const CALL_FILTERS = [
  'agent_id',
  'status',
  'direction',
  'started_after',
  'started_before',
  'min_duration_seconds',
  'max_duration_seconds',
]
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const randomId = (prefix: string) =>
  `${prefix}_${Array.from({ length: 16 }, () => BASE62[Math.floor(Math.random() * 62)]).join('')}`

const num = (value: unknown) => (typeof value === 'number' ? value : 0)
const rounded = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals

/** Analytics metrics with `logs` counted in as well (averages and rates recomputed, as the contract defines them). */
function countedIn(totals: Json, logs: Json[]): Json {
  const sentiment: Json = isObject(totals.sentiment) ? { ...totals.sentiment } : {}
  let calls = num(totals.call_count)
  let completed = num(totals.completed_count)
  let analyzed = num(totals.analyzed_count)
  let successful = num(totals.successful_count)
  let duration = num(totals.total_duration_seconds)
  let costUnits = Math.round(num(totals.total_cost_usd) * 10_000)
  for (const log of logs) {
    calls++
    if (log.status === 'completed') {
      completed++
      duration += num(log.duration_seconds)
      costUnits += Math.round(num(log.cost_usd) * 10_000)
    }
    if (isObject(log.analysis)) {
      analyzed++
      if (log.analysis.successful === true) successful++
      const mood = String(log.analysis.sentiment)
      sentiment[mood] = num(sentiment[mood]) + 1
    }
  }
  return {
    call_count: calls,
    completed_count: completed,
    analyzed_count: analyzed,
    successful_count: successful,
    total_duration_seconds: duration,
    avg_duration_seconds: completed > 0 ? rounded(duration / completed, 2) : null,
    total_cost_usd: costUnits / 10_000,
    avg_cost_usd: completed > 0 ? rounded(costUnits / 10_000 / completed, 4) : null,
    success_rate: analyzed > 0 ? rounded(successful / analyzed, 4) : null,
    sentiment,
  }
}

const isInvite = (flight: Flight<unknown>) =>
  flight.v1 && flight.method === 'POST' && /^\/v1\/team-members\/?$/.test(flight.path)

const alreadyMember = (email: string) =>
  errors.conflict('member_already_exists', `${email} is already a member of this team.`, 'email')

// ------------------------------------------------------------------------------------------------- faults

export const faults: HeldOutFault[] = [
  // ----------------------------------------------------------------------------------------- idempotency
  {
    name: 'idempotent-creates-in-flight-both-carried-out',
    kind: 'idempotency',
    what:
      'The idempotency middleware looks the key up, runs the handler and only then stores the answer (`INSERT ... ON CONFLICT DO NOTHING` after the work), without reserving the key first: a POST that arrives while another POST of the same account with the same `Idempotency-Key` is still in flight (a client that retries at once on a connection reset, two tabs submitting one form) finds nothing stored and is carried out too: a second agent is created (201 with another ID, no `Idempotent-Replayed`), a second invitation of the address is answered 409 `member_already_exists`, and a concurrent request with another body is carried out instead of 409 `idempotency_key_reused`; the first answer stays the stored one. ' +
      'Contract, Idempotency: "a retry with the same key, same path and the same body ... returns the stored status, headers and body, plus `Idempotent-Replayed: true`, without creating anything again ... The same key with another body or another path is 409 `idempotency_key_reused`"; docs/decisions/008-lists-and-idempotency.md: "Idempotency keys make a POST safe to retry after a lost answer"; docs/decisions/014-state.md: "one `Idempotency-Key` creates one object".',
    make: () => {
      const book = new Book()
      const stored = book.map<string, number>()
      const flights = new Flights<undefined>()
      return {
        request(request) {
          let sent = request
          const key = request.headers['idempotency-key']
          if (isV1(request) && request.method === 'POST' && key !== undefined) {
            const account = book.account(tokenOf(request))
            const at = stored.get(`${account} ${key}`)
            const kept = at !== undefined && (book.now === undefined || book.now - at < 86_400)
            const twin = flights
              .list()
              .some(
                (flight) =>
                  flight.v1 && flight.method === 'POST' && flight.account === account && flight.key === key,
              )
            if (twin && !kept) {
              const headers = { ...request.headers }
              delete headers['idempotency-key']
              sent = { ...request, headers }
            }
          }
          flights.add(sent, request, book, undefined)
          return sent
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          const counted = request.headers['idempotency-key'] !== undefined
          if (flight?.v1 && flight.method === 'POST' && counted && ok(response) && !replayed(response))
            stored.set(`${flight.account} ${String(flight.key)}`, nowOf(response) ?? book.now ?? 0)
          return response
        },
      }
    },
  },
  {
    name: 'idempotency-record-saved-under-concurrent-key',
    kind: 'idempotency',
    what:
      "The idempotency middleware keeps the key of the request being handled in the account's request context, an object shared by the account's requests in flight, sets it when a request starts and reads it when the answer is stored: when two POSTs of one account with different `Idempotency-Key`s are in flight together, the first one's answer is stored under the second one's key (whose own answer then finds the key taken and is not stored), and nothing under its own: a retry of the first request (same key, same body) is carried out again (a duplicate agent, or 409 `member_already_exists` for an invitation), and a retry of the second is answered 409 `idempotency_key_reused` (its body is not the stored one's). " +
      'Contract, Idempotency: "A successful (2xx) response is stored with its key; a retry with the same key, same path and the same body ... returns the stored status, headers and body, plus `Idempotent-Replayed: true`, without creating anything again"; parameter Idempotency-Key: "A retry with the same key, path and JSON body returns the stored 2xx response"; docs/decisions/008-lists-and-idempotency.md.',
    make: () => {
      const book = new Book()
      const remap = book.map<string, string>()
      const flights = new Flights<{ engineKey: string | undefined }>()
      let lost = 0
      return {
        request(request) {
          let sent = request
          const key = request.headers['idempotency-key']
          let engineKey = key
          if (isV1(request) && request.method === 'POST' && key !== undefined) {
            const mapped = remap.get(`${book.account(tokenOf(request))} ${key}`)
            if (mapped !== undefined) {
              engineKey = mapped
              sent = { ...request, headers: { ...request.headers, 'idempotency-key': mapped } }
            }
          }
          flights.add(sent, request, book, { engineKey })
          return sent
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          if (!flight?.v1 || flight.method !== 'POST' || flight.key === undefined) return response
          if (!ok(response) || replayed(response) || flight.note.engineKey === undefined) return response
          const later = flights
            .list()
            .filter(
              (other) =>
                other.v1 &&
                other.method === 'POST' &&
                other.key !== undefined &&
                other.key !== flight.key &&
                other.account === flight.account &&
                other.seq > flight.seq,
            )
            .pop()
          if (later?.key === undefined) return response
          remap.set(`${flight.account} ${later.key}`, flight.note.engineKey)
          remap.set(`${flight.account} ${flight.key}`, `h17-lost-${++lost}`)
          return response
        },
      }
    },
  },
  {
    name: 'key-left-locked-after-server-error',
    kind: 'retry',
    what:
      "The idempotency middleware inserts the key's record as `started` before the handler runs and marks it `completed` with the answer on success; an answer of 500 or more (a crash, a timeout of a dependency, an injected server error) leaves the record `started`, and a later request with the key, finding a record that is not completed, is refused as a reuse: once a POST with an `Idempotency-Key` was answered with a server error, the client's retry with the same key and the same valid body gets 409 `idempotency_key_reused` (for 24 hours) instead of being carried out. " +
      'Contract, Idempotency: "A successful (2xx) response is stored with its key ... The same key with another body or another path is 409 `idempotency_key_reused`. Error responses are not stored"; parameter Idempotency-Key: "Makes the POST safe to retry ... Error responses are not stored"; docs/decisions/008-lists-and-idempotency.md: "Idempotency keys make a POST safe to retry after a lost answer".',
    make: () => {
      const book = new Book()
      const locked = book.map<string, number>()
      const stored = book.set<string>()
      const flights = new Flights<{ standIn: boolean }>()
      return {
        request(request) {
          let sent = request
          let standIn = false
          const key = request.headers['idempotency-key']
          if (isV1(request) && request.method === 'POST' && key !== undefined && validBody(request)) {
            const at = locked.get(`${book.account(tokenOf(request))} ${key}`)
            if (at !== undefined && (book.now === undefined || book.now - at < 86_400)) {
              sent = harmless(request)
              standIn = true
            }
          }
          flights.add(sent, request, book, { standIn })
          return sent
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          if (!flight?.v1 || flight.method !== 'POST' || flight.key === undefined) return response
          const slot = `${flight.account} ${flight.key}`
          if (flight.note.standIn)
            return passedToBody(response)
              ? failWith(
                  response,
                  errors.conflict(
                    'idempotency_key_reused',
                    'This Idempotency-Key was already used with a different request.',
                    'Idempotency-Key',
                  ),
                )
              : response
          if (ok(response)) stored.add(slot)
          else if (response.status >= 500 && !stored.has(slot) && !locked.has(slot))
            locked.set(slot, book.now ?? 0)
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ rate limit
  {
    name: 'third-concurrent-request-loses-limiter-cas',
    kind: 'rate-limit',
    what:
      "The limiter counts an account's windows with an optimistic compare-and-set on the account's counter record and retries a lost compare-and-set once; a request that loses twice is answered 429 with the windows as it last read them and `Retry-After: 1` (`policy: burst`): when three or more requests of one account are in flight together (a page that loads its agents, call logs and analytics at once), the third and later ones get 429 although both windows have room (`RateLimit` shows `r` above 0 in both), and they are not counted. " +
      'docs/decisions/006-rate-limits.md: "Two sliding windows, and a request is admitted only when both have room", "A 429 carries `Retry-After` in seconds: the largest `t` among the exhausted windows"; contract, TooManyRequests: "429 - the account\'s rate limit is exhausted. `error.policy` names the exhausted window ... The rate-limit headers show `r=0` for the exhausted window"; docs/decisions/014-state.md: "exactly N of M concurrent requests are admitted across processes".',
    make: () => {
      const book = new Book()
      const flights = new Flights<{ refused: boolean; origin: string | undefined }>()
      return {
        request(request) {
          const token = tokenOf(request)
          let refused = false
          if (isV1(request) && request.method !== 'OPTIONS' && book.valid(token)) {
            const account = book.account(token)
            const racing = flights
              .list()
              .filter((flight) => flight.v1 && flight.method !== 'OPTIONS' && flight.account === account)
            refused = racing.length >= 2 && book.limitsOf(account) !== undefined
          }
          const sent = refused ? preflightInstead(request) : request
          flights.add(sent, request, book, { refused, origin: request.headers.origin })
          return sent
        },
        response(response, request) {
          const flight = flights.end(request, response)
          if (!flight?.note.refused) {
            book.observe(request, response)
            return response
          }
          const limits = book.limitsOf(flight.account) ?? {}
          return errors.rateLimited('burst', 1).toResponse(response.headers['request-id'] ?? '', {
            ...limits,
            ...corsHeaders(flight.note.origin),
          })
        },
      }
    },
  },
  {
    name: 'ratelimit-remaining-read-before-concurrent-increments',
    kind: 'rate-limit',
    what:
      'The limiter admits with an atomic `INCR` per window (admission is exact), but the rate-limit fields are written from the counters the limiter middleware read with `MGET` when the request came in, less one: requests of one account in flight together each answer as if only they had been counted since, so a burst of three concurrent requests all say the same `r` in `RateLimit` (and the same `X-RateLimit-Remaining`) instead of three successive values, overstating what is left. ' +
      'Contract, header RateLimit: "`r` is what remains in the window after this request"; X-RateLimit-Remaining: "Requests remaining in that same window after this request"; docs/decisions/006-rate-limits.md: "`r` is what remains after this request", "The budget belongs to the account".',
    make: () => {
      const book = new Book()
      const flights = new Flights<{ read: Record<string, string> | undefined }>()
      return {
        request(request) {
          const token = tokenOf(request)
          let read: Record<string, string> | undefined
          if (isV1(request) && request.method !== 'OPTIONS' && token !== undefined) {
            const account = book.account(token)
            const racing = flights
              .list()
              .some((flight) => flight.v1 && flight.method !== 'OPTIONS' && flight.account === account)
            if (racing) read = book.limitsOf(account)
          }
          flights.add(request, request, book, { read })
          return request
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          const read = flight?.note.read
          if (!read || response.status === 429 || response.status === 401) return response
          const before = windowsOf(read)
          const now = windowsOf(response.headers)
          const at = nowOf(response)
          if (!before || !now || at === undefined || clockOf(read) !== at || before.length !== now.length)
            return response
          const shown = now.map((window, i) => ({
            ...window,
            r: Math.max(0, (before[i]?.r ?? window.r + 1) - 1),
          }))
          if (shown.every((window, i) => window.r === now[i]?.r)) return response
          Object.assign(response.headers, rateHeaders(shown, at))
          return response
        },
      }
    },
  },
  {
    name: 'route-errors-before-rate-limit',
    kind: 'check-order',
    what:
      "The limiter middleware counts and decides for every request, but the 429 itself is sent by a guard mounted on each route, while unknown paths and undocumented methods are answered by the router's fallback, which runs first: when an account's quota is used up, a request to an unknown path (`/v1/agentz`, `/v2/...`) or with an undocumented method (`DELETE /v1/user`) gets 404 `route_not_found` or 405 `method_not_allowed` (with `Allow`, and the windows at `r=0`) instead of 429 with `Retry-After`, so probing routes is free while the account is limited. " +
      'docs/decisions/005-order-of-checks.md: "401 authentication -> 429 rate limit -> 404 / 405 route -> ...", "the rate limit before the route, so that probing unknown paths costs budget"; contract, Order of checks: "2. **429** rate limit (per account) ... 3. **404 / 405** routing"; Conventions: "`/v2/...` and any other unknown path answer 404 `route_not_found` (after authentication and rate limiting)".',
    make: () => ({
      response(response, request) {
        if (!isV1(request) || response.status !== 429) return response
        const path = pathOf(request)
        const route = router.match(request.method, path.replace(/^\/v1/, '') || '/')
        if (route.kind === 'operation') return response
        const error =
          route.kind === 'not-found'
            ? errors.routeNotFound(request.method, path)
            : errors.methodNotAllowed(request.method.toUpperCase(), route.allow)
        return failWith(response, error)
      },
    }),
  },

  // ---------------------------------------------------------------------------------------- shared state
  {
    name: 'user-reads-coalesced-across-accounts',
    kind: 'shared-state',
    what:
      "GET /user loads the account through a request-coalescing loader (a singleflight) keyed by the route, `'/user'`, instead of by account: a read of /user that arrives while another read of /user is in flight, made with any key of any account, is answered with the other request's user (its `id`, `email`, `name`, `plan`), after its own authentication and rate limit. " +
      'The platform\'s spec, Endpoints: "GET /user returns user information when the key is valid"; contract, getUser: "Returns the user (account) that owns the API key"; docs/decisions/009-resources.md (`GET /user`: `id, email, name, plan, created_at` of the key\'s account).',
    make: () => {
      const book = new Book()
      const isUser = (method: string, path: string) => method === 'GET' && /^\/v1\/user\/?$/.test(path)
      const flights = new Flights<{ leader: Flight<unknown> | undefined }>()
      return {
        request(request) {
          const leader = isUser(request.method, pathOf(request))
            ? flights.list().find((flight) => isUser(flight.method, flight.path) && !flight.note.leader)
            : undefined
          flights.add(request, request, book, { leader })
          return request
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          const first = flight?.note.leader?.answer
          if (first?.status !== 200 || response.status !== 200) return response
          response.body = structuredClone(first.body)
          return response
        },
      }
    },
  },
  {
    name: 'request-id-shared-by-requests-in-flight',
    kind: 'shared-state',
    what:
      "The request context lives in a module-level variable instead of async-local storage: a request that starts while the context of an earlier request is still set (that request still in flight) finds a request ID there and keeps it, so every request that starts while another is in flight is answered with that other request's `Request-Id` (and `error.request_id`), and the journal can no longer tell them apart; a request that starts alone gets an ID of its own. " +
      'Contract, header Request-Id: "Unique ID of this request (also in the mock\'s request journal). Present on every response"; Conventions: "Every response, success or error, carries a `Request-Id: req_...` header"; docs/decisions/001-general.md: "a request ID makes a support ticket answerable".',
    make: () => {
      const book = new Book()
      const flights = new Flights<{ leader: Flight<unknown> | undefined }>()
      return {
        request(request) {
          const leader = isV1(request)
            ? flights.list().find((flight) => flight.v1 && !flight.note.leader)
            : undefined
          flights.add(request, request, book, { leader })
          return request
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          const id = flight?.note.leader?.answer?.headers['request-id']
          if (id === undefined) return response
          response.headers['request-id'] = id
          const error = errorOf(response)
          if (error && typeof error.request_id === 'string') error.request_id = id
          return response
        },
      }
    },
  },
  {
    name: 'analytics-zone-formatter-shared-in-flight',
    kind: 'shared-state',
    what:
      "The analytics module keeps one date formatter for bucket boundaries in a module-level variable, created lazily by the first request (`formatter ??= new Intl.DateTimeFormat(..., { timeZone })`) and dropped when the last analytics request in flight ends: a GET /analytics/calls that starts while another one, with another `timezone`, is in flight cuts its `day`, `week` and `month` buckets in the other request's time zone, while its answer still names its own `timezone`. " +
      'Contract, getCallAnalytics: "Buckets are aligned to calendar boundaries of the granularity in `timezone` (hour; local midnight for `day`; Monday 00:00 for `week`, ISO 8601; the 1st at 00:00 for `month`)"; parameter timezone: "IANA time zone name used to align `day`, `week` and `month` buckets"; CallAnalytics.timezone: "The IANA time zone used for buckets".',
    make: () => {
      const book = new Book()
      const flights = new Flights<{ zone: string | undefined; asked: string | null }>()
      return {
        request(request) {
          let sent = request
          let zone: string | undefined
          let asked: string | null = null
          if (isAnalytics(request)) {
            const query = queryOf(request)
            asked = query.get('timezone')
            zone = asked ?? 'UTC'
            const shared = flights.list().find((flight) => flight.note.zone !== undefined)?.note.zone
            if (
              shared !== undefined &&
              shared !== zone &&
              knownZone(zone) &&
              query.getAll('timezone').length <= 1
            ) {
              zone = shared
              sent = withQuery(request, (q) => q.set('timezone', shared))
            }
          }
          flights.add(sent, request, book, { zone, asked })
          return sent
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          if (flight?.note.zone === undefined || response.status !== 200 || !isObject(response.body))
            return response
          response.body.timezone = flight.note.asked ?? 'UTC'
          return response
        },
      }
    },
  },
  {
    name: 'call-log-filters-leak-between-concurrent-lists',
    kind: 'shared-state',
    what:
      "The call-log repository is a singleton whose query builder keeps its conditions between calls (`this.query.where(...)` mutates it) and is reset only when no list is being built: a GET /call-logs that starts while another one is in flight inherits the other request's filters (`status`, `direction`, `agent_id`, `started_after`, `started_before`, the duration bounds) on top of its own, for whatever account it is, and answers a page filtered by conditions it never sent. " +
      'Contract, listCallLogs: "Lists the account\'s call logs, newest first ... Filters combine with AND" (the filters of the request); the parameters: `status` "Only call logs with this status", `agent_id` "Only call logs of this agent" (each only when sent); docs/decisions/009-resources.md (call logs list with its filters).',
    make: () => {
      const book = new Book()
      const flights = new Flights<{ filters: [string, string][] }>()
      return {
        request(request) {
          let sent = request
          let filters: [string, string][] = []
          if (listOf(request) === 'call-logs') {
            const own = queryOf(request)
            filters = CALL_FILTERS.flatMap((name) =>
              own.getAll(name).map((value): [string, string] => [name, value]),
            )
            const leaked: [string, string][] = []
            for (const flight of flights.list())
              for (const [name, value] of flight.note.filters)
                if (!own.has(name) && !leaked.some(([taken]) => taken === name)) leaked.push([name, value])
            if (leaked.length > 0) {
              sent = withQuery(request, (q) => {
                for (const [name, value] of leaked) q.append(name, value)
              })
              filters = [...filters, ...leaked]
            }
          }
          flights.add(sent, request, book, { filters })
          return sent
        },
        response(response, request) {
          flights.end(request, response)
          book.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'agent-presenter-flag-shared-across-requests',
    kind: 'shared-state',
    what:
      "The agent serializer reads whether to leave the sensitive fields out from a flag on a singleton, set by the authentication middleware of every request to the type of its key: an answer with agents that is written while a request with a key of the other type, started after it, is in flight is presented for that other key: a publishable key's read then shows `system_prompt`, `webhook_url` and `metadata`, and a secret key's read, create or update leaves them out. " +
      'Contract, Agent: "`system_prompt`, `webhook_url` and `metadata` are sensitive: they are present in every response to a secret key and **omitted** in responses to a publishable key"; listAgents: "Responses to a **publishable** key omit the sensitive fields ... responses to a secret key always include them"; docs/decisions/004-permissions.md: "Agent fields that are sensitive (`system_prompt`, `webhook_url`, `metadata`) are left out of what it reads".',
    make: () => {
      const book = new Book()
      const secrets = book.map<string, Json>()
      const flights = new Flights<undefined>()
      const kindOf = (token: string | undefined) =>
        token?.startsWith('sk-svc-') ? 'secret' : token?.startsWith('pk-svc-') ? 'publishable' : undefined
      return {
        request(request) {
          flights.add(request, request, book, undefined)
          return request
        },
        response(response, request) {
          const started = flights.list().filter((flight) => flight.v1 && flight.token !== undefined)
          const flight = flights.end(request, response)
          book.observe(request, response)
          if (!flight?.v1) return response
          const own = kindOf(flight.token)
          const agents = objectsOf(response, 'agent')
          if (own === 'secret')
            for (const agent of agents)
              if ('system_prompt' in agent)
                secrets.set(
                  `${flight.account} ${String(agent.id)}`,
                  Object.fromEntries(
                    SENSITIVE.filter((field) => field in agent).map((field) => [
                      field,
                      structuredClone(agent[field]),
                    ]),
                  ),
                )
          const flag = kindOf(started[started.length - 1]?.token)
          if (own === undefined || flag === undefined || flag === own) return response
          for (const agent of agents) {
            if (flag === 'publishable') for (const field of SENSITIVE) delete agent[field]
            else Object.assign(agent, secrets.get(`${flight.account} ${String(agent.id)}`) ?? {})
          }
          return response
        },
      }
    },
  },
  {
    name: 'member-reads-batched-out-of-order',
    kind: 'shared-state',
    what:
      "Team members are read by ID through a DataLoader that batches the loads of requests in flight together into one `SELECT ... WHERE id IN (...) ORDER BY id`, and the batch function hands the rows back in the order the query returned them instead of in the order of the keys: when two GET /team-members/{member_id} of one account are in flight together and the first asks for the ID that sorts after the second's, each is answered with the other member. " +
      'Contract, getTeamMember: "Returns one team member or pending invitation" (the one `member_id` names); parameter MemberId: "ID of the team member (`mem_...`)"; docs/decisions/009-resources.md (team members: get).',
    make: () => {
      const book = new Book()
      const members = book.keep(new Seen('team_member', 'team-members'))
      const flights = new Flights<{ swap: Json | undefined }>()
      return {
        request(request) {
          flights.add(request, request, book, { swap: undefined })
          return request
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          if (!flight) return response
          members.observe(request, response, flight.account)
          const id = itemId(request, 'GET', 'team-members')
          if (id === undefined || response.status !== 200 || !isObject(response.body)) return response
          if (flight.note.swap) {
            response.body = flight.note.swap
            return response
          }
          const partner = flights
            .list()
            .find(
              (other) =>
                other.account === flight.account &&
                other.method === 'GET' &&
                other.item?.collection === 'team-members' &&
                other.seq > flight.seq &&
                !other.note.swap,
            )
          const theirs = partner?.item ? members.get(flight.account, partner.item.id) : undefined
          if (!partner || !theirs || !(id > String(theirs.id))) return response
          partner.note.swap = structuredClone(response.body)
          response.body = theirs
          return response
        },
      }
    },
  },
  {
    name: 'member-removal-answer-names-concurrent-removal',
    kind: 'shared-state',
    what:
      "The removal handler keeps the member it works on in a variable declared at module level (`let removed` above the handler, a hoisting slip), assigned from the path when a request starts and read when the answer is written, after the delete was awaited: when two DELETE /team-members/{member_id} are in flight together, the first is answered `{id: <the second's member_id>, object: team_member, deleted: true}` (both members are removed). " +
      'Contract, removeTeamMember: "Removes a member, or withdraws a pending invitation, and answers `{id, object: \\"team_member\\", deleted: true}`"; DeletedObject.id: the ID of the deleted object; docs/decisions/009-resources.md.',
    make: () => {
      const book = new Book()
      const flights = new Flights<undefined>()
      return {
        request(request) {
          flights.add(request, request, book, undefined)
          return request
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          const id = itemId(request, 'DELETE', 'team-members')
          if (!flight || id === undefined || response.status !== 200 || !isObject(response.body))
            return response
          const later = flights
            .list()
            .filter(
              (other) =>
                other.seq > flight.seq &&
                other.method === 'DELETE' &&
                other.item?.collection === 'team-members' &&
                other.item.id !== id,
            )
            .pop()
          if (later?.item) response.body.id = later.item.id
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------------ races
  {
    name: 'agent-delete-lost-to-concurrent-patch',
    kind: 'race',
    what:
      "PATCH /agents/{agent_id} reads the agent, merges the body and writes the whole document back with an upsert (`put`), without a condition on the version it read: a DELETE of the agent that arrives while a PATCH of it is in flight is answered 200 `{deleted: true}`, and then the PATCH's write puts the agent back, changed, so it is still there for GET, the list, a PATCH and a second DELETE. " +
      'Contract, deleteAgent: "Permanently deletes an agent and answers `{id, object: \\"agent\\", deleted: true}` ... Deleting it again gives 404"; getAgent: "an ID of a deleted agent gives 404 `resource_not_found`"; docs/decisions/014-state.md: "nothing acknowledged is ever lost".',
    make: () => {
      const book = new Book()
      const flights = new Flights<{ standIn: string | undefined }>()
      return {
        request(request) {
          let sent = request
          let standIn: string | undefined
          const id = itemId(request, 'DELETE', 'agents')
          const scopes = book.scopesOf(tokenOf(request))
          const mayRead = scopes?.includes('agents:read') || scopes?.includes('agents:write')
          if (id !== undefined && request.body === null && scopes?.includes('resources:delete') && mayRead) {
            const account = book.account(tokenOf(request))
            if (
              flights
                .list()
                .some((flight) => flight.account === account && isItem(flight, 'PATCH', 'agents', id))
            ) {
              sent = { ...request, method: 'GET' }
              standIn = id
            }
          }
          flights.add(sent, request, book, { standIn })
          return sent
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          const id = flight?.note.standIn
          if (id === undefined || response.status !== 200) return response
          return answer(response, 200, { id, object: 'agent', deleted: true })
        },
      }
    },
  },
  {
    name: 'concurrent-call-log-deletes-both-succeed',
    kind: 'race',
    what:
      'DELETE /call-logs/{call_log_id} checks that the call log exists with a SELECT, then deletes it without looking at the number of rows the DELETE affected: when two deletions of one call log are in flight together (a double click, a retry on a slow answer), both are answered 200 `{deleted: true}` instead of one of them 404. ' +
      'Contract, deleteCallLog: "Permanently deletes a call log ... and answers `{id, object: \\"call_log\\", deleted: true}`"; NotFound: "`resource_not_found`: the path ID does not exist in the key\'s account (or has the wrong shape, or was deleted)"; deleteAgent: "Deleting it again gives 404" (the same for every DELETE).',
    make: () => {
      const book = new Book()
      const flights = new Flights<{ first: Flight<unknown> | undefined }>()
      return {
        request(request) {
          const id = itemId(request, 'DELETE', 'call-logs')
          const account = book.account(tokenOf(request))
          const first =
            id === undefined
              ? undefined
              : flights
                  .list()
                  .find((flight) => flight.account === account && isItem(flight, 'DELETE', 'call-logs', id))
          flights.add(request, request, book, { first })
          return request
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          const first = flight?.note.first?.answer
          if (!flight?.item || first?.status !== 200) return response
          if (response.status !== 404 || codeOf(response) !== 'resource_not_found') return response
          return answer(response, 200, { id: flight.item.id, object: 'call_log', deleted: true })
        },
      }
    },
  },
  {
    name: 'concurrent-integration-patches-lose-settings',
    kind: 'race',
    what:
      "PATCH /integrations/{integration_id} reads the integration's settings document (`enabled`, `config`), applies the body and writes the whole document back, without a version check: when two updates of one integration are in flight together, the later one writes back the settings as they were before the earlier one, so a field the earlier one changed and the later one did not send is lost (a `config` set by one request and `enabled` switched by another: the integration ends up enabled with its old configuration), in the later answer and in every read after. " +
      'Contract, updateIntegration: "Partially updates an integration ... `enabled` switches the integration on or off ... `config` **replaces** the stored configuration as a whole"; the 200: "The updated integration"; docs/decisions/014-state.md: "nothing acknowledged is ever lost".',
    make: () => {
      const book = new Book()
      const integrations = book.keep(new Seen('integration', 'integrations'))
      const flights = new Flights<{ before: Json | undefined }>()
      return {
        request(request) {
          let sent = request
          let before: Json | undefined
          const slug = itemId(request, 'PATCH', 'integrations')
          const body = jsonOf(request)
          if (slug !== undefined) {
            const account = book.account(tokenOf(request))
            before = integrations.get(account, slug)
            const earlier = flights
              .list()
              .find(
                (flight) =>
                  flight.account === account &&
                  isItem(flight, 'PATCH', 'integrations', slug) &&
                  flight.note.before,
              )
            if (earlier?.note.before && isObject(earlier.body) && isObject(body)) {
              const written: Json = { ...body }
              for (const field of ['enabled', 'config'])
                if (field in earlier.body && !(field in body) && field in earlier.note.before)
                  written[field] = earlier.note.before[field]
              if (Object.keys(written).length !== Object.keys(body).length) sent = withJson(request, written)
            }
          }
          flights.add(sent, request, book, { before })
          return sent
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          if (flight) integrations.observe(request, response, flight.account)
          return response
        },
      }
    },
  },
  {
    name: 'concurrent-metadata-replacements-merged',
    kind: 'race',
    what:
      "Agent metadata is kept one row per key, and PATCH replaces it with `DELETE FROM agent_metadata WHERE agent_id = ?` then one INSERT per key, in a READ COMMITTED transaction: when two updates of one agent that both send `metadata` are in flight together, each DELETE sees only the rows committed before it, so the agent ends up with the keys of both maps (the later request's value where both have a key), in the later answer and in every read after, instead of the later map alone. " +
      'Contract, updateAgent: "every other field, including `metadata` and `webhook_events`, **replaces** the stored value as a whole (`metadata: {}` removes all keys)"; Metadata: "Free-form string key/value pairs"; docs/decisions/009-resources.md: "PATCH (partial; `null` clears a nullable field)".',
    make: () => {
      const book = new Book()
      const flights = new Flights<{ metadata: Json | undefined }>()
      return {
        request(request) {
          let sent = request
          let metadata: Json | undefined
          const id = itemId(request, 'PATCH', 'agents')
          const body = jsonOf(request)
          if (id !== undefined && isObject(body) && isObject(body.metadata) && validBody(request)) {
            metadata = body.metadata
            const account = book.account(tokenOf(request))
            const merged: Json = {}
            for (const flight of flights.list())
              if (flight.account === account && isItem(flight, 'PATCH', 'agents', id) && flight.note.metadata)
                Object.assign(merged, flight.note.metadata)
            Object.assign(merged, body.metadata)
            const keys = Object.keys(merged).length
            if (keys > Object.keys(body.metadata).length && keys <= 50) {
              sent = withJson(request, { ...body, metadata: merged })
              metadata = merged
            }
          }
          flights.add(sent, request, book, { metadata })
          return sent
        },
        response(response, request) {
          flights.end(request, response)
          book.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'team-limit-checked-before-concurrent-invites-count',
    kind: 'race',
    what:
      "POST /team-members counts the account's members and invitations, compares the count with the limit, and inserts, without a lock or a constraint between the count and the insert: when an account is one short of the limit (199 of 200) and two invitations are in flight together, both pass the check and both are created (201 each), leaving the account with more members than the service keeps; the extra invitation is listed, read, changed and removed like any other, and later invitations are refused 409 `limit_reached`. " +
      'Contract, Conflict: "`limit_reached` (the account already holds as many objects of this kind as the service keeps; the mock: 1,000 agents and 200 team members per account; nothing is created)"; docs/decisions/014-state.md: "exactly N of M concurrent requests are admitted across processes" (a limit holds under concurrency).',
    make: () => {
      const book = new Book()
      const members = book.keep(new Seen('team_member', 'team-members'))
      const phantoms = book.map<string, { account: string; member: Json }>()
      const flights = new Flights<{ rivals: Flight<unknown>[] }>()
      const taken = (account: string, email: string) =>
        book.ownerOf(account) === email ||
        members.all(account).some((member) => member.email === email) ||
        [...phantoms.values()].some(
          (phantom) => phantom.account === account && phantom.member.email === email,
        )
      return {
        request(request) {
          const account = book.account(tokenOf(request))
          const rivals = isCreate(request, 'team-members')
            ? flights.list().filter((flight) => isInvite(flight) && flight.account === account)
            : []
          flights.add(request, request, book, { rivals })
          return request
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          if (!flight?.v1) return response
          const account = flight.account
          members.observe(request, response, account)
          if (isCreate(request, 'team-members')) {
            const lost = response.status === 409 && codeOf(response) === 'limit_reached'
            const rivalMade = flight.note.rivals.some((rival) => rival.answer?.status === 201)
            if (!lost || !rivalMade || flight.key !== undefined || !isObject(flight.body)) return response
            const body = flight.body
            const email = String(body.email).toLowerCase()
            if (taken(account, email)) return failWith(response, alreadyMember(email))
            const now = nowOf(response)
            if (now === undefined) return response
            const at = timestampOf(now)
            const member: Json = {
              id: randomId('mem'),
              object: 'team_member',
              email,
              name: typeof body.name === 'string' ? body.name : null,
              role: typeof body.role === 'string' ? body.role : 'viewer',
              status: 'invited',
              invited_at: at,
              joined_at: null,
              created_at: at,
            }
            phantoms.set(String(member.id), { account, member })
            const base = request.baseUrl ?? 'http://127.0.0.1:4010/v1'
            return answer(response, 201, structuredClone(member), {
              location: `${base}/team-members/${String(member.id)}`,
            })
          }
          const item = flight.item
          const phantom = item?.collection === 'team-members' ? phantoms.get(item.id) : undefined
          if (item && phantom?.account === account) {
            if (response.status !== 404 || codeOf(response) !== 'resource_not_found') return response
            if (flight.method === 'GET') return answer(response, 200, structuredClone(phantom.member))
            if (flight.method === 'DELETE') {
              phantoms.delete(item.id)
              return answer(response, 200, { id: item.id, object: 'team_member', deleted: true })
            }
            if (flight.method === 'PATCH' && validBody(request) && isObject(flight.body)) {
              phantom.member.role = flight.body.role
              return answer(response, 200, structuredClone(phantom.member))
            }
            return response
          }
          if (listOf(request) === 'team-members' && response.status === 200 && isObject(response.body)) {
            const extra = [...phantoms.values()]
              .filter((phantom) => phantom.account === account)
              .map((phantom) => structuredClone(phantom.member))
            if (extra.length > 0)
              spliceIntoPage(response.body, extra, flight.query, (id) => {
                const member = members.get(account, id)
                return member ? sortKey(member) : undefined
              })
          }
          return response
        },
      }
    },
  },
  {
    name: 'member-lookup-timeout-answers-not-found',
    kind: 'race',
    what:
      "An invitation locks the account's members table while it checks the address and the limit and inserts (`LOCK TABLE team_members IN SHARE ROW EXCLUSIVE MODE`), and a role change loads its member with `SELECT ... FOR UPDATE` under a short `lock_timeout`; the repository maps a lock timeout to the same `None` as a missing row: a PATCH /team-members/{member_id} that arrives while an invitation of the same account is in flight is answered 404 `resource_not_found` for a member that exists, and its role is not changed. " +
      'Contract, updateTeamMember: "Changes the role of a member or of a pending invitation"; NotFound: "`resource_not_found`: the path ID does not exist in the key\'s account (or has the wrong shape, or was deleted)"; Order of checks: "6. **404** resource: the path ID does not exist in the key\'s account".',
    make: () => {
      const book = new Book()
      const flights = new Flights<{ standIn: string | undefined }>()
      return {
        request(request) {
          let sent = request
          let standIn: string | undefined
          const id = itemId(request, 'PATCH', 'team-members')
          if (id !== undefined && bodyProblems(request) !== undefined) {
            const account = book.account(tokenOf(request))
            if (flights.list().some((flight) => isInvite(flight) && flight.account === account)) {
              sent = harmless(request)
              standIn = id
            }
          }
          flights.add(sent, request, book, { standIn })
          return sent
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          const id = flight?.note.standIn
          if (id === undefined || !passedToBody(response)) return response
          return failWith(response, errors.resourceNotFound('team member', id, 'member_id'))
        },
      }
    },
  },
  {
    name: 'slow-invites-retried-by-gateway',
    kind: 'retry',
    what:
      "POST /team-members sends the invitation e-mail synchronously, which is slow when the platform is busy, and the API gateway in front retries a request whose upstream does not answer within its timeout, POSTs included (`retry_on: 5xx,reset,timeout` without a method restriction): an invitation that arrives while two or more other requests are in flight is carried out by the first attempt, and the client gets the answer of the gateway's retry: 409 `member_already_exists` for the address it has just invited, or, with an `Idempotency-Key`, the 201 marked `Idempotent-Replayed: true` although the client sent it once. " +
      'Contract, inviteTeamMember: "Answers **201** with the new member ... if any member or pending invitation of the account already has it (case-insensitive), the answer is 409 `member_already_exists`"; header Idempotent-Replayed: "`true` when this response is the stored response of an earlier request with the same `Idempotency-Key`. Absent otherwise".',
    make: () => {
      const book = new Book()
      const flights = new Flights<{ retried: boolean }>()
      return {
        request(request) {
          const retried = isCreate(request, 'team-members') && flights.list().length >= 2
          flights.add(request, request, book, { retried })
          return request
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          if (
            !flight?.note.retried ||
            response.status !== 201 ||
            replayed(response) ||
            !isObject(response.body)
          )
            return response
          if (flight.key !== undefined) {
            response.headers['idempotent-replayed'] = 'true'
            return response
          }
          return failWith(response, alreadyMember(String(response.body.email)))
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------------- torn reads
  {
    name: 'agent-read-between-row-and-settings-writes',
    kind: 'torn-read',
    what:
      "PATCH /agents/{agent_id} writes the agents row (name, prompt, status, timestamps...) and the agent_settings row (`voice`, `llm`) in two statements outside a transaction: a GET /agents/{agent_id} or GET /agents that arrives while an update that changes `voice` or `llm` is in flight shows the agent with the update's other fields and its new `updated_at`, but with the `voice` and `llm` it had before, a state the agent never had. " +
      'Contract, updateAgent: "Partially updates an agent. Only the fields sent change ... `voice` and `llm` are **merged** field by field into the stored objects"; getAgent: "Returns one agent"; docs/decisions/014-state.md: "A mock that forgets an acknowledged write teaches a frontend to expect a platform that does" (a write is seen whole or not at all).',
    make: () => {
      const book = new Book()
      const agents = book.keep(new Seen('agent', 'agents'))
      const flights = new Flights<{ before: Json | undefined; torn: Map<string, Json> }>()
      return {
        request(request) {
          const account = book.account(tokenOf(request))
          let before: Json | undefined
          const torn = new Map<string, Json>()
          const patched = itemId(request, 'PATCH', 'agents')
          const body = jsonOf(request)
          if (patched !== undefined && isObject(body) && ('voice' in body || 'llm' in body)) {
            const agent = agents.get(account, patched)
            if (agent && isObject(agent.voice) && isObject(agent.llm))
              before = { voice: agent.voice, llm: agent.llm }
          }
          const read = itemId(request, 'GET', 'agents')
          if (read !== undefined || listOf(request) === 'agents')
            for (const flight of flights.list())
              if (
                flight.account === account &&
                flight.method === 'PATCH' &&
                flight.item?.collection === 'agents'
              )
                if (flight.note.before && (read === undefined || read === flight.item.id))
                  torn.set(flight.item.id, flight.note.before)
          flights.add(request, request, book, { before, torn })
          return request
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          if (!flight) return response
          agents.observe(request, response, flight.account)
          if (flight.note.torn.size === 0) return response
          for (const agent of objectsOf(response, 'agent')) {
            const before = flight.note.torn.get(String(agent.id))
            if (!before) continue
            agent.voice = structuredClone(before.voice)
            agent.llm = structuredClone(before.llm)
          }
          return response
        },
      }
    },
  },
  {
    name: 'integration-read-between-status-and-hint-writes',
    kind: 'torn-read',
    what:
      'New credentials go to a secrets vault, and the integration row is written twice: `status` first, then `credential_hint` and `connected_at` when the vault has acknowledged the secret: a GET /integrations or GET /integrations/{integration_id} that arrives while an update with `credentials` is in flight shows the integration `connected` with its previous `credential_hint` and `connected_at` (`null` for one that was not connected), a state it never had. ' +
      'Contract, updateIntegration: "`credentials` (write-only) replaces the stored credentials: the integration becomes `connected`, `connected_at` is set to now and `credential_hint` is recomputed"; Integration: "`connected` (credentials stored)", `credential_hint`: "`\\"...\\"` and the last 4 characters of a stored credential, or `null` without credentials", `connected_at`: "When credentials were last stored; `null` while not connected".',
    make: () => {
      const book = new Book()
      const integrations = book.keep(new Seen('integration', 'integrations'))
      const flights = new Flights<{ before: Json | undefined; torn: Map<string, Json> }>()
      return {
        request(request) {
          const account = book.account(tokenOf(request))
          let before: Json | undefined
          const torn = new Map<string, Json>()
          const slug = itemId(request, 'PATCH', 'integrations')
          const body = jsonOf(request)
          if (slug !== undefined && isObject(body) && isObject(body.credentials) && validBody(request))
            before = integrations.get(account, slug)
          const read = itemId(request, 'GET', 'integrations')
          if (read !== undefined || listOf(request) === 'integrations')
            for (const flight of flights.list())
              if (
                flight.account === account &&
                flight.method === 'PATCH' &&
                flight.item?.collection === 'integrations'
              )
                if (flight.note.before && (read === undefined || read === flight.item.id))
                  torn.set(flight.item.id, flight.note.before)
          flights.add(request, request, book, { before, torn })
          return request
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          if (!flight) return response
          integrations.observe(request, response, flight.account)
          for (const integration of objectsOf(response, 'integration')) {
            const before = flight.note.torn.get(String(integration.id))
            if (!before) continue
            integration.credential_hint = before.credential_hint ?? null
            integration.connected_at = before.connected_at ?? null
          }
          return response
        },
      }
    },
  },
  {
    name: 'analytics-totals-read-before-concurrent-delete',
    kind: 'torn-read',
    what:
      'GET /analytics/calls computes `totals` and `series` with two queries, outside a transaction (READ COMMITTED, each query its own snapshot), totals first: when a call log in the range is deleted while an analytics request is in flight, the answer counts it in `totals` (its call, its duration and cost if completed, its analysis) and not in `series`, so the series no longer add up to the totals. ' +
      'Contract, getCallAnalytics: "**Additivity.** Every count and every total ... summed over `series` equals the same field of `totals` exactly"; CallAnalytics: "counts and totals of the series add up to `totals`"; deleteCallLog: "A deleted call log no longer counts in analytics".',
    make: () => {
      const book = new Book()
      const logs = book.keep(new Seen('call_log', 'call-logs'))
      const flights = new Flights<{ gone: Json[] }>()
      return {
        request(request) {
          const gone: Json[] = []
          if (isAnalytics(request)) {
            const account = book.account(tokenOf(request))
            for (const flight of flights.list())
              if (
                flight.account === account &&
                flight.method === 'DELETE' &&
                flight.item?.collection === 'call-logs'
              ) {
                const log = logs.get(account, flight.item.id)
                if (log) gone.push(log)
              }
          }
          flights.add(request, request, book, { gone })
          return request
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          const started = startedCall(request, response)
          if (started) logs.put(started.account, started.log)
          if (!flight) return response
          logs.observe(request, response, flight.account)
          if (flight.note.gone.length === 0 || response.status !== 200 || !isObject(response.body))
            return response
          const body = response.body
          const start = Date.parse(String(body.start))
          const end = Date.parse(String(body.end))
          const counted = flight.note.gone.filter((log) => {
            const at = Date.parse(String(log.created_at))
            return at >= start && at < end && (body.agent_id === null || body.agent_id === log.agent_id)
          })
          if (counted.length > 0 && isObject(body.totals)) body.totals = countedIn(body.totals, counted)
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------------- cursors
  {
    name: 'ending-before-pages-from-first-page-snapshot',
    kind: 'cursor',
    what:
      'GET /agents serves the pages of a walk from a snapshot (a point-in-time read view) opened by the page that returned the cursor and kept for 60 seconds, so that a walk is stable: a page asked with `ending_before` (toward newer agents) within a minute of the page its cursor came from leaves out the agents created since that page, and says `has_more: false` when only those lie beyond, so a client that pages back to the top after creating agents never sees them. ' +
      'Contract, Lists and pagination: "`ending_before=<id>` the objects before it (newer, still returned newest first) ... `has_more` tells whether more objects exist beyond the returned page in the direction of travel"; parameter EndingBefore: "returns the objects that precede it (newer ones)"; docs/decisions/008-lists-and-idempotency.md: "Cursor pagination on object IDs stays correct while objects are created and deleted".',
    make: () => {
      const book = new Book()
      let counter = 0
      const created = book.map<string, number>()
      const snapshots = book.map<string, { seq: number; at: number }>()
      const flights = new Flights<{
        snapshot?: { seq: number; at: number }
        limit?: number
        newer?: number
      }>()
      return {
        request(request) {
          let sent = request
          let note: { snapshot?: { seq: number; at: number }; limit?: number; newer?: number } = {}
          if (listOf(request) === 'agents') {
            const account = book.account(tokenOf(request))
            const query = queryOf(request)
            const cursor = query.get('ending_before') ?? query.get('starting_after')
            const snapshot = cursor === null ? undefined : snapshots.get(`${account} ${cursor}`)
            if (snapshot && book.now !== undefined && book.now - snapshot.at < 60) {
              note = { snapshot }
              const asked = query.get('limit')
              if (query.has('ending_before') && (asked === null || /^(100|[1-9][0-9]?)$/.test(asked))) {
                const limit = asked === null ? 20 : Number(asked)
                let newer = 0
                for (const [key, seq] of created)
                  if (key.startsWith(`${account} `) && seq > snapshot.seq) newer++
                if (newer > 0) {
                  sent = withQuery(request, (q) => q.set('limit', String(Math.min(100, limit + newer))))
                  note = { snapshot, limit, newer }
                }
              }
            }
          }
          flights.add(sent, request, book, note)
          return sent
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          if (!flight) return response
          if (
            isCreate(request, 'agents') &&
            response.status === 201 &&
            !replayed(response) &&
            isObject(response.body)
          )
            created.set(`${flight.account} ${String(response.body.id)}`, ++counter)
          const body = response.body
          if (
            listOf(request) !== 'agents' ||
            response.status !== 200 ||
            !isObject(body) ||
            !Array.isArray(body.data)
          )
            return response
          const { snapshot, limit, newer } = flight.note
          if (snapshot && limit !== undefined && newer !== undefined) {
            const all = body.data as Json[]
            const data = all.filter(
              (agent) => (created.get(`${flight.account} ${String(agent.id)}`) ?? 0) <= snapshot.seq,
            )
            body.has_more =
              data.length > limit || (body.has_more === true && all.length - data.length >= newer)
            body.data = data.slice(Math.max(0, data.length - limit))
          }
          const point = snapshot ?? { seq: counter, at: nowOf(response) ?? book.now ?? 0 }
          for (const agent of body.data as Json[])
            snapshots.set(`${flight.account} ${String(agent.id)}`, point)
          return response
        },
      }
    },
  },
  {
    name: 'removed-member-cursor-restarts-list',
    kind: 'cursor',
    what:
      'GET /team-members resolves its cursor with `SELECT created_at, id FROM team_members WHERE id = ?` and, when that finds nothing, builds the page without the keyset condition: a page asked with `starting_after` or `ending_before` naming a member removed since the page that returned it (a client that removes members while it walks the team) starts again from the newest member, repeating the members already seen, instead of going on from where the removed member was. ' +
      'Contract, Lists and pagination: "`starting_after=<id>` returns the objects after that one in this order (older)"; parameter StartingAfter: "returns the objects that follow it (older ones) ... an ID that is not an object of this collection in this account is 400 `invalid_cursor`"; docs/decisions/008-lists-and-idempotency.md: "Cursor pagination on object IDs stays correct while objects are created and deleted (an offset would skip or repeat)".',
    make: () => {
      const book = new Book()
      const removed = book.set<string>()
      return {
        request(request) {
          if (listOf(request) !== 'team-members') return request
          const account = book.account(tokenOf(request))
          const query = queryOf(request)
          const cursors = ['starting_after', 'ending_before'].filter((name) => query.has(name))
          const name = cursors[0]
          if (cursors.length !== 1 || name === undefined || query.getAll(name).length !== 1) return request
          if (!removed.has(`${account} ${query.get(name)}`)) return request
          return withQuery(request, (q) => q.delete(name))
        },
        response(response, request) {
          book.observe(request, response)
          const id = itemId(request, 'DELETE', 'team-members')
          if (id !== undefined && response.status === 200)
            removed.add(`${book.account(tokenOf(request))} ${id}`)
          return response
        },
      }
    },
  },

  // --------------------------------------------------------------------------------------- order of checks
  {
    name: 'integration-locked-before-body-read',
    kind: 'check-order',
    what:
      "PATCH /integrations/{integration_id} takes the integration's row lock first, so that concurrent updates queue (`SELECT ... FOR UPDATE`, which also loads it), and reads the body afterwards: for an ID outside the catalogue, a request whose body is also refused (not JSON, 400 `invalid_json`; another media type, 415; over 1 MiB, 413) gets 404 `resource_not_found` instead of the body's error. " +
      'docs/decisions/005-order-of-checks.md: "... -> 400 malformed request (query and headers, then 413 for a body over 1 MiB, 415 for a body that is not JSON, 400 for a body that does not parse) -> 404 resource -> ...", "a malformed body before the resource lookup, so that a 404 means the ID and nothing else"; contract, Order of checks, steps 5 and 6.',
    make: () => ({
      response(response, request) {
        const slug = itemId(request, 'PATCH', 'integrations')
        if (slug === undefined || CATALOGUE.has(slug)) return response
        const refused =
          response.status === 413 ||
          response.status === 415 ||
          (response.status === 400 && codeOf(response) === 'invalid_json')
        if (!refused) return response
        return failWith(response, errors.resourceNotFound('integration', slug, 'integration_id'))
      },
    }),
  },
  {
    name: 'invite-address-reserved-before-validation',
    kind: 'check-order',
    what:
      "So that two concurrent invitations of one address cannot both pass, POST /team-members first inserts a reservation row for the lower-cased address (unique on account and address) and validates the body afterwards: an invitation of an address that is already a member or a pending invitation gets 409 `member_already_exists` even when its body is invalid (a role outside `admin`, `editor`, `viewer`, `owner` among them; an unknown field; a name too long), instead of 422 with the body's problems. " +
      'docs/decisions/005-order-of-checks.md: "-> 422 body validation -> 409 conflict"; contract, Order of checks: "7. **422** body validation ... 8. **409** conflict (`member_already_exists`, ...)"; inviteTeamMember: "`owner` cannot be given (422, code `enum`)".',
    make: () => {
      const book = new Book()
      const members = book.keep(new Seen('team_member', 'team-members'))
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          members.observe(request, response, account)
          if (!isCreate(request, 'team-members') || response.status !== 422) return response
          const body = jsonOf(request)
          if (!isObject(body) || typeof body.email !== 'string') return response
          const email = body.email.toLowerCase()
          const taken =
            book.ownerOf(account) === email || members.all(account).some((member) => member.email === email)
          return taken ? failWith(response, alreadyMember(email)) : response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------- event order
  {
    name: 'same-second-call-stages-applied-out-of-order',
    kind: 'event-order',
    what:
      "The carrier's status callbacks of a call are consumed by parallel workers, each of which writes its stage with a plain `UPDATE call_logs SET status = ?` (no check that the stage moves forward): when two stages of a call fall in the same second (a call answered or given up on its first ring, `ring_seconds` 0), the `ringing` write can land after the next stage's, and the call shows `ringing` until its next stage: while it talks (instead of `in_progress`), and, for a call that never connects (`no_answer`, `busy`, `failed`, `canceled`), for good, with its `ended_at` and `duration_seconds` set. " +
      'Contract, CallStatus: "`queued` -> `ringing` -> `in_progress` -> `completed`; or from `queued` / `ringing` to `no_answer`, `busy`, `failed` or `canceled`. `completed`, `no_answer`, `busy`, `failed` and `canceled` are final"; CallLogSummary: "`ended_at` is set when the call reaches a final status"; mock-control.yaml, startCall: "`ringing` 1 second after it was queued ..., then after `ring_seconds` either `in_progress` (outcome `completed`) or its final status".',
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
            if (ring === undefined) continue
            const sameSecond = log.started_at !== null && log.started_at === log.ended_at
            if (
              (log.status === 'in_progress' && ring === 0) ||
              (NEVER_CONNECTED.has(String(log.status)) && sameSecond)
            )
              log.status = 'ringing'
          }
          return response
        },
      }
    },
  },
  {
    name: 'second-role-change-in-same-second-dropped',
    kind: 'event-order',
    what:
      "Role changes are applied to the members table as last-writer-wins on a `modified_at` column of whole seconds (`UPDATE ... WHERE modified_at < :now`, so that a delayed write cannot overwrite a newer one): a second role change of one member in the same second of the platform clock as the previous change (a click on admin, then at once on editor) is answered 200 with the new role but is not written, and the member keeps the first change's role in every later read, for good. " +
      'Contract, updateTeamMember: "Changes the role of a member or of a pending invitation"; the 200: "The updated team member"; docs/decisions/014-state.md: "nothing acknowledged is ever lost".',
    make: () => {
      const book = new Book()
      const changed = book.map<string, { second: number; role: string }>()
      const flights = new Flights<{ shown: string | undefined }>()
      return {
        request(request) {
          let sent = request
          let shown: string | undefined
          const id = itemId(request, 'PATCH', 'team-members')
          const body = jsonOf(request)
          const onlyRole = isObject(body) && Object.keys(body).length === 1 && typeof body.role === 'string'
          if (id !== undefined && onlyRole && ROLES.has(String(body.role)) && validBody(request)) {
            const last = changed.get(`${book.account(tokenOf(request))} ${id}`)
            if (last && last.second === book.now && last.role !== body.role) {
              sent = withJson(request, { role: last.role })
              shown = String(body.role)
            }
          }
          flights.add(sent, request, book, { shown })
          return sent
        },
        response(response, request) {
          const flight = flights.end(request, response)
          book.observe(request, response)
          const id = itemId(request, 'PATCH', 'team-members')
          if (!flight || id === undefined || response.status !== 200 || !isObject(response.body))
            return response
          if (flight.note.shown !== undefined) {
            response.body.role = flight.note.shown
            return response
          }
          const at = nowOf(response)
          if (at !== undefined && typeof response.body.role === 'string')
            changed.set(`${flight.account} ${id}`, { second: at, role: response.body.role })
          return response
        },
      }
    },
  },
  {
    name: 'invitation-times-made-strictly-increasing',
    kind: 'event-order',
    what:
      "Invitations are kept in a table whose keyset index is unique on (account_id, created_at), and the insert takes `created_at = max(now, the account's latest invitation + 1 second)` so that the column alone orders them: an invitation made in the same second as the account's previous one (a script that invites a team, two invitations in quick succession) is stamped one second later than the previous, a time still to come, in `created_at` and `invited_at`, in its answer and in every read. " +
      'Contract, inviteTeamMember: "Answers **201** with the new member (`status: invited`, `joined_at: null`, `invited_at` = `created_at` = now)"; TeamMember.invited_at: "When the invitation was sent"; listTeamMembers: "newest first (`created_at` descending, then `id` descending)".',
    make: () => {
      const book = new Book()
      const latest = book.map<string, number>()
      const stamped = book.map<string, string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const body = response.body
          if (
            isCreate(request, 'team-members') &&
            response.status === 201 &&
            !replayed(response) &&
            isObject(body)
          ) {
            const second = secondOf(body.created_at)
            const before = latest.get(account)
            if (second !== undefined) {
              const given = before !== undefined && second <= before ? before + 1 : second
              latest.set(account, given)
              if (given !== second) stamped.set(`${account} ${String(body.id)}`, timestampOf(given))
            }
          }
          let touched = false
          for (const member of objectsOf(response, 'team_member')) {
            const at = stamped.get(`${account} ${String(member.id)}`)
            if (at === undefined) continue
            member.created_at = at
            member.invited_at = at
            touched = true
          }
          if (touched && listOf(request) === 'team-members' && isObject(body) && Array.isArray(body.data))
            body.data = (body.data as Json[]).sort(newestFirst)
          return response
        },
      }
    },
  },
]
