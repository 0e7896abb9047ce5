import { type Account, createAccountStore, type Limits, type Plan } from './accounts.ts'
import { ApiError } from './api-error.ts'
import { type Clock, createClock } from './clock.ts'
import type { OpenApiDocument } from './contract/document.ts'
import { createControlPlane } from './control-plane.ts'
import { createEngineCore } from './engine.ts'
import { errorResponse } from './error-response.ts'
import { createJournal } from './journal.ts'
import { createKeyStore, type KeyInput } from './key-store.ts'
import { newId } from './random.ts'
import { createRateLimiter } from './rate-limiter.ts'
import { createAccountDataStore } from './resources/account-data.ts'
import { agentHandlers } from './resources/agents.ts'
import { analyticsHandlers } from './resources/analytics.ts'
import { callLogHandlers } from './resources/call-logs.ts'
import { integrationCatalog, integrationHandlers } from './resources/integrations.ts'
import { teamMemberHandlers } from './resources/team-members.ts'
import { userHandlers } from './resources/user.ts'
import { createScenarios } from './scenarios/create-scenarios.ts'
import { type DemoAccount, type SeedOptions, seedDemoAccount } from './seed/seed.ts'
import { createSimulation, simulationApi } from './simulation.ts'
import type { StateSnapshot } from './state/change-set.ts'
import { recordedClock } from './state/clock-table.ts'
import { createMeta, type DemoIds } from './state/meta.ts'
import { checkSavedState } from './state/saved-state.ts'
import { createState } from './state/state.ts'
import { createMemoryStore, type StateStore, StoreUnavailable } from './state/store.ts'
import type { EngineRequest, EngineResponse } from './types.ts'

export interface EngineOptions {
  /** The v1 contract and the control-plane contract (the generated JSON documents). */
  documents: { v1: OpenApiDocument; control: OpenApiDocument }
  /** Seed of the demo data: the same seed gives the same data. Default 1. */
  seed?: number
  /** Plan of the seeded demo account. Default `pro`. */
  plan?: Plan
  /** How much demo data to seed (e.g. `{ callLogs: 100_000 }` for benchmarks). */
  seedSize?: SeedOptions['size']
  clock?: Clock
  /** Check every response against its contract, v1 and control plane (on in tests). */
  checkResponses?: boolean
  onContractViolation?: (message: string) => void
  /** Require this token on the control plane; otherwise it answers loopback clients only. */
  adminToken?: string
  /** Host names the control plane answers besides loopback ones and addresses; undefined: no Host check. */
  allowedHosts?: readonly string[]
  /** Pages served by the control plane (`/docs`, `/dashboard`), provided by adapters. */
  pages?: Record<string, () => EngineResponse>
  /** Where the state lives beyond this process: memory (default), a durable file, a shared Redis. */
  store?: StateStore
  /**
   * Record webhook deliveries for a deliverer to make (the Node server runs one). Off: events reach
   * `onEvent` listeners only (MSW, the browser). Default false.
   */
  webhookDeliveries?: boolean
  /** Told when a scheduled transition fails (a defect: the transition is dropped, the others go on). */
  onScheduleError?: (message: string) => void
}

export type { DemoAccount } from './seed/seed.ts'

/**
 * Creates the stateful mock platform: the v1 API and the control plane, seeded with a demo account, its state
 * kept by `options.store` (memory by default). Runs anywhere Web Crypto runs (Node 20+, browsers).
 */
export async function createEngine(options: EngineOptions) {
  const seed = options.seed ?? 1
  const store = options.store ?? createMemoryStore()
  const saved = await store.load()
  const { v1, control } = options.documents
  const catalog = integrationCatalog(v1)

  const state = createState()
  const clock = recordedClock(options.clock ?? createClock(), state)
  const accounts = createAccountStore(clock, state)
  const keys = createKeyStore(clock, state)
  const data = createAccountDataStore(state)
  const rateLimiter = createRateLimiter(state, clock)
  const journal = createJournal(state)
  const meta = createMeta(state)
  const scenarios = createScenarios({
    state,
    clock,
    document: v1,
    accounts,
    keys,
    // The seed the state records, so that every process on a shared store draws alike.
    seed: () => meta.demo()?.seed ?? seed,
    checkResponses: options.checkResponses,
    onContractViolation: options.onContractViolation,
  })
  const simulation = createSimulation({
    state,
    clock,
    accounts,
    data,
    document: v1,
    seed,
    deliver: options.webhookDeliveries === true,
    onScheduleError: options.onScheduleError,
  })

  const provision = (account: Account) => data.provision(account, clock, catalog)
  const core = createEngineCore({
    document: v1,
    clock,
    accounts,
    keys,
    rateLimiter,
    journal,
    checkResponses: options.checkResponses,
    onContractViolation: options.onContractViolation,
    handlers: {
      ...userHandlers(),
      ...agentHandlers(),
      ...callLogHandlers(),
      ...analyticsHandlers(),
      ...integrationHandlers(),
      ...teamMemberHandlers(),
    },
    dataFor: (account) => data.get(account.id) ?? provision(account),
    control: (request, url, requestId) => controlPlane(request, url, requestId),
    intercept: scenarios.intercept,
  })

  // The seeded state is what a reset returns to. It is rebuilt from the seed at every start, also when a
  // store holds a saved state, because seeding is deterministic (key values and "now" aside).
  const seeded = seedDemoAccount({
    seed,
    plan: options.plan ?? 'pro',
    size: options.seedSize,
    clock,
    document: v1,
    accounts,
    keys,
    dataFor: provision,
  })
  meta.setDemo({
    account_id: seeded.account.id,
    secret_key_id: seeded.secretKeyId,
    publishable_key_id: seeded.publishableKeyId,
    seed,
  })
  let seededState = state.snapshot()
  state.take()

  let demo: DemoAccount = seeded
  // Stryker disable all: starting from a saved state and the control plane's reset and account deletion: the
  // store's and the control plane's side (test/stores/*.test.ts, test/mock/control-plane.test.ts); the suite
  // starts a fresh mock and never resets it
  if (saved) {
    const savedDemo = checkSavedState(saved, v1)
    seededState = withDemoKeysOf(seededState, saved, savedDemo)
    state.restore(saved)
    const account = accounts.get(savedDemo.account_id) as Account
    demo = { account, secretKeyId: savedDemo.secret_key_id, publishableKeyId: savedDemo.publishable_key_id }
  }
  await store.attach(state, { fresh: saved === undefined })

  /** Back to the seeded state: the demo keys stay valid, the journal is emptied, the clock follows real time. */
  function reset(): void {
    state.resetTo(seededState)
  }

  const controlPlane = createControlPlane({
    document: control,
    accounts,
    keys,
    clock,
    rateLimiter,
    journal,
    adminToken: options.adminToken,
    allowedHosts: options.allowedHosts,
    pages: options.pages,
    handlers: { ...simulation.handlers, ...scenarios.handlers },
    seed,
    checkResponses: options.checkResponses,
    onContractViolation: options.onContractViolation,
    provisionAccount: provision,
    deleteAccountData: (accountId) => {
      simulation.removeAccount(accountId)
      scenarios.removeAccount(accountId)
      data.remove(accountId)
    },
    demoAccountId: () => meta.demo()?.account_id ?? demo.account.id,
    reset,
  })
  // Stryker restore all

  const { runDue, webhooks } = simulation
  const watchers = new Set<() => void>()

  /** Runs one step through the store, then tells listeners of its events and watchers that it happened. */
  async function run<T>(work: () => T): Promise<T> {
    try {
      const result = await store.run(work)
      webhooks.bus.flush()
      return result
    } catch (error) {
      webhooks.bus.discard()
      throw error
    } finally {
      for (const watcher of watchers) watcher()
    }
  }

  /**
   * Runs a request as a step through the store, with what fell due before it (so that it sees the present)
   * and after it (a clock advance); a step whose changes could not be kept answers 503, having changed nothing.
   */
  async function step(request: EngineRequest): Promise<EngineResponse> {
    try {
      return await run(() => {
        runDue()
        const response = core.handle(request)
        runDue()
        return response
      })
    } catch (error) {
      // Stryker disable all: a store that cannot keep a change (Redis down: test/stores/redis-store.test.ts);
      // the in-memory store of the run always can
      if (!(error instanceof StoreUnavailable)) throw error
      const unavailable = new ApiError(
        503,
        'api_error',
        'service_unavailable',
        `The mock could not save this change (${error.message}); nothing was changed. Retry later.`,
        {},
        { 'retry-after': String(error.retryAfterSeconds) },
      )
      // Journaled as the client sees it, if the store can keep even that.
      return store
        .run(() => core.refuse(request, unavailable))
        .catch(() => {
          const requestId = newId('req', 20)
          const response = errorResponse(unavailable, requestId)
          response.headers['request-id'] = requestId
          return response
        })
      // Stryker restore all
    }
  }

  return {
    /** Answers one request (v1 API or control plane). */
    handle: step,
    ...simulationApi(simulation, clock, {
      run,
      handle: step,
      demoAccountId: () => meta.demo()?.account_id ?? demo.account.id,
      adminToken: options.adminToken,
    }),
    // Stryker disable all: the adapters' side (dashboard updates, tests' direct access, the CLI's reset and close),
    // not v1: test/mock/*.test.ts, test/browser/dashboard*.test.ts
    /** Calls `watcher` after every step (a request, a tick, a delivery step); returns how to stop. */
    watch(watcher: () => void): () => void {
      watchers.add(watcher)
      return () => {
        watchers.delete(watcher)
      }
    },
    /** Moves whenever the data changes (here or, with a shared store, in another process). */
    changes: () => state.version(),
    /** Back to the seeded state, as `POST /_mock/reset` does: the demo keys stay valid. */
    async reset() {
      await run(reset)
    },
    clock,
    get demo() {
      return demo
    },
    /** The whole state as plain JSON (key hashes only). */
    snapshot: (): StateSnapshot => state.snapshot(),
    store,
    /** Direct access for tests and adapters, without HTTP; changes made here are kept by the next step. */
    accounts,
    keys,
    journal,
    rateLimiter,
    /** Creates an account with its starting data. */
    async createAccount(input: { plan: Plan; email?: string; name?: string; limits?: Limits }) {
      return store.run(() => {
        const account = accounts.create(input)
        provision(account)
        return account
      })
    },
    /** Creates a key for an account; the result holds its value, once. */
    async createKey(accountId: string, input: KeyInput) {
      return store.run(() => {
        const result = keys.create(accountId, input)
        if (!result.ok) throw new Error(result.message)
        return result
      })
    },
    /** Lets go of the store (flushes what is pending). */
    close: () => store.close(),
    // Stryker restore all
  }
}

export type Engine = Awaited<ReturnType<typeof createEngine>>

/**
 * The seeded state with the demo keys of a saved state in place of the freshly seeded ones, so that the keys
 * a user was given keep working after a reset (their values are unknown here: only hashes are kept).
 */
// Stryker disable all: a saved state's demo keys (test/stores/*.test.ts), never in a fresh mock
function withDemoKeysOf(seeded: StateSnapshot, saved: StateSnapshot, savedDemo: DemoIds): StateSnapshot {
  const seededDemo = new Map(seeded.tables.meta ?? []).get('demo') as DemoIds
  const seededIds = [seededDemo.secret_key_id, seededDemo.publishable_key_id]
  const savedIds = [savedDemo.secret_key_id, savedDemo.publishable_key_id]
  const savedKeys = (saved.tables.keys ?? [])
    .filter(([id]) => savedIds.includes(id))
    .map(([id, value]) => {
      const stored = value as { record: Record<string, unknown>; hash: string }
      const record = { ...stored.record, status: 'active', revoked_at: null, last_used_at: null }
      return [id, { record, hash: stored.hash }] as [string, unknown]
    })
  return {
    ...seeded,
    tables: {
      ...seeded.tables,
      keys: [...(seeded.tables.keys ?? []).filter(([id]) => !seededIds.includes(id)), ...savedKeys],
      meta: (seeded.tables.meta ?? []).map(([key, value]) =>
        key === 'demo' ? [key, { ...savedDemo, seed: seededDemo.seed }] : [key, value],
      ),
    },
  }
}
// Stryker restore all
