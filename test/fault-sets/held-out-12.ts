/**
 * Held-out fault set 12: thirty faults an implementer of the platform's v1 API could plausibly ship, written blind to
 * the contract suite: neither its checks, nor its exploration, nor its tests, nor its documentation, nor the
 * held-out-3 list were read, and the suite was never run. held-out-4 to held-out-11 were read for their format only,
 * and so as not to repeat their faults (every fault here breaks a sentence none of them broke, or the same rule on
 * another operation or in another situation). The sources were the platform's spec, the product decisions (the
 * repository's own record of them is `docs/decisions/`), the contract (`openapi/v1.yaml`, `openapi/mock-control.yaml`)
 * and the mock engine (the correct implementation every fault wraps). Each fault wraps the correct engine
 * (`faultyHandler`): it rewrites a request before the engine sees it (the key a faulty lookup would have found, the
 * address or origin a faulty check would have let through, a key of the owner's account where a faulty query ignores
 * the account, a harmless read that is counted in place of a request the faulty platform refuses), or rewrites or
 * replaces the engine's answer, keeping what it needs to remember in the closure `make()` returns (the keys made and
 * revoked through the control plane, the mock clock as the answers show it, the owners of the objects seen).
 *
 * The theme is "keys, permissions and isolation, as a security reviewer would find them": how a key's value is made
 * and looked up (prefix, case, length, alphabet), what an error tells (parts of keys, key IDs, allowlists,
 * credentials), what each scope, group and key type may do on each operation and method, key restrictions (IP
 * ranges, origins, expiry) by key type and client, revocation, isolation between accounts on writes, filters and
 * reads, the rate limit's accounting per account across keys, and the order of 401, 403, 405 and 429. Every fault
 * deviates from the platform's spec, the contract or a decision (cited in `what`), in specific situations only
 * (ordinary traffic, the first reads of every endpoint and a create and a read, is unchanged), and never where the
 * spec leaves a choice open (docs/decisions/011-allowed-forms.md). Liveness: `scripts/fault-sets/held-out-12-live.ts`.
 */
import { cidrContains, parseCidr, parseIp } from '../../mocks/engine/cidr.ts'
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'
import {
  ALL_SCOPES,
  errorOf,
  isObject,
  isRead,
  isV1,
  itemOf,
  type Json,
  jsonOf,
  nowSecondsOf,
  ok,
  pathOf,
  queryOf,
  toTimestamp as stamp,
  windowsByName,
  withToken,
  writeWindows,
} from './request-parts.ts'

export interface HeldOutFault {
  name: string
  kind:
    | 'key-format'
    | 'disclosure'
    | 'scopes'
    | 'restrictions'
    | 'lifecycle'
    | 'isolation'
    | 'rate-limits'
    | 'order'
  /** The deviation, with the sentence of the spec, the contract or the decision it breaks. */
  what: string
  make: () => Fault
}

// ------------------------------------------------------------------------------------------------- helpers

/** The path without its trailing slash (the router takes both). */
const routeOf = (request: EngineRequest) => pathOf(request).replace(/(.)\/$/, '$1')

/** The objects of a v1 answer: the list's items, or the object itself. */
function objectsOf(response: EngineResponse): Json[] {
  if (!isObject(response.body)) return []
  if (response.body.object === 'list' && Array.isArray(response.body.data))
    return response.body.data.filter(isObject)
  return [response.body]
}

/** The bearer token as the engine reads it (scheme in any case, the rest of the header trimmed), or undefined. */
function bearerToken(request: EngineRequest): string | undefined {
  const header = request.headers.authorization
  if (header === undefined) return undefined
  const match = /^(\S+)(?:\s+(.*))?$/.exec(header.trim())
  if (!match || (match[1] ?? '').toLowerCase() !== 'bearer') return undefined
  const token = (match[2] ?? '').trim()
  return token === '' ? undefined : token
}

const KEY_SHAPE = /^[a-z]{2}-svc-/

/** A key's redacted form as the platform writes it in messages: its prefix and last four characters. */
const redact = (token: string) => `${token.match(/^[a-z]{2}-svc-/i)?.[0] ?? ''}...${token.slice(-4)}`
/** How a 401 message names a key: its redacted form in parentheses, for key-shaped tokens only. */
const named = (token: string) => (token.length >= 24 && KEY_SHAPE.test(token) ? ` (${redact(token)})` : '')

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

/** The same, without the rate-limit fields (an answer given before the limiter, or a 401). */
function headersBeforeLimiter(current: EngineResponse): Record<string, string> {
  const headers = ownHeaders(current)
  for (const name of Object.keys(headers))
    if (name.startsWith('ratelimit') || name.startsWith('x-ratelimit')) delete headers[name]
  return headers
}

/** An error answer in the platform's envelope, built on the engine's answer (its Request-Id, rate-limit headers). */
function errorAnswer(
  base: EngineResponse,
  status: number,
  error: Json,
  headers: Record<string, string> = ownHeaders(base),
): EngineResponse {
  const requestId = base.headers['request-id']
  return {
    status,
    headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
    body: { error: { ...error, ...(requestId ? { request_id: requestId } : {}) } },
  }
}

/** The platform's 403 for a missing scope. */
const missingScope = (base: EngineResponse, scope: string, headers?: Record<string, string>) =>
  errorAnswer(
    base,
    403,
    {
      type: 'permission_error',
      code: 'insufficient_permissions',
      message: `This API key lacks the permission '${scope}' required for this request.`,
      required_permission: scope,
    },
    headers,
  )

/** The platform's 401 for a revoked key: exactly type, code and message, `WWW-Authenticate`, no rate-limit fields. */
function revokedAnswer(base: EngineResponse, token: string): EngineResponse {
  return {
    status: 401,
    headers: {
      ...headersBeforeLimiter(base),
      'content-type': 'application/json; charset=utf-8',
      'www-authenticate': 'Bearer realm="api", error="invalid_token"',
    },
    body: {
      error: {
        type: 'authentication_error',
        code: 'invalid_api_key',
        message: `This API key${named(token)} has been revoked. Create a new key in the dashboard.`,
      },
    },
  }
}

/**
 * A request the engine authenticates, counts and answers harmlessly (`GET /v1/user`, or a read of `url`), sent with
 * `token`, in place of one the faulty platform would refuse or answer otherwise.
 */
function harmless(request: EngineRequest, token: string, url = '/v1/user'): EngineRequest {
  const headers: EngineRequest['headers'] = { ...request.headers, authorization: `Bearer ${token}` }
  delete headers['content-type']
  delete headers['idempotency-key']
  return { ...request, method: 'GET', url, headers, body: null }
}

/** A token that no key has (the engine answers 401 for it, uncounted), derived from `token`. */
const unknownToken = (token: string) => `${token}x0`

/**
 * The scopes a documented v1 operation needs (`x-required-permission`), by method and path; undefined for a method
 * or path the contract does not document (HEAD as GET).
 */
function scopesOf(request: EngineRequest): string[] | undefined {
  const method = request.method === 'HEAD' ? 'GET' : request.method
  const path = routeOf(request)
  const item = itemOf(request)
  if (path === '/v1/user') return method === 'GET' ? [] : undefined
  if (path === '/v1/analytics/calls') return method === 'GET' ? ['analytics:read'] : undefined
  const table: Record<string, { list: Record<string, string[]>; item: Record<string, string[]> }> = {
    agents: {
      list: { GET: ['agents:read'], POST: ['agents:write'] },
      item: { GET: ['agents:read'], PATCH: ['agents:write'], DELETE: ['resources:delete'] },
    },
    'call-logs': {
      list: { GET: ['call_logs:read'] },
      item: { GET: ['call_logs:read'], DELETE: ['resources:delete'] },
    },
    integrations: {
      list: { GET: ['integrations:read'] },
      item: { GET: ['integrations:read'], PATCH: ['integrations:write'] },
    },
    'team-members': {
      list: { GET: ['team_members:write'], POST: ['team_members:write'] },
      item: {
        GET: ['team_members:write'],
        PATCH: ['team_members:write'],
        DELETE: ['resources:delete', 'team_members:write'],
      },
    },
  }
  if (item) return table[item.collection]?.item[method]
  const collection = /^\/v1\/(agents|call-logs|integrations|team-members)$/.exec(path)?.[1]
  return collection ? table[collection]?.list[method] : undefined
}

// ---------------------------------------------------------------------------------------- what a fault learns

/** A key made through the control plane, as its 201 showed it (the only time its value is seen). */
interface KeyInfo {
  id: string
  value: string
  account: string
  type: string
  name: string
  permissions: string[]
  /** The `permissions` the request asked for, as sent (groups unexpanded); undefined when none were sent. */
  requested: string[] | undefined
  ips: string[]
  origins: string[]
  expiresAt: number | undefined
  revoked: boolean
}

/** Whether `scopes` cover `scope`, counting the implications (`agents:write` reads agents). */
function covers(scopes: readonly string[], scope: string): boolean {
  return (
    scopes.includes(scope) ||
    (scope === 'agents:read' && scopes.includes('agents:write')) ||
    (scope === 'integrations:read' && scopes.includes('integrations:write'))
  )
}

/** Whether `ip` lies in one of `ranges` (addresses or CIDRs). */
function ipIn(ranges: readonly string[], ip: string | undefined): boolean {
  const address = ip ? parseIp(ip) : null
  if (!address) return false
  return ranges.some((range) => {
    const cidr = parseCidr(range)
    return cidr !== null && cidrContains(cidr, address)
  })
}

/**
 * What every fault of this set watches: the mock clock (the control plane's clock answers and the rate-limit
 * headers), the keys made, revoked and deleted through the control plane (a key's 201 shows its value, account,
 * type, name, scopes and restrictions), the account of other tokens as `GET /v1/user` shows it, and the owners of the
 * agents, call logs and team members seen. `POST /_mock/reset`, which starts the platform again, empties everything
 * kept, the maps and sets a fault asks for included.
 */
class Tracker {
  private clockAt: number | undefined
  private readonly keys = new Map<string, KeyInfo>()
  private readonly ids = new Map<string, string>()
  /** Tokens not made through the control plane that `GET /v1/user` answered: their account. */
  private readonly learned = new Map<string, string>()
  /** Tokens that got a 401. */
  private readonly refused = new Set<string>()
  /** Agents, call logs and team members seen: their account. */
  private readonly owners = new Map<string, string>()
  private readonly kept: { clear(): void }[] = [this.keys, this.ids, this.learned, this.refused, this.owners]

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
      this.clockAt = undefined
      return
    }
    if ((path === '/_mock/clock' || path === '/_mock/clock/advance') && response.status === 200) {
      if (body && typeof body.now === 'string' && Number.isFinite(Date.parse(body.now)))
        this.clockAt = Date.parse(body.now)
      return
    }
    const seconds = nowSecondsOf(response)
    if (seconds !== undefined && (this.clockAt === undefined || seconds * 1000 > this.clockAt))
      this.clockAt = seconds * 1000
    if (path.startsWith('/_mock/')) this.observeControl(request, response, body)
    else if (isV1(request)) this.observeV1(request, response)
  }

  private observeControl(request: EngineRequest, response: EngineResponse, body: Json | undefined): void {
    const path = pathOf(request)
    const made = /^\/_mock\/accounts\/([^/]+)\/keys$/.exec(path)
    if (
      made &&
      request.method === 'POST' &&
      response.status === 201 &&
      body &&
      typeof body.value === 'string'
    ) {
      const sent = jsonOf(request)
      const restrictions = isObject(body.restrictions) ? body.restrictions : {}
      const strings = (value: unknown) =>
        Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
      const expires = typeof restrictions.expires_at === 'string' ? Date.parse(restrictions.expires_at) : NaN
      const info: KeyInfo = {
        id: String(body.id),
        value: body.value,
        account: String(body.account_id ?? made[1]),
        type: String(body.type),
        name: String(body.name),
        permissions: Array.isArray(body.permissions) ? strings(body.permissions) : ALL_SCOPES,
        requested: isObject(sent) && Array.isArray(sent.permissions) ? strings(sent.permissions) : undefined,
        ips: strings(restrictions.allowed_ips),
        origins: strings(restrictions.allowed_origins),
        expiresAt: Number.isFinite(expires) ? expires : undefined,
        revoked: false,
      }
      this.keys.set(info.value, info)
      this.ids.set(info.id, info.value)
      return
    }
    const revoked = /^\/_mock\/keys\/([^/]+)\/revoke$/.exec(path)
    if (revoked && request.method === 'POST' && response.status === 200) {
      const info = this.byId(revoked[1] as string)
      if (info) info.revoked = true
      return
    }
    const deleted = /^\/_mock\/accounts\/([^/]+)$/.exec(path)
    if (deleted && request.method === 'DELETE' && ok(response))
      for (const info of this.keys.values()) if (info.account === deleted[1]) info.revoked = true
    const started = /^\/_mock\/accounts\/([^/]+)\/calls$/.exec(path)
    if (started && request.method === 'POST' && response.status === 201 && body) {
      if (typeof body.id === 'string') this.owners.set(body.id, started[1] as string)
      if (typeof body.agent_id === 'string' && !this.owners.has(body.agent_id))
        this.owners.set(body.agent_id, started[1] as string)
    }
  }

  private observeV1(request: EngineRequest, response: EngineResponse): void {
    const token = bearerToken(request)
    if (token === undefined) return
    if (response.status === 401) {
      this.refused.add(token)
      const info = this.keys.get(token)
      const message = String(errorOf(response)?.message ?? '')
      if (info && / expired at /.test(message) && info.expiresAt === undefined) info.expiresAt = 0
      return
    }
    if (!ok(response)) return
    const body = isObject(response.body) ? response.body : undefined
    if (routeOf(request) === '/v1/user' && body?.object === 'user' && !this.keys.has(token))
      this.learned.set(token, String(body.id))
    const account = this.accountOf(token)
    if (account === undefined) return
    for (const object of objectsOf(response)) {
      if (typeof object.id !== 'string') continue
      if (object.object === 'agent' || object.object === 'team_member' || object.object === 'call_log')
        this.owners.set(object.id, account)
      if (
        object.object === 'call_log' &&
        typeof object.agent_id === 'string' &&
        !this.owners.has(object.agent_id)
      )
        this.owners.set(object.agent_id, account)
    }
  }

  /** The mock clock (ms) as last seen, or undefined. */
  now(): number | undefined {
    return this.clockAt
  }

  /** A key made through the control plane, by its value. */
  key(token: string | undefined): KeyInfo | undefined {
    return token === undefined ? undefined : this.keys.get(token)
  }

  byId(id: string): KeyInfo | undefined {
    const value = this.ids.get(id)
    return value === undefined ? undefined : this.keys.get(value)
  }

  /** Every key made through the control plane. */
  all(): KeyInfo[] {
    return [...this.keys.values()]
  }

  /** The account of a token: a key made through the control plane, or one `GET /v1/user` answered. */
  accountOf(token: string | undefined): string | undefined {
    if (token === undefined) return undefined
    return this.keys.get(token)?.account ?? this.learned.get(token)
  }

  /** The account an agent, call log or team member was seen in. */
  ownerOf(id: string): string | undefined {
    return this.owners.get(id)
  }

  /** Whether the key holds `scope` (a token not made through the control plane is taken to hold all). */
  holds(token: string | undefined, scope: string): boolean {
    const info = this.key(token)
    return info ? covers(info.permissions, scope) : true
  }

  /** Whether a key made through the control plane is past its `expires_at` by the clock last seen. */
  expired(info: KeyInfo): boolean {
    if (info.expiresAt === undefined) return false
    const now = this.now()
    return info.expiresAt === 0 || (now !== undefined && info.expiresAt <= now)
  }

  /** Whether a key made through the control plane works: not revoked, not expired. */
  alive(info: KeyInfo): boolean {
    return !info.revoked && !this.expired(info)
  }

  /**
   * A token of `account` that the engine accepts from anywhere for `scopes` (a live, unrestricted secret key made
   * through the control plane, or a token `GET /v1/user` answered that was never refused), other than `except`.
   */
  capable(account: string, scopes: readonly string[], except?: string): string | undefined {
    for (const info of this.keys.values())
      if (
        info.value !== except &&
        info.account === account &&
        this.alive(info) &&
        info.ips.length === 0 &&
        info.origins.length === 0 &&
        scopes.every((scope) => covers(info.permissions, scope))
      )
        return info.value
    for (const [token, owner] of this.learned)
      if (token !== except && owner === account && !this.refused.has(token)) return token
    return undefined
  }
}

/** A request a fault rewrote, and what its answer should become (keyed by the rewritten request). */
type Pending<T> = Map<EngineRequest, T>

// ------------------------------------------------------------------------------------------------- faults

/** The agent fields a publishable key never sees. */
const SENSITIVE = ['system_prompt', 'webhook_url', 'metadata']

/** The sensitive agent fields left out of an answer, as the platform does for a publishable key. */
function hideSensitive(response: EngineResponse): void {
  for (const object of objectsOf(response))
    if (object.object === 'agent') for (const field of SENSITIVE) delete object[field]
}

/** A fault that rewrites a v1 request's token when a faulty key lookup would have found another key. */
function lookupFault(find: (t: Tracker, token: string) => string | undefined): () => Fault {
  return () => {
    const t = new Tracker()
    return {
      request(request) {
        const token = bearerToken(request)
        if (!isV1(request) || token === undefined || t.key(token)) return request
        const found = find(t, token)
        return found === undefined ? request : withToken(request, found)
      },
      response(response, request) {
        t.observe(request, response)
        return response
      },
    }
  }
}

/**
 * A fault that issues some keys with another value than the engine made: `disguise` gives the value the client is
 * shown (or undefined to leave it), requests that send it reach the engine with the real one, and a 401 names it by
 * the value the client knows. `redactedPrefix` gives the prefix the key records' `redacted_value` shows, by type.
 */
function issuedValueFault(
  disguise: (info: { type: string; value: string; requested: unknown }) => string | undefined,
  redactedPrefix: (type: string) => string | undefined = () => undefined,
): () => Fault {
  return () => {
    const real = new Map<string, string>()
    const shown: Pending<{ fake: string; real: string }> = new Map()
    return {
      request(request) {
        if (pathOf(request) === '/_mock/reset') real.clear()
        const token = bearerToken(request)
        const value = token === undefined ? undefined : real.get(token)
        if (!isV1(request) || token === undefined || value === undefined) return request
        const sent = withToken(request, value)
        shown.set(sent, { fake: token, real: value })
        return sent
      },
      response(response, request) {
        const path = pathOf(request)
        const body = isObject(response.body) ? response.body : undefined
        const mapped = shown.get(request)
        shown.delete(request)
        if (mapped) {
          const error = errorOf(response)
          if (error && typeof error.message === 'string')
            error.message = error.message.replace(mapped.real.slice(0, 7), mapped.fake.slice(0, 7))
          return response
        }
        if (!path.startsWith('/_mock/') || !body) return response
        if (/^\/_mock\/accounts\/[^/]+\/keys$/.test(path) && request.method === 'POST') {
          if (response.status !== 201 || typeof body.value !== 'string') return response
          const value = disguise({ type: String(body.type), value: body.value, requested: jsonOf(request) })
          if (value === undefined) return response
          real.set(value, body.value)
          body.value = value
        }
        // The key records show the redacted form of the value as issued.
        for (const record of objectsOf(response)) {
          const prefix = record.object === 'api_key' ? redactedPrefix(String(record.type)) : undefined
          if (prefix && typeof record.redacted_value === 'string')
            record.redacted_value = record.redacted_value.replace(/^[a-z]{2}-svc-/, prefix)
        }
        return response
      },
    }
  }
}

export const faults: HeldOutFault[] = [
  // ---------------------------------------------------------------------------------------- key formats
  {
    name: 'prefix-not-part-of-the-key',
    kind: 'key-format',
    what:
      "Keys are stored as the digest of their random part only (the prefix was taken for a type label, not part of the secret): a key sent with the other type's prefix (`pk-svc-` followed by a secret key's 40 characters, or the reverse) authenticates, as the key it was made from, instead of being refused as an invalid key. " +
      'The platform\'s spec, API key: "secret keys start with `sk-svc-`; publishable keys start with `pk-svc-`"; docs/decisions/003: "A key\'s value is `sk-svc-` or `pk-svc-` followed by at least 32 base62 characters" (the prefix is part of the value); spec, Errors: 401 "the API key is missing, invalid or revoked".',
    make: lookupFault((t, token) => {
      const match = /^(sk|pk)-svc-(.{16,})$/.exec(token)
      if (!match) return undefined
      const other = `${match[1] === 'sk' ? 'pk' : 'sk'}-svc-${match[2]}`
      const info = t.key(other)
      return info ? info.value : undefined
    }),
  },
  {
    name: 'key-matched-ignoring-case',
    kind: 'key-format',
    what:
      'The key lookup lower-cases the token before hashing it (keys are stored as the digest of their lower-cased value, "to forgive copy errors"): a key with the case of any of its letters changed authenticates, so the 40 base62 characters carry the strength of base36. ' +
      'docs/decisions/003: "A key\'s value is `sk-svc-` or `pk-svc-` followed by at least 32 base62 characters drawn from a CSPRNG"; contract, bearerAuth: "A key value is the prefix followed by **at least 32 base62 characters** (`[A-Za-z0-9]`)"; spec, Errors: 401 for an invalid key.',
    make: lookupFault((t, token) => {
      const lower = token.toLowerCase()
      return t.all().find((info) => info.value !== token && info.value.toLowerCase() === lower)?.value
    }),
  },
  {
    name: 'key-read-to-its-length',
    kind: 'key-format',
    what:
      'The token is cut to the length of the keys the platform issues (`token.slice(0, 47)`, prefix and 40 characters) before it is looked up: a key followed by anything (`<key>0`, `<key>.old`, `<key> spare`) authenticates, instead of being refused as an invalid key. ' +
      'docs/decisions/002: "Only `Authorization: Bearer <key>` authenticates"; RFC 6750 section 2.1 (`b64token`, no space); spec, Errors: 401 "the API key is missing, invalid or revoked"; contract, Unauthorized: 401 for a key that is "malformed, unknown, revoked or expired".',
    make: lookupFault((t, token) => {
      if (token.length <= 47) return undefined
      const info = t.key(token.slice(0, 47))
      return info ? info.value : undefined
    }),
  },
  {
    name: 'restricted-key-value-from-nanoid',
    kind: 'key-format',
    what:
      'Secret keys created with an explicit permission list take the newer "restricted key" path, which draws the random part with `nanoid()`: 21 characters of the URL-safe alphabet (`A-Za-z0-9_-`) instead of at least 32 base62 characters. ' +
      'docs/decisions/003: "A key\'s value is `sk-svc-` or `pk-svc-` followed by at least 32 base62 characters drawn from a CSPRNG"; control plane, createKey: "The value is `sk-svc-` (secret) or `pk-svc-` (publishable) followed by 40 base62 characters"; CreatedApiKey.value: `pattern: ^(sk|pk)-svc-[A-Za-z0-9]{32,}$`.',
    make: issuedValueFault(({ type, value, requested }) => {
      if (type !== 'secret' || !isObject(requested) || !Array.isArray(requested.permissions)) return undefined
      const random = value.slice(7)
      const head = [...random.slice(0, 17)]
      head[3] = '_'
      head[9] = '-'
      return `${value.slice(0, 7)}${head.join('')}${random.slice(-4)}`
    }),
  },
  {
    name: 'publishable-key-with-secret-prefix',
    kind: 'key-format',
    what:
      "The key generator's prefix table gives both types `sk-svc-` (a copy-paste slip): publishable keys are issued as `sk-svc-...` (their value and their redacted_value), so a publishable key cannot be told from a secret one, by its holder or by a secret scanner. " +
      'The platform\'s spec, API key: "secret keys start with `sk-svc-`; publishable keys start with `pk-svc-`"; Key types: Publishable, prefix `pk-svc-`; control plane, createKey: "`sk-svc-` (secret) or `pk-svc-` (publishable)"; contract, bearerAuth table (publishable: prefix `pk-svc-`).',
    make: issuedValueFault(
      ({ type, value }) => (type === 'publishable' ? `sk-svc-${value.slice(7)}` : undefined),
      (type) => (type === 'publishable' ? 'sk-svc-' : undefined),
    ),
  },

  // ---------------------------------------------------------------------------------- what errors reveal
  {
    name: 'invalid-key-named-by-its-start',
    kind: 'disclosure',
    what:
      'The 401 for an unknown key names it the way the request logger redacts tokens, by its first eight characters after the prefix (`Invalid API key provided (sk-svc-Hq3ZpL8v...).`): a mistyped or altered key shows most of its beginning. ' +
      'docs/decisions/002: "A message never repeats a whole key: at most its prefix and its last four characters"; contract, Unauthorized: the message "shows at most the key\'s prefix and last four characters"; Errors: "Messages never echo a whole API key: at most its prefix and its last four characters".',
    make: () => ({
      response(response, request) {
        const token = bearerToken(request)
        const error = errorOf(response)
        if (response.status !== 401 || !isV1(request) || !error || token === undefined) return response
        if (!/^Invalid API key provided \(/.test(String(error.message)) || !KEY_SHAPE.test(token))
          return response
        error.message = `Invalid API key provided (${token.slice(0, 15)}...).`
        return response
      },
    }),
  },
  {
    name: 'dead-key-401-names-its-id',
    kind: 'disclosure',
    what:
      'The 401 for a revoked or expired key carries the key\'s dashboard ID (`error.key_id`), "so that its owner can find it": the body is no longer the spec\'s, and whoever holds a dead key learns it was a real one, and which. ' +
      'Contract, Unauthorized: "The body has exactly the platform\'s documented shape: `error.type` = `authentication_error`, `error.code` = `invalid_api_key` and a `message`, nothing else" (`additionalProperties: false`); docs/decisions/002: "Every 401 has exactly the body the spec shows"; the platform\'s spec, Errors (the 401 body: error.type, error.message, error.code).',
    make: () => {
      const t = new Tracker()
      return {
        response(response, request) {
          t.observe(request, response)
          const info = t.key(bearerToken(request))
          const error = errorOf(response)
          if (response.status !== 401 || !isV1(request) || !info || !error) return response
          if (/has been revoked| expired at /.test(String(error.message))) error.key_id = info.id
          return response
        },
      }
    },
  },
  {
    name: 'key-restricted-shows-the-allowlist',
    kind: 'disclosure',
    what:
      "A 403 key_restricted carries the key's allowlist that refused the request (`error.allowed_ips` or `error.allowed_origins`), to tell the caller where the key may be used: someone holding a stolen, restricted key learns which addresses or origins to use it from. " +
      'Contract, Forbidden: the 403 error object has `type`, `code`, `message`, `required_permission`, `request_id` only (`additionalProperties: false`); Errors table, 403: extra fields "`required_permission` (for `insufficient_permissions`)"; docs/decisions/004: 403 body.',
    make: () => {
      const t = new Tracker()
      return {
        response(response, request) {
          t.observe(request, response)
          const info = t.key(bearerToken(request))
          const error = errorOf(response)
          if (response.status !== 403 || !isV1(request) || !info || error?.code !== 'key_restricted')
            return response
          if (/IP address/.test(String(error.message))) error.allowed_ips = [...info.ips]
          else error.allowed_origins = [...info.origins]
          return response
        },
      }
    },
  },
  {
    name: 'short-credential-quoted-in-422',
    kind: 'disclosure',
    what:
      "PATCH /integrations/{integration_id} words its 422 for a credential value under 8 characters as the schema library does, quoting the value (`'xoxb-1' is too short`): the credential sent appears in the error, and in every log that keeps error bodies. " +
      'Contract, Error.message: "Human-readable explanation; never contains a whole API key or a credential"; updateIntegration: "Credentials are never returned, in this or any other response"; docs/decisions/009: "Credentials are written, never read back (a `credential_hint` only)".',
    make: () => ({
      response(response, request) {
        const error = errorOf(response)
        if (
          response.status !== 422 ||
          request.method !== 'PATCH' ||
          itemOf(request)?.collection !== 'integrations'
        )
          return response
        const sent = jsonOf(request)
        if (!error || !Array.isArray(error.errors) || !isObject(sent) || !isObject(sent.credentials))
          return response
        const credentials = sent.credentials
        for (const entry of error.errors) {
          if (!isObject(entry) || entry.code !== 'min_length') continue
          const name = /^credentials\.(.+)$/.exec(String(entry.param))?.[1]
          const value = name === undefined ? undefined : credentials[name]
          if (typeof value === 'string') entry.message = `'${value}' is too short`
        }
        const first = error.errors[0]
        if (error.errors.length === 1 && isObject(first))
          error.message = `Invalid request body: ${first.message}`
        return response
      },
    }),
  },
  {
    name: 'unknown-parameter-quoted-with-value',
    kind: 'disclosure',
    what:
      "The 400 for an unknown query parameter quotes it with its value (`Unknown query parameter 'api_key=sk-svc-...'.`, the whole value): a key put in the query string by a client that also sends the header comes back whole in the error. " +
      'Contract, Errors: "Messages never echo a whole API key: at most its prefix and its last four characters"; Error.message: "never contains a whole API key or a credential"; docs/decisions/002: "A message never repeats a whole key".',
    make: () => ({
      response(response, request) {
        const error = errorOf(response)
        if (response.status !== 400 || !isV1(request) || error?.code !== 'invalid_parameter') return response
        const name = /^Unknown query parameter '([^']+)'\.$/.exec(String(error.message))?.[1]
        const value = name === undefined ? null : queryOf(request).get(name)
        if (name !== undefined && value) error.message = `Unknown query parameter '${name}=${value}'.`
        return response
      },
    }),
  },

  // --------------------------------------------------------------------------------------------- scopes
  {
    name: 'write-group-expanded-by-suffix',
    kind: 'scopes',
    what:
      'Keys keep the group names they were made with, and the permission guard expands `write` to the scopes whose names end in `:write`: a key made with `permissions: ["write"]` (or `["read", "write"]`) lacks resources:delete, and every DELETE it sends gets 403 naming resources:delete. ' +
      'The platform\'s spec, Permission choices: Write "create and modify agents; update integrations; manage team members; delete resources"; docs/decisions/004: the scope table (`resources:delete` in group write) and "the group names `read` and `write` stand for their scopes"; control plane, createKey: "the group names `read` and `write`, which expand to their scopes".',
    make: () => {
      const t = new Tracker()
      const refused: Pending<true> = new Map()
      const withoutDelete = (info: KeyInfo | undefined) =>
        info?.requested?.includes('write') === true && !info.requested.includes('resources:delete')
      return {
        request(request) {
          const token = bearerToken(request)
          if (request.method !== 'DELETE' || !itemOf(request) || !withoutDelete(t.key(token))) return request
          const read = harmless(request, token as string, request.url)
          refused.set(read, true)
          return read
        },
        response(response, request) {
          t.observe(request, response)
          if (!refused.delete(request)) return response
          if (response.status === 401 || response.status === 429) return response
          if (errorOf(response)?.code === 'key_restricted') return response
          return missingScope(response, 'resources:delete')
        },
      }
    },
  },
  {
    name: 'call-log-delete-needs-read-scope',
    kind: 'scopes',
    what:
      'DELETE /call-logs/{call_log_id} goes through the call-log service, which checks call_logs:read before the route checks resources:delete: a key that may delete but not read call logs (a clean-up key, a `write`-group key) gets 403 naming call_logs:read. ' +
      'Contract, deleteCallLog: "Needs `resources:delete`" (`x-required-permission: [resources:delete]`); docs/decisions/004: "Every DELETE needs `resources:delete`" (and only removing a team member needs another scope too).',
    make: () => {
      const t = new Tracker()
      return {
        request(request) {
          const token = bearerToken(request)
          if (request.method !== 'DELETE' || itemOf(request)?.collection !== 'call-logs' || !t.key(token))
            return request
          if (!t.holds(token, 'resources:delete') || t.holds(token, 'call_logs:read')) return request
          return harmless(request, token as string, request.url)
        },
        response(response, request) {
          t.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'publishable-key-reads-analytics',
    kind: 'scopes',
    what:
      "The analytics route lets publishable keys through (`key.type === 'publishable' || has('analytics:read')`), for the website's public call-statistics widget: a publishable key reads the account's call analytics instead of getting 403. " +
      'Contract, getCallAnalytics: "Needs `analytics:read`"; bearerAuth: publishable "read-only: at most `agents:read`"; the platform\'s spec, Key types: publishable "read-only access to public data"; docs/decisions/004: "A publishable key may hold `agents:read` only".',
    make: () => {
      const t = new Tracker()
      return {
        request(request) {
          const token = bearerToken(request)
          const info = t.key(token)
          if (!isRead(request) || routeOf(request) !== '/v1/analytics/calls' || info?.type !== 'publishable')
            return request
          if (!t.alive(info) || info.ips.length > 0 || info.origins.length > 0) return request
          const other = t.capable(info.account, ['analytics:read'], token)
          return other === undefined ? request : withToken(request, other)
        },
        response(response, request) {
          t.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'head-skips-the-scope-check',
    kind: 'scopes',
    what:
      'The permission guard looks the operation up by method and finds none for HEAD (the framework answers HEAD with the GET handler): HEAD is authenticated and counted but never permission-checked, so a key without the scope gets 200 or 404 instead of 403, and learns which call logs, agents or members exist. ' +
      'Contract, Conventions: "**HEAD** is answered wherever GET is documented, like that GET without a body (RFC 9110 section 9.3.2): the same status and headers, authenticated, permission-checked, and counted against the rate limits like the GET"; Forbidden: "Checked before the resource is looked up, so a 403 never reveals whether a resource exists".',
    make: () => {
      const t = new Tracker()
      return {
        request(request) {
          const token = bearerToken(request)
          const info = t.key(token)
          const scopes = scopesOf(request)
          if (request.method !== 'HEAD' || !info || !t.alive(info) || scopes === undefined) return request
          if (info.ips.length > 0 || info.origins.length > 0 || scopes.every((s) => t.holds(token, s)))
            return request
          const other = t.capable(info.account, scopes, token)
          return other === undefined ? request : withToken(request, other)
        },
        response(response, request) {
          t.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'scope-compared-by-area',
    kind: 'scopes',
    what:
      "The guard compares scopes by their area only (`granted.some(s => s.split(':')[0] === needed.split(':')[0])`): a key holding agents:read passes the agents:write check, and integrations:read the integrations:write check, so read-only keys, publishable ones included, create and change agents and change integrations. " +
      'The platform\'s spec, Permission choices: Read "view agents ... view integrations", Write "create and modify agents; update integrations"; "When a key lacks permission for an action, the request fails with 403"; contract, createAgent / updateAgent: "Needs `agents:write`"; updateIntegration: "Needs `integrations:write`"; bearerAuth: publishable "read-only".',
    make: () => {
      const t = new Tracker()
      const publishable: Pending<true> = new Map()
      return {
        request(request) {
          const token = bearerToken(request)
          const info = t.key(token)
          const scopes = scopesOf(request)
          const needed = scopes?.length === 1 ? scopes[0] : undefined
          if (!info || !t.alive(info) || (needed !== 'agents:write' && needed !== 'integrations:write'))
            return request
          if (request.method === 'GET' || info.ips.length > 0 || info.origins.length > 0) return request
          const area = needed.split(':')[0]
          if (t.holds(token, needed) || !info.permissions.some((s) => s.split(':')[0] === area))
            return request
          const other = t.capable(info.account, [needed], token)
          if (other === undefined) return request
          const sent = withToken(request, other)
          if (info.type === 'publishable') publishable.set(sent, true)
          return sent
        },
        response(response, request) {
          t.observe(request, response)
          if (publishable.delete(request)) hideSensitive(response)
          return response
        },
      }
    },
  },

  // --------------------------------------------------------------------------------------- restrictions
  {
    name: 'loopback-skips-ip-restriction',
    kind: 'restrictions',
    what:
      'Requests from a loopback address (127.0.0.0/8, ::1) skip the allowed_ips check, an exemption meant for the health checker and local development: behind a reverse proxy on the same host every request comes from loopback, and a key restricted to other networks is accepted from there instead of getting 403 key_restricted. ' +
      'docs/decisions/003: "`allowed_ips` (CIDR ranges; a request from elsewhere is 403 `key_restricted`)"; control plane, createKey: "`allowed_ips` (IPv4/IPv6 addresses or CIDRs; requests from elsewhere get 403 `key_restricted`)"; contract, Order of checks 4: "`key_restricted`: client IP not in `allowed_ips`".',
    make: () => {
      const t = new Tracker()
      const loopback = (ip: string) => /^(127\.|::ffff:127\.)/.test(ip) || ip === '::1'
      return {
        request(request) {
          const info = t.key(bearerToken(request))
          const ip = request.clientIp
          if (!isV1(request) || !info || info.ips.length === 0 || ip === undefined || !loopback(ip))
            return request
          if (ipIn(info.ips, ip)) return request
          const inside = info.ips
            .map((range) => range.split('/')[0]?.trim() ?? '')
            .find((a) => ipIn(info.ips, a))
          return inside === undefined ? request : { ...request, clientIp: inside }
        },
        response(response, request) {
          t.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'origins-enforced-for-publishable-keys-only',
    kind: 'restrictions',
    what:
      'allowed_origins is checked only for publishable keys, the browser keys the setting was built for (`if (key.type === "publishable" && key.allowed_origins.length)`): a secret key restricted to origins is accepted with any Origin, or none, instead of getting 403 key_restricted. ' +
      'docs/decisions/003: "`allowed_origins` (the request\'s `Origin` must be listed; else 403 `key_restricted`)" (for every key); control plane, createKey: "`allowed_origins` (...; a request whose `Origin` header is missing or not listed gets 403 `key_restricted`)"; the platform\'s spec, Authentication: "optionally set permissions and restrictions" (for either type).',
    make: () => {
      const t = new Tracker()
      const sentOrigin: Pending<string | undefined> = new Map()
      return {
        request(request) {
          const info = t.key(bearerToken(request))
          const origin = request.headers.origin
          if (!isV1(request) || request.method === 'OPTIONS') return request
          if (info?.type !== 'secret' || info.origins.length === 0) return request
          if (origin !== undefined && info.origins.includes(origin)) return request
          const sent = { ...request, headers: { ...request.headers, origin: info.origins[0] } }
          sentOrigin.set(sent, origin)
          return sent
        },
        response(response, request) {
          t.observe(request, response)
          if (!sentOrigin.has(request)) return response
          const origin = sentOrigin.get(request)
          sentOrigin.delete(request)
          if (origin === undefined) {
            for (const name of Object.keys(response.headers))
              if (name.startsWith('access-control-') || name === 'vary') delete response.headers[name]
          } else if (response.headers['access-control-allow-origin'] !== undefined)
            response.headers['access-control-allow-origin'] = origin
          return response
        },
      }
    },
  },
  {
    name: 'origin-matched-without-scheme',
    kind: 'restrictions',
    what:
      'allowed_origins are compared by host and port only (`new URL(origin).host`): `http://app.example.com` passes for a key restricted to `https://app.example.com`, so a page served over plain HTTP, or one injected on the network, uses the key. ' +
      'docs/decisions/003: "`allowed_origins` (the request\'s `Origin` must be listed; else 403 `key_restricted`)"; control plane, KeyRestrictions.allowed_origins: "Origins (`scheme://host[:port]`) the key may be used from"; RFC 6454 (an origin is scheme, host and port).',
    make: () => {
      const t = new Tracker()
      const sentOrigin: Pending<string> = new Map()
      const hostOf = (origin: string) => {
        try {
          return new URL(origin).host
        } catch {
          return undefined
        }
      }
      return {
        request(request) {
          const info = t.key(bearerToken(request))
          const origin = request.headers.origin
          if (!isV1(request) || request.method === 'OPTIONS' || !info || origin === undefined) return request
          if (info.origins.length === 0 || info.origins.includes(origin)) return request
          const host = hostOf(origin)
          const listed = info.origins.find((allowed) => host !== undefined && hostOf(allowed) === host)
          if (listed === undefined) return request
          const sent = { ...request, headers: { ...request.headers, origin: listed } }
          sentOrigin.set(sent, origin)
          return sent
        },
        response(response, request) {
          t.observe(request, response)
          const origin = sentOrigin.get(request)
          sentOrigin.delete(request)
          if (origin !== undefined && response.headers['access-control-allow-origin'] !== undefined)
            response.headers['access-control-allow-origin'] = origin
          return response
        },
      }
    },
  },
  {
    name: 'expiry-checked-as-a-restriction',
    kind: 'restrictions',
    what:
      'expires_at is checked with the key\'s other restrictions, in the authorization step: a key past its expires_at gets 403 key_restricted ("This API key expired at ...") after the rate limit instead of 401, and its requests count against the account\'s budget. ' +
      'docs/decisions/003: "`expires_at` (after it the key is refused with a 401 whose message says it expired)"; contract, bearerAuth: "a key past its `expires_at` restriction is rejected with a message saying it expired"; Order of checks 1: "**401** authentication (missing, malformed, unknown, revoked or expired key). Not counted against rate limits".',
    make: () => {
      const t = new Tracker()
      const expired: Pending<KeyInfo> = new Map()
      return {
        request(request) {
          const token = bearerToken(request)
          const info = t.key(token)
          if (!isV1(request) || !info || info.revoked || !t.expired(info) || scopesOf(request) === undefined)
            return request
          const other = t.capable(info.account, [], token)
          if (other === undefined) return request
          const read = harmless(request, other)
          expired.set(read, info)
          return read
        },
        response(response, request) {
          t.observe(request, response)
          const info = expired.get(request)
          expired.delete(request)
          if (!info || response.status === 429) return response
          const at = info.expiresAt ? ` at ${stamp(info.expiresAt)}` : ''
          return errorAnswer(response, 403, {
            type: 'permission_error',
            code: 'key_restricted',
            message: `This API key expired${at} and may no longer be used.`,
          })
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ lifecycle
  {
    name: 'revocation-by-key-name',
    kind: 'lifecycle',
    what:
      "The dashboard's revoke action updates by name (`UPDATE api_keys SET status = 'revoked' WHERE account_id = ? AND name = ?`): revoking a key also revokes every active key of the account with the same name, so after a rotation whose new key kept the old one's name, revoking the old key cuts off the new one (401 revoked, and `revoked` in the key list). " +
      'The platform\'s spec, Rotation: "generate a new key; update the applications; test; revoke the old key; watch for failed requests"; States and transitions: "active | key revoked" (the key revoked); control plane, revokeKey: "Revokes a key: from the very next request it gets 401".',
    make: () => {
      const t = new Tracker()
      const collateral = t.map<string, string>()
      const cut: Pending<string> = new Map()
      return {
        request(request) {
          const token = bearerToken(request)
          if (!isV1(request) || token === undefined || !collateral.has(token)) return request
          const sent = withToken(request, unknownToken(token))
          cut.set(sent, token)
          return sent
        },
        response(response, request) {
          const revoked = /^\/_mock\/keys\/([^/]+)\/revoke$/.exec(pathOf(request))
          const before = revoked ? t.byId(revoked[1] as string) : undefined
          const wasActive = before !== undefined && !before.revoked
          t.observe(request, response)
          const token = cut.get(request)
          cut.delete(request)
          if (token !== undefined && response.status === 401) return revokedAnswer(response, token)
          const body = isObject(response.body) ? response.body : undefined
          if (revoked && before && wasActive && response.status === 200 && body) {
            const at = typeof body.revoked_at === 'string' ? body.revoked_at : stamp(t.now() ?? 0)
            for (const info of t.all())
              if (info.id !== before.id && info.account === before.account && info.name === before.name)
                if (!info.revoked && !collateral.has(info.value)) collateral.set(info.value, at)
          }
          if (pathOf(request).startsWith('/_mock/') && ok(response))
            for (const record of objectsOf(response)) {
              const value = record.object === 'api_key' ? t.byId(String(record.id))?.value : undefined
              const at = value === undefined ? undefined : collateral.get(value)
              if (at === undefined || record.status !== 'active') continue
              record.status = 'revoked'
              record.revoked_at = at
            }
          return response
        },
      }
    },
  },
  {
    name: 'refused-requests-touch-last-used',
    kind: 'lifecycle',
    what:
      "The key's `last_used_at` is written when the key is looked up, before its status is checked: a request refused because the key was revoked or had expired moves `last_used_at` in the dashboard's key list, and the owner watching for failed requests after a rotation reads the dead key as still in use. " +
      'Control plane, ApiKey: "`last_used_at` is the last time the key authenticated a request (requests it failed to authenticate, e.g. after revocation, do not update it)"; the platform\'s spec, Rotation: "revoke the old key; watch for failed requests".',
    make: () => {
      const t = new Tracker()
      const attempts = t.map<string, number>()
      return {
        response(response, request) {
          t.observe(request, response)
          const info = t.key(bearerToken(request))
          const message = String(errorOf(response)?.message ?? '')
          const now = t.now()
          if (isV1(request) && response.status === 401 && info && now !== undefined)
            if (/has been revoked| expired at /.test(message)) attempts.set(info.id, now)
          if (
            !/^\/_mock\/accounts\/[^/]+\/keys$/.test(pathOf(request)) ||
            request.method !== 'GET' ||
            !ok(response)
          )
            return response
          for (const record of objectsOf(response)) {
            const at = attempts.get(String(record.id))
            const used = typeof record.last_used_at === 'string' ? Date.parse(record.last_used_at) : 0
            if (at !== undefined && at > used) record.last_used_at = stamp(at)
          }
          return response
        },
      }
    },
  },
  {
    name: 'revoked-key-reported-as-invalid',
    kind: 'lifecycle',
    what:
      "Revocation deletes the key's digest from the lookup table (the record stays for the dashboard), so a revoked key is an unknown key: its 401 says `Invalid API key provided` instead of saying that it was revoked, and its owner looks for a typo rather than a revocation. " +
      'docs/decisions/002: "a message that says whether the key was missing, invalid, revoked or expired"; contract, Unauthorized: "The message tells the four cases apart" (example `revoked`: "has been revoked"); control plane, revokeKey: "from the very next request it gets 401 (message: revoked)".',
    make: () => ({
      response(response, request) {
        const error = errorOf(response)
        if (response.status !== 401 || !isV1(request) || !error) return response
        const match = /^This API key( \([^)]*\))? has been revoked\./.exec(String(error.message))
        if (match) error.message = `Invalid API key provided${match[1] ?? ''}.`
        return response
      },
    }),
  },

  // ------------------------------------------------------------------------------------------- isolation
  {
    name: 'agent-update-crosses-accounts',
    kind: 'isolation',
    what:
      "PATCH /agents/{agent_id} updates the row by ID alone (`UPDATE agents SET ... WHERE id = ?`; the account is checked by GET only): a key of one account with agents:write changes another account's agent, and gets it back with its prompt and webhook, instead of 404. " +
      'Contract, getAgent: "An unknown ID, an ID of another account, or an ID of a deleted agent gives 404 `resource_not_found`"; NotFound: "the path ID does not exist in the key\'s account"; Order of checks 6: "**404** resource: the path ID does not exist in the key\'s account".',
    make: () => {
      const t = new Tracker()
      return {
        request(request) {
          const token = bearerToken(request)
          const item = itemOf(request)
          if (request.method !== 'PATCH' || item?.collection !== 'agents' || !t.holds(token, 'agents:write'))
            return request
          const own = t.accountOf(token)
          const owner = t.ownerOf(item.id)
          if (own === undefined || owner === undefined || owner === own) return request
          const info = t.key(token)
          if (info && (!t.alive(info) || info.ips.length > 0 || info.origins.length > 0)) return request
          const other = t.capable(owner, ['agents:write'])
          return other === undefined ? request : withToken(request, other)
        },
        response(response, request) {
          t.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'call-log-agent-filter-crosses-accounts',
    kind: 'isolation',
    what:
      "GET /call-logs with `agent_id` reads the per-agent index without the account condition: another account's agent ID lists that agent's call logs (numbers, costs, analyses) instead of an empty list. " +
      'Contract, listCallLogs: "Lists the account\'s call logs"; "an `agent_id` that has the right shape but no call logs simply yields an empty list" (none in this account); the platform\'s spec, Key types: a secret key has "full read and write access to the account" (its own).',
    make: () => {
      const t = new Tracker()
      return {
        request(request) {
          const token = bearerToken(request)
          const agent = queryOf(request).get('agent_id')
          if (!isRead(request) || routeOf(request) !== '/v1/call-logs' || agent === null) return request
          if (!t.holds(token, 'call_logs:read')) return request
          const own = t.accountOf(token)
          const owner = t.ownerOf(agent)
          if (own === undefined || owner === undefined || owner === own) return request
          const info = t.key(token)
          if (info && (!t.alive(info) || info.ips.length > 0 || info.origins.length > 0)) return request
          const other = t.capable(owner, ['call_logs:read'])
          return other === undefined ? request : withToken(request, other)
        },
        response(response, request) {
          t.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'team-member-readable-across-accounts',
    kind: 'isolation',
    what:
      "GET /team-members/{member_id} loads the member by ID alone: a key of one account with team_members:write reads another account's member or invitation (name, e-mail address, role) instead of getting 404. " +
      'Contract, NotFound: "`resource_not_found`: the path ID does not exist in the key\'s account"; getTeamMember: "Returns one team member or pending invitation" (of the account); listTeamMembers: "Lists the people with access to the account"; Order of checks 6.',
    make: () => {
      const t = new Tracker()
      return {
        request(request) {
          const token = bearerToken(request)
          const item = itemOf(request)
          if (
            !isRead(request) ||
            item?.collection !== 'team-members' ||
            !t.holds(token, 'team_members:write')
          )
            return request
          const own = t.accountOf(token)
          const owner = t.ownerOf(item.id)
          if (own === undefined || owner === undefined || owner === own) return request
          const info = t.key(token)
          if (info && (!t.alive(info) || info.ips.length > 0 || info.origins.length > 0)) return request
          const other = t.capable(owner, ['team_members:write'])
          return other === undefined ? request : withToken(request, other)
        },
        response(response, request) {
          t.observe(request, response)
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------- rate limits
  {
    name: 'ratelimit-remaining-per-key',
    kind: 'rate-limits',
    what:
      "The rate-limit headers are written from the key's own usage counter (kept for the dashboard's per-key statistics), while the limiter counts per account: when an account uses several keys, each key's answers show what that key alone used (more remaining, another reset), and a 429 comes while the headers still show room. " +
      'docs/decisions/006: "The budget belongs to the account: all keys of an account share it"; contract, RateLimit header: "`r` is what remains in the window after this request"; Rate limits: "Requests are limited per **account** (all keys of an account share the budget)".',
    make: () => {
      const t = new Tracker()
      const used = t.map<string, number[]>()
      const tokensOf = t.map<string, Set<string>>()
      return {
        response(response, request) {
          t.observe(request, response)
          const token = bearerToken(request)
          const account = t.key(token)?.account
          const now = nowSecondsOf(response)
          const windows = windowsByName(response.headers)
          if (!isV1(request) || token === undefined || account === undefined || now === undefined || !windows)
            return response
          if (response.status === 429) return response
          const stamps = (used.get(token) ?? []).filter((second) => second + 3600 > now)
          stamps.push(now)
          used.set(token, stamps)
          const tokens = tokensOf.get(account) ?? new Set<string>()
          tokens.add(token)
          tokensOf.set(account, tokens)
          if (tokens.size < 2) return response
          for (const window of windows) {
            const inside = stamps.filter((second) => second + window.w > now)
            window.r = Math.max(0, window.q - inside.length)
            window.t = inside.length > 0 ? (inside[0] as number) + window.w - now : 0
          }
          writeWindows(response.headers, windows, now)
          return response
        },
      }
    },
  },
  {
    name: 'revoked-key-rate-limited-before-refusal',
    kind: 'rate-limits',
    what:
      "The rate limiter runs on the key's account as soon as the key is looked up, before its status is checked: requests with a revoked key are counted against the account's budget (a leaked key that was revoked can still exhaust it), and once the budget is spent they get 429 instead of 401. " +
      'docs/decisions/002: "A 401 ... is not counted by the rate limit" ("not counting 401s keeps a leaked, revoked key from exhausting its account\'s budget"); docs/decisions/006: "a 429 and a 401 count in neither"; contract, Order of checks 1: "**401** authentication (... revoked ...). Not counted against rate limits"; the platform\'s spec, States: revoked, "requests that use the key receive 401".',
    make: () => {
      const t = new Tracker()
      const dead: Pending<string> = new Map()
      return {
        request(request) {
          const token = bearerToken(request)
          const info = t.key(token)
          if (!isV1(request) || request.method === 'OPTIONS' || !info?.revoked) return request
          const other = t.capable(info.account, [], token)
          if (other === undefined) return request
          const read = harmless(request, other)
          dead.set(read, info.value)
          return read
        },
        response(response, request) {
          t.observe(request, response)
          const token = dead.get(request)
          dead.delete(request)
          if (token === undefined || response.status === 429) return response
          return revokedAnswer(response, token)
        },
      }
    },
  },

  // ---------------------------------------------------------------------------------------------- order
  {
    name: 'area-guard-before-method-check',
    kind: 'order',
    what:
      "Each area's router mounts its write guard for every method but GET and HEAD before the routes are matched: a method the path does not document (PUT /agents/{agent_id}, DELETE /integrations/{integration_id}, PUT /team-members) sent with a key that lacks the area's write scope gets 403 naming that scope instead of 405 with `Allow`. " +
      'Contract, Order of checks: "3. **404 / 405** routing: ... known path, undocumented method -> 405 with `Allow`. 4. **403** permission"; docs/decisions/005: "401 authentication -> 429 rate limit -> 404 / 405 route -> 403 permission and restrictions".',
    make: () => {
      const t = new Tracker()
      const areaScope: Record<string, string> = {
        agents: 'agents:write',
        integrations: 'integrations:write',
        'team-members': 'team_members:write',
      }
      return {
        response(response, request) {
          t.observe(request, response)
          if (
            response.status !== 405 ||
            !isV1(request) ||
            ['GET', 'HEAD', 'OPTIONS'].includes(request.method)
          )
            return response
          const area = /^\/v1\/(agents|integrations|team-members)(\/|$)/.exec(pathOf(request))?.[1]
          const scope = area === undefined ? undefined : areaScope[area]
          const token = bearerToken(request)
          if (scope === undefined || !t.key(token) || t.holds(token, scope)) return response
          return missingScope(response, scope)
        },
      }
    },
  },
  {
    name: 'scope-checked-before-rate-limit',
    kind: 'order',
    what:
      "The limiter's verdict is attached to the request and acted on after the route's permission guard has run: when the account's budget is spent, a key without the operation's scope gets 403 insufficient_permissions instead of 429 (without Retry-After), and a client backing off on 429 is told instead to fix its key. " +
      'Contract, Order of checks: "2. **429** rate limit (per account) ... 4. **403** permission"; docs/decisions/005: "401 authentication -> 429 rate limit -> 404 / 405 route -> 403 permission"; the platform\'s spec, Limits: "Exceeding a limit yields 429".',
    make: () => {
      const t = new Tracker()
      return {
        response(response, request) {
          t.observe(request, response)
          if (response.status !== 429 || !isV1(request)) return response
          const token = bearerToken(request)
          const missing = (scopesOf(request) ?? []).find((scope) => !t.holds(token, scope))
          if (missing === undefined || !t.key(token)) return response
          return missingScope(response, missing)
        },
      }
    },
  },
  {
    name: 'restrictions-checked-before-revocation',
    kind: 'order',
    what:
      "An edge layer checks a key's restrictions from its cached record before the platform checks the key's status: a revoked or expired key used from an address outside its allowed_ips, or without a listed Origin, gets 403 key_restricted (without rate-limit headers) instead of 401 revoked or expired. " +
      'Contract, Order of checks: "1. **401** authentication (missing, malformed, unknown, revoked or expired key) ... 4. **403** permission ..., and key restrictions (`key_restricted`)"; docs/decisions/005: "401 authentication -> 429 rate limit -> 404 / 405 route -> 403 permission and restrictions"; control plane, revokeKey: "from the very next request it gets 401".',
    make: () => {
      const t = new Tracker()
      return {
        response(response, request) {
          t.observe(request, response)
          const info = t.key(bearerToken(request))
          const error = errorOf(response)
          if (response.status !== 401 || !isV1(request) || !info || !error) return response
          if (!/has been revoked| expired at /.test(String(error.message))) return response
          const origin = request.headers.origin
          const ipRefused = info.ips.length > 0 && !ipIn(info.ips, request.clientIp)
          const originRefused =
            info.origins.length > 0 && (origin === undefined || !info.origins.includes(origin))
          if (!ipRefused && !originRefused) return response
          return errorAnswer(
            response,
            403,
            {
              type: 'permission_error',
              code: 'key_restricted',
              message: ipRefused
                ? 'This API key may not be used from this IP address.'
                : 'This API key may not be used from this origin.',
            },
            headersBeforeLimiter(response),
          )
        },
      }
    },
  },
]
