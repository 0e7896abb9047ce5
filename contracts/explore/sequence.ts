import { bodyBreakages } from '../contract/breakages.ts'
import type { Contract } from '../contract/contract.ts'
import { type ContractOperation, fillPath, matchOperation } from '../contract/operations.ts'
import { parseRateLimit } from '../http/rate-limit-headers.ts'
import { MockControlError } from '../provision/mock-control.ts'
import { editedBody } from './body-edits.ts'
import { isRespelled, spellBody } from './body-spelling.ts'
import { transcriptDifferences } from './call-relations.ts'
import {
  compareAnswers,
  type Difference,
  errorCodeDifferences,
  headerSentence,
  responseSentence,
  uniqueHeaders,
} from './compare-answers.ts'
import {
  creatingOperations,
  itemPathOf,
  listOperations,
  listPrefix,
  paginationNames,
  uniqueEmails,
  viewOperations,
} from './contract-shapes.ts'
import {
  accountsDifferences,
  type ControlView,
  filteredJournalDifferences,
  JOURNAL_DEFAULT_LIMIT,
  journalDifferences,
  journalHoldsDifferences,
  readView,
  type SentRequest,
  VIEW_PLACES,
  VIEW_READS,
  viewDifferences,
} from './control-views.ts'
import { IdMap } from './id-map.ts'
import { isObject } from './is-object.ts'
import type { ModelTime } from './model-time.ts'
import { enumParameters, spellRequest } from './request-spelling.ts'
import { idPrefixes, resolveNode, typesOf, writeOnlyValues } from './schema-node.ts'
import { resolveSeen } from './schema-values.ts'
import { type IdPair, SequenceMemory } from './sequence-memory.ts'
import type { Model, Side, SideAnswer, SideRequest } from './sides.ts'
import {
  type ApiStep,
  type BodyChoice,
  CALENDAR_EDGES,
  type KeyRole,
  lacking,
  MANGLED_ROLES,
  mangled,
  only,
  type ParamChoice,
  type SetupSpec,
  type Step,
  type Watch,
  WEBHOOK_SECRET_ACTIONS,
  type WebhookSecretAction,
} from './step-types.ts'

/** The origin the `origin` key is bound to, and another one. */
export const ALLOWED_ORIGIN = 'https://explore.example'
const OTHER_ORIGIN = 'https://elsewhere.example'
/** A well-formed key that no account holds: the same on both sides. */
const UNKNOWN_KEY = `sk-svc-${'0Explore'.repeat(5)}`
/** Quotas of the other account: out of the way. */
const ROOMY = { hourly: 100_000, burst: 10_000 }
/** Phone numbers of simulated phone calls: given, so that neither side makes them up. */
const NUMBERS = { ours: '+14155550142', theirs: '+14155550187' }

/** One interaction with the target's API or control plane, as the script replays it. */
export interface Interaction {
  plane: 'v1' | 'control'
  method: string
  /** Path (and query) below the base URL or the control plane's root. */
  path: string
  headers: Record<string, string>
  body?: string
  /** The target's answer body (parsed), from which the script takes IDs and key values. */
  answer: unknown
}

/** One step as the report shows it. */
export interface Recorded {
  /** 1-based among the sequence's steps; 0 for setup. */
  number: number
  title: string
  /** Requests to v1 of this step (a write and its read-backs are one step). */
  exchanges: {
    title: string
    request: SideRequest
    target: SideAnswer
    model: SideAnswer
    differences: Difference[]
    note?: string
  }[]
  /** What the step did on the control plane, in words. */
  note?: string
  /** Its requests were sent at once (a `burst`): a script sends them together too. */
  together?: boolean
  /** The target's clock when the setup began (a script shifts the run's instants by as much as it moved since). */
  clock?: string
  /** The keys the setup made, by role. */
  keys?: KeyRole[]
  interactions: Interaction[]
}

/** One request of a step, as both sides answered it. */
export type Exchanged = Recorded['exchanges'][number]

/** What an exchange is compared by. */
interface ExchangeMeta {
  /** The operation whose contract decides (undefined: a path or method the contract does not define). */
  operation?: ContractOperation
  role: KeyRole
  title: string
  /** Why it is not compared, when the contract leaves it open. */
  uncompared?: string
}

/** A request sent with an Idempotency-Key, kept for the steps that send it again. */
interface Idempotent {
  pair: { target: SideRequest; model: SideRequest }
  operation: ContractOperation
  role: KeyRole
  /** Whether the model carried it out (a 2xx): its key then stands for that body. */
  done: boolean
}

/** A request step's request on each side, and what its exchange needs. */
interface Prepared {
  pair: { target: SideRequest; model: SideRequest }
  operation: ContractOperation
  /** The operation whose contract decides, when the request is one of its own. */
  compared?: ContractOperation
  method: string
  title: string
  uncompared?: string
  /** The Idempotency-Key of a POST, on each side. */
  idempotencyKey?: IdPair
}

/** A difference between the target and the model: the sequence up to it. */
export class DifferenceFound extends Error {
  constructor(readonly records: Recorded[]) {
    super('the target and the model answered differently')
    this.name = 'DifferenceFound'
  }
}

/** The rest of the sequence cannot be compared (a proxy answered in the target's place). */
export class SequenceCut extends Error {}

interface KeyPair {
  target: string
  model: string
  targetId?: string
  modelId?: string
}

const MAIN_KEYS: { role: KeyRole; input: (spec: SetupSpec, expiresAt: string) => Record<string, unknown> }[] =
  [
    { role: 'secret', input: () => ({ type: 'secret' }) },
    { role: 'publishable', input: () => ({ type: 'publishable' }) },
    { role: 'read', input: () => ({ type: 'secret', permissions: ['read'] }) },
    { role: 'no-scope', input: () => ({ type: 'secret', permissions: [] }) },
    { role: 'revoked', input: () => ({ type: 'secret' }) },
    {
      role: 'expiring',
      input: (_, expiresAt) => ({ type: 'secret', restrictions: { expires_at: expiresAt } }),
    },
    {
      role: 'origin',
      input: () => ({ type: 'secret', restrictions: { allowed_origins: [ALLOWED_ORIGIN] } }),
    },
    { role: 'spare', input: () => ({ type: 'secret' }) },
  ]

const iso = (second: number) => new Date(second * 1000).toISOString().replace('.000Z', 'Z')
/** The same instant written at offset +01:00 (any RFC 3339 offset is the same instant). */
const atOffset = (second: number) => `${iso(second + 3600).slice(0, -1)}+01:00`
/** An instant written with a fraction of a second after its seconds (`...:05.75Z`, `...:05.5+01:00`). */
const withFraction = (instant: string, fraction: number) =>
  fraction === 0 ? instant : instant.replace(/(:\d\d)(Z|[+-]\d\d:\d\d)$/, `$1${String(fraction).slice(1)}$2`)
/** Most pages a read back walks. */
const MAX_PAGES = 8

export interface SequenceDeps {
  contract: Contract
  target: Side
  model: Model
  time: ModelTime
  /** Whether the target's control plane places simulated calls (learnt on the first try). */
  capabilities: {
    calls?: boolean
    join?: boolean
    webhookSecret?: boolean
    loopback?: boolean
    scenarios?: boolean
  }
  /** Tags the accounts a sequence makes. */
  label: string
  /** Every key value the run saw: reports never print them. */
  secrets: Set<string>
  /** Whether the search's time is up: the sequence then stops before its next step (it passes). */
  timeIsUp?: () => boolean
}

/**
 * One generated sequence, run against the target and the model side by side: its accounts on each side set
 * up the same way, then each step sent to both and the answers compared; the first difference throws
 * `DifferenceFound` with the steps so far. What the sequence learns (IDs on each side, values sent and seen,
 * requests made with an Idempotency-Key) feeds the choices of the steps that follow.
 */
export class Sequence {
  readonly ids = new IdMap()
  readonly records: Recorded[] = []
  private readonly keys = new Map<KeyRole, KeyPair>()
  private readonly accounts = { target: { main: '', other: '' }, model: { main: '', other: '' } }
  private readonly memory = new SequenceMemory()
  private readonly idempotent: Idempotent[] = []
  private current?: Recorded
  private steps = 0
  /** The list being read a page per `page` step: where it is, and the cursor of its next page. */
  private paging?: {
    collection: string
    pageSize: number
    direction: string
    cursor?: IdPair
    /** The list's filters, kept on every page (`name=value&...` on each side; empty for none). */
    filters: IdPair
  }
  /** Team members (the model's IDs) the model last showed invited: those that may join. */
  private readonly invited = new Set<string>()
  /** Requests the journal must show at its next reading (journalHoldsDifferences), and `requests` at the last one. */
  private unjournaled: SentRequest[] = []
  private journalRead = 0
  /** The seconds each placed call (by the target's ID) was asked to ring: no one speaks before it connects. */
  private readonly ringing = new Map<string, number>()
  /** Which of `CALENDAR_EDGES` the sequence's calendar instants are near. */
  private edge = 0
  /** Values of the headers the contract calls unique, as the target's answers gave them. */
  private readonly uniqueValues = new Map<string, Set<string>>()
  /** The last second in which something was written (an object created, changed or deleted), on both sides. */
  private lastWrite = Number.NEGATIVE_INFINITY

  constructor(private readonly deps: SequenceDeps) {}

  /** Requests sent to the target's v1 API so far. */
  requests = 0

  // ---------------------------------------------------------------- setup and teardown

  /**
   * Makes the sequence's accounts, keys and the other account's objects, the same way on both sides. Only the
   * keys of `roles` are made (the secret keys of both accounts always): making a key costs a hash on each side.
   */
  async setup(spec: SetupSpec, serial: number, roles?: ReadonlySet<KeyRole>): Promise<void> {
    const wanted = (role: KeyRole) =>
      role === 'secret' || role === 'other-secret' || !roles || roles.has(role)
    const { target, time } = this.deps
    this.current = { number: 0, title: 'setup', exchanges: [], interactions: [], keys: [] }
    this.records.push(this.current)
    this.current.clock = (await target.control.clock()).now
    time.read(this.current.clock)
    const main = await this.account(
      {
        plan: spec.plan,
        name: `Exploration ${this.deps.label}`,
        email: `explore-${this.deps.label}-${serial}@example.com`,
        limits: spec.limits,
      },
      'main',
    )
    this.edge = spec.edge
    const expiresAt = iso(time.current() + spec.expiresIn)
    for (const { role, input } of MAIN_KEYS)
      if (wanted(role)) await this.key(role, main, input(spec, expiresAt))
    const scopes = this.deps.contract.scopes
    for (const scope of scopes)
      if (wanted(lacking(scope)))
        await this.key(lacking(scope), main, {
          type: 'secret',
          permissions: scopes.filter((s) => s !== scope),
        })
    for (const scope of scopes)
      if (wanted(only(scope))) await this.key(only(scope), main, { type: 'secret', permissions: [scope] })
    await this.revoke('revoked')
    const other = await this.account(
      {
        plan: 'enterprise',
        name: `Exploration ${this.deps.label} (other)`,
        email: `explore-${this.deps.label}-${serial}-other@example.com`,
        limits: ROOMY,
      },
      'other',
    )
    await this.key('other-secret', other, { type: 'secret' })
    if (wanted('other-revoked')) await this.key('other-revoked', other, { type: 'secret' })
    await this.revoke('other-revoked')
    // Objects of the other account, whose IDs the steps send with this account's keys; then the account's
    // own first objects (as many of each kind as the setup says), for the steps to read, change and page.
    const creating = creatingOperations(this.deps.contract)
    for (const operation of creating) await this.setupObject(operation, 'other-secret', serial, 0)
    for (const [index, operation] of creating.entries())
      for (let n = 1; n <= (spec.objects[index] ?? 0); n++)
        await this.setupObject(operation, 'secret', serial, n)
    await this.setupCalls(spec)
    // And every list, read back: the lists teach the steps the objects no request made (the owner, the calls).
    for (const operation of listOperations(this.deps.contract)) {
      const read = (side: 'target' | 'model'): SideRequest => ({
        method: 'GET',
        path: operation.path,
        headers: { authorization: `Bearer ${this.keyOf('secret', side)}` },
      })
      await this.exchange(
        { target: read('target'), model: read('model') },
        { operation, role: 'secret', title: `GET ${operation.path} (this account)` },
      )
    }
    time.read((await target.control.clock()).now)
  }

  /**
   * The simulated calls the account starts with, on its agents, and the other account's first one (its call log
   * an ID the steps send with this account's keys), let run to their end together.
   */
  private async setupCalls(spec: SetupSpec): Promise<void> {
    let settle = 0
    for (const [n, call] of spec.calls.entries()) {
      const placed = await this.placeCall({ agent: n, ...call })
      if (!placed) break
      settle = Math.max(settle, call.ringSeconds + call.durationSeconds + 125)
    }
    const first = spec.calls[0]
    if (
      first &&
      settle > 0 &&
      (await this.placeCall({ agent: 0, ...first, channel: 'web', direction: 'inbound' }, 'other'))
    )
      settle = Math.max(settle, first.ringSeconds + first.durationSeconds + 125)
    if (settle > 0) await this.advanceBy(settle)
  }

  /** One object made with an example body of the contract (e-mail addresses made unique). */
  private async setupObject(
    operation: ContractOperation,
    role: KeyRole,
    serial: number,
    n: number,
  ): Promise<void> {
    const examples = operation.requestBody?.examples ?? []
    const example = examples[n % Math.max(1, examples.length)]
    if (!isObject(example)) return
    const body = JSON.stringify(
      uniqueEmails(this.deps.contract, operation, example, `${role}-${serial}-${n}`),
    )
    const request = (side: 'target' | 'model'): SideRequest => ({
      method: 'POST',
      path: operation.path,
      headers: { authorization: `Bearer ${this.keyOf(role, side)}`, 'content-type': 'application/json' },
      body,
      operationId: operation.operationId,
    })
    await this.separateWrite()
    await this.exchange(
      { target: request('target'), model: request('model') },
      {
        operation,
        role,
        title: `${operation.method.toUpperCase()} ${operation.path} (${role === 'secret' ? 'this' : 'the other'} account)`,
      },
    )
  }

  private async account(input: Record<string, unknown>, which: 'main' | 'other'): Promise<string> {
    const { target, model, time } = this.deps
    const made = await target.control.createAccount(input as never)
    this.interact('control', 'POST', '/accounts', {}, input, made)
    time.step(Math.floor(Date.parse(made.created_at) / 1000))
    const twin = await model.control.createAccount(input as never)
    this.ids.set(made.id, twin.id)
    this.wrote(made.created_at)
    this.accounts.target[which] = made.id
    this.accounts.model[which] = twin.id
    return made.id
  }

  private async key(role: KeyRole, accountId: string, input: Record<string, unknown>): Promise<void> {
    const { target, model, time } = this.deps
    const modelAccount = this.ids.toModel(accountId) as string
    const body = { name: `explore ${role}`, ...input }
    const made = await target.control.createKey(accountId, body as never)
    this.interact('control', 'POST', `/accounts/${accountId}/keys`, {}, body, made)
    if (made.created_at) time.step(Math.floor(Date.parse(made.created_at) / 1000))
    const twin = await model.control.createKey(modelAccount, body as never)
    this.ids.set(made.id, twin.id)
    for (const value of [made.value, twin.value]) {
      this.deps.secrets.add(value)
      // The secret key written wrong is nearly the key: reports redact it as they redact the key.
      if (role === 'secret') for (const wrong of MANGLED_ROLES) this.deps.secrets.add(mangled(value, wrong))
    }
    this.keys.set(role, { target: made.value, model: twin.value, targetId: made.id, modelId: twin.id })
    this.records[0]?.keys?.push(role)
  }

  /** The contract's first read that names no object (GET /user): read around a revocation or a plan change. */
  private plainRead(): string | undefined {
    return this.deps.contract.operations.find((op) => op.method === 'get' && !op.path.includes('{'))?.path
  }

  private async revoke(role: KeyRole): Promise<void> {
    const pair = this.keys.get(role)
    if (!pair?.targetId || !pair.modelId) return
    const { target, model, time } = this.deps
    // Used just before and right after: a revocation is effective on the very next request, also for a key
    // an implementation has just seen (and might have kept the outcome of its check for a while).
    const path = this.plainRead()
    if (path) await this.readAs(role, path, 'just before its revocation')
    const revoked = await target.control.revokeKey(pair.targetId)
    this.interact('control', 'POST', `/keys/${pair.targetId}/revoke`, {}, undefined, undefined)
    // The model's key is revoked in the second the target's was (its revoked_at, else the last reading).
    const second = Math.floor(Date.parse(String(revoked.revoked_at)) / 1000)
    time.step(Number.isNaN(second) ? time.current() : Math.max(second, time.current()))
    await model.control.revokeKey(pair.modelId)
    if (path) await this.readAs(role, path, 'right after its revocation')
  }

  /**
   * The main account's plan or quotas changed through the control plane, read (GET /user) just before and right
   * after: a change is effective on the very next request, also where an implementation keeps the account's
   * plan and quotas for a while.
   */
  private async changePlan(step: Extract<Step, { kind: 'plan' }>): Promise<void> {
    const { target, model, time } = this.deps
    const now =
      step.limits === 'pinned' ? await model.control.getAccount(this.accounts.model.main) : undefined
    const change = now
      ? { plan: now.plan, limits: now.limits }
      : step.limits === undefined || step.limits === 'pinned'
        ? { plan: step.plan }
        : { plan: step.plan, limits: step.limits }
    const limits = change.limits
      ? ` with ${change.limits.hourly} an hour, ${change.limits.burst} a burst`
      : ''
    if (this.current)
      this.current.title = now
        ? `the account's quotas pinned on its ${now.plan} plan${limits} (PATCH /_mock/accounts/{account_id})`
        : `the plan changed to ${change.plan}${limits} (PATCH /_mock/accounts/{account_id})`
    const path = this.plainRead()
    if (path) await this.readAs('secret', path, 'just before the plan changes')
    const id = this.accounts.target.main
    await target.control.updateAccount(id, change)
    this.interact('control', 'PATCH', `/accounts/${id}`, {}, change, undefined)
    time.step(time.current())
    await model.control.updateAccount(this.accounts.model.main, change)
    if (path) await this.readAs('secret', path, 'right after the plan changed')
    // Then the dashboard shows the account (its plan, quotas, whether they are its own), as after a revocation.
    await this.thenShown(() => this.look('account'))
  }

  /** Deletes the sequence's accounts on both sides (their keys and data go with them). */
  async close(): Promise<void> {
    const { target, model } = this.deps
    for (const which of ['main', 'other'] as const) {
      if (this.accounts.target[which])
        await target.control.deleteAccount(this.accounts.target[which]).catch(() => undefined)
      if (this.accounts.model[which])
        await model.control.deleteAccount(this.accounts.model[which]).catch(() => undefined)
    }
  }

  /** Notes that something was written at `instant` (an ISO instant, or a second). */
  private wrote(instant: unknown): void {
    const second =
      typeof instant === 'number'
        ? instant
        : typeof instant === 'string'
          ? Math.floor(Date.parse(instant) / 1000)
          : Number.NaN
    if (!Number.isNaN(second)) this.lastWrite = Math.max(this.lastWrite, second)
  }

  /**
   * Before a request that may write: when something was already written in the current second, the clock is
   * moved one second on the target (and so on the model). Every write then has a second of its own, whatever
   * real time does: objects created in the same second would be ordered by ID, and the two sides' IDs differ;
   * and a change in the second of the creation would leave `updated_at` where it was, on a replay or not.
   */
  private async separateWrite(): Promise<void> {
    if (this.deps.time.current() > this.lastWrite) return
    await this.advanceBy(1)
    if (this.current)
      this.current.note = 'the clock moved 1 s first: something was written in this second already'
  }

  // ---------------------------------------------------------------- steps

  /** Runs one step on both sides; throws `DifferenceFound` when their answers differ. */
  async run(step: Step): Promise<void> {
    if (this.deps.timeIsUp?.()) throw new SequenceCut('the time to explore is up')
    this.steps++
    this.current = { number: this.steps, title: '', exchanges: [], interactions: [] }
    this.records.push(this.current)
    switch (step.kind) {
      case 'api':
        await this.api(step)
        return
      case 'burst':
        return this.burst(step)
      case 'again':
        return this.again(step)
      case 'edits':
        return this.edits(step)
      case 'recreate':
        return this.recreate(step)
      case 'look':
        return this.look(step.view)
      case 'advance':
        return this.advance(step.seconds)
      case 'call':
        return this.call(step)
      case 'page':
        return this.page(step)
      case 'revoke': {
        const pair = this.keys.get(step.key)
        const title = `revoke the ${step.key} key (POST /_mock/keys/{key_id}/revoke)`
        this.current.title = title
        if (!pair?.targetId) return
        // In a second of its own (a key revoked again must keep its revoked_at), then the dashboard shows the keys.
        await this.separateWrite()
        await this.revoke(step.key)
        this.wrote(this.deps.time.current())
        await this.look('keys')
        this.current.title = `${title}, then the dashboard shows the keys`
        return
      }
      case 'plan':
        return this.changePlan(step)
      case 'join':
        return this.join(step)
      case 'secret':
        return this.webhookSecret(step.action)
      case 'mint':
        return this.mint(step)
      case 'scenario':
        return this.scenario(step)
      case 'keyed':
        return this.keyed(step)
    }
  }

  /**
   * A key made on the dashboard of the main account with the permissions and restrictions the step picks, on both
   * control planes (compared but for the key's value; a refusal by its status, type and code), then the step's
   * requests sent with it. Its addresses only when the target sees this client at 127.0.0.1, as the model does.
   */
  private async mint(step: Extract<Step, { kind: 'mint' }>): Promise<void> {
    const { time } = this.deps
    const current = this.current as Recorded
    const ips = step.ips && (step.ips.length === 0 || (await this.seesLoopback())) ? step.ips : undefined
    await this.separateWrite()
    const restrictions = {
      ...(ips ? { allowed_ips: ips } : {}),
      ...(step.expiresIn === undefined
        ? {}
        : {
            expires_at: withFraction(
              (step.atOffset ? atOffset : iso)(time.current() + step.expiresIn),
              // A fraction after now's second is decided by where in that second the target reads its clock.
              step.expiresIn > 0 ? (step.fraction ?? 0) : 0,
            ),
          }),
    }
    const body = {
      name: 'explore minted',
      type: step.type,
      ...(step.permissions ? { permissions: step.permissions } : {}),
      ...(Object.keys(restrictions).length > 0 ? { restrictions } : {}),
    }
    const place = 'POST /_mock/accounts/{account_id}/keys'
    current.title = `the dashboard makes a ${step.type} key${step.permissions ? ` with ${JSON.stringify(step.permissions)}` : ''}${ips ? ` from ${ips.length > 0 ? ips.join(', ') : 'anywhere ([])'}` : ''}${step.expiresIn === undefined ? '' : ` expiring in ${step.expiresIn}${step.fraction && step.expiresIn > 0 ? `${String(step.fraction).slice(1)}` : ''} s`} (${place}), then uses it`
    const path = `/accounts/${this.accounts.target.main}/keys`
    // The model makes its key in the second the target made its own; a refusal (an expiry no longer in the
    // future, a second on) in the second the target's clock reads after it.
    const { made, twin } = await this.controlWrite(
      'POST',
      (side) => ({ path: `/accounts/${this.accounts[side].main}/keys`, body }),
      place,
      (created) => this.modelAtCreation(created),
    )
    if (typeof made.value !== 'string' || typeof twin.value !== 'string') return
    // What the target shows of its own key: the prefix and the last 4 characters (mock-control.yaml ApiKey).
    const problems: Difference[] = []
    const redacted = String(made.redacted_value)
    const prefix = /^[a-z]+-[a-z]+-/.exec(made.value)?.[0] ?? ''
    if (
      !redacted.startsWith(prefix) ||
      !redacted.endsWith(made.value.slice(-4)) ||
      redacted.includes(made.value)
    )
      problems.push({
        at: 'body.redacted_value',
        target: redacted,
        model: `${prefix}... and the key's last 4 characters (${made.value.slice(-4)})`,
        decidedBy: 'mock-control.yaml ApiKey: "`redacted_value` shows the prefix and the last 4 characters"',
      })
    // The expiry sent is kept to the second, its fraction dropped (compared with the model's within a second only,
    // as every instant of a view is).
    const sent = restrictions.expires_at
    const kept = isObject(made.restrictions) ? made.restrictions.expires_at : made.expires_at
    const expected = sent === undefined ? undefined : Math.floor(Date.parse(sent) / 1000)
    if (expected !== undefined && typeof kept === 'string' && Date.parse(kept) !== expected * 1000)
      problems.push({
        at: 'body.restrictions.expires_at',
        target: kept,
        model: `${iso(expected)} (${sent} sent, in whole seconds)`,
        decidedBy:
          'mock-control.yaml KeyCreateRequest restrictions.expires_at: "Any RFC 3339 offset and fraction is accepted; the key records it in UTC with `Z`, in whole seconds"',
      })
    if (problems.length > 0) this.controlDifference(`/_mock${path}`, made, undefined, problems, 'POST')
    this.keys.set('minted', {
      target: made.value,
      model: twin.value,
      targetId: String(made.id),
      modelId: String(twin.id),
    })
    for (const use of step.uses) await this.api({ ...use, key: 'minted' })
  }

  /**
   * A scenario on one operation of the main account made on both control planes (compared as any control-plane
   * write), the step's requests to that operation sent (each side meets its own scenario: after authentication,
   * the rate limit and routing, `times` requests), then the scenario removed on both (compared: gone already once
   * its `times` were used). A control plane without scenarios is noted and never asked again.
   */
  private async scenario(step: Extract<Step, { kind: 'scenario' }>): Promise<void> {
    const { target, capabilities } = this.deps
    const current = this.current as Recorded
    const place = 'POST /_mock/scenarios'
    current.title = `the dashboard makes ${step.operation} answer ${step.status} ${step.times === undefined ? 'until removed' : step.times === 1 ? 'once' : `${step.times} times`} for ${step.everyone ? 'every account' : 'the account'} (${place}), then ${step.operation} is asked ${step.uses.length} times`
    if (capabilities.scenarios === false) {
      current.note = "the target's control plane has no scenarios: nothing sent"
      return
    }
    const body = (account: string) => ({
      operation: step.operation,
      ...(step.everyone ? {} : { account_id: account }),
      status: step.status,
      ...(step.times === undefined ? {} : { times: step.times }),
    })
    await this.separateWrite()
    const seen = await target.control.answer('POST', '/scenarios', body(this.accounts.target.main))
    if (seen.status === 404 || seen.status === 405) {
      capabilities.scenarios = false
      current.note = "the target's control plane has no scenarios: nothing sent"
      return
    }
    capabilities.scenarios = true
    const { made, twin } = await this.controlWrite(
      'POST',
      (side) => ({ path: '/scenarios', body: body(this.accounts[side].main) }),
      place,
      (created) => this.modelAtCreation(created),
      seen,
    )
    if (typeof made.id !== 'string' || typeof twin.id !== 'string') return
    const ids = { target: made.id, model: twin.id }
    const itself = (side: 'target' | 'model') => ({ path: `/scenarios/${ids[side]}` })
    for (const use of step.uses) await this.api({ ...use, readBack: false })
    // Read back on both: how many requests it met, how many it has left (gone once its times are used).
    await this.controlWrite('GET', itself, 'GET /_mock/scenarios/{scenario_id}')
    await this.controlWrite('DELETE', itself, 'DELETE /_mock/scenarios/{scenario_id}')
  }

  /**
   * Whether the target sees this client at 127.0.0.1 (the model's client address), learnt once a run: a key of the
   * other account bound to 127.0.0.0/8 reads, uncompared, on both sides. A target behind a port mapping (a
   * container's) sees another address, and a key bound to an address means something else to it.
   */
  private async seesLoopback(): Promise<boolean> {
    const { target, model, capabilities } = this.deps
    if (capabilities.loopback !== undefined) return capabilities.loopback
    const read = this.plainRead()
    if (!read) return false
    const body = {
      name: 'explore address probe',
      type: 'secret',
      restrictions: { allowed_ips: ['127.0.0.0/8'] },
    }
    const made = await target.control.createKey(this.accounts.target.other, body as never)
    const twin = await model.control.createKey(this.accounts.model.other, body as never)
    for (const value of [made.value, twin.value]) this.deps.secrets.add(value)
    this.ids.set(made.id, twin.id)
    const request = (key: string): SideRequest => ({
      method: 'GET',
      path: read,
      headers: { authorization: `Bearer ${key}` },
    })
    const { target: answer } = await this.exchange(
      { target: request(made.value), model: request(twin.value) },
      {
        role: 'other-secret',
        title: 'a key bound to 127.0.0.0/8 reads: does the target see this client there?',
        uncompared: 'learns whether the target sees this client at 127.0.0.1, as the model does',
      },
    )
    capabilities.loopback = answer.status === 200
    return capabilities.loopback
  }

  /**
   * The account's webhook signing secret created (rotated when it has one), shown or revoked on both control
   * planes, the answers compared but for the secret's value (an error by its status, type and code). A control
   * plane without the operation is noted and never asked again.
   */
  private async webhookSecret(action: WebhookSecretAction): Promise<void> {
    const { target, capabilities, time } = this.deps
    const current = this.current as Recorded
    const method = WEBHOOK_SECRET_ACTIONS[action]
    const place = `${method} /_mock/accounts/{account_id}/webhook-secret`
    current.title = `${action} the account's webhook signing secret (${place})`
    if (capabilities.webhookSecret === false) {
      current.note = "the target's control plane has no webhook signing secret: nothing sent"
      return
    }
    if (method !== 'GET') await this.separateWrite()
    const path = (account: string) => `/accounts/${account}/webhook-secret`
    const seen = await target.control.answer(method, path(this.accounts.target.main))
    const code = (seen.body as { error?: { code?: unknown } } | undefined)?.error?.code
    if (seen.status === 405 || (seen.status === 404 && code !== 'resource_not_found')) {
      capabilities.webhookSecret = false
      current.note = "the target's control plane has no webhook signing secret: nothing sent"
      return
    }
    capabilities.webhookSecret = true
    await this.controlWrite(
      method,
      (side) => ({ path: path(this.accounts[side].main) }),
      place,
      async (made) => {
        if (method !== 'POST' || typeof made !== 'string') return
        // The model's secret is made in the second the target's was.
        const second = Math.floor(Date.parse(made) / 1000)
        if (!Number.isNaN(second)) time.step(Math.max(second, time.current()))
        this.wrote(made)
      },
      seen,
    )
    // A change, then the dashboard shows the secret's state (as a revocation is followed by the keys).
    if (method !== 'GET') await this.thenShown(() => this.webhookSecret('show'))
  }

  /**
   * One of the newest team members of the sequence's account joins, on both sides (the `join` step), and is read
   * back. A member who cannot join (active already, removed) is refused by both control planes alike; a control
   * plane without the operation is noted and never asked again.
   */
  private async join(step: Extract<Step, { kind: 'join' }>): Promise<void> {
    const { target, model, capabilities } = this.deps
    const current = this.current as Recorded
    current.title = step.again
      ? 'a member who joined already joins again (POST /_mock/accounts/{account_id}/team-members/{member_id}/join)'
      : 'an invited team member joins (POST /_mock/accounts/{account_id}/team-members/{member_id}/join)'
    // The newest member the model last showed invited; when none is, or when the step asks a member who joined
    // already (or the owner) to join again, the newest such member, whom both control planes must refuse.
    const live = this.memory.pool('live', 'mem')
    const invited = live.filter((m) => this.invited.has(m.model))
    const active = live.filter((m) => !this.invited.has(m.model))
    const members = step.again ? active : invited.length > 0 ? invited : live
    if (capabilities.join === false || members.length === 0) {
      current.note =
        capabilities.join === false
          ? "the target's control plane has no joinTeamMember: nothing sent"
          : 'no team member: nobody joined'
      return
    }
    const member = members[members.length - 1 - (step.member % members.length)] as IdPair
    await this.separateWrite()
    const path = `/accounts/${this.accounts.target.main}/team-members/${member.target}/join`
    let joined: Record<string, unknown> | undefined
    try {
      joined = await target.control.joinMember(this.accounts.target.main, member.target)
    } catch (error) {
      if (!(error instanceof MockControlError)) throw error
      if (/ answered 40[45] /.test(error.message) && !error.message.includes('resource_not_found')) {
        capabilities.join = false
        current.note = "the target's control plane has no joinTeamMember: nothing sent"
        return
      }
      // Refused (joined already, or removed): the model's control plane refuses it too, or the read back differs.
      current.note = `the target's control plane refused: ${error.message.slice(0, 160)}`
    }
    capabilities.join = true
    this.interact('control', 'POST', path, {}, undefined, joined ?? null)
    if (joined) {
      // The model's member joins in the second the target's did.
      const second = Math.floor(Date.parse(String(joined.joined_at)) / 1000)
      if (!Number.isNaN(second)) this.deps.time.step(second)
      this.wrote(joined.joined_at)
      current.title = `team member ${member.target} joins (POST /_mock/accounts/{account_id}/team-members/{member_id}/join)`
    }
    await model.control.joinMember(this.accounts.model.main, member.model).catch(() => undefined)
    await this.read(
      { target: `/team-members/${member.target}`, model: `/team-members/${member.model}` },
      'read back',
    )
  }

  private keyOf(role: KeyRole, side: 'target' | 'model'): string | undefined {
    if (role === 'none') return undefined
    if (role === 'unknown') return UNKNOWN_KEY
    const wrong = MANGLED_ROLES.find((r) => r === role)
    if (wrong) {
      const secret = this.keys.get('secret')?.[side]
      return secret === undefined ? undefined : mangled(secret, wrong)
    }
    return this.keys.get(role)?.[side]
  }

  /** A parameter's value on each side, undefined when absent (`pool`: where an object's ID came from). */
  private param(name: string, choice: ParamChoice): (IdPair & { pool?: string }) | undefined {
    switch (choice.from) {
      case 'absent':
        return undefined
      case 'value':
      case 'broken': {
        const text = typeof choice.value === 'string' ? choice.value : JSON.stringify(choice.value)
        return { target: text, model: text }
      }
      case 'seen': {
        const list = this.memory.sentFor(name)
        return list.length > 0
          ? (list[choice.pick % list.length] as IdPair)
          : { target: choice.fallback, model: choice.fallback }
      }
      case 'object': {
        // An empty pool falls back on the others (an object is more telling than nothing), then on none.
        for (const kind of [choice.pool, 'live', 'other', 'deleted'] as const) {
          const list = this.memory.pool(kind, choice.prefix)
          // Counted from the newest: the object a step just made is the one the next step most often names.
          if (list.length > 0)
            return { ...(list[list.length - 1 - (choice.pick % list.length)] as IdPair), pool: kind }
        }
        return this.unknown(choice.prefix)
      }
      case 'unknown':
        return this.unknown(choice.prefix)
      case 'instant': {
        // A bound on a field (`started_after` on `started_at`) is drawn from that field's instants when any
        // were seen: the parameter and the field share their first word.
        const stamps = this.memory.instantsFor(name)
        const edge = CALENDAR_EDGES[this.edge % CALENDAR_EDGES.length] as string
        const base =
          choice.base === 'object' && stamps.length > 0
            ? (stamps[choice.pick % stamps.length] as { second: number }).second
            : choice.base === 'calendar'
              ? Math.floor(Date.parse(edge) / 1000)
              : this.deps.time.current()
        const text = iso(base + choice.offset)
        return { target: text, model: text }
      }
      case 'number': {
        const seen = this.memory.numbersFor(name)
        const text = String(
          seen.length > 0 ? (seen[choice.pick % seen.length] as number) + choice.offset : choice.fallback,
        )
        return { target: text, model: text }
      }
    }
  }

  private unknown(prefix: string): IdPair {
    const id = `${prefix}_0Explore0Unknown`
    this.ids.set(id, id)
    return { target: id, model: id }
  }

  /**
   * The dashboard's view of the main account read on both control planes and compared (control-views.ts), or, for
   * the journal, held to what any journal shows. A control plane that does not answer it is noted, and nothing
   * is compared.
   */
  private async look(view: ControlView): Promise<void> {
    const { target, model, time } = this.deps
    const current = this.current as Recorded
    const account = { target: this.accounts.target.main, model: this.accounts.model.main }
    const { path, what } = VIEW_READS[view]
    current.title = `the dashboard shows the account's ${what} (GET /_mock${path})`
    const sent = path.replace('{account_id}', account.target)
    // The rate-limit windows move with each second: the target's clock is read around its view, and the model's
    // is read in each second the target's may have been in.
    // So does a call under way (its next stage may come within the second the target read it in).
    const moving = view === 'rate-limit' || view === 'calls'
    const seconds = moving ? [time.read((await target.control.clock()).now)] : []
    let seen: unknown
    try {
      seen = await readView(target.control, view, account.target)
    } catch (error) {
      if (!(error instanceof MockControlError)) throw error
      current.note = `the target's control plane did not show it: ${error.message.slice(0, 160)}`
      return
    }
    this.interact('control', 'GET', sent, {}, undefined, seen)
    if (view === 'journal') {
      // Every request sent since the last reading is on it while they are fewer than the journal shows (its
      // default length, less a margin for those the other account sent).
      const sent = this.requests - this.journalRead <= JOURNAL_DEFAULT_LIMIT / 2 ? this.unjournaled : []
      this.unjournaled = []
      this.journalRead = this.requests
      const differences = [
        ...journalDifferences(seen as object, JOURNAL_DEFAULT_LIMIT, account.target),
        ...journalHoldsDifferences(seen as object, sent),
      ]
      if (differences.length > 0) this.controlDifference(`/_mock${sent}`, seen, undefined, differences)
      // Then through a status class, which must leave out the rest and nothing more.
      const statusClass = this.steps % 2 === 0 ? '4xx' : '2xx'
      const filtered = await target.control.journal({ account_id: account.target, status: statusClass })
      this.interact('control', 'GET', `${sent}&status=${statusClass}`, {}, undefined, filtered)
      const missing = filteredJournalDifferences(seen as object, filtered, statusClass)
      if (missing.length > 0)
        this.controlDifference(`/_mock${sent}&status=${statusClass}`, filtered, seen, missing)
      return
    }
    if (view === 'accounts') {
      const made = [account.target, this.accounts.target.other].filter((id) => id !== '')
      const differences = accountsDifferences(seen as object, made)
      if (differences.length > 0) this.controlDifference(`/_mock${sent}`, seen, undefined, differences)
      return
    }
    if (moving) seconds.push(time.read((await target.control.clock()).now))
    let differences: Difference[] = []
    let shown: unknown
    for (const second of seconds.length > 0 ? [...new Set(seconds)] : [undefined]) {
      if (second !== undefined) time.step(second)
      shown = await readView(model.control, view, account.model)
      differences = viewDifferences(seen, shown, this.ids, VIEW_PLACES[view])
      if (differences.length === 0) return
    }
    this.controlDifference(`/_mock${sent}`, seen, shown, differences)
  }

  /**
   * A control-plane request sent on both sides (`request` gives each side's path and body), compared
   * (`compareControl`): the target's answer (or `seen`, when the caller sent it already), then `beforeModel` told
   * its `created_at` (to set the model's clock), then the model's. A value either answer shows (a key's, a signing
   * secret's: shown once) joins the values reports redact; an object each side made is mapped by its ID.
   */
  private async controlWrite(
    method: string,
    request: (side: 'target' | 'model') => { path: string; body?: unknown },
    place: string,
    beforeModel?: (createdAt: unknown) => Promise<void>,
    seen?: { status: number; body: unknown },
  ): Promise<{ made: Record<string, unknown>; twin: Record<string, unknown> }> {
    const { target, model } = this.deps
    const there = request('target')
    const answered = seen ?? (await target.control.answer(method, there.path, there.body))
    const made = isObject(answered.body) ? answered.body : {}
    if (typeof made.value === 'string') this.deps.secrets.add(made.value)
    this.interact('control', method, there.path, {}, there.body, answered.body)
    await beforeModel?.(made.created_at)
    const here = request('model')
    const shown = await model.control.answer(method, here.path, here.body)
    const twin = isObject(shown.body) ? shown.body : {}
    if (typeof twin.value === 'string') this.deps.secrets.add(twin.value)
    if (typeof made.id === 'string' && typeof twin.id === 'string') this.ids.set(made.id, twin.id)
    this.compareControl(method, there.path, answered, shown, place)
    return { made, twin }
  }

  /**
   * The model's clock for an object the target made at `createdAt`: that second (never back), or, for a refusal
   * (no `created_at`), the second the target's clock reads after it.
   */
  private async modelAtCreation(createdAt: unknown): Promise<void> {
    const { target, time } = this.deps
    const second = Math.floor(Date.parse(String(createdAt)) / 1000)
    time.step(
      Number.isNaN(second) ? time.read((await target.control.clock()).now) : Math.max(second, time.current()),
    )
  }

  /** `show` (the dashboard showing what a step changed) run after the step, its title kept with ", then shown". */
  private async thenShown(show: () => Promise<void>): Promise<void> {
    const title = this.current?.title
    await show()
    if (this.current && title) this.current.title = `${title}, then shown`
  }

  /**
   * A control-plane write's answers on both sides compared (`place` names the operation): the status; then an
   * error by its type and code (its message is each implementation's), a success field by field but for a
   * secret's value.
   */
  private compareControl(
    method: string,
    path: string,
    seen: { status: number; body: unknown },
    shown: { status: number; body: unknown },
    place: string,
  ): void {
    const decidedBy = `mock-control.yaml ${place}`
    const differences =
      seen.status !== shown.status
        ? [{ at: 'status', target: String(seen.status), model: String(shown.status), decidedBy }]
        : seen.status >= 400
          ? errorCodeDifferences(seen.body, shown.body, decidedBy)
          : viewDifferences(seen.body, shown.body, this.ids, decidedBy)
    if (differences.length > 0)
      this.controlDifference(`/_mock${path}`, seen.body, shown.body, differences, method)
  }

  /** A control-plane answer of the target that differs from the model's (or from what any target answers). */
  private controlDifference(
    path: string,
    seen: unknown,
    shown: unknown,
    differences: Difference[],
    method = 'GET',
  ): never {
    const current = this.current as Recorded
    const answer = (body: unknown): SideAnswer => ({
      status: 200,
      headers: {},
      body,
      url: '',
      text: JSON.stringify(body),
      problems: [],
    })
    current.exchanges.push({
      title: current.title,
      request: { method, path, headers: {} },
      target: answer(seen),
      model: answer(shown),
      differences,
    })
    throw new DifferenceFound(this.records)
  }

  /** One object changed several times in a row: the update, then each body made from the object's past. */
  private async edits(step: Extract<Step, { kind: 'edits' }>): Promise<void> {
    const first = step.step.body
    const fallback = first && 'value' in first ? first.value : {}
    await this.api({ ...step.step, readBack: false })
    const title = this.current?.title
    for (const [i, edit] of step.edits.entries())
      await this.api({
        ...step.step,
        body: { form: 'edit', ...edit, value: fallback, spelling: 0 },
        readBack: i === step.edits.length - 1 ? step.step.readBack : false,
      })
    if (this.current)
      this.current.title = `${title}, then changed again from what it was (${step.edits.map((e) => e.edit).join(', ')})`
  }

  /** An object made, removed (a member joining first when `join`), and made again with the same body. */
  private async recreate(step: Extract<Step, { kind: 'recreate' }>): Promise<void> {
    const made = await this.api({ ...step.create, readBack: false })
    const title = this.current?.title
    const id = isObject(made?.body) && typeof made.body.id === 'string' ? made.body.id : undefined
    const item =
      id === undefined
        ? undefined
        : this.itemOf(this.deps.contract.operation(step.create.operationId).path, id)
    if (!item) return
    if (step.join) await this.join({ kind: 'join', member: 0 })
    await this.separateWrite()
    await this.sendWith('secret', 'DELETE', item, 'what was just made')
    await this.api({ ...step.create, readBack: step.create.readBack || { pageSize: 0, backwards: false } })
    if (this.current)
      this.current.title = `${title}, then removed${step.join ? ' (after joining)' : ''} and made again with the same body`
  }

  /** A body made from the past of the object the path names (body-edits.ts); undefined when it has none. */
  private edited(
    choice: Extract<BodyChoice, { form: 'edit' }>,
    operation: ContractOperation,
    path: Record<string, string>,
  ): Record<string, unknown> | undefined {
    const names = operation.path.match(/\{[^}]+\}/g) ?? []
    const named = path[(names[names.length - 1] ?? '{}').slice(1, -1)]
    if (named === undefined || !operation.requestBody) return undefined
    const { document } = this.deps.contract
    const schema = resolveNode(document, operation.requestBody.schema, '#').schema as {
      properties?: Record<string, unknown>
    }
    const editable = Object.entries(schema.properties ?? {}).map(([name, property]) => ({
      name,
      nullable: typesOf(document, resolveNode(document, property, '#')).includes('null'),
    }))
    // An object's ID differs between the two sides: a value holding one is not sent again.
    const holdsId = (value: unknown): boolean =>
      typeof value === 'string'
        ? this.ids.toTarget(value) !== undefined
        : Array.isArray(value)
          ? value.some(holdsId)
          : isObject(value) && Object.values(value).some(holdsId)
    return editedBody(
      choice.edit,
      this.memory.historyOf(named),
      editable,
      choice.pick,
      choice.word,
      (value) => !holdsId(value),
    )
  }

  /** A request step's request on each side, with what its exchange needs. */
  private prepare(step: ApiStep): Prepared {
    const { contract } = this.deps
    const operation = contract.operation(step.operationId)
    const method = step.method ?? operation.method.toUpperCase()
    const path: Record<'target' | 'model', Record<string, string>> = { target: {}, model: {} }
    const query: Record<'target' | 'model', [string, string][]> = { target: [], model: [] }
    const headers: Record<'target' | 'model', Record<string, string>> = { target: {}, model: {} }
    let uncompared: string | undefined
    for (const parameter of operation.parameters) {
      const value = this.param(parameter.name, step.params[parameter.name] ?? { from: 'absent' })
      if (value === undefined) continue
      for (const side of ['target', 'model'] as const) {
        if (parameter.in === 'path') path[side][parameter.name] = value[side]
        else if (parameter.in === 'query') query[side].push([parameter.name, value[side]])
        else if (parameter.in === 'header') headers[side][parameter.name.toLowerCase()] = value[side]
      }
      if (parameter.in === 'path') this.memory.sent(parameter.name, value)
      // The contract does not say whether the ID of a deleted object is still a cursor (a cursor is "the ID
      // of an object of this collection"): either answer is allowed, so none is compared.
      if (value.pool === 'deleted' && idPrefixes(parameter.schema)?.[0] === '*')
        uncompared = `${parameter.name} names a deleted object, which the contract neither allows nor refuses as a cursor`
    }
    let body: string | undefined
    let contentType: string | undefined
    if (step.body && operation.requestBody) {
      const seen = (field: string) => this.memory.seen(field)
      if (step.body.form === 'raw') {
        body = step.body.text
        contentType = step.body.contentType
      } else {
        let value = resolveSeen(step.body.value, seen)
        if (step.body.form === 'edit') value = this.edited(step.body, operation, path.model) ?? value
        if (step.body.form === 'broken' && isObject(value)) {
          const broken = bodyBreakages(contract.document, operation.requestBody.schema, value)
          if (broken.length > 0) value = (broken[step.body.pick % broken.length] as { body: unknown }).body
        }
        ;({ text: body, contentType } = spellBody(value, step.body.spelling))
        // What a valid body sends write-only ("never returned") no answer may hold, and no report prints (a
        // broken body's filler words are no secret).
        if (step.body.form === 'valid' || step.body.form === 'edit')
          for (const secret of writeOnlyValues(contract.document, operation.requestBody.schema, value))
            this.deps.secrets.add(secret)
      }
    }
    const enums = enumParameters(contract, operation)
    let written: string | undefined
    const request = (side: 'target' | 'model'): SideRequest => {
      const out: Record<string, string> = { ...headers[side] }
      const key = this.keyOf(step.key, side)
      // A CORS preflight, as a browser sends it: no key and no body, the method it asks for.
      const preflight = method === 'OPTIONS'
      if (key !== undefined && !preflight) out.authorization = `Bearer ${key}`
      if (contentType && !preflight) out['content-type'] = contentType
      if (step.origin !== 'none') out.origin = step.origin === 'allowed' ? ALLOWED_ORIGIN : OTHER_ORIGIN
      if (preflight) out['access-control-request-method'] = operation.method.toUpperCase()
      const { parts, what } = spellRequest(
        {
          method,
          path: fillPath(operation.path, path[side]) + (step.stray ?? ''),
          query: query[side],
          headers: out,
        },
        preflight ? 0 : (step.form ?? 0),
        enums,
      )
      written = what
      const search = new URLSearchParams(parts.query).toString()
      return {
        method,
        path: parts.path + (search ? `?${search}` : ''),
        headers: parts.headers,
        body: preflight ? undefined : body,
        operationId:
          !step.stray && (method === operation.method.toUpperCase() || method === 'HEAD')
            ? operation.operationId
            : undefined,
      }
    }
    const pair = { target: request('target'), model: request('model') }
    const compared =
      !step.stray && (method === 'HEAD' || method === operation.method.toUpperCase()) ? operation : undefined
    const title = `${method} ${pair.target.path} (key: ${step.key}${written ? `; ${written}` : ''})`
    const idempotencyKey =
      method === 'POST' && headers.target['idempotency-key'] !== undefined
        ? { target: headers.target['idempotency-key'], model: headers.model['idempotency-key'] as string }
        : undefined
    return { pair, operation, compared, method, title, uncompared, idempotencyKey }
  }

  /** Notes a POST sent with an Idempotency-Key: a later step may send it again. */
  private rememberIdempotent(prepared: Prepared, role: KeyRole, status: number | undefined): void {
    if (!prepared.idempotencyKey) return
    this.memory.sent('Idempotency-Key', prepared.idempotencyKey)
    const done = status !== undefined && status >= 200 && status < 300
    this.idempotent.push({ pair: prepared.pair, operation: prepared.operation, role, done })
  }

  private async api(step: ApiStep): Promise<SideAnswer | undefined> {
    const prepared = this.prepare(step)
    const { pair, operation, method, uncompared } = prepared
    const times = Math.max(1, step.repeat)
    const title = `${prepared.title}${times > 1 ? `, ${times} times` : ''}`
    if (this.current) this.current.title = title
    let answers: { target: SideAnswer; model: SideAnswer } | undefined
    for (let i = 0; i < times; i++) {
      if (method !== 'GET' && method !== 'HEAD') await this.separateWrite()
      answers = await this.exchange(pair, {
        operation: prepared.compared,
        role: step.key,
        uncompared,
        title: times > 1 ? `${method} ${pair.target.path} (${i + 1} of ${times})` : title,
      })
    }
    this.rememberIdempotent(prepared, step.key, answers?.model.status)
    const first = answers?.model
    if (
      answers &&
      step.readBack &&
      !step.stray &&
      method !== 'GET' &&
      method !== 'HEAD' &&
      answers.model.status < 300
    ) {
      // A change read back at once (in the second it was made: a read that lags the write shows here), then
      // sent again a second later: it changes nothing, and is still an update.
      if (method === 'PATCH') {
        if (this.deps.contract.document.paths[operation.path]?.get)
          await this.read(withoutQuery(pair), 'read back at once')
        await this.separateWrite()
        answers = await this.exchange(pair, { operation, role: step.key, title: `${title}, again` })
      }
      await this.readBack(operation, pair, answers.model, step.readBack)
    }
    return first
  }

  /** After a write: the object (when the path names one) and its collection, read with the secret key. */
  private async readBack(
    operation: ContractOperation,
    pair: { target: SideRequest; model: SideRequest },
    answer: SideAnswer,
    how: { pageSize: number; backwards: boolean },
  ): Promise<void> {
    const { contract } = this.deps
    const paths = contract.document.paths as Record<string, Record<string, unknown>>
    const created = isObject(answer.body) && typeof answer.body.id === 'string' ? answer.body.id : undefined
    let item: IdPair | undefined
    if (operation.method === 'post' && created) {
      if (itemPathOf(contract, operation.path, 'get')) item = this.itemOf(operation.path, created)
    } else if (paths[operation.path]?.get) item = withoutQuery(pair)
    if (item) await this.read(item, 'read back')
    const collection = operation.path.replace(/\/\{[^}]+\}$/, '')
    if (paths[collection]?.get) await this.walk(collection, how)
  }

  /** A GET with the secret key on both sides. */
  private read(path: IdPair, why: string, role: KeyRole = 'secret'): Promise<SideAnswer> {
    return this.sendWith(role, 'GET', path, why)
  }

  /** A request without a body to `path` on each side with the key of `role`, compared; the model's answer. */
  private async sendWith(role: KeyRole, method: string, path: IdPair, why: string): Promise<SideAnswer> {
    const request = (side: 'target' | 'model'): SideRequest => ({
      method,
      path: path[side],
      headers: { authorization: `Bearer ${this.keyOf(role, side)}` },
    })
    const found = matchOperation(this.deps.contract.operations, method, path.target.split('?')[0] as string)
    const { model } = await this.exchange(
      { target: request('target'), model: request('model') },
      {
        operation: found.operation,
        role,
        title: `${method} ${path.target} (${role === 'secret' ? why : `key: ${role}, ${why}`})`,
      },
    )
    return model
  }

  /** The path of the object `modelId` of `collection` on each side; undefined when the target's ID is unknown. */
  private itemOf(collection: string, modelId: string): IdPair | undefined {
    const targetId = this.ids.toTarget(modelId)
    if (targetId === undefined) return undefined
    return {
      target: `${collection}/${encodeURIComponent(targetId)}`,
      model: `${collection}/${encodeURIComponent(modelId)}`,
    }
  }

  /** A read of a path that names no object (the same on both sides) with the key of `role`. */
  private readAs(role: KeyRole, path: string, why: string): Promise<SideAnswer> {
    return this.read({ target: path, model: path }, why, role)
  }

  /**
   * A list read whole, page by page, each page asked for with the cursor of the one before (the contract's
   * `limit`, `starting_after`, `ending_before`), then back up from its oldest object: pages that must join up.
   */
  private async walk(collection: string, how: { pageSize: number; backwards: boolean }): Promise<void> {
    const names = paginationNames(this.deps.contract)
    const list = matchOperation(this.deps.contract.operations, 'GET', collection).operation
    const takes = (name: string) => list?.parameters.some((p) => p.name === name) === true
    if (how.pageSize === 0 || !names || !takes(names.limit) || !takes(names.after)) {
      await this.read({ target: collection, model: collection }, 'read back')
      return
    }
    const page = (cursor?: IdPair, direction = names.after) => ({
      target: `${collection}?${names.limit}=${how.pageSize}${cursor ? `&${direction}=${cursor.target}` : ''}`,
      model: `${collection}?${names.limit}=${how.pageSize}${cursor ? `&${direction}=${cursor.model}` : ''}`,
    })
    const pairOf = (object: unknown): IdPair | undefined => {
      const id = isObject(object) && typeof object.id === 'string' ? object.id : undefined
      const target = id ? this.ids.toTarget(id) : undefined
      return id && target ? { target, model: id } : undefined
    }
    let cursor: IdPair | undefined
    let oldest: IdPair | undefined
    for (let n = 0; n < MAX_PAGES; n++) {
      const answer = await this.read(page(cursor), 'read back, page by page')
      const data = isObject(answer.body) && Array.isArray(answer.body.data) ? answer.body.data : []
      oldest = pairOf(data.at(-1)) ?? oldest
      if (
        answer.status !== 200 ||
        !isObject(answer.body) ||
        answer.body.has_more !== true ||
        data.length === 0
      )
        break
      cursor = oldest
    }
    if (!how.backwards || !oldest || !takes(names.before)) return
    cursor = oldest
    for (let n = 0; n < MAX_PAGES; n++) {
      const answer = await this.read(page(cursor, names.before), 'read back, page by page upwards')
      const data = isObject(answer.body) && Array.isArray(answer.body.data) ? answer.body.data : []
      if (
        answer.status !== 200 ||
        !isObject(answer.body) ||
        answer.body.has_more !== true ||
        data.length === 0
      )
        break
      cursor = pairOf(data[0])
      if (!cursor) break
    }
  }

  /** One page of the list being read across steps (see the `page` step). */
  private async page(step: Extract<Step, { kind: 'page' }>): Promise<void> {
    const current = this.current as Recorded
    const names = paginationNames(this.deps.contract)
    const lists = listOperations(this.deps.contract).filter((op) =>
      [names?.limit, names?.after].every((name) => op.parameters.some((p) => p.name === name)),
    )
    if (!names || lists.length === 0) {
      current.title = 'read a page (the contract has no paginated list: nothing sent)'
      return
    }
    if (!this.paging) {
      const operation = lists[step.list % lists.length] as ContractOperation
      const backwards = step.backwards && operation.parameters.some((p) => p.name === names.before)
      const filters = this.filtersOf(operation, step.filters?.[operation.operationId] ?? {})
      this.paging = { collection: operation.path, pageSize: step.pageSize, direction: names.after, filters }
      // Upwards from the oldest object known to this account: the first page up from it (unfiltered lists only:
      // that object may be one the filter leaves out).
      const prefix = backwards && !filters.target ? listPrefix(this.deps.contract, operation) : undefined
      const oldest = prefix ? this.memory.pool('live', prefix)[0] : undefined
      if (oldest) this.paging = { ...this.paging, direction: names.before, cursor: oldest }
    }
    const { collection, pageSize, direction, cursor, filters } = this.paging
    const path = (side: 'target' | 'model') =>
      `${collection}?${filters[side] ? `${filters[side]}&` : ''}${names.limit}=${pageSize}${cursor ? `&${direction}=${cursor[side]}` : ''}`
    const role = step.key ?? 'secret'
    current.title = `read the next page of ${collection}${filters.target ? ` filtered by ${filters.target}` : ''} (${pageSize} a page, ${direction === names.before ? 'upwards' : 'downwards'}${role === 'secret' ? '' : `, key: ${role}`})`
    const answer = await this.read({ target: path('target'), model: path('model') }, 'a page', role)
    const data = isObject(answer.body) && Array.isArray(answer.body.data) ? answer.body.data : []
    const next = data.at(direction === names.before ? 0 : -1)
    const id = isObject(next) && typeof next.id === 'string' ? next.id : undefined
    const target = id ? this.ids.toTarget(id) : undefined
    if (answer.status === 200 && isObject(answer.body) && answer.body.has_more === true && id && target)
      this.paging.cursor = { target, model: id }
    else this.paging = undefined
  }

  /**
   * A list's filters as a query on each side: the valid values drawn (an object the account holds, a value of the
   * schema, an instant), neither a broken one nor a deleted object, which would end the paging at its first page.
   */
  private filtersOf(operation: ContractOperation, params: Record<string, ParamChoice>): IdPair {
    const query = { target: [] as [string, string][], model: [] as [string, string][] }
    for (const parameter of operation.parameters.filter((p) => p.in === 'query')) {
      const choice = params[parameter.name]
      if (!choice || choice.from === 'broken' || (choice.from === 'object' && choice.pool !== 'live'))
        continue
      const value = this.param(parameter.name, choice)
      if (value === undefined) continue
      query.target.push([parameter.name, value.target])
      query.model.push([parameter.name, value.model])
    }
    return { target: `${new URLSearchParams(query.target)}`, model: `${new URLSearchParams(query.model)}` }
  }

  private async again(step: Extract<Step, { kind: 'again' }>): Promise<void> {
    const current = this.current as Recorded
    if (this.idempotent.length === 0) {
      current.title = 'repeat an earlier request with its Idempotency-Key (none was made yet: nothing sent)'
      return
    }
    // Another body goes with a key that stands for a body (the model carried its request out), when there is one.
    const done = this.idempotent.filter((e) => e.done)
    const pool = step.changed && done.length > 0 ? done : this.idempotent
    const earlier = pool[step.pick % pool.length] as Idempotent
    await this.repeat(earlier, step.key === 'same' ? earlier.role : step.key, step.spelling, step.changed)
  }

  /**
   * A create with an Idempotency-Key (the secret key, a valid body), then sent again with the same body (its
   * answer replayed), then with another body (refused for the key stands for the first): a client retrying, and
   * one reusing a key by mistake.
   */
  private async keyed(step: Extract<Step, { kind: 'keyed' }>): Promise<void> {
    const before = this.idempotent.length
    await this.api({ ...step.create, readBack: false })
    const title = this.current?.title
    const made = this.idempotent[before]
    if (!made) return
    await this.repeat(made, made.role, 0)
    await this.repeat(made, made.role, 0, true)
    if (this.current) this.current.title = `${title}, then again with the same body, then with another`
  }

  /**
   * An earlier request that carried an Idempotency-Key, sent again with the key of `role`: its body the same, the
   * same value written another way (`spelling`), or changed.
   */
  private async repeat(
    earlier: Idempotent,
    role: KeyRole,
    spelling: number,
    changed?: boolean,
  ): Promise<void> {
    const current = this.current as Recorded
    const rekey = (request: SideRequest, side: 'target' | 'model'): SideRequest => {
      const headers = { ...request.headers }
      const key = this.keyOf(role, side)
      if (key === undefined) delete headers.authorization
      else headers.authorization = `Bearer ${key}`
      return { ...request, headers }
    }
    // The body written another way is the same request: compared as a JSON value (the contract, Idempotency).
    const respell = (request: SideRequest): SideRequest => {
      if (!isRespelled(spelling) || request.body === undefined) return request
      let value: unknown
      try {
        value = JSON.parse(request.body)
      } catch {
        return request
      }
      const { text } = spellBody(value, spelling & ~3)
      return { ...request, body: text }
    }
    const pair = {
      target: changeBody(respell(rekey(earlier.pair.target, 'target')), changed),
      model: changeBody(respell(rekey(earlier.pair.model, 'model')), changed),
    }
    const spelled =
      pair.target.body === earlier.pair.target.body
        ? 'same body'
        : changed && pair.target.body !== respell(earlier.pair.target).body
          ? 'another body'
          : 'the same body written another way'
    current.title = `${pair.target.method} ${pair.target.path} again, ${spelled} and Idempotency-Key (key: ${role})`
    await this.separateWrite()
    await this.exchange(pair, { operation: earlier.operation, role, title: current.title })
  }

  private async advance(seconds: number): Promise<void> {
    const current = this.current as Recorded
    current.title = `advance the clock ${seconds} s (POST /_mock/clock/advance)`
    await this.advanceBy(seconds)
  }

  private async call(step: Extract<Step, { kind: 'call' }>): Promise<void> {
    const current = this.current as Recorded
    current.title = 'place a simulated call (POST /_mock/accounts/{account_id}/calls)'
    const placing = await this.placeCall(step)
    if (!placing) return
    const { agent: placed, talk } = placing
    const ring = step.ringSeconds
    const edge = step.capEdge
    const talking = `talking ${talk} s${edge === undefined ? '' : `: its agent's cap${edge === 0 ? '' : edge > 0 ? ` +${edge}` : ` ${edge}`}`}`
    current.title = `place a simulated ${step.outcome} ${step.channel} call of agent ${placed} (ringing ${ring} s, ${talking}), then watch it to its analysis`
    // The call on its way, each stage read back (a stage that changes within a second of a read is run again by
    // the model in the neighbouring seconds before a difference counts): queued at once, in the middle of its
    // talk, 2 s after its end (not analyzed yet: the analysis comes 120 s after the end), then analyzed, after
    // which what is read no longer depends on the sub-second.
    const watch: Watch = step.watch ?? {}
    const made = this.memory.pool('live', 'call').at(-1)
    await this.watchCall('queued', watch, false, made)
    if (step.leave) {
      current.title = `place a simulated ${step.outcome} ${step.channel} call of agent ${placed} (ringing ${ring} s, ${talking}), left under way`
      return
    }
    const middle = ring + Math.floor(talk / 2)
    if (middle > 0) {
      await this.advanceBy(middle)
      await this.watchCall('in the middle of its talk', watch, false, made)
    }
    await this.advanceBy(ring + talk + 2 - middle)
    await this.watchCall('ended, not analyzed yet', watch, true, made)
    await this.advanceBy(123)
  }

  /**
   * A call's list read back at a stage of its call, whole and, when `watch` holds parameters, through them (a
   * filter or a cursor meeting the call under way), and the call itself by its ID (`call`); with `views`, the
   * account's views (the aggregates).
   */
  private async watchCall(stage: string, watch: Watch, views = false, call?: IdPair): Promise<void> {
    const { contract } = this.deps
    const calls = listOperations(contract).filter((op) => listPrefix(contract, op) === 'call')
    for (const operation of [...calls, ...(views ? viewOperations(contract) : [])])
      await this.readThrough(operation, watch[operation.operationId] ?? {}, `a placed call ${stage}`)
    const list = calls[0]
    const item =
      call && list && itemPathOf(contract, list.path, 'get') ? this.itemOf(list.path, call.model) : undefined
    if (item) await this.read(item, `a placed call ${stage}, by its ID`)
  }

  /**
   * A read of a path without parameters, plain and, when `params` holds query parameters, through them (a
   * filter, a cursor, a grouping).
   */
  private async readThrough(
    operation: ContractOperation,
    params: Record<string, ParamChoice>,
    why: string,
  ): Promise<void> {
    await this.read({ target: operation.path, model: operation.path }, why)
    const query = { target: [] as [string, string][], model: [] as [string, string][] }
    for (const parameter of operation.parameters.filter((p) => p.in === 'query')) {
      const value = this.param(parameter.name, params[parameter.name] ?? { from: 'absent' })
      // A deleted object as a cursor is neither allowed nor refused by the contract: not sent here.
      if (value === undefined || (value.pool === 'deleted' && idPrefixes(parameter.schema)?.[0] === '*'))
        continue
      query.target.push([parameter.name, value.target])
      query.model.push([parameter.name, value.model])
    }
    if (query.target.length === 0) return
    const search = (side: 'target' | 'model') => `${operation.path}?${new URLSearchParams(query[side])}`
    await this.read({ target: search('target'), model: search('model') }, why)
  }

  /**
   * Places a call on both sides; the target agent's ID and the seconds the call was asked to talk, or undefined
   * when none was placed (with a note).
   */
  private async placeCall(
    step: Omit<Extract<Step, { kind: 'call' }>, 'kind'>,
    which: 'main' | 'other' = 'main',
  ): Promise<{ agent: string; talk: number } | undefined> {
    const { target, model, time, capabilities } = this.deps
    const current = this.current as Recorded
    const pool = which === 'main' ? 'live' : 'other'
    const agents = this.memory.pool(pool, 'agt')
    if (capabilities.calls === false || agents.length === 0) {
      current.note =
        capabilities.calls === false
          ? "the target's control plane places no calls: nothing sent"
          : 'no agent yet: no call placed'
      return undefined
    }
    // A call at its agent's cap is placed on an agent whose cap was changed when there is one: where a setting
    // read when the agent was made, or from another field, shows.
    const capOf = (pair: IdPair) => this.memory.historyOf(pair.model).get('max_call_duration_seconds') ?? []
    const changed = agents.filter((pair) => new Set(capOf(pair)).size > 1)
    const among = step.capEdge !== undefined && changed.length > 0 ? changed : agents
    const agent = among[step.agent % among.length] as IdPair
    const numbers = step.channel === 'web' ? {} : { from_number: NUMBERS.theirs, to_number: NUMBERS.ours }
    const cap = capOf(agent).at(-1)
    const talk =
      step.capEdge !== undefined && typeof cap === 'number'
        ? Math.max(0, cap + step.capEdge)
        : step.durationSeconds
    const input = (agentId: string) => ({
      agent_id: agentId,
      outcome: step.outcome,
      channel: step.channel,
      direction: step.channel === 'web' ? 'inbound' : step.direction,
      ring_seconds: step.ringSeconds,
      duration_seconds: talk,
      ...numbers,
    })
    await this.separateWrite()
    let placed: Record<string, unknown>
    try {
      placed = await target.control.placeCall(this.accounts.target[which], input(agent.target))
    } catch (error) {
      if (!(error instanceof MockControlError)) throw error
      if (/ answered 40[45] /.test(error.message)) capabilities.calls = false
      current.note = `the target's control plane placed no call: ${error.message.slice(0, 120)}`
      return undefined
    }
    capabilities.calls = true
    this.interact(
      'control',
      'POST',
      `/accounts/${this.accounts.target[which]}/calls`,
      {},
      input(agent.target),
      placed,
    )
    time.step(Math.floor(Date.parse(String(placed.created_at)) / 1000))
    const twin = await model.control.placeCall(this.accounts.model[which], input(agent.model))
    this.ids.set(String(placed.id), String(twin.id))
    this.wrote(placed.created_at)
    this.memory.pool(pool, 'call').push({ target: String(placed.id), model: String(twin.id) })
    this.memory.stamp('created_at', Math.floor(Date.parse(String(placed.created_at)) / 1000))
    this.ringing.set(String(placed.id), step.ringSeconds)
    return { agent: agent.target, talk }
  }

  /** Moves the target's clock (and so the model's). */
  private async advanceBy(seconds: number): Promise<void> {
    const { target, time } = this.deps
    const before = await target.control.clock()
    const answer = await target.control.advanceClock(seconds)
    this.interact('control', 'POST', '/clock/advance', {}, { seconds }, answer)
    time.advanced(seconds)
    time.read(answer.now)
    // The clock runs ahead of real time by its offset, which a move adds to exactly (fractions too).
    const expected = before.offset_seconds + seconds
    if (Math.abs(answer.offset_seconds - expected) > 1e-6)
      this.controlDifference(
        '/_mock/clock/advance',
        answer,
        { ...answer, offset_seconds: expected },
        [
          {
            at: 'body.offset_seconds',
            target: String(answer.offset_seconds),
            model: `${expected} (${before.offset_seconds} before, moved ${seconds} s)`,
            decidedBy:
              'mock-control.yaml advanceClock: "Moves the clock forward by `seconds` (fractions allowed ...)"; Clock.offset_seconds: "Seconds the clock runs ahead of real time: advanced since start"',
          },
        ],
        'POST',
      )
  }

  // ---------------------------------------------------------------- one request on both sides

  private async exchange(
    pair: { target: SideRequest; model: SideRequest },
    meta: ExchangeMeta,
  ): Promise<{ target: SideAnswer; model: SideAnswer }> {
    const { target, time } = this.deps
    const t = await target.send(pair.target)
    this.sentToTarget(pair.target, t, meta.role)
    // The second the target handled the request in: its answer tells (the rate-limit fields); an answer
    // without them (a 401) is followed by a reading of its clock. A request may read the clock more than once
    // and straddle a second: the model then runs it again in the neighbouring seconds before a difference counts.
    const told = secondOf(t)
    let chosen: number
    let seconds: number[]
    if (told === undefined) {
      chosen = time.read((await target.control.clock()).now)
      seconds = [chosen - 1]
    } else {
      time.saw(told)
      chosen = told
      seconds = [told + 1, told - 1]
    }
    const record = await this.onModel(pair, meta, t, chosen, seconds, (e) => this.current?.exchanges.push(e))
    this.settle(record, pair.model, meta)
    return { target: t, model: record.model }
  }

  /**
   * The model's answer to a request the target answered `t`, run in `second` and compared; where they differ, run
   * again in each of the `near` seconds (a request may straddle a second, and the second an answer tells may be
   * one off the one the target handled it in: its `t` is rounded up) before the difference counts. `keep` is
   * handed the exchange as soon as it exists, so that a report shows it even when the sequence is cut there.
   */
  private async onModel(
    pair: { target: SideRequest; model: SideRequest },
    meta: ExchangeMeta,
    t: SideAnswer,
    second: number,
    near: number[],
    keep: (exchange: Exchanged) => void,
  ): Promise<Exchanged> {
    const { model, time } = this.deps
    const learnt = this.ids.checkpoint()
    time.step(second)
    const m = await model.send(pair.model)
    const exchange: Exchanged = {
      title: meta.title,
      request: pair.target,
      target: t,
      model: m,
      differences: [],
    }
    keep(exchange)
    if (this.uncomparable(exchange, meta)) return exchange
    exchange.differences = this.differencesOf(pair.target, meta, t, m)
    const tries = [{ second, at: new Set(exchange.differences.map((d) => d.at)) }]
    for (const other of near) {
      if (exchange.differences.length === 0) break
      this.ids.rollback(learnt)
      model.undoLast()
      time.again(other)
      const again = await model.send(pair.model)
      const differences = this.differencesOf(pair.target, meta, t, again)
      tries.push({ second: other, at: new Set(differences.map((d) => d.at)) })
      if (differences.length === 0) {
        exchange.model = again
        exchange.differences = []
      }
    }
    if (exchange.differences.length === 0) return exchange
    // A request the target handled across a second boundary read its clock in both seconds (its rate-limit fields
    // in one, its timestamps in the next): what differs in one second fits in the next, and nothing differs in
    // both. The model's state is the later second's, as the target's writes are.
    const later = tries.find((a) =>
      tries.some((b) => b.second === a.second - 1 && [...a.at].every((field) => !b.at.has(field))),
    )
    if (later) {
      this.ids.rollback(learnt)
      model.undoLast()
      time.again(later.second)
      exchange.model = await model.send(pair.model)
      exchange.differences = []
    }
    return exchange
  }

  /**
   * Requests sent to the target at once (`burst`): each is carried out whole, so their answers must be the
   * model's for one order of them, the model running them one after another in each order in turn (the order
   * of the seconds the target handled them in first), its state, clock and learnt IDs put back between tries.
   * No order fits: the closest (fewest differences) is reported.
   */
  private async burst(step: Extract<Step, { kind: 'burst' }>): Promise<void> {
    const { target, time } = this.deps
    const current = this.current as Recorded
    const prepared = step.steps.map((s) => this.prepare(s))
    const metas = prepared.map(
      (p, i): ExchangeMeta => ({
        operation: p.compared,
        role: (step.steps[i] as ApiStep).key,
        uncompared: p.uncompared,
        title: `${p.title}, sent with the others at once`,
      }),
    )
    current.title = `${prepared.length} requests at once: ${prepared.map((p) => p.title).join('; ')}`
    current.together = true
    if (prepared.some((p) => p.method !== 'GET' && p.method !== 'HEAD')) await this.separateWrite()
    const answers = await Promise.all(prepared.map((p) => target.send(p.pair.target)))
    for (const [i, p] of prepared.entries())
      this.sentToTarget(p.pair.target, answers[i] as SideAnswer, metas[i]?.role)
    const cut = answers.find((t) => t.notFromTarget && t.status !== 401)
    if (cut?.notFromTarget) throw new SequenceCut(cut.notFromTarget)
    const told = answers.map(secondOf)
    for (const second of told) if (second !== undefined) time.saw(second)
    const read = told.includes(undefined) ? time.read((await target.control.clock()).now) : 0
    const seconds = told.map((second) => second ?? read)
    let closest: { exchanges: Exchanged[]; count: number } | undefined
    for (const order of ordersOf(seconds)) {
      const tried = await this.inOrder(order, prepared, metas, answers, seconds)
      if (tried.fits) {
        for (const [n, exchange] of tried.exchanges.entries()) {
          current.exchanges.push(exchange)
          const i = order[n] as number
          this.settle(exchange, (prepared[i] as Prepared).pair.model, metas[i] as ExchangeMeta)
        }
        for (const [n, exchange] of tried.exchanges.entries()) {
          const i = order[n] as number
          this.rememberIdempotent(
            prepared[i] as Prepared,
            (step.steps[i] as ApiStep).key,
            exchange.model.status,
          )
        }
        // What the writes left, read back once all are answered: a write lost to another shows there.
        const readBack = new Set<string>()
        for (const [n, exchange] of tried.exchanges.entries()) {
          const p = prepared[order[n] as number] as Prepared
          if (!p.compared || ['GET', 'HEAD', 'OPTIONS'].includes(p.method) || exchange.model.status >= 300)
            continue
          if (readBack.has(p.pair.target.path)) continue
          readBack.add(p.pair.target.path)
          await this.readBack(p.operation, p.pair, exchange.model, { pageSize: 0, backwards: false })
        }
        return
      }
      const count = tried.exchanges.reduce((sum, e) => sum + e.differences.length, 0)
      if (!closest || count < closest.count) closest = { exchanges: tried.exchanges, count }
    }
    current.note = `sent at once: in no order of them, one after another, does the model answer as the target did (${factorial(prepared.length)} orders tried); shown, the closest`
    current.exchanges.push(...(closest?.exchanges ?? []))
    throw new DifferenceFound(this.records)
  }

  /** The requests of a burst run by the model in `order`, compared; undone again unless every answer fits. */
  private async inOrder(
    order: number[],
    prepared: Prepared[],
    metas: ExchangeMeta[],
    answers: SideAnswer[],
    seconds: number[],
  ): Promise<{ fits: boolean; exchanges: Exchanged[] }> {
    const { model, time } = this.deps
    const ids = this.ids.checkpoint()
    const clock = time.mark()
    const state = model.mark()
    const exchanges: Exchanged[] = []
    for (const i of order) {
      const second = seconds[i] as number
      await this.onModel(
        (prepared[i] as Prepared).pair,
        metas[i] as ExchangeMeta,
        answers[i] as SideAnswer,
        second,
        [second + 1, second - 1],
        (exchange) => exchanges.push(exchange),
      )
    }
    const fits = exchanges.every((e) => e.differences.length === 0)
    if (fits) state.keep()
    else {
      state.undo()
      this.ids.rollback(ids)
      clock.back()
    }
    return { fits, exchanges }
  }

  /** Notes which team members an answer of the model shows invited, and which no longer. */
  private noteInvited(body: unknown): void {
    const items = isObject(body) && Array.isArray(body.data) ? body.data : [body]
    for (const item of items)
      if (isObject(item) && item.object === 'team_member' && typeof item.id === 'string') {
        if (item.status === 'invited') this.invited.add(item.id)
        else this.invited.delete(item.id)
      }
  }

  /**
   * A header the contract calls unique (a request's ID) that repeats an earlier answer's value is a difference. A
   * replay of an Idempotency-Key returns the stored answer's headers, so it is left out.
   */
  private unique(record: Exchanged): void {
    const { target: t } = record
    if (t.headers['idempotent-replayed'] !== undefined) return
    for (const name of uniqueHeaders(this.deps.contract)) {
      const value = t.headers[name]
      if (value === undefined) continue
      const seen = this.uniqueValues.get(name) ?? new Set<string>()
      this.uniqueValues.set(name, seen)
      if (seen.has(value))
        record.differences.push({
          at: `header ${name}`,
          target: `${value}, as an earlier answer of this sequence`,
          model: 'a value of its own',
          decidedBy: headerSentence(this.deps.contract, name),
        })
      seen.add(value)
    }
  }

  /** Counts and records a request the target answered. */
  private sentToTarget(request: SideRequest, answer: SideAnswer, role: KeyRole | undefined): void {
    this.requests++
    // What the journal must show at its next reading: the requests with the account's secret key, answered by the
    // target itself (a proxy's answer never reached it), but a 401 (a revoked key's account may go unnamed).
    const requestId = answer.headers['request-id']
    if (
      role === 'secret' &&
      requestId &&
      request.headers.authorization !== undefined &&
      request.method !== 'OPTIONS' &&
      !answer.notFromTarget &&
      answer.status !== 401
    )
      this.unjournaled.push({ method: request.method, path: request.path, status: answer.status, requestId })
    this.interact('v1', request.method, request.path, request.headers, request.body, answer.body)
  }

  /**
   * Whether an exchange is left uncompared: a proxy answered in the target's place (the rest of the sequence is
   * cut, unless both sides refused it unauthenticated, which counts nothing), or the contract leaves it open.
   */
  private uncomparable(record: Exchanged, meta: ExchangeMeta): boolean {
    const { target: t, model: m } = record
    // Before the question whether the answers are compared: the model counted a request that never reached the
    // target (a proxy answered it), so the two sides' rate limits part whether or not this answer is compared.
    if (t.notFromTarget) {
      record.note = t.notFromTarget
      // Nothing is counted either side for a 401; anything else the model counted, the target never saw.
      if (t.status !== 401 || m.status !== 401) throw new SequenceCut(t.notFromTarget)
      return true
    }
    if (meta.uncompared) {
      record.note = meta.uncompared
      return true
    }
    return false
  }

  /** Where the target's answer to `request` differs from the model's, as the contract compares them. */
  private differencesOf(
    request: SideRequest,
    meta: ExchangeMeta,
    t: SideAnswer,
    m: SideAnswer,
  ): Difference[] {
    const { contract } = this.deps
    const bare = request.path.split('?')[0] as string
    const pathOperations = matchOperation(contract.operations, request.method, bare).pathOperations
    const compared = compareAnswers({
      contract,
      operation: meta.operation,
      pathOperations,
      head: request.method === 'HEAD',
      preflight: request.method === 'OPTIONS',
      cors: request.headers.origin !== undefined,
      target: t,
      model: m,
      urls: { target: t.url, model: m.url },
      ids: this.ids,
    })
    // What the target simulated is its own, but not when it says it happened.
    return [...compared, ...transcriptDifferences(t.body, this.ringing)]
  }

  /**
   * After the answers were compared: a target's answer that breaks the contract on its own is a difference too;
   * then what the exchange wrote and taught (IDs, values) is kept for the steps that follow.
   */
  private settle(record: Exchanged, request: SideRequest, meta: ExchangeMeta): void {
    const { contract, time } = this.deps
    const { target: t, model: m } = record
    if (record.note) return
    if (t.problems.length > 0 && record.differences.length === 0) {
      const bare = record.request.path.split('?')[0] as string
      const pathOperations = matchOperation(contract.operations, record.request.method, bare).pathOperations
      record.differences.push({
        at: "the target's answer",
        target: t.problems.join('; ').slice(0, 400),
        model: 'conforms',
        decidedBy: responseSentence(contract, meta.operation ?? pathOperations[0], t.status),
      })
    }
    if (record.differences.length === 0) this.unique(record)
    if (record.differences.length > 0) throw new DifferenceFound(this.records)
    if (!['GET', 'HEAD'].includes(request.method) && m.status < 300) this.wrote(time.current())
    this.memory.learn(request, m, meta.role, this.ids)
    this.noteInvited(m.body)
  }

  private interact(
    plane: Interaction['plane'],
    method: string,
    path: string,
    headers: Record<string, string>,
    body: unknown,
    answer: unknown,
  ): void {
    this.current?.interactions.push({
      plane,
      method,
      path,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      answer,
    })
  }
}

/**
 * Every order of requests sent at once, the order of the seconds the target handled them in first (ties in the
 * order they were sent).
 */
export function ordersOf(seconds: number[]): number[][] {
  const first = seconds.map((second, i) => ({ second, i })).sort((a, b) => a.second - b.second || a.i - b.i)
  const orders: number[][] = []
  const extend = (order: number[], left: number[]) => {
    if (left.length === 0) orders.push(order)
    for (const i of left)
      extend(
        [...order, i],
        left.filter((j) => j !== i),
      )
  }
  extend(
    [],
    first.map((entry) => entry.i),
  )
  return orders
}

const factorial = (n: number): number => (n <= 1 ? 1 : n * factorial(n - 1))

/**
 * With `changed`, the request with another body: the first string field of its JSON object with ` again` after
 * its value (the same request otherwise, when it has none).
 */
function changeBody(request: SideRequest, changed: boolean | undefined): SideRequest {
  if (!changed || request.body === undefined) return request
  let value: unknown
  try {
    value = JSON.parse(request.body)
  } catch {
    return request
  }
  if (!isObject(value)) return request
  const field = Object.keys(value).find((name) => typeof value[name] === 'string')
  if (field === undefined) return request
  return { ...request, body: JSON.stringify({ ...value, [field]: `${value[field]} again` }) }
}

/** The paths of a pair of requests without their query strings. */
const withoutQuery = (pair: { target: SideRequest; model: SideRequest }): IdPair => ({
  target: pair.target.path.split('?')[0] as string,
  model: pair.model.path.split('?')[0] as string,
})

/**
 * The second the target handled a request in, as its answer tells: `X-RateLimit-Reset` is now + `t` of the
 * window with the least left (on a tie, the shorter: docs/decisions/006-rate-limits.md). Undefined for an
 * answer without the rate-limit fields (a 401).
 */
function secondOf(answer: SideAnswer): number | undefined {
  const reset = Number(answer.headers['x-ratelimit-reset'])
  const remaining = answer.headers['x-ratelimit-remaining']
  const parsed = parseRateLimit(answer.headers.ratelimit ?? '')
  if (!Number.isInteger(reset) || remaining === undefined || !parsed.ok) return undefined
  const window = parsed.value.filter((w) => String(w.remaining) === remaining).at(-1)
  return window ? reset - window.reset : undefined
}
