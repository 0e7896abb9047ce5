/**
 * Held-out fault set 22: thirty faults an implementer of the platform's v1 API could plausibly ship, written blind to
 * the contract suite: neither its checks, nor its exploration, nor its tests, nor its documentation were read, and the
 * suite was never run. held-out-3 to held-out-21 were read for their format only, and so as not to repeat their
 * faults (every fault here breaks another rule, on another operation, or in another situation than theirs). The
 * sources were the platform's spec and the product brief, the product decisions (the project's record of them:
 * `docs/decisions/`), the contract (`openapi/v1.yaml`, `openapi/mock-control.yaml`) and the mock engine (the
 * correct implementation every fault wraps).
 *
 * No theme: a general set, as an independent QA team would write it, spread over the whole spec and the simulated
 * dashboard: key restrictions, legacy ways of sending a key, the scopes of groups and of publishable keys, unknown
 * paths and request IDs, rate-limit fields and custom quotas, agent validation and merging, call logs and their
 * filters, analytics, integrations, team members, cursors, idempotency across a restart of the platform, scenarios,
 * the journal and the dashboard's own lists. The bugs are the ordinary ones: an empty list taken as a list that
 * matches nothing, a comparison of host names that drops the port, a rounding where a truncation was meant, a
 * fallback kept for a legacy SDK, a group expanded too widely, a route mounted ahead of authentication, a helper
 * copied from another resource, a bound made exclusive, a falsy check where zero is a value, an `else if` where two
 * fields apply, a table forgotten by a reset, a middleware mounted in the wrong place, a string cut in UTF-16 units,
 * an index not updated on delete, a count read from the wrong window, a default taken from another route. About two
 * thirds of them only show after a sequence of requests (objects made, changed and read again; windows filled; keys
 * made with restrictions and used; simulated calls run on the moved clock; scenarios used up; the platform reset);
 * the rest show on one request.
 *
 * Each fault wraps the correct engine (`faultyHandler`): it rewrites a request before the engine sees it, answers in
 * the engine's place (the engine is then sent a stand-in: the same request made harmless, which passes the same
 * authentication, rate-limit, route and permission checks and is counted alike), or rewrites the engine's answer,
 * keeping what it needs in the closure `make()` returns (keys and accounts seen through the control plane, objects
 * as answers showed them, simulated calls and scenarios started there). Where the faulty platform refuses a value
 * the engine would take, the engine is sent the request with that value replaced by one it refuses at the same step,
 * so that it still checks and counts the request as the faulty platform would and changes nothing, and its refusal
 * is reworded. Every fault deviates from the platform's spec, the contract or a decision (cited in `what`), in
 * specific situations only (ordinary traffic, the first reads of every endpoint and a create and a read, is
 * unchanged), and never where the spec leaves a choice open (docs/decisions/011-allowed-forms.md).
 * Liveness: `scripts/fault-sets/held-out-22-live.ts`.
 */
import { randomUUID } from 'node:crypto'
import { PLAN_LIMITS, type Plan } from '../../mocks/engine/accounts.ts'
import { errors } from '../../mocks/engine/api-error.ts'
import { json } from '../../mocks/engine/json-answer.ts'
import { injectedAnswer } from '../../mocks/engine/scenarios/injected-answer.ts'
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import { ClockWatch, KeptBook, Seen } from './fault-books.ts'
import {
  ACCOUNT_PATH,
  ALL_SCOPES,
  CALLS_PATH,
  canonical,
  controlAccounts,
  errorOf,
  failWith,
  type GeneralSetFault,
  harmless,
  instantOf,
  isAnalytics,
  isCreate,
  isList,
  isObject,
  isRead,
  isV1,
  itemId,
  type Json,
  jsonOf,
  KEYS_PATH,
  limitAsSent,
  nowOf,
  objectBody,
  objectsOf,
  ok,
  oversized,
  ownHeaders,
  passedToBody,
  pathOf,
  preflightInstead,
  queryOf,
  replayed,
  rewordFieldError,
  round,
  single,
  sortKey,
  startedCall,
  timestampOf,
  tokenOf,
  urlOf,
  v1Router,
  validBody,
  withHeader,
  withJson,
  withQuery,
} from './request-parts.ts'

/** A fault of this set: a general set's (request-parts.ts). */
export type HeldOutFault = GeneralSetFault

// ------------------------------------------------------------------------------------------------- helpers

/** The path of an account's agents as the dashboard lists them (`listAccountAgents`). */
const AGENTS_PATH = /^\/_mock\/accounts\/([^/]+)\/agents\/?$/

/** The path of a member's acceptance of an invitation (`joinTeamMember`). */
const JOIN_PATH = /^\/_mock\/accounts\/([^/]+)\/team-members\/([^/]+)\/join\/?$/

/** The path of an account's rate-limit usage (`getRateLimitUsage`). */
const USAGE_PATH = /^\/_mock\/accounts\/([^/]+)\/rate-limit\/?$/

/** The path of the scenarios (`createScenario`, `listScenarios`, `clearScenarios`). */
const SCENARIOS_PATH = /^\/_mock\/scenarios\/?$/

/** The path of one scenario (`getScenario`, `deleteScenario`). */
const SCENARIO_PATH = /^\/_mock\/scenarios\/([^/]+)\/?$/

/** The path of the journal (`listJournal`). */
const JOURNAL_PATH = /^\/_mock\/journal\/?$/

/** Whether the request resets the platform, and the answer says it did. */
const isReset = (request: EngineRequest, response: EngineResponse) =>
  pathOf(request) === '/_mock/reset' && ok(response)

/** The v1 operation a request is routed to (HEAD as its GET), or undefined. */
function operationOf(request: EngineRequest) {
  if (!isV1(request)) return undefined
  const route = v1Router.match(request.method, pathOf(request).replace(/^\/v1/, ''))
  return route.kind === 'operation' ? route.operation : undefined
}

/** The string entries of a key record's `restrictions.allowed_origins`. */
function allowedOrigins(record: Json | undefined): string[] {
  const restrictions = isObject(record?.restrictions) ? record.restrictions : undefined
  return Array.isArray(restrictions?.allowed_origins)
    ? restrictions.allowed_origins.filter((entry): entry is string => typeof entry === 'string')
    : []
}

/** The scheme, host name and port of an origin, or undefined when it is not one. */
function originParts(origin: string): { protocol: string; hostname: string; port: string } | undefined {
  try {
    const url = new URL(origin)
    return { protocol: url.protocol, hostname: url.hostname, port: url.port }
  } catch {
    return undefined
  }
}

/** The headers a scenario's injected answer carries of its own (beside the request's Request-Id and rate limit). */
const SCENARIO_HEADERS = ['mock-scenario', 'retry-after', 'allow', 'www-authenticate']

/** What a fault remembers of a scenario the control plane created. */
interface ScenarioSeen {
  id: string
  operation: string
  account_id: string | null
  key_id: string | null
  status: number | null
  network_error: unknown
  delay: unknown
  times: number | null
  probability: number
  uses: number
  created: string
}

/** A scenario as a `createScenario` 201 shows it, or undefined. */
function scenarioOf(body: unknown): ScenarioSeen | undefined {
  if (!isObject(body) || body.object !== 'scenario' || typeof body.id !== 'string') return undefined
  return {
    id: body.id,
    operation: String(body.operation),
    account_id: typeof body.account_id === 'string' ? body.account_id : null,
    key_id: typeof body.key_id === 'string' ? body.key_id : null,
    status: typeof body.status === 'number' ? body.status : null,
    network_error: body.network_error ?? null,
    delay: body.delay ?? null,
    times: typeof body.times === 'number' ? body.times : null,
    probability: typeof body.probability === 'number' ? body.probability : 1,
    uses: typeof body.uses === 'number' ? body.uses : 0,
    created: `${String(body.created_at)} ${body.id}`,
  }
}

/** Whether a scenario that only injects a status (no delay, no network error, no chance) can answer. */
const plainStatus = (scenario: ScenarioSeen) =>
  scenario.status !== null &&
  scenario.status !== 429 &&
  scenario.status !== 405 &&
  scenario.network_error === null &&
  scenario.delay === null &&
  scenario.probability === 1

/** The same request made harmless for the engine: reads as they are, DELETEs oversized, the rest with `[]`. */
const standIn = (request: EngineRequest): EngineRequest =>
  isRead(request) ? { ...request } : request.method === 'DELETE' ? oversized(request) : harmless(request)

// ---------------------------------------------------------------------------------------- what a fault learns

/**
 * What the faults of this set may need to know: the account of each key (a key's 201 in the control plane names it,
 * `GET /user` tells it for any other key), the records of the keys made through the control plane, and the User of
 * each account (the control plane's account answers, `GET /user`). `POST /_mock/reset`, which starts the platform
 * again, empties them all and every map a fault asked for.
 */
class Book extends KeptBook {
  private readonly accounts = this.map<string, string>()
  private readonly records = this.map<string, Json>()
  private readonly users = this.map<string, Json>()

  /** Learns from an answer. */
  observe(request: EngineRequest, response: EngineResponse): void {
    const path = pathOf(request)
    const body = isObject(response.body) ? response.body : undefined
    if (isReset(request, response)) {
      this.empty()
      return
    }
    if (KEYS_PATH.test(path) && request.method === 'POST' && response.status === 201 && body) {
      if (typeof body.value !== 'string') return
      if (typeof body.account_id === 'string') this.accounts.set(body.value, body.account_id)
      this.records.set(body.value, structuredClone(body))
      return
    }
    const deleted = ACCOUNT_PATH.exec(path)?.[1]
    if (deleted !== undefined && request.method === 'DELETE' && ok(response)) this.users.delete(deleted)
    for (const account of controlAccounts(request, response)) {
      const { id, object, email, name, plan, created_at } = account
      this.users.set(String(id), { id, object, email, name, plan, created_at })
    }
    const token = tokenOf(request)
    if (token !== undefined && /^\/v1\/user\/?$/.test(path) && response.status === 200 && body) {
      if (typeof body.id !== 'string') return
      this.accounts.set(token, body.id)
      this.users.set(body.id, structuredClone(body))
    }
  }

  /** The account of a key; a key never seen counts as an account of its own. */
  account(token: string | undefined): string {
    return (token === undefined ? undefined : this.accounts.get(token)) ?? `token:${token ?? ''}`
  }

  /** The record of a key made through the control plane (undefined for any other key). */
  recordOf(token: string | undefined): Json | undefined {
    return token === undefined ? undefined : this.records.get(token)
  }

  /** The User of an account, as an answer last showed it. */
  userOf(account: string): Json | undefined {
    return this.users.get(account)
  }
}

/** The account a control-plane path names (`/_mock/accounts/{account_id}/...`), or undefined. */
const controlAccountOf = (request: EngineRequest) => /^\/_mock\/accounts\/([^/]+)/.exec(pathOf(request))?.[1]

/** The account of a request: its key's for v1, the one its path names for the control plane. */
const accountOf = (book: Book, request: EngineRequest) =>
  isV1(request) ? book.account(tokenOf(request)) : controlAccountOf(request)

// ------------------------------------------------------------------------------------------------- faults

export const faults: HeldOutFault[] = [
  // ------------------------------------------------------------------------------------------------- keys
  {
    name: 'empty-ip-allowlist-blocks-everything',
    kind: 'keys',
    what:
      'The IP restriction is checked as `if (key.allowed_ips && !key.allowed_ips.some((range) => contains(range, ip)))`, and the dashboard stores the list as sent (`null` when it is left out): a key created with `allowed_ips: []` (what the form sends when its address list is left empty) is refused with 403 `key_restricted` on every request, from every address, instead of being usable from anywhere. Keys made without the field, and keys with a non-empty list, are right. ' +
      'Mock-control KeyRestrictions.allowed_ips: "IPv4/IPv6 addresses or CIDRs the key may be used from; `[]` = anywhere"; createKey: "`restrictions` (all optional): `allowed_ips` (...; requests from elsewhere get 403 `key_restricted`)"; docs/decisions/003-api-keys.md: "Optional restrictions, set at creation: `allowed_ips` (CIDR ranges; a request from elsewhere is 403 `key_restricted`)".',
    make: () => {
      const book = new Book()
      const emptied = book.set<string>()
      const refused = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isV1(request) || request.method === 'OPTIONS') return request
          const token = tokenOf(request)
          if (token === undefined || !emptied.has(token)) return request
          const sent = standIn(request)
          refused.add(sent)
          return sent
        },
        response(response, request) {
          const mine = refused.delete(request)
          book.observe(request, response)
          if (KEYS_PATH.test(pathOf(request)) && request.method === 'POST' && response.status === 201) {
            const restrictions = objectBody(request)?.restrictions
            const value = isObject(response.body) ? response.body.value : undefined
            if (
              isObject(restrictions) &&
              Array.isArray(restrictions.allowed_ips) &&
              restrictions.allowed_ips.length === 0 &&
              typeof value === 'string'
            )
              emptied.add(value)
            return response
          }
          if (!mine || response.status === 401 || response.status === 429) return response
          const code = errorOf(response)?.code
          if (code === 'route_not_found' || code === 'method_not_allowed') return response
          return failWith(
            response,
            errors.keyRestricted('This API key may not be used from this IP address.'),
          )
        },
      }
    },
  },
  {
    name: 'origin-port-ignored',
    kind: 'keys',
    what:
      'The origin restriction compares `new URL(origin).hostname` and the scheme with those of the listed origins, and drops the port: a key restricted to `http://localhost:3000` is accepted from a page at `http://localhost:5173` (or any other port of the listed host), where another application of the same machine runs, instead of being refused with 403 `key_restricted`. Origins with the listed port, and other hosts, are right. ' +
      'Mock-control createKey: "`allowed_origins` (origins like `https://app.example.com`; a request whose `Origin` header is missing or not listed gets 403 `key_restricted`)"; KeyRestrictions.allowed_origins: "Origins (`scheme://host[:port]`) the key may be used from"; docs/decisions/003-api-keys.md: "`allowed_origins` (the request\'s `Origin` must be listed; else 403 `key_restricted`)".',
    make: () => {
      const book = new Book()
      const sentFrom = new Map<EngineRequest, string>()
      return {
        request(request) {
          const origin = request.headers.origin
          if (!isV1(request) || origin === undefined) return request
          const listed = allowedOrigins(book.recordOf(tokenOf(request)))
          if (listed.length === 0 || listed.includes(origin)) return request
          const sent = originParts(origin)
          if (!sent) return request
          const twin = listed.find((entry) => {
            const parts = originParts(entry)
            return (
              parts !== undefined &&
              parts.protocol === sent.protocol &&
              parts.hostname === sent.hostname &&
              parts.port !== sent.port
            )
          })
          if (twin === undefined) return request
          const rewritten = withHeader(request, 'origin', twin)
          sentFrom.set(rewritten, origin)
          return rewritten
        },
        response(response, request) {
          book.observe(request, response)
          const origin = sentFrom.get(request)
          sentFrom.delete(request)
          if (origin !== undefined && response.headers['access-control-allow-origin'] !== undefined)
            response.headers['access-control-allow-origin'] = origin
          return response
        },
      }
    },
  },
  {
    name: 'expiry-fraction-rounded-up',
    kind: 'keys',
    what:
      "The dashboard converts a key's `expires_at` to whole seconds with `Math.round(ms / 1000)`: an expiry written with a fraction of a second of a half or more (`2026-03-10T13:00:00.5Z`, `...59.750+02:00`, what a form that adds a duration to `Date.now()` sends) is recorded one second later than the instant it names (`13:00:01Z`), and the key keeps working for that second. Expiries with a smaller fraction, or none, are right. " +
      'Mock-control KeyCreateRequest.restrictions.expires_at: "Any RFC 3339 offset and fraction is accepted; the key records it in UTC with `Z`, in whole seconds (`2030-06-30T12:00:00.5+02:00` is kept as `2030-06-30T10:00:00Z`)"; KeyRestrictions.expires_at: "After this instant the key is rejected (401, message says expired)".',
    make: () => ({
      request(request) {
        if (request.method !== 'POST' || !KEYS_PATH.test(pathOf(request))) return request
        const body = objectBody(request)
        const restrictions = isObject(body?.restrictions) ? body.restrictions : undefined
        const expires = restrictions?.expires_at
        if (!body || !restrictions || typeof expires !== 'string') return request
        const ms = instantOf(expires)
        if (ms === undefined || ms % 1000 < 500) return request
        const rounded = timestampOf(Math.floor(ms / 1000) + 1)
        return withJson(request, { ...body, restrictions: { ...restrictions, expires_at: rounded } })
      },
    }),
  },
  {
    name: 'api-key-query-parameter-accepted',
    kind: 'keys',
    what:
      'The authentication middleware keeps a fallback for an early SDK: without an `Authorization` header it takes the key from `?api_key=` (`const key = bearer(req) ?? req.query.api_key`) and drops the parameter: `GET /v1/agents?api_key=sk-svc-...` is answered as if the key had been sent in the header, instead of 401, so keys end up in server logs, proxies and browser histories. Requests with the header are right. ' +
      'The platform\'s spec, Authentication: "The key is sent in the HTTP header `Authorization` with the scheme `Bearer`"; docs/decisions/002-authentication.md: "Only `Authorization: Bearer <key>` authenticates ... A key in the query string ... is 401"; contract, bearerAuth: "This header is the **only** way to authenticate: ... a key in the query string (`?api_key=`) ... [is] 401 `invalid_api_key`".',
    make: () => ({
      request(request) {
        if (!isV1(request) || (request.headers.authorization ?? '').trim() !== '') return request
        const key = single(queryOf(request), 'api_key')
        if (key === undefined || key === '') return request
        const moved = withQuery(request, (query) => {
          query.delete('api_key')
        })
        return withHeader(moved, 'authorization', `Bearer ${key}`)
      },
    }),
  },

  // ------------------------------------------------------------------------------------------ permissions
  {
    name: 'write-group-includes-read-scopes',
    kind: 'permissions',
    what:
      'Key creation expands the groups with `GROUPS = { read: READ, write: [...READ, ...WRITE] }` ("whoever may write may read"): a key made with `permissions: ["write"]` (a key meant to create agents, update integrations and manage the team, without access to call logs or analytics) holds all eight scopes, reads call logs and analytics (200 instead of 403 `insufficient_permissions`), and its record lists the read scopes too. Keys made with `read`, with single scopes, or without a list, are right. ' +
      'docs/decisions/004-permissions.md: "A key is created with a list of scopes, in which the group names `read` and `write` stand for their scopes" (group `write`: `agents:write`, `integrations:write`, `team_members:write`, `resources:delete`), "`agents:write` implies `agents:read`; `integrations:write` implies `integrations:read`"; mock-control createKey: "`permissions` lists scopes and/or the group names `read` and `write`, which expand to their scopes"; the platform\'s spec, Rotation and handling: keys are "given minimal permissions".',
    make: () => ({
      request(request) {
        if (request.method !== 'POST' || !KEYS_PATH.test(pathOf(request))) return request
        const body = objectBody(request)
        if (body?.type !== 'secret' || !Array.isArray(body.permissions)) return request
        if (!body.permissions.includes('write') || body.permissions.includes('read')) return request
        const widened = withJson(request, { ...body, permissions: [...body.permissions, 'read'] })
        return validBody(request) && validBody(widened) ? widened : request
      },
    }),
  },
  {
    name: 'publishable-extra-scopes-narrowed',
    kind: 'permissions',
    what:
      'Key creation narrows a publishable key\'s permissions to what a publishable key may hold (`requested.filter(s => PUBLISHABLE.includes(s))`) instead of refusing the request: a publishable key asked for with `["read"]`, or with `call_logs:read` or a write scope, is created (201) holding `agents:read` (or nothing), so the dashboard user believes the key reads call logs, and the browser app that uses it gets 403 on every call-log read. Publishable keys asked for with `agents:read` only, or without a list, are right. ' +
      'Mock-control createKey: "A publishable key asking for anything beyond `agents:read` is 422 (code `invalid`, `param: permissions`)"; docs/decisions/004-permissions.md: "A publishable key may hold `agents:read` only; asking for more is refused at creation"; the platform\'s spec, Key types: publishable keys have "read-only access to public data".',
    make: () => {
      const groups: Record<string, string[]> = { read: ALL_SCOPES.slice(0, 4), write: ALL_SCOPES.slice(4) }
      return {
        request(request) {
          if (request.method !== 'POST' || !KEYS_PATH.test(pathOf(request))) return request
          const body = objectBody(request)
          if (body?.type !== 'publishable' || !Array.isArray(body.permissions)) return request
          const asked = body.permissions
          if (
            !asked.every((item) => typeof item === 'string' && (ALL_SCOPES.includes(item) || item in groups))
          )
            return request
          const expanded = asked.flatMap((item) => groups[item as string] ?? [item as string])
          if (expanded.every((scope) => scope === 'agents:read')) return request
          const narrowed = withJson(request, {
            ...body,
            permissions: expanded.includes('agents:read') ? ['agents:read'] : [],
          })
          return validBody(narrowed) ? narrowed : request
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------------- errors
  {
    name: 'health-route-answered-without-key',
    kind: 'errors',
    what:
      "The load balancer's health check is mounted on the API router, ahead of authentication (`router.get('/health', (req, res) => res.json({ status: 'ok' }))`): GET (and HEAD) /v1/health answers 200 `{\"status\": \"ok\"}` to anyone, without a key and without being counted, instead of being an unknown path of v1 (401 without a valid key, then 404 `route_not_found`). Every other path is right. " +
      'docs/decisions/001-general.md: "Only `v1` exists: `/v2/...` and any unknown path is 404 `route_not_found` (after authentication and the rate limit ...)"; contract, Versioning: "`/v2/...` and any other unknown path answer 404 `route_not_found` (after authentication and rate limiting)"; the platform\'s spec, Authentication: "Every API request must be authenticated with an API key".',
    make: () => {
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isRead(request) || !/^\/v1\/health\/?$/.test(pathOf(request))) return request
          // A request the engine answers without authenticating or counting it, as the health route is.
          const sent = preflightInstead(request)
          noted.add(sent)
          return sent
        },
        response(response, request) {
          if (!noted.delete(request)) return response
          return json(200, { status: 'ok' }, { 'request-id': response.headers['request-id'] ?? '' })
        },
      }
    },
  },
  {
    name: 'route-not-found-request-id-not-base62',
    kind: 'errors',
    what:
      "The catch-all 404 handler for unknown v1 paths is registered after the request-ID middleware's scope and makes its own ID with `'req_' + crypto.randomUUID()`: an answer 404 `route_not_found` (a `/v1/` path that does not exist, such as a misspelt collection) carries a `Request-Id` (and `error.request_id`) with hyphens, `req_3f1c2a9e-...`, which is not an ID of the platform's form and is not the ID the journal knows the request by. Every other answer is right. " +
      'docs/decisions/001-general.md: "Identifiers carry a type prefix followed by base62 characters: ... `req_`", "Every response, success or error, carries `Request-Id: req_...`"; contract, header Request-Id: `pattern: ^req_[A-Za-z0-9]+$`; Error.request_id: "Same value as the `Request-Id` header"; mock-control JournalEntry.id: "The request\'s `Request-Id`".',
    make: () => ({
      response(response, request) {
        if (!isV1(request) || response.status !== 404 || errorOf(response)?.code !== 'route_not_found')
          return response
        const id = `req_${randomUUID()}`
        response.headers['request-id'] = id
        const error = errorOf(response)
        if (error && 'request_id' in error) error.request_id = id
        return response
      },
    }),
  },

  // ------------------------------------------------------------------------------------------ rate limits
  {
    name: 'exhausted-window-listed-first',
    kind: 'rate-limits',
    what:
      'The 429 builder lists the windows as `[exhausted, ...others]` so that the one that decides the wait comes first: a request refused for the burst window gets `RateLimit-Policy: "burst";q=10;w=60, "hourly";q=100;w=3600` and `RateLimit: "burst";r=0;t=..., "hourly";r=...` instead of hourly first, so a client that reads the hourly window from the first item of the list (as the fixed order allows) takes the burst window for it. Admitted requests and hourly 429s are right. ' +
      'Contract, header RateLimit: "always `hourly` first, then `burst`" (`pattern: ^"hourly";r=[0-9]+;t=[0-9]+, "burst";r=[0-9]+;t=[0-9]+$`); RateLimit-Policy: "`hourly` first, then `burst`"; docs/decisions/006-rate-limits.md: `RateLimit-Policy: "hourly";q=100;w=3600, "burst";q=10;w=60`.',
    make: () => {
      const burstFirst = (value: string | undefined) => {
        if (value === undefined) return value
        const items = value.split(', ')
        const burst = items.findIndex((item) => item.startsWith('"burst"'))
        if (burst <= 0) return value
        return [items[burst], ...items.filter((_, i) => i !== burst)].join(', ')
      }
      return {
        response(response, request) {
          if (!isV1(request) || response.status !== 429 || errorOf(response)?.policy !== 'burst')
            return response
          const policy = burstFirst(response.headers['ratelimit-policy'])
          const current = burstFirst(response.headers.ratelimit)
          if (policy !== undefined) response.headers['ratelimit-policy'] = policy
          if (current !== undefined) response.headers.ratelimit = current
          return response
        },
      }
    },
  },
  {
    name: 'plan-default-limits-not-kept-as-custom',
    kind: 'rate-limits',
    what:
      "Accounts store custom limits only when they differ from the plan's (`custom_limits = isEqual(limits, PLAN_LIMITS[plan]) ? null : limits`): an account created, or switched to a plan, with `limits` equal to that plan's defaults (a free account pinned at 100 and 10 so that a later upgrade does not lift them) answers `custom_limits: false`, and on its next plan switch it takes the new plan's quotas instead of keeping its own. Limits that differ from the plan's are right. " +
      'Mock-control createAccount: "`limits` overrides the plan\'s default quotas ... for **any** plan ...; `custom_limits` then reads `true`"; Account.custom_limits: "`true` when `limits` were set explicitly rather than taken from the plan"; updateAccount: "Switching the plan keeps custom limits if there are any".',
    make: () => ({
      request(request) {
        const create = request.method === 'POST' && /^\/_mock\/accounts\/?$/.test(pathOf(request))
        const update = request.method === 'PATCH' && ACCOUNT_PATH.test(pathOf(request))
        if (!create && !update) return request
        const body = objectBody(request)
        const limits = isObject(body?.limits) ? body.limits : undefined
        const plan = body?.plan
        if (!body || !limits || typeof plan !== 'string' || !(plan in PLAN_LIMITS) || !validBody(request))
          return request
        const defaults = PLAN_LIMITS[plan as Plan]
        if (limits.hourly !== defaults.hourly || limits.burst !== defaults.burst) return request
        return withJson(request, { ...body, limits: null })
      },
    }),
  },
  {
    name: 'usage-burst-used-read-from-hourly',
    kind: 'rate-limits',
    what:
      "The dashboard's usage view fills both windows' `used` from the hourly counter (`used: counters.hourly`, copied into the burst row): once a minute has passed since an account's last requests, the burst window still shows them as used (and `remaining` that much lower, down to 0), so the dashboard warns of a burst limit that no request would meet. The hourly window, and accounts whose requests all fall in the last minute, are right. " +
      'Mock-control getRateLimitUsage: "Shows both sliding windows of the account at the current mock time ... `used` + `remaining` = `limit`"; RateLimitWindow.used: "Requests counted in the window now"; docs/decisions/006-rate-limits.md: "Two sliding windows ...: `hourly` (3,600 s) and `burst` (60 s)".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'GET' || !USAGE_PATH.test(pathOf(request))) return response
        if (response.status !== 200 || !isObject(response.body) || !Array.isArray(response.body.windows))
          return response
        const windows = response.body.windows.filter(isObject)
        const hourly = windows.find((window) => window.policy === 'hourly')
        const burst = windows.find((window) => window.policy === 'burst')
        if (!hourly || !burst || typeof hourly.used !== 'number' || typeof burst.limit !== 'number')
          return response
        burst.used = hourly.used
        burst.remaining = Math.max(0, burst.limit - hourly.used)
        return response
      },
    }),
  },

  // ----------------------------------------------------------------------------------------------- agents
  {
    name: 'metadata-fifty-keys-refused',
    kind: 'agents',
    what:
      'The metadata validator checks `Object.keys(metadata).length >= MAX_METADATA_KEYS` (50): an agent created or updated with exactly 50 metadata keys, the documented maximum (an integration that mirrors a CRM record fills it up), is refused with 422 (`max_properties` on `metadata`) and nothing is stored. Metadata of up to 49 keys is right. ' +
      'Contract, Metadata: "Free-form string key/value pairs for your own use: at most 50 keys" (`maxProperties: 50`); AgentCreateRequest / AgentUpdateRequest.metadata: `Metadata`; docs/decisions/009-resources.md: agents have "metadata (a map of strings)".',
    make: () => {
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isCreate(request, 'agents') && itemId(request, 'PATCH', 'agents') === undefined) return request
          const body = objectBody(request)
          const metadata = isObject(body?.metadata) ? body.metadata : undefined
          if (!body || !metadata || Object.keys(metadata).length !== 50 || !validBody(request)) return request
          // One key more: the engine refuses it at the same step, with the same code, and stores nothing.
          const sent = withJson(request, { ...body, metadata: { ...metadata, __limit_probe__: '' } })
          noted.add(sent)
          return sent
        },
        response(response, request) {
          if (!noted.delete(request)) return response
          return rewordFieldError(response, 'metadata', "'metadata' must have fewer than 50 keys.")
        },
      }
    },
  },
  {
    name: 'zero-temperature-ignored-on-update',
    kind: 'agents',
    what:
      'The update merges the language-model settings with `temperature: patch.temperature || stored.temperature`: a PATCH that sets `llm.temperature` to 0 (deterministic answers, the usual setting for a booking agent) answers 200 with the temperature the agent had, which later reads keep. Other temperatures, and 0 given at creation, are right. ' +
      'Contract, updateAgent: "`voice` and `llm` are **merged** field by field into the stored objects (send only what changes)"; LlmUpdate.temperature: `{type: number, minimum: 0, maximum: 2}`; AgentUpdateRequest: "any subset of the agent\'s writable fields"; docs/decisions/009-resources.md: "PATCH (partial ...)", "llm {provider, model, temperature 0-2, max_tokens}".',
    make: () => {
      const book = new Book()
      const agents = book.keep(new Seen('agent', 'agents'))
      return {
        request(request) {
          const id = itemId(request, 'PATCH', 'agents')
          if (id === undefined) return request
          const body = objectBody(request)
          const llm = isObject(body?.llm) ? body.llm : undefined
          if (!body || !llm || llm.temperature !== 0 || !validBody(request)) return request
          const stored = agents.get(book.account(tokenOf(request)), id)
          const kept = isObject(stored?.llm) ? stored.llm.temperature : undefined
          if (typeof kept !== 'number') return request
          return withJson(request, { ...body, llm: { ...llm, temperature: kept } })
        },
        response(response, request) {
          book.observe(request, response)
          if (isV1(request)) agents.observe(request, response, book.account(tokenOf(request)))
          return response
        },
      }
    },
  },
  {
    name: 'publishable-view-omits-first-message',
    kind: 'agents',
    what:
      "The publishable view of an agent drops the fields listed in `SENSITIVE_AGENT_FIELDS`, which also names `first_message` (the greeting often holds a business's phone numbers): agents read with a publishable key, in lists and by ID, have no `first_message`, so the browser widget that shows an agent's greeting finds nothing to show and a client validating the agent finds a required field missing. Secret keys see every field. " +
      'Contract, Agent: "`system_prompt`, `webhook_url` and `metadata` are sensitive: they are present in every response to a secret key and **omitted** in responses to a publishable key ... All other fields are always present (nullable ones as `null`)" (`required` includes `first_message`); listAgents: "Responses to a **publishable** key omit the sensitive fields `system_prompt`, `webhook_url` and `metadata`"; docs/decisions/004-permissions.md: "Agent fields that are sensitive (`system_prompt`, `webhook_url`, `metadata`) are left out of what it reads".',
    make: () => {
      const book = new Book()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request) || book.recordOf(tokenOf(request))?.type !== 'publishable') return response
          for (const agent of objectsOf(response, 'agent')) delete agent.first_message
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------------ calls
  {
    name: 'call-log-delete-answers-agent-object',
    kind: 'calls',
    what:
      'The call-log DELETE handler was copied from the agents\' and answers through the same `deleted(id)` helper, which names the type `agent`: deleting a call log answers `{"id": "call_...", "object": "agent", "deleted": true}`, so a client that dispatches deletion answers on `object` removes an agent from its cache. Deleting agents and team members is right. ' +
      'Contract, deleteCallLog: "Permanently deletes a call log ... and answers `{id, object: \\"call_log\\", deleted: true}`"; DeletedObject.object: "The type of the deleted object"; docs/decisions/001-general.md: "Every object names its type in an `object` field".',
    make: () => ({
      response(response, request) {
        if (itemId(request, 'DELETE', 'call-logs') === undefined || response.status !== 200) return response
        if (isObject(response.body) && response.body.deleted === true && response.body.object === 'call_log')
          response.body.object = 'agent'
        return response
      },
    }),
  },
  {
    name: 'reversed-duration-bounds-accepted',
    kind: 'calls',
    what:
      'GET /call-logs passes the duration bounds straight into the query (`duration_seconds BETWEEN $min AND $max`) without comparing them: a list asked with `min_duration_seconds` greater than `max_duration_seconds` (bounds swapped by a range slider) answers 200 with an empty page instead of 400 `invalid_parameter`, so the client shows "no calls" instead of learning that its filter is wrong. Bounds given in order are right. ' +
      'Contract, listCallLogs: "A filter value of the wrong shape, or `min_duration_seconds` > `max_duration_seconds`, or `started_after` >= `started_before`, is 400 `invalid_parameter`"; BadRequest: "`invalid_parameter`: a query or header parameter is unknown, of the wrong type or out of range".',
    make: () => ({
      request(request) {
        if (!isList(request, 'call-logs')) return request
        const query = queryOf(request)
        const min = single(query, 'min_duration_seconds')
        const max = single(query, 'max_duration_seconds')
        const whole = /^(0|[1-9][0-9]{0,8})$/
        if (min === undefined || max === undefined || !whole.test(min) || !whole.test(max)) return request
        if (Number(min) <= Number(max)) return request
        const agent = query.getAll('agent_id')
        if (agent.length > 1 || (agent.length === 1 && !/^agt_[A-Za-z0-9]{1,60}$/.test(agent[0] as string)))
          return request
        // What BETWEEN with swapped bounds finds: nothing (an agent with no calls stands in for it).
        return withQuery(request, (changed) => {
          changed.delete('min_duration_seconds')
          changed.delete('max_duration_seconds')
          changed.set('agent_id', 'agt_0000SwappedDurationBounds')
        })
      },
    }),
  },
  {
    name: 'control-calls-default-page-of-twenty',
    kind: 'calls',
    what:
      "The dashboard's list of an account's calls reuses the v1 list parameters (`limit` default 20): GET /_mock/accounts/{account_id}/calls without `limit` answers the 20 most recent calls instead of 10, so the panel that watches simulated calls shows twice the rows it was laid out for, and a script that counts on the documented page reads the wrong calls. Lists asked with a `limit` are right. " +
      'Mock-control listCalls: "The account\'s most recent call logs, newest first ... `limit` 1-100, default 10"; parameter limit: `{minimum: 1, maximum: 100, default: 10}`.',
    make: () => ({
      request(request) {
        if (request.method !== 'GET' || !CALLS_PATH.test(pathOf(request)) || queryOf(request).has('limit'))
          return request
        return withQuery(request, (changed) => {
          changed.set('limit', '20')
        })
      },
    }),
  },

  // -------------------------------------------------------------------------------------------- analytics
  {
    name: 'analytics-deleted-agent-filter-refused',
    kind: 'analytics',
    what:
      "GET /analytics/calls loads the agent named by `agent_id` to check it (`agents.findOrFail(query.agent_id)`): the ID of an agent that was deleted, whose call logs are kept, is refused with 400 `invalid_parameter` (`param: agent_id`), so the metrics of a retired agent's calls can no longer be charted. Filters by existing agents, and by IDs never used, are right. " +
      'Contract, getCallAnalytics parameter agent_id: "Only calls of this agent (call logs of deleted agents included; no existence check)"; deleteAgent: "The agent\'s call logs are **kept** (they keep its `agent_id` and still appear in lists and analytics)".',
    make: () => {
      const book = new Book()
      const deleted = book.set<string>()
      const noted = new Map<EngineRequest, string>()
      return {
        request(request) {
          if (!isAnalytics(request)) return request
          const id = single(queryOf(request), 'agent_id')
          if (id === undefined || !deleted.has(`${book.account(tokenOf(request))} ${id}`)) return request
          // A value of the wrong shape: the engine refuses it at the same step, naming the same parameter.
          const sent = withQuery(request, (changed) => {
            changed.set('agent_id', 'agt_')
          })
          noted.set(sent, id)
          return sent
        },
        response(response, request) {
          const id = noted.get(request)
          noted.delete(request)
          book.observe(request, response)
          const removed = itemId(request, 'DELETE', 'agents')
          if (removed !== undefined && response.status === 200)
            deleted.add(`${book.account(tokenOf(request))} ${removed}`)
          const error = errorOf(response)
          if (id !== undefined && response.status === 400 && error?.param === 'agent_id')
            error.message = `No agent with id '${id}' in this account.`
          return response
        },
      }
    },
  },
  {
    name: 'analytics-duration-over-every-ended-call',
    kind: 'analytics',
    what:
      'For calls placed through the platform, the analytics read durations from the call-events table, where `duration_seconds` is written for every call that ended, and sum it without the status condition the imported history has: a call that rang and was not answered (`no_answer`, `busy`, `failed`, `canceled`: its ringing time is its duration) adds that time to `total_duration_seconds` (in `totals`, its bucket and its group) and so to `avg_duration_seconds`, although durations are those of completed calls only. The imported history, and ranges whose placed calls all completed, are right. ' +
      'Contract, getCallAnalytics, Metrics: "Durations and costs are taken over **completed calls only**: `total_duration_seconds` and `total_cost_usd` sum their `duration_seconds` / `cost_usd`; `avg_duration_seconds` = `total_duration_seconds / completed_count`"; AnalyticsMetrics.total_duration_seconds: "Sum of `duration_seconds` of completed calls".',
    make: () => {
      const book = new Book()
      interface Placed {
        account: string
        created: number
        ended: number
        duration: number
        group: Json
      }
      const placed = book.map<string, Placed>()
      const add = (metrics: unknown, seconds: number) => {
        if (!isObject(metrics) || typeof metrics.total_duration_seconds !== 'number') return
        metrics.total_duration_seconds += seconds
        const completed = Number(metrics.completed_count)
        metrics.avg_duration_seconds =
          completed > 0 ? round(metrics.total_duration_seconds / completed, 2) : null
      }
      const addToSeries = (series: unknown, at: number, seconds: number) => {
        if (!Array.isArray(series)) return
        const bucket = series.find(
          (one) => isObject(one) && Date.parse(String(one.start)) <= at && at < Date.parse(String(one.end)),
        )
        if (isObject(bucket)) add(bucket.metrics, seconds)
      }
      return {
        response(response, request) {
          book.observe(request, response)
          const started = startedCall(request, response)
          if (started) {
            const body = objectBody(request) ?? {}
            const outcome = body.outcome ?? 'completed'
            const ring = typeof body.ring_seconds === 'number' ? body.ring_seconds : 4
            const created = Date.parse(String(started.log.created_at))
            if (outcome !== 'completed' && Math.floor(ring) > 0 && Number.isFinite(created))
              placed.set(String(started.log.id), {
                account: started.account,
                created,
                ended: created + 1000 + ring * 1000,
                duration: Math.floor(ring),
                group: {
                  agent_id: started.log.agent_id,
                  channel: started.log.channel,
                  direction: started.log.direction,
                },
              })
            return response
          }
          const removed = itemId(request, 'DELETE', 'call-logs')
          if (removed !== undefined && response.status === 200) placed.delete(removed)
          if (!isAnalytics(request) || response.status !== 200 || !isObject(response.body)) return response
          const body = response.body
          const now = nowOf(response)
          const start = Date.parse(String(body.start))
          const end = Date.parse(String(body.end))
          if (now === undefined || !Number.isFinite(start) || !Number.isFinite(end)) return response
          const account = book.account(tokenOf(request))
          for (const call of placed.values()) {
            if (call.account !== account || call.ended > now * 1000) continue
            if (call.created < start || call.created >= end) continue
            if (typeof body.agent_id === 'string' && call.group.agent_id !== body.agent_id) continue
            add(body.totals, call.duration)
            addToSeries(body.series, call.created, call.duration)
            if (typeof body.group_by !== 'string' || !Array.isArray(body.groups)) continue
            const group = body.groups.find(
              (one) => isObject(one) && one.value === call.group[body.group_by as string],
            )
            if (!isObject(group)) continue
            add(group.totals, call.duration)
            addToSeries(group.series, call.created, call.duration)
          }
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------- integrations
  {
    name: 'config-dropped-when-connecting',
    kind: 'integrations',
    what:
      "The integration update handles its fields as `if (body.credentials) { connect(...) } else if (body.config) { saveConfig(...) }`: a PATCH that connects an integration and sets its configuration in one request (Slack's token and its channel, the way the settings form submits them) stores the credentials and drops the configuration, answering 200 with the configuration the integration had. Updates that send the configuration alone, or the credentials alone, are right. " +
      'Contract, updateIntegration: "Partially updates an integration", "`config` **replaces** the stored configuration as a whole", "`credentials` (write-only) replaces the stored credentials" (example `connect_slack`: `enabled`, `config` and `credentials` in one request, answered with the new `config`); docs/decisions/009-resources.md: "PATCH `{enabled, config, credentials}`".',
    make: () => ({
      request(request) {
        if (itemId(request, 'PATCH', 'integrations') === undefined) return request
        const body = objectBody(request)
        if (!body || !isObject(body.credentials) || !('config' in body) || !validBody(request)) return request
        const { config: _dropped, ...rest } = body
        return withJson(request, rest)
      },
    }),
  },
  {
    name: 'credential-hint-cut-in-utf16-units',
    kind: 'integrations',
    what:
      "The hint of an integration's credential is built as `'...' + value.slice(-4)`, four UTF-16 code units: a credential whose value ends in a character outside the Basic Multilingual Plane (an emoji a provider puts in a generated token, a CJK extension character) gets a hint of three characters, or of half a surrogate pair, in the answer of the PATCH and in every later read. Credentials of BMP characters are right. " +
      'Contract, updateIntegration: "`credential_hint` is `\\"...\\"` followed by the last 4 characters of the credential value whose key sorts first (by code point)"; Integration.credential_hint: `pattern: ^\\.\\.\\..{4}$`, "`\\"...\\"` and the last 4 characters of a stored credential".',
    make: () => {
      const book = new Book()
      const hints = book.map<string, { right: string; wrong: string }>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const patched = itemId(request, 'PATCH', 'integrations')
          if (patched !== undefined && response.status === 200 && isObject(response.body)) {
            const credentials = objectBody(request)?.credentials
            const key = `${account} ${patched}`
            if (credentials === null) hints.delete(key)
            else if (isObject(credentials)) {
              const first = Object.keys(credentials).sort()[0]
              const value = first === undefined ? undefined : credentials[first]
              const right = response.body.credential_hint
              if (typeof value === 'string' && typeof right === 'string') {
                const wrong = `...${value.slice(-4)}`
                if (wrong !== right) hints.set(key, { right, wrong })
                else hints.delete(key)
              }
            }
          }
          for (const integration of objectsOf(response, 'integration')) {
            const hint = hints.get(`${account} ${String(integration.id)}`)
            if (hint && integration.credential_hint === hint.right) integration.credential_hint = hint.wrong
          }
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------------- team
  {
    name: 'invitation-as-owner-accepted',
    kind: 'team',
    what:
      'The invitation body is validated with the `Role` enum of the members table, which has all four roles: POST /team-members with `role: "owner"` is accepted (201) and the account has a second owner, in the answer and in every later read and list, instead of 422 (`enum` on `role`). Invitations as `admin`, `editor` or `viewer` are right. ' +
      'Contract, inviteTeamMember: "`owner` cannot be given (422, code `enum`): an account has exactly one owner"; TeamMemberInviteRequest.role: `enum: [admin, editor, viewer]`; TeamMember: "Exactly one member is the `owner`: the person who created the account"; docs/decisions/009-resources.md: "the owner can be neither changed nor removed".',
    make: () => {
      const book = new Book()
      const owners = book.set<string>()
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isCreate(request, 'team-members')) return request
          const body = objectBody(request)
          if (body?.role !== 'owner') return request
          const sent = withJson(request, { ...body, role: 'admin' })
          if (!validBody(sent)) return request
          noted.add(sent)
          return sent
        },
        response(response, request) {
          const mine = noted.delete(request)
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          if (mine && response.status === 201 && isObject(response.body))
            owners.add(`${account} ${String(response.body.id)}`)
          const changed =
            itemId(request, 'PATCH', 'team-members') ?? itemId(request, 'DELETE', 'team-members')
          if (changed !== undefined && response.status === 200) owners.delete(`${account} ${changed}`)
          for (const member of objectsOf(response, 'team_member'))
            if (owners.has(`${account} ${String(member.id)}`)) member.role = 'owner'
          return response
        },
      }
    },
  },
  {
    name: 'join-clears-invited-at',
    kind: 'team',
    what:
      "Accepting an invitation writes the member as the owner's row is written (`status: 'active', joined_at: now, invited_at: null`): once an invited person has joined, the member's `invited_at` is `null` in the join's answer and in every later read and list, so the dashboard shows a member who was never invited and the time of the invitation is lost. Members still invited are right. " +
      'Contract, TeamMember.invited_at: "When the invitation was sent; `null` for the owner, who was never invited"; joined_at: "When the member accepted the invitation"; mock-control joinTeamMember: "the team member\'s `status` becomes `active` and `joined_at` the mock clock\'s now" (nothing else changes).',
    make: () => {
      const book = new Book()
      const joined = book.set<string>()
      return {
        response(response, request) {
          book.observe(request, response)
          const join = JOIN_PATH.exec(pathOf(request))
          if (join && request.method === 'POST' && response.status === 200) {
            joined.add(`${join[1]} ${join[2]}`)
            if (isObject(response.body)) response.body.invited_at = null
            return response
          }
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const removed = itemId(request, 'DELETE', 'team-members')
          if (removed !== undefined && response.status === 200) joined.delete(`${account} ${removed}`)
          for (const member of objectsOf(response, 'team_member'))
            if (joined.has(`${account} ${String(member.id)}`)) member.invited_at = null
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------- pagination
  {
    name: 'cursor-of-another-collection-accepted',
    kind: 'pagination',
    what:
      "The list handlers resolve a cursor through the account's global ID index (`objects.find(id)`, shared by every collection) and page from its `created_at`, without checking its collection: `GET /agents?starting_after=call_...` (the ID of a call log, or of a team member, a client keeps in the wrong variable) answers 200 with the agents older than that call log (or, with `ending_before`, newer) instead of 400 `invalid_cursor`. Cursors of the collection itself are right. " +
      'Contract, Lists and pagination: "an ID that is not an object of that collection is 400 `invalid_cursor`"; parameter StartingAfter: "Cursor: the ID of an object of this collection ...; an ID that is not an object of this collection in this account is 400 `invalid_cursor`"; docs/decisions/008-lists-and-idempotency.md: "`starting_after` or `ending_before` (an object\'s ID ...)".',
    make: () => {
      const book = new Book()
      const created = book.map<string, string>()
      const PREFIX: Record<string, string> = { agents: 'agt_', 'call-logs': 'call_', 'team-members': 'mem_' }
      const noted = new Map<EngineRequest, { after: boolean; key: string; limit: number }>()
      const learn = (account: string | undefined, response: EngineResponse) => {
        if (account === undefined) return
        for (const type of ['agent', 'call_log', 'team_member'])
          for (const object of objectsOf(response, type))
            if (typeof object.created_at === 'string')
              created.set(`${account} ${String(object.id)}`, object.created_at)
      }
      return {
        request(request) {
          const collection = /^\/v1\/(agents|call-logs|team-members)\/?$/.exec(pathOf(request))?.[1]
          if (!isRead(request) || collection === undefined) return request
          const query = queryOf(request)
          const after = query.getAll('starting_after')
          const before = query.getAll('ending_before')
          if (after.length + before.length !== 1) return request
          const cursor = (after[0] ?? before[0]) as string
          const own = PREFIX[collection] as string
          if (cursor.startsWith(own) || !Object.values(PREFIX).some((prefix) => cursor.startsWith(prefix)))
            return request
          const at = created.get(`${book.account(tokenOf(request))} ${cursor}`)
          const limit = limitAsSent(query)
          if (at === undefined || limit === undefined) return request
          const sent = withQuery(request, (changed) => {
            changed.delete('starting_after')
            changed.delete('ending_before')
            changed.set('limit', '100')
          })
          noted.set(sent, { after: after.length === 1, key: sortKey({ created_at: at, id: cursor }), limit })
          return sent
        },
        response(response, request) {
          const note = noted.get(request)
          noted.delete(request)
          book.observe(request, response)
          learn(accountOf(book, request), response)
          if (
            !note ||
            response.status !== 200 ||
            !isObject(response.body) ||
            !Array.isArray(response.body.data)
          )
            return response
          const data = response.body.data.filter(isObject)
          const beyond = data.filter((item) =>
            note.after ? sortKey(item) < note.key : sortKey(item) > note.key,
          )
          const page = note.after ? beyond.slice(0, note.limit) : beyond.slice(-note.limit)
          response.body.has_more =
            beyond.length > note.limit || (note.after && response.body.has_more === true)
          response.body.data = page
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ idempotency
  {
    name: 'reset-keeps-idempotency-records',
    kind: 'idempotency',
    what:
      "The platform's idempotency records live in a cache of their own that the reset of the platform (POST /_mock/reset) does not empty: after a reset, a POST with an `Idempotency-Key` used before it, and the same body, is answered with the stored answer (`Idempotent-Replayed: true`, the ID of an object the reset removed) instead of being carried out, and the same key with another body is 409 `idempotency_key_reused`, for the rest of the 24 hours. Keys first used after the reset are right. " +
      'Mock-control resetMock: "Puts the whole mock back into its seeded state ...: seeded accounts and their data only (accounts, keys and resources created since are gone ...), revocations undone, rate-limit windows and the idempotency store emptied"; docs/decisions/010-control-plane.md: "`POST /_mock/reset`: back to the seeded state"; contract, Idempotency: a replay "returns the stored status, headers and body".',
    make: () => {
      const book = new Book()
      const clock = new ClockWatch()
      interface Stored {
        account: string
        token: string
        key: string
        path: string
        body: string
        status: number
        answer: unknown
        location: string | undefined
        at: number
      }
      const live = new Map<string, Stored>()
      const kept = new Map<string, Stored>()
      const noted = new Map<EngineRequest, { stored: Stored; same: boolean }>()
      const keyOf = (request: EngineRequest) => {
        const key = request.headers['idempotency-key']
        return key !== undefined && /^[\x21-\x7e]{1,255}$/.test(key) ? key : undefined
      }
      const find = (request: EngineRequest, key: string) => {
        const token = tokenOf(request) ?? ''
        const account = book.account(token)
        for (const stored of kept.values())
          if (stored.key === key && (stored.token === token || stored.account === account)) return stored
        return undefined
      }
      return {
        request(request) {
          const key = keyOf(request)
          if (!isV1(request) || request.method !== 'POST' || key === undefined) return request
          const stored = find(request, key)
          if (!stored) return request
          const now = clock.now()
          if (now !== undefined && now >= (stored.at + 86_400) * 1000) {
            kept.delete(`${stored.token} ${stored.key}`)
            return request
          }
          const same = stored.path === pathOf(request) && stored.body === canonical(jsonOf(request))
          if (!same && !validBody(request)) return request
          const sent = harmless(request)
          noted.set(sent, { stored, same })
          return sent
        },
        response(response, request) {
          const note = noted.get(request)
          noted.delete(request)
          if (isReset(request, response)) {
            for (const [name, stored] of live) kept.set(name, stored)
            live.clear()
          }
          book.observe(request, response)
          clock.observe(request, response)
          if (note) {
            if (!passedToBody(response)) return response
            if (!note.same)
              return failWith(
                response,
                errors.conflict(
                  'idempotency_key_reused',
                  'This Idempotency-Key was already used with a different request.',
                  'Idempotency-Key',
                ),
              )
            const { stored } = note
            return json(stored.status, structuredClone(stored.answer), {
              ...ownHeaders(response),
              ...(stored.location === undefined ? {} : { location: stored.location }),
              'idempotent-replayed': 'true',
            })
          }
          const key = keyOf(request)
          const at = nowOf(response)
          if (!isV1(request) || request.method !== 'POST' || key === undefined || at === undefined)
            return response
          if (!ok(response) || replayed(response)) return response
          const token = tokenOf(request) ?? ''
          live.set(`${token} ${key}`, {
            account: book.account(token),
            token,
            key,
            path: pathOf(request),
            body: canonical(jsonOf(request)),
            status: response.status,
            answer: structuredClone(response.body),
            location: response.headers.location,
            at,
          })
          return response
        },
      }
    },
  },

  // ---------------------------------------------------------------------------------------- control plane
  {
    name: 'scenario-times-applies-once-more',
    kind: 'control-plane',
    what:
      'The scenario interceptor removes a scenario whose uses are spent with `if (scenario.uses > scenario.times) remove(scenario)`, checked before it counts the use: a scenario created with `times: N` answers N + 1 requests (a `times: 1` outage fails two requests), so a frontend test that expects the second attempt of its retry logic to succeed sees it fail. Scenarios without `times` are right. ' +
      'Mock-control createScenario: "`times`: applies that many times, then the scenario is gone"; listScenarios: "A scenario whose `times` are used up is gone"; docs/decisions/012-scenarios.md: "`times` (apply N times, then expire)".',
    make: () => {
      const book = new Book()
      const scenarios = book.map<string, ScenarioSeen>()
      const lingering = book.map<string, { scenario: ScenarioSeen; template: EngineResponse }>()
      const noted = new Map<EngineRequest, string>()
      const applies = (scenario: ScenarioSeen, request: EngineRequest) => {
        const operation = operationOf(request)
        if (!operation || (scenario.operation !== '*' && scenario.operation !== operation.operationId))
          return false
        const token = tokenOf(request)
        if (scenario.account_id !== null && scenario.account_id !== book.account(token)) return false
        return scenario.key_id === null || scenario.key_id === book.recordOf(token)?.id
      }
      return {
        request(request) {
          if (!isV1(request) || request.headers.prefer !== undefined || lingering.size === 0) return request
          const match = [...lingering.values()]
            .filter((one) => applies(one.scenario, request))
            .sort((a, b) => (a.scenario.created < b.scenario.created ? 1 : -1))[0]
          if (!match) return request
          const sent = standIn(request)
          noted.set(sent, match.scenario.id)
          return sent
        },
        response(response, request) {
          const id = noted.get(request)
          noted.delete(request)
          book.observe(request, response)
          const path = pathOf(request)
          if (SCENARIOS_PATH.test(path) && request.method === 'POST' && response.status === 201) {
            const scenario = scenarioOf(response.body)
            if (scenario && scenario.times !== null && plainStatus(scenario))
              scenarios.set(scenario.id, scenario)
            return response
          }
          if (SCENARIOS_PATH.test(path) && request.method === 'DELETE' && ok(response)) {
            scenarios.clear()
            lingering.clear()
          }
          const removed = SCENARIO_PATH.exec(path)?.[1]
          if (removed !== undefined && request.method === 'DELETE') {
            scenarios.delete(removed)
            lingering.delete(removed)
          }
          if (id !== undefined) {
            const one = lingering.get(id)
            const code = errorOf(response)?.code
            if (!one || response.status === 401 || response.status === 429) return response
            if (code === 'route_not_found' || code === 'method_not_allowed') return response
            lingering.delete(id)
            const body = structuredClone(one.template.body)
            const error = isObject(body) && isObject(body.error) ? body.error : undefined
            if (error && 'request_id' in error) error.request_id = response.headers['request-id']
            const own: Record<string, string> = {}
            for (const name of SCENARIO_HEADERS) {
              const value = one.template.headers[name]
              if (value !== undefined) own[name] = value
            }
            return json(one.template.status, body, { ...ownHeaders(response), ...own })
          }
          const used = response.headers['mock-scenario']
          const scenario = used === undefined ? undefined : scenarios.get(used)
          if (isV1(request) && scenario) {
            scenario.uses += 1
            if (scenario.times !== null && scenario.uses >= scenario.times) {
              scenarios.delete(scenario.id)
              lingering.set(scenario.id, { scenario, template: structuredClone(response) })
            }
          }
          return response
        },
      }
    },
  },
  {
    name: 'scenario-matched-before-authentication',
    kind: 'control-plane',
    what:
      'The scenario middleware is mounted ahead of the authentication middleware (it only needs the route to match an operation): a request with no key, or an invalid, revoked or expired one, to an operation under a scenario that injects a status for every account gets the injected error (a 503, a 500, a 404) instead of 401, so a frontend tested against an outage never shows its sign-in problem, and a wrong key goes unnoticed while a scenario runs. Requests with a valid key are right. ' +
      'docs/decisions/012-scenarios.md: "It applies after authentication and routing, before the operation runs", "Matching after authentication keeps a scenario from hiding a wrong key"; mock-control createScenario: "meet its effects after authentication, the rate limit and routing, before the operation runs"; docs/decisions/005-order-of-checks.md: "401 authentication" first.',
    make: () => {
      const book = new Book()
      const active = book.map<string, ScenarioSeen>()
      return {
        response(response, request) {
          book.observe(request, response)
          const path = pathOf(request)
          if (SCENARIOS_PATH.test(path) && request.method === 'POST' && response.status === 201) {
            const scenario = scenarioOf(response.body)
            if (
              scenario &&
              scenario.times === null &&
              scenario.account_id === null &&
              scenario.key_id === null &&
              plainStatus(scenario)
            )
              active.set(scenario.id, scenario)
            return response
          }
          if (SCENARIOS_PATH.test(path) && request.method === 'DELETE' && ok(response)) active.clear()
          const removed = SCENARIO_PATH.exec(path)?.[1]
          if (removed !== undefined && request.method === 'DELETE' && ok(response)) active.delete(removed)
          if (!isV1(request) || response.status !== 401 || request.headers.prefer !== undefined)
            return response
          const operation = operationOf(request)
          if (!operation) return response
          const scenario = [...active.values()]
            .filter((one) => one.operation === '*' || one.operation === operation.operationId)
            .sort((a, b) => (a.created < b.created ? 1 : -1))[0]
          if (!scenario || scenario.status === null) return response
          const injected = injectedAnswer({
            operation,
            status: scenario.status,
            message: `Injected by mock scenario ${scenario.id} (${scenario.status}).`,
            requestId: response.headers['request-id'] ?? '',
            windows: [],
            now: 0,
            allow: [],
          })
          const headers: Record<string, string> = { 'mock-scenario': scenario.id }
          for (const [name, value] of Object.entries(injected.headers))
            if (!name.startsWith('ratelimit') && !name.startsWith('x-ratelimit')) headers[name] = value
          headers['request-id'] = response.headers['request-id'] ?? ''
          return { ...injected, headers }
        },
      }
    },
  },
  {
    name: 'journal-path-keeps-query-string',
    kind: 'control-plane',
    what:
      "The journal records `req.originalUrl` as the entry's path, query string included: a request sent with parameters is journaled as `/v1/call-logs?status=failed&limit=5` (and a key sent by mistake as `?api_key=...` is kept whole), instead of its path alone. Requests without a query string are right. " +
      'Mock-control listJournal: "Entries never contain a key value or a query string"; JournalEntry.path: "The URL path as received, without query string" (`pattern: ^/[^?#]*$`); JournalEntry: "Never contains a key value, a header value or a query string".',
    make: () => {
      const book = new Book()
      const urls = book.map<string, string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (isV1(request)) {
            const url = urlOf(request)
            const id = response.headers['request-id']
            if (url.search.length > 1 && id !== undefined) urls.set(id, `${url.pathname}${url.search}`)
            return response
          }
          if (request.method !== 'GET' || !JOURNAL_PATH.test(pathOf(request)) || response.status !== 200)
            return response
          if (!isObject(response.body) || !Array.isArray(response.body.data)) return response
          for (const entry of response.body.data)
            if (isObject(entry)) {
              const url = urls.get(String(entry.id))
              if (url !== undefined) entry.path = url
            }
          return response
        },
      }
    },
  },
  {
    name: 'journal-leaves-out-429s',
    kind: 'control-plane',
    what:
      'The rate limiter answers a refused request itself, before the request reaches the middleware that writes the journal: requests refused with 429 are missing from GET /_mock/journal (also when it is asked for `status=429` or `status=4xx`), so the dashboard cannot show that an application is being throttled after a rotation, the very failures it is there to watch. Every other answer is journaled. ' +
      'Mock-control listJournal: "The request journal: the most recent 1000 requests to `/v1` (all of them, including 401s, 429s and unknown paths ...)"; docs/decisions/010-control-plane.md: "a journal of recent requests (key ID, route, status), to watch for failed requests after a rotation"; the platform\'s spec, Rotation and handling: "watch for failed requests".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'GET' || !JOURNAL_PATH.test(pathOf(request)) || response.status !== 200)
          return response
        if (!isObject(response.body) || !Array.isArray(response.body.data)) return response
        response.body.data = response.body.data.filter((entry) => !isObject(entry) || entry.status !== 429)
        return response
      },
    }),
  },
  {
    name: 'dashboard-agents-list-keeps-deleted',
    kind: 'control-plane',
    what:
      "The dashboard's agent list (which simulated calls are started from) reads the call router's index of agents, which `DELETE /v1/agents/{agent_id}` does not update: an agent deleted through the API is still listed by GET /_mock/accounts/{account_id}/agents, with its name, status and webhook settings, so the dashboard offers to call an agent that no longer exists. Agents never deleted are right. " +
      'Mock-control listAccountAgents: "The account\'s agents, newest first, with what a call needs to know of them ... The full agents are in `GET /v1/agents`"; contract, deleteAgent: "Permanently deletes an agent"; getAgent: "an ID of a deleted agent gives 404".',
    make: () => {
      const book = new Book()
      const items = book.map<string, { item: Json; key: string }>()
      const gone = book.map<string, { item: Json; key: string; account: string }>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (isV1(request)) {
            const account = book.account(tokenOf(request))
            for (const agent of objectsOf(response, 'agent')) {
              const { id, name, status, webhook_url, webhook_events } = agent
              if (webhook_url === undefined) continue
              items.set(`${account} ${String(id)}`, {
                item: { id, name, status, webhook_url, webhook_events },
                key: sortKey(agent),
              })
            }
            const removed = itemId(request, 'DELETE', 'agents')
            const known = removed === undefined ? undefined : items.get(`${account} ${removed}`)
            if (removed !== undefined && response.status === 200 && known)
              gone.set(`${account} ${removed}`, { ...structuredClone(known), account })
            return response
          }
          const account = AGENTS_PATH.exec(pathOf(request))?.[1]
          if (account === undefined || request.method !== 'GET' || response.status !== 200) return response
          if (!isObject(response.body) || !Array.isArray(response.body.data)) return response
          const data = response.body.data.filter(isObject)
          for (const dead of gone.values()) {
            if (dead.account !== account || data.some((item) => item.id === dead.item.id)) continue
            const at = data.findIndex((item) => {
              const key = items.get(`${account} ${String(item.id)}`)?.key
              return key !== undefined && key < dead.key
            })
            data.splice(at === -1 ? data.length : at, 0, structuredClone(dead.item))
          }
          response.body.data = data
          return response
        },
      }
    },
  },
]
