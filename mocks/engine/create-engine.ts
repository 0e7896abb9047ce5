import { type Account, createAccountStore, type Plan } from './accounts.ts'
import { type Clock, createClock } from './clock.ts'
import { driftCheck } from './contract/contract-drift.ts'
import type { OpenApiDocument } from './contract/document.ts'
import { createRouter } from './contract/router.ts'
import { createValidators } from './contract/validators.ts'
import { engineControl } from './control/engine-control.ts'
import { inProcessApi } from './in-process-api.ts'
import { createJournal, journalRequests } from './journal.ts'
import { createKeyStore } from './keys/key-store.ts'
import { createRequestHandler } from './pipeline/handle-request.ts'
import { createRateLimiter } from './rate-limiter.ts'
import { createAccountDataStore } from './resources/account-data.ts'
import { v1Handlers } from './resources/v1-handlers.ts'
import { createScenarios } from './scenarios/create-scenarios.ts'
import { integrationCatalog } from './seed/integration-catalog.ts'
import type { DemoAccount, SeedOptions } from './seed/seed.ts'
import { createSimulation, simulationApi } from './simulation.ts'
import { startingPoint, startingState } from './starting-state.ts'
import { recordedClock } from './state/clock-table.ts'
import { storeCounts } from './state/counted-windows.ts'
import { createMeta } from './state/meta.ts'
import { scopeFor } from './state/request-scope.ts'
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
  const { v1 } = options.documents
  const { fromCapsule, seed } = startingPoint(options.capsule, options.seed, v1)
  const store = options.store ?? createMemoryStore()
  const saved = await store.load()
  const drift = driftCheck(options)

  const state = createState()
  const clock = recordedClock(options.clock ?? createClock(), state)
  const accounts = createAccountStore(clock, state)
  const keys = createKeyStore(clock, state)
  const data = createAccountDataStore(state)
  // A shared store counts each request across processes itself; in one process the engine counts.
  const rateLimiter = createRateLimiter(state, clock, storeCounts(store))
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
  const provision = (account: Account) => data.provision(account, catalog)

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
  const control = engineControl({
    documents: options.documents,
    drift,
    adminToken: options.adminToken,
    allowedHosts: options.allowedHosts,
    pages: options.pages,
    seed,
    state,
    meta,
    clock,
    start,
    accounts,
    keys,
    data,
    rateLimiter,
    journal,
    simulation,
    scenarios,
    provision,
  })
  // Requests under no API (`/v2/...`, a malformed URL) are journaled as the API's are.
  const requests = createRequestHandler([v1Api, control.api], journalRequests(journal, clock))
  const steps = createStoreSteps({
    store,
    requests,
    bus: simulation.webhooks.bus,
    runDue: simulation.runDue,
    // A shared store (one that counts requests itself) needs to know what each request reads.
    scopeOf: scopeFor(store, { keys, accounts, clock }),
  })
  if (fromCapsule) await steps.run(() => control.capsules.open(fromCapsule))

  return {
    /** Answers one request (v1 API or control plane). */
    handle: steps.handle,
    ...simulationApi(simulation, clock, {
      run: steps.run,
      handle: steps.handle,
      demoAccountId: control.demoAccountId,
      adminToken: options.adminToken,
    }),
    /** Calls `watcher` after every step (a request, a tick, a delivery step); returns how to stop. */
    watch: steps.watch,
    /** Moves whenever the data changes (here or, with a shared store, in another process). */
    changes: () => state.version(),
    clock,
    /** The seed of the demo data: the option's, else the capsule's the mock started from, else 1. */
    seed,
    /** The demo account the state names, and the values of its keys when this process seeded them. */
    get demo(): DemoAccount {
      return control.currentDemo()
    },
    store,
    /** Direct access for tests and adapters, without HTTP; changes made here are kept by the next step. */
    accounts,
    keys,
    journal,
    rateLimiter,
    ...inProcessApi({ state, store, run: steps.run, control, accounts, keys, provision }),
    /** Lets go of the store (flushes what is pending). */
    close: () => store.close(),
  }
}

export type Engine = Awaited<ReturnType<typeof createEngine>>
