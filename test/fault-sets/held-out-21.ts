/**
 * Held-out fault set 21: thirty faults an implementer of the platform's v1 API could plausibly ship, written blind to
 * the contract suite: neither its checks, nor its exploration, nor its tests, nor its documentation were read, and the
 * suite was never run. held-out-3 to held-out-20 were read for their format only, and so as not to repeat their
 * faults (every fault here breaks another rule, on another operation, or in another situation than theirs). The
 * sources were the platform's spec and the product brief, the product decisions (the project's record of them:
 * `docs/decisions/`), the contract (`openapi/v1.yaml`, `openapi/mock-control.yaml`) and the mock engine (the
 * correct implementation every fault wraps).
 *
 * No theme: a general set, as an independent QA team would write it, spread over the whole spec: the key records of
 * the dashboard (expiry, masking, last use, the order of their scopes), IP allowlists, the scope a 403 names, the
 * 429 body and custom quotas, agent validation, simulated calls (duration, transcript offsets, the duration cap) and
 * their filters, analytics ranges and averages, integrations, team members, pagination, idempotency, the error
 * envelope, the journal, the accounts list and the webhook signing secret. The bugs are the ordinary ones: an
 * offset dropped from a timestamp, a bit shift past the word size, a bound made exclusive, arguments passed in the
 * wrong order, a field written in one place and read from another, a default filled in by a DTO, an `else if`
 * where two conditions apply, a setting read once when the object was made, a header set in one branch only, a
 * validation too strict on one field and too lenient on another, a body parser that makes `{}` of nothing, error
 * codes from another product. About two thirds of them only show after a sequence of requests (objects made,
 * changed and read again; windows filled; keys made and used; simulated calls run on the moved clock); the rest
 * show on one request.
 *
 * Each fault wraps the correct engine (`faultyHandler`): it rewrites a request before the engine sees it, answers in
 * the engine's place (the engine is then sent a stand-in: the same request made harmless, which passes the same
 * authentication, rate-limit, route and permission checks and is counted alike), or rewrites the engine's answer,
 * keeping what it needs in the closure `make()` returns (keys and accounts seen through the control plane, objects
 * as answers showed them, simulated calls started there). Where the faulty platform refuses a value the engine would
 * take, the engine is sent the request with that value replaced by one it refuses at the same step, so that it still
 * checks and counts the request as the faulty platform would and changes nothing, and its refusal is reworded.
 * Every fault deviates from the platform's spec, the contract or a decision (cited in `what`), in specific
 * situations only (ordinary traffic, the first reads of every endpoint and a create and a read, is unchanged), and
 * never where the spec leaves a choice open (docs/decisions/011-allowed-forms.md).
 * Liveness: `scripts/fault-sets/held-out-21-live.ts`.
 */
import { errors } from '../../mocks/engine/api-error.ts'
import { cidrContains, parseCidr, parseIp } from '../../mocks/engine/cidr.ts'
import { isJsonContentType } from '../../mocks/engine/request-body.ts'
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import { KeptBook, Seen } from './fault-books.ts'
import {
  ACCOUNT_PATH,
  ALL_SCOPES,
  CALLS_PATH,
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
  KEYS_PATH,
  nowOf,
  objectBody,
  objectsOf,
  ok,
  oversized,
  passedToBody,
  pathOf,
  queryOf,
  replayed,
  rewordFieldError,
  round,
  single,
  startedCall,
  timestampOf,
  tokenOf,
  v1Router,
  validBody,
  withJson,
  withQuery,
} from './request-parts.ts'

/** A fault of this set: a general set's (request-parts.ts). */
export type HeldOutFault = GeneralSetFault

// ------------------------------------------------------------------------------------------------- helpers

/** The path of a member's acceptance of an invitation (`joinTeamMember`). */
const JOIN_PATH = /^\/_mock\/accounts\/([^/]+)\/team-members\/[^/]+\/join\/?$/

/** The path of an account's webhook signing secret. */
const SECRET_PATH = /^\/_mock\/accounts\/([^/]+)\/webhook-secret\/?$/

/** The key records (`object: "api_key"`) a control-plane answer carries: a created, revoked or listed key. */
function keyRecords(request: EngineRequest, response: EngineResponse): Json[] {
  if (!pathOf(request).startsWith('/_mock/') || !ok(response) || !isObject(response.body)) return []
  const body = response.body
  if (body.object === 'list' && Array.isArray(body.data))
    return body.data.filter((item): item is Json => isObject(item) && item.object === 'api_key')
  return body.object === 'api_key' ? [body] : []
}

/** The string entries of a key record's `restrictions.allowed_ips`. */
function allowedIps(record: Json | undefined): string[] {
  const restrictions = isObject(record?.restrictions) ? record.restrictions : undefined
  return Array.isArray(restrictions?.allowed_ips)
    ? restrictions.allowed_ips.filter((entry): entry is string => typeof entry === 'string')
    : []
}

/** Transcript offsets are written with one decimal. */
const tenths = (seconds: number) => Math.round(seconds * 10) / 10

// ---------------------------------------------------------------------------------------- what a fault learns

/**
 * What the faults of this set may need to know: the account of each key (a key's 201 in the control plane names it,
 * `GET /user` tells it for any other key), the records of the keys made through the control plane and their values
 * by key ID. `POST /_mock/reset`, which starts the platform again, empties them all and every map a fault asked for.
 */
class Book extends KeptBook {
  private readonly accounts = this.map<string, string>()
  private readonly records = this.map<string, Json>()
  private readonly values = this.map<string, string>()

  /** Learns from an answer. */
  observe(request: EngineRequest, response: EngineResponse): void {
    const path = pathOf(request)
    const body = isObject(response.body) ? response.body : undefined
    if (path === '/_mock/reset' && ok(response)) {
      this.empty()
      return
    }
    if (KEYS_PATH.test(path) && request.method === 'POST' && response.status === 201 && body) {
      if (typeof body.value !== 'string') return
      if (typeof body.account_id === 'string') this.accounts.set(body.value, body.account_id)
      this.records.set(body.value, structuredClone(body))
      if (typeof body.id === 'string') this.values.set(body.id, body.value)
      return
    }
    const token = tokenOf(request)
    if (token !== undefined && /^\/v1\/user\/?$/.test(path) && response.status === 200 && body)
      if (typeof body.id === 'string') this.accounts.set(token, body.id)
  }

  /** The account of a key; a key never seen counts as an account of its own. */
  account(token: string | undefined): string {
    return (token === undefined ? undefined : this.accounts.get(token)) ?? `token:${token ?? ''}`
  }

  /** The record of a key made through the control plane (undefined for any other key). */
  recordOf(token: string | undefined): Json | undefined {
    return token === undefined ? undefined : this.records.get(token)
  }

  /** The value of the key with this ID, when it was made through the control plane. */
  valueOf(keyId: string): string | undefined {
    return this.values.get(keyId)
  }
}

// ------------------------------------------------------------------------------------------------- faults

export const faults: HeldOutFault[] = [
  // ------------------------------------------------------------------------------------------------- keys
  {
    name: 'expiry-offset-read-as-utc',
    kind: 'keys',
    what:
      "The dashboard parses a key's `expires_at` with a fixed layout in UTC (`dayjs.utc(value, 'YYYY-MM-DDTHH:mm:ss')`), which reads the date and the wall-clock time and drops the offset: an expiry written with an offset other than `Z` (`2026-03-10T14:00:00+01:00`, as a form in a browser's time zone sends it) is recorded as that wall-clock time in UTC (`2026-03-10T14:00:00Z`), so the key expires an hour late east of Greenwich (and early, or is refused as past, west of it). Expiries written in UTC are right. " +
      'Mock-control KeyCreateRequest.restrictions.expires_at: "Any RFC 3339 offset and fraction is accepted; the key records it in UTC with `Z`, in whole seconds (`2030-06-30T12:00:00.5+02:00` is kept as `2030-06-30T10:00:00Z`)"; docs/decisions/003-api-keys.md: "`expires_at` (after it the key is refused with a 401 whose message says it expired)".',
    make: () => ({
      request(request) {
        if (request.method !== 'POST' || !KEYS_PATH.test(pathOf(request))) return request
        const body = objectBody(request)
        const restrictions = isObject(body?.restrictions) ? body.restrictions : undefined
        const expires = restrictions?.expires_at
        if (!body || !restrictions || typeof expires !== 'string') return request
        const match = /^(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?)([+-]\d{2}:\d{2})$/.exec(expires)
        if (!match || /^[+-]00:00$/.test(match[2] as string)) return request
        const wallClock = `${(match[1] as string).toUpperCase()}Z`
        return withJson(request, { ...body, restrictions: { ...restrictions, expires_at: wallClock } })
      },
    }),
  },
  {
    name: 'redacted-value-shows-first-four',
    kind: 'keys',
    what:
      "The masked form of a key is built as `value.slice(0, 7) + '...' + value.slice(7, 11)`, the first four characters after the prefix (meant as the key's \"prefix id\", the way some dashboards show it) instead of the last four: `redacted_value` in the 201 of a new key, in the key list and in a revocation's answer shows characters the owner cannot match with the end of the key in their environment variables, and together with the prefix and the last four characters that messages show, a leaked log line gives away eight of the key's characters. Keys the dashboard did not create through the API are right. " +
      'docs/decisions/003-api-keys.md: "`redacted_value` (`sk-svc-...WXYZ`)"; mock-control ApiKey: "Never contains the key value; `redacted_value` shows the prefix and the last 4 characters"; contract, Errors: "Messages never echo a whole API key: at most its prefix and its last four characters".',
    make: () => {
      const book = new Book()
      return {
        response(response, request) {
          book.observe(request, response)
          for (const record of keyRecords(request, response)) {
            const value = book.valueOf(String(record.id))
            if (value !== undefined && typeof record.redacted_value === 'string')
              record.redacted_value = `${value.slice(0, 7)}...${value.slice(7, 11)}`
          }
          return response
        },
      }
    },
  },
  {
    name: 'last-used-at-only-on-success',
    kind: 'keys',
    what:
      '`last_used_at` is written by the access-log consumer, which reads the log of successful requests only (the 2xx stream the billing job uses): a request the key authenticated but that ended in an error (404 for an unknown ID, 422, 409, 403, 429) does not move it, so a key whose only traffic after a rotation is failing requests looks unused in the dashboard, and its owner revokes a key that an application still sends. Successful requests are right. ' +
      'Mock-control ApiKey: "`last_used_at` is the last time the key authenticated a request (requests it failed to authenticate, e.g. after revocation, do not update it)"; the platform\'s spec, Rotation and handling: "revoke the old key; watch for failed requests"; docs/decisions/003-api-keys.md: a key record holds "`last_used_at`".',
    make: () => {
      const book = new Book()
      const used = book.map<string, string | null>()
      return {
        response(response, request) {
          book.observe(request, response)
          const record = isV1(request) ? book.recordOf(tokenOf(request)) : undefined
          if (record && typeof record.id === 'string' && response.status !== 401) {
            const now = nowOf(response)
            if (ok(response) && now !== undefined) used.set(record.id, timestampOf(now))
            else if (!used.has(record.id)) used.set(record.id, null)
          }
          for (const key of keyRecords(request, response)) {
            const at = used.get(String(key.id))
            if (at !== undefined) key.last_used_at = at
          }
          return response
        },
      }
    },
  },
  {
    name: 'allowlist-slash-zero-matches-nothing',
    kind: 'keys',
    what:
      'The IPv4 allowlist check computes its mask as `0xffffffff << (32 - bits)`, and JavaScript takes a shift count modulo 32: for a `/0` range the mask is all ones instead of none, so `0.0.0.0/0` (the "anywhere" a team writes while it has not yet pinned its servers) matches only the address 0.0.0.0 itself, and every request with that key is refused with 403 `key_restricted`. Ranges with a prefix of 1 to 32 are right. ' +
      'Mock-control createKey: "`allowed_ips` (IPv4/IPv6 addresses or CIDRs; requests from elsewhere get 403 `key_restricted`)"; docs/decisions/003-api-keys.md: "`allowed_ips` (CIDR ranges; a request from elsewhere is 403 `key_restricted`)"; contract, Forbidden: "`key_restricted`: the key\'s restrictions reject the request (client IP outside `allowed_ips` ...)".',
    make: () => {
      const book = new Book()
      const refused = new Set<EngineRequest>()
      const everywhere = (entry: string) => {
        const [address = '', prefix] = entry.split('/')
        return /^\d{1,3}(\.\d{1,3}){3}$/.test(address.trim()) && prefix !== undefined && /^0+$/.test(prefix)
      }
      const sameBytes = (a: Uint8Array, b: Uint8Array) => a.every((byte, i) => byte === b[i])
      return {
        request(request) {
          if (!isV1(request) || request.method === 'OPTIONS' || request.clientIp === undefined) return request
          const entries = allowedIps(book.recordOf(tokenOf(request)))
          const ip = parseIp(request.clientIp)
          if (!ip || !entries.some(everywhere)) return request
          const admits = entries.some((entry) => {
            const range = parseCidr(entry)
            if (!range) return false
            if (!everywhere(entry)) return cidrContains(range, ip)
            const network = parseIp((entry.split('/')[0] as string).trim())
            return network !== null && sameBytes(network, ip)
          })
          if (admits) return request
          // Reads run as they are (nothing changes); writes are made harmless; all are counted alike.
          const sent = isRead(request)
            ? { ...request }
            : request.method === 'DELETE'
              ? oversized(request)
              : harmless(request)
          refused.add(sent)
          return sent
        },
        response(response, request) {
          const mine = refused.delete(request)
          book.observe(request, response)
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

  // ------------------------------------------------------------------------------------------ permissions
  {
    name: 'required-permission-names-write-scope',
    kind: 'permissions',
    what:
      'The permission guard resolves a route\'s requirement to the list of scopes that satisfy it (`agents:read` is satisfied by `agents:read` or `agents:write`) and names the last of them when none is held: a key without `agents:read` that lists or reads agents, or without `integrations:read` that reads integrations, gets 403 with `required_permission: "agents:write"` (or `integrations:write`), so its owner grants a write scope to a key that only had to read. Other operations name the right scope. ' +
      'Contract, listAgents / getAgent: `x-required-permission: [\'agents:read\']`; listIntegrations / getIntegration: `x-required-permission: [\'integrations:read\']`; Forbidden: "`required_permission` names the (first) missing scope" of the operation\'s `x-required-permission`; docs/decisions/004-permissions.md: "`error.required_permission` naming the scope that is missing"; the platform\'s spec, Rotation and handling: keys are "given minimal permissions".',
    make: () => ({
      response(response, request) {
        const error = errorOf(response)
        if (!isV1(request) || response.status !== 403 || error?.code !== 'insufficient_permissions')
          return response
        const wider = ({ 'agents:read': 'agents:write', 'integrations:read': 'integrations:write' } as const)[
          String(error.required_permission) as 'agents:read' | 'integrations:read'
        ]
        if (wider === undefined) return response
        error.required_permission = wider
        error.message = `This API key lacks the permission '${wider}' required for this request.`
        return response
      },
    }),
  },
  {
    name: 'permissions-stored-in-request-order',
    kind: 'permissions',
    what:
      'Key creation expands the groups in place and de-duplicates (`[...new Set(requested.flatMap(expand))]`) but never sorts: a key\'s `permissions` are stored, answered and listed in the order the dashboard\'s form sent them (`["resources:delete", "agents:write", "agents:read", ...]`), so two keys with the same scopes show different lists and a tool that compares a key\'s scopes with the expected list as arrays reports a difference. Keys made without a list, or with one already in canonical order, are right. ' +
      'Mock-control createKey: "the record stores the expanded, de-duplicated scopes in the canonical order (`agents:read`, `call_logs:read`, `analytics:read`, `integrations:read`, `agents:write`, `integrations:write`, `team_members:write`, `resources:delete`)"; ApiKey.permissions: "The expanded scopes, in canonical order".',
    make: () => {
      const book = new Book()
      const orders = book.map<string, string[]>()
      const groups: Record<string, string[]> = { read: ALL_SCOPES.slice(0, 4), write: ALL_SCOPES.slice(4) }
      return {
        response(response, request) {
          book.observe(request, response)
          const body = isObject(response.body) ? response.body : undefined
          const sent = objectBody(request)?.permissions
          if (
            KEYS_PATH.test(pathOf(request)) &&
            request.method === 'POST' &&
            response.status === 201 &&
            body
          ) {
            if (Array.isArray(sent) && Array.isArray(body.permissions)) {
              const order: string[] = []
              for (const item of sent)
                for (const scope of groups[String(item)] ?? [String(item)])
                  if (!order.includes(scope)) order.push(scope)
              const stored = body.permissions.map(String)
              if (order.length === stored.length && order.every((scope) => stored.includes(scope)))
                orders.set(String(body.id), order)
            }
          }
          for (const record of keyRecords(request, response)) {
            const order = orders.get(String(record.id))
            if (order) record.permissions = [...order]
          }
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ rate limits
  {
    name: 'retry-after-in-body-as-string',
    kind: 'rate-limits',
    what:
      'The 429 handler fills `error.retry_after` from the header it has just set (`retry_after: res.get(\'Retry-After\')`), a string: a rate-limited answer says `"retry_after": "42"` instead of the number 42, and a client that adds it to a timestamp concatenates text (or a typed client fails to decode the error). The header is right. ' +
      'Contract, Error.retry_after: `{type: integer, minimum: 1}`, "429 only: seconds to wait, equal to the `Retry-After` header"; TooManyRequests: `required: [policy, retry_after]`, `retry_after: {type: integer}`; docs/decisions/006-rate-limits.md: "Its body: `error.type` `rate_limit_error`, `error.code` `rate_limit_exceeded`, `error.policy` ... and `error.retry_after`".',
    make: () => ({
      response(response, request) {
        const error = errorOf(response)
        if (!isV1(request) || response.status !== 429 || typeof error?.retry_after !== 'number')
          return response
        error.retry_after = String(error.retry_after)
        return response
      },
    }),
  },
  {
    name: 'limits-update-swaps-windows',
    kind: 'rate-limits',
    what:
      'Changing an account\'s limits calls `limiter.setQuotas(account, limits.burst, limits.hourly)` against the signature `(account, hourly, burst)` (creation passes them right): after PATCH `{"limits": {"hourly": 300, "burst": 20}}` the account shows the limits it was given, but its requests are limited, and told, 20 per hour and 300 per minute (`RateLimit-Policy: "hourly";q=20;w=3600, "burst";q=300;w=60`), so it is refused after 20 requests instead of being let through 300 an hour. Accounts whose limits were set when they were created, or never, are right. ' +
      'Mock-control updateAccount: "`limits` sets custom quotas (for any plan) ... the new quotas apply from the next request"; RateLimits: "Quotas of the two windows (requests per 3600 s and per 60 s)" (`hourly`, `burst`); docs/decisions/006-rate-limits.md: "`hourly` (3,600 s) and `burst` (60 s)"; contract, Rate limits: the windows `hourly` (w=3600 s) and `burst` (w=60 s).',
    make: () => {
      const book = new Book()
      const given = book.map<string, Json>()
      const noted = new Map<EngineRequest, Json>()
      return {
        request(request) {
          if (request.method !== 'PATCH' || !ACCOUNT_PATH.test(pathOf(request))) return request
          const body = objectBody(request)
          const limits = body?.limits
          if (!body || !isObject(limits) || !validBody(request)) return request
          const sent = withJson(request, { ...body, limits: { hourly: limits.burst, burst: limits.hourly } })
          noted.set(sent, { hourly: limits.hourly, burst: limits.burst })
          return sent
        },
        response(response, request) {
          const limits = noted.get(request)
          noted.delete(request)
          book.observe(request, response)
          const account = ACCOUNT_PATH.exec(pathOf(request))?.[1]
          if (account !== undefined && ok(response)) {
            if (request.method === 'DELETE') given.delete(account)
            else if (limits) given.set(account, limits)
            else if (request.method === 'PATCH' && objectBody(request)?.limits === null) given.delete(account)
          }
          for (const shown of controlAccounts(request, response)) {
            const limits = given.get(String(shown.id))
            if (limits) shown.limits = { ...limits }
          }
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------------- agents
  {
    name: 'max-tokens-upper-bound-exclusive',
    kind: 'agents',
    what:
      'The language-model settings check `max_tokens < MAX_TOKENS` (32,000): an agent created or updated with `llm.max_tokens: 32000`, the documented maximum (what a "use the most" setting sends), is refused with 422 (`maximum` on `llm.max_tokens`) and nothing is stored. Smaller values are right. ' +
      'Contract, LlmInput / LlmUpdate / Llm.max_tokens: `{type: integer, minimum: 1, maximum: 32000}`; AgentCreateRequest: "every other field takes the `default` documented"; docs/decisions/009-resources.md: agents have "llm {provider, model, temperature 0-2, max_tokens}".',
    make: () => {
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isCreate(request, 'agents') && itemId(request, 'PATCH', 'agents') === undefined) return request
          const body = objectBody(request)
          const llm = isObject(body?.llm) ? body.llm : undefined
          if (!body || !llm || llm.max_tokens !== 32000 || !validBody(request)) return request
          // One more: the engine refuses it at the same step, and nothing is stored.
          const sent = withJson(request, { ...body, llm: { ...llm, max_tokens: 32001 } })
          noted.add(sent)
          return sent
        },
        response(response, request) {
          if (!noted.delete(request)) return response
          return rewordFieldError(response, 'llm.max_tokens', "'llm.max_tokens' must be less than 32000.")
        },
      }
    },
  },
  {
    name: 'webhook-url-with-port-refused',
    kind: 'agents',
    what:
      'The agent DTO validates `webhook_url` with a hand-written pattern, `^https?://[^/:?#\\s]+([/?#].*)?$`, that has no room for a port: a webhook URL with an explicit port (`https://hooks.example.com:8443/voice`, `http://localhost:3000/webhooks`, the usual receiver in development) is refused with 422 (`pattern` on `webhook_url`) on create and on update, and nothing is stored. URLs without a port are right. ' +
      'Contract, AgentCreateRequest / AgentUpdateRequest / Agent.webhook_url: `format: uri`, `pattern: ^https?://(?:[^/?#@\\s]*@)?(?:[^/?#@\\s:\\[\\]]+|\\[[0-9A-Fa-f:.]+\\])(?::[0-9]*)?(?:[/?#]|$)`, "Where webhook events are posted (an http or https URL with a host)"; docs/decisions/013-calls-and-webhooks.md: "Only loopback destinations are contacted unless the mock is started with the hosts it may reach".',
    make: () => {
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isCreate(request, 'agents') && itemId(request, 'PATCH', 'agents') === undefined) return request
          const body = objectBody(request)
          const url = body?.webhook_url
          if (!body || typeof url !== 'string' || !/^https?:\/\/[^/?#]*:[0-9]*(?:[/?#]|$)/i.test(url))
            return request
          if (/^https?:\/\/[^/?#]*@/i.test(url) || /^https?:\/\/\[/i.test(url)) return request
          if (!validBody(request)) return request
          // A URL without a host: the engine refuses it with the same code at the same step.
          const sent = withJson(request, { ...body, webhook_url: 'http://' })
          noted.add(sent)
          return sent
        },
        response(response, request) {
          if (!noted.delete(request)) return response
          return rewordFieldError(
            response,
            'webhook_url',
            "'webhook_url' must be an http or https URL without a port.",
          )
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------------ calls
  {
    name: 'call-duration-rounded-to-nearest-second',
    kind: 'calls',
    what:
      "The call-log presenter of calls placed through the platform computes `duration_seconds` from the exact instants of the call's events (the carrier's millisecond timestamps) with `Math.round`: a call that rang 4 s and talked 60.6 s shows `duration_seconds: 65` while its `started_at` and `ended_at` are 64 seconds apart, in lists and by ID. Calls whose exact length has a fraction under a half, and the imported history, are right. " +
      'Contract, CallLogSummary: "`duration_seconds` = whole seconds from `started_at` to `ended_at` (rounded down; 0 if `started_at` is `null`)"; mock-control startCall: "`duration_seconds` (counted from `started_at`, ringing included, as the contract defines it)".',
    make: () => {
      const book = new Book()
      const agents = book.keep(new Seen('agent', 'agents'))
      const exact = book.map<string, number>()
      const planned = new Map<EngineRequest, number>()
      return {
        request(request) {
          const account = CALLS_PATH.exec(pathOf(request))?.[1]
          const body = objectBody(request)
          if (account === undefined || request.method !== 'POST' || !body) return request
          const cap = agents.get(account, body.agent_id)?.max_call_duration_seconds
          if (typeof cap !== 'number') return request
          const ring = typeof body.ring_seconds === 'number' ? body.ring_seconds : 4
          const talk = typeof body.duration_seconds === 'number' ? body.duration_seconds : 60
          const connects = (body.outcome ?? 'completed') === 'completed'
          const sent = { ...request }
          planned.set(sent, connects ? ring + Math.min(talk, cap) : ring)
          return sent
        },
        response(response, request) {
          const seconds = planned.get(request)
          planned.delete(request)
          book.observe(request, response)
          const started = startedCall(request, response)
          if (started && seconds !== undefined)
            exact.set(`${started.account} ${String(started.log.id)}`, seconds)
          const account = isV1(request)
            ? book.account(tokenOf(request))
            : CALLS_PATH.exec(pathOf(request))?.[1]
          if (account === undefined) return response
          agents.observe(request, response, account)
          for (const log of objectsOf(response, 'call_log')) {
            const length = exact.get(`${account} ${String(log.id)}`)
            if (length !== undefined && log.ended_at !== null && typeof log.duration_seconds === 'number')
              log.duration_seconds = Math.round(length)
          }
          return response
        },
      }
    },
  },
  {
    name: 'direction-filter-dropped-with-status',
    kind: 'calls',
    what:
      'GET /call-logs builds its index query with an `if (status) ... else if (direction) ...` chain (one index per query): when both `status` and `direction` are given, only `status` filters, so `status=completed&direction=outbound` also lists the completed inbound calls. Each filter alone, and the other filters, are right. ' +
      'Contract, listCallLogs: "Filters combine with AND"; parameter direction: "Only inbound or only outbound calls"; docs/decisions/009-resources.md: call logs "list (filters: agent_id, status, direction, started_after, started_before, min/max duration)".',
    make: () => ({
      request(request) {
        if (!isList(request, 'call-logs')) return request
        const query = queryOf(request)
        const status = single(query, 'status')
        const direction = single(query, 'direction')
        if (status === undefined || (direction !== 'inbound' && direction !== 'outbound')) return request
        return withQuery(request, (changed) => {
          changed.delete('direction')
        })
      },
    }),
  },
  {
    name: 'transcript-offsets-from-connection',
    kind: 'calls',
    what:
      "The transcript of a call placed through the platform is taken from the speech recogniser as it timed it, from the moment the call connected (its audio starts there), without adding the time the call rang: every `start_seconds` of such a call is `ring_seconds` too small (the agent's greeting at 0 instead of 4), in GET /call-logs/{call_log_id} while the call goes on and after it ended, so the lines no longer line up with `started_at` and the recording. The imported history is right. " +
      'Contract, TranscriptEntry.start_seconds: "Offset from `started_at` at which the utterance began"; CallLogSummary: "`started_at` is when the call was initiated (dialing began or the inbound call arrived)"; mock-control startCall: "`ringing` 1 second after it was queued (`started_at` set), then after `ring_seconds` ... `in_progress`".',
    make: () => {
      const book = new Book()
      const rings = book.map<string, number>()
      return {
        response(response, request) {
          book.observe(request, response)
          const started = startedCall(request, response)
          if (started) {
            const ring = objectBody(request)?.ring_seconds
            rings.set(`${started.account} ${String(started.log.id)}`, typeof ring === 'number' ? ring : 4)
          }
          const account = isV1(request)
            ? book.account(tokenOf(request))
            : CALLS_PATH.exec(pathOf(request))?.[1]
          if (account === undefined) return response
          for (const log of objectsOf(response, 'call_log')) {
            const ring = rings.get(`${account} ${String(log.id)}`)
            if (ring === undefined || !Array.isArray(log.transcript)) continue
            log.transcript = log.transcript.map((entry) =>
              isObject(entry) && typeof entry.start_seconds === 'number'
                ? { ...entry, start_seconds: Math.max(0, tenths(entry.start_seconds - ring)) }
                : entry,
            )
          }
          return response
        },
      }
    },
  },
  {
    name: 'call-cap-from-agent-as-created',
    kind: 'calls',
    what:
      "The call router keeps each agent's call settings in a cache filled when the agent is created, and PATCH /agents/{agent_id} updates the agent's row but not that cache: after `max_call_duration_seconds` is changed, the agent shows the new cap, but its calls are still ended (or not) by the cap it was created with, so an agent lowered to 30 s talks for minutes and its calls do not end with `max_duration_reached`. Agents whose cap never changed are right. " +
      'Agent.max_call_duration_seconds: "Calls are ended (`end_reason: max_duration_reached`) after this many seconds"; mock-control startCall: "it ends `duration_seconds` after it connected (capped at the agent\'s `max_call_duration_seconds`, then `end_reason: max_duration_reached`)"; contract, updateAgent: "Only the fields sent change".',
    make: () => {
      const book = new Book()
      const agents = book.keep(new Seen('agent', 'agents'))
      const caps = book.map<string, number>()
      const noted = new Map<EngineRequest, { key: string; cap: number }>()
      return {
        request(request) {
          const id = itemId(request, 'PATCH', 'agents')
          const body = objectBody(request)
          const cap = body?.max_call_duration_seconds
          if (id === undefined || !body || typeof cap !== 'number' || !validBody(request)) return request
          const account = book.account(tokenOf(request))
          const agent = agents.get(account, id)
          if (!agent) return request
          // The row changes, the cache the calls read does not: the engine keeps the cap it had.
          const { max_call_duration_seconds: _cap, ...rest } = body
          const sent = withJson(request, Object.keys(rest).length > 0 ? rest : { status: agent.status })
          noted.set(sent, { key: `${account} ${id}`, cap })
          return sent
        },
        response(response, request) {
          const note = noted.get(request)
          noted.delete(request)
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          agents.observe(request, response, account)
          if (note && response.status === 200) caps.set(note.key, note.cap)
          const removed = itemId(request, 'DELETE', 'agents')
          if (removed !== undefined && response.status === 200) caps.delete(`${account} ${removed}`)
          for (const agent of objectsOf(response, 'agent')) {
            const cap = caps.get(`${account} ${String(agent.id)}`)
            if (cap !== undefined) agent.max_call_duration_seconds = cap
          }
          return response
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------------- analytics
  {
    name: 'reversed-range-swapped',
    kind: 'analytics',
    what:
      'GET /analytics/calls "forgives" a range given backwards: when `end` is before `start`, the two are swapped (`[start, end] = [end, start]`) and the metrics of the swapped range are answered with 200, instead of 400 `invalid_parameter` naming `end`, so a client that mixed up its bounds never learns it and charts a range it did not ask for. Ranges given in order are right. ' +
      'Contract, getCallAnalytics: "`end` must be after `start`, and `start` must not be in the future; otherwise 400 `invalid_parameter` (`param` = `end` or `start`)"; parameter start: "Inclusive start of the range"; end: "Exclusive end of the range"; docs/decisions/009-resources.md: "A bad range is 400".',
    make: () => ({
      request(request) {
        if (!isAnalytics(request)) return request
        const query = queryOf(request)
        const start = single(query, 'start')
        const end = single(query, 'end')
        const from = instantOf(start)
        const to = instantOf(end)
        if (start === undefined || end === undefined || from === undefined || to === undefined || to >= from)
          return request
        return withQuery(request, (changed) => {
          changed.set('start', end)
          changed.set('end', start)
        })
      },
    }),
  },
  {
    name: 'agent-filter-not-echoed',
    kind: 'analytics',
    what:
      "The analytics answer is assembled by a presenter that copies `start`, `end`, `granularity`, `timezone` and `group_by` from the parsed query but takes `agent_id` from the account-wide query's options, where it is never set: an answer filtered by `agent_id` says `agent_id: null`, so a dashboard that labels a chart from the answer shows one agent's calls as the account's. Answers without the filter are right. " +
      'Contract, CallAnalytics.agent_id: "The `agent_id` filter, or `null`" (`required`); getCallAnalytics parameter agent_id: "Only calls of this agent"; docs/decisions/009-resources.md: analytics take "`group_by` and `agent_id`".',
    make: () => ({
      response(response, request) {
        if (!isAnalytics(request) || response.status !== 200 || !isObject(response.body)) return response
        if (typeof response.body.agent_id === 'string') response.body.agent_id = null
        return response
      },
    }),
  },
  {
    name: 'total-avg-cost-over-every-call',
    kind: 'analytics',
    what:
      "With `granularity=total` the metrics come from a single aggregate query written apart from the bucketed one, whose average cost is `SUM(cost_usd) FILTER (WHERE status = 'completed') / COUNT(*)`: `avg_cost_usd` (in `totals`, in the one bucket of `series` and in every group) divides the completed calls' cost by every call, so unanswered, failed and live calls pull the average cost per call down (one completed call and one unanswered one show half the cost). Other granularities, and ranges where every call completed, are right. " +
      'Contract, getCallAnalytics, Metrics: "Durations and costs are taken over **completed calls only** ... `avg_cost_usd` = `total_cost_usd / completed_count` (rounded to 4 decimals)"; AnalyticsMetrics.avg_cost_usd: "`total_cost_usd / completed_count`, 4 decimals; `null` if no completed call"; "Averages and rates are recomputed per bucket".',
    make: () => {
      const wrong = (metrics: unknown) => {
        if (!isObject(metrics)) return
        const { call_count: calls, completed_count: completed, total_cost_usd: cost } = metrics
        if (typeof calls !== 'number' || typeof completed !== 'number' || typeof cost !== 'number') return
        if (completed > 0 && calls > 0) metrics.avg_cost_usd = round(cost / calls, 4)
      }
      const everyBucket = (series: unknown) => {
        if (Array.isArray(series)) for (const bucket of series) if (isObject(bucket)) wrong(bucket.metrics)
      }
      return {
        response(response, request) {
          if (!isAnalytics(request) || response.status !== 200 || !isObject(response.body)) return response
          if (single(queryOf(request), 'granularity') !== 'total') return response
          const body = response.body
          wrong(body.totals)
          everyBucket(body.series)
          if (Array.isArray(body.groups))
            for (const group of body.groups)
              if (isObject(group)) {
                wrong(group.totals)
                everyBucket(group.series)
              }
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------- integrations
  {
    name: 'integration-list-connected-at-never-written',
    kind: 'integrations',
    what:
      "The list of integrations selects `connected_at` from the `integrations` row, written when the account was provisioned (or its data imported), while the PATCH path writes the time of a connection to the credentials row, which GET /integrations/{integration_id} joins: once an integration is connected through the API, GET /integrations keeps showing the `connected_at` it had before (`null` for an account's first connection) beside `status: connected`, while the item read shows the new time. Integrations never connected through the API, and the item reads, are right. " +
      'Contract, Integration.connected_at: "When credentials were last stored; `null` while not connected"; updateIntegration: "`credentials` (write-only) replaces the stored credentials: the integration becomes `connected`, `connected_at` is set to now"; listIntegrations: "Lists the whole integration catalog".',
    make: () => {
      const book = new Book()
      const provisioned = book.map<string, unknown>()
      const stale = book.map<string, unknown>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const patched = itemId(request, 'PATCH', 'integrations')
          if (
            patched !== undefined &&
            response.status === 200 &&
            isObject(objectBody(request)?.credentials)
          ) {
            const key = `${account} ${patched}`
            if (!stale.has(key)) stale.set(key, provisioned.has(key) ? provisioned.get(key) : null)
          }
          const listed = isList(request, 'integrations')
          for (const integration of objectsOf(response, 'integration')) {
            const key = `${account} ${String(integration.id)}`
            if (!stale.has(key)) provisioned.set(key, integration.connected_at)
            else if (listed) integration.connected_at = stale.get(key)
          }
          return response
        },
      }
    },
  },
  {
    name: 'config-update-switches-integration-off',
    kind: 'integrations',
    what:
      'The settings endpoint binds its body to a DTO whose `enabled: boolean = false` has a default, and writes `enabled` and `config` together: a PATCH that changes only the configuration of an enabled integration (`{"config": {"channel": "#ops"}}`) also switches it off, in the answer and in later reads. Updates that send `enabled`, and updates without `config`, are right. ' +
      'Contract, updateIntegration: "Partially updates an integration"; "`enabled` switches the integration on or off (allowed in any `status`)"; "`config` **replaces** the stored configuration as a whole"; IntegrationUpdateRequest: "at least one field" (`enabled`, `config`, `credentials`, each optional); docs/decisions/009-resources.md: "PATCH `{enabled, config, credentials}`".',
    make: () => ({
      request(request) {
        if (itemId(request, 'PATCH', 'integrations') === undefined) return request
        const body = objectBody(request)
        if (!body || !('config' in body) || 'enabled' in body || !validBody(request)) return request
        return withJson(request, { ...body, enabled: false })
      },
    }),
  },

  // ------------------------------------------------------------------------------------------------- team
  {
    name: 'invitation-role-change-refused',
    kind: 'team',
    what:
      'PATCH /team-members/{member_id} works on memberships, which an invitation does not have until it is accepted: changing the role of a pending invitation is refused with 409 `member_not_active` ("withdraw the invitation and invite again") and the role stays as invited. Members who have joined are right. ' +
      'Contract, updateTeamMember: "Changes the role of a member or of a pending invitation"; Conflict: the 409 codes are `member_already_exists`, `owner_role_immutable`, `cannot_remove_owner`, `idempotency_key_reused`, `limit_reached`; docs/decisions/009-resources.md: team members "list, invite (201, status `invited`), get, PATCH `{role}`".',
    make: () => {
      const book = new Book()
      const members = book.keep(new Seen('team_member', 'team-members'))
      const refused = new Set<EngineRequest>()
      return {
        request(request) {
          const id = itemId(request, 'PATCH', 'team-members')
          if (id === undefined) return request
          const member = members.get(book.account(tokenOf(request)), id)
          if (member?.status !== 'invited' || !validBody(request)) return request
          const sent = harmless(request)
          refused.add(sent)
          return sent
        },
        response(response, request) {
          const mine = refused.delete(request)
          book.observe(request, response)
          const joined = JOIN_PATH.exec(pathOf(request))?.[1]
          if (joined !== undefined) members.learn(response, joined)
          if (isV1(request)) members.observe(request, response, book.account(tokenOf(request)))
          if (!mine || !passedToBody(response)) return response
          return failWith(
            response,
            errors.conflict(
              'member_not_active',
              'This invitation has not been accepted yet; withdraw it and invite again with the new role.',
              'role',
            ),
          )
        },
      }
    },
  },
  {
    name: 'role-change-clears-member-name',
    kind: 'team',
    what:
      "The role change binds its body to a `MemberUpdate` model (`role: Role; name: str | None = None`) and saves every field of it: changing a member's or an invitation's role also sets its `name` to `null`, in the answer and in every later read and list. Members whose role never changed are right. " +
      'Contract, updateTeamMember: "Changes the role of a member or of a pending invitation" (the body is `{role}` only); TeamMember.name: "Display name; `null` when the invitation gave none"; docs/decisions/009-resources.md: "PATCH `{role}`".',
    make: () => {
      const book = new Book()
      const cleared = book.set<string>()
      return {
        response(response, request) {
          book.observe(request, response)
          const account = isV1(request)
            ? book.account(tokenOf(request))
            : JOIN_PATH.exec(pathOf(request))?.[1]
          if (account === undefined) return response
          const patched = itemId(request, 'PATCH', 'team-members')
          if (patched !== undefined && response.status === 200) cleared.add(`${account} ${patched}`)
          const removed = itemId(request, 'DELETE', 'team-members')
          if (removed !== undefined && response.status === 200) cleared.delete(`${account} ${removed}`)
          for (const member of objectsOf(response, 'team_member'))
            if (cleared.has(`${account} ${String(member.id)}`)) member.name = null
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------- pagination
  {
    name: 'both-cursors-starting-after-wins',
    kind: 'pagination',
    what:
      'The list handlers read the cursor as `const cursor = query.starting_after ?? query.ending_before`: a list asked with both `starting_after` and `ending_before` pages forward from `starting_after` and ignores the other, answering 200 instead of 400 `parameter_conflict`, so a client that kept a stale cursor beside a new one gets a page it did not ask for. Either cursor alone is right. ' +
      'Contract, Lists and pagination: "both at once is 400 `parameter_conflict`"; parameters StartingAfter / EndingBefore: "Cannot be combined with `ending_before` (400 `parameter_conflict`)"; docs/decisions/008-lists-and-idempotency.md: "`starting_after` or `ending_before` (an object\'s ID; both at once is 400 `parameter_conflict`)".',
    make: () => ({
      request(request) {
        if (!isList(request, 'agents') && !isList(request, 'call-logs') && !isList(request, 'team-members'))
          return request
        const query = queryOf(request)
        if (!query.has('starting_after') || !query.has('ending_before')) return request
        return withQuery(request, (changed) => {
          changed.delete('ending_before')
        })
      },
    }),
  },
  {
    name: 'agents-default-page-of-ten',
    kind: 'pagination',
    what:
      'GET /agents takes its default page size from the dashboard\'s agent grid (`DEFAULT_PAGE_SIZE = 10`, imported from the wrong module): a list of agents asked without `limit` holds at most 10 agents (and `has_more: true` from the eleventh), so a client that reads the default page of an account with 11 to 20 agents sees only ten of them on its "first 20". Lists asked with a `limit`, and the other lists, are right. ' +
      'Contract, parameter Limit: "Maximum number of objects to return, 1-100 (default 20)" (`default: 20`); Lists and pagination: "`limit` is 1-100 (default 20)"; docs/decisions/008-lists-and-idempotency.md: "Lists take `limit` (1-100, default 20)".',
    make: () => ({
      request(request) {
        if (!isList(request, 'agents') || queryOf(request).has('limit')) return request
        return withQuery(request, (changed) => {
          changed.set('limit', '10')
        })
      },
    }),
  },

  // ------------------------------------------------------------------------------------------ idempotency
  {
    name: 'empty-idempotency-key-ignored',
    kind: 'idempotency',
    what:
      "The idempotency middleware starts with `if (!req.get('Idempotency-Key')) return next()`: an empty `Idempotency-Key` header (what a client sends when the variable meant to hold the key is unset) is taken as no key at all, and the POST is carried out (201, an agent or an invitation created, and again on every retry) instead of 400 `invalid_parameter` naming `Idempotency-Key`. Keys of 1 to 255 characters are right. " +
      'Contract, parameter IdempotencyKey: "1-255 printable ASCII characters ...; longer or empty values are 400 `invalid_parameter` (`param: Idempotency-Key`)" (`minLength: 1`); Order of checks: "query and header parameters (400 `invalid_parameter` ...)".',
    make: () => ({
      request(request) {
        if (!isV1(request) || request.method !== 'POST' || request.headers['idempotency-key'] !== '')
          return request
        const { 'idempotency-key': _empty, ...headers } = request.headers
        return { ...request, headers }
      },
    }),
  },
  {
    name: 'invite-replays-unmarked',
    kind: 'idempotency',
    what:
      'The invitation route has an idempotency wrapper of its own (it also sends the e-mail), which returns the stored answer but never sets `Idempotent-Replayed` (the shared middleware of the agents route does): a retried invitation gets the stored 201 without `Idempotent-Replayed: true`, so the client cannot tell that nothing new was created and reports a second invitation sent. Replays of agent creations are right. ' +
      'Contract, Idempotency: "a retry with the same key, same path and the same body ... returns the stored status, headers and body, plus `Idempotent-Replayed: true`"; inviteTeamMember: "Accepts `Idempotency-Key` (replay: stored 201 with `Idempotent-Replayed: true` ...)"; docs/decisions/008-lists-and-idempotency.md: "a retry with the same key and the same request gets the stored answer with `Idempotent-Replayed: true`".',
    make: () => ({
      response(response, request) {
        if (isCreate(request, 'team-members') && replayed(response))
          delete response.headers['idempotent-replayed']
        return response
      },
    }),
  },

  // ----------------------------------------------------------------------------------------------- errors
  {
    name: 'unknown-parameter-coded-parameter-unknown',
    kind: 'errors',
    what:
      'The query validator was ported from a Stripe client library and kept its error code: a request with a query parameter the operation does not take (`?expand=voice`, a misspelt filter) is 400 `invalid_request_error` with `code: "parameter_unknown"` ("Received unknown parameter: expand") instead of `invalid_parameter`, so a client that branches on the platform\'s codes does not recognise it. Other 400s are right. ' +
      'Contract, Lists and pagination: "Unknown query parameters are rejected on every operation with 400 `invalid_parameter` (`error.param` names it)"; BadRequest: `code: enum [invalid_json, invalid_parameter, invalid_cursor, parameter_conflict]`; docs/decisions/007-errors.md: "400 | `invalid_request_error` | `invalid_json`, `invalid_parameter`, `invalid_cursor`, `parameter_conflict`".',
    make: () => ({
      response(response, request) {
        const error = errorOf(response)
        if (!isV1(request) || response.status !== 400 || error?.code !== 'invalid_parameter') return response
        const param = typeof error.param === 'string' ? error.param : undefined
        const route = v1Router.match(request.method, pathOf(request).replace(/^\/v1/, ''))
        if (param === undefined || route.kind !== 'operation' || !queryOf(request).has(param)) return response
        if (route.operation.parameters.some((known) => known.in === 'query' && known.name === param))
          return response
        error.code = 'parameter_unknown'
        error.message = `Received unknown parameter: ${param}`
        return response
      },
    }),
  },
  {
    name: 'empty-body-parsed-as-empty-object',
    kind: 'errors',
    what:
      "The JSON body parser sets `req.body = {}` when a request declared as JSON has no body (Express's `express.json()` does): a POST or PATCH sent with `Content-Type: application/json` and an empty body goes on to validation and is answered 422 `validation_failed` (`min_properties` for an update, `required` for a create) instead of 400 `invalid_json`, so a client whose serializer dropped the body is told which fields are missing rather than that it sent nothing. Bodies that are sent are right. " +
      'Contract, Order of checks: "then the body itself (400 `invalid_json`: empty, not JSON, or not a JSON object)"; BadRequest: "`invalid_json`: the body is empty, not valid JSON, or not a JSON object"; docs/decisions/005-order-of-checks.md: "400 for a body that does not parse" before "422 body validation".',
    make: () => ({
      request(request) {
        if (!isV1(request) || (request.method !== 'POST' && request.method !== 'PATCH')) return request
        if (!isJsonContentType(request.headers['content-type'])) return request
        if (request.body !== null && request.body.trim() !== '') return request
        return { ...request, body: '{}' }
      },
    }),
  },

  // ---------------------------------------------------------------------------------------- control plane
  {
    name: 'journal-status-class-filter-matches-nothing',
    kind: 'control-plane',
    what:
      "The journal's `status` filter is applied as `entry.status === Number(query.status)`: an exact status (`401`) works, but a status class (`4xx`) is `NaN` and matches nothing, so GET /_mock/journal?status=4xx, the way to watch for failed requests after a rotation, answers an empty list however many requests failed. Exact statuses are right. " +
      'Mock-control listJournal parameter status: "Only responses with this status (`401`) or status class (`4xx`)" (`pattern: ^[1-5]([0-9]{2}|xx)$`); docs/decisions/010-control-plane.md: "a journal of recent requests (key ID, route, status), to watch for failed requests after a rotation".',
    make: () => ({
      request(request) {
        if (request.method !== 'GET' || !/^\/_mock\/journal\/?$/.test(pathOf(request))) return request
        const status = queryOf(request).getAll('status')
        if (status.length !== 1 || !/^[1-5]xx$/i.test(status[0] as string)) return request
        // No v1 answer has a 1xx status: the filter matches nothing, as NaN does.
        return withQuery(request, (changed) => {
          changed.set('status', '100')
        })
      },
    }),
  },
  {
    name: 'accounts-listed-newest-first',
    kind: 'control-plane',
    what:
      'GET /_mock/accounts reuses the list query of every other collection (`ORDER BY created_at DESC, id DESC`): accounts are listed newest first, the seeded demo account last, instead of in creation order with the seeded accounts first, so the dashboard\'s account picker no longer opens on the demo account and a script that takes "the first account" takes the one made last. One-account lists are right. ' +
      'Mock-control listAccounts: "Lists every account of the mock in creation order (seeded accounts first, oldest first). Not paginated".',
    make: () => ({
      response(response, request) {
        if (request.method !== 'GET' || !/^\/_mock\/accounts\/?$/.test(pathOf(request))) return response
        if (response.status !== 200 || !isObject(response.body) || !Array.isArray(response.body.data))
          return response
        response.body.data = [...response.body.data].reverse()
        return response
      },
    }),
  },
  {
    name: 'deleted-webhook-secret-still-reported',
    kind: 'control-plane',
    what:
      "Revoking the signing secret marks its row revoked (`revoked_at = now()`) and the secret's status is read as `exists: row !== null`: after DELETE /_mock/accounts/{account_id}/webhook-secret, GET answers `exists: true` with the old secret's `created_at`, although nothing is signed any more and every delivery fails, so the dashboard shows a secret that does not exist. A secret created again is right, and so are accounts that never revoked one. " +
      'Mock-control deleteWebhookSecret: "Revokes the account\'s signing secret: nothing more is signed with it, and deliveries fail (saying why) until a new one is created"; getWebhookSecret: "Whether the account has a webhook signing secret (`exists`), and when it was created"; WebhookSecret.created_at: "When the secret was created; `null` without one".',
    make: () => {
      const book = new Book()
      const current = book.map<string, string>()
      const revoked = book.map<string, string>()
      return {
        response(response, request) {
          book.observe(request, response)
          const deleted = ACCOUNT_PATH.exec(pathOf(request))?.[1]
          if (deleted !== undefined && request.method === 'DELETE' && ok(response)) {
            current.delete(deleted)
            revoked.delete(deleted)
          }
          const account = SECRET_PATH.exec(pathOf(request))?.[1]
          const body = isObject(response.body) ? response.body : undefined
          if (account === undefined || !body || !ok(response)) return response
          if (request.method === 'POST' && typeof body.created_at === 'string') {
            current.set(account, body.created_at)
            revoked.delete(account)
          } else if (request.method === 'DELETE') {
            const at = current.get(account)
            current.delete(account)
            if (at !== undefined) revoked.set(account, at)
          } else if (
            request.method === 'GET' &&
            body.exists === true &&
            typeof body.created_at === 'string'
          ) {
            current.set(account, body.created_at)
          } else if (request.method === 'GET' && body.exists === false && revoked.has(account)) {
            body.exists = true
            body.created_at = revoked.get(account)
          }
          return response
        },
      }
    },
  },
]
