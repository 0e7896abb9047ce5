import { type Account, createAccountStore, type Limits, type Plan } from './accounts.ts'
import type { Capsule, OpenedCapsule } from './capsule/capsule.ts'
import { createCapsules, type TakeOptions } from './capsule/create-capsules.ts'
import { readCapsule } from './capsule/read-capsule.ts'
import { type Clock, createClock } from './clock.ts'
import type { OpenApiDocument } from './contract/document.ts'
import { createRouter } from './contract/router.ts'
import { createValidators } from './contract/validators.ts'
import { accountHandlers } from './control/account-handlers.ts'
import { createControlApi } from './control/control-api.ts'
import { mockHandlers } from './control/mock-handlers.ts'
import { createJournal, journalEntry } from './journal.ts'
import { createKeyStore, type KeyInput } from './keys/key-store.ts'
import { createRequestHandler } from './pipeline/handle-request.ts'
import { createRateLimiter } from './rate-limiter.ts'
import { createAccountDataStore } from './resources/account-data.ts'
import { v1Handlers } from './resources/v1-handlers.ts'
import { createScenarios } from './scenarios/create-scenarios.ts'
import { integrationCatalog } from './seed/integration-catalog.ts'
import type { DemoAccount, SeedOptions } from './seed/seed.ts'
import { createSimulation, simulationApi } from './simulation.ts'
import { startingState, withDemoKeysOf } from './starting-state.ts'
import type { StateSnapshot } from './state/change-set.ts'
import { recordedClock } from './state/clock-table.ts'
import { createMeta } from './state/meta.ts'
import { requestScope } from './state/request-scope.ts'
import { createState } from './state/state.ts'
import { createMemoryStore, type StateStore } from './state/store.ts'
import { createStoreSteps } from './store-steps.ts'
import type { EngineResponse } from './types.ts'
import { createV1Api } from './v1/v1-api.ts'

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
  /**
   * A capsule to start from (`GET /_mock/capsule`, `platform.capsule()`; its text or its value), checked whole
   * before anything starts (a `CapsuleError` naming the problem) and opened as the first step, through the
   * store. Its seed is the mock's unless `seed` is given.
   */
  capsule?: unknown
}

export type { DemoAccount } from './seed/seed.ts'

/**
 * Creates the stateful mock platform: the v1 API and the control plane, seeded with a demo account, its state
 * kept by `options.store` (memory by default). Runs anywhere Web Crypto runs (Node 20+, browsers). A wiring
 * file: each part is built by its own module, and requests go through one pipeline of which `/v1` and
 * `/_mock` are two instances.
 */
export async function createEngine(options: EngineOptions) {
  const { v1, control } = options.documents
  const fromCapsule = options.capsule === undefined ? undefined : readCapsule(options.capsule, v1)
  const seed = options.seed ?? fromCapsule?.capsule.mock.seed ?? 1
  const store = options.store ?? createMemoryStore()
  const saved = await store.load()
  const drift = { checkResponses: options.checkResponses, onContractViolation: options.onContractViolation }

  const state = createState()
  const clock = recordedClock(options.clock ?? createClock(), state)
  const accounts = createAccountStore(clock, state)
  const keys = createKeyStore(clock, state)
  const data = createAccountDataStore(state)
  // A shared store counts each request across processes itself; in one process the engine counts.
  const rateLimiter = createRateLimiter(state, clock, store.counted && ((id) => store.counted?.(id)))
  const journal = createJournal(state)
  const meta = createMeta(state)
  const scenarios = createScenarios({
    ...drift,
    state,
    clock,
    document: v1,
    accounts,
    keys,
    // The seed the state records, so that every process on a shared store draws alike.
    seed: () => meta.demo()?.seed ?? seed,
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
  const catalog = integrationCatalog(v1)
  const provision = (account: Account) => data.provision(account, clock, catalog)

  const start = startingState({
    state,
    meta,
    seed,
    plan: options.plan ?? 'pro',
    size: options.seedSize,
    clock,
    document: v1,
    accounts,
    keys,
    provision,
    saved,
  })
  await store.attach(state, { fresh: saved === undefined })
  /**
   * What a reset returns to: the seeded state, with the demo keys the state names now when its demo account is
   * the seeded one (a saved state's or a capsule's keys stay valid), read from the state itself so that a change
   * a store could not keep changes no reset, and every process on a shared store resets alike.
   */
  function resetTarget(): StateSnapshot {
    const ids = meta.demo()
    if (!ids || ids.account_id !== start.demo.account.id) return start.seeded
    if (!keys.get(ids.secret_key_id) || !keys.get(ids.publishable_key_id)) return start.seeded
    return withDemoKeysOf(start.seeded, state.snapshot(), ids)
  }
  /** Back to the seeded state: the demo keys stay valid, the journal is emptied, the clock follows real time. */
  const reset = () => state.resetTo(resetTarget())
  const demoAccountId = () => meta.demo()?.account_id ?? start.demo.account.id
  const capsules = createCapsules({ state, clock, meta, document: v1, seed })

  /** The demo account as the state names it now, with the values of its keys where this process knows them. */
  function currentDemo(): DemoAccount {
    const ids = meta.demo()
    const account = ids && accounts.get(ids.account_id)
    if (!ids || !account) return start.demo
    const known = (value: string | undefined, id: string) =>
      value !== undefined && keys.find(value)?.record.id === id ? value : undefined
    return {
      account,
      secretKeyId: ids.secret_key_id,
      publishableKeyId: ids.publishable_key_id,
      secretKey: known(start.demo.secretKey, ids.secret_key_id),
      publishableKey: known(start.demo.publishableKey, ids.publishable_key_id),
    }
  }

  const v1Api = createV1Api({
    ...drift,
    router: createRouter(v1),
    validators: createValidators(v1),
    handlers: v1Handlers(),
    dataFor: (account) => data.get(account.id) ?? provision(account),
    clock,
    accounts,
    keys,
    rateLimiter,
    journal,
    intercept: scenarios.intercept,
  })
  const controlApi = createControlApi({
    ...drift,
    router: createRouter(control),
    validators: createValidators(control),
    adminToken: options.adminToken,
    allowedHosts: options.allowedHosts,
    pages: options.pages,
    handlers: {
      ...accountHandlers({
        accounts,
        keys,
        clock,
        rateLimiter,
        provisionAccount: provision,
        deleteAccountData(accountId) {
          simulation.removeAccount(accountId)
          scenarios.removeAccount(accountId)
          data.remove(accountId)
        },
        demoAccountId,
      }),
      ...mockHandlers({ clock, journal, reset, seed }),
      ...capsules.handlers,
      ...simulation.handlers,
      ...scenarios.handlers,
    },
  })
  // Requests under no API (`/v2/...`, a malformed URL) are journaled as the API's are.
  const requests = createRequestHandler([v1Api, controlApi], (ctx, response, startedAt) =>
    journal.record(journalEntry(ctx, response, startedAt, clock)),
  )
  const steps = createStoreSteps({
    store,
    requests,
    bus: simulation.webhooks.bus,
    runDue: simulation.runDue,
    // A shared store (one that counts requests itself) needs to know what each request reads.
    scopeOf: store.counted ? requestScope({ keys, accounts, clock }) : undefined,
  })
  if (fromCapsule) await steps.run(() => capsules.open(fromCapsule))

  return {
    /** Answers one request (v1 API or control plane). */
    handle: steps.handle,
    ...simulationApi(simulation, clock, {
      run: steps.run,
      handle: steps.handle,
      demoAccountId,
      adminToken: options.adminToken,
    }),
    /** Calls `watcher` after every step (a request, a tick, a delivery step); returns how to stop. */
    watch: steps.watch,
    /** Moves whenever the data changes (here or, with a shared store, in another process). */
    changes: () => state.version(),
    /** Back to the seeded state, as `POST /_mock/reset` does: the demo keys stay valid. */
    reset: () => steps.run(reset),
    clock,
    /** The seed of the demo data: the option's, else the capsule's the mock started from, else 1. */
    seed,
    /** The demo account the state names, and the values of its keys when this process seeded them. */
    get demo(): DemoAccount {
      return currentDemo()
    },
    /** The whole state as plain JSON (key hashes only). */
    snapshot: (): StateSnapshot => state.snapshot(),
    /**
     * The capsule of this moment, as `GET /_mock/capsule` answers it: the whole state, never a key value; the
     * webhook signing secrets only with `webhookSecrets: true`. Taken as a step (with a shared store, the
     * latest state). Rejects (409 `limit_reached` as an ApiError) when it would be over 64 MiB.
     */
    capsule: (take: TakeOptions = {}): Promise<Capsule> =>
      steps.run(() => JSON.parse(new TextDecoder().decode(capsules.bytes(take))) as Capsule),
    /**
     * Replaces the whole state by a capsule's (its text or its value), as `POST /_mock/capsule` does: checked
     * whole first (a `CapsuleError` naming the problem, the state left as it was), then opened as one step
     * through the store, the clock set back to where the capsule's stood.
     */
    async openCapsule(capsule: unknown): Promise<OpenedCapsule> {
      const checked = capsules.check(capsule)
      return steps.run(() => capsules.open(checked))
    },
    store,
    /** Direct access for tests and adapters, without HTTP; changes made here are kept by the next step. */
    accounts,
    keys,
    journal,
    rateLimiter,
    /** Creates an account with its starting data. */
    createAccount: (input: { plan: Plan; email?: string; name?: string; limits?: Limits }) =>
      store.run(() => {
        const account = accounts.create(input)
        provision(account)
        return account
      }),
    /** Creates a key for an account; the result holds its value, once. */
    createKey: (accountId: string, input: KeyInput) =>
      store.run(() => {
        const result = keys.create(accountId, input)
        if (!result.ok) throw new Error(result.message)
        return result
      }),
    /** Lets go of the store (flushes what is pending). */
    close: () => store.close(),
  }
}

export type Engine = Awaited<ReturnType<typeof createEngine>>
