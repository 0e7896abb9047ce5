import type { Account, AccountStore, Plan } from './accounts.ts'
import { type CheckedCapsule, readCapsule } from './capsule/read-capsule.ts'
import type { Clock } from './clock.ts'
import type { OpenApiDocument } from './contract/document.ts'
import type { KeyStore } from './keys/key-store.ts'
import type { AccountData } from './resources/account-data.ts'
import { checkSavedState } from './saved-state.ts'
import { type DemoAccount, type SeedOptions, seedDemoAccount } from './seed/seed.ts'
import type { StateSnapshot } from './state/change-set.ts'
import type { DemoIds, Meta } from './state/meta.ts'
import type { EngineState } from './state/state.ts'

export interface StartingStateOptions {
  state: EngineState
  meta: Meta
  seed: number
  plan: Plan
  size?: SeedOptions['size']
  clock: Clock
  document: OpenApiDocument
  accounts: AccountStore
  keys: KeyStore
  provision: (account: Account) => AccountData
  /** The state a store saved, or undefined for a fresh start. */
  saved: StateSnapshot | undefined
}

/**
 * Where the engine starts: the capsule it opens first (`EngineOptions.capsule`, checked whole before anything
 * starts), and its seed: the one given, else the capsule's, else 1.
 */
export function startingPoint(
  capsule: unknown,
  seed: number | undefined,
  document: OpenApiDocument,
): { fromCapsule: CheckedCapsule | undefined; seed: number } {
  const fromCapsule = capsule === undefined ? undefined : readCapsule(capsule, document)
  return { fromCapsule, seed: seed ?? fromCapsule?.capsule.mock.seed ?? 1 }
}

/**
 * The state the engine starts from, and the seeded state a reset returns to. The seeded state is rebuilt from
 * the seed at every start, also when a store holds a saved state, because seeding is deterministic (key values
 * and "now" aside); a saved state then replaces it, its demo keys kept valid across resets.
 */
export function startingState(options: StartingStateOptions): { seeded: StateSnapshot; demo: DemoAccount } {
  const { state, meta, seed, clock, accounts, keys } = options
  const seeded = seedDemoAccount({
    seed,
    plan: options.plan,
    size: options.size,
    clock,
    document: options.document,
    accounts,
    keys,
    dataFor: options.provision,
  })
  meta.setDemo({
    account_id: seeded.account.id,
    secret_key_id: seeded.secretKeyId,
    publishable_key_id: seeded.publishableKeyId,
    seed,
  })
  const seededState = state.snapshot()
  state.take()
  if (!options.saved) return { seeded: seededState, demo: seeded }
  const savedDemo = checkSavedState(options.saved, options.document)
  state.restore(options.saved)
  const account = accounts.get(savedDemo.account_id) as Account
  return {
    seeded: withDemoKeysOf(seededState, options.saved, savedDemo),
    demo: { account, secretKeyId: savedDemo.secret_key_id, publishableKeyId: savedDemo.publishable_key_id },
  }
}

/**
 * The seeded state with the demo keys of a saved state in place of the freshly seeded ones, so that the keys
 * a user was given keep working after a reset (their values are unknown here: only hashes are kept).
 */
export function withDemoKeysOf(
  seeded: StateSnapshot,
  saved: StateSnapshot,
  savedDemo: DemoIds,
): StateSnapshot {
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
