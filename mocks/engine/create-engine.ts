import type { Account, Limits, Plan } from './accounts.ts'
import { type Clock, createClock } from './clock.ts'
import type { OpenApiDocument } from './contract/document.ts'
import { createControlPlane } from './control-plane.ts'
import { createEngineCore } from './engine.ts'
import type { KeyInput, StoredKey } from './key-store.ts'
import {
  type AccountData,
  type AccountDataSnapshot,
  provisionAccountData,
  restoreAccountData,
  snapshotAccountData,
} from './resources/account-data.ts'
import { agentHandlers } from './resources/agents.ts'
import { analyticsHandlers } from './resources/analytics.ts'
import { callLogHandlers } from './resources/call-logs.ts'
import { integrationCatalog, integrationHandlers } from './resources/integrations.ts'
import { teamMemberHandlers } from './resources/team-members.ts'
import { userHandlers } from './resources/user.ts'
import { type SeedOptions, seedDemoAccount } from './seed/seed.ts'
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
  /** Check every v1 response against the contract (on in tests). */
  checkResponses?: boolean
  onContractViolation?: (message: string) => void
  /** Require this token on the control plane; otherwise it answers loopback clients only. */
  adminToken?: string
  /** Host names the control plane answers besides loopback ones and addresses; undefined: no Host check. */
  allowedHosts?: readonly string[]
  /** Pages served by the control plane (`/docs`, `/dashboard`), provided by adapters. */
  pages?: Record<string, () => Promise<EngineResponse> | EngineResponse>
  /** A snapshot to start from instead of seeding (the state file). */
  snapshot?: EngineSnapshot
}

/** The whole state as plain JSON: accounts, keys (hashes only), every resource, the clock offset. */
export interface EngineSnapshot {
  version: 1
  seed: number
  clock_offset_seconds: number
  demo: { account_id: string; secret_key_id: string; publishable_key_id: string }
  accounts: Account[]
  keys: StoredKey[]
  data: Record<string, AccountDataSnapshot>
}

/** The demo account and the values of its two keys, known only to whoever seeded it. */
export interface DemoAccount {
  account: Account
  secretKey?: string
  publishableKey?: string
  secretKeyId: string
  publishableKeyId: string
}

/**
 * Creates the stateful mock platform: the v1 API and the control plane, seeded with a demo account.
 * Runs anywhere Web Crypto runs (Node 20+, browsers).
 */
export async function createEngine(options: EngineOptions) {
  const seed = options.seed ?? 1
  const clock = options.clock ?? createClock({ offsetSeconds: options.snapshot?.clock_offset_seconds ?? 0 })
  const { v1, control } = options.documents
  const catalog = integrationCatalog(v1)
  let data = new Map<string, AccountData>()
  let changes = 0

  const core = createEngineCore({
    document: v1,
    clock,
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
    dataFor(account) {
      let found = data.get(account.id)
      if (!found) {
        found = provisionAccountData(account, clock, catalog)
        data.set(account.id, found)
      }
      return found
    },
    control: (request, url, requestId) => controlPlane(request, url, requestId),
  })

  function snapshot(): EngineSnapshot {
    return {
      version: 1,
      seed,
      clock_offset_seconds: clock.offsetSeconds(),
      demo: {
        account_id: demo.account.id,
        secret_key_id: demo.secretKeyId,
        publishable_key_id: demo.publishableKeyId,
      },
      accounts: structuredClone(core.accounts.list()),
      keys: structuredClone(core.keys.dump()),
      data: Object.fromEntries([...data].map(([id, accountData]) => [id, snapshotAccountData(accountData)])),
    }
  }

  function restore(state: EngineSnapshot): void {
    core.accounts.restore(structuredClone(state.accounts))
    core.keys.restore(structuredClone(state.keys))
    data = new Map(
      Object.entries(state.data).map(([id, accountData]) => [id, restoreAccountData(accountData)]),
    )
    core.rateLimiter.reset()
  }

  // The seeded state is what a reset returns to; it is rebuilt from the seed even when starting from a
  // saved state, because seeding is deterministic (key values aside).
  const saved = options.snapshot
  let demo: DemoAccount = await seedDemoAccount({
    seed: saved?.seed ?? seed,
    plan: options.plan ?? 'pro',
    size: options.seedSize,
    clock,
    document: v1,
    accounts: core.accounts,
    keys: core.keys,
    dataFor: (account) => {
      const fresh = provisionAccountData(account, clock, catalog)
      data.set(account.id, fresh)
      return fresh
    },
  })
  let seeded = snapshot()
  if (saved) {
    const account = saved.accounts.find((a) => a.id === saved.demo.account_id)
    if (!account) throw new Error('The state file names a demo account it does not contain.')
    seeded = withDemoKeysOf(seeded, saved, [demo.secretKeyId, demo.publishableKeyId])
    restore(saved)
    demo = {
      account: core.accounts.get(account.id) ?? account,
      secretKeyId: saved.demo.secret_key_id,
      publishableKeyId: saved.demo.publishable_key_id,
    }
  }

  /** Back to the seeded state: the demo keys stay valid, the journal is emptied, the clock follows real time. */
  function reset(): void {
    restore(seeded)
    core.journal.clear()
    clock.reset()
  }

  const controlPlane = createControlPlane({
    document: control,
    accounts: core.accounts,
    keys: core.keys,
    clock,
    rateLimiter: core.rateLimiter,
    journal: core.journal,
    adminToken: options.adminToken,
    allowedHosts: options.allowedHosts,
    pages: options.pages,
    seed,
    deleteAccountData: (accountId) => {
      data.delete(accountId)
    },
    reset,
  })

  return {
    /** Answers one request (v1 API or control plane). */
    async handle(request: EngineRequest): Promise<EngineResponse> {
      const response = await core.handle(request)
      const method = request.method.toUpperCase()
      if (method !== 'GET' && method !== 'OPTIONS' && method !== 'HEAD' && response.status < 400) changes++
      return response
    },
    /** Count of state-changing requests answered so far (adapters persist when it moves). */
    changes: () => changes,
    /** Back to the seeded state, as `POST /_mock/reset` does: the demo keys stay valid. */
    reset() {
      reset()
      changes++
    },
    clock,
    demo,
    snapshot,
    /** Direct access for tests and adapters, without HTTP. */
    accounts: core.accounts,
    keys: core.keys,
    journal: core.journal,
    rateLimiter: core.rateLimiter,
    async createAccount(input: { plan: Plan; email?: string; name?: string; limits?: Limits }) {
      return core.accounts.create(input)
    },
    async createKey(accountId: string, input: KeyInput) {
      const result = await core.keys.create(accountId, input)
      if (!result.ok) throw new Error(result.message)
      return result
    },
  }
}

export type Engine = Awaited<ReturnType<typeof createEngine>>

/**
 * The seeded state with the demo keys of a saved state in place of the freshly seeded ones, so that
 * the keys a user was given keep working after a reset (their values are unknown: only hashes are kept).
 */
function withDemoKeysOf(
  seeded: EngineSnapshot,
  saved: EngineSnapshot,
  seededKeyIds: string[],
): EngineSnapshot {
  const savedIds = [saved.demo.secret_key_id, saved.demo.publishable_key_id]
  const savedKeys = saved.keys
    .filter((stored) => savedIds.includes(stored.record.id))
    .map((stored) => ({
      hash: stored.hash,
      record: {
        ...structuredClone(stored.record),
        status: 'active' as const,
        revoked_at: null,
        last_used_at: null,
      },
    }))
  return {
    ...seeded,
    demo: saved.demo,
    keys: [...seeded.keys.filter((stored) => !seededKeyIds.includes(stored.record.id)), ...savedKeys],
  }
}
