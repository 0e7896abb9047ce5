/**
 * Held-out fault set 14: thirty faults an implementer of the platform's v1 API could plausibly ship, written blind to
 * the contract suite: neither its checks, nor its exploration, nor its tests, nor its documentation were read, and the
 * suite was never run. held-out-3 to held-out-13 were read for their format only, and so as not to repeat their
 * faults (every fault here breaks another rule, on another operation, or in another situation than theirs). The
 * sources were the platform's spec, the product decisions (the repository's own record of them is `docs/decisions/`),
 * the contract (`openapi/v1.yaml`, `openapi/mock-control.yaml`) and the mock engine (the correct implementation every
 * fault wraps). Each fault wraps the correct engine (`faultyHandler`): it rewrites a request before the engine sees it
 * (a field as a faulty create handler or database would store it, a body a faulty merge or a stale cache would write,
 * a value a stricter or looser validator would have refused or let through, a placeholder for what the engine would
 * refuse to store and the faulty platform stores, a harmless read in place of a write it would have refused), or
 * rewrites or replaces the engine's answer, keeping what it needs to remember in the closure `make()` returns
 * (accounts, keys and their scopes seen through the control plane, agents, call logs, integrations and team members
 * as answers showed them, deletions, the clock as the rate-limit headers show it, placeholders handed to the engine).
 *
 * The theme is "the write paths": creates, updates and deletes of every writable resource (agents, team members,
 * integrations, call logs). Defaults applied on create (a `||` default, a field the create path overrides, a default
 * that depends on another field), `null` and empty values (blank strings stored as NULL, `null` reported as missing,
 * empty credentials), validation (the 422's `param`, unknown fields hidden behind other errors, a body that is JSON but
 * not an object, an empty nested update), bounds and types of writable fields (language tags, max_tokens, fractional
 * integers, webhook URL schemes, e-mail addresses), merges (an array field appended to, a nested change answered but
 * not persisted, an update written over a stale copy), timestamps a write leaves (updated_at evaluated once, created_at
 * bumped by an update, connected_at restamped), what a write answers (the row before the change, 204 for a delete),
 * what a delete leaves behind (a soft-deleted agent still patchable, call logs whose agent_id is nulled, a per-agent
 * index that keeps deleted call logs), uniqueness of e-mail addresses, idempotency of invitations, and permissions on
 * member writes. Every fault deviates from the platform's spec, the contract or a decision (cited in `what`), in
 * specific situations only (ordinary traffic, the first reads of every endpoint and a create and a read, is
 * unchanged), and never where the spec leaves a choice open (docs/decisions/011-allowed-forms.md). Liveness:
 * `scripts/fault-sets/held-out-14-live.ts`.
 */
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'
import {
  chars,
  isCreate,
  isObject,
  isV1,
  itemOf,
  type Json,
  jsonOf,
  neutralRead,
  newestFirst,
  objectsOf,
  ok,
  pathOf,
  queryOf,
  tokenOf,
  urlOf,
  withJson,
} from './request-parts.ts'

export interface HeldOutFault {
  name: string
  kind:
    | 'defaults'
    | 'nulls'
    | 'validation'
    | 'bounds'
    | 'merges'
    | 'timestamps'
    | 'answers'
    | 'deletes'
    | 'uniqueness'
    | 'idempotency'
    | 'permissions'
  /** The deviation, with the sentence of the spec, the contract or the decision it breaks. */
  what: string
  make: () => Fault
}

// ------------------------------------------------------------------------------------------------- helpers

/** The ID of `method` on an item of `collection`, or undefined. */
const itemId = (request: EngineRequest, method: string, collection: string) => {
  if (request.method !== method) return undefined
  const item = itemOf(request)
  return item?.collection === collection ? item.id : undefined
}

/** A create or an update of an agent: its JSON body when it is an object. */
function agentWrite(request: EngineRequest): Json | undefined {
  if (!isCreate(request, 'agents') && itemId(request, 'PATCH', 'agents') === undefined) return undefined
  const body = jsonOf(request)
  return isObject(body) ? body : undefined
}

/** The list a read asks for (`agents`, `call-logs`, `team-members`, `integrations`), or undefined. */
function listOf(request: EngineRequest): string | undefined {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined
  return /^\/v1\/(agents|call-logs|team-members|integrations)\/?$/.exec(pathOf(request))?.[1]
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

/** A JSON answer built on the engine's answer (its Request-Id, rate-limit headers). */
const answer = (base: EngineResponse, status: number, body: unknown): EngineResponse => ({
  status,
  headers: { ...ownHeaders(base), 'content-type': 'application/json; charset=utf-8' },
  body,
})

/** An error answer in the platform's envelope, built on the engine's answer. */
function errorAnswer(base: EngineResponse, status: number, error: Json): EngineResponse {
  const requestId = base.headers['request-id']
  return answer(base, status, { error: { ...error, ...(requestId ? { request_id: requestId } : {}) } })
}

/** The 422's field errors, as the answer's own objects. */
function fieldErrorsOf(response: EngineResponse): Json[] | undefined {
  if (response.status !== 422 || !isObject(response.body) || !isObject(response.body.error)) return undefined
  const errors = response.body.error.errors
  return Array.isArray(errors) ? errors.filter(isObject) : undefined
}

/** Writes a 422's `errors`, with `param` (the first entry's) and the message the platform writes for them. */
function setFieldErrors(response: EngineResponse, entries: Json[]): void {
  if (!isObject(response.body) || !isObject(response.body.error)) return
  const error = response.body.error
  error.errors = entries
  error.param = entries[0]?.param
  error.message =
    entries.length === 1
      ? `Invalid request body: ${String(entries[0]?.message)}`
      : `Invalid request body: ${entries.length} errors.`
}

/** The value at a 422 entry's dotted path in a body (`voice.speed`, `webhook_events.1`). */
function valueAt(body: unknown, param: string): unknown {
  let value = body
  for (const segment of param.split('.')) {
    if (Array.isArray(value)) value = value[Number(segment)]
    else if (isObject(value)) value = value[segment]
    else return undefined
  }
  return value
}

/** Whether a Content-Type names JSON, as the platform reads it. */
const isJsonType = (type: string | undefined) =>
  /^application\/(json|[a-z0-9.+-]*\+json)\s*(;|$)/i.test((type ?? '').trim())

// ---------------------------------------------------------------------------------------- the platform clock

interface Window {
  w: number
  r: number
  t: number
}

/** The two windows of an answer's `RateLimit-Policy` and `RateLimit`, or undefined. */
function windowsOf(headers: Record<string, string>): Window[] | undefined {
  const policy = headers['ratelimit-policy']
  const current = headers.ratelimit
  if (!policy || !current) return undefined
  const quotas = [...policy.matchAll(/"(\w+)";q=(\d+);w=(\d+)/g)]
  const states = [...current.matchAll(/"(\w+)";r=(-?\d+);t=(\d+)/g)]
  if (quotas.length !== 2 || states.length !== 2) return undefined
  return quotas.map((quota, i) => ({
    w: Number(quota[3]),
    r: Number(states[i]?.[2]),
    t: Number(states[i]?.[3]),
  }))
}

/**
 * The platform clock of an authenticated answer, as a timestamp: `X-RateLimit-Reset` less the `t` of the window
 * those fields describe (the least remaining, ties to the shorter).
 */
function nowOf(response: EngineResponse): string | undefined {
  const windows = windowsOf(response.headers)
  const reset = Number(response.headers['x-ratelimit-reset'])
  if (!windows || !Number.isFinite(reset)) return undefined
  let tightest = windows[0] as Window
  for (const window of windows)
    if (window.r < tightest.r || (window.r === tightest.r && window.w < tightest.w)) tightest = window
  return new Date((reset - tightest.t) * 1000).toISOString().replace('.000Z', 'Z')
}

// ---------------------------------------------------------------------------------------- what a fault learns

/**
 * What every fault of this set may need to know: the accounts and keys made through the control plane (a key's 201
 * shows its value once, with its account and scopes), the account of any other key (`GET /user` names it), and the
 * state a fault keeps in maps it asks for. `POST /_mock/reset`, which starts the platform again, empties them all.
 */
class Book {
  private readonly keys = new Map<string, { account: string; permissions?: string[] }>()
  /** Accounts made through the control plane: their e-mail address and creation time. */
  readonly accounts = new Map<string, { email: string; created_at: string }>()
  private readonly kept: { clear(): void }[] = [this.keys, this.accounts]

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
      return true
    }
    if (request.method === 'POST' && path === '/_mock/accounts' && response.status === 201 && body)
      this.accounts.set(String(body.id), { email: String(body.email), created_at: String(body.created_at) })
    if (/^\/_mock\/accounts\/[^/]+\/keys$/.test(path) && response.status === 201 && body)
      if (typeof body.value === 'string')
        this.keys.set(body.value, {
          account: String(body.account_id),
          permissions: Array.isArray(body.permissions) ? body.permissions.map(String) : undefined,
        })
    const token = tokenOf(request)
    if (/^\/v1\/user\/?$/.test(path) && response.status === 200 && body && token !== undefined)
      this.keys.set(token, { ...this.keys.get(token), account: String(body.id) })
    return false
  }

  /** The account of a key; a key never seen counts as an account of its own. */
  account(token: string | undefined): string {
    return (token === undefined ? undefined : this.keys.get(token)?.account) ?? `token:${token ?? ''}`
  }

  /** The scopes a key was made with (known for keys made through the control plane). */
  permissions(token: string | undefined): string[] | undefined {
    return token === undefined ? undefined : this.keys.get(token)?.permissions
  }
}

/** Agents as answers showed them, by ID (a publishable key's view adds to what a secret key's showed). */
function learnAgents(agents: Map<string, Json>, response: EngineResponse): void {
  for (const agent of objectsOf(response, 'agent'))
    if (typeof agent.id === 'string')
      agents.set(agent.id, { ...(agents.get(agent.id) ?? {}), ...structuredClone(agent) })
}

// ----------------------------------------------------------------------------------------- agent fields

const AGENT_FIELDS = [
  'name',
  'description',
  'status',
  'language',
  'system_prompt',
  'first_message',
  'first_speaker',
  'voice',
  'llm',
  'max_call_duration_seconds',
  'recording_enabled',
  'webhook_url',
  'webhook_events',
  'metadata',
]
const WEBHOOK_EVENTS = ['call.started', 'call.ended', 'call.analyzed', 'transcript.ready']
const VOICE_PROVIDERS = ['elevenlabs', 'cartesia', 'openai', 'azure', 'deepgram', 'playht']
const LLM_PROVIDERS = ['openai', 'anthropic', 'google', 'groq', 'custom']
const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/
const WEBHOOK_URL = /^https?:\/\/(?:[^/?#@\s]*@)?(?:[^/?#@\s:[\]]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]*)?(?:[/?#]|$)/

const text = (value: unknown, min: number, max: number) =>
  typeof value === 'string' && chars(value) >= min && chars(value) <= max
const between = (value: unknown, min: number, max: number) =>
  typeof value === 'number' && value >= min && value <= max
const wholeBetween = (value: unknown, min: number, max: number) =>
  Number.isInteger(value) && between(value, min, max)

/** Whether a nested update (`voice`, `llm`) is one the contract accepts. */
function validNested(field: 'voice' | 'llm', value: unknown): boolean {
  if (!isObject(value) || Object.keys(value).length === 0) return false
  return Object.entries(value).every(([name, v]) => {
    if (name === 'provider') return (field === 'voice' ? VOICE_PROVIDERS : LLM_PROVIDERS).includes(String(v))
    if (field === 'voice' && name === 'voice_id') return text(v, 1, 100)
    if (field === 'voice' && name === 'speed') return between(v, 0.5, 2)
    if (field === 'llm' && name === 'model') return text(v, 1, 100)
    if (field === 'llm' && name === 'temperature') return between(v, 0, 2)
    if (field === 'llm' && name === 'max_tokens') return wholeBetween(v, 1, 32000)
    return false
  })
}

/** Whether a PATCH body of an agent is one the contract accepts (`AgentUpdateRequest`). */
function validAgentUpdate(body: unknown): body is Json {
  if (!isObject(body) || Object.keys(body).length === 0) return false
  return Object.entries(body).every(([field, value]) => {
    switch (field) {
      case 'name':
        return text(value, 1, 100)
      case 'description':
        return value === null || text(value, 0, 500)
      case 'status':
        return value === 'active' || value === 'inactive'
      case 'language':
        return typeof value === 'string' && LANGUAGE.test(value) && text(value, 2, 35)
      case 'system_prompt':
        return text(value, 0, 20000)
      case 'first_message':
        return value === null || text(value, 0, 1000)
      case 'first_speaker':
        return value === 'agent' || value === 'user'
      case 'voice':
      case 'llm':
        return validNested(field, value)
      case 'max_call_duration_seconds':
        return wholeBetween(value, 30, 7200)
      case 'recording_enabled':
        return typeof value === 'boolean'
      case 'webhook_url':
        return value === null || (text(value, 1, 2048) && WEBHOOK_URL.test(value as string))
      case 'webhook_events':
        return (
          Array.isArray(value) &&
          value.length <= 4 &&
          new Set(value).size === value.length &&
          value.every((event) => WEBHOOK_EVENTS.includes(String(event)))
        )
      case 'metadata':
        return (
          isObject(value) &&
          Object.keys(value).length <= 50 &&
          Object.entries(value).every(([key, v]) => text(key, 1, 40) && text(v, 0, 500))
        )
      default:
        return false
    }
  })
}

/** An agent with an update applied as the contract has it: `voice` and `llm` merged, the rest replaced. */
function applyUpdate(agent: Json, changes: Json): Json {
  const updated = structuredClone(agent)
  for (const [field, value] of Object.entries(changes))
    updated[field] =
      (field === 'voice' || field === 'llm') && isObject(value) && isObject(updated[field])
        ? { ...(updated[field] as Json), ...value }
        : structuredClone(value)
  return updated
}

// ------------------------------------------------------------------------------------- team-member e-mails

/**
 * The team of each account as answers showed it (member ID to e-mail address and status), with its owner from the
 * account's creation; and e-mail placeholders handed to the engine in place of an address it would refuse as taken,
 * shown as the address they stand for in every answer.
 */
function teamBook(book: Book) {
  const teams = book.map<string, Map<string, { email: string; status: string }>>()
  /** Placeholder address to the address it stands for. */
  const standsFor = book.map<string, string>()
  /** Placeholders of retries: (account, Idempotency-Key, address) to placeholder. */
  const retried = book.map<string, string>()
  let counter = 0
  const teamOf = (account: string) => {
    let team = teams.get(account)
    if (!team) {
      team = new Map()
      teams.set(account, team)
    }
    return team
  }
  return {
    /** The members of the token's account that have `email` (lower-cased). */
    holders(token: string | undefined, email: string) {
      return [...teamOf(book.account(token)).values()].filter((member) => member.email === email)
    },
    /** The invitation sent with a placeholder address that stands for `email`. */
    placeholder(request: EngineRequest, body: Json, email: string): EngineRequest {
      const key = request.headers['idempotency-key']
      const slot = key === undefined ? undefined : `${book.account(tokenOf(request))} ${key} ${email}`
      let stand = slot === undefined ? undefined : retried.get(slot)
      if (stand === undefined) {
        counter++
        stand = `h14-member-${counter}@placeholder.invalid`
        standsFor.set(stand, email)
        if (slot !== undefined) retried.set(slot, stand)
      }
      return withJson(request, { ...body, email: stand })
    },
    /** Shows placeholders as the addresses they stand for, and learns the team from the answer. */
    observe(request: EngineRequest, response: EngineResponse): void {
      const path = pathOf(request)
      if (request.method === 'POST' && path === '/_mock/accounts' && response.status === 201) {
        const body = response.body as Json
        teamOf(String(body.id)).set('owner', { email: String(body.email).toLowerCase(), status: 'active' })
        return
      }
      if (!isV1(request)) return
      const team = teamOf(book.account(tokenOf(request)))
      const removed = itemId(request, 'DELETE', 'team-members')
      if (removed !== undefined && response.status === 200) team.delete(removed)
      for (const member of objectsOf(response, 'team_member')) {
        const shown = standsFor.get(String(member.email))
        if (shown !== undefined) member.email = shown
        if (member.role === 'owner') team.delete('owner')
        team.set(String(member.id), { email: String(member.email), status: String(member.status) })
      }
    },
  }
}

// ------------------------------------------------------------------------------------------------- faults

export const faults: HeldOutFault[] = [
  // ------------------------------------------------------------------------------------------- defaults
  {
    name: 'zero-temperature-defaulted-on-create',
    kind: 'defaults',
    what:
      'The create handler fills the defaults of the nested objects by hand with `||` (`temperature: body.llm.temperature || 0.7`): an agent created with `llm.temperature: 0` (deterministic answers, a usual choice for a booking agent) is stored, answered and read back with temperature 0.7; an update to 0 is kept. ' +
      'Contract, AgentCreateRequest: "Omitted fields take their `default`"; LlmInput: "`temperature` defaults to 0.7", `temperature: {type: number, minimum: 0, maximum: 2, default: 0.7}`; createAgent: "every other field takes the `default` documented in `AgentCreateRequest`" (only when it is omitted).',
    make: () => ({
      request(request) {
        if (!isCreate(request, 'agents')) return request
        const body = jsonOf(request)
        if (!isObject(body) || !isObject(body.llm) || body.llm.temperature !== 0) return request
        return withJson(request, { ...body, llm: { ...body.llm, temperature: 0.7 } })
      },
    }),
  },
  {
    name: 'create-overrides-status-to-active',
    kind: 'defaults',
    what:
      'The create handler sets `agent.status = "active"` after validation (new agents start active, the rule of the dashboard\'s "New agent" form, which has no status field): an agent created with `status: "inactive"` (prepared before it may take calls) is stored, answered and read back as active. ' +
      'Contract, AgentCreateRequest: `status: {type: string, enum: [active, inactive], default: active}`, "Omitted fields take their `default`"; Agent: "`status` ... Only `active` agents take calls"; docs/decisions/009-resources.md: "status (active|inactive)".',
    make: () => ({
      request(request) {
        if (!isCreate(request, 'agents')) return request
        const body = jsonOf(request)
        if (!isObject(body) || body.status !== 'inactive') return request
        return withJson(request, { ...body, status: 'active' })
      },
    }),
  },
  {
    name: 'webhook-url-subscribes-every-event',
    kind: 'defaults',
    what:
      'The create handler subscribes an agent that has a webhook URL to every event when it names none ("a webhook without events is a mistake"): an agent created with `webhook_url` and without `webhook_events` gets all four events (`call.started`, `call.ended`, `call.analyzed`, `transcript.ready`) instead of `[]`, and its endpoint is sent events it never asked for. ' +
      'Contract, AgentCreateRequest: `webhook_events: {type: array, ..., default: []}`, "Omitted fields take their `default`"; createAgent: "every other field takes the `default` documented in `AgentCreateRequest`"; docs/decisions/013-calls-and-webhooks.md: "Each event in an agent\'s `webhook_events` is POSTed to its `webhook_url`".',
    make: () => ({
      request(request) {
        if (!isCreate(request, 'agents')) return request
        const body = jsonOf(request)
        if (!isObject(body) || typeof body.webhook_url !== 'string' || 'webhook_events' in body)
          return request
        return withJson(request, { ...body, webhook_events: [...WEBHOOK_EVENTS] })
      },
    }),
  },

  // ---------------------------------------------------------------------------------------------- nulls
  {
    name: 'blank-texts-stored-as-null',
    kind: 'nulls',
    what:
      'The agents table declares `description` and `first_message` with the ORM\'s `empty_to_null` option (meant for the dashboard\'s form, which posts empty inputs as ""): an empty string sent for either, on create or on update, is stored, answered and read back as `null`, so an agent told to open with an empty first message (`""`) is told to let the model open (`null`). ' +
      'Contract, AgentCreateRequest / AgentUpdateRequest: `description: {type: [string, \'null\'], maxLength: 500}`, `first_message: {type: [string, \'null\'], maxLength: 1000}` (an empty string is a value of its own); Agent: "`first_message` ... `null` lets the model open"; updateAgent: "Only the fields sent change ... Nullable fields (`description`, `first_message`, `webhook_url`) are cleared with `null`".',
    make: () => ({
      request(request) {
        const body = agentWrite(request)
        if (!body || (body.description !== '' && body.first_message !== '')) return request
        const changed = { ...body }
        if (changed.description === '') changed.description = null
        if (changed.first_message === '') changed.first_message = null
        return withJson(request, changed)
      },
    }),
  },
  {
    name: 'null-reported-as-missing',
    kind: 'nulls',
    what:
      "The body validator reads fields with `body[field] ?? undefined` before checking them, so a field sent as `null` where `null` is not allowed (`name`, `voice`, `status` on create or update, `voice.voice_id`, an invitation's `email`, a role) is reported in the 422 as missing, code `required`, instead of code `type`. " +
      'Contract, FieldError: "`required` (missing), `type` (wrong JSON type, including `null` where not allowed)"; AgentUpdateRequest: "`null` clears `description`, `first_message` and `webhook_url` (other fields reject `null` with code `type`)".',
    make: () => ({
      response(response, request) {
        const entries = fieldErrorsOf(response)
        const body = jsonOf(request)
        if (!entries || !isV1(request) || !isObject(body)) return response
        /** Fields sent as `null` that the engine refused: each becomes one `required` entry, where its first was. */
        const nulled = new Set(
          entries
            .filter((e) => e.code === 'type' && e.param !== '' && valueAt(body, String(e.param)) === null)
            .map((e) => String(e.param)),
        )
        if (nulled.size === 0) return response
        const rewritten: Json[] = []
        const done = new Set<string>()
        for (const entry of entries) {
          const param = String(entry.param)
          if (!nulled.has(param)) rewritten.push(entry)
          else if (!done.has(param)) {
            done.add(param)
            rewritten.push({ param, code: 'required', message: `'${param}' is required.` })
          }
        }
        setFieldErrors(response, rewritten)
        return response
      },
    }),
  },
  {
    name: 'empty-credentials-disconnect',
    kind: 'nulls',
    what:
      'PATCH /integrations/{integration_id} tests the credentials with `if (!body.credentials || !Object.keys(body.credentials).length) disconnect()`: `credentials: {}` (a form whose secret fields were left empty) is taken for `null`, and the integration is disconnected (status not_connected, credential_hint and connected_at null) with a 200, instead of the 422 min_properties that leaves it connected. ' +
      'Contract, IntegrationUpdateRequest: `credentials: {type: [object, \'null\'], ..., minProperties: 1}`, "`null` removes them and disconnects"; UnprocessableEntity: "422 - the body is a JSON object but breaks the schema"; FieldError: "`min_properties` / `max_properties`".',
    make: () => ({
      request(request) {
        if (itemId(request, 'PATCH', 'integrations') === undefined) return request
        const body = jsonOf(request)
        if (!isObject(body) || !isObject(body.credentials) || Object.keys(body.credentials).length > 0)
          return request
        return withJson(request, { ...body, credentials: null })
      },
    }),
  },

  // ----------------------------------------------------------------------------------------- validation
  {
    name: 'validation-param-from-last-entry',
    kind: 'validation',
    what:
      "The 422 builder sets the error's `param` inside the loop that collects the field errors (`for (const e of errs) { error.param = e.param; ... }`): with two problems or more, `error.param` names the last entry of `errors` instead of the first. " +
      'Contract, UnprocessableEntity: "Every problem is listed in `errors` (order not significant); `param` repeats the first entry\'s `param`"; the table of errors: "422 ... `param` (of the first entry)".',
    make: () => ({
      response(response, request) {
        const entries = fieldErrorsOf(response)
        if (!entries || entries.length < 2 || !isV1(request) || !isObject(response.body)) return response
        const error = response.body.error as Json
        error.param = entries[entries.length - 1]?.param
        return response
      },
    }),
  },
  {
    name: 'unknown-fields-reported-only-when-rest-valid',
    kind: 'validation',
    what:
      "Bodies are validated in two passes: the schema with unknown properties stripped, then a strict pass for unknown fields that runs only when the first pass found nothing: a body with an unknown field (a misspelt `max_call_duration`, `voice.pitch`, an invitation's `team`) and another problem gets a 422 without the `unknown_field` entry, and the client that fixes the listed problems meets a second 422. " +
      'Contract, UnprocessableEntity: "Every problem is listed in `errors` ... Unknown fields are errors with code `unknown_field`"; Order of checks: "**422** body validation (`validation_failed`, every problem listed in `errors`; unknown fields are errors)"; docs/decisions/007-errors.md: "listing every problem of a body in one 422 saves a round trip per mistake".',
    make: () => ({
      response(response, request) {
        const entries = fieldErrorsOf(response)
        if (!entries || !isV1(request)) return response
        const known = entries.filter((entry) => entry.code !== 'unknown_field')
        if (known.length === 0 || known.length === entries.length) return response
        setFieldErrors(response, known)
        return response
      },
    }),
  },
  {
    name: 'non-object-json-body-answers-422',
    kind: 'validation',
    what:
      'Write bodies are parsed with a JSON parser that accepts any JSON text (`strict: false`) and handed to the schema validator: a body that is valid JSON but not an object (`[]`, `[{"name": ...}]`, `"on"`, `42`, `null`) sent to create or update an agent, a team member or an integration gets 422 validation_failed (one error, code `type` on the whole body) instead of 400 invalid_json. ' +
      'Contract, BadRequest: "`invalid_json`: the body is empty, not valid JSON, or not a JSON object"; Order of checks: "then the body itself (400 `invalid_json`: empty, not JSON, or not a JSON object)"; UnprocessableEntity: "422 - the body is a JSON object but breaks the schema"; docs/decisions/005-order-of-checks.md: "400 for a body that does not parse".',
    make: () => {
      const sentAsObject = new Set<EngineRequest>()
      return {
        request(request) {
          const write =
            isCreate(request, 'agents') ||
            isCreate(request, 'team-members') ||
            ['agents', 'team-members', 'integrations'].some(
              (collection) => itemId(request, 'PATCH', collection) !== undefined,
            )
          if (!write || request.body === null || !isJsonType(request.headers['content-type'])) return request
          if (request.body.trim() === '' || request.body.length > 1024 * 1024) return request
          let parsed: unknown
          try {
            parsed = JSON.parse(request.body)
          } catch {
            return request
          }
          if (isObject(parsed)) return request
          const sent = { ...request, body: '{}' }
          sentAsObject.add(sent)
          return sent
        },
        response(response, request) {
          if (!sentAsObject.delete(request) || response.status !== 422) return response
          setFieldErrors(response, [
            { param: '', code: 'type', message: 'The request body must be of type object.' },
          ])
          return response
        },
      }
    },
  },
  {
    name: 'empty-nested-update-accepted',
    kind: 'validation',
    what:
      'The update DTO types `voice` and `llm` as `Partial<Voice>` and `Partial<Llm>` without a minimum of properties: PATCH /agents/{agent_id} with `voice: {}` or `llm: {}` (a form that sends the section even when nothing in it changed) merges nothing and answers 200 with `updated_at` set to now, instead of 422 min_properties. ' +
      'Contract, VoiceUpdate and LlmUpdate: `minProperties: 1`; FieldError: "`min_properties` / `max_properties`"; UnprocessableEntity: "422 - the body is a JSON object but breaks the schema"; updateAgent: "`updated_at` is set to the current time on every successful update".',
    make: () => {
      const book = new Book()
      const agents = book.map<string, Json>()
      return {
        request(request) {
          const id = itemId(request, 'PATCH', 'agents')
          const body = jsonOf(request)
          const agent = id === undefined ? undefined : agents.get(id)
          if (!agent || !isObject(body)) return request
          const changed = { ...body }
          for (const field of ['voice', 'llm'] as const) {
            const value = changed[field]
            const stored = agent[field]
            if (isObject(value) && Object.keys(value).length === 0 && isObject(stored))
              changed[field] = { provider: stored.provider }
          }
          return changed.voice === body.voice && changed.llm === body.llm
            ? request
            : withJson(request, changed)
        },
        response(response, request) {
          book.observe(request, response)
          if (isV1(request)) learnAgents(agents, response)
          return response
        },
      }
    },
  },

  // --------------------------------------------------------------------------------------------- bounds
  {
    name: 'language-tags-limited-to-language-region',
    kind: 'bounds',
    what:
      'The language of an agent is validated with `^[a-z]{2}(-[A-Z]{2})?$` (a tag is taken to be `ll` or `ll-CC`): valid BCP 47 tags with a script subtag (`zh-Hant-TW`, `sr-Latn`), a numeric region (`es-419`), a three-letter language (`yue`, `fil`) or a lower-case region (`pt-br`) are refused with 422 pattern on create and on update. ' +
      'Contract, Language: "BCP 47 language tag, e.g. `en-US`, `es`, `pt-BR`, `zh-Hant-TW`", `pattern: \'^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$\'`, `maxLength: 35`; docs/decisions/009-resources.md: "language (BCP 47)".',
    make: () => {
      const refused = new Set<EngineRequest>()
      const STRICT = /^[a-z]{2}(-[A-Z]{2})?$/
      return {
        request(request) {
          const body = agentWrite(request)
          const language = body?.language
          if (!body || typeof language !== 'string' || STRICT.test(language)) return request
          if (!LANGUAGE.test(language) || !text(language, 2, 35)) return request
          const sent = withJson(request, { ...body, language: 'XX' })
          refused.add(sent)
          return sent
        },
        response(response, request) {
          if (!refused.delete(request)) return response
          const entries = fieldErrorsOf(response)
          if (!entries) return response
          for (const entry of entries)
            if (entry.param === 'language')
              entry.message = `'language' must match pattern "${STRICT.source}".`
          setFieldErrors(response, entries)
          return response
        },
      }
    },
  },
  {
    name: 'max-tokens-capped-at-4096',
    kind: 'bounds',
    what:
      "The language-model settings were validated against the first provider's output limit at the time (`max_tokens <= 4096`): an agent created or updated with `llm.max_tokens` between 4,097 and 32,000 (long answers, a model with a larger limit) is refused with 422 maximum on `llm.max_tokens`, and nothing is created or changed. " +
      'Contract, LlmInput / LlmUpdate / Llm: `max_tokens: {type: integer, minimum: 1, maximum: 32000}`, "Maximum tokens per model response"; docs/decisions/009-resources.md: "llm {provider, model, temperature 0-2, max_tokens}".',
    make: () => {
      const refused = new Set<EngineRequest>()
      return {
        request(request) {
          const body = agentWrite(request)
          if (!body || !isObject(body.llm) || !wholeBetween(body.llm.max_tokens, 4097, 32000)) return request
          const sent = withJson(request, { ...body, llm: { ...body.llm, max_tokens: 32001 } })
          refused.add(sent)
          return sent
        },
        response(response, request) {
          if (!refused.delete(request)) return response
          const entries = fieldErrorsOf(response)
          if (!entries) return response
          for (const entry of entries)
            if (entry.param === 'llm.max_tokens') entry.message = "'llm.max_tokens' must be <= 4096."
          setFieldErrors(response, entries)
          return response
        },
      }
    },
  },
  {
    name: 'fractional-integers-rounded-by-database',
    kind: 'bounds',
    what:
      "The agents DTO types `max_call_duration_seconds` and `llm.max_tokens` as `number` (only their minimum and maximum are checked) and the INTEGER columns take whatever comes, through the database's numeric-to-integer cast, which rounds: `max_call_duration_seconds: 600.5` or `llm.max_tokens: 99.4` is accepted (201 or 200) and stored as 601 and 99 instead of refused with 422 type. " +
      'Contract, AgentCreateRequest / AgentUpdateRequest: `max_call_duration_seconds: {type: integer, minimum: 30, maximum: 7200}`; LlmInput / LlmUpdate: `max_tokens: {type: integer, ...}`; FieldError: "`type` (wrong JSON type ...)".',
    make: () => ({
      request(request) {
        const body = agentWrite(request)
        if (!body) return request
        const changed = { ...body }
        const duration = changed.max_call_duration_seconds
        if (between(duration, 30, 7200) && !Number.isInteger(duration))
          changed.max_call_duration_seconds = Math.round(duration as number)
        if (isObject(changed.llm)) {
          const tokens = changed.llm.max_tokens
          if (between(tokens, 1, 32000) && !Number.isInteger(tokens))
            changed.llm = { ...changed.llm, max_tokens: Math.round(tokens as number) }
        }
        const same =
          changed.max_call_duration_seconds === body.max_call_duration_seconds && changed.llm === body.llm
        return same ? request : withJson(request, changed)
      },
    }),
  },
  {
    name: 'webhook-url-any-scheme-accepted',
    kind: 'bounds',
    what:
      'webhook_url is validated with `new URL(value)` and a check that it has a host: a URL of another scheme (`ftp://files.example.com/hook`, `wss://stream.example.com/events`, `sftp://...`) is accepted on create and on update, stored and answered as sent, and no event can ever be posted to it, instead of 422 pattern. ' +
      'Contract, AgentCreateRequest: `webhook_url: {..., pattern: \'^https?://...\'}`, "Where webhook events are posted, an http or https URL with a host"; Agent: "`webhook_url` ... (an http or https URL with a host)"; docs/decisions/013-calls-and-webhooks.md: "Each event in an agent\'s `webhook_events` is POSTed to its `webhook_url`".',
    make: () => {
      const book = new Book()
      /** Sent URL to its placeholder, and back. */
      const placeholders = book.map<string, string>()
      const standsFor = book.map<string, string>()
      return {
        request(request) {
          const body = agentWrite(request)
          const url = body?.webhook_url
          if (!body || typeof url !== 'string' || WEBHOOK_URL.test(url) || url.length > 2048) return request
          const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/[^/?#@\s:[\]]+/.exec(url)?.[1]?.toLowerCase()
          if (scheme === undefined || scheme === 'http' || scheme === 'https') return request
          let placeholder = placeholders.get(url)
          if (placeholder === undefined) {
            placeholder = `https://h14-url-${placeholders.size + 1}.placeholder.invalid/`
            placeholders.set(url, placeholder)
            standsFor.set(placeholder, url)
          }
          return withJson(request, { ...body, webhook_url: placeholder })
        },
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          for (const agent of objectsOf(response, 'agent')) {
            const url = standsFor.get(String(agent.webhook_url))
            if (url !== undefined) agent.webhook_url = url
          }
          return response
        },
      }
    },
  },
  {
    name: 'plus-addressed-emails-refused',
    kind: 'bounds',
    what:
      'Invitations check the e-mail address with the regular expression `^[\\w.-]+@[\\w-]+(\\.[\\w-]+)+$`, which has no `+`: a valid address with a sub-address (`ops+alerts@example.com`, how many teams route mail to a shared inbox) is refused with 422 format on `email`, and nobody is invited. ' +
      'Contract, TeamMemberInviteRequest: `email: {type: string, format: email, maxLength: 254}` (RFC 5321 allows `+` in the local part); inviteTeamMember: "Invites a person by e-mail. Answers **201** with the new member".',
    make: () => ({
      request(request) {
        if (!isCreate(request, 'team-members')) return request
        const body = jsonOf(request)
        const email = isObject(body) ? body.email : undefined
        if (!isObject(body) || typeof email !== 'string' || email.length > 254) return request
        const at = email.lastIndexOf('@')
        if (at < 1 || !email.slice(0, at).includes('+') || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email))
          return request
        return withJson(request, { ...body, email: 'not-an-address' })
      },
    }),
  },

  // --------------------------------------------------------------------------------------------- merges
  {
    name: 'webhook-events-added-never-removed',
    kind: 'merges',
    what:
      "An agent's webhook events are kept in a join table, and PATCH /agents/{agent_id} writes the events it is sent with `INSERT ... ON CONFLICT DO NOTHING` without deleting the others: an update of `webhook_events` adds the events sent to those stored (old ones first) instead of replacing them, and `webhook_events: []` unsubscribes from nothing. " +
      'Contract, updateAgent: "every other field, including `metadata` and `webhook_events`, **replaces** the stored value as a whole"; AgentUpdateRequest: "all other fields replace the stored value"; example clear_webhook: `webhook_events: []`.',
    make: () => {
      const book = new Book()
      const agents = book.map<string, Json>()
      return {
        request(request) {
          const id = itemId(request, 'PATCH', 'agents')
          const body = jsonOf(request)
          const stored = id === undefined ? undefined : agents.get(id)?.webhook_events
          if (!isObject(body) || !Array.isArray(stored) || !Array.isArray(body.webhook_events)) return request
          const sent = body.webhook_events
          if (new Set(sent).size !== sent.length || !sent.every((e) => WEBHOOK_EVENTS.includes(String(e))))
            return request
          const union = [...stored, ...sent.filter((event) => !stored.includes(event))]
          if (union.length === sent.length) return request
          return withJson(request, { ...body, webhook_events: union })
        },
        response(response, request) {
          book.observe(request, response)
          if (isV1(request)) learnAgents(agents, response)
          return response
        },
      }
    },
  },
  {
    name: 'nested-merge-answered-not-saved',
    kind: 'merges',
    what:
      '`voice` and `llm` are JSON columns, and PATCH /agents/{agent_id} merges the update into the loaded dictionaries in place (`agent.voice.update(body.voice)`), which the ORM does not notice (the columns are not declared mutable): the answer shows the merged voice and model, but they are never written, and every later read (by ID, in the list) shows them as they were, while the other fields of the same update and `updated_at` are saved. ' +
      'Contract, updateAgent: "`voice` and `llm` are **merged** field by field into the stored objects (send only what changes)"; the 200: "The updated agent"; docs/decisions/014-state.md: "nothing acknowledged is ever lost".',
    make: () => {
      const book = new Book()
      /** The voice and model as they were last written, by agent. */
      const saved = book.map<string, { voice: unknown; llm: unknown }>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const patched = itemId(request, 'PATCH', 'agents')
          const sent = jsonOf(request)
          for (const agent of objectsOf(response, 'agent')) {
            const id = String(agent.id)
            const kept = saved.get(id)
            if (!kept) {
              if (patched === undefined)
                saved.set(id, structuredClone({ voice: agent.voice, llm: agent.llm }))
              continue
            }
            for (const field of ['voice', 'llm'] as const) {
              const change = patched === id && isObject(sent) ? sent[field] : undefined
              agent[field] =
                isObject(change) && isObject(kept[field])
                  ? { ...(kept[field] as Json), ...change }
                  : structuredClone(kept[field])
            }
          }
          return response
        },
      }
    },
  },
  {
    name: 'update-written-over-cached-agent',
    kind: 'merges',
    what:
      "PATCH /agents/{agent_id} loads the agent through the service's memoised `getAgent` (filled by the create and by GET /agents/{agent_id}, never refreshed by an update) and writes the whole merged row back: a second update that comes before any read of the agent undoes the first one (the fields it changed return to their values before it), in the answer and in every later read. " +
      'Contract, updateAgent: "Partially updates an agent. Only the fields sent change"; the 200: "The updated agent"; docs/decisions/014-state.md: "nothing acknowledged is ever lost".',
    make: () => {
      const book = new Book()
      /** The agents as the cache holds them: their state after the create or the last GET by ID. */
      const cached = book.map<string, Json>()
      return {
        request(request) {
          const id = itemId(request, 'PATCH', 'agents')
          const body = jsonOf(request)
          const agent = id === undefined ? undefined : cached.get(id)
          if (!agent || !isObject(body) || Object.keys(body).length === 0) return request
          if (['voice', 'llm'].some((f) => isObject(body[f]) && Object.keys(body[f] as Json).length === 0))
            return request
          const row: Json = {}
          for (const field of AGENT_FIELDS) if (field in agent) row[field] = structuredClone(agent[field])
          return withJson(request, applyUpdate(row, body))
        },
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const deleted = itemId(request, 'DELETE', 'agents')
          if (deleted !== undefined && response.status === 200) cached.delete(deleted)
          const read = itemId(request, 'GET', 'agents')
          if ((read !== undefined || isCreate(request, 'agents')) && isObject(response.body))
            learnAgents(cached, response)
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------- timestamps
  {
    name: 'update-timestamp-evaluated-once',
    kind: 'timestamps',
    what:
      'The update schema of agents declares `updated_at: datetime = datetime.now(timezone.utc)` as a class-level default, evaluated once, when the module is first imported (lazily, by the first update the process handles): every later PATCH /agents/{agent_id} stamps the agent with the instant of that first update, in its answer and in every later read, so `updated_at` stops moving and can even precede `created_at`. ' +
      'Contract, updateAgent: "`updated_at` is set to the current time on every successful update, even if no value changed"; Conventions: timestamps are "ISO 8601 / RFC 3339 in UTC".',
    make: () => {
      const book = new Book()
      let first: string | undefined
      /** Agents stamped with the first instant: the updated_at the engine gave them, and the one shown. */
      const stamped = book.map<string, { real: unknown; shown: string }>()
      return {
        response(response, request) {
          if (book.observe(request, response)) first = undefined
          if (!isV1(request)) return response
          const patched = itemId(request, 'PATCH', 'agents')
          for (const agent of objectsOf(response, 'agent')) {
            const id = String(agent.id)
            if (patched === id && response.status === 200 && typeof agent.updated_at === 'string') {
              first ??= agent.updated_at
              stamped.set(id, { real: agent.updated_at, shown: first })
            }
            const stamp = stamped.get(id)
            if (stamp && agent.updated_at === stamp.real) agent.updated_at = stamp.shown
          }
          return response
        },
      }
    },
  },
  {
    name: 'member-created-at-bumped-by-role-change',
    kind: 'timestamps',
    what:
      "The TeamMember model declares `created_at = DateTimeField(auto_now=True)` (meant: `auto_now_add`): changing a member's or an invitation's role rewrites its `created_at` with the time of the change, in the PATCH answer and in every later read, so `created_at` no longer equals `invited_at` and the member moves to the top of the list. " +
      'Contract, inviteTeamMember: "Answers **201** with the new member (`status: invited`, `joined_at: null`, `invited_at` = `created_at` = now)"; updateTeamMember: "Changes the role of a member or of a pending invitation"; listTeamMembers: "newest first (`created_at` descending, then `id` descending); the owner, who created the account, is therefore last".',
    make: () => {
      const book = new Book()
      const bumped = book.map<string, { real: unknown; shown: string }>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const patched = itemId(request, 'PATCH', 'team-members')
          const now = nowOf(response)
          const members = objectsOf(response, 'team_member')
          for (const member of members) {
            const id = String(member.id)
            if (patched === id && response.status === 200 && now !== undefined)
              bumped.set(id, { real: bumped.get(id)?.real ?? member.created_at, shown: now })
            const bump = bumped.get(id)
            if (bump && member.created_at === bump.real) member.created_at = bump.shown
          }
          if (
            listOf(request) === 'team-members' &&
            isObject(response.body) &&
            Array.isArray(response.body.data)
          )
            response.body.data = [...members].sort(newestFirst)
          return response
        },
      }
    },
  },
  {
    name: 'config-change-restamps-connected-at',
    kind: 'timestamps',
    what:
      "PATCH /integrations/{integration_id} runs the provider's connection handshake again whenever a connected integration's settings change, and stamps `connected_at` when it succeeds: a change of `config` alone on a connected integration (a new Slack channel, a new Twilio number) moves `connected_at` to the time of the change, in the answer and in later reads, although no credentials were stored. " +
      'Contract, Integration: "`connected_at`: When credentials were last stored; `null` while not connected"; updateIntegration: "`config` **replaces** the stored configuration as a whole ... `credentials` ... the integration becomes `connected`, `connected_at` is set to now".',
    make: () => {
      const book = new Book()
      const restamped = book.map<string, { real: unknown; shown: unknown }>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const patched = itemId(request, 'PATCH', 'integrations')
          const sent = jsonOf(request)
          for (const integration of objectsOf(response, 'integration')) {
            const key = `${account} ${String(integration.id)}`
            const configOnly = isObject(sent) && 'config' in sent && !('credentials' in sent)
            if (
              patched === integration.id &&
              response.status === 200 &&
              configOnly &&
              integration.status !== 'not_connected' &&
              integration.connected_at !== null
            )
              restamped.set(key, {
                real: restamped.get(key)?.real ?? integration.connected_at,
                shown: integration.updated_at,
              })
            const stamp = restamped.get(key)
            if (stamp && integration.connected_at === stamp.real) integration.connected_at = stamp.shown
            else if (stamp) restamped.delete(key)
          }
          return response
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------------- answers
  {
    name: 'integration-update-answers-loaded-row',
    kind: 'answers',
    what:
      'PATCH /integrations/{integration_id} writes the change with `repository.update(id, changes)`, which does not touch the entity it loaded, and answers that entity: the 200 shows the integration as it was before the update (the old `enabled`, `config`, `status`, `credential_hint`, `connected_at` and `updated_at`), while later reads show the change. ' +
      'Contract, updateIntegration: the 200 is "The updated integration (never with credentials)", with the examples connect_slack ("After the connect_slack request") and disconnect ("After the disconnect request"); docs/decisions/009-resources.md: "PATCH `{enabled, config, credentials}`".',
    make: () => {
      const book = new Book()
      const known = book.map<string, Json>()
      const NAMES: Record<string, string> = {
        twilio: 'Twilio',
        salesforce: 'Salesforce',
        hubspot: 'HubSpot',
        google_calendar: 'Google Calendar',
        slack: 'Slack',
        zapier: 'Zapier',
        webhook: 'Webhook',
      }
      return {
        response(response, request) {
          book.observe(request, response)
          if (request.method === 'POST' && pathOf(request) === '/_mock/accounts' && response.status === 201) {
            const account = response.body as Json
            for (const [id, name] of Object.entries(NAMES))
              known.set(`${String(account.id)} ${id}`, {
                id,
                object: 'integration',
                name,
                enabled: false,
                status: 'not_connected',
                config: {},
                credential_hint: null,
                connected_at: null,
                updated_at: account.created_at,
              })
          }
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const patched = itemId(request, 'PATCH', 'integrations')
          for (const integration of objectsOf(response, 'integration')) {
            const key = `${account} ${String(integration.id)}`
            const before = known.get(key)
            known.set(key, structuredClone(integration))
            if (patched === integration.id && response.status === 200 && before)
              response.body = structuredClone(before)
          }
          return response
        },
      }
    },
  },
  {
    name: 'call-log-delete-answers-204',
    kind: 'answers',
    what:
      'The call-log controller follows the REST habit for deletions: DELETE /call-logs/{call_log_id} answers 204 No Content without a body, instead of 200 with `{id, object: "call_log", deleted: true}` (the call log is deleted). ' +
      'Contract, deleteCallLog: "Permanently deletes a call log ... and answers `{id, object: "call_log", deleted: true}`", response `200` with schema DeletedObject ("Answer of every DELETE"); docs/decisions/009-resources.md: "DELETE (answers `{id, object, deleted: true}`)".',
    make: () => ({
      response(response, request) {
        if (itemId(request, 'DELETE', 'call-logs') === undefined || response.status !== 200) return response
        const headers = { ...response.headers }
        delete headers['content-type']
        return { status: 204, headers, body: undefined }
      },
    }),
  },

  // -------------------------------------------------------------------------------------------- deletes
  {
    name: 'deleted-agent-still-patchable',
    kind: 'deletes',
    what:
      'Agents are soft-deleted (a `deleted_at` column); GET, the list and DELETE leave deleted rows out, but the update path loads the agent with the unscoped finder: PATCH /agents/{agent_id} of a deleted agent answers 200 with the agent changed (and `updated_at` set) instead of 404, while the agent stays gone from reads, so a client that retries an update after a deletion believes it applied. ' +
      'Contract, getAgent: "An unknown ID, an ID of another account, or an ID of a deleted agent gives 404 `resource_not_found`"; deleteAgent: "Permanently deletes an agent ... Deleting it again gives 404"; Order of checks: "**404** resource: the path ID does not exist in the key\'s account (`resource_not_found`)".',
    make: () => {
      const book = new Book()
      const agents = book.map<string, Json>()
      const deleted = book.set<string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          learnAgents(agents, response)
          const removed = itemId(request, 'DELETE', 'agents')
          if (removed !== undefined && response.status === 200) deleted.add(removed)
          const id = itemId(request, 'PATCH', 'agents')
          const agent = id === undefined ? undefined : agents.get(id)
          const body = jsonOf(request)
          if (id === undefined || !agent || !deleted.has(id) || response.status !== 404) return response
          const now = nowOf(response)
          if (!validAgentUpdate(body) || now === undefined || typeof agent.system_prompt !== 'string')
            return response
          const updated = { ...applyUpdate(agent, body), updated_at: now }
          agents.set(id, updated)
          return answer(response, 200, structuredClone(updated))
        },
      }
    },
  },
  {
    name: 'agent-deletion-nulls-call-agent-id',
    kind: 'deletes',
    what:
      'call_logs.agent_id references agents with `ON DELETE SET NULL`: once an agent is deleted, its call logs (which are kept) show `agent_id: null`, in the list and by ID, and `GET /call-logs?agent_id=<the deleted agent>` lists none of them. ' +
      'Contract, deleteAgent: "The agent\'s call logs are **kept** (they keep its `agent_id` and still appear in lists and analytics)"; CallLogSummary: "`agent_id`: The agent that handled the call (the agent may since have been deleted)", `type: string`, required; listCallLogs: "`agent_id` matches call logs of deleted agents too".',
    make: () => {
      const book = new Book()
      const deleted = book.set<string>()
      return {
        request(request) {
          const agent = queryOf(request).get('agent_id')
          if (request.method !== 'GET' || agent === null || !/^\/v1\/call-logs\/?$/.test(pathOf(request)))
            return request
          if (!deleted.has(agent) || queryOf(request).getAll('agent_id').length !== 1) return request
          const url = urlOf(request)
          url.searchParams.set('agent_id', 'agt_H14deletedAgentNulled')
          return { ...request, url: `${url.pathname}?${url.searchParams.toString()}` }
        },
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const removed = itemId(request, 'DELETE', 'agents')
          if (removed !== undefined && response.status === 200) deleted.add(removed)
          for (const log of objectsOf(response, 'call_log'))
            if (typeof log.agent_id === 'string' && deleted.has(log.agent_id)) log.agent_id = null
          return response
        },
      }
    },
  },
  {
    name: 'deleted-call-log-kept-in-agent-index',
    kind: 'deletes',
    what:
      'The per-agent list of call logs is served from a denormalised table (`agent_call_logs`) that a trigger fills on insert and update, with no trigger on delete: a deleted call log is gone by ID and from the unfiltered list, but `GET /call-logs?agent_id=...` keeps listing it, as it was when last written. ' +
      'Contract, deleteCallLog: "Permanently deletes a call log (with its transcript, analysis and recording reference)"; listCallLogs: "Filters combine with AND" (the filtered list is the unfiltered one narrowed); docs/decisions/008-lists-and-idempotency.md: "Cursor pagination on object IDs stays correct while objects are created and deleted".',
    make: () => {
      const book = new Book()
      /** Call logs as last seen (without their transcript), with their account. */
      const logs = book.map<string, { account: string; log: Json }>()
      const ghosts = book.map<string, { account: string; log: Json }>()
      const remember = (account: string, log: Json) => {
        const { transcript: _, ...summary } = structuredClone(log)
        logs.set(String(log.id), { account, log: summary })
      }
      return {
        response(response, request) {
          book.observe(request, response)
          const started = /^\/_mock\/accounts\/([^/]+)\/calls$/.exec(pathOf(request))
          if (started && request.method === 'POST' && response.status === 201 && isObject(response.body))
            remember(started[1] as string, response.body)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const removed = itemId(request, 'DELETE', 'call-logs')
          const gone = removed === undefined ? undefined : logs.get(removed)
          if (removed !== undefined && response.status === 200 && gone?.account === account)
            ghosts.set(removed, gone)
          for (const log of objectsOf(response, 'call_log')) remember(account, log)
          const query = queryOf(request)
          const agent = query.get('agent_id')
          const others = [...query.keys()].filter((name) => name !== 'agent_id' && name !== 'limit')
          if (
            listOf(request) !== 'call-logs' ||
            agent === null ||
            others.length > 0 ||
            response.status !== 200
          )
            return response
          const body = response.body as Json
          const extra = [...ghosts.values()]
            .filter((ghost) => ghost.account === account && ghost.log.agent_id === agent)
            .map((ghost) => structuredClone(ghost.log))
          if (extra.length === 0 || !Array.isArray(body.data)) return response
          const limit = Number(query.get('limit') ?? 20)
          const all = [...(body.data as Json[]), ...extra].sort(newestFirst)
          body.data = all.slice(0, limit)
          body.has_more = body.has_more === true || all.length > limit
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------- uniqueness
  {
    name: 'capitalised-duplicate-invite-accepted',
    kind: 'uniqueness',
    what:
      'POST /team-members looks for an existing member with the address as sent (`WHERE email = :email`) and lower-cases it only when it stores it: an address already on the team sent with capitals (`Lee@Example.com` after `lee@example.com`) passes the check and creates a second member with the same lower-cased address, instead of 409 member_already_exists. ' +
      'Contract, inviteTeamMember: "The e-mail address is stored lower-cased; if any member or pending invitation of the account already has it (case-insensitive), the answer is 409 `member_already_exists` (`param: email`)"; TeamMember: "E-mail addresses are unique per account (case-insensitive)".',
    make: () => {
      const book = new Book()
      const team = teamBook(book)
      return {
        request(request) {
          if (!isCreate(request, 'team-members')) return request
          const body = jsonOf(request)
          const email = isObject(body) ? body.email : undefined
          if (!isObject(body) || typeof email !== 'string' || email === email.toLowerCase()) return request
          if (team.holders(tokenOf(request), email.toLowerCase()).length === 0) return request
          return team.placeholder(request, body, email.toLowerCase())
        },
        response(response, request) {
          book.observe(request, response)
          team.observe(request, response)
          return response
        },
      }
    },
  },
  {
    name: 'active-member-email-reinvitable',
    kind: 'uniqueness',
    what:
      "Invitations and memberships live in two tables and POST /team-members checks the address against pending invitations only: inviting the address of an active member (the owner's, or that of anyone who joined) creates a new invitation for a person already on the team, instead of 409 member_already_exists. " +
      'Contract, inviteTeamMember: "if any member or pending invitation of the account already has it (case-insensitive), the answer is 409 `member_already_exists` (`param: email`)"; TeamMember: "Exactly one member is the `owner` ... E-mail addresses are unique per account".',
    make: () => {
      const book = new Book()
      const team = teamBook(book)
      return {
        request(request) {
          if (!isCreate(request, 'team-members')) return request
          const body = jsonOf(request)
          const email = isObject(body) ? body.email : undefined
          if (!isObject(body) || typeof email !== 'string') return request
          const holders = team.holders(tokenOf(request), email.toLowerCase())
          if (!holders.some((m) => m.status === 'active') || holders.some((m) => m.status === 'invited'))
            return request
          return team.placeholder(request, body, email.toLowerCase())
        },
        response(response, request) {
          book.observe(request, response)
          team.observe(request, response)
          return response
        },
      }
    },
  },

  // ---------------------------------------------------------------------------------------- idempotency
  {
    name: 'invitations-ignore-idempotency-key',
    kind: 'idempotency',
    what:
      'The idempotency middleware is mounted on the agents router only: POST /team-members ignores `Idempotency-Key`, so a retried invitation (same key, same body, after a lost answer) gets 409 member_already_exists instead of the stored 201 with `Idempotent-Replayed: true`, and the same key with another body invites someone else instead of 409 idempotency_key_reused. ' +
      'Contract, inviteTeamMember: "Accepts `Idempotency-Key` (replay: stored 201 with `Idempotent-Replayed: true`; other body: 409 `idempotency_key_reused`)"; Idempotency: "`POST` operations accept an `Idempotency-Key` header"; docs/decisions/008-lists-and-idempotency.md: "A POST accepts `Idempotency-Key`".',
    make: () => ({
      request(request) {
        if (!isCreate(request, 'team-members') || request.headers['idempotency-key'] === undefined)
          return request
        const headers = { ...request.headers }
        delete headers['idempotency-key']
        return { ...request, headers }
      },
    }),
  },

  // ---------------------------------------------------------------------------------------- permissions
  {
    name: 'member-item-routes-guarded-as-delete',
    kind: 'permissions',
    what:
      'The guard of DELETE /team-members/{member_id} (resources:delete and team_members:write) is mounted on the item path for every method (`router.use("/team-members/:id", guard(...))`): a key with team_members:write but without resources:delete (a team-admin key) gets 403 insufficient_permissions naming resources:delete when it reads a member by ID or changes a role, although it may list and invite members. ' +
      'Contract, getTeamMember: "Needs `team_members:write`", `x-required-permission: [\'team_members:write\']`; updateTeamMember: "Needs `team_members:write`"; docs/decisions/004-permissions.md: "Every DELETE needs `resources:delete`; removing a team member also needs `team_members:write`".',
    make: () => {
      const book = new Book()
      const refused = new Set<EngineRequest>()
      return {
        request(request) {
          const id = itemId(request, 'GET', 'team-members') ?? itemId(request, 'PATCH', 'team-members')
          const scopes = book.permissions(tokenOf(request))
          if (id === undefined || !scopes || scopes.includes('resources:delete')) return request
          const read = neutralRead(request, '/v1/team-members?limit=1')
          refused.add(read)
          return read
        },
        response(response, request) {
          book.observe(request, response)
          if (!refused.delete(request) || response.status === 401 || response.status === 429) return response
          return errorAnswer(response, 403, {
            type: 'permission_error',
            code: 'insufficient_permissions',
            message: "This API key lacks the permission 'resources:delete' required for this request.",
            required_permission: 'resources:delete',
          })
        },
      }
    },
  },
]
