/**
 * Held-out fault set 19: thirty faults an implementer of the platform's v1 API could plausibly ship, written blind to
 * the contract suite: neither its checks, nor its exploration, nor its tests, nor its documentation were read, and the
 * suite was never run. held-out-3 to held-out-18 were read for their format only, and so as not to repeat their
 * faults (every fault here breaks another rule, on another operation, or in another situation than theirs). The
 * sources were the platform's spec, the product decisions (the repository's own record of them is `docs/decisions/`),
 * the contract (`openapi/v1.yaml`, `openapi/mock-control.yaml`) and the mock engine (the correct implementation every
 * fault wraps).
 *
 * The theme is "lifecycles: objects made, changed, removed and made again". Every single operation on a fresh object
 * is right: a first create, read, update, delete and list. What goes wrong is what an object's life and an account's
 * history leave behind: values used again after a removal (an e-mail invited again, a metadata key set again, an
 * agent's name given again, an `Idempotency-Key` used again after its 24 hours); indexes, counters, caches and limits
 * that a removal or an update does not reach (pages whose deleted rows still take places, or come back when paging
 * toward newer objects, a deleted cursor resolved to its neighbour, a per-account agent count that never goes down,
 * analytics groups kept for agents whose calls were deleted, a search index of call logs written once); fields that
 * should move on every update and do not (`updated_at` of a metadata-only change), or that should never move and do
 * (`created_at` of an agent switched on again, of a user whose plan changed; `invited_at` of an invitation sent
 * again); the hundredth change of an agent; an integration connected, disconnected, switched off and connected
 * again; keys revoked while others live on, an account deleted with its keys; plans and quotas changed mid-life; and
 * calls whose agent was changed or deleted afterwards.
 *
 * Each fault wraps the correct engine (`faultyHandler`): it rewrites a request before the engine sees it, answers in
 * the engine's place (the engine is then sent a stand-in: the same request made harmless, which passes the same
 * authentication, rate-limit, route and permission checks and is counted alike, or a CORS preflight, which is not
 * counted, where the faulty platform's answer is one that is not counted either), or rewrites the engine's answer,
 * keeping what it needs in the closure `make()` returns (keys and accounts seen through the control plane, objects as
 * answers showed them, simulated calls started there, the platform clock as the answers show it). Two faults keep an
 * account's rate-limit windows themselves (the engine then runs that account on quotas too large to matter, and the
 * fault answers with the quotas, windows and 429s of the faulty platform). Every fault deviates from the platform's
 * spec, the contract or a decision (cited in `what`), in specific situations only (ordinary traffic, the first reads
 * of every endpoint and a create and a read, is unchanged), and never where the spec leaves a choice open
 * (docs/decisions/011-allowed-forms.md). Liveness: `scripts/fault-sets/held-out-19-live.ts`.
 */
import { errors } from '../../mocks/engine/api-error.ts'
import { redactKey } from '../../mocks/engine/secrets.ts'
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import type { Fault } from '../reliability/support/faulty-handler.ts'
import { KeptBook, Seen } from './fault-books.ts'
import {
  canonical,
  controlAccounts,
  emptyMetrics,
  errorAnswer,
  errorOf,
  failWith,
  harmless,
  isAnalytics,
  isCreate,
  isList,
  isObject,
  isRead,
  isV1,
  itemId,
  type Json,
  jsonOf,
  nowOf,
  objectBody,
  objectsOf,
  ok,
  oversized,
  ownHeaders,
  passedToBody,
  passedToSize,
  pathOf,
  preflightInstead,
  queryOf,
  replayed,
  secondOf,
  sortKey,
  spliceIntoPage,
  startedCall,
  timestampOf,
  tokenOf,
  validBody,
  type Window,
  windowHeaders,
  withJson,
  withQuery,
} from './request-parts.ts'

export interface HeldOutFault {
  name: string
  kind:
    | 'updates'
    | 'reuse'
    | 'removals'
    | 'pagination'
    | 'counters'
    | 'connections'
    | 'revocation'
    | 'plans'
    | 'relations'
  /** The deviation, with the sentence of the spec, the contract or the decision it breaks. */
  what: string
  make: () => Fault
}

// ------------------------------------------------------------------------------------------------- helpers

const DAY = 86_400

/** The 401 of a revoked key, worded as the platform words it. */
const revokedKey = (token: string) =>
  errors.unauthenticated(
    `This API key${token.length >= 24 && /^[a-z]{2}-svc-/.test(token) ? ` (${redactKey(token)})` : ''} has been revoked. Create a new key in the dashboard.`,
  )

// ---------------------------------------------------------------------------------------- what a fault learns

/**
 * What every fault of this set may need to know: the account of each key (a key's 201 in the control plane names
 * it, `GET /user` tells it for any other key), the records of the keys made through the control plane, the keys that
 * no longer authenticate, the accounts made through the control plane since the platform started (whose objects a
 * fault has seen from their first one), and the platform clock as the answers show it. `POST /_mock/reset`, which
 * starts the platform again, empties them all and every map a fault asked for.
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

  /** The platform clock in whole seconds, as the answers last told it (undefined until one did). */
  get now(): number | undefined {
    return this.seen
  }

  /** Notes the platform clock an answer told (nothing when it told none). */
  private tell(second: number | undefined): void {
    if (second === undefined) return
    this.seen = second
    this.seenAt = Date.now()
  }

  /**
   * The platform clock at this moment, in whole seconds: the second an answer last told, moved on by the wall-clock
   * time since (a platform clock that follows real time moves with it; a frozen one only moves when told).
   */
  clock(): number | undefined {
    return this.seen === undefined ? undefined : this.seen + Math.floor((Date.now() - this.seenAt) / 1000)
  }

  /** Learns from an answer; whether it was a reset. */
  observe(request: EngineRequest, response: EngineResponse): boolean {
    const path = pathOf(request)
    const body = isObject(response.body) ? response.body : undefined
    if (path === '/_mock/reset' && ok(response)) {
      this.empty()
      this.seen = undefined
      return true
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
    if (!path.startsWith('/v1/') || token === undefined) return false
    if (response.status === 401) this.dead.add(token)
    if (/^\/v1\/user\/?$/.test(path) && response.status === 200 && body && typeof body.id === 'string')
      this.keys.set(token, body.id)
    return false
  }

  /** The account of a key; a key never seen counts as an account of its own. */
  account(token: string | undefined): string {
    return (token === undefined ? undefined : this.keys.get(token)) ?? `token:${token ?? ''}`
  }

  /** Whether a key is known to authenticate: made through the control plane, or answered, and not refused since. */
  valid(token: string | undefined): token is string {
    if (token === undefined || !this.keys.has(token) || this.dead.has(token)) return false
    const expiry = secondOf(this.expiryOf(token))
    return expiry === undefined || this.now === undefined || expiry > this.now
  }

  /** Whether a key was revoked, or its account deleted, or it was refused with 401. */
  isDead(token: string | undefined): boolean {
    return token !== undefined && this.dead.has(token)
  }

  /** The record of a key made through the control plane (undefined for any other key). */
  recordOf(token: string | undefined): Json | undefined {
    return token === undefined ? undefined : this.records.get(token)
  }

  /** The value of a key made through the control plane, by its ID. */
  tokenOfKey(id: string): string | undefined {
    return this.tokens.get(id)
  }

  /** Whether an account was made through the control plane since the platform started (its objects all seen). */
  isFresh(account: string): boolean {
    return this.fresh.has(account)
  }

  private expiryOf(token: string): string | undefined {
    const record = this.records.get(token)
    const restrictions = isObject(record?.restrictions) ? record.restrictions : undefined
    return typeof restrictions?.expires_at === 'string' ? restrictions.expires_at : undefined
  }
}

/** A call started through the control plane: its account, agent and plan (platform seconds). */
interface LiveCall {
  id: string
  account: string
  agent: string
  outcome: string
  created: number
  ring: number
}

/**
 * The calls started through the control plane (`startCall`): the platform's live calls, as opposed to the seeded
 * history. A call rings 1 s after it was queued and, `ring_seconds` (default 4) later, connects (outcome
 * `completed`) or reaches its final status (the other outcomes).
 */
class LiveCalls {
  private readonly calls = new Map<string, LiveCall>()

  get(id: unknown): LiveCall | undefined {
    return typeof id === 'string' ? this.calls.get(id) : undefined
  }

  of(account: string): LiveCall[] {
    return [...this.calls.values()].filter((call) => call.account === account)
  }

  clear(): void {
    this.calls.clear()
  }

  observe(request: EngineRequest, response: EngineResponse): void {
    const started = startedCall(request, response)
    if (started && typeof started.log.id === 'string') {
      const input = jsonOf(request)
      const plan = isObject(input) ? input : {}
      this.calls.set(started.log.id, {
        id: started.log.id,
        account: started.account,
        agent: String(started.log.agent_id),
        outcome: typeof plan.outcome === 'string' ? plan.outcome : 'completed',
        created: secondOf(started.log.created_at) ?? 0,
        ring: typeof plan.ring_seconds === 'number' ? plan.ring_seconds : 4,
      })
    }
    const removed = itemId(request, 'DELETE', 'call-logs')
    if (removed !== undefined && response.status === 200) this.calls.delete(removed)
  }
}

/** The account a control-plane `PATCH /_mock/accounts/{account_id}` names, or undefined. */
function patchedAccount(request: EngineRequest): string | undefined {
  if (request.method !== 'PATCH') return undefined
  return /^\/_mock\/accounts\/([^/]+)\/?$/.exec(pathOf(request))?.[1]
}

/**
 * POSTs answered with a stored (2xx) answer for their `Idempotency-Key`, as the engine keeps them (per account, for
 * 24 hours, with the operation and body they were made with): whether a POST would be replayed.
 */
class StoredKeys {
  private readonly stored = new Map<string, { fingerprint: string; at: number }>()

  private static fingerprint(request: EngineRequest): string {
    return `${pathOf(request).replace(/\/$/, '')} ${canonical(jsonOf(request))}`
  }

  clear(): void {
    this.stored.clear()
  }

  observe(request: EngineRequest, response: EngineResponse, account: string, now: number | undefined): void {
    const key = request.headers['idempotency-key']
    if (!isV1(request) || request.method !== 'POST' || key === undefined || !ok(response)) return
    if (replayed(response) || now === undefined) return
    this.stored.set(`${account} ${key}`, { fingerprint: StoredKeys.fingerprint(request), at: now })
  }

  replays(request: EngineRequest, account: string, now: number | undefined): boolean {
    const key = request.headers['idempotency-key']
    if (key === undefined) return false
    const stored = this.stored.get(`${account} ${key}`)
    if (!stored || now === undefined || stored.at + DAY <= now) return false
    return stored.fingerprint === StoredKeys.fingerprint(request)
  }
}

/** The `limit` a list request asks for, when it is one the contract accepts (absent: the default, 20). */
function limitOf(request: EngineRequest): number | undefined {
  const sent = queryOf(request).getAll('limit')
  if (sent.length === 0) return 20
  if (sent.length > 1 || !/^[1-9][0-9]*$/.test(sent[0] as string)) return undefined
  const limit = Number(sent[0])
  return limit <= 100 ? limit : undefined
}

const SENSITIVE = ['system_prompt', 'webhook_url', 'metadata'] as const

/** An agent as a key of that type sees it. */
function presented(agent: Json, token: string | undefined): Json {
  const shown = structuredClone(agent)
  if (token?.startsWith('pk-svc-')) for (const field of SENSITIVE) delete shown[field]
  return shown
}

// ----------------------------------------------------------------------------------- windows kept by a fault

interface Quotas {
  hourly: number
  burst: number
}

/** What the faulty platform's control plane says of an account's quotas. */
interface QuotaView {
  plan: string
  limits: Quotas
  custom: boolean
}

const PLAN_QUOTAS: Record<string, Quotas> = {
  free: { hourly: 100, burst: 10 },
  pro: { hourly: 1000, burst: 50 },
  enterprise: { hourly: 10_000, burst: 500 },
}

/** The quotas the engine is given for an account whose windows a fault keeps: too large to be reached. */
const OUT_OF_REACH: Quotas = { hourly: 100_000_000, burst: 100_000_000 }

/**
 * Rate-limit windows a fault keeps for some accounts in the engine's place (the engine runs those accounts on
 * out-of-reach quotas): the faulty platform's quotas of each such account, and the admitted requests it still
 * counts (whole seconds, and the key that made each), from which it writes every rate-limit field and decides its
 * 429s exactly as the engine does from its own windows.
 */
class KeptWindows {
  private readonly views = new Map<string, QuotaView>()
  private readonly ledger = new Map<string, { second: number; token: string }[]>()

  clear(): void {
    this.views.clear()
    this.ledger.clear()
  }

  view(account: string): QuotaView | undefined {
    return this.views.get(account)
  }

  keep(account: string, view: QuotaView): void {
    this.views.set(account, view)
    if (!this.ledger.has(account)) this.ledger.set(account, [])
  }

  forget(account: string): void {
    this.views.delete(account)
    this.ledger.delete(account)
  }

  /** Forgets what the account's windows counted. */
  empty(account: string): void {
    this.ledger.set(account, [])
  }

  /** Forgets what one key of the account made. */
  dropKey(account: string, token: string): void {
    const entries = this.ledger.get(account)
    if (entries)
      this.ledger.set(
        account,
        entries.filter((entry) => entry.token !== token),
      )
  }

  count(account: string, second: number, token: string): void {
    this.ledger.get(account)?.push({ second, token })
  }

  /** Both windows at `now`: quota, requests counted, what remains and `t`. */
  windows(account: string, now: number): (Window & { used: number })[] {
    const view = this.views.get(account)
    const entries = (this.ledger.get(account) ?? []).filter((entry) => entry.second + 3600 > now)
    this.ledger.set(account, entries)
    const quotas = view?.limits ?? OUT_OF_REACH
    return [
      { policy: 'hourly', q: quotas.hourly, w: 3600 },
      { policy: 'burst', q: quotas.burst, w: 60 },
    ].map((window) => {
      const counted = entries.filter((entry) => entry.second + window.w > now)
      const oldest = counted.length > 0 ? Math.min(...counted.map((entry) => entry.second)) : undefined
      return {
        ...window,
        used: counted.length,
        r: Math.max(0, window.q - counted.length),
        t: oldest === undefined ? 0 : Math.max(0, oldest + window.w - now),
      }
    })
  }

  /** The 429 the faulty platform answers when a window is full at `now`, or undefined. */
  refusal(
    account: string,
    now: number,
  ): { windows: Window[]; policy: string; retryAfter: number } | undefined {
    const windows = this.windows(account, now)
    const exhausted = windows.filter((window) => window.used >= window.q)
    if (exhausted.length === 0) return undefined
    let policy = exhausted[0]?.policy ?? 'burst'
    let retryAfter = 0
    for (const window of windows)
      if (exhausted.includes(window) && window.t >= retryAfter) {
        retryAfter = window.t
        policy = window.policy
      }
    return { windows, policy, retryAfter: Math.max(1, retryAfter) }
  }
}

/**
 * The control-plane and v1 traffic of accounts whose windows a fault keeps: account bodies rewritten so that the
 * engine gets out-of-reach quotas while the answers show the faulty platform's, the usage view, and every v1
 * answer's rate-limit fields and 429s. `manageNew` says whether accounts made through the control plane are kept
 * from their creation; `onChange` is told of every change of a kept (or newly kept) account's quotas.
 */
function keptWindowsFault(
  options: {
    manageNew: boolean
    /** Whether an account not kept yet starts being kept when its plan or limits change. */
    manageOnChange: boolean
    onChange?: (windows: KeptWindows, account: string) => void
    onRevoke?: (windows: KeptWindows, account: string, token: string) => void
  },
  book: Book,
): Fault {
  const windows = book.keep(new KeptWindows())
  const views = book.map<string, QuotaView>()
  const pending = new Map<EngineRequest, { account?: string; view: QuotaView }>()
  const refused = new Map<EngineRequest, { account: string; now: number }>()

  const viewOfAnswer = (account: Json): QuotaView | undefined => {
    const limits = account.limits
    if (!isObject(limits) || typeof limits.hourly !== 'number' || typeof limits.burst !== 'number')
      return undefined
    return {
      plan: String(account.plan),
      limits: { hourly: limits.hourly, burst: limits.burst },
      custom: account.custom_limits === true,
    }
  }

  return {
    request(request) {
      const path = pathOf(request)
      if (
        request.method === 'POST' &&
        path === '/_mock/accounts' &&
        options.manageNew &&
        validBody(request)
      ) {
        const body = objectBody(request) as Json
        const plan = String(body.plan)
        const custom = isObject(body.limits)
        const limits = custom ? (body.limits as unknown as Quotas) : (PLAN_QUOTAS[plan] ?? OUT_OF_REACH)
        const sent = withJson(request, { ...body, limits: OUT_OF_REACH })
        pending.set(sent, { view: { plan, limits: { hourly: limits.hourly, burst: limits.burst }, custom } })
        return sent
      }
      const patched = patchedAccount(request)
      if (patched !== undefined) {
        const current = windows.view(patched) ?? views.get(patched)
        if (!current || !validBody(request)) return request
        if (!windows.view(patched) && !options.manageOnChange) return request
        const body = objectBody(request) as Json
        const plan = typeof body.plan === 'string' ? body.plan : current.plan
        let view: QuotaView
        if (isObject(body.limits))
          view = {
            plan,
            limits: { hourly: Number(body.limits.hourly), burst: Number(body.limits.burst) },
            custom: true,
          }
        else if (body.limits === null || !current.custom)
          view = { plan, limits: PLAN_QUOTAS[plan] ?? OUT_OF_REACH, custom: false }
        else view = { plan, limits: current.limits, custom: true }
        const sent = withJson(request, {
          ...(typeof body.plan === 'string' ? { plan } : {}),
          limits: OUT_OF_REACH,
        })
        pending.set(sent, { account: patched, view })
        return sent
      }
      if (!isV1(request) || request.method === 'OPTIONS') return request
      const token = tokenOf(request)
      const now = book.clock()
      if (!book.valid(token) || now === undefined) return request
      const account = book.account(token)
      if (!windows.view(account) || !windows.refusal(account, now)) return request
      const sent = preflightInstead(request)
      refused.set(sent, { account, now })
      return sent
    },

    response(response, request) {
      const note = pending.get(request)
      pending.delete(request)
      const refusedFor = refused.get(request)
      refused.delete(request)
      book.observe(request, response)
      const path = pathOf(request)
      if (note && ok(response) && isObject(response.body)) {
        const account = note.account ?? String(response.body.id)
        windows.keep(account, note.view)
        options.onChange?.(windows, account)
      }
      const deleted = /^\/_mock\/accounts\/([^/]+)$/.exec(path)
      if (deleted && request.method === 'DELETE' && ok(response)) windows.forget(deleted[1] as string)
      const revoked = /^\/_mock\/keys\/([^/]+)\/revoke$/.exec(path)
      if (revoked && ok(response) && isObject(response.body)) {
        const token = book.tokenOfKey(revoked[1] as string)
        const account = String(response.body.account_id)
        if (token !== undefined && windows.view(account)) options.onRevoke?.(windows, account, token)
      }
      for (const account of controlAccounts(request, response)) {
        const id = String(account.id)
        const kept = windows.view(id)
        if (!kept) {
          const view = viewOfAnswer(account)
          if (view) views.set(id, view)
          continue
        }
        account.plan = kept.plan
        account.limits = { ...kept.limits }
        account.custom_limits = kept.custom
      }
      const usage = /^\/_mock\/accounts\/([^/]+)\/rate-limit\/?$/.exec(path)
      const clock = book.clock()
      if (usage && response.status === 200 && isObject(response.body) && clock !== undefined) {
        const account = usage[1] as string
        if (windows.view(account))
          response.body.windows = windows.windows(account, clock).map((window) => ({
            policy: window.policy,
            limit: window.q,
            used: window.used,
            remaining: window.r,
            reset_seconds: window.t,
          }))
      }
      if (refusedFor !== undefined) {
        const refusal = windows.refusal(refusedFor.account, refusedFor.now)
        if (!refusal) return response
        return errors
          .rateLimited(refusal.policy, refusal.retryAfter)
          .toResponse(response.headers['request-id'] ?? '', {
            ...ownHeaders(response),
            ...windowHeaders(refusal.windows, refusedFor.now),
          })
      }
      const token = tokenOf(request)
      const now = nowOf(response)
      if (!isV1(request) || token === undefined || now === undefined) return response
      const account = book.account(token)
      if (!windows.view(account)) return response
      windows.count(account, now, token)
      const shown = windows.windows(account, now)
      if (response.status === 429 && response.headers['mock-scenario'] !== undefined) {
        // An injected 429 reports the burst window exhausted, and the wait of the exhausted window that lasts longest.
        const reported = shown.map((window) => (window.policy === 'burst' ? { ...window, r: 0 } : window))
        let decisive: Window | undefined
        for (const window of reported)
          if (window.r === 0 && (!decisive || window.t > decisive.t)) decisive = window
        const error = errorOf(response)
        if (error && decisive) {
          error.policy = decisive.policy
          error.retry_after = decisive.t
          response.headers['retry-after'] = String(decisive.t)
        }
        Object.assign(response.headers, windowHeaders(reported, now))
        return response
      }
      Object.assign(response.headers, windowHeaders(shown, now))
      return response
    },
  }
}

const MAX_REVISIONS = 100
const TRASH_DAYS = 30
const MAX_AGENTS = 1000
const PURGE_DAYS = 7

/** The metadata an agent shows, when it shows one. */
const metadataOf = (agent: Json | undefined) => (isObject(agent?.metadata) ? agent.metadata : undefined)

// ------------------------------------------------------------------------------------------------- faults

export const faults: HeldOutFault[] = [
  // --------------------------------------------------------------------------------------------- updates
  {
    name: 'agent-update-refused-after-100-revisions',
    kind: 'updates',
    what:
      'Every PATCH /agents/{agent_id} writes a revision of the agent to a history table that holds at most 100 revisions per agent (the dashboard\'s "undo" list), and the insert of the 101st is refused instead of the oldest being dropped: once an agent has been updated 100 times, every further valid update is answered 409 `limit_reached` ("this agent has reached 100 revisions") and changes nothing, although the agent can still be read and deleted. Agents updated fewer than 100 times are right. ' +
      'Contract, updateAgent: "Partially updates an agent. Only the fields sent change ... `updated_at` is set to the current time on every successful update"; Conflict: "`limit_reached` (the account already holds as many objects of this kind as the service keeps; the mock: 1,000 agents and 200 team members per account; nothing is created)" (a limit on the objects an account holds, met by a create, never by an update); docs/decisions/009-resources.md: "PATCH (partial; `null` clears a nullable field)".',
    make: () => {
      const book = new Book()
      const revisions = book.map<string, number>()
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          const agent = itemId(request, 'PATCH', 'agents')
          if (!isV1(request) || agent === undefined) return request
          const account = book.account(tokenOf(request))
          if ((revisions.get(`${account} ${agent}`) ?? 0) < MAX_REVISIONS || !validBody(request))
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
                  message: `This agent has reached ${MAX_REVISIONS} revisions, the most the platform keeps: create a new agent to go on changing it.`,
                })
              : response
          if (!isV1(request) || response.status !== 200) return response
          const account = book.account(tokenOf(request))
          const patched = itemId(request, 'PATCH', 'agents')
          if (patched !== undefined)
            revisions.set(`${account} ${patched}`, (revisions.get(`${account} ${patched}`) ?? 0) + 1)
          const removed = itemId(request, 'DELETE', 'agents')
          if (removed !== undefined) revisions.delete(`${account} ${removed}`)
          return response
        },
      }
    },
  },
  {
    name: 'reactivated-agent-restamps-created-at',
    kind: 'updates',
    what:
      'The API\'s `created_at` of an agent is read from its `live_since` column (the dashboard\'s "live since" date), which is set when the agent is created and set again whenever an `inactive` agent is switched back to `active`: after PATCH `{"status": "active"}` of an agent that was inactive, the agent is answered and read back (by ID and in lists) with `created_at` equal to the time of that update. Lists keep their order (by the row sequence), so they are no longer ordered by `created_at`. Agents never switched off and on again are right. ' +
      'Contract, updateAgent: "Partially updates an agent. Only the fields sent change"; AgentUpdateRequest: "any subset of the agent\'s writable fields" (`created_at` is not one); listAgents: "Lists the account\'s agents, newest first (`created_at` descending, then `id` descending)"; docs/decisions/008-lists-and-idempotency.md: "Objects come newest first by `created_at`, then by `id`".',
    make: () => {
      const book = new Book()
      const seen = book.keep(new Seen('agent', 'agents'))
      const restamped = book.map<string, string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const patched = itemId(request, 'PATCH', 'agents')
          if (patched !== undefined && response.status === 200 && isObject(response.body)) {
            const before = seen.get(account, patched)
            if (objectBody(request)?.status === 'active' && before?.status === 'inactive')
              restamped.set(`${account} ${patched}`, String(response.body.updated_at))
          }
          seen.observe(request, response, account)
          const removed = itemId(request, 'DELETE', 'agents')
          if (removed !== undefined && response.status === 200) restamped.delete(`${account} ${removed}`)
          for (const agent of objectsOf(response, 'agent')) {
            const at = restamped.get(`${account} ${String(agent.id)}`)
            if (at !== undefined) agent.created_at = at
          }
          return response
        },
      }
    },
  },
  {
    name: 'metadata-only-update-keeps-updated-at',
    kind: 'updates',
    what:
      "An agent's metadata lives in a table of its own (one row per key), and a PATCH /agents/{agent_id} that sends only `metadata` writes that table alone: its answer, and every later read (by ID and in lists), keep the agent's previous `updated_at`, although the metadata changed. Updates that send any other field are right. " +
      'Contract, updateAgent: "`updated_at` is set to the current time on every successful update, even if no value changed"; "every other field, including `metadata` and `webhook_events`, **replaces** the stored value as a whole"; Agent: `updated_at` (`Timestamp`).',
    make: () => {
      const book = new Book()
      const seen = book.keep(new Seen('agent', 'agents'))
      const kept = book.map<string, string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const patched = itemId(request, 'PATCH', 'agents')
          if (patched !== undefined && response.status === 200) {
            const key = `${account} ${patched}`
            const body = objectBody(request)
            const previous = kept.get(key) ?? seen.get(account, patched)?.updated_at
            if (body && Object.keys(body).length === 1 && 'metadata' in body && typeof previous === 'string')
              kept.set(key, previous)
            else kept.delete(key)
          }
          seen.observe(request, response, account)
          const removed = itemId(request, 'DELETE', 'agents')
          if (removed !== undefined && response.status === 200) kept.delete(`${account} ${removed}`)
          for (const agent of objectsOf(response, 'agent')) {
            const at = kept.get(`${account} ${String(agent.id)}`)
            if (at !== undefined) agent.updated_at = at
          }
          return response
        },
      }
    },
  },
  {
    name: 'new-webhook-url-resets-subscriptions',
    kind: 'updates',
    what:
      "Webhook endpoints are records of their own: clearing an agent's `webhook_url` (`null`) deletes its endpoint (the agent row still shows the `webhook_events`), and giving the agent a URL again creates a new endpoint without subscriptions: a PATCH that sets `webhook_url` on an agent whose URL was cleared, without sending `webhook_events`, answers and stores `webhook_events: []`, so the endpoint gets no events. Setting a URL on an agent that has one, or sending the events with it, is right. " +
      'Contract, updateAgent: "Partially updates an agent. Only the fields sent change"; AgentUpdateRequest.webhook_url: "Where webhook events are posted ...; null stops them" (the subscriptions are another field, `webhook_events`, replaced only when sent); docs/decisions/013-calls-and-webhooks.md: "Each event in an agent\'s `webhook_events` is POSTed to its `webhook_url`".',
    make: () => {
      const book = new Book()
      const seen = book.keep(new Seen('agent', 'agents'))
      const cleared = book.set<string>()
      return {
        request(request) {
          const agent = itemId(request, 'PATCH', 'agents')
          if (!isV1(request) || agent === undefined) return request
          const account = book.account(tokenOf(request))
          const body = objectBody(request)
          if (!body || typeof body.webhook_url !== 'string' || 'webhook_events' in body) return request
          if (!cleared.has(`${account} ${agent}`) || seen.get(account, agent)?.webhook_url !== null)
            return request
          return withJson(request, { ...body, webhook_events: [] })
        },
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const patched = itemId(request, 'PATCH', 'agents')
          const body = objectBody(request)
          if (patched !== undefined && response.status === 200 && body && 'webhook_url' in body) {
            if (body.webhook_url === null) cleared.add(`${account} ${patched}`)
            else cleared.delete(`${account} ${patched}`)
          }
          seen.observe(request, response, account)
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------------ reuse
  {
    name: 'readded-metadata-key-keeps-old-value',
    kind: 'reuse',
    what:
      "An agent's metadata is stored one row per key; a PATCH whose map leaves a key out soft-deletes its row, and the write is `INSERT ... ON CONFLICT (agent_id, key) DO UPDATE SET deleted_at = NULL` (the value is not in the SET list): a key that was removed and is later set again gets back the value it had when it was removed instead of the value sent, in the answer and in every later read. Keys never removed, and new keys, take the value sent. " +
      'Contract, updateAgent: "every other field, including `metadata` and `webhook_events`, **replaces** the stored value as a whole (`metadata: {}` removes all keys)"; "Partially updates an agent. Only the fields sent change"; Metadata: "Free-form string key/value pairs for your own use".',
    make: () => {
      const book = new Book()
      const seen = book.keep(new Seen('agent', 'agents'))
      const removedKeys = book.map<string, Map<string, string>>()
      const pending = new Map<EngineRequest, { key: string; before: Json }>()
      return {
        request(request) {
          const agent = itemId(request, 'PATCH', 'agents')
          if (!isV1(request) || agent === undefined) return request
          const account = book.account(tokenOf(request))
          const body = objectBody(request)
          const before = metadataOf(seen.get(account, agent))
          if (!body || !isObject(body.metadata) || !before || !validBody(request)) return request
          const key = `${account} ${agent}`
          const tombs = removedKeys.get(key)
          const metadata = { ...body.metadata }
          for (const [name, old] of tombs ?? []) if (name in metadata) metadata[name] = old
          const sent = withJson(request, { ...body, metadata })
          pending.set(sent, { key, before: { ...before } })
          return sent
        },
        response(response, request) {
          const note = pending.get(request)
          pending.delete(request)
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const after = isObject(response.body) ? metadataOf(response.body) : undefined
          if (note && response.status === 200 && after) {
            const tombs = removedKeys.get(note.key) ?? new Map<string, string>()
            for (const name of Object.keys(after)) tombs.delete(name)
            for (const [name, value] of Object.entries(note.before))
              if (!(name in after) && typeof value === 'string') tombs.set(name, value)
            removedKeys.set(note.key, tombs)
          }
          seen.observe(request, response, account)
          const removed = itemId(request, 'DELETE', 'agents')
          if (removed !== undefined && response.status === 200) removedKeys.delete(`${account} ${removed}`)
          return response
        },
      }
    },
  },
  {
    name: 'deleted-agent-name-reserved',
    kind: 'reuse',
    what:
      'Deleted agents are kept in a trash for 30 days so that support can restore them, and the create path refuses a name that is in the trash ("restore it or choose another name"): POST /agents with the name of an agent of the account deleted less than 30 days ago is 409 `name_in_trash` (`param: name`) and creates nothing, although agent names are not unique (two live agents may share one). Other names, and names of agents deleted longer ago, are right. ' +
      'Contract, deleteAgent: "Permanently deletes an agent"; createAgent: "Creates an agent. Only `name`, `voice` (`provider`, `voice_id`) and `llm` (`provider`, `model`) are required"; AgentCreateRequest.name: `{type: string, minLength: 1, maxLength: 100}` (no uniqueness); Conflict: the 409 codes are `member_already_exists`, `owner_role_immutable`, `cannot_remove_owner`, `idempotency_key_reused`, `limit_reached`.',
    make: () => {
      const book = new Book()
      const seen = book.keep(new Seen('agent', 'agents'))
      const stored = book.keep(new StoredKeys())
      const trash = book.map<string, number>()
      const noted = new Map<EngineRequest, string>()
      return {
        request(request) {
          if (!isCreate(request, 'agents')) return request
          const account = book.account(tokenOf(request))
          const name = objectBody(request)?.name
          const now = book.clock()
          if (typeof name !== 'string' || now === undefined) return request
          const deletedAt = trash.get(`${account} ${name}`)
          if (deletedAt === undefined || deletedAt + TRASH_DAYS * DAY <= now) return request
          if (stored.replays(request, account, now) || !validBody(request)) return request
          const sent = harmless(request)
          noted.set(sent, name)
          return sent
        },
        response(response, request) {
          const name = noted.get(request)
          noted.delete(request)
          book.observe(request, response)
          if (name !== undefined)
            return passedToBody(response)
              ? errorAnswer(response, 409, {
                  type: 'conflict_error',
                  code: 'name_in_trash',
                  message: `An agent named '${name}' was deleted less than ${TRASH_DAYS} days ago and can still be restored: restore it or choose another name.`,
                  param: 'name',
                })
              : response
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          stored.observe(request, response, account, nowOf(response))
          const removed = itemId(request, 'DELETE', 'agents')
          const agent = removed === undefined ? undefined : seen.get(account, removed)
          if (agent && response.status === 200 && book.now !== undefined)
            trash.set(`${account} ${String(agent.name)}`, book.now)
          seen.observe(request, response, account)
          return response
        },
      }
    },
  },
  {
    name: 'reinvite-keeps-first-invited-at',
    kind: 'reuse',
    what:
      'Invitations are also recorded per e-mail address in an `invitations` table (account, email, invited_at) that a removal does not touch and that a new invitation upserts without changing `invited_at`: inviting again an address whose member or invitation was removed makes a new member (a new ID, `created_at` now) whose `invited_at` is the time the address was first invited, in the 201 and in every later read. First invitations of an address are right. ' +
      'Contract, inviteTeamMember: "Answers **201** with the new member (`status: invited`, `joined_at: null`, `invited_at` = `created_at` = now)"; TeamMember.invited_at: "When the invitation was sent"; removeTeamMember: "Removes a member, or withdraws a pending invitation".',
    make: () => {
      const book = new Book()
      const seen = book.keep(new Seen('team_member', 'team-members'))
      const firstInvited = book.map<string, string>()
      const shown = book.map<string, string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const removed = itemId(request, 'DELETE', 'team-members')
          const member = removed === undefined ? undefined : seen.get(account, removed)
          if (member && response.status === 200) {
            const invitedAt = shown.get(`${account} ${removed}`) ?? member.invited_at
            const address = `${account} ${String(member.email)}`
            const first = firstInvited.get(address)
            if (typeof invitedAt === 'string' && (first === undefined || invitedAt < first))
              firstInvited.set(address, invitedAt)
          }
          if (isCreate(request, 'team-members') && response.status === 201 && isObject(response.body)) {
            const first = firstInvited.get(`${account} ${String(response.body.email)}`)
            if (first !== undefined) shown.set(`${account} ${String(response.body.id)}`, first)
          }
          seen.observe(request, response, account)
          for (const shownMember of objectsOf(response, 'team_member')) {
            const at = shown.get(`${account} ${String(shownMember.id)}`)
            if (at !== undefined) shownMember.invited_at = at
          }
          return response
        },
      }
    },
  },
  {
    name: 'former-member-reinvited-active',
    kind: 'reuse',
    what:
      "Memberships hang on the person: removing a member who had joined (`status: active`) ends the membership but keeps the person's link to the account, and inviting the same address again restores it at once: the new member is answered, and read back, with `status: active` and the `joined_at` of the time the person first joined, as if the invitation had been accepted. Invitations of addresses that never joined the account are right. " +
      'Contract, inviteTeamMember: "Answers **201** with the new member (`status: invited`, `joined_at: null`, `invited_at` = `created_at` = now) ... The mock sends no e-mail and has no endpoint to accept an invitation"; TeamMember.joined_at: "When the member accepted the invitation ...; `null` while invited"; removeTeamMember: "Removes a member".',
    make: () => {
      const book = new Book()
      const seen = book.keep(new Seen('team_member', 'team-members'))
      const joined = book.map<string, string>()
      const restored = book.map<string, string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const removed = itemId(request, 'DELETE', 'team-members')
          const member = removed === undefined ? undefined : seen.get(account, removed)
          if (member && response.status === 200) {
            const since = restored.get(`${account} ${removed}`) ?? member.joined_at
            if (
              (member.status === 'active' || restored.has(`${account} ${removed}`)) &&
              typeof since === 'string'
            )
              joined.set(`${account} ${String(member.email)}`, since)
            restored.delete(`${account} ${removed}`)
          }
          if (isCreate(request, 'team-members') && response.status === 201 && isObject(response.body)) {
            const since = joined.get(`${account} ${String(response.body.email)}`)
            if (since !== undefined) restored.set(`${account} ${String(response.body.id)}`, since)
          }
          seen.observe(request, response, account)
          for (const shown of objectsOf(response, 'team_member')) {
            const since = restored.get(`${account} ${String(shown.id)}`)
            if (since === undefined) continue
            shown.status = 'active'
            shown.joined_at = since
          }
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ pagination
  {
    name: 'deleted-cursor-skips-its-neighbour',
    kind: 'pagination',
    what:
      'GET /agents resolves a cursor that names a deleted agent to its nearest live neighbour in the direction of travel (the next older agent for `starting_after`, the next newer one for `ending_before`) and pages from there, leaving that neighbour out: a client that deletes the last agent of a page (or the first, paging back) and then asks for the next page with its ID as the cursor never sees the agent that came right after it. Cursors of live agents are right. ' +
      'docs/decisions/008-lists-and-idempotency.md: "Cursor pagination on object IDs stays correct while objects are created and deleted (an offset would skip or repeat)"; contract, Lists and pagination: "`starting_after=<id>` returns the objects after that one in this order (older), `ending_before=<id>` the objects before it (newer, still returned newest first)".',
    make: () => {
      const book = new Book()
      const agents = book.map<string, Map<string, { key: string; live: boolean }>>()
      const of = (account: string) => {
        let known = agents.get(account)
        if (!known) {
          known = new Map()
          agents.set(account, known)
        }
        return known
      }
      return {
        request(request) {
          if (!isList(request, 'agents')) return request
          const account = book.account(tokenOf(request))
          if (!book.isFresh(account)) return request
          const query = queryOf(request)
          for (const param of ['starting_after', 'ending_before'] as const) {
            const cursor = query.get(param)
            const deleted = cursor === null ? undefined : of(account).get(cursor)
            if (!deleted || deleted.live) continue
            const live = [...of(account)].filter(([, agent]) => agent.live)
            const side =
              param === 'starting_after'
                ? live
                    .filter(([, agent]) => agent.key < deleted.key)
                    .sort((a, b) => (a[1].key < b[1].key ? 1 : -1))
                : live
                    .filter(([, agent]) => agent.key > deleted.key)
                    .sort((a, b) => (a[1].key < b[1].key ? -1 : 1))
            const neighbour = side[0]?.[0]
            if (neighbour !== undefined)
              return withQuery(request, (sent) => {
                sent.set(param, neighbour)
              })
          }
          return request
        },
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          if (!book.isFresh(account)) return response
          if (isCreate(request, 'agents') && response.status === 201 && isObject(response.body))
            of(account).set(String(response.body.id), { key: sortKey(response.body), live: true })
          const removed = itemId(request, 'DELETE', 'agents')
          const agent = removed === undefined ? undefined : of(account).get(removed)
          if (agent && response.status === 200) agent.live = false
          return response
        },
      }
    },
  },
  {
    name: 'removed-members-eat-page-slots',
    kind: 'pagination',
    what:
      'Team members are soft-deleted, and GET /team-members reads `limit + 1` rows with the removed ones among them and drops those afterwards: a page in whose range removed members lie holds fewer than `limit` members although more exist, and its `has_more` (whether a live member was among the rows read past `limit`) says `false` while members remain beyond it, so a client stops paging early. Pages of teams without removals are right. ' +
      'Contract, Lists and pagination: "`has_more` tells whether more objects exist beyond the returned page in the direction of travel"; parameter Limit: "Maximum number of objects to return, 1-100 (default 20)"; removeTeamMember: "Removes a member, or withdraws a pending invitation".',
    make: () => {
      const book = new Book()
      const seen = book.keep(new Seen('team_member', 'team-members'))
      const removedKeys = book.map<string, Set<string>>()
      const noted = new Map<
        EngineRequest,
        { limit: number; forward: boolean; cursor?: string; removed: string[] }
      >()
      return {
        request(request) {
          if (!isList(request, 'team-members')) return request
          const account = book.account(tokenOf(request))
          const limit = limitOf(request)
          const query = queryOf(request)
          const forward = !query.has('ending_before')
          const cursorId = query.get(forward ? 'starting_after' : 'ending_before')
          const cursorObject = cursorId === null ? undefined : seen.get(account, cursorId)
          const cursor = cursorObject ? sortKey(cursorObject) : undefined
          if (limit === undefined || (cursorId !== null && cursor === undefined)) return request
          if (query.has('starting_after') && query.has('ending_before')) return request
          const removed = [...(removedKeys.get(account) ?? [])].filter(
            (key) => cursor === undefined || (forward ? key < cursor : key > cursor),
          )
          if (removed.length === 0) return request
          const sent =
            limit < 100
              ? withQuery(request, (changed) => {
                  changed.set('limit', String(limit + 1))
                })
              : request
          noted.set(sent, { limit, forward, cursor, removed })
          return sent
        },
        response(response, request) {
          const note = noted.get(request)
          noted.delete(request)
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const removed = itemId(request, 'DELETE', 'team-members')
          const member = removed === undefined ? undefined : seen.get(account, removed)
          if (member && response.status === 200) {
            const keys = removedKeys.get(account) ?? new Set<string>()
            keys.add(sortKey(member))
            removedKeys.set(account, keys)
          }
          seen.observe(request, response, account)
          const body = isObject(response.body) ? response.body : undefined
          if (!note || response.status !== 200 || !body || !Array.isArray(body.data)) return response
          // The rows read: the live members the engine listed and the removed ones, in the order of travel.
          const inOrder = (a: string, b: string) =>
            note.forward ? (a < b ? 1 : a > b ? -1 : 0) : a < b ? -1 : a > b ? 1 : 0
          const live = (body.data as Json[]).map((item) => ({ key: sortKey(item), item }))
          if (!note.forward) live.reverse()
          const lastLive = live[live.length - 1]?.key
          const rows: { key: string; item?: Json }[] = [
            ...live,
            ...note.removed
              .filter(
                (key) => body.has_more !== true || (lastLive !== undefined && inOrder(key, lastLive) < 0),
              )
              .map((key) => ({ key })),
          ].sort((a, b) => inOrder(a.key, b.key))
          if (body.has_more === true) rows.push({ key: '\uffff', item: {} })
          const window = rows.slice(0, note.limit + 1).filter((row) => row.item !== undefined)
          const page = window.slice(0, note.limit).map((row) => row.item as Json)
          if (!note.forward) page.reverse()
          body.data = page
          body.has_more = window.length > note.limit
          return response
        },
      }
    },
  },
  {
    name: 'deleted-agents-back-on-ending-before-pages',
    kind: 'removals',
    what:
      "Agents are soft-deleted, and the query of a page asked with `ending_before` (written apart from the forward one) forgets `deleted_at IS NULL`: paging toward newer agents shows the deleted agents that lie in the page's range, as they were when deleted, while the first page, the pages asked with `starting_after` and GET by ID leave them out. " +
      'Contract, deleteAgent: "Permanently deletes an agent"; getAgent: "an ID of a deleted agent gives 404 `resource_not_found`"; listAgents: "Lists the account\'s agents"; Lists and pagination: "`ending_before=<id>` the objects before it (newer, still returned newest first)" (of the same list).',
    make: () => {
      const book = new Book()
      const seen = book.keep(new Seen('agent', 'agents'))
      const deleted = book.map<string, Json>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const removed = itemId(request, 'DELETE', 'agents')
          const agent = removed === undefined ? undefined : seen.get(account, removed)
          if (agent && response.status === 200) deleted.set(`${account} ${removed}`, structuredClone(agent))
          seen.observe(request, response, account)
          const query = queryOf(request)
          if (!isList(request, 'agents') || !query.has('ending_before') || response.status !== 200)
            return response
          if (!isObject(response.body)) return response
          const extras = [...deleted]
            .filter(([key]) => key.startsWith(`${account} `))
            .map(([, object]) => presented(object, tokenOf(request)))
          const keyOf = (id: string) => {
            const known = seen.get(account, id) ?? deleted.get(`${account} ${id}`)
            return known ? sortKey(known) : undefined
          }
          spliceIntoPage(response.body, extras, query, keyOf)
          return response
        },
      }
    },
  },

  // -------------------------------------------------------------------------------------------- counters
  {
    name: 'agent-limit-counts-deleted-agents',
    kind: 'counters',
    what:
      "The per-account agent limit is checked against a counter of the agents created, kept on the account's row and never lowered by a deletion: an account that has created 1,000 agents gets 409 `limit_reached` on every later create, also after it deleted some of them, and nothing is created. Accounts that created fewer than 1,000 agents are right. " +
      'Contract, Conflict: "`limit_reached` (the account already holds as many objects of this kind as the service keeps; the mock: 1,000 agents and 200 team members per account; nothing is created)" (the agents it holds now); deleteAgent: "Permanently deletes an agent".',
    make: () => {
      const book = new Book()
      const stored = book.keep(new StoredKeys())
      const created = book.map<string, number>()
      const noted = new Set<EngineRequest>()
      return {
        request(request) {
          if (!isCreate(request, 'agents')) return request
          const account = book.account(tokenOf(request))
          if (!book.isFresh(account) || (created.get(account) ?? 0) < MAX_AGENTS) return request
          if (stored.replays(request, account, book.clock()) || !validBody(request)) return request
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
                  message: `This account has created ${MAX_AGENTS.toLocaleString('en-US')} agents, the most it may hold.`,
                })
              : response
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          stored.observe(request, response, account, nowOf(response))
          if (isCreate(request, 'agents') && response.status === 201 && !replayed(response))
            created.set(account, (created.get(account) ?? 0) + 1)
          return response
        },
      }
    },
  },
  {
    name: 'emptied-agent-group-kept-after-deletes',
    kind: 'counters',
    what:
      'With `group_by=agent_id`, GET /analytics/calls lists the groups from a per-agent roll-up table whose counters a deletion decrements but whose rows it never removes: an agent all of whose calls in the range were deleted still gets a group, all zeros with `null` averages (last, with the other empty groups, by value), also with the `agent_id` filter. Ranges in which no call was deleted are right. ' +
      'Contract, getCallAnalytics, Grouping: "`groups`: one entry per distinct value that has at least one call in the range, ordered by `totals.call_count` descending then `value` ascending"; deleteCallLog: "A deleted call log no longer counts in analytics"; Buckets: "deleted call logs are gone and do not count".',
    make: () => {
      const book = new Book()
      const logs = book.keep(new Seen('call_log', 'call-logs'))
      const calls = book.keep(new LiveCalls())
      const gone = book.map<string, { agent: string; at: number }[]>()
      return {
        response(response, request) {
          book.observe(request, response)
          const removed = itemId(request, 'DELETE', 'call-logs')
          const live = calls.get(removed)
          calls.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          if (removed !== undefined && response.status === 200) {
            const log = logs.get(account, removed)
            const agent = log?.agent_id ?? live?.agent
            const at = secondOf(log?.created_at) ?? live?.created
            if (typeof agent === 'string' && at !== undefined)
              gone.set(account, [...(gone.get(account) ?? []), { agent, at }])
          }
          logs.observe(request, response, account)
          const body = isObject(response.body) ? response.body : undefined
          if (!isAnalytics(request) || response.status !== 200 || !body || body.group_by !== 'agent_id')
            return response
          if (!Array.isArray(body.groups) || !Array.isArray(body.series)) return response
          const start = secondOf(body.start)
          const end = secondOf(body.end)
          if (start === undefined || end === undefined) return response
          const groups = body.groups as Json[]
          const listed = new Set(groups.map((group) => String(group.value)))
          for (const { agent, at } of gone.get(account) ?? []) {
            if (at < start || at >= end || listed.has(agent)) continue
            if (body.agent_id !== null && body.agent_id !== agent) continue
            listed.add(agent)
            groups.push({
              value: agent,
              totals: emptyMetrics(),
              series: (body.series as Json[]).map((bucket) => ({
                start: bucket.start,
                end: bucket.end,
                metrics: emptyMetrics(),
              })),
            })
          }
          const count = (group: Json) => (isObject(group.totals) ? Number(group.totals.call_count) : 0)
          groups.sort((a, b) => count(b) - count(a) || (String(a.value) < String(b.value) ? -1 : 1))
          return response
        },
      }
    },
  },
  {
    name: 'started-filters-miss-live-calls',
    kind: 'counters',
    what:
      'The search index that serves the `started_after` / `started_before` filters of GET /call-logs is written when a call log is inserted and not updated as the call goes on: a call placed through the platform is indexed as it was while queued, with `started_at` null, so it never matches a `started_*` filter, although it shows its `started_at` by ID and in the unfiltered list. Imported call history is indexed with its start and is filtered right. ' +
      'Contract, listCallLogs: "`started_after` / `started_before` are exclusive bounds on `started_at` (calls whose `started_at` is `null`, i.e. still queued, never match a `started_*` filter)"; parameter started_after: "Only calls with `started_at` strictly after this instant"; mock-control startCall: "`ringing` 1 second after it was queued (`started_at` set) ... `GET /v1/call-logs` and `GET /v1/analytics/calls` show every stage".',
    make: () => {
      const book = new Book()
      const calls = book.keep(new LiveCalls())
      const noted = new Map<EngineRequest, { limit: number; backward: boolean }>()
      return {
        request(request) {
          if (!isList(request, 'call-logs')) return request
          const query = queryOf(request)
          if (!query.has('started_after') && !query.has('started_before')) return request
          const account = book.account(tokenOf(request))
          const live = calls.of(account).length
          const limit = limitOf(request)
          if (live === 0 || limit === undefined) return request
          const sent = withQuery(request, (changed) => {
            changed.set('limit', String(Math.min(100, limit + live + 1)))
          })
          noted.set(sent, { limit, backward: query.has('ending_before') })
          return sent
        },
        response(response, request) {
          const note = noted.get(request)
          noted.delete(request)
          book.observe(request, response)
          calls.observe(request, response)
          const body = isObject(response.body) ? response.body : undefined
          if (!note || response.status !== 200 || !body || !Array.isArray(body.data)) return response
          const kept = (body.data as Json[]).filter((log) => calls.get(log.id) === undefined)
          const more = kept.length > note.limit
          body.data = note.backward
            ? kept.slice(Math.max(0, kept.length - note.limit))
            : kept.slice(0, note.limit)
          body.has_more = more || body.has_more === true
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------- connections
  {
    name: 'disconnect-clears-config',
    kind: 'connections',
    what:
      'Disconnecting an integration tears the connection down with its settings, which were taken to belong to it: `credentials: null` on a connected integration also empties its `config` when the PATCH does not send one, in the answer and in every later read, so connecting it again starts from no settings. Every other update, and `credentials: null` on an integration that is not connected, are right. ' +
      'Contract, updateIntegration: "Partially updates an integration ... `config` **replaces** the stored configuration as a whole (`{}` empties it) ... `credentials: null` disconnects: `status` becomes `not_connected`, `connected_at` and `credential_hint` become `null` (`enabled` is kept)".',
    make: () => {
      const book = new Book()
      const seen = book.keep(new Seen('integration', 'integrations'))
      return {
        request(request) {
          const slug = itemId(request, 'PATCH', 'integrations')
          if (!isV1(request) || slug === undefined) return request
          const body = objectBody(request)
          const status = seen.get(book.account(tokenOf(request)), slug)?.status
          if (body?.credentials !== null || 'config' in body) return request
          if (status !== 'connected' && status !== 'error') return request
          return withJson(request, { ...body, config: {} })
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
    name: 'reconnect-restores-first-connected-at',
    kind: 'connections',
    what:
      "A disconnection soft-deletes the integration's connection row, and connecting again revives it with an upsert that writes the credentials but not `connected_at` (only the rotation path, which replaces the credentials of a live connection, stamps it): an integration connected, disconnected and connected again shows the `connected_at` of its first connection, in the answer and in every later read. First connections and rotations are right. " +
      'Contract, updateIntegration: "`credentials` (write-only) replaces the stored credentials: the integration becomes `connected`, `connected_at` is set to now and `credential_hint` is recomputed"; Integration.connected_at: "When credentials were last stored; `null` while not connected".',
    make: () => {
      const book = new Book()
      const first = book.map<string, string>()
      const disconnected = book.set<string>()
      const revived = book.map<string, string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const slug = itemId(request, 'PATCH', 'integrations')
          const body = objectBody(request)
          if (slug !== undefined && response.status === 200 && body && 'credentials' in body) {
            const key = `${account} ${slug}`
            if (body.credentials === null) {
              if (first.has(key)) disconnected.add(key)
              revived.delete(key)
            } else if (disconnected.has(key)) {
              disconnected.delete(key)
              revived.set(key, first.get(key) as string)
            } else revived.delete(key)
          }
          for (const integration of objectsOf(response, 'integration')) {
            const key = `${account} ${String(integration.id)}`
            if (!first.has(key) && typeof integration.connected_at === 'string')
              first.set(key, integration.connected_at)
            const at = revived.get(key)
            if (at !== undefined && integration.status !== 'not_connected') integration.connected_at = at
          }
          return response
        },
      }
    },
  },
  {
    name: 'disabling-integration-disconnects-it',
    kind: 'connections',
    what:
      'Switching an integration off tears its connection down (the provider tokens are revoked, so that a disabled integration cannot be used): PATCH `{"enabled": false}` of a connected integration also removes its credentials, so it is answered, and stays, `not_connected` with `connected_at` and `credential_hint` `null`, and switching it on again does not bring the connection back. Switching on, other updates, and switching off an integration that is not connected, are right. ' +
      'Contract, updateIntegration: "Partially updates an integration ... `enabled` switches the integration on or off (allowed in any `status`) ... `credentials: null` disconnects" (credentials are removed when `null` is sent, not otherwise); Integration: "`connected` (credentials stored)".',
    make: () => {
      const book = new Book()
      const seen = book.keep(new Seen('integration', 'integrations'))
      return {
        request(request) {
          const slug = itemId(request, 'PATCH', 'integrations')
          if (!isV1(request) || slug === undefined) return request
          const body = objectBody(request)
          const status = seen.get(book.account(tokenOf(request)), slug)?.status
          if (body?.enabled !== false || 'credentials' in body) return request
          if (status !== 'connected' && status !== 'error') return request
          return withJson(request, { ...body, credentials: null })
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
    name: 'credential-hint-from-first-stored-secret',
    kind: 'connections',
    what:
      "Credentials live in a secrets vault that keeps every version, and the hint is computed from `versions[0]`, which the vault lists oldest first: once an integration's credentials have been replaced (a rotation, or a connection after a disconnection), `credential_hint` keeps showing the last four characters of the first credentials the integration ever had, in the answer and in every later read. The first connection of an integration is right. " +
      'Contract, updateIntegration: "`credentials` (write-only) replaces the stored credentials: the integration becomes `connected`, `connected_at` is set to now and `credential_hint` is recomputed"; "`credential_hint` is `"..."` followed by the last 4 characters of the credential value whose key sorts first"; Integration.credential_hint: "`"..."` and the last 4 characters of a stored credential".',
    make: () => {
      const book = new Book()
      const first = book.map<string, string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          for (const integration of objectsOf(response, 'integration')) {
            if (typeof integration.credential_hint !== 'string') continue
            const key = `${account} ${String(integration.id)}`
            const oldest = first.get(key)
            if (oldest === undefined) first.set(key, integration.credential_hint)
            else integration.credential_hint = oldest
          }
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------ revocation
  {
    name: 'revocation-cuts-every-older-key',
    kind: 'revocation',
    what:
      'Revocation is implemented with the authentication library\'s "not before" mechanism: revoking a key sets the account\'s `keys_valid_after` to the instant of the revocation, so every key of the account created at or before that instant is refused from then on (401, "has been revoked"), not only the key revoked. In a rotation (generate the new key, update the applications, then revoke the old one) the new key is cut off with the old one; keys created after the revocation work. ' +
      'The platform\'s spec, Rotation and handling: "generate a new key; update the applications; test; revoke the old key; watch for failed requests"; States and transitions: "active | key revoked | none stated | revoked | requests that use the key receive 401" (the key revoked); docs/decisions/003-api-keys.md: "A key is `active` until revoked"; mock-control revokeKey: "Revokes a key: from the very next request it gets 401".',
    make: () => {
      const book = new Book()
      const cutoff = book.map<string, number>()
      const refused = new Map<EngineRequest, string>()
      return {
        request(request) {
          if (!isV1(request) || request.method === 'OPTIONS') return request
          const token = tokenOf(request)
          const record = book.recordOf(token)
          const made = secondOf(record?.created_at)
          const since = cutoff.get(String(record?.account_id))
          if (token === undefined || made === undefined || since === undefined || made > since) return request
          if (!book.valid(token)) return request
          const sent = preflightInstead(request)
          refused.set(sent, token)
          return sent
        },
        response(response, request) {
          const token = refused.get(request)
          refused.delete(request)
          book.observe(request, response)
          const revoked = /^\/_mock\/keys\/([^/]+)\/revoke$/.exec(pathOf(request))
          if (revoked && ok(response) && isObject(response.body)) {
            const at = secondOf(response.body.revoked_at)
            const account = String(response.body.account_id)
            if (at !== undefined && at > (cutoff.get(account) ?? Number.NEGATIVE_INFINITY))
              cutoff.set(account, at)
          }
          if (token === undefined) return response
          return revokedKey(token).toResponse(response.headers['request-id'] ?? '', ownHeaders(response))
        },
      }
    },
  },
  {
    name: 'deleted-account-keys-reported-revoked',
    kind: 'revocation',
    what:
      'Deleting an account revokes its keys rather than removing them (the key rows stay, for the audit log): a request made with a key of a deleted account gets the 401 of a revoked key ("This API key (sk-svc-...abcd) has been revoked. Create a new key in the dashboard.") instead of the 401 of an unknown key, and its owner looks for a revocation nobody made. Keys of accounts that exist are right. ' +
      'Mock-control deleteAccount: "Deletes an account with everything it owns: its keys (which from then on get 401 like any unknown key)"; docs/decisions/002-authentication.md: "a message that says whether the key was missing, invalid, revoked or expired".',
    make: () => {
      const book = new Book()
      const owners = book.map<string, string>()
      const deleted = book.set<string>()
      return {
        response(response, request) {
          book.observe(request, response)
          const path = pathOf(request)
          const body = isObject(response.body) ? response.body : undefined
          if (/^\/_mock\/accounts\/[^/]+\/keys$/.test(path) && response.status === 201 && body)
            owners.set(String(body.value), String(body.account_id))
          const gone = /^\/_mock\/accounts\/([^/]+)$/.exec(path)
          if (gone && request.method === 'DELETE' && ok(response)) deleted.add(gone[1] as string)
          const token = tokenOf(request)
          if (!isV1(request) || token === undefined || response.status !== 401) return response
          const owner = owners.get(token)
          if (owner === undefined || !deleted.has(owner)) return response
          return revokedKey(token).toResponse(response.headers['request-id'] ?? '', ownHeaders(response))
        },
      }
    },
  },
  {
    name: 'revoked-keys-usage-dropped-from-windows',
    kind: 'revocation',
    what:
      "Rate-limit windows are kept per key (for the dashboard's per-key usage) and an account's budget is the sum of its keys' windows; revoking a key deletes its windows with its cache entry: the requests an account made with a key it has since revoked stop counting, so right after a rotation the account has more room than it has (`RateLimit` `r` and the legacy fields too high, and requests admitted past the quota). Accounts that revoked no key are right. " +
      'docs/decisions/006-rate-limits.md: "The budget belongs to the account: all keys of an account share it"; "An admitted request counts in both windows whatever its status"; contract, Rate limits: "Requests are limited per **account** (all keys of an account share the budget) by two sliding windows ... Every admitted request counts in both windows".',
    make: () => {
      const book = new Book()
      return keptWindowsFault(
        {
          manageNew: true,
          manageOnChange: false,
          onRevoke: (windows, account, token) => windows.dropKey(account, token),
        },
        book,
      )
    },
  },
  {
    name: 'journal-drops-revoked-key-id',
    kind: 'revocation',
    what:
      'The request journal takes `key_id` and `account_id` from the index of active keys, from which a revocation removes the key: a request made with a revoked key is journaled with `key_id: null` and `account_id: null`, and is missing from the journal filtered by its key or its account, so the owner who watches for failed requests after a rotation cannot tell which key made them. Requests made with active or expired keys are journaled right. ' +
      'Mock-control listJournal: "`key_id` / `account_id` are set whenever the presented key was recognised, even when it was revoked or expired, so failures after a rotation can be traced to the old key"; JournalEntry.key_id: "The key presented, when recognised (also when revoked or expired)"; docs/decisions/010-control-plane.md: "a journal of recent requests (key ID, route, status), to watch for failed requests after a rotation".',
    make: () => {
      const book = new Book()
      const revokedAt = book.map<string, number>()
      return {
        response(response, request) {
          book.observe(request, response)
          const path = pathOf(request)
          const revoked = /^\/_mock\/keys\/([^/]+)\/revoke$/.exec(path)
          if (revoked && ok(response) && isObject(response.body)) {
            const at = secondOf(response.body.revoked_at)
            if (at !== undefined) revokedAt.set(revoked[1] as string, at)
          }
          if (!/^\/_mock\/journal\/?$/.test(path) || response.status !== 200 || !isObject(response.body))
            return response
          const data = response.body.data
          if (!Array.isArray(data)) return response
          const query = queryOf(request)
          const filtered = query.has('key_id') || query.has('account_id')
          const kept: unknown[] = []
          for (const entry of data) {
            const since = isObject(entry) ? revokedAt.get(String(entry.key_id)) : undefined
            const at = isObject(entry) ? secondOf(entry.at) : undefined
            if (
              !isObject(entry) ||
              entry.status !== 401 ||
              since === undefined ||
              at === undefined ||
              at < since
            ) {
              kept.push(entry)
              continue
            }
            if (filtered) continue
            entry.key_id = null
            entry.account_id = null
            kept.push(entry)
          }
          response.body.data = kept
          return response
        },
      }
    },
  },

  // ----------------------------------------------------------------------------------------------- plans
  {
    name: 'quota-change-starts-empty-windows',
    kind: 'plans',
    what:
      "The limiter's window keys carry the account's quota version (`rl:<account>:<version>:<window>`), which every change of plan or limits bumps: after an account's plan or limits change, its windows start empty, as if it had made no request, so a downgrade does not stop an account that already used the new quota (it is admitted instead of 429), and `RateLimit` (and the legacy fields) show the new quotas untouched. Accounts whose plan and limits never change are right. " +
      'Mock-control updateAccount: "Requests already counted stay in the windows; the new quotas apply from the next request (so lifting the limits ends a 429 at once, lowering them may cause one)"; docs/decisions/006-rate-limits.md: "Two sliding windows, and a request is admitted only when both have room"; contract, RateLimit: "`r` is what remains in the window after this request".',
    make: () => {
      const book = new Book()
      return keptWindowsFault(
        { manageNew: false, manageOnChange: true, onChange: (windows, account) => windows.empty(account) },
        book,
      )
    },
  },
  {
    name: 'plan-switch-drops-custom-limits',
    kind: 'plans',
    what:
      "Switching an account's plan writes the new plan's default quotas over the account's own: PATCH `{\"plan\": ...}` of an account with custom limits drops them (`custom_limits: false`, the plan's `limits`), and from then on the account is limited, and told (`RateLimit-Policy`), by the plan's defaults. Plan changes of accounts on their plan's defaults, and changes of limits, are right. " +
      'Mock-control updateAccount: "Switches the plan and/or sets the limits ... Switching the plan keeps custom limits if there are any"; createAccount: "`limits` overrides the plan\'s default quotas ... for **any** plan, not only enterprise; `custom_limits` then reads `true`".',
    make: () => {
      const book = new Book()
      const custom = book.map<string, boolean>()
      return {
        request(request) {
          const account = patchedAccount(request)
          const body = objectBody(request)
          if (account === undefined || !body || typeof body.plan !== 'string' || 'limits' in body)
            return request
          if (custom.get(account) !== true) return request
          return withJson(request, { ...body, limits: null })
        },
        response(response, request) {
          book.observe(request, response)
          for (const account of controlAccounts(request, response))
            custom.set(String(account.id), account.custom_limits === true)
          return response
        },
      }
    },
  },
  {
    name: 'plan-change-restamps-user-created-at',
    kind: 'plans',
    what:
      "GET /user reads `created_at` from the account's current subscription, and a change of plan starts a new subscription: once an account's plan has changed, GET /user answers `created_at` equal to the time of the (last) change, while the account was created earlier, as the control plane and the owner's `joined_at` still say. Accounts whose plan never changed are right. " +
      'The platform\'s spec, Endpoints: GET /user returns "the User object: id, email, name, plan, created_at"; mock-control Account: "the v1 `User` (`id`, `object: "user"`, `email`, `name`, `plan`, `created_at`, exactly as `GET /v1/user` returns them for the account\'s keys)"; contract, getUser: "Returns the user (account) that owns the API key".',
    make: () => {
      const book = new Book()
      const plans = book.map<string, string>()
      const restamped = book.map<string, string>()
      return {
        response(response, request) {
          const before = book.clock()
          book.observe(request, response)
          const account = patchedAccount(request)
          if (
            account !== undefined &&
            response.status === 200 &&
            isObject(response.body) &&
            before !== undefined
          ) {
            const previous = plans.get(account)
            if (previous !== undefined && previous !== response.body.plan)
              restamped.set(account, timestampOf(before))
          }
          for (const shown of controlAccounts(request, response))
            plans.set(String(shown.id), String(shown.plan))
          if (!isV1(request) || !isRead(request) || !/^\/v1\/user\/?$/.test(pathOf(request))) return response
          const user = objectsOf(response, 'user')[0]
          const at = user === undefined ? undefined : restamped.get(String(user.id))
          if (user && at !== undefined) user.created_at = at
          return response
        },
      }
    },
  },
  {
    name: 'dropped-custom-limits-kept',
    kind: 'plans',
    what:
      'The account update merges its body as `limits = body.limits ?? account.limits`, so `limits: null` reads as "not sent": an account\'s custom limits cannot be dropped back to its plan\'s defaults (the answer and the account keep `custom_limits: true` and their own quotas, and v1 answers keep enforcing and reporting them). Setting limits, and changing plans, are right. ' +
      'Mock-control updateAccount: "`limits` sets custom quotas (for any plan); `limits: null` drops them, back to the plan\'s defaults"; AccountUpdateRequest.limits: "Custom quotas; `null` = back to the plan\'s defaults".',
    make: () => ({
      request(request) {
        const account = patchedAccount(request)
        const body = objectBody(request)
        if (account === undefined || !body || body.limits !== null) return request
        const { limits: _dropped, ...rest } = body
        if (Object.keys(rest).length > 0) return withJson(request, rest)
        return { ...request, method: 'GET', body: null }
      },
    }),
  },

  // --------------------------------------------------------------------------------------------- reuse
  {
    name: 'reused-idempotency-key-not-stored-again',
    kind: 'reuse',
    what:
      "Stored answers are purged a week after they were made and merely skipped once older than 24 hours, and answers are stored with `INSERT ... ON CONFLICT (account_id, key) DO NOTHING`: an `Idempotency-Key` used again more than 24 hours after its first use is carried out as a new request (right), but its answer is not stored, since the expired row still holds the key, so a retry of that second request is carried out again (a second agent or invitation) instead of replayed, and the same key with another body is carried out instead of 409. Keys used once, and retries within 24 hours of a key's first use, are right. " +
      'Contract, Idempotency: "Keys are scoped to the account and kept for 24 hours (by the platform clock). A successful (2xx) response is stored with its key; a retry with the same key, same path and the same body ... returns the stored status, headers and body, plus `Idempotent-Replayed: true`, without creating anything again ... The same key with another body or another path is 409 `idempotency_key_reused`"; docs/decisions/008-lists-and-idempotency.md: "kept 24 hours".',
    make: () => {
      const book = new Book()
      const firstUse = book.map<string, number>()
      const noted = new Set<EngineRequest>()
      let fresh = 0
      return {
        request(request) {
          const key = request.headers['idempotency-key']
          const now = book.clock()
          if (!isV1(request) || request.method !== 'POST' || key === undefined || now === undefined)
            return request
          if (!/^[\x21-\x7e]{1,255}$/.test(key)) return request
          const first = firstUse.get(`${book.account(tokenOf(request))} ${key}`)
          if (first === undefined || now < first + DAY || now >= first + PURGE_DAYS * DAY) return request
          fresh++
          const sent = {
            ...request,
            headers: { ...request.headers, 'idempotency-key': `h19-reused-${fresh}` },
          }
          noted.add(sent)
          return sent
        },
        response(response, request) {
          const wasNoted = noted.delete(request)
          book.observe(request, response)
          const key = request.headers['idempotency-key']
          const now = nowOf(response)
          if (
            wasNoted ||
            !isV1(request) ||
            request.method !== 'POST' ||
            key === undefined ||
            now === undefined
          )
            return response
          if (!ok(response) || replayed(response)) return response
          const slot = `${book.account(tokenOf(request))} ${key}`
          const first = firstUse.get(slot)
          if (first === undefined || now >= first + PURGE_DAYS * DAY) firstUse.set(slot, now)
          return response
        },
      }
    },
  },

  // ------------------------------------------------------------------------------------------- relations
  {
    name: 'past-recordings-hidden-after-recording-disabled',
    kind: 'relations',
    what:
      "The call-log presenter shows a recording only while the call's agent records calls (`agent?.recording_enabled ? log.recording_url : null`, a check meant for the calls being placed): once an agent's `recording_enabled` is switched off, or the agent is deleted, every call it recorded before shows `recording_url: null`, in lists and by ID. Calls of agents that still record are right. " +
      'Contract, CallLogSummary.recording_url: "Recording of the call; `null` when recording was disabled or the call has not ended" (disabled for that call); deleteAgent: "The agent\'s call logs are **kept** (they keep its `agent_id` and still appear in lists and analytics)"; mock-control startCall: "with `ended_at`, `duration_seconds` ..., `cost_usd`, `end_reason` and, when the agent records calls, `recording_url`".',
    make: () => {
      const book = new Book()
      const silenced = book.set<string>()
      return {
        response(response, request) {
          book.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const patched = itemId(request, 'PATCH', 'agents')
          const body = objectBody(request)
          if (patched !== undefined && response.status === 200 && body && 'recording_enabled' in body) {
            if (body.recording_enabled === false) silenced.add(`${account} ${patched}`)
            else silenced.delete(`${account} ${patched}`)
          }
          const removed = itemId(request, 'DELETE', 'agents')
          if (removed !== undefined && response.status === 200) silenced.add(`${account} ${removed}`)
          for (const log of objectsOf(response, 'call_log'))
            if (silenced.has(`${account} ${String(log.agent_id)}`)) log.recording_url = null
          return response
        },
      }
    },
  },
  {
    name: 'agent-deletion-cancels-its-unconnected-calls',
    kind: 'relations',
    what:
      "Deleting an agent purges the dialer's queue of that agent's calls, and the call logs of the purged calls are written as canceled: a call of the agent that was still queued or ringing when the agent was deleted is shown (in lists and by ID) `canceled`, ended at the deletion, with no cost, transcript, recording or analysis, although the call went on (it connected and completed, or reached its own final status). Calls of agents that are not deleted, and calls that had connected before the deletion, are right. " +
      'Contract, deleteAgent: "The agent\'s call logs are **kept** (they keep its `agent_id` and still appear in lists and analytics)"; mock-control startCall: "The call then moves on the mock clock ... Deleting the call log stops the call" (deleting its agent does not); CallStatus: "`queued` -> `ringing` -> `in_progress` -> `completed`".',
    make: () => {
      const book = new Book()
      const calls = book.keep(new LiveCalls())
      const canceled = book.map<string, number>()
      const matches = (log: Json, query: URLSearchParams): boolean => {
        const status = query.get('status')
        if (status !== null && status !== log.status) return false
        const duration = typeof log.duration_seconds === 'number' ? log.duration_seconds : undefined
        const min = query.get('min_duration_seconds')
        const max = query.get('max_duration_seconds')
        if (min !== null && (duration === undefined || duration < Number(min))) return false
        if (max !== null && (duration === undefined || duration > Number(max))) return false
        const started = typeof log.started_at === 'string' ? Date.parse(log.started_at) : Number.NaN
        const after = query.get('started_after')
        const before = query.get('started_before')
        if (after !== null && !(started > Date.parse(after))) return false
        if (before !== null && !(started < Date.parse(before))) return false
        return true
      }
      return {
        response(response, request) {
          book.observe(request, response)
          calls.observe(request, response)
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          const removed = itemId(request, 'DELETE', 'agents')
          const at = nowOf(response)
          if (removed !== undefined && response.status === 200 && at !== undefined)
            for (const call of calls.of(account))
              if (call.agent === removed && at < call.created + 1 + call.ring && !canceled.has(call.id))
                canceled.set(call.id, at)
          const changed = new Set<Json>()
          for (const log of objectsOf(response, 'call_log')) {
            const at = canceled.get(String(log.id))
            const call = calls.get(log.id)
            if (at === undefined || !call) continue
            const started = call.created + 1 <= at ? call.created + 1 : undefined
            log.status = 'canceled'
            log.end_reason = null
            log.started_at = started === undefined ? null : timestampOf(started)
            log.ended_at = timestampOf(at)
            log.duration_seconds = started === undefined ? 0 : at - started
            log.cost_usd = 0
            log.recording_url = null
            log.analysis = null
            if ('transcript' in log) log.transcript = []
            changed.add(log)
          }
          const body = isObject(response.body) ? response.body : undefined
          if (isList(request, 'call-logs') && body && Array.isArray(body.data) && changed.size > 0) {
            const query = queryOf(request)
            body.data = (body.data as Json[]).filter((log) => !changed.has(log) || matches(log, query))
          }
          return response
        },
      }
    },
  },
  {
    name: 'orphaned-call-logs-undeletable',
    kind: 'relations',
    what:
      "DELETE /call-logs/{call_log_id} loads the call log through its agent (`agent.callLogs.find(id)`, so that the account is checked by the agent's ownership): a call log whose agent was deleted is not found, 404 `resource_not_found`, and stays, although it is listed and read by ID. Call logs of agents that exist are deleted right. " +
      'Contract, deleteAgent: "The agent\'s call logs are **kept** (they keep its `agent_id` and still appear in lists and analytics)"; deleteCallLog: "Permanently deletes a call log (with its transcript, analysis and recording reference) and answers `{id, object: "call_log", deleted: true}`"; NotFound: "`resource_not_found`: the path ID does not exist in the key\'s account".',
    make: () => {
      const book = new Book()
      const calls = book.keep(new LiveCalls())
      const agentOf = book.map<string, string>()
      const gone = book.set<string>()
      const noted = new Map<EngineRequest, string>()
      return {
        request(request) {
          const id = itemId(request, 'DELETE', 'call-logs')
          if (!isV1(request) || id === undefined) return request
          const account = book.account(tokenOf(request))
          const agent = agentOf.get(`${account} ${id}`) ?? calls.get(id)?.agent
          if (agent === undefined || !gone.has(`${account} ${agent}`)) return request
          const sent = oversized(request)
          noted.set(sent, id)
          return sent
        },
        response(response, request) {
          const id = noted.get(request)
          noted.delete(request)
          book.observe(request, response)
          calls.observe(request, response)
          if (id !== undefined)
            return passedToSize(response)
              ? failWith(response, errors.resourceNotFound('call log', id, 'call_log_id'))
              : response
          if (!isV1(request)) return response
          const account = book.account(tokenOf(request))
          for (const log of objectsOf(response, 'call_log'))
            agentOf.set(`${account} ${String(log.id)}`, String(log.agent_id))
          const removed = itemId(request, 'DELETE', 'agents')
          if (removed !== undefined && response.status === 200) gone.add(`${account} ${removed}`)
          return response
        },
      }
    },
  },
]
